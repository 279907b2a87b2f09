"""The Kane-Levinson rattleback (nonholo.systems.rattleback): spin reversal of the rolling model
against an independent computation, and its friction realizations as the constraint softens."""

import numpy as np
import pytest

import nonholo as nh
from nonholo.builders.contact import rolling_state
from nonholo.systems.rattleback import kane_levinson_state, reversal_time, vertical_spin
from nonholo.testing import loglog_slope

# Rattleback reversal time (first zero of the body spin, Kane-Levinson 1982 parameters and
# initial data) from an independent model: sympy.physics.mechanics (Kane's method in Euler
# angles), its mass_matrix_full and forcing_full integrated by scipy's DOP853 at rtol 1e-12
# (benchmarks/rolling_bodies.py, nonholo's core not involved): 2.3527310229 s; the same Kane
# model run by nonholo gives 2.3527310191 s, nonholo's rattleback 2.3527310217 s.
KANE_REVERSAL_TIME = 2.3527310229


@pytest.fixture(scope="module")
def rb():
    return nh.systems.rattleback()


def test_rattleback_reverses_at_the_independent_time(rb):
    t = np.linspace(2.2, 2.5, 3001)
    r = nh.simulate(rb.nonholonomic(), (0, 2.5), kane_levinson_state(rb), t_eval=t, rtol=1e-11, atol=1e-13)
    assert reversal_time(t, r["omega_3"]) == pytest.approx(KANE_REVERSAL_TIME, abs=1e-7)
    E = r.energy()  # through ~100 rocking periods at rtol 1e-11: measured 1.0e-9
    assert np.abs(E - E[0]).max() < 1e-8 * abs(E[0])


def test_friction_realization_converges_to_rolling_at_rate_eps(rb):
    """Viscous sliding f = -s/eps (Kane-Levinson start, no slip at t = 0) follows the rolling
    model to O(eps): the largest spin difference over 0.5 s (about 8 pitching periods) falls
    with a fitted slope 1 in eps (measured 0.995). The constant is large (the difference is
    about 2e3 eps rad/s): the slip relaxes in ~eps seconds, but the rocking amplifies it."""
    t = np.linspace(0, 0.5, 1001)
    y0 = kane_levinson_state(rb)
    ref = nh.simulate(rb.nonholonomic(), (0, 0.5), y0, t_eval=t, rtol=1e-10, atol=1e-12)["omega_3"]
    eps = np.array([4e-5, 2e-5, 1e-5])
    diffs = [np.abs(nh.simulate(rb.friction(e), (0, 0.5), y0, t_eval=t, rtol=1e-10, atol=1e-12)["omega_3"] - ref).max()
             for e in eps]
    slope = loglog_slope(eps, diffs)
    assert 0.9 < slope < 1.1, (slope, diffs)
    assert 1e-3 < diffs[-1] < 1e-1  # the differences are resolved, far above the integration error


def test_reversal_needs_strong_enough_sliding_friction(rb):
    """With strong viscous sliding (eps = 1e-3) the rattleback still reverses, earlier than the
    rolling one; with weak sliding (eps = 1e-2) the spin only decays and keeps its sign."""
    t = np.linspace(0, 3.2, 3201)
    y0 = kane_levinson_state(rb)
    rolling = reversal_time(t, vertical_spin(nh.simulate(rb.nonholonomic(), (0, 3.2), y0, t_eval=t, rtol=1e-8,
                                                         atol=1e-10)), window=0.3)
    assert rolling == pytest.approx(2.798, abs=2e-3)
    strong = nh.simulate(rb.friction(1e-3), (0, 3.2), y0, t_eval=t, rtol=1e-8, atol=1e-10)
    assert reversal_time(t, vertical_spin(strong), window=0.3) < rolling - 0.5
    weak = nh.simulate(rb.friction(1e-2), (0, 3.2), y0, t_eval=t, rtol=1e-8, atol=1e-10)
    spin = vertical_spin(weak)
    assert np.isnan(reversal_time(t, spin, window=0.3))
    assert 0 < spin[-300:].mean() < 0.2 * spin[0]  # decayed, same sign


def test_reversal_time_helper():
    t = np.linspace(0, 2, 2001)
    assert reversal_time(t, 1 - t) == pytest.approx(1.0, abs=1e-12)
    wiggly = 1 - t + 1.5 * np.sin(2 * np.pi * t / 0.1)  # dips below zero first near t = 0.07
    assert reversal_time(t, wiggly) < 0.1
    assert reversal_time(t, wiggly, window=0.1) == pytest.approx(1.0, abs=1e-3)
    assert np.isnan(reversal_time(t, 1 + t))
    with pytest.raises(ValueError, match="uniformly"):
        reversal_time(t**2, 1 - t, window=0.1)
    with pytest.raises(ValueError, match="same length"):
        reversal_time(t, t[:-1])


def test_friction_laws_agree_with_the_constrained_system(rb):
    """friction="viscous" is the same vector field as friction(eps) of the no-slip system; the
    Coulomb law is -mu m g s / sqrt(|s|^2 + eps^2) at the contact and only dissipates."""
    from nonholo.builders.bodies import quaternion_from_euler

    viscous = nh.systems.rattleback(friction="viscous", eps=1e-2)
    coulomb = nh.systems.rattleback(friction="coulomb", eps=1e-2, friction_coefficient=0.3)
    rng = np.random.default_rng(5)
    q = quaternion_from_euler(*rng.uniform(-np.pi, np.pi, 3) * [1, 0.45, 1]) * [1, 0.1, 0.1, 1]
    y = rolling_state(rb, q, rng.normal(size=3), velocity=(0.01, -0.02))
    assert viscous.nonholonomic().rhs(0, y) == pytest.approx(rb.friction(1e-2).rhs(0, y), rel=1e-12)
    A = np.asarray(rb.constraint_matrix(y[:6])[0])
    s = A @ y[6:]
    assert np.linalg.norm(s) > 0
    # the Coulomb force's generalized components A^T f: q'' differs from the frictionless one by
    # G^-1 A^T f; check it through the work rate, f . s = -mu m g |s|^2 / sqrt(|s|^2 + eps^2)
    free = nh.systems.rattleback(friction="coulomb", eps=1e-2, friction_coefficient=0.0)
    G = rb.metric_at(y[:6])
    power = y[6:] @ G @ (coulomb.nonholonomic().rhs(0, y)[6:] - free.nonholonomic().rhs(0, y)[6:])
    m, g = 1.0, 9.81
    assert power == pytest.approx(-0.3 * m * g * (s @ s) / np.sqrt(s @ s + 1e-4), rel=1e-10)
    r = nh.simulate(coulomb.nonholonomic(), (0, 0.5), y, rtol=1e-9, atol=1e-12)
    E = r.energy()
    assert np.all(np.diff(E) <= 1e-12 * abs(E[0]))  # sliding friction only dissipates


def test_jacobian_reused_across_steps_where_it_is_expensive(rb):
    """The rattleback's friction model (a Jacobian of ~6 right-hand sides): the integrator's
    Jacobian policy keeps CVODE's reuse instead of a refresh at every step (which costs up to 4x
    the time here, benchmarks/rolling_bodies.py), and the run matches the one with a refresh at
    every step to its tolerance."""
    model = rb.friction(1e-3)
    y0 = kane_levinson_state(rb)
    r = nh.simulate(model, (0, 0.5), y0, t_eval=[0.5], rtol=1e-8, atol=1e-10)
    assert r.stats["n_jac"] < r.stats["n_steps"] / 4
    every = nh.simulate(model, (0, 0.5), y0, t_eval=[0.5], rtol=1e-8, atol=1e-10,
                        solver_options={"jacobian_frequency": 1, "setup_frequency": 1})
    assert every.stats["n_jac"] >= every.stats["n_steps"] - every.stats["n_err_test_fails"] - 5
    assert np.abs(r.y[:, -1] - every.y[:, -1]).max() < 1e-5 * np.abs(every.y[:, -1]).max()
