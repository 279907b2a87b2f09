"""Every output of a result follows its samples as they are: the physical velocity, which energy()
and the contact outputs use, was a cached property, so after an edit of ``result.y`` in place they
kept the old velocities while ``result["x_dot"]`` and constraint_residual() saw the new ones."""

import copy

import numpy as np

import nonholo as nh

Y0 = [0, 0, 0, 1.0, 0, 0.4]
T = np.linspace(0, 2, 5)


def test_doubled_velocities_quadruple_the_energy_and_the_constraint_force():
    """The sleigh has no potential, and its constraint force is quadratic in the velocity."""
    run = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 2), Y0, t_eval=T)
    energy, force, velocity = run.energy().copy(), run["friction_force"].copy(), run.velocity.copy()
    run.y[3:] *= 2.0
    np.testing.assert_allclose(run.velocity, 2 * velocity, rtol=1e-14)
    np.testing.assert_allclose(run.energy(), 4 * energy, rtol=1e-12)
    np.testing.assert_allclose(run["friction_force"], 4 * force, rtol=1e-12)
    np.testing.assert_allclose(run["x_dot"], 2 * velocity[0], rtol=1e-14)
    run.y = np.vstack([run.q, run.y[3:] / 2])  # a new array: as at first
    np.testing.assert_allclose(run.energy(), energy, rtol=1e-12)


def test_the_velocity_of_a_reduced_run_follows_an_edit():
    """A reduced model's velocity u + eps h(q, u) is not its state's u: after an edit it is the model's
    velocity of the edited samples, as a copy never asked before gives it."""
    model = nh.systems.chaplygin_sleigh().reduced(1e-2, order=2)
    run = nh.simulate(model, (0, 2), Y0, t_eval=T)
    before = run.velocity.copy()
    fresh = copy.deepcopy(run)
    run.y[3:] *= 0.5
    fresh.y[3:] *= 0.5
    expected = model.velocity(run.t, run.y, run.params)
    assert not np.allclose(expected, before)
    np.testing.assert_allclose(run.velocity, expected, rtol=1e-14)
    np.testing.assert_allclose(run.energy(), fresh.energy(), rtol=1e-14)


def test_the_frame_velocities_follow_an_edit():
    model = nh.systems.chaplygin_sleigh().reduced(1e-2, order=1, velocities="frame")
    run = nh.simulate(model, (0, 2), [0, 0, 0, 1.0, 0.4], t_eval=T)
    u = run.v.copy()
    run.y[3:] *= 3.0  # u = X_D(q) w is linear in w
    np.testing.assert_allclose(run.v, 3 * u, rtol=1e-14)
