"""A run in Kane's speeds whose output sample lands on the singular set of its dependent speeds.

A snakeboard (board, rotor, two steered wheel pairs at +-l, steering angles +-phi) with x' and y' as
the dependent speeds: their block C_dep is singular at phi = 0. An outside probe's run from phi = 0.3
steering through phi = 0 ended with status 0 and its positions right, but one t_eval sample landed at
phi = -7e-17, and the velocities, the energy and the speeds' outputs of the whole run raised
ModelError. They are computed sample by sample there: NaN at that sample, with a warning naming it."""

import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh


@pytest.fixture(scope="module")
def snakeboard():
    x, y, th, psi, phi = me.dynamicsymbols("x y theta psi phi")
    ux, uy, uth, upsi, uphi = me.dynamicsymbols("ux uy uth upsi uphi")
    m, J, Jr, Jw, l, mw = sp.symbols("m J J_r J_w l m_w")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    rotor = B.orientnew("R", "Axis", [psi, B.z])
    front, back = B.orientnew("F", "Axis", [phi, B.z]), B.orientnew("K", "Axis", [-phi, B.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    centre = O.locatenew("C", x * N.x + y * N.y)
    wheels = [centre.locatenew("Pf", l * B.x), centre.locatenew("Pb", -l * B.x)]
    rates = {x.diff(): ux, y.diff(): uy, th.diff(): uth, psi.diff(): upsi, phi.diff(): uphi}
    for point in (centre, *wheels):
        point.set_vel(N, point.pos_from(O).dt(N).subs(rates))
    for frame in (B, rotor, front, back):
        frame.set_ang_vel(N, frame.ang_vel_in(N).subs(rates))
    bodies = [me.RigidBody("board", centre, B, m, (me.inertia(B, 0, 0, J), centre)),
              me.RigidBody("rotor", centre, rotor, sp.S(0), (me.inertia(rotor, 0, 0, Jr), centre)),
              me.RigidBody("front", wheels[0], front, mw, (me.inertia(front, 0, 0, Jw), wheels[0])),
              me.RigidBody("back", wheels[1], back, mw, (me.inertia(back, 0, 0, Jw), wheels[1]))]
    km = me.KanesMethod(N, q_ind=[x, y, th, psi, phi], u_ind=[uth, upsi, uphi], u_dependent=[ux, uy],
                        kd_eqs=[a - b for a, b in rates.items()],
                        velocity_constraints=[wheels[0].vel(N).dot(front.y), wheels[1].vel(N).dot(back.y)])
    km.kanes_equations(bodies, [])
    return nh.System.from_kanes_method(km, {m: 3.0, J: 0.4, Jr: 0.15, Jw: 0.02, l: 0.5, mw: 0.2})


def test_a_sample_on_the_singular_set_is_nan_not_the_whole_run(snakeboard):
    model = snakeboard.nonholonomic()  # the default: Kane's speeds
    t = np.linspace(0, 1.5, 201)
    run = nh.simulate(model, (0, 1.5), [0, 0, 0, 0, 0.3, 0.6, 2.0, -1.0], t_eval=t)
    assert run.status == 0
    k = int(np.argmin(np.abs(run["phi"])))
    assert abs(run["phi"][k]) < 1e-12 and t[k] == pytest.approx(0.3)
    with pytest.warns(nh.SimulationWarning, match=r"cannot be computed at 1 of the 201 samples \(t = 0\.3\)"):
        velocity = run.velocity
    assert np.isnan(velocity[:, k]).any() and np.all(np.isfinite(np.delete(velocity, k, axis=1)))
    energy = run.energy()
    assert np.isnan(energy[k]) and np.ptp(np.delete(energy, k)) < 1e-6 * np.nanmax(np.abs(energy))  # 1.7e-7
    # the default output grid (the steps) misses the singular set: every sample computed
    plain = nh.simulate(model, (0, 1.5), [0, 0, 0, 0, 0.3, 0.6, 2.0, -1.0])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*is less accurate")  # a step may land near it (its placement)
        assert plain.status == 0 and np.all(np.isfinite(plain.energy()))
    # a sample 6e-4 from it is told of its amplified error (|C| |C_dep^-1| about 1.4e3)
    near = nh.simulate(model, (0, 1.5), [0, 0, 0, 0, 0.3, 0.6, 2.0, -1.0], t_eval=[0.1, 0.3006, 1.0])
    with pytest.warns(nh.SimulationWarning, match=r"at 1 of the 3 samples \(t = 0\.3006\d*\) is less accurate"):
        energy = near.energy()
    assert np.all(np.isfinite(energy))


def test_a_start_on_the_singular_set_names_the_remedies(snakeboard):
    """At phi = 0 the start was refused with "Kane's dependent speeds cannot be solved ... singular there"
    alone (an outside probe); the refusal now says what runs there: the coordinate model, or other
    dependent speeds. The coordinate model runs it."""
    y0 = [0, 0, 0, 0, 0.0, 0, 0, 0, 2.0, 0]  # [q, q']: the rotor spinning, the board at rest
    with pytest.raises(nh.ModelError, match=r"state=\"qdot\".*or choose other dependent speeds"):
        nh.simulate(snakeboard.nonholonomic(), (0, 1), y0)
    run = nh.simulate(snakeboard.nonholonomic(form="qdot"), (0, 1), y0)
    assert run.status == 0 and np.abs(run.constraint_residual()).max() < 1e-8
