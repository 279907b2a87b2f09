"""Before the first step a run samples its symbolic events along the straight line y0 + tau y'(t0) over
the longest first step it could take (event_step_bound.hpp), points that are not on the solution. An
event undefined there but defined along the whole run (sqrt(c - theta) of a sleigh whose theta stays
below c) failed the run at t = 0, "event 0 is not finite (-nan) at t = 0.491093", and kept only y0,
with every method, while the same g as a callable (which that sampling does not call) ran to the end.
Such a sample now shortens the first step, as a sign change there does. An event that is undefined
on the solution itself still fails the run where the solution reaches its domain's edge."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x = sp.Symbol("x")
METHODS = [{}, {"method": "bdf"}, {"method": "adams"}, {"method": "dop853"}]


def oscillator():
    """x'' = -x from x = 0, x' = 1: x = sin t, never above 1; the line x = t leaves x < 1.5 at t = 1.5."""
    return nh.System([x], sp.Matrix([[1]]), potential=x**2 / 2).nonholonomic()


@pytest.mark.parametrize("options", METHODS)
def test_event_defined_on_the_solution_but_not_on_the_first_steps_line(options):
    model = oscillator()
    run = nh.simulate(model, (0, 20), [0.0, 1.0], events=nh.Event(sp.sqrt(1.5 - x) - 1), **options)
    assert run.status == 0 and run.t[-1] == 20
    # sqrt(1.5 - sin t) = 1 where sin t = 0.5: t = pi/6 + 2 pi k and 5 pi/6 + 2 pi k
    roots = np.sort(np.r_[np.pi / 6 + 2 * np.pi * np.arange(4), 5 * np.pi / 6 + 2 * np.pi * np.arange(3)])
    assert len(run.t_events[0]) == len(roots)
    np.testing.assert_allclose(run.t_events[0], roots, atol=1e-5)
    # the same g as a callable: the same events
    callable_run = nh.simulate(model, (0, 20), [0.0, 1.0], events=lambda t, y: np.sqrt(1.5 - y[0]) - 1, **options)
    np.testing.assert_allclose(callable_run.t_events[0], run.t_events[0], atol=1e-5)


@pytest.mark.parametrize("options", METHODS)
def test_event_undefined_on_the_solution_still_fails_where_it_is(options):
    with pytest.warns(nh.SimulationWarning, match="event 0 is not finite"):
        run = nh.simulate(oscillator(), (0, 20), [0.0, 1.0], events=nh.Event(sp.sqrt(0.5 - x)), **options)
    assert run.status == -1
    # sin t reaches 0.5 at pi/6: the run keeps the steps it took before that
    assert 0 < run.t[-1] <= np.pi / 6 and run.t.size > 1
    np.testing.assert_allclose(run.y[0], np.sin(run.t), atol=1e-5)


@pytest.mark.parametrize("options", METHODS)
def test_an_event_undefined_past_a_step_keeps_the_roots_and_samples_before(options):
    """x' = 1 from 0 with g = sqrt(1 - x) - 0.5: its root 0.75, then undefined from t = 1. DOP853 (the
    default's method here) stepped from 0.43 to 1.04 over both: the run failed at 1.04 without the
    root or the samples after 0.43, which BDF kept. It now fails where g stops being defined."""
    free = nh.System([x], sp.Matrix([[1]])).nonholonomic()
    g = nh.Event(sp.sqrt(1 - x) - 0.5)
    with pytest.warns(nh.SimulationWarning, match="event 0 is not finite"):
        run = nh.simulate(free, (0, 2), [0.0, 1.0], events=g, t_eval=np.linspace(0, 2, 21), **options)
    assert run.status == -1
    np.testing.assert_allclose(run.t_events[0], [0.75], atol=1e-9)
    kept = np.linspace(0, 2, 21)[np.linspace(0, 2, 21) <= run.t_last]
    np.testing.assert_array_equal(run.t, kept)
    assert run.t_last > (0.97 if options else 1 - 1e-9) and run.t_last <= 1.0
    np.testing.assert_allclose(run.y, [run.t, np.ones_like(run.t)], rtol=1e-12)
    terminal = nh.simulate(free, (0, 2), [0.0, 1.0], events=nh.Event(sp.sqrt(1 - x) - 0.5, terminal=True), **options)
    assert terminal.status == 1 and terminal.t[-1] == pytest.approx(0.75, abs=1e-9)


def test_max_wall_time_holds_with_a_slow_python_event():
    """An outside probe's event that sleeps 10 ms: max_wall_time = 1 s returned after 4.9 s, 373 event
    calls past the budget (the limits were checked every 64 steps); they are checked after any step
    that ends 20 ms after the last check too."""
    import time

    sleigh = nh.System([x, sp.Symbol("y"), sp.Symbol("theta")], sp.diag(1, 1, 0.5),
                       constraints=sp.Matrix([[-sp.sin(sp.Symbol("theta")), sp.cos(sp.Symbol("theta")), 0]]))
    calls = []

    def slow(t, y):
        calls.append(time.perf_counter())
        time.sleep(0.01)
        return y[0] - 5

    for options in ({}, {"method": "bdf"}):
        calls.clear()
        start = time.perf_counter()
        with pytest.warns(nh.SimulationWarning, match="max_wall_time"):
            run = nh.simulate(sleigh.nonholonomic(), (0, 1e4), [0, 0, 0, 1, 0, 1], events=[slow], max_wall_time=0.3,
                              **options)
        assert run.status == -1 and run.flag_name == "WALL_TIME_EXCEEDED"
        assert sum(c - start > 0.3 for c in calls) < 150  # 441 before; a DOP853 step's root search calls it ~60 times


@pytest.mark.parametrize("options", METHODS)
def test_a_long_step_past_where_an_event_is_defined_keeps_every_root_before(options):
    """An outside probe's callable event (x - 1)(x - 2)(x - 3.4), NaN from x = 3.5, along x = t: BDF and
    Adams stepped from 1.21 past 10, where CVODE's root function failed, and the run ended at 1.21 with
    the root at 1 only, its message quoting t = 10. The step is now searched on CVODE's interpolant (in
    parts: g has the same sign at 1.21 and 3.5) up to where the event stops being defined."""
    free = nh.System([x], sp.Matrix([[1]])).nonholonomic()

    def g(t, y):
        return (y[0] - 1) * (y[0] - 2) * (y[0] - 3.4) if y[0] < 3.5 else np.nan

    grid = np.linspace(0, 10, 41)
    with pytest.warns(nh.SimulationWarning, match="event 0 is not finite"):
        run = nh.simulate(free, (0, 10), [0.0, 1.0], events=g, t_eval=grid, **options)
    assert run.status == -1 and run.t_last == pytest.approx(3.5, abs=1e-9)
    np.testing.assert_allclose(run.t_events[0], [1.0, 2.0, 3.4], atol=1e-9)
    np.testing.assert_array_equal(run.t, grid[grid <= run.t_last])  # 0, 0.25, ..., 3.5
    assert "at t = 3.5" in run.message and "at t = 10" not in run.message


def test_the_default_on_a_stiff_model_keeps_them_too():
    """The same event on a sleigh realized by friction (eps 1e-4): the default runs BDF."""
    sleigh = nh.systems.chaplygin_sleigh().friction(1e-4)

    def g(t, y):
        return (y[0] - 1) * (y[0] - 2) * (y[0] - 3.4) if y[0] < 3.5 else np.nan

    with pytest.warns(nh.SimulationWarning, match="event 0 is not finite"):
        run = nh.simulate(sleigh, (0, 10), [0, 0, 0, 1, 0, 0], events=g)
    assert run.status == -1 and run.t_last == pytest.approx(3.5, abs=1e-7)
    np.testing.assert_allclose(run.t_events[0], [1.0, 2.0, 3.4], atol=1e-7)
