"""The friction force and ratio of a body rolling on a plane (roll_on_plane's outputs) count the
contact's force only: a push added with with_force is not friction. Closed forms for a ball pushed
at its centre: rolling needs f = F k / (1 + k) (k = I / (m r^2)), and rolling breaks where that
reaches mu m g."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, R, G, K = 2.0, 0.1, 9.81, 0.4


def ball(**kwargs):
    return nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * K * M * R**2), nh.contact.Sphere(R), **kwargs)


def horizontal(system):
    """``system`` after a horizontal push (with_force): the derived normal force cannot tell a push's
    vertical part, so the load is given again, with none (the ball's centre stays at height R)."""
    return system.with_normal_force(nh.contact.Lift((M, R), applied=0))


Y0 = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]


def test_pushed_ball_needs_the_friction_of_its_rolling_not_the_push():
    F = 3.0
    pushed = horizontal(ball().with_force(sp.Matrix([F, 0, 0, 0, 0, 0])))
    run = nh.simulate(pushed.nonholonomic(), (0, 1), Y0, t_eval=[0.5, 1.0], rtol=1e-11, atol=1e-13)
    assert run["x_dot"][-1] == pytest.approx(F / ((1 + K) * M), rel=1e-9)
    need = F * K / (1 + K)  # it was m x'' = 2.14 = the push less the friction
    np.testing.assert_allclose(run["friction_force"], need, rtol=1e-9)
    np.testing.assert_allclose(run["friction_ratio"], need / (M * G), rtol=1e-9)
    # a law realizing the contact gives the law's force, which tends to the same as eps -> 0
    coulomb = horizontal(ball(friction="coulomb", friction_coefficient=0.5, eps=1e-6).with_force(
        sp.Matrix([F, 0, 0, 0, 0, 0])))
    slid = nh.simulate(coulomb.nonholonomic(), (0, 1), Y0, t_eval=[1.0], rtol=1e-10, atol=1e-12)
    assert slid["friction_force"][-1] == pytest.approx(need, rel=1e-4)


def test_stick_slip_friction_force_is_the_rolling_need_then_mu_m_g():
    c, mu = 10.0, 0.2
    pushed = horizontal(ball().with_force(sp.Matrix([c * sp.Symbol("t"), 0, 0, 0, 0, 0])))
    t = np.linspace(0, 3, 31)
    run = nh.simulate(pushed.stick_slip(mu, normal=M * G), (0, 3), Y0, t_eval=t, rtol=1e-10, atol=1e-12)
    onset = mu * M * G * (1 + K) / (K * c)
    assert run.switches[0][0] == pytest.approx(onset, rel=1e-8)
    rolling, sliding = t < onset - 1e-6, t > onset + 1e-6
    np.testing.assert_allclose(run["friction_force"][rolling], c * t[rolling] * K / (1 + K), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(run["friction_force"][sliding], mu * M * G, rtol=1e-10)
    np.testing.assert_allclose(run["friction_ratio"][sliding], mu, rtol=1e-10)


def test_friction_ratio_is_nan_past_lift_off():
    """An eccentric disc spun fast leaves the plane: N < 0 there, and the ratio (the friction
    coefficient rolling needs) has no meaning; it was negative, -0.70, reading as 'below mu'."""
    m, r, e = 1.0, 0.2, 0.08
    body = nh.bodies.RigidBody(m, (0.25 * m * r**2, 0.5 * m * r**2 - m * e**2, 0.25 * m * r**2), com_offset=(e, 0, 0))
    disc = nh.contact.roll_on_plane(body, nh.contact.Disc(r))
    y0 = nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0, 0, 0), [0, 17.0, 0])
    run = nh.simulate(disc.nonholonomic(), (0, 0.2), y0, t_eval=[0.0, 0.2], rtol=1e-11, atol=1e-13)
    with pytest.warns(nh.SimulationWarning, match=r"negative from t = 0.2 \(N = -"):  # it read -0.70 silently
        N = run["normal_force"]
    assert N[0] > 0 > N[-1]
    with pytest.warns(nh.SimulationWarning, match="would lift off"):
        ratio = run["friction_ratio"]
    assert np.isfinite(ratio[0]) and ratio[0] > 0 and np.isnan(ratio[-1])
