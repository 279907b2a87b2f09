"""Chaplygin sleigh: nonholonomic closed form, invariants, multipliers, long-run constraint
drift, and the friction model (notes/000_eldering.md section 5)."""

import numpy as np
import pytest
from scipy.integrate import quad

import nonholo as nh
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion
from conftest import ANALYTIC_TOL, TIGHT_ATOL, TIGHT_RTOL

M, I, A = 1.0, 1.0, 0.2
J = I + M * A**2
K = M * A / J


def closed_form(t, u0, w0, phi0=0.0):
    """(u, omega, phi) of the nonholonomic sleigh (nonholo.systems.chaplygin_sleigh.exact)."""
    return SleighMotion(M, I, A, u0, w0, phi0)(t)


def body_velocities(sol):
    x_dot, y_dot, phi_dot = sol.v
    phi = sol["phi"]
    return x_dot * np.cos(phi) + y_dot * np.sin(phi), -x_dot * np.sin(phi) + y_dot * np.cos(phi), phi_dot


def initial_state(u0, w0, phi0=0.0, v0=0.0):
    return [0.0, 0.0, phi0, u0 * np.cos(phi0) - v0 * np.sin(phi0), u0 * np.sin(phi0) + v0 * np.cos(phi0), w0]


@pytest.mark.parametrize("u0, w0", [(-1.5, 1.0), (0.3, -0.7), (-0.2, 2.0)])
def test_nonholonomic_closed_form(sleigh, u0, w0):
    t = np.linspace(0, 10, 41)
    sol = nh.simulate(sleigh.nonholonomic(), (0, 10), initial_state(u0, w0, 0.4), t_eval=t,
                      rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert sol.success
    u, v, w = body_velocities(sol)
    u_ex, w_ex, phi_ex = closed_form(t, u0, w0, 0.4)
    assert np.allclose(u, u_ex, atol=ANALYTIC_TOL)
    assert np.allclose(w, w_ex, atol=ANALYTIC_TOL)
    assert np.allclose(sol["phi"], phi_ex, atol=ANALYTIC_TOL)
    assert np.allclose(v, 0, atol=ANALYTIC_TOL)
    # positions: quadratures of the closed form (Caratheodory's solution)
    for i in (10, 25, 40):
        x_ex = quad(lambda s: np.cos(closed_form(s, u0, w0, 0.4)[2]) * closed_form(s, u0, w0, 0.4)[0], 0, t[i],
                    epsabs=1e-12, epsrel=1e-12)[0]
        y_ex = quad(lambda s: np.sin(closed_form(s, u0, w0, 0.4)[2]) * closed_form(s, u0, w0, 0.4)[0], 0, t[i],
                    epsabs=1e-12, epsrel=1e-12)[0]
        assert sol["x"][i] == pytest.approx(x_ex, abs=ANALYTIC_TOL)
        assert sol["y"][i] == pytest.approx(y_ex, abs=ANALYTIC_TOL)


def test_sleigh_motion_contact_point_momenta_and_asymptote():
    """SleighMotion's contact point (Gauss-Legendre quadrature) against scipy's adaptive quadrature
    and CVODE from an offset start; (J omega, m u) and the limiting heading phi_inf."""
    rng = np.random.default_rng(7)
    m, inertia, a = rng.uniform(0.5, 2.0, 3)
    u0, w0, phi0, x0, y0 = rng.uniform(-1.5, 1.5, 5)
    motion = SleighMotion(m, inertia, a, u0, w0, phi0, x0, y0)
    t = np.array([0.0, 0.7, 3.1, 6.0])
    xy = motion.contact_point(t)
    for k, tk in enumerate(t):
        for row, trig in ((0, np.cos), (1, np.sin)):
            ref = quad(lambda s: trig(motion.phi(s)) * motion.u(s), 0, tk, epsabs=1e-13, epsrel=1e-13)[0]
            assert xy[row, k] == pytest.approx((x0, y0)[row] + ref, abs=1e-11)
    system = nh.systems.chaplygin_sleigh(m=m, I=inertia, a=a)
    start = [x0, y0, phi0, u0 * np.cos(phi0), u0 * np.sin(phi0), w0]
    sol = nh.simulate(system.nonholonomic(), (0, 6), start, t_eval=t, rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert np.abs(sol.q - motion.configuration(t)).max() < ANALYTIC_TOL
    J_ = inertia + m * a**2
    assert np.allclose(motion.momenta(t), [J_ * motion.omega(t), m * motion.u(t)], rtol=1e-15, atol=0)
    assert motion.phi(motion.t_cusp + 60 / (motion.k * motion.U)) == pytest.approx(motion.phi_inf, abs=1e-12)
    assert motion.phi_inf - motion.phi(motion.t_cusp - 60 / (motion.k * motion.U)) == pytest.approx(
        motion.heading_change, rel=1e-12)
    with pytest.raises(ValueError, match="t: contact_point integrates forward"):
        motion.contact_point([-1.0])


@pytest.mark.parametrize("rtol", [1e-8, 1e-10])
def test_energy_conserved_and_half_ellipse(sleigh, rtol):
    """Energy is conserved to the accuracy of the integration: CVODE bounds the local error per
    step by ~rtol, and over the ~1500 steps of [0, 30] the measured relative drift is 25-125
    rtol; 500 rtol bounds it with margin, well below the worst case (steps x rtol)."""
    sol = nh.simulate(sleigh.nonholonomic(), (0, 30), initial_state(-1.5, 1.0), rtol=rtol, atol=rtol * 1e-2)
    E = sol.energy()
    assert np.abs(E - E[0]).max() < 500 * rtol * E[0]
    u, _, w = body_velocities(sol)
    # orbits are half-ellipses m u^2 + (I + m a^2) omega^2 = 2E, omega keeps its sign
    assert np.allclose(M * u**2 + J * w**2, 2 * E[0], rtol=500 * rtol)
    assert np.all(w > 0)
    assert np.all(np.diff(u) >= -500 * rtol)  # u' = a omega^2 >= 0


def test_total_heading_change(sleigh):
    """Over the whole heteroclinic orbit phi changes by pi sqrt((I + m a^2)/m)/a = 16.02 rad."""
    model = sleigh.nonholonomic()
    y0 = initial_state(-1.5, 1.0)
    kw = dict(rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    forward = nh.simulate(model, (0, 150), y0, **kw)
    backward = nh.simulate(model, (0, -150), y0, **kw)
    expected = np.pi * np.sqrt(J / M) / A
    assert expected == pytest.approx(16.02, abs=5e-3)
    # the tails beyond |t| = 150 are below 1e-20 (sech decays like exp(-k U t))
    assert forward["phi"][-1] - backward["phi"][-1] == pytest.approx(expected, abs=1e-7)


def test_multipliers(sleigh):
    """lambda = m I u omega / (I + m a^2) (Eldering eq. (13)), with A = (-sin phi, cos phi, 0)."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        x, y, phi, u, w = rng.uniform(-2, 2, 5)
        q = [x, y, phi]
        v = [u * np.cos(phi), u * np.sin(phi), w]
        lam = sleigh.multipliers(q, v)
        assert lam == pytest.approx([M * I * u * w / J], rel=1e-12, abs=1e-14)


def test_constraint_drift_over_ten_thousand_time_units(sleigh):
    """|A v - b| stays below 1e-9 relative over 10^4 time units (projection in CVODE)."""
    sol = nh.simulate(sleigh.nonholonomic(), (0, 1e4), initial_state(-1.5, 1.0), rtol=1e-9, atol=1e-12)
    assert sol.success
    residual = sol.constraint_residual()
    assert residual.max() < 1e-9
    assert sol.stats["n_proj"] > 0


def test_friction_energy_identity(sleigh):
    """dE/dt = -(1/eps) (A v)^T mu (A v) along the friction model (Eldering eq. (23))."""
    eps = 0.05
    t = np.linspace(0, 4, 4001)
    sol = nh.simulate(sleigh.friction(eps), (0, 4), initial_state(-1.5, 1.0, v0=0.4), t_eval=t,
                      rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    E = sol.energy()
    _, slip, _ = body_velocities(sol)
    dissipation = slip**2 / eps  # A v = sideways slip, mu = 1
    # Simpson's rule on the 4001-point grid: error O(h^4) ~ 1e-11 for this smooth integrand
    from scipy.integrate import cumulative_simpson

    lost = cumulative_simpson(dissipation, x=t, initial=0.0)
    assert np.allclose(E - E[0], -lost, atol=1e-8)
    assert np.all(np.diff(E) <= 1e-12)


def test_friction_psi_is_untouched_by_friction(sleigh):
    """psi = omega + k v obeys psi' = -k u omega exactly, for every eps (note section 5 item 6)."""
    model = sleigh.friction(1e-3)
    rng = np.random.default_rng(4)
    for _ in range(5):
        y = rng.uniform(-1, 1, 6)
        f = model.rhs(0.0, y)
        phi = y[2]
        u = y[3] * np.cos(phi) + y[4] * np.sin(phi)
        w = y[5]
        # d/dt of v: -x' sin - y' cos * phi' ... evaluate psi' from f
        u_dot_v = -f[3] * np.sin(phi) + f[4] * np.cos(phi) - w * (y[3] * np.cos(phi) + y[4] * np.sin(phi))
        psi_dot = f[5] + K * u_dot_v
        assert psi_dot == pytest.approx(-K * u * w, abs=1e-11)


def test_friction_close_to_nonholonomic_at_small_eps(sleigh):
    """Started on D, the friction sleigh stays O(eps) close to the nonholonomic one on [0, 10]."""
    y0 = initial_state(-1.5, 1.0)
    t = np.linspace(0, 10, 11)
    nh_sol = nh.simulate(sleigh.nonholonomic(), (0, 10), y0, t_eval=t, rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    errors = []
    for eps in (1e-5, 1e-6):
        fr = nh.simulate(sleigh.friction(eps), (0, 10), y0, t_eval=t, rtol=1e-11, atol=1e-13)
        assert fr.success
        errors.append(np.abs(fr.q - nh_sol.q).max())
    # O(eps): the error drops tenfold with eps; C ~ 30 over [0, 10] (note section 6 tables)
    assert errors[1] < 50 * 1e-6
    assert 7 < errors[0] / errors[1] < 13
