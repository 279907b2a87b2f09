"""Gravity as a potential where no fixed point locates the point it acts at. SymPy's rolling disc gives
its contact point P a velocity only (P.set_vel(N, u4 N.x + u5 N.y)) and locates the centre D from P:
gravity at D stayed a generalized force, system.potential was 0 and result.energy() the kinetic energy
alone, which varied by 0.9 % over a run that conserved T + m g r cos(lean) to 5e-11 (an outside
probe). P moves across gravity, so m g (r_D - r_P) . N.z is its potential, up to a constant; a force
along P's motion (a constant push along N.x) has none from P and stays a generalized force."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh

M, R, G, F = 2.0, 0.5, 9.81, 0.3


def rolling_disc(push: bool, one_vector: bool = False):
    q = me.dynamicsymbols("q1:6")
    u = me.dynamicsymbols("u1:6")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [q[0], N.z])
    B = A.orientnew("B", "Axis", [q[1], A.x])
    C = B.orientnew("C", "Axis", [q[2], B.y])
    P = me.Point("P")
    P.set_vel(N, u[3] * N.x + u[4] * N.y)
    D = P.locatenew("D", R * B.z)
    kd = {qi.diff(): ui for qi, ui in zip(q, u)}
    w = C.ang_vel_in(N).subs(kd)
    C.set_ang_vel(N, w)
    D.set_vel(N, (P.vel(N) + D.pos_from(P).dt(N)).subs(kd))
    contact = D.vel(N) + w.cross(-R * B.z)
    I = me.inertia(B, M * R**2 / 4, M * R**2 / 2, M * R**2 / 4)  # noqa: E741
    km = me.KanesMethod(N, q, u[:3], kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)], u_dependent=u[3:],
                        velocity_constraints=[contact.dot(N.x), contact.dot(N.y)])
    loads = [(D, -M * G * N.z + F * N.x)] if one_vector else [(D, -M * G * N.z)] + ([(D, F * N.x)] if push else [])
    km.kanes_equations([me.RigidBody("disc", D, C, M, (I, D))], loads)
    return nh.System.from_kanes_method(km)


@pytest.fixture(scope="module")
def disc():
    return rolling_disc(push=False)


def test_gravity_at_a_point_located_from_a_moving_one_is_a_potential(disc):
    lean = disc.coordinates[1]
    assert sp.simplify(disc.potential - M * G * R * sp.cos(lean)) == 0
    model = disc.nonholonomic()  # the default state: Kane's speeds
    assert model.state_names == ["q1", "q2", "q3", "q4", "q5", "u1", "u2", "u3"]
    y0 = np.array([0, 0.2, 0, 0, 0, 0.8, 0, -6.0])  # leaning 0.2, turning at 0.8, spinning at -6
    run = nh.simulate(model, (0, 5), y0)
    energy = run.energy()
    assert run.status == 0 and np.ptp(energy) < 1e-7 * np.abs(energy).max()  # 0.9 % before
    assert energy[0] > M * G * R * np.cos(0.2)  # the kinetic energy and the potential


def test_a_push_along_the_base_points_motion_stays_a_force():
    pushed = rolling_disc(push=True)
    assert sp.simplify(pushed.potential - M * G * R * sp.cos(pushed.coordinates[1])) == 0  # gravity only
    assert any(sp.sympify(f) != 0 for f in pushed.force)  # the push: a generalized force


def test_gravity_and_a_push_in_one_load_are_taken_apart():
    """A second probe's load -m g N.z + 1.5 N.x at the centre: as a whole it has no potential, and gravity's
    was dropped with it (energy() the kinetic energy alone). Its components are tried one by one: the same
    system as the two loads given apart."""
    one, apart = rolling_disc(push=True, one_vector=True), rolling_disc(push=True)
    assert sp.simplify(one.potential - apart.potential) == 0 and one.potential != 0
    y0 = np.array([0, 0.2, 0, 0, 0, 0.8, 0, -6.0])
    a, b = (nh.simulate(s.nonholonomic(), (0, 2), y0, rtol=1e-10, atol=1e-12) for s in (one, apart))
    np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-9)
    np.testing.assert_allclose(a.energy(), b.energy(), rtol=1e-12)
