"""system.stick_slip: rolling while the needed force is inside the friction cone, Coulomb sliding
outside it, against the closed forms of a ball on a plane and on an incline."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, R, G = 1.0, 0.1, 9.81
TIGHT = dict(rtol=1e-10, atol=1e-12)
AT_REST = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]


def ball(alpha=0.0):
    body = nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2)  # a uniform solid sphere
    gravity = G if alpha == 0 else (G * np.sin(alpha), 0, -G * np.cos(alpha))
    return nh.contact.roll_on_plane(body, nh.contact.Sphere(R), gravity=gravity)


@pytest.mark.parametrize("v0, mu", [(3.0, 0.2), (1.5, 0.6)])
def test_a_bowling_ball_slides_then_rolls_at_five_sevenths(v0, mu):
    system = ball()
    y0 = np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0]  # launched sliding, without spin
    run = nh.simulate(system.stick_slip(mu, normal=M * G), (0, 2), y0, **TIGHT)
    assert run.success and run.modes == ["slip", "stick"] and len(run.switches) == 1
    t_switch, before, after = run.switches[0]
    assert (before, after) == ("slip", "stick")
    assert type(t_switch) is float  # every switch's time a float (an outside probe saw np.float64 next to float)
    np.testing.assert_allclose(t_switch, 2 * v0 / (7 * mu * G), rtol=1e-8)
    np.testing.assert_allclose(run["x_dot"][-1], 5 / 7 * v0, rtol=1e-8)
    first, second = run.phases
    np.testing.assert_allclose(second.y[:, 0], first.y[:, -1], rtol=0, atol=1e-9)  # continuous across the switch


@pytest.mark.parametrize("factor, mode", [(0.9, "slip"), (1.1, "stick")])
def test_a_ball_on_an_incline_rolls_exactly_when_mu_reaches_two_sevenths_tan_alpha(factor, mode):
    alpha = 0.3
    mu = factor * 2 / 7 * np.tan(alpha)
    system = ball(alpha)
    y0 = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
    run = nh.simulate(system.stick_slip(mu, normal=M * G * np.cos(alpha)), (0, 1), y0, **TIGHT)
    # from rest, without slip: on the steeper slope the needed force is outside the cone, a slide from t = 0
    assert run.success and run.modes == [mode] and run.switches == ([(0.0, "stick", "slip")] if mode == "slip" else [])
    expected = 5 / 7 * G * np.sin(alpha) if mode == "stick" else G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(run["x_dot"][-1], expected, rtol=1e-8)  # from rest over t = 1


def test_a_stick_slip_model_pickles():
    model = ball().stick_slip(0.3, 0.2, normal=M * G)
    back = pickle.loads(pickle.dumps(model))
    assert (back.mu_s, back.mu_k, back.contacts) == (0.3, 0.2, [[0, 1]])


@pytest.mark.parametrize("call, match", [
    (lambda: ball().stick_slip(0.2), "needs the normal load"),
    (lambda: ball().stick_slip(0.2, 0.3, normal=1.0), "must not exceed"),
    (lambda: ball().stick_slip(-0.2, normal=1.0), "mu_s"),
    (lambda: nh.System(sp.symbols("x y"), sp.eye(2)).stick_slip(0.2, normal=1.0), "no constraint rows"),
])
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_contact_forces_of_a_rolling_body_agree_with_its_motion_and_its_multipliers():
    """The rattleback rocks, so its normal force varies: N = m (z_G'' + g) by central differences
    of z_G along the run, and the tangential force is the multipliers' norm."""
    from nonholo.systems.rattleback import kane_levinson_state

    rb = nh.systems.rattleback()
    t = np.linspace(0, 1, 4001)
    run = nh.simulate(rb.nonholonomic(), (0, 1), kane_levinson_state(rb), t_eval=t, rtol=1e-12, atol=1e-14)
    N, h = run["normal_force"], t[1] - t[0]
    z = run["z"]
    zdd = (-z[4:] + 16 * z[3:-1] - 30 * z[2:-2] + 16 * z[1:-3] - z[:-4]) / (12 * h**2)  # fourth order in h
    ratio = N[2:-2] / (zdd + 9.81)  # = m wherever the body is pressed on the plane
    assert np.ptp(N) > 1e-3 * np.abs(N).max()  # it varies along the run
    np.testing.assert_allclose(ratio, np.median(ratio), rtol=1e-5)
    lam = np.array([np.linalg.norm(rb.multipliers(run.q[:, i], run.v[:, i])) for i in range(0, t.size, 400)])
    np.testing.assert_allclose(run["friction_force"][::400], lam, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run["friction_ratio"], run["friction_force"] / N, rtol=1e-14)


def test_a_ball_rolling_down_an_incline_needs_two_sevenths_tan_alpha():
    alpha = 0.3
    system = ball(alpha)
    y0 = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
    for model in (system.nonholonomic(), system.reduced(1e-3, order=1)):
        run = nh.simulate(model, (0, 1), y0, t_eval=[0.25, 0.5, 1.0], **TIGHT)
        np.testing.assert_allclose(run["normal_force"], M * G * np.cos(alpha), rtol=1e-10)
        np.testing.assert_allclose(run["friction_ratio"], 2 / 7 * np.tan(alpha), rtol=1e-9)


def test_a_stick_slip_run_reports_the_slip_and_the_contact_forces_of_each_phase():
    v0, mu = 3.0, 0.2
    t = np.linspace(0, 1, 11)
    run = nh.simulate(ball().stick_slip(mu, normal=M * G), (0, 1), np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0],
                      t_eval=t, **TIGHT)
    sliding = t < 2 * v0 / (7 * mu * G)
    # sliding: s = v - r omega falls at (7/2) mu g under the force mu m g; rolling: no slip, no force
    # (to the error of the phases run at rtol 1e-10)
    np.testing.assert_allclose(run["slip"], np.where(sliding, v0 - 3.5 * mu * G * t, 0), rtol=0, atol=1e-8)
    np.testing.assert_allclose(run["friction_force"], np.where(sliding, mu * M * G, 0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(run["normal_force"], M * G, rtol=1e-12)
    with pytest.raises(KeyError, match="neither a state nor an output"):
        run["no such thing"]


def test_a_load_that_grows_with_speed_stops_the_bowling_ball_sooner_in_closed_form():
    # downforce c v^2: the sliding phase v' = -mu (g + c v^2 / m) gives v = w tan(atan(v0 / w) - mu sqrt(g c / m) t),
    # w = sqrt(m g / c); the slip s = v - r omega falls 7/2 times as fast as v, so it stops at v = 5/7 v0
    v0, mu, c = 3.0, 0.2, 0.5
    load = M * G + c * sp.Symbol("x_dot") ** 2
    run = nh.simulate(ball().stick_slip(mu, normal=load), (0, 2), np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0], **TIGHT)
    assert run.modes == ["slip", "stick"]
    w = np.sqrt(M * G / c)
    expected = (np.arctan(v0 / w) - np.arctan(5 / 7 * v0 / w)) / (mu * np.sqrt(G * c / M))
    np.testing.assert_allclose(run.switches[0][0], expected, rtol=1e-8)
    np.testing.assert_allclose(run["x_dot"][-1], 5 / 7 * v0, rtol=1e-8)
    constant = nh.simulate(ball().stick_slip(mu, normal=M * G), (0, 2), np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0],
                           **TIGHT)
    assert run.switches[0][0] < constant.switches[0][0]  # the default, a constant load, slides longer


def test_a_ball_rolling_down_an_incline_slips_where_lift_shrinks_its_cone():
    # rolling: v = 5/7 g sin(a) t with the needed force 2/7 m g sin(a) constant; the load m g cos(a) - c v^2 shrinks,
    # and the ball slips where mu (m g cos(a) - c v^2) = 2/7 m g sin(a)
    alpha, mu, c = 0.3, 0.2, 0.05
    load = M * G * np.cos(alpha) - c * sp.Symbol("x_dot") ** 2
    run = nh.simulate(ball(alpha).stick_slip(mu, normal=load), (0, 5), AT_REST, **TIGHT)
    assert run.modes[:2] == ["stick", "slip"]
    v_slip = np.sqrt((M * G * np.cos(alpha) - 2 / 7 * M * G * np.sin(alpha) / mu) / c)
    np.testing.assert_allclose(run.switches[0][0], v_slip / (5 / 7 * G * np.sin(alpha)), rtol=1e-8)
    with pytest.raises(ValueError, match="normal load of contact 0"):
        nh.simulate(ball().stick_slip(mu, normal=sp.Symbol("unknown")), (0, 1), AT_REST)


def test_a_stick_slip_run_has_an_energy_and_a_friction_margin_like_any_run():
    """A ball (m = 1, R = 0.1) launched sliding at 2 m/s without spin on mu = 0.2: its energy falls
    from 1/2 m v0^2 + m g R to 7/10 m (5 v0 / 7)^2 + m g R, where it rolls on; the margin of the
    rolling motion, which needs no force on the flat, is mu m g all along. StickSlipResult had no
    energy(), and friction_margin(mu).of(run) raised TypeError."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.4 * 0.01), nh.contact.Sphere(0.1))
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], [0, 0, 0], velocity=(2.0, 0))
    run = nh.simulate(ball.stick_slip(0.2, normal=9.81), (0, 1), y0, t_eval=np.linspace(0, 1, 11))
    energy = run.energy()
    assert energy.shape == run.t.shape
    assert energy[0] == pytest.approx(0.5 * 4 + 9.81 * 0.1, rel=1e-12)
    np.testing.assert_allclose(energy[-3:], 0.7 * (5 * 2.0 / 7) ** 2 + 9.81 * 0.1, rtol=1e-7)
    np.testing.assert_allclose(ball.friction_margin(0.2).of(run), 0.2 * 9.81, rtol=1e-9)
