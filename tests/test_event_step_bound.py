"""An event that crosses zero and back within one step is found: the run bounds its next step by the
events' own time scale (the curvature of g over the last three steps), since the error control sees
only the state. A body at rest under a force that varies in time took one step of 1.98 s through its
first window of slip (5 of its 7 switches missed, x = -0.67 for 0.148), and a free particle's run
found 1 of the 63 zeros of sin(20 t). A straight event (t - t1) bounds nothing but the growth of the
first steps. Nor is the first step, whatever the length of t_span: the state at rest does not size it,
and over t_span (0, 1e4) the free particle found 39 of those zeros in [0, 10], the block slid too late
over (0, 1e5)."""

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

import nonholo as nh

T = sp.Symbol("t")
MU, N, T_END = 0.6, 9.81, 6.0
METHODS = [{}, {"method": "bdf"}, {"method": "adams"}, {"method": "dop853"}]


def pushed_block():
    """A block on a line (y free, unforced), stuck to the ground until 8 sin 2t leaves the cone mu N."""
    x, y = sp.symbols("x y")
    system = nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[1, 0]]), force=sp.Matrix([8 * sp.sin(2 * T), 0]))
    return system.stick_slip(MU, normal=N)


def block_closed_form(t_end=T_END):
    """The switch times and the final x: at rest until |8 sin 2t| = mu N, then sliding under
    8 sin 2t - s mu N (s the sign of the force at the start) until the speed
    4 (cos 2t_s - cos 2t) - s mu N (t - t_s) is zero again."""
    force = lambda t: 8 * np.sin(2 * t)  # noqa: E731
    t, x, switches = 0.0, 0.0, []
    while True:
        grid = np.arange(t, t_end, 1e-3)
        out = np.nonzero(np.abs(force(grid)) > MU * N)[0]
        if len(out) == 0:
            return switches, x
        k = out[0]
        ts = brentq(lambda s: abs(force(s)) - MU * N, grid[k - 1], grid[k], xtol=1e-15)
        sign = np.sign(force(ts))
        speed = lambda s: 4 * (np.cos(2 * ts) - np.cos(2 * s)) - sign * MU * N * (s - ts)  # noqa: E731
        position = lambda s: (x + 4 * np.cos(2 * ts) * (s - ts) - 2 * (np.sin(2 * s) - np.sin(2 * ts))  # noqa: E731
                              - sign * MU * N * (s - ts) ** 2 / 2)
        grid = np.arange(ts + 1e-3, t_end, 1e-3)
        back = np.nonzero(sign * speed(grid) <= 0)[0]
        switches.append(ts)
        if len(back) == 0:
            return switches, position(t_end)
        t = brentq(speed, grid[back[0]] - 1e-3, grid[back[0]], xtol=1e-15)
        x = position(t)
        switches.append(t)


@pytest.mark.parametrize("options", METHODS, ids=["default", "bdf", "adams", "dop853"])
def test_a_window_of_slip_under_a_varying_force_is_not_stepped_over(options):
    switches, x_end = block_closed_form()
    assert len(switches) == 7
    run = nh.simulate(pushed_block(), (0, T_END), [0, 0, 0, 0], **options)
    assert run.success
    np.testing.assert_allclose([s[0] for s in run.switches], switches, rtol=0, atol=1e-6)
    np.testing.assert_allclose(run["x"][-1], x_end, rtol=0, atol=1e-5)


@pytest.mark.parametrize("options", METHODS, ids=["default", "bdf", "adams", "dop853"])
@pytest.mark.parametrize("argument", ["t", "x"])
def test_every_zero_of_a_fast_event_is_found(options, argument):
    x, y = sp.symbols("x y")
    particle = nh.System([x, y], sp.eye(2)).nonholonomic()
    g = sp.sin(20 * (T if argument == "t" else x))
    run = nh.simulate(particle, (0, 10), [0, 0, 1, 0], events=[nh.Event(g)], **options)
    np.testing.assert_allclose(run.t_events[0], np.arange(1, 64) * np.pi / 20, rtol=0, atol=1e-6)


@pytest.mark.parametrize("options", METHODS, ids=["default", "bdf", "adams", "dop853"])
def test_a_straight_event_does_not_bound_the_steps(options):
    """Only the first steps are held to 10-fold growth (an event's curvature needs three values;
    CVODE would make its second step 10^4 times its first)."""
    x, y = sp.symbols("x y")
    particle = nh.System([x, y], sp.eye(2)).nonholonomic()
    method = options.get("method", "adams")  # the default runs a model with events by Adams
    free = nh.simulate(particle, (0, 1000), [0, 0, 1, 0], method=method)
    timed = nh.simulate(particle, (0, 1000), [0, 0, 1, 0], events=[nh.Event(T - 500)], **options)
    np.testing.assert_allclose(timed.t_events[0], [500.0], rtol=1e-14)
    assert timed.stats["n_steps"] <= free.stats["n_steps"] + 5


@pytest.mark.parametrize("options", METHODS, ids=["default", "bdf", "adams", "dop853"])
@pytest.mark.parametrize("t_end", [10.0, 1e3, 1e5])
def test_the_first_step_of_a_long_span_does_not_jump_zeros(options, t_end):
    """A particle at rest: its state sizes no step, the event sin(20 t) alone does; a terminal
    t - 10 ends the run at 10 whatever t_span."""
    x, y = sp.symbols("x y")
    particle = nh.System([x, y], sp.eye(2)).nonholonomic()
    events = [nh.Event(sp.sin(20 * T)), nh.Event(T - 10, terminal=True)]
    # at rest; far out and moving (CVODE bounds its first step by |y| / |y'|: 57 of 63 found at x = 1000);
    # slowly (59 of 63)
    for y0 in ([0, 0, 0, 0], [1000, 0, 1, 0], [1, 0, 1e-3, 0]):
        run = nh.simulate(particle, (0, t_end), y0, events=events, **options)
        np.testing.assert_allclose(run.t_events[0], np.arange(1, 64) * np.pi / 20, rtol=0, atol=1e-6)
        np.testing.assert_allclose(run.t_events[1], [10.0], rtol=0, atol=1e-9)


def test_the_first_step_probe_leaves_a_smooth_event_to_the_stepper():
    """A law's reduced model always runs its fold event: the first step of its run was cut to 1e-8 of
    the span by a first version of the bound above, and the order-1 sleigh took 18 DOP853 steps where it
    takes 11 (rolling breaks guide); the samples of its smooth event now leave the stepper's own first step."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    model = sleigh.reduced(order=1, law=nh.laws.Coulomb(0.5, 1e-3), normal=9.81)
    run = nh.simulate(model, (0, 5), np.r_[0, 0, 0, sleigh.project([0, 0, 0], [1.0, 0, 1.0])], t_eval=[5])
    assert run.success and run.method == "dop853" and run.stats["n_steps"] <= 12


@pytest.mark.parametrize("t_end", [1e4, 1e5])
def test_a_stick_slip_run_over_a_long_span_starts_sliding_in_time(t_end):
    """Every phase starts anew: the block at rest over t_span (0, 1e5) slid too late (x(10) = -0.67)."""
    switches, x_10 = block_closed_form(10.0)
    assert len(switches) == 13
    short = nh.simulate(pushed_block(), (0, 100), [0, 0, 0, 0], t_eval=[10, 50, 100])
    # about 4 switches per pi seconds: the run stops at max_switches (1000), past t = 100
    with pytest.warns(nh.SimulationWarning, match="max_switches"):
        long = nh.simulate(pushed_block(), (0, t_end), [0, 0, 0, 0], t_eval=[10, 50, 100])
    assert short.success and "max_switches" in long.message
    np.testing.assert_array_equal(long.t, [10, 50, 100])
    np.testing.assert_allclose(long["x"][0], x_10, rtol=0, atol=1e-5)
    np.testing.assert_allclose(long.y[:, :3], short.y, rtol=0, atol=1e-6)
    np.testing.assert_allclose([s[0] for s in long.switches if s[0] < 10], switches, rtol=0, atol=1e-6)
