"""Cyclic coordinates that holonomic constraints tie together (a trailer's axle kept as
coordinates beside the car's): a symmetry shifts them as one, and a straight motion moving all of
them is a steady motion that linearize and steady_motions take by default."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M0, I0, A0, M1, I1, C1, D1 = 5.0, 3.0, 1.2, 2.0, 1.0, 1.5, 2.0


def _kinetic(x, y, th0, th1, xd, yd, w0, w1, axle=None):
    """Kinetic energy of the car (mass a0 ahead of its axle (x, y)) and the trailer (mass d1 - c1
    ahead of its axle, hitched d1 behind the car's axle)."""
    gx, gy = xd - A0 * sp.sin(th0) * w0, yd + A0 * sp.cos(th0) * w0
    if axle is None:  # minimal coordinates: the trailer's axle from the car's
        ax, ay = xd + D1 * sp.sin(th1) * w1, yd - D1 * sp.cos(th1) * w1
    else:
        ax, ay = axle
    hx, hy = ax - (D1 - C1) * sp.sin(th1) * w1, ay + (D1 - C1) * sp.cos(th1) * w1
    return (M0 * (gx**2 + gy**2) + I0 * w0**2 + M1 * (hx**2 + hy**2) + I1 * w1**2) / 2


def _metric(T, velocities):
    return sp.hessian(sp.expand(T), velocities)


def car_trailer_tied():
    """(x, y, theta0, theta1, x1, y1), the trailer's axle (x1, y1) tied by two holonomic constraints."""
    x, y, th0, th1, x1, y1 = sp.symbols("x y theta0 theta1 x1 y1")
    v = sp.symbols("xd yd w0 w1 x1d y1d")
    T = _kinetic(x, y, th0, th1, v[0], v[1], v[2], v[3], axle=(v[4], v[5]))
    A = sp.Matrix([[-sp.sin(th0), sp.cos(th0), 0, 0, 0, 0],
                   [0, 0, 0, 0, -sp.sin(th1), sp.cos(th1)],
                   [-1, 0, 0, -D1 * sp.sin(th1), 1, 0],
                   [0, -1, 0, D1 * sp.cos(th1), 0, 1]])
    return nh.System([x, y, th0, th1, x1, y1], _metric(T, v), constraints=A,
                     holonomic=[x1 - x + D1 * sp.cos(th1), y1 - y + D1 * sp.sin(th1)], name="car_trailer_tied")


def car_trailer_minimal():
    x, y, th0, th1 = sp.symbols("x y theta0 theta1")
    v = sp.symbols("xd yd w0 w1")
    T = _kinetic(x, y, th0, th1, *v)
    A = sp.Matrix([[-sp.sin(th0), sp.cos(th0), 0, 0],
                   [-sp.sin(th1), sp.cos(th1), 0, -D1]])
    return nh.System([x, y, th0, th1], _metric(T, v), constraints=A, name="car_trailer")


@pytest.mark.parametrize("speed", [1.0, -1.0])
def test_a_straight_motion_moving_tied_coordinates_is_linearized_by_default(speed):
    """Refused before ("y is not a steady motion: d(x)/dt = 1, d(x1)/dt = 1"; with cyclic= naming
    all four, "the holonomic constraints tie the cyclic coordinates"). Its spectrum is the
    minimal-coordinate car's, and -V/d1 is the trailer's heading relaxing to the car's."""
    tied, minimal = car_trailer_tied(), car_trailer_minimal()
    reference = nh.linearize(minimal.nonholonomic(), [0, 0, 0, 0, speed, 0, 0, 0]).physical_eigenvalues
    assert np.min(np.abs(reference - (-speed / D1))) < 1e-12
    y = [0, 0, 0, 0, -D1, 0, speed, 0, 0, 0, speed, 0]
    for cyclic in (None, ["x", "y"], ["x1", "y1"], ["x", "y", "x1", "y1"]):
        lin = nh.linearize(tied.nonholonomic(), y, cyclic=cyclic)
        assert np.sort_complex(lin.physical_eigenvalues) == pytest.approx(np.sort_complex(reference), abs=1e-10)
        assert [z.coordinate for z in lin.zero_modes if z.kind == "cyclic"] in (["x", "y"], ["x1", "y1"])


def test_steady_motions_moves_the_tied_coordinates_with_the_cyclic_ones():
    tied = car_trailer_tied()
    found = nh.steady_motions(tied, [0, 0, 0.02, 0.01, -D1, 0, 0.9, 0, 0, 0, 0.9, 0], fixed={"x_dot": 1.0})
    assert found.drift["x"] == pytest.approx(1.0, abs=1e-12)
    assert found.state[2] == pytest.approx(found.state[3], abs=1e-10)  # aligned
    assert found.linearize().physical_eigenvalues.real.max() < 0  # forward: stable


def test_two_masses_held_together_both_named_cyclic():
    """x1 = x2, both named: x2 follows x1 (it was refused, 'name fewer of them'), the same
    linearization as naming one of them."""
    x1, x2 = sp.symbols("x1 x2")
    pair = nh.System([x1, x2], sp.eye(2), holonomic=[x1 - x2], constraints=sp.Matrix([[1, -1]]))
    model = pair.nonholonomic()
    both = nh.linearize(model, [0, 0, 1, 1], cyclic=["x1", "x2"])
    one = nh.linearize(model, [0, 0, 1, 1])
    assert both.n_zero == one.n_zero == 2 and both.physical_eigenvalues.size == 0
    with pytest.raises(ValueError, match=r"independent must include the cyclic coordinates \['x1'\]"):
        nh.linearize(model, [0, 0, 1, 1], cyclic=["x1", "x2"], independent=["x2", "x1_dot"])


def test_coordinates_a_constraint_holds_other_than_affinely_are_not_tied():
    """x2 = x1^2 / 2: a shift of x1 is no symmetry; naming both cyclic is refused as before."""
    x1, x2 = sp.symbols("x1 x2")
    curve = nh.System([x1, x2], sp.eye(2), holonomic=[x2 - x1**2 / 2], constraints=sp.Matrix([[-x1, 1]]))
    model = curve.nonholonomic()
    with pytest.raises(ValueError, match=r"\['x1'\] were given as cyclic.*no symmetry"):
        nh.linearize(model, [0, 0, 0, 0], cyclic=["x1", "x2"])
    assert nh.linearize(model, [0, 0, 0, 0]).n_zero == 2  # the default: none cyclic, rest
