"""What every method's run shares (issue 42, item 4): the run record of cpp/include/nonholo/run_record.hpp
(samples, events, cancellation, the report of how a run ended), used by CVODE's BDF and Adams and by
DOP853, whose events are found on its dense output (dense_events.hpp) as CVODE finds them on its
interpolant."""

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

import nonholo as nh
from nonholo.progress import Cancel, cancel_scope
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion

METHODS = ("auto", "bdf", "adams", "dop853")
G, HEIGHT = 9.81, 2.0
# the parameters of chaplygin_sleigh() (SleighMotion needs them), and a start with u = -1.5, w = 1, phi = 0.4
M, INERTIA, A = 1.0, 1.0, 0.2
U0, W0, PHI0 = -1.5, 1.0, 0.4


def _falling_mass():
    x = sp.Symbol("x")
    return nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([-G])).nonholonomic()


def _sleigh():
    sleigh = nh.systems.chaplygin_sleigh()
    q = np.array([0.0, 0.0, PHI0])
    return sleigh, np.r_[q, sleigh.project(q, np.array([U0 * np.cos(PHI0), U0 * np.sin(PHI0), W0]))]


@pytest.mark.parametrize("method", METHODS)
def test_a_falling_mass_stops_at_the_ground(method):
    """x'' = -g from rest at HEIGHT: the terminal event x = 0 at sqrt(2 HEIGHT / g) with the velocity
    -sqrt(2 g HEIGHT), the samples of t_eval up to it, and the run's end there."""
    def ground(t, y):
        return y[0]

    ground.terminal = True
    ground.direction = -1
    t_hit = np.sqrt(2 * HEIGHT / G)
    t_eval = np.linspace(0, 2, 21)
    sol = nh.simulate(_falling_mass(), (0, 2), [HEIGHT, 0.0], t_eval=t_eval, events=ground, method=method,
                      rtol=1e-10, atol=1e-12)
    assert sol.status == 1 and sol.t_events[0].shape == (1,)
    assert abs(sol.t_events[0][0] - t_hit) < 1e-9 and abs(sol.t_last - t_hit) < 1e-9
    np.testing.assert_allclose(sol.y_events[0][0], [0.0, -G * t_hit], atol=1e-8)
    np.testing.assert_array_equal(sol.t, t_eval[t_eval <= t_hit])
    np.testing.assert_allclose(sol.y[0], HEIGHT - G * sol.t**2 / 2, atol=1e-9)
    # without t_eval the last sample is the event's
    every = nh.simulate(_falling_mass(), (0, 2), [HEIGHT, 0.0], events=ground, method=method, rtol=1e-10, atol=1e-12)
    assert every.t[-1] == every.t_events[0][0] and every.y[0, -1] == every.y_events[0][0][0]


def _heading_crossings(level_of, direction, t_end):
    """The closed-form times in (0, t_end) where sin(3 phi(t)) changes sign in `direction` (0: both)."""
    motion = SleighMotion(M, INERTIA, A, U0, W0, PHI0)

    def g(t):
        return np.sin(3 * motion(np.atleast_1d(t))[2]) - level_of

    grid = np.linspace(0, t_end, 6001)
    values = g(grid)
    roots = []
    for a, b, ga, gb in zip(grid[:-1], grid[1:], values[:-1], values[1:]):
        if ga * gb < 0 and (direction == 0 or np.sign(gb - ga) == direction):
            roots.append(brentq(lambda t: float(g(t)[0]), a, b, xtol=1e-14))
    return np.array(roots)


@pytest.mark.parametrize("direction", [0, 1, -1])
def test_dop853_events_agree_with_the_closed_form_and_with_bdf(direction):
    """The nonholonomic sleigh in closed form (its reduced model of order 0): the times where
    sin(3 phi) crosses 0.2, in either direction or one, forward and backward, found by DOP853 on its
    dense output within 1e-8 of the closed form, and as CVODE's BDF finds them."""
    sleigh, y0 = _sleigh()
    model = sleigh.reduced(1e-3, order=0)
    exact = _heading_crossings(0.2, direction, 6.0)
    assert len(exact) >= 4  # the heading oscillates: several crossings of each sign

    def heading(t, y):
        return np.sin(3 * y[2]) - 0.2

    heading.direction = direction
    tol = dict(rtol=1e-11, atol=1e-13)
    rk = nh.simulate(model, (0, 6), y0, events=heading, method="dop853", **tol)
    bdf = nh.simulate(model, (0, 6), y0, events=heading, method="bdf", **tol)
    assert rk.method == "dop853" and rk.status == 0
    np.testing.assert_allclose(rk.t_events[0], exact, atol=1e-8)
    np.testing.assert_allclose(bdf.t_events[0], rk.t_events[0], atol=1e-7)
    np.testing.assert_allclose(np.sin(3 * rk.y_events[0][:, 2]), 0.2, atol=1e-9)
    # backward from the end: the same crossings, last first (a direction in t is kept)
    back = nh.simulate(model, (6, 0), rk.y[:, -1], events=heading, method="dop853", **tol)
    np.testing.assert_allclose(back.t_events[0], exact[::-1], atol=1e-7)


def test_dop853_events_of_a_tape_of_several_occurrences_and_a_raising_callback():
    """A compiled event (nh.Event of the configuration) stops at its second occurrence, as under
    Adams; a callback's own exception leaves simulate as itself."""
    sleigh, y0 = _sleigh()
    model = sleigh.nonholonomic()
    event = nh.Event(sp.sin(3 * sleigh.coordinates[2]) - 0.2, terminal=2)
    rk = nh.simulate(model, (0, 6), y0, events=event, method="dop853", rtol=1e-11, atol=1e-13)
    adams = nh.simulate(model, (0, 6), y0, events=event, method="adams", rtol=1e-11, atol=1e-13)
    assert rk.status == adams.status == 1 and len(rk.t_events[0]) == 2
    np.testing.assert_allclose(rk.t_events[0], adams.t_events[0], atol=1e-7)
    assert rk.t_last == rk.t_events[0][-1]

    def bad(t, y):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        nh.simulate(model, (0, 5), y0, events=bad, method="dop853")


@pytest.mark.parametrize("method", METHODS)
def test_a_cancelled_run_reports_where_it_stopped(method):
    """A run cancelled (the token of cancel_scope, as Ctrl-C) stops at its first check, 64 steps in,
    with KeyboardInterrupt carrying the partial result: status -1, flag INTERRUPTED, the samples up
    to t_last, under every method (DOP853 once reported status 0 and the end time)."""
    sleigh, y0 = _sleigh()
    token = Cancel()
    token.set()
    with cancel_scope(token), pytest.raises(KeyboardInterrupt) as caught:
        nh.simulate(sleigh.nonholonomic(), (0, 1e6), y0, method=method, rtol=1e-10, atol=1e-12)
    partial = caught.value.partial
    assert partial.status == -1 and partial.flag_name == "INTERRUPTED" and "interrupted at t = " in partial.message
    assert 0 < partial.t_last < 1e6 and partial.t[-1] == partial.t_last
    # checked every 64 steps (DOP853: every 64 attempts, the rejected ones included)
    assert 0 < partial.stats["n_steps"] <= 64 and partial.stats["n_steps"] + partial.stats["n_err_test_fails"] >= 63


@pytest.mark.parametrize("method", METHODS)
def test_max_steps_is_one_failure_under_every_method(method):
    """max_steps spent: status -1, CV_TOO_MUCH_WORK and the time reached, with a SimulationWarning,
    or IntegrationError with raise_on_failure=True; the state where the run stopped is its last."""
    sleigh, y0 = _sleigh()
    model = sleigh.nonholonomic()
    with pytest.warns(nh.SimulationWarning, match="max_steps = 20"):
        sol = nh.simulate(model, (0, 50), y0, method=method, max_steps=20, rtol=1e-10, atol=1e-12)
    assert sol.status == -1 and sol.flag_name == "CV_TOO_MUCH_WORK" and sol.stats["n_steps"] == 20
    assert 0 < sol.t_last < 50 and sol.t[-1] == sol.t_last and f"t = {sol.t_last:.6g}"[:8] in sol.message
    with pytest.raises(nh.IntegrationError, match="max_steps = 20") as caught:
        nh.simulate(model, (0, 50), y0, method=method, max_steps=20, rtol=1e-10, atol=1e-12, raise_on_failure=True)
    assert caught.value.result.status == -1 and caught.value.result.t_last == sol.t_last
