"""The heading of a rolling body other than a disc is the azimuth of its body x axis: undefined where
that axis is vertical, and it jumps by pi where the axis passes the vertical. An outside probe's ball
rolling straight along x about its body y axis read 0, pi, 0, -pi (signs arbitrary) over one second,
with no word, where the docs said the heading is continuous along a run. Reading it now warns; a ball
whose body x axis stays horizontal, and a disc, do not."""

import warnings

import numpy as np
import pytest

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Disc, Sphere, roll_on_plane, rolling_state


def ball():
    return roll_on_plane(RigidBody(mass=1.0, inertia=(0.004, 0.004, 0.004)), Sphere(radius=0.1))


def test_a_body_x_axis_through_the_vertical_warns():
    system = ball()
    run = nh.simulate(system.nonholonomic(), (0, 1), rolling_state(system, [1, 0, 0, 0], omega=[0, 10, 0]),
                      t_eval=np.linspace(0, 1, 21))
    with pytest.warns(nh.SimulationWarning, match=r"jumps by pi where that direction passes the vertical"):
        heading = run["heading"]
    assert np.max(np.abs(np.diff(heading))) == pytest.approx(np.pi, abs=1e-6)  # what it warns of
    # the direction of travel: along x throughout
    np.testing.assert_allclose(np.arctan2(run["y_dot"], run["x_dot"]), 0.0, atol=1e-9)


def test_a_heading_that_stays_defined_does_not_warn():
    system = ball()
    spinning = nh.simulate(system.nonholonomic(), (0, 1), rolling_state(system, [1, 0, 0, 0], omega=[10, 0, 0]),
                           t_eval=np.linspace(0, 1, 21))  # rolling along -y about body x: x stays horizontal
    disc = roll_on_plane(RigidBody(mass=1.0, inertia=(0.25, 0.25, 0.5)), Disc(radius=1.0))
    circling = nh.simulate(disc.nonholonomic(), (0, 2), rolling_state(disc, [1, 0, 0, 0], omega=[0.5, 0, 3.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.max(np.abs(np.diff(spinning["heading"]))) < 1e-9
        assert np.all(np.isfinite(circling["heading"]))
