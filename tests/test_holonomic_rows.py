"""A holonomic constraint h(q) = 0 is enforced through its derivative among the constraint rows: a
system that carries h without that row is refused at the start of a run (the bead left its hoop,
h = 2e4 at t = 2, with status 0)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

G_ = 9.81


def bead(with_row: bool):
    """A bead on a unit hoop turning at 3 rad/s about the vertical, in cylindrical (rho, phi, z)."""
    rho, phi, z = sp.symbols("rho phi z")
    h = rho**2 + z**2 - 1
    rows = [[0, 1, 0]] + ([[sp.diff(h, c) for c in (rho, phi, z)]] if with_row else [])
    return nh.System([rho, phi, z], sp.diag(1, rho**2, 1), G_ * z, constraints=sp.Matrix(rows),
                     affine=[3.0] + ([0] if with_row else []), holonomic=[h])


def start(theta, theta_dot):
    return [np.sin(theta), 0, -np.cos(theta), theta_dot * np.cos(theta), 3.0, theta_dot * np.sin(theta)]


def test_a_holonomic_constraint_without_its_row_is_refused():
    with pytest.raises(ValueError, match=r"holonomic: the derivative of constraint 0 \(rho\*\*2 \+ z\*\*2 - 1\)"):
        nh.simulate(bead(False).nonholonomic(), (0, 2), start(0.7, 0.2))


def test_a_holonomic_constraint_of_a_system_without_rows_is_refused():
    """With no constraint rows at all (k = 0) the check was skipped: h = q1 - q2 reached 2 at t = 2,
    status 0."""
    q1, q2, q3 = sp.symbols("q1 q2 q3")
    free = nh.System([q1, q2, q3], sp.eye(3), holonomic=[q1 - q2])
    with pytest.raises(ValueError, match=r"holonomic: the derivative of constraint 0 \(q1 - q2\)"):
        nh.simulate(free.nonholonomic(), (0, 2), [0, 0, 0, 1, 0, 0])
    with_row = nh.System([q1, q2, q3], sp.eye(3), holonomic=[q1 - q2], constraints=sp.Matrix([[1, -1, 0]]))
    run = nh.simulate(with_row.nonholonomic(), (0, 2), [0, 0, 0, 1, 1, 0])
    assert abs(run.q[0, -1] - run.q[1, -1]) < 1e-8 and abs(run.q[0, -1] - 2) < 1e-8


def test_with_its_row_the_bead_stays_on_the_hoop_and_keeps_its_jacobi_integral():
    """On the hoop, theta'' = sin(theta) (omega^2 cos(theta) - g) (theta from the bottom); its
    first integral theta'^2 / 2 - omega^2 sin^2(theta) / 2 - g cos(theta) is constant."""
    run = nh.simulate(bead(True).nonholonomic(), (0, 2), start(0.7, 0.2), t_eval=np.linspace(0, 2, 21),
                      rtol=1e-10, atol=1e-12)
    rho, z = run.q[0], run.q[2]
    assert np.abs(rho**2 + z**2 - 1).max() < 1e-8
    theta = np.arctan2(rho, -z)
    theta_dot = run.velocity[0] / np.cos(theta)  # rho = sin(theta)
    jacobi = theta_dot**2 / 2 - 9.0 * np.sin(theta) ** 2 / 2 - G_ * np.cos(theta)
    assert np.ptp(jacobi) < 1e-7 * np.abs(jacobi).max()
