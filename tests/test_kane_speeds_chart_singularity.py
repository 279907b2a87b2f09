"""A start in Kane's speeds where the coordinates, not the dependent speeds, are singular.

A Chaplygin ball whose attitude is in ZXZ Euler angles (speeds: its body angular velocity; the
contact's x' and y' dependent, C_dep the identity) started at b = 0 was refused with "their block
C_dep of the velocity constraints is singular ... use the coordinate model ... or choose other
dependent speeds" (an outside probe): C_dep is regular, the kinematic differential equations
(1 / sin b) are not, and neither remedy works there. The refusal now names the kinematic equations;
where C_dep is singular (a skate's sideways speed dependent at a heading of pi/2) it still names C_dep."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh
from nonholo.errors import ModelError

m, r, I1, I2, I3 = sp.symbols("m r I1 I2 I3", positive=True)


@pytest.fixture(scope="module")
def ball():
    a, b, c, x, y = me.dynamicsymbols("a b c x y")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", [a, b, c], "ZXZ")
    w = B.ang_vel_in(N)
    B.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    kd = [(B.ang_vel_in(N) - w).dot(e) for e in B] + [x.diff() - u4, y.diff() - u5]
    O = me.Point("O")
    O.set_vel(N, 0)
    centre = O.locatenew("C", x * N.x + y * N.y + r * N.z)
    centre.set_vel(N, u4 * N.x + u5 * N.y)
    om = B.ang_vel_in(N)
    km = me.KanesMethod(N, [a, b, c, x, y], [u1, u2, u3], kd_eqs=kd, u_dependent=[u4, u5],
                        velocity_constraints=[u4 - r * om.dot(N.y), u5 + r * om.dot(N.x)])
    km.kanes_equations([me.RigidBody("ball", centre, B, m, (me.inertia(B, I1, I2, I3), centre))], [])
    return nh.System.from_kanes_method(km, {m: 1.0, r: 0.5, I1: 0.08, I2: 0.1, I3: 0.13})


@pytest.mark.parametrize("b", [0.0, 1e-7])
def test_the_refusal_names_the_kinematic_equations_at_the_chart_singularity(ball, b):
    with pytest.raises(ModelError, match=r"kinematic differential equations of KanesMethod .* are singular") as info:
        nh.simulate(ball.nonholonomic(), (0, 1), [0.2, b, 0.1, 0, 0, 1.0, -0.7, 2.0])
    assert "C_dep is regular" in str(info.value) and "choose other dependent speeds" not in str(info.value)
    assert "nan" not in str(info.value)


def test_away_from_it_the_default_runs_and_rolls(ball):
    run = nh.simulate(ball.nonholonomic(), (0, 1), [0.2, 0.8, 0.1, 0, 0, 1.0, -0.7, 2.0])
    assert run.success and np.abs(run.constraint_residual()).max() < 1e-8
