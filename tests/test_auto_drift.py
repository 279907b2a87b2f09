"""method="auto"'s DOP853 on long runs: a step's local error is bounded by the tolerance, but the
energy of a conservative system drifts by the sum of the steps' errors, ~ n tol after n steps.
Auto runs DOP853 at a tenth of the tolerances and, after kAutoTightenSteps = 300 steps, tightens
them by sqrt(300 / n) (down to a tenth, and to rtol 1e-12): short runs are unchanged, and the drift
of long runs grows like n^(9/16) instead of n (the 10^4-time-unit measurement:
benchmarks/auto_accuracy.py)."""

import numpy as np
import pytest

import nonholo as nh
from nonholo.testing import roller_racer

RTOL, ATOL = 1e-8, 1e-10


@pytest.fixture(scope="module")
def racer():
    system = roller_racer()
    q0 = np.array([0.0, 0.0, 0.0, 0.6])
    return system, np.r_[q0, system.project(q0, np.array([1.0, 0.0, 0.0, 0.0]))]


def _fixed_tenth(model, t_span, y0, **kw):
    """DOP853 at auto's tenth of the default tolerances, never tightened (auto before issue 40)."""
    return nh.simulate(model, t_span, y0, method="dop853", rtol=RTOL * 0.1, atol=ATOL * 0.1, **kw)


def test_a_short_run_is_dop853_at_a_tenth_of_the_tolerances_bit_for_bit():
    """The sleigh over [0, 5] takes 24 steps, below 300: auto's samples are those of DOP853 at
    rtol / 10 and atol / 10, bit for bit."""
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = [0, 0, 0, -1.5, 0, 1.0]
    auto = nh.simulate(sleigh.nonholonomic(), (0, 5), y0)
    fixed = _fixed_tenth(sleigh.nonholonomic(), (0, 5), y0)
    assert auto.method == "dop853" and auto.stats["n_steps"] < 300
    assert np.array_equal(auto.t, fixed.t) and np.array_equal(auto.y, fixed.y)


def test_the_energy_drift_of_a_long_run_grows_slower_than_its_steps(racer):
    """The roller racer over t = 2000 (~12,000 steps), the relative energy drift at T / 2 and T:
    at fixed tolerances it doubles with the run (2.3x measured: it is systematic); auto's grows
    by less than 1.6x (1.31x), ends at least 3x below (5.4x: 7.1e-9 against 3.8e-8) and within
    the share 100 rtol T / 10^4 of the target, for at most 1.3x the steps (1.20x)."""
    system, y0 = racer
    model, T = system.nonholonomic(), 2000.0
    E0 = system.energy(y0[:4], y0[4:])
    auto = nh.simulate(model, (0, T), y0, t_eval=[T / 2, T])
    fixed = _fixed_tenth(model, (0, T), y0, t_eval=[T / 2, T])
    drift_auto, drift_fixed = (np.abs(r.energy() / E0 - 1) for r in (auto, fixed))
    assert auto.method == "dop853" and auto.success
    assert drift_fixed[1] > 1.8 * drift_fixed[0], drift_fixed
    assert drift_auto[1] < 1.6 * drift_auto[0], drift_auto
    assert drift_auto[1] < drift_fixed[1] / 3 and drift_auto[1] < 100 * RTOL * T / 1e4
    assert auto.stats["n_steps"] <= 1.3 * fixed.stats["n_steps"], (auto.stats["n_steps"], fixed.stats["n_steps"])
