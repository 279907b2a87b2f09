"""Vertical rolling disk: the nonholonomic circle solution (notes/003 section 4.7-4.8,
notes/004 section 2.5) and exact invariants of the friction model."""

import numpy as np
import pytest

import nonholo as nh
from conftest import ANALYTIC_TOL, TIGHT_ATOL, TIGHT_RTOL

R = 1.0


def rolling_state(theta0, x0, y0, phi0, w_theta, w_phi):
    return [theta0, x0, y0, phi0, w_theta, R * np.cos(theta0) * w_phi, R * np.sin(theta0) * w_phi, w_phi]


@pytest.mark.parametrize("w_theta, w_phi", [(1.0, 1.0), (-0.7, 2.0), (0.3, -1.5)])
def test_circle_solution(disk, w_theta, w_phi):
    """theta = theta0 + Omega t, phi' const, z = z0 + (R phi'/(i Omega)) e^{i theta0}(e^{i Omega t} - 1)."""
    theta0, x0, y0, phi0 = 0.3, 0.5, -0.2, 0.1
    t = np.linspace(0, 8, 33)
    sol = nh.simulate(disk.nonholonomic(), (0, 8), rolling_state(theta0, x0, y0, phi0, w_theta, w_phi), t_eval=t,
                      rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert sol.success
    z = x0 + 1j * y0 + R * w_phi / (1j * w_theta) * np.exp(1j * theta0) * (np.exp(1j * w_theta * t) - 1)
    assert np.allclose(sol["theta"], theta0 + w_theta * t, atol=ANALYTIC_TOL)
    assert np.allclose(sol["phi"], phi0 + w_phi * t, atol=ANALYTIC_TOL)
    assert np.allclose(sol["x"], z.real, atol=ANALYTIC_TOL)
    assert np.allclose(sol["y"], z.imag, atol=ANALYTIC_TOL)
    radius = np.abs(sol["x"] + 1j * sol["y"] - (x0 + 1j * y0 - R * w_phi / (1j * w_theta) * np.exp(1j * theta0)))
    assert np.allclose(radius, abs(R * w_phi / w_theta), atol=ANALYTIC_TOL)


def test_multipliers_are_the_centripetal_force(disk):
    """lambda = m R theta' phi' (-sin theta, cos theta) (notes/003 section 4.2)."""
    rng = np.random.default_rng(0)
    for _ in range(5):
        th, wt, wp = rng.uniform(-2, 2, 3)
        q = [th, 0.3, -0.1, 0.2]
        v = [wt, R * np.cos(th) * wp, R * np.sin(th) * wp, wp]
        assert disk.multipliers(q, v) == pytest.approx(R * wt * wp * np.array([-np.sin(th), np.cos(th)]), abs=1e-13)


def test_friction_keeps_heading_rate_exactly(disk):
    """theta' is conserved in the full friction system for every eps (Gzenda-Chhabra Remark 15)."""
    y0 = [0.3, 0, 0, 0, 0.8, 0.4, -0.2, 1.1]
    sol = nh.simulate(disk.friction(1e-3), (0, 3), y0, rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert np.allclose(sol["theta_dot"], 0.8, atol=1e-12)
    assert np.allclose(sol["theta"], 0.3 + 0.8 * sol.t, atol=1e-9)
