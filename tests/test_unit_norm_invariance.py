"""A unit-norm group is scaled back to norm 1 after each step: right only for a system that does not
see the scale (a quaternion's). One that does is refused when it is built."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def test_a_spherical_pendulum_is_no_unit_norm_group():
    x, y, z = sp.symbols("x y z")
    with pytest.raises(nh.ModelError, match="unit_norm: the potential changes when a unit-norm group"):
        nh.System([x, y, z], sp.eye(3), 9.81 * z, unit_norm=[[x, y, z]])


def test_a_quaternion_body_is_one_and_keeps_its_norm():
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, (0.4, 0.4, 0.4)), nh.contact.Sphere(1.0))
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], [0.3, 1.0, 0.2])
    run = nh.simulate(ball.nonholonomic(), (0, 5), y0)
    assert run.success and run.unit_norm_residual().max() < 1e-9
    E = run.energy()
    assert np.ptp(E) < 1e-7 * np.abs(E).max()
