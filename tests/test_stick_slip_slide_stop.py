"""A slide's stop is found whatever its length and the tolerances. The Coulomb force turns over at
s = 0, a kink an implicit step cannot cross: the integrator used to chatter just above it, s . d never
fell through zero, and the phase ran out of max_steps (a ball rolling at 3 m/s with a slip of 1e-4 at
rtol 1e-10, or launched at 0.1 m/s at the default tolerances), or stopped late (0.0000259 s for
0.0000146 s). The stop event now fires where the slip falls to a few times what the integration
resolves, and one step of the slide carries the state to where the slip vanishes.

The bowling ball rolling at w r with a forward slip delta: the slip falls at 7/2 mu g, so it stops
at t = 2 delta / (7 mu g), and rolls on at w r + 5/7 delta."""

import numpy as np
import pytest

import nonholo as nh

M, R, G, MU = 1.0, 0.1, 9.81, 0.2
TIGHT = dict(rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("spin, delta, kwargs", [
    (30.0, 1e-4, TIGHT), (30.0, 1e-5, TIGHT), (30.0, 1e-4, {}), (30.0, 1e-3, {}), (0.0, 1e-5, {}), (0.0, 1e-3, {}),
    (0.0, 0.1, {}), (0.0, 1e-2, TIGHT), (0.0, 1.0, {}), (30.0, 0.1, TIGHT)])
def test_a_slide_stops_where_its_slip_vanishes(spin, delta, kwargs):
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], [0, spin, 0])
    y0[6] += delta
    run = nh.simulate(ball.stick_slip(MU, normal=M * G), (0, 0.5), y0, **kwargs)
    assert run.success and run.modes == ["slip", "stick"]
    tol = 1e-10 if kwargs else 1e-8
    t_stop = 2 * delta / (7 * MU * G)
    np.testing.assert_allclose(run.switches[0][0], t_stop, rtol=0, atol=10 * tol * max(1.0, spin * R) / (MU * G))
    np.testing.assert_allclose(run["x_dot"][-1], spin * R + 5 / 7 * delta, rtol=0, atol=tol * 10)
    slide, rolling = run.phases
    np.testing.assert_allclose(rolling.y[:, 0], slide.y[:, -1], rtol=0, atol=tol * 10)  # continuous at the stop


@pytest.mark.parametrize("kwargs", [{}, TIGHT])
def test_a_slide_at_the_cones_edge_hovers_without_jumps(kwargs):
    """A ball at rest on a slope with mu 1e-9 below its rolling threshold 2/7 tan(alpha) (mu_k = mu_s)
    slides, with a slip that hardly grows from the tolerance: its stop event fires where the slip
    dips, and the slip's rate there is near zero. The one step meant to carry a linearly falling slip
    to zero was then 0.06 s long (y + tau f): the quaternion left |q| = 1 by 1e-3 and the speed at
    t = 1 was 8e-5 below the slide's closed form g (sin(alpha) - mu cos(alpha)) t."""
    alpha = 0.3
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R),
                                    gravity=(G * np.sin(alpha), 0, -G * np.cos(alpha)))
    mu = 2 / 7 * np.tan(alpha) * (1 - 1e-9)
    rest = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
    run = nh.simulate(ball.stick_slip(mu, normal=M * G * np.cos(alpha)), (0, 1), rest, **kwargs)
    tol = 1e-10 if kwargs else 1e-8
    assert run.success and set(run.modes) == {"slip"} and run.switches == [(0.0, "stick", "slip")]
    slide = G * (np.sin(alpha) - mu * np.cos(alpha))
    np.testing.assert_allclose(run["x_dot"], slide * run.t, rtol=0, atol=100 * tol)
    for before, after in zip(run.phases, run.phases[1:]):  # a turn restarts the phase from where it ended
        np.testing.assert_allclose(after.y[:, 0], before.y[:, -1], rtol=0, atol=100 * tol)
    np.testing.assert_allclose(np.linalg.norm(run.y[2:6], axis=0), 1.0, rtol=0, atol=tol)
