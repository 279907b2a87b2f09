"""A stick-slip model starts from any [q, v]: a start whose slip is below the model's own tolerance
is classed "stick" and the model projects that slip out itself (G-orthogonally onto the contact's
rows). It used to hand y0 unprojected to the rolling phase, which refused it as off the constraints
and advised project_y0=True, which stick_slip itself refuses.

The bowling ball rolling at 3 m/s with a forward slip delta added to its speed: the projection is the
impulse at the contact that conserves the angular momentum about the contact point, after which it
rolls at 3 + 5/7 delta; a slide from a larger slip ends at the same speed (the friction force passes
through the contact point too)."""

import numpy as np
import pytest

import nonholo as nh

M, R, G = 1.0, 0.1, 9.81


def ball():
    return nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))


def rolling_with_slip(system, delta):
    y0 = nh.contact.rolling_state(system, [1, 0, 0, 0], [0, 30.0, 0])  # rolling at 3 m/s along x
    y0[6] += delta  # the centre a little faster: a forward slip delta
    return y0


@pytest.mark.parametrize("delta, kwargs, tol", [(1e-9, {}, 1e-10), (1e-7, {}, 1e-10), (1e-6, {}, 1e-10),
                                                (-1e-6, {}, 1e-10), (1e-9, dict(rtol=1e-10, atol=1e-12), 1e-11)])
def test_a_start_with_a_slip_below_the_tolerance_sticks_with_the_slip_projected_out(delta, kwargs, tol):
    system = ball()
    model = system.stick_slip(0.2, normal=M * G)
    y0 = rolling_with_slip(system, delta)
    run = nh.simulate(model, (0, 1), y0, **kwargs)  # was: ValueError, y0 violates the constraints
    assert run.success and run.modes == ["stick"] and run.switches == []
    n = system.n
    start = run.y[:, 0]
    A, b = system.constraint_matrix(start[:n])
    assert np.linalg.norm(A @ start[n:] - b) < 1e-13  # on the constraint set
    np.testing.assert_array_equal(start[:n], y0[:n])
    np.testing.assert_allclose(start[n:], system.project(y0[:n], y0[n:]), rtol=0, atol=1e-15)
    rolling = nh.contact.rolling_state(system, [1, 0, 0, 0], [0, (3 + 5 / 7 * delta) / R, 0])
    np.testing.assert_allclose(start, rolling, rtol=0, atol=1e-14)  # rolling at 3 + 5/7 delta
    np.testing.assert_allclose(run["x_dot"], 3 + 5 / 7 * delta, rtol=0, atol=tol)  # rolls uniformly on (drift)


def test_a_start_with_a_slip_above_the_tolerance_slides_to_the_same_speed():
    system = ball()
    delta = 1e-4
    run = nh.simulate(system.stick_slip(0.2, normal=M * G), (0, 1), rolling_with_slip(system, delta), rtol=1e-10,
                      atol=1e-12)
    assert run.modes == ["slip", "stick"]
    np.testing.assert_allclose(run.switches[0][0], 2 * delta / (7 * 0.2 * G), rtol=1e-6)  # s falls at 7/2 mu g
    np.testing.assert_allclose(run["x_dot"][-1], 3 + 5 / 7 * delta, rtol=0, atol=1e-12)


def test_project_y0_stays_refused_with_what_to_do():
    system = ball()
    with pytest.raises(ValueError, match="project_y0.*starts from any"):
        nh.simulate(system.stick_slip(0.2, normal=M * G), (0, 1), rolling_with_slip(system, 1e-7), project_y0=True)
