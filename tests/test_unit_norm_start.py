"""A start with a unit-norm group (a body's quaternion) off the unit sphere, or a velocity that changes
its norm, is refused by name: the run normalizes both after its first step, so it started from another
state than y0 (a ball's friction model with |q| = 2 moved 0.71 in x in 1 s where it stays at rest)."""

import numpy as np
import pytest

import nonholo as nh

M, R = 1.0, 0.1


@pytest.fixture(scope="module")
def ball():
    return nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))


@pytest.mark.parametrize("form", ["friction", "nonholonomic"])
def test_a_quaternion_off_the_unit_sphere_is_refused(ball, form):
    model = ball.friction(1e-3) if form == "friction" else ball.nonholonomic()
    with pytest.raises(ValueError, match=r"unit-norm group \(q0, q1, q2, q3\) has norm 2"):
        nh.simulate(model, (0, 1), np.r_[0, 0, 2.0, 0, 0, 0, np.zeros(6)])
    with pytest.raises(ValueError, match=r"change its norm: q \. q' = 0\.5"):
        nh.simulate(model, (0, 1), np.r_[0, 0, 1.0, 0, 0, 0, 0, 0, 0.5, 0, 0, 0])


def test_a_unit_quaternion_and_a_run_s_own_final_state_start(ball):
    """The default (rtol 1e-8) accepts a unit quaternion with tangent velocity, a norm off by 1e-9, and
    a run's own final state; at rest the ball stays at rest."""
    model = ball.friction(1e-3)
    c, s = np.cos(0.35), np.sin(0.35)
    y0 = np.r_[0, 0, c, s, 0, 0, 0.3, 0, -s * 0.2, c * 0.2, 0, 0]
    run = nh.simulate(model, (0, 1), y0)
    assert run.success
    again = nh.simulate(model, (1, 2), run.y[:, -1])
    assert again.success
    at_rest = nh.simulate(model, (0, 1), np.r_[0, 0, 1 + 1e-9, 0, 0, 0, np.zeros(6)])
    assert np.abs(at_rest.y[:2, -1]).max() < 1e-12
