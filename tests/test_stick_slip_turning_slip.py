"""A stick-slip slide ends where the slip itself vanishes, also when its direction turns while it
slides (it ended where s . d fell through zero, d the direction the slide started in, and projected
the slip left there away in one jump): a puck set down on a turning table, and a ball launched up
an incline a little sideways, against SciPy references of the Coulomb slide written here."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

TIGHT = dict(rtol=1e-10, atol=1e-12)
M, G = 1.0, 9.81


# ------------------------------------------------------------------ a puck on a turntable
W, MU_TABLE = 2.0, 0.5  # the table turns at W rad/s; the puck sticks inside the radius mu g / W^2 = 1.226


def turntable():
    x, y, th = sp.symbols("x y theta")
    return nh.System([x, y, th], sp.diag(M, M, 0.1), constraints=sp.Matrix([[1, 0, 0], [0, 1, 0]]),
                     affine=sp.Matrix([-W * y, W * x]), contacts=[[0, 1]], name="puck on a turntable")


def table_slip(p, v):
    return v - W * np.array([-p[1], p[0]])


def puck_reference(T):
    """(t_stop, position at t_stop, position at T): the set-valued Coulomb slide v' = -mu g s/|s|,
    s = v - W z x p, from rest at radius 1 until |s| = 0 (the event |s| = 1e-13, 1e-14 s early at the
    slip's rate mu g), then the rigid rotation with the table (inside the sticking radius)."""
    def f(t, Y):
        s = table_slip(Y[:2], Y[2:])
        return [*Y[2:], *(-MU_TABLE * G * s / np.linalg.norm(s))]

    def stop(t, Y):
        return np.linalg.norm(table_slip(Y[:2], Y[2:])) - 1e-13

    stop.terminal = True
    sol = solve_ivp(f, (0, T), [1.0, 0, 0, 0], events=stop, rtol=1e-13, atol=1e-14, method="DOP853")
    ts, pe = sol.t_events[0][0], sol.y_events[0][0][:2]
    rho, angle = np.hypot(*pe), np.arctan2(pe[1], pe[0]) + W * (T - ts)
    return ts, pe, rho * np.array([np.cos(angle), np.sin(angle)])


def test_a_puck_set_down_on_a_turntable_slides_until_its_turning_slip_vanishes():
    T = 3.0
    ts, p_stop, p_end = puck_reference(T)
    assert ts == pytest.approx(0.713184, abs=1e-6) and np.hypot(*p_stop) == pytest.approx(1.062430, abs=1e-6)
    run = nh.simulate(turntable().stick_slip(MU_TABLE, normal=M * G), (0, T), [1.0, 0, 0, 0, 0, 0], **TIGHT)
    assert run.success and run.switches[0][1:] == ("slip", "stick") and len(run.switches) == 1
    assert set(run.modes[:-1]) == {"slip"} and run.modes[-1] == "stick"  # the slide restarts as its slip turns
    np.testing.assert_allclose(run.switches[0][0], ts, rtol=1e-8)  # was 0.451, where s . d fell through zero
    slide, stick = run.phases[-2], run.phases[-1]
    np.testing.assert_allclose(slide.q[:2, -1], p_stop, rtol=0, atol=1e-8)
    assert np.linalg.norm(table_slip(slide.q[:2, -1], slide.v[:2, -1])) < 1e-9  # no slip left to project away
    np.testing.assert_allclose(stick.y[:, 0], slide.y[:, -1], rtol=0, atol=1e-9)  # continuous (was a jump of 0.2)
    for a, b in zip(run.phases[:-1], run.phases[1:]):  # every restart and switch continuous
        np.testing.assert_allclose(b.y[:, 0], a.y[:, -1], rtol=0, atol=1e-9)
    np.testing.assert_allclose(run.y[:2, -1], p_end, rtol=0, atol=1e-7)  # then it turns with the table
    assert np.max(run["slip"][run.t > ts + 1e-6]) < 1e-9
    # the default tolerances (rtol 1e-8, atol 1e-10)
    default = nh.simulate(turntable().stick_slip(MU_TABLE, normal=M * G), (0, T), [1.0, 0, 0, 0, 0, 0])
    assert [s[1:] for s in default.switches] == [("slip", "stick")]
    np.testing.assert_allclose(default.switches[0][0], ts, rtol=1e-6)
    np.testing.assert_allclose(default.y[:2, -1], p_end, rtol=0, atol=1e-5)


def test_a_puck_outside_the_sticking_radius_keeps_sliding_with_its_turning_slip():
    """Set down at radius 1.5 > mu g / W^2 the puck's slip turns and never vanishes within T = 1: no
    stop, however far the slip turns from the direction it started in."""
    T = 1.0
    y0 = [1.5, 0, 0, 0, 0, 0]

    def f(t, Y):
        s = table_slip(Y[:2], Y[2:])
        return [*Y[2:], *(-MU_TABLE * G * s / np.linalg.norm(s))]

    ref = solve_ivp(f, (0, T), [1.5, 0, 0, 0], rtol=1e-12, atol=1e-14, method="DOP853")
    run = nh.simulate(turntable().stick_slip(MU_TABLE, normal=M * G), (0, T), y0, **TIGHT)
    assert run.success and run.switches == [] and set(run.modes) == {"slip"}
    s0, s1 = table_slip(ref.y[:2, 0], ref.y[2:, 0]), table_slip(ref.y[:2, -1], ref.y[2:, -1])
    assert s0 @ s1 < 0  # the slip turned by more than 90 degrees
    np.testing.assert_allclose(run.y[:2, -1], ref.y[:2, -1], rtol=0, atol=1e-8)
    np.testing.assert_allclose(run.y[3:5, -1], ref.y[2:, -1], rtol=0, atol=1e-8)


# ------------------------------------------------------------------ a ball launched up an incline, a little sideways
R, ALPHA, K, MU_BALL = 0.1, 0.3, 0.4, 0.2  # a solid ball, I = 2/5 m r^2; mu > 2/7 tan(alpha): it rolls once it stops


def incline():
    body = nh.bodies.RigidBody(M, np.eye(3) * K * M * R**2)
    return nh.contact.roll_on_plane(body, nh.contact.Sphere(R),
                                    gravity=(G * np.sin(ALPHA), 0, -G * np.cos(ALPHA)))


def ball_reference(v0, T):
    """(t_stop, velocity of the centre at T): the slide s' = g sin(a) e_x - mu g cos(a) (1 + 1/k) s/|s|,
    v' = g sin(a) e_x - mu g cos(a) s/|s| from s = v = v0 (no spin), until |s| = 0, then rolling
    down at 5/7 g sin(a)."""
    a = np.array([G * np.sin(ALPHA), 0.0])
    friction = MU_BALL * G * np.cos(ALPHA)

    def f(t, Y):
        e = Y[:2] / np.linalg.norm(Y[:2])
        return [*(a - friction * (1 + 1 / K) * e), *(a - friction * e)]

    def stop(t, Y):
        return np.linalg.norm(Y[:2]) - 1e-13

    stop.terminal = True
    sol = solve_ivp(f, (0, T), [*v0, *v0], events=stop, rtol=1e-13, atol=1e-14, method="DOP853")
    ts, v_stop = sol.t_events[0][0], sol.y_events[0][0][2:]
    return ts, v_stop + 5 / 7 * a * (T - ts)


@pytest.mark.parametrize("v0", [(-2.0, 0.6), (-2.0, 0.2), (-1.0, 2.0)])
def test_a_ball_launched_up_an_incline_sideways_rolls_from_where_its_slip_vanishes(v0):
    T = 1.0
    ts, v_end = ball_reference(np.array(v0), T)
    system = incline()
    y0 = nh.contact.rolling_state(system, [1, 0, 0, 0], [0, 0, 0], velocity=np.array(v0))
    run = nh.simulate(system.stick_slip(MU_BALL, normal=M * G * np.cos(ALPHA)), (0, T), y0, **TIGHT)
    assert run.success and [s[1:] for s in run.switches] == [("slip", "stick")]
    np.testing.assert_allclose(run.switches[0][0], ts, rtol=1e-8)  # it ended up to 1e-3 s early
    slide, stick = run.phases[-2], run.phases[-1]
    A, b = system.constraint_matrix(slide.q[:, -1])
    assert np.linalg.norm(A @ slide.v[:, -1] - b) < 1e-9  # was 4e-3 m/s, projected away
    np.testing.assert_allclose(stick.y[:, 0], slide.y[:, -1], rtol=0, atol=1e-9)
    np.testing.assert_allclose([run["x_dot"][-1], run["y_dot"][-1]], v_end, rtol=0, atol=1e-8)
    default = nh.simulate(system.stick_slip(MU_BALL, normal=M * G * np.cos(ALPHA)), (0, T), y0)
    assert [s[1:] for s in default.switches] == [("slip", "stick")]
    np.testing.assert_allclose(default.switches[0][0], ts, rtol=1e-6)
    np.testing.assert_allclose([default["x_dot"][-1], default["y_dot"][-1]], v_end, rtol=0, atol=1e-6)
