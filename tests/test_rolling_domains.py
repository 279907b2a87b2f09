"""A rolling body's surface holds its contact with the plane only on part of the attitudes: a disc
not lying flat, a paraboloid's bowl facing down. A run stops where it leaves that domain, a start
outside is refused, and quantities given as parameters are checked at their values."""

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh
from nonholo.bodies import RigidBody, quaternion_from_euler
from nonholo.contact import Disc, Paraboloid, Sphere, roll_on_plane, rolling_state


def test_a_falling_disc_stops_where_it_lies_flat():
    """Released at rest with lean 0.1 it falls about its contact line, (A + m r^2) th'' = m g r sin th,
    and lies flat at t = 0.39528. It went on through flat (its contact point jumping across the rim,
    z_G with a kink) and stood up again, reported as a success with no warning."""
    m, r, g = 1.0, 0.1, 9.81
    A = m * r * r / 4
    disc = roll_on_plane(RigidBody(m, (A, 2 * A, A)), Disc(r))
    flat = solve_ivp(lambda t, y: [y[1], m * g * r * np.sin(y[0]) / (A + m * r * r)], (0, 5), [0.1, 0],
                     events=lambda t, y: y[0] - np.pi / 2, rtol=1e-12, atol=1e-12).t_events[0][0]
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 0.1), [0, 0, 0])
    with pytest.warns(nh.SimulationWarning, match="the disc lies flat"):
        run = nh.simulate(disc.nonholonomic(), (0, 1.6), y0, rtol=1e-10, atol=1e-12)
    assert run.flag_name == "SURFACE_DOMAIN" and run.status == 1
    assert flat - 2e-3 < run.t_last < flat  # 1e-3 rad from flat, about 1e-3 s before it at 8 rad/s
    with pytest.raises(ValueError, match="quaternion: at this attitude the disc lies flat"):
        rolling_state(disc, quaternion_from_euler(0, 0, np.pi / 2), [0, 1, 0])


def test_the_watched_domain_leaves_the_default_method_and_its_accuracy():
    """A disc rolling steadily: the domain's event does not move method='auto' off DOP853 (with the
    caller's events it goes to CVODE; a watched limit is not one)."""
    disc = nh.systems.rolling_disc()
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 0.2), [0, 0, 8.0])
    run = nh.simulate(disc.nonholonomic(), (0, 1), y0)
    assert run.method == "dop853" and run.success and run.flag_name != "SURFACE_DOMAIN"


def test_a_paraboloid_tilted_past_ninety_degrees_is_refused():
    par = roll_on_plane(RigidBody(0.7, (0.004, 0.006, 0.005), com_offset=(0, 0, 0.1)), Paraboloid(0.5, 0.3))
    upright = rolling_state(par, quaternion_from_euler(0, 0, np.radians(80)), [0, 0, 0])
    assert nh.simulate(par.nonholonomic(), (0, 0.1), upright).success
    for degrees in (91, 100, 150, 180):  # z_G was -8.59, -0.855, -0.130, -0.1: below the floor
        with pytest.raises(ValueError, match="bowl no longer faces down"):
            rolling_state(par, quaternion_from_euler(0, 0, np.radians(degrees)), [0, 0, 0])
    with pytest.raises(ValueError, match="bowl no longer faces down"):
        tilted = np.r_[0, 0, quaternion_from_euler(0, 0, np.radians(100)), np.zeros(6)]
        nh.simulate(par.nonholonomic(), (0, 0.1), tilted)


def test_parameters_are_checked_at_their_values():
    """Gravity and the inertia given as symbols: g = -1 (the body held onto the plane from below) and
    principal moments (0.05, 0.05, 5) were accepted at build and at run time."""
    g, I3 = sp.symbols("g I3")
    ball = roll_on_plane(RigidBody(1.0, (0.05, 0.05, I3)), Sphere(0.1), gravity=g, parameters={g: 9.81, I3: 0.05})
    y0 = rolling_state(ball, [1, 0, 0, 0], [0, 1, 0])
    assert nh.simulate(ball.nonholonomic(), (0, 0.1), y0).success
    with pytest.raises(ValueError, match="gravity = g must be non-negative"):
        nh.simulate(ball.nonholonomic(), (0, 0.1), y0, params={"g": -1.0})
    with pytest.raises(ValueError, match="triangle inequality"):
        nh.simulate(ball.nonholonomic(), (0, 0.1), y0, params={"I3": 5.0})
    with pytest.raises(ValueError, match="gravity = g must be non-negative"):
        roll_on_plane(RigidBody(1.0, (0.05, 0.05, 0.05)), Sphere(0.1), gravity=g, parameters={g: -1.0})


def test_the_friction_ratio_without_a_load_is_nan():
    """Without gravity a ball rolling at constant speed has N = 0 and f = 0: the ratio was 0/0 noise
    (0.073, -0.143) presented as the friction coefficient the motion needs."""
    ball = roll_on_plane(RigidBody(1.0, (0.4, 0.4, 0.4)), Sphere(1.0), gravity=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = nh.simulate(ball.nonholonomic(), (0, 1), rolling_state(ball, [1, 0, 0, 0], [0, 1, 0]), t_eval=[0, 0.5, 1])
        assert np.isnan(run["friction_ratio"]).all()
    loaded = roll_on_plane(RigidBody(1.0, (0.4, 0.4, 0.4)), Sphere(1.0))  # the default: g = 9.81, no friction needed
    run = nh.simulate(loaded.nonholonomic(), (0, 1), rolling_state(loaded, [1, 0, 0, 0], [0, 1, 0]), t_eval=[0, 1])
    assert np.allclose(run["friction_ratio"], 0.0, atol=1e-12) and np.allclose(run["normal_force"], 9.81)
