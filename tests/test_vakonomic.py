"""Vakonomic dynamics against the oracles of notes/001_lewis_murray.md section 5 items 10-12:
the corrected eq. (2.2) with its curvature term and its affine term."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from conftest import ANALYTIC_TOL, TIGHT_ATOL, TIGHT_RTOL

KW = dict(rtol=TIGHT_RTOL, atol=TIGHT_ATOL)


@pytest.fixture(scope="module")
def two_line():
    """L = 1/2 (x'^2 + y'^2) with the affine constraint x' = y (omega = dx, b = y)."""
    x, y = sp.symbols("x y")
    return nh.System([x, y], sp.eye(2), constraints=[[1, 0]], affine=[y], name="x' = y")


@pytest.mark.parametrize("lam0, ydot0", [(0.4, 0.3), (-1.0, 0.0), (0.0, -0.5)])
def test_affine_two_line_example(two_line, lam0, ydot0):
    """Vakonomic: y'' = y + (lambda0 - y0), lambda = lambda0 cosh t + y0' sinh t (item 11)."""
    x0, y0 = 0.2, 0.7
    t = np.linspace(0, 2, 21)
    vak = nh.simulate(two_line.vakonomic(), (0, 2), [x0, y0, y0, ydot0, lam0], t_eval=t, **KW)
    c = lam0 - y0
    y_ex = -c + lam0 * np.cosh(t) + ydot0 * np.sinh(t)
    x_ex = x0 - c * t + lam0 * np.sinh(t) + ydot0 * (np.cosh(t) - 1)
    assert np.allclose(vak["y"], y_ex, atol=ANALYTIC_TOL)
    assert np.allclose(vak["x"], x_ex, atol=ANALYTIC_TOL)
    assert np.allclose(vak.y[4], lam0 * np.cosh(t) + ydot0 * np.sinh(t), atol=ANALYTIC_TOL)
    nh_sol = nh.simulate(two_line.nonholonomic(), (0, 2), [x0, y0, y0, ydot0], t_eval=t, **KW)
    assert np.allclose(nh_sol["y"], y0 + ydot0 * t, atol=ANALYTIC_TOL)
    # equal iff y0' = 0 and lambda0 = 0 (and for y0' != 0 no lambda0 works)
    assert np.abs(vak["y"] - nh_sol["y"]).max() > 1e-2


def test_affine_two_line_coincide_only_at_zero_multiplier(two_line):
    t = np.linspace(0, 2, 21)
    vak = nh.simulate(two_line.vakonomic(), (0, 2), [0.2, 0.7, 0.7, 0.0, 0.0], t_eval=t, **KW)
    nh_sol = nh.simulate(two_line.nonholonomic(), (0, 2), [0.2, 0.7, 0.7, 0.0], t_eval=t, **KW)
    assert np.allclose(vak.q, nh_sol.q, atol=ANALYTIC_TOL)


@pytest.fixture(scope="module")
def penny():
    """Upright penny (x, y, theta, phi): x' = R cos(phi) theta', y' = R sin(phi) theta'."""
    x, y, th, ph = sp.symbols("x y theta phi")
    m, I, J, R = 1.3, 0.4, 0.7, 0.5
    G = sp.diag(m, m, I, J)
    A = sp.Matrix([[1, 0, -R * sp.cos(ph), 0], [0, 1, -R * sp.sin(ph), 0]])
    return nh.System([x, y, th, ph], G, constraints=A, name="penny"), m, R


def _penny_state(R, th_dot, ph_dot, ph0=0.3):
    return [0.1, -0.2, 0.0, ph0, R * np.cos(ph0) * th_dot, R * np.sin(ph0) * th_dot, th_dot, ph_dot]


def test_penny_with_matching_multiplier_is_nonholonomic(penny):
    """lambda(0) = m (x'(0), y'(0)) reproduces the nonholonomic motion (item 12; curvature term)."""
    system, m, R = penny
    y0 = _penny_state(R, 1.2, 0.7)
    t = np.linspace(0, 5, 26)
    nh_sol = nh.simulate(system.nonholonomic(), (0, 5), y0, t_eval=t, **KW)
    vak = nh.simulate(system.vakonomic(), (0, 5), [*y0, m * y0[4], m * y0[5]], t_eval=t, **KW)
    assert np.allclose(vak.q, nh_sol.q, atol=1e-8)
    assert np.allclose(vak.y[8:], m * nh_sol.v[:2], atol=1e-8)  # lambda(t) = m (x', y')
    assert np.allclose(nh_sol["phi_dot"], 0.7, atol=1e-10)


def test_penny_with_generic_multiplier_is_not(penny):
    system, m, R = penny
    y0 = _penny_state(R, 1.2, 0.7)
    vak = nh.simulate(system.vakonomic(), (0, 5), [*y0, 0.3, -0.8], t_eval=np.linspace(0, 5, 26), **KW)
    # phi'' = R theta' (lambda2 cos phi - lambda1 sin phi)/J != 0: the heading rate changes
    assert np.abs(vak["phi_dot"] - 0.7).max() > 0.05


def test_holonomic_constraint_both_methods_agree():
    """Prop. 2.8: for an integrable D (here z' = d(x y)/dt, i.e. z - x y constant) the two
    methods give the same motion for every lambda(0) (item 10)."""
    x, y, z = sp.symbols("x y z")
    A = sp.Matrix([[-y, -x, 1]])  # d(z - x y)
    V = z + (x**2 + y**2) / 2
    system = nh.System([x, y, z], sp.diag(1, 2, 1), V, A, name="holonomic")
    v0 = [0.3, -0.4, 0.0]
    q0 = [0.5, 0.2, 0.1]
    v0[2] = q0[1] * v0[0] + q0[0] * v0[1]
    t = np.linspace(0, 3, 31)
    nh_sol = nh.simulate(system.nonholonomic(), (0, 3), [*q0, *v0], t_eval=t, **KW)
    lambdas = []
    for lam0 in (-2.0, 0.0, 0.7, 5.0):
        vak = nh.simulate(system.vakonomic(), (0, 3), [*q0, *v0, lam0], t_eval=t, **KW)
        assert np.allclose(vak.q, nh_sol.q, atol=1e-8)
        lambdas.append(vak.y[6, -1])
    assert np.ptp(lambdas) > 1.0  # the multipliers differ, the motion does not
