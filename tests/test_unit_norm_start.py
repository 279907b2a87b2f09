"""A start with a unit-norm group (a body's quaternion) off the unit sphere, or with a velocity along
q, is the same motion as its normalized start (every such system is invariant under q -> s q): the run
starts from q / |q| with q' / |q| less its radial part, the map it applies after each step. BDF's
first projection of such a start (|q| = 1.01, a correction far above its tolerance at a step of 1e-11)
lost the state and stopped: "the metric is not positive definite" at q = t q'(0)."""

import numpy as np
import pytest

import nonholo as nh

M, R = 1.0, 0.1


@pytest.fixture(scope="module")
def ball():
    return nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))


def scaled(y, s, radial=0.0):
    """The state with its quaternion and rates scaled by s, and radial q0' added (a ball: q at y[2:6])."""
    y = np.array(y, dtype=float)
    y[2:6] *= s
    y[8:12] = s * y[8:12] + radial * y[2:6] / s
    return y


@pytest.mark.parametrize("method", ["bdf", "auto"])
def test_a_scaled_quaternion_moves_as_the_unit_one(method):
    cb = nh.systems.chaplygin_ball()
    q0 = np.array([0.9, 0.2, -0.3, 0.25])
    y0 = nh.contact.rolling_state(cb, q0 / np.linalg.norm(q0), omega=[1.3, -0.7, 2.1])
    model = cb.nonholonomic()
    ref = nh.simulate(model, (0, 5), y0, method=method, rtol=1e-10, atol=1e-12)
    for s in (1.01, 1.1, 2.0, 0.5):
        run = nh.simulate(model, (0, 5), scaled(y0, s, radial=0.3), method=method, rtol=1e-10, atol=1e-12)
        assert run.success, run.message
        np.testing.assert_allclose(run.y[:, 0], y0, rtol=0, atol=1e-14)  # the first sample: the normalized start
        np.testing.assert_allclose(run.y[:, -1], ref.y[:, -1], rtol=0, atol=1e-8)


def test_a_sliding_ball_with_a_quaternion_of_norm_two(ball):
    """The friction model of a ball launched sliding at 1 m/s: the same state at t = 1 from |q| = 2
    (x = 0.714367, rolling at 5/7); the default start on the sphere is left bit for bit."""
    y0 = np.r_[0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0, 0, 0]
    ref = nh.simulate(ball.friction(1e-3), (0, 1), y0, rtol=1e-10, atol=1e-12)
    run = nh.simulate(ball.friction(1e-3), (0, 1), scaled(y0, 2.0), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(run.y[:, -1], ref.y[:, -1], rtol=0, atol=1e-9)
    assert abs(ref["x_dot"][-1] - 5 / 7) < 1e-3
    np.testing.assert_array_equal(ref.y[:, 0], y0)
