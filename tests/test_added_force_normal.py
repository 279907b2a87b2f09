"""A derived normal force does not count a force added after it: with_force and with_potential make it warn.

The rolling disc put on a slope of 0.2 rad by an added potential (the recipe of the extending guide) moves like
the disc built with the gravity vector, but its derived normal force stayed m g = 9.81 where it is
m g cos(alpha) = 9.6145, its friction ratio 0.0662 for tan(alpha) / 3 = 0.0676 and its friction margin 2.29 for
2.23, silently. The coordinates eliminate the height, so the added force's vertical part cannot be read from it:
every read of the derived load now warns, and with_normal_force(Lift(..., applied=F_z)) gives the load again."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Disc, Lift, roll_on_plane, rolling_state

ALPHA = 0.2


def _slopes():
    disc = nh.systems.rolling_disc()
    m, g, x = disc.symbol("m"), disc.symbol("g"), disc.symbol("x")
    by_potential = disc.with_potential((sp.cos(ALPHA) - 1) * disc.potential - m * g * sp.sin(ALPHA) * x)
    by_vector = roll_on_plane(RigidBody(1.0, (0.25, 0.5, 0.25)), Disc(1.0),
                              gravity=[9.81 * np.sin(ALPHA), 0, -9.81 * np.cos(ALPHA)])
    return disc, by_potential, by_vector, rolling_state(disc, [1, 0, 0, 0], [0, 8.0, 0])


def _run(system, y0):
    return nh.simulate(system.nonholonomic(), (0, 1), y0, t_eval=[0.5, 1.0], rtol=1e-10, atol=1e-12)


def test_the_gravity_vector_gives_the_loads_without_a_warning():
    _, _, by_vector, y0 = _slopes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = _run(by_vector, y0)
        np.testing.assert_allclose(run["normal_force"], 9.81 * np.cos(ALPHA), rtol=1e-8)
        np.testing.assert_allclose(run["friction_ratio"], np.tan(ALPHA) / 3, rtol=1e-7)
        margin = by_vector.friction_margin(mu=0.3).of(run)
    np.testing.assert_allclose(margin, 0.3 * 9.81 * np.cos(ALPHA) - 9.81 * np.sin(ALPHA) / 3, rtol=1e-7)


def test_an_added_potential_moves_the_same_and_its_loads_warn():
    disc, by_potential, by_vector, y0 = _slopes()
    run, reference = _run(by_potential, y0), _run(by_vector, y0)
    np.testing.assert_allclose(run["x"], reference["x"], rtol=1e-9)
    for name in ("normal_force", "friction_ratio"):
        with pytest.warns(nh.SimulationWarning, match="force added by with_potential is not in it"):
            run[name]
    with pytest.warns(nh.SimulationWarning, match="with_potential"):
        by_potential.friction_margin(mu=0.3)
    # the flag follows further extensions, and the original disc is unchanged
    pushed = by_potential.with_force([0.1, 0, 0, 0, 0, 0])
    with pytest.warns(nh.SimulationWarning, match="with_potential and with_force"):
        _run(pushed, y0)["normal_force"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _run(disc, y0)["normal_force"]


def test_the_load_given_again_with_lift_applied_is_right_and_silent():
    """The added potential's vertical force on the disc is -dV/dz_G of its (cos(alpha) - 1) m g z_G part:
    (1 - cos(alpha)) m g up, so applied = (1 - cos(alpha)) m g reads m g - (1 - cos(alpha)) m g = m g cos(alpha);
    the friction ratio divides by that same load."""
    disc, by_potential, _, y0 = _slopes()
    m, g = disc.symbol("m"), disc.symbol("g")
    z = disc.outputs["z"].expr
    given = by_potential.with_normal_force(Lift((m, z), applied=(1 - sp.cos(ALPHA)) * m * g))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = _run(given, y0)
        np.testing.assert_allclose(run["normal_force"], 9.81 * np.cos(ALPHA), rtol=1e-8)
        np.testing.assert_allclose(run["friction_ratio"], np.tan(ALPHA) / 3, rtol=1e-7)
