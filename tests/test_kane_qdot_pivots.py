"""kane_qdot solves the kinematic differential equations in numbers with pivoting: SymPy's
kindiffdict() solves them by an LU without pivoting, 0/0 where a pivot vanishes identically (a body
turned by XYZ angles whose speeds are its angular velocity's components in N)."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

from nonholo.expressions.mechanics import kane_qdot, kane_speeds


def test_kane_qdot_of_a_body_whose_speeds_are_in_the_space_frame():
    x, y, q1, q2, q3 = me.dynamicsymbols("x y q1 q2 q3")
    w1, w2, w3, u4, u5 = me.dynamicsymbols("w1 w2 w3 u4 u5")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", [q1, q2, q3], "XYZ")
    om = B.ang_vel_in(N)
    kd = [w1 - om.dot(N.x), w2 - om.dot(N.y), w3 - om.dot(N.z), x.diff() - u4, y.diff() - u5]
    B.set_ang_vel(N, w1 * N.x + w2 * N.y + w3 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u4 * N.x + u5 * N.y)
    km = me.KanesMethod(N, [x, y, q1, q2, q3], [w1, w2, w3, u4, u5], kd_eqs=kd)
    km.kanes_equations([me.RigidBody("b", P, B, 1, (me.inertia(B, 1, 2, 3), P))], [])
    q0, w = np.array([0.6, -0.2, 0.1, -0.2, 0.3]), np.array([0.3, -0.2, 0.8, 0.12, 0.51])
    qdot = kane_qdot(km, q0, w)
    # the angular velocity of those angle rates, from the direction cosines: d/dt R R^T
    R = sp.lambdify([[q1, q2, q3]], N.dcm(B))
    h = 1e-6
    W = (np.array(R(q0[2:] + h * qdot[2:])) - np.array(R(q0[2:] - h * qdot[2:]))) / (2 * h) @ np.array(R(q0[2:])).T
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], w[:3], rtol=1e-8)  # q1' came out -6.1 for 0.465
    np.testing.assert_allclose(qdot[:2], w[3:], rtol=1e-14)
    np.testing.assert_allclose(kane_speeds(km, q0, qdot), w, rtol=1e-12)


def test_a_huge_singular_constraint_coefficient_is_refused_not_simplified_for_ever(monkeypatch):
    """_regular cancels a removable 0/0 of a small entry; an entry of thousands of operations (SymPy's
    unpivoted q'(u) substituted into constraints written in q': 7959 for a rolling ball) made
    sp.cancel run for 15 minutes: it is refused with the way out instead."""
    from nonholo.errors import ModelError
    from nonholo.expressions.mechanics import kane

    q = me.dynamicsymbols("q0:3")
    small = sp.Matrix([[(q[0] ** 2 - q[0]) / q[0], sp.cos(q[1])]])
    np.testing.assert_equal(sp.simplify(kane._regular(small, q)[0] - (q[0] - 1)), 0)
    assert kane.MAX_TIDY_OPS == 5000
    monkeypatch.setattr(kane, "MAX_TIDY_OPS", 60)  # the guard, on an entry of tens of operations
    big = sum(sp.cos(i * q[1] + q[2]) * q[0] ** i for i in range(1, 12)) + 1
    assert sp.count_ops(big) > 60
    with pytest.raises(ModelError, match="too large to simplify"):
        kane._regular(sp.Matrix([[big / q[0]]]), q)
    np.testing.assert_equal(sp.simplify(kane._regular(small, q)[0] - (q[0] - 1)), 0)  # small ones still
