"""A vertical row kept by ``with_normal_force(row)`` is the contact's normal: where friction(law=...)
and stick_slip realize the no-slip rows by friction, it stays a constraint (as a mechanism's normal
rows do). Before, the cylinder's height row slid under Coulomb friction, and the cylinder fell through
its floor: z(1) = r - g (1 - mu) / 2."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, R, G, MU = 2.0, 0.2, 9.81, 0.3


@pytest.fixture(scope="module", params=[None, [[1]]], ids=["default contacts", "contacts=[[1]]"])
def cylinder(request):
    """A solid cylinder on a floor: coordinates (x, z, theta), row 0 its height z' = 0 (kept, the
    normal), row 1 rolling x' = r theta'."""
    x, z, th = sp.symbols("x z theta")
    system = nh.System([x, z, th], sp.diag(M, M, M * R**2 / 2), M * G * z,
                       constraints=sp.Matrix([[0, 1, 0], [1, 0, -R]]), name="cylinder")
    return system.with_normal_force(0, gravity=G, contacts=request.param)


def test_a_cylinder_launched_sliding_rolls_at_two_thirds_its_speed_on_its_floor(cylinder):
    """Launched at v0 = 1 without spin: it slides under mu N until v = r w, at t = v0 / (3 mu g), then
    rolls at 2 v0 / 3, its height r throughout."""
    y0 = [0, R, 0, 1.0, 0, 0.0]
    run = nh.simulate(cylinder.stick_slip(MU, normal=M * G), (0, 1), y0, rtol=1e-10, atol=1e-12)
    assert run.modes == ["slip", "stick"]
    np.testing.assert_allclose(run.switches[0][0], 1.0 / (3 * MU * G), rtol=1e-8)
    np.testing.assert_allclose(run["x_dot"][-1], 2.0 / 3.0, rtol=1e-9)
    np.testing.assert_allclose(run["z"], R, atol=1e-12)


def test_a_rolling_cylinder_stays_on_its_floor_under_a_law(cylinder):
    y0 = [0, R, 0, 1.0, 0, 1.0 / R]
    law = nh.simulate(cylinder.friction(law=nh.laws.Coulomb(0.5, v_s=1e-3), normal=M * G), (0, 1), y0,
                      t_eval=[1.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(law["z"], R, atol=1e-9)
    np.testing.assert_allclose(law["x"], 1.0, atol=1e-8)
    rolling = nh.simulate(cylinder.stick_slip(0.5, normal=M * G), (0, 1), y0, rtol=1e-10, atol=1e-12)
    assert rolling.modes == ["stick"]
    np.testing.assert_allclose(rolling["z"][-1], R, atol=1e-12)
    assert cylinder.normal_rows == [0]
