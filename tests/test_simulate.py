"""simulate and simulate_many: outputs, events, batches, failures, interruption."""

import os
import pickle
import signal
import threading

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from conftest import TIGHT_ATOL, TIGHT_RTOL

Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]
KW = dict(rtol=TIGHT_RTOL, atol=TIGHT_ATOL)


def test_result_shape_and_fields(sleigh):
    t = np.linspace(0, 5, 11)
    sol = nh.simulate(sleigh.nonholonomic(), (0, 5), Y0, t_eval=t, method="bdf")
    assert sol.y.shape == (6, 11) and sol.q.shape == (3, 11) and sol.v.shape == (3, 11)
    assert np.array_equal(sol.t, t)
    assert sol.status == 0 and sol.success and "reached the end" in sol.message
    assert sol.nfev == sol.stats["n_rhs"] > 0 and sol.njev >= 1 and sol.nlu >= 1
    assert sol.t_last == 5.0
    assert sol.state_names == ["x", "y", "phi", "x_dot", "y_dot", "phi_dot"]
    assert np.array_equal(sol["phi"], sol.y[2])
    with pytest.raises(KeyError, match="no state named 'psi'"):
        sol["psi"]
    text = repr(sol)
    assert text.splitlines()[1].strip().startswith("message:")


def test_without_t_eval_every_step_is_returned(sleigh):
    sol = nh.simulate(sleigh.nonholonomic(), (0, 5), Y0)
    assert sol.t[0] == 0 and sol.t[-1] == 5
    assert len(sol.t) == sol.stats["n_steps"] + 1
    assert np.all(np.diff(sol.t) > 0)


def test_backward_integration_returns_to_the_start(sleigh):
    model = sleigh.nonholonomic()
    fwd = nh.simulate(model, (0, 4), Y0, **KW)
    back = nh.simulate(model, (4, 0), fwd.y[:, -1], t_eval=[4, 2, 0], **KW)
    assert np.allclose(back.y[:, -1], Y0, atol=1e-8)


def test_parameters_at_call_time(sleigh):
    """Changing a parameter at call time equals building the system with it."""
    t = np.linspace(0, 3, 7)
    a = nh.simulate(sleigh.nonholonomic(), (0, 3), Y0, t_eval=t, params={"a": 0.35}, **KW)
    b = nh.simulate(nh.systems.chaplygin_sleigh(a=0.35).nonholonomic(), (0, 3), Y0, t_eval=t, **KW)
    assert np.allclose(a.y, b.y, atol=1e-12)
    assert a.params["a"] == 0.35
    f = nh.simulate(sleigh.friction(1e-2), (0, 3), Y0, t_eval=t, params={"eps": 1e-3}, **KW)
    g = nh.simulate(sleigh.friction(1e-3), (0, 3), Y0, t_eval=t, **KW)
    assert np.allclose(f.y, g.y, atol=1e-12)


def test_symbolic_and_callable_events_agree(sleigh):
    y = sp.Symbol("y")
    model = sleigh.nonholonomic()
    sym = nh.simulate(model, (0, 20), Y0, events=[nh.Event(y + 1.0, direction=-1)], **KW)

    def crossing(t, state):
        return state[1] + 1.0

    crossing.direction = -1
    call = nh.simulate(model, (0, 20), Y0, events=crossing, **KW)
    assert len(sym.t_events[0]) >= 1
    assert np.allclose(sym.t_events[0], call.t_events[0], atol=1e-10)
    assert np.allclose(sym.y_events[0][:, 1], -1.0, atol=1e-9)
    # the event time is a root of the dense solution
    dense = nh.simulate(model, (0, 20), Y0, t_eval=[sym.t_events[0][0]], **KW)
    assert dense.y[1, 0] == pytest.approx(-1.0, abs=1e-8)


def test_terminal_event_stops_and_is_recorded(sleigh):
    phi = sp.Symbol("phi")
    sol = nh.simulate(sleigh.nonholonomic(), (0, 50), Y0, events=nh.Event(phi - 3.0, terminal=True), **KW)
    assert sol.status == 1 and sol.success
    assert sol.t[-1] == pytest.approx(sol.t_events[0][0])
    assert sol.y[2, -1] == pytest.approx(3.0, abs=1e-9)
    # with t_eval only the requested times before the event are kept (solve_ivp's rule)
    te = nh.simulate(sleigh.nonholonomic(), (0, 50), Y0, t_eval=np.arange(0, 51.0),
                     events=nh.Event(phi - 3.0, terminal=True), **KW)
    assert np.all(te.t <= sol.t_events[0][0]) and te.t[-1] == np.floor(sol.t_events[0][0])


def test_terminal_count_and_direction(sleigh):
    x_dot = sp.Symbol("x_dot")
    both = nh.simulate(sleigh.nonholonomic(), (0, 30), Y0, events=nh.Event(sp.Symbol("y") + 0.5), **KW)
    n_both = len(both.t_events[0])
    second = nh.simulate(sleigh.nonholonomic(), (0, 30), Y0,
                         events=nh.Event(sp.Symbol("y") + 0.5, terminal=2), **KW)
    assert n_both >= 2
    assert len(second.t_events[0]) == 2 and second.status == 1
    up = nh.simulate(sleigh.nonholonomic(), (0, 30), Y0, events=nh.Event(x_dot, direction=1), **KW)
    assert all(np.isfinite(up.t_events[0]))


def test_symbolic_event_tapes_are_lowered_once_per_system_and_expression(sleigh, monkeypatch):
    """Runs that build the same Event share its tape (lowered once per system and expression, the
    oldest dropped beyond KEPT_TAPES): the same crossings as a fresh system's; expressions that
    differ, or differ only in their symbols' assumptions, are not confused; a bad event still names
    its index."""
    from nonholo.integrate import events

    lowered = []
    lower = events.lower
    monkeypatch.setattr(events, "lower", lambda exprs, inputs: lowered.append(exprs) or lower(exprs, inputs))
    system = nh.systems.chaplygin_sleigh()
    fresh = nh.simulate(sleigh.nonholonomic(), (0, 30), Y0, events=nh.Event(sp.Symbol("y") + 0.5), **KW)
    # the same pair of events (their values bound the steps: the steps, hence the roots, depend on the set)
    pair = nh.simulate(sleigh.nonholonomic(), (0, 30), Y0,
                       events=[nh.Event(sp.Symbol("y") + 0.5), nh.Event(sp.Symbol("y") + 0.25)], **KW)
    lowered.clear()  # the fixture's system lowered its own
    runs = [nh.simulate(system.nonholonomic(), (0, 30), Y0, events=[nh.Event("y + 0.5"), nh.Event("y + 0.25")], **KW)
            for _ in range(3)]
    assert len(lowered) == 2  # two expressions, three runs
    for run in runs:
        np.testing.assert_array_equal(run.t_events[0], pair.t_events[0])
        assert len(run.t_events[1]) and not np.array_equal(run.t_events[1], run.t_events[0])
    real = nh.simulate(system.nonholonomic(), (0, 30), Y0, events=nh.Event(sp.Symbol("y", real=True) + 0.5), **KW)
    np.testing.assert_array_equal(real.t_events[0], fresh.t_events[0])
    from nonholo.expressions.lowering import KEPT_TAPES

    for c in np.linspace(0.01, 0.2, KEPT_TAPES + 6):  # more than the system keeps
        nh.simulate(system.nonholonomic(), (0, 1), Y0, events=nh.Event(sp.Symbol("x") + c), **KW)
    assert len(system.__dict__["_kept_tapes"]["event"]) == KEPT_TAPES
    again = nh.simulate(system.nonholonomic(), (0, 30), Y0, events=nh.Event("y + 0.5"), **KW)
    np.testing.assert_array_equal(again.t_events[0], fresh.t_events[0])
    with pytest.raises(ValueError, match="event 1"):
        nh.simulate(system.nonholonomic(), (0, 1), Y0, events=[nh.Event("y + 0.5"), nh.Event(sp.Symbol("zeta"))])


def test_event_at_an_output_time_and_at_the_final_time():
    """Events landing exactly on t_eval points or on tf are reported once, and t is not
    duplicated (SciPy issues #15262, #17066)."""
    x = sp.Symbol("x")
    free = nh.System([x], sp.Matrix([[1]]), name="free particle")
    model = free.nonholonomic()
    t_eval = np.linspace(0, 2, 5)
    sol = nh.simulate(model, (0, 2), [0.0, 1.0], t_eval=t_eval, events=[nh.Event(x - 1.0), nh.Event(x - 2.0)], **KW)
    assert np.array_equal(sol.t, t_eval)
    assert sol.t_events[0] == pytest.approx([1.0], abs=1e-10)
    assert len(sol.t_events[1]) <= 1


def test_simulate_many_equals_simulate(sleigh):
    rng = np.random.default_rng(7)
    n_runs = 64
    Y = np.zeros((n_runs, 6))
    phi, u, w = rng.uniform(-1, 1, n_runs), rng.uniform(-2, 2, n_runs), rng.uniform(-1, 1, n_runs)
    Y[:, 2], Y[:, 3], Y[:, 4], Y[:, 5] = phi, u * np.cos(phi), u * np.sin(phi), w
    eps = rng.uniform(1e-4, 1e-2, n_runs)
    t = np.linspace(0, 5, 6)
    model = sleigh.friction(1e-3)
    batch = nh.simulate_many(model, (0, 5), Y, params={"eps": eps}, t_eval=t, threads=2)
    for i in range(n_runs):
        single = nh.simulate(model, (0, 5), Y[i], params={"eps": eps[i]}, t_eval=t)
        assert np.array_equal(batch[i].y, single.y)  # bit for bit: same code path, one workspace per run
        assert batch[i].stats["n_steps"] == single.stats["n_steps"]


def test_simulate_many_takes_a_list_of_parameter_sets(sleigh):
    model = sleigh.nonholonomic()
    sols = nh.simulate_many(model, (0, 2), Y0, params=[{"a": 0.1}, {"a": 0.3}], t_eval=[2.0])
    assert len(sols) == 2 and sols[0].params["a"] == 0.1
    assert not np.allclose(sols[0].y, sols[1].y)


def test_solver_failure_is_reported_with_partial_trajectory():
    """A finite-time blow-up (V = -x^4, blow-up before t = 1): status -1, the time reached,
    CVODE's reason, a warning."""
    x = sp.Symbol("x")
    system = nh.System([x], sp.Matrix([[1]]), -x**4, name="blow-up")
    with pytest.warns(nh.SimulationWarning, match=r"at t = 0\.\d+"):
        sol = nh.simulate(system.nonholonomic(), (0, 10), [1.0, 1.0], max_steps=5000)
    assert sol.status == -1 and not sol.success
    assert sol.flag < 0 and sol.flag_name == "STEP_SIZE_COLLAPSED" and "blows up" in sol.message
    assert 0.5 < sol.t_last < 1 and sol.t[-1] == sol.t_last
    assert len(sol.t) > 2 and sol.y[0, -1] > 1e3
    with pytest.raises(nh.IntegrationError) as info:
        nh.simulate(system.nonholonomic(), (0, 10), [1.0, 1.0], max_steps=5000, raise_on_failure=True)
    assert info.value.result.status == -1


def test_max_steps_failure_message(sleigh):
    with pytest.warns(nh.SimulationWarning, match="max_steps = 10"):
        sol = nh.simulate(sleigh.friction(1e-6), (0, 20), Y0, max_steps=10)
    assert sol.flag_name == "CV_TOO_MUCH_WORK" and sol.status == -1


def test_wall_time_limit(sleigh):
    with pytest.warns(nh.SimulationWarning, match="max_wall_time"):
        sol = nh.simulate(sleigh.nonholonomic(), (0, 1e9), Y0, method="adams", drift_control=False,
                          rtol=1e-13, atol=1e-15, max_wall_time=0.05, max_steps=10**9)
    assert sol.flag_name == "WALL_TIME_EXCEEDED"


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery to the own process")
def test_ctrl_c_interrupts_a_long_run(sleigh):
    # the run would take hours: only the interrupt can end it, and it ends as KeyboardInterrupt (a
    # run the interrupt missed stops at max_wall_time and fails the test instead of hanging it).
    # Ctrl-C as in a terminal: a process started in the background of a script ignores SIGINT.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            nh.simulate(sleigh.nonholonomic(), (0, 1e9), Y0, method="adams", drift_control=False,
                        rtol=1e-13, atol=1e-15, max_steps=10**10, max_wall_time=120)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_event_function_that_raises_fails_cleanly(sleigh):
    """The user's exception leaves simulate as itself once CVODE has returned (it used to
    become status -1 with a SimulationWarning)."""
    def bad(t, y):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        nh.simulate(sleigh.nonholonomic(), (0, 5), Y0, events=bad)


def test_models_and_systems_pickle(sleigh):
    """A model pickles as the call that made it, with the Jacobian cost it measured on its first
    BDF run (the policy's input by default): its copy takes the same steps, bit for bit, however
    loaded the machine is when the copy runs (a copy that timed itself again could choose another
    Jacobian schedule: CI's sanitizer build once did, 206 Jacobians against 57)."""
    model = sleigh.friction(1e-3)  # the factory's cached model: measured already if another test ran it
    fresh = pickle.loads(pickle.dumps(model))
    assert fresh.eps == 1e-3 and fresh.kind == "friction"
    np.testing.assert_array_equal(fresh.core.measured_jacobian_cost, model.core.measured_jacobian_cost)  # or both NaN
    t = np.linspace(0, 2, 5)
    original = nh.simulate(model, (0, 2), Y0, t_eval=t)  # the default path: the policy measures
    measured = model.core.measured_jacobian_cost
    assert np.isfinite(measured) and measured > 0
    clone = pickle.loads(pickle.dumps(model))
    assert clone.core.measured_jacobian_cost == measured
    again = nh.simulate(clone, (0, 2), Y0, t_eval=t)
    assert np.array_equal(original.y, again.y) and again.stats["n_jac"] == original.stats["n_jac"]
    assert clone.core.measured_jacobian_cost == measured  # kept, not timed again
    # the estimate instead of the measurement: the same steps in any process, measured or not
    estimated = {"jacobian_costs": "estimated"}
    assert np.array_equal(nh.simulate(fresh, (0, 2), Y0, t_eval=t, solver_options=estimated).y,
                          nh.simulate(model, (0, 2), Y0, t_eval=t, solver_options=estimated).y)
    with pytest.raises(ValueError, match="finite and positive"):
        fresh.core.keep_measured_jacobian_cost(float("nan"))


def test_dense_output_matches_t_eval_and_the_steps(sleigh):
    """sol(t) is CVODE's interpolant (CVodeGetDky): equal to the t_eval outputs to round-off,
    and between steps as accurate as the steps themselves (global error ~2e-8 at rtol 1e-10
    against a 1e-13 reference, so the interpolant may add at most a factor 2)."""
    model = sleigh.nonholonomic()
    t = np.linspace(0, 5, 41)
    sol = nh.simulate(model, (0, 5), Y0, t_eval=t, rtol=1e-10, atol=1e-12, dense_output=True)
    assert np.abs(sol.sol(t) - sol.y).max() < 1e-13
    assert sol.sol(2.5).shape == (6,)
    steps = nh.simulate(model, (0, 5), Y0, rtol=1e-10, atol=1e-12, dense_output=True)
    mid = 0.5 * (steps.t[1:] + steps.t[:-1])
    ref_steps = nh.simulate(model, (0, 5), Y0, t_eval=steps.t, rtol=1e-13, atol=1e-14)
    ref_mid = nh.simulate(model, (0, 5), Y0, t_eval=mid, rtol=1e-13, atol=1e-14)
    step_error = np.abs(steps.y - ref_steps.y).max()
    assert np.abs(steps.sol(mid) - ref_mid.y).max() < 2 * step_error
    with pytest.raises(ValueError, match=r"defined on \[0.0, 5.0\]"):
        steps.sol(6.0)
    assert nh.simulate(model, (0, 5), Y0).sol is None


def test_dense_output_backwards(sleigh):
    model = sleigh.nonholonomic()
    sol = nh.simulate(model, (5, 0), Y0, t_eval=[5, 3, 1, 0], dense_output=True, **KW)
    assert np.abs(sol.sol([5, 3, 1, 0]) - sol.y).max() < 1e-13


def test_drift_control_with_adams_projects_without_restarts(sleigh):
    """CVODE projects only with BDF: Adams' drift control is nonholo's projection of the state and
    of CVODE's history with it, no restart (test_auto_method.py); only with sensitivities is it
    refused."""
    sol = nh.simulate(sleigh.nonholonomic(), (0, 100), Y0, method="adams", drift_control=True)
    assert sol.success and sol.method == "adams" and sol.stats["n_restarts"] == 0 and sol.stats["n_proj"] > 0
    with pytest.raises(ValueError, match="drift_control=True with sensitivities needs method='bdf'"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, method="adams", drift_control=True, sensitivities=["a"])


@pytest.mark.parametrize("method", ["auto", "adams"])
def test_step_size_collapse_stops_early_with_the_reason(method):
    """x'' = 1/sqrt(1 - x) reaches x = 1 at t ~ 0.697 with finite speed; beyond, the force is NaN.
    CVODE would creep towards x = 1 until max_steps; we stop after 100 round-off steps."""
    x = sp.Symbol("x")
    system = nh.System([x], sp.Matrix([[1]]), 0, force=sp.Matrix([1 / sp.sqrt(1 - x)]), name="wall")
    with pytest.warns(nh.SimulationWarning, match="step size collapsed"):
        sol = nh.simulate(system.nonholonomic(), (0, 10), [0.0, 1.0], method=method)
    assert sol.flag_name == "STEP_SIZE_COLLAPSED" and 0.69 < sol.t_last < 0.70
    assert "not finite" in sol.message and len(sol.t) < 1000


def test_adams_at_the_edge_of_the_domain_names_its_fixed_point_iteration():
    """The wall x'' = 1/sqrt(1 - x) with a second, free coordinate: Adams ends at t ~ 0.697 with
    CV_CONV_FAILURE, and the message names its fixed-point iteration (BDF's is Newton's)."""
    x, y = sp.symbols("x y")
    system = nh.System([x, y], sp.eye(2), force=[1 / sp.sqrt(1 - x), 0], name="wall")
    with pytest.warns(nh.SimulationWarning):
        sol = nh.simulate(system.nonholonomic(), (0, 5), [0.0, 0.0, 1.0, 0.0], method="adams")
    assert sol.flag_name == "CV_CONV_FAILURE" and 0.69 < sol.t_last < 0.70
    assert "the fixed-point iteration failed" in sol.message and "Newton" not in sol.message
    assert "not finite (component 2)" in sol.message
    with pytest.warns(nh.SimulationWarning, match="step size collapsed"):  # the default
        sol = nh.simulate(system.nonholonomic(), (0, 5), [0.0, 0.0, 1.0, 0.0])
    assert sol.flag_name == "STEP_SIZE_COLLAPSED" and 0.69 < sol.t_last < 0.70


def test_adams_on_a_stiff_model_advises_bdf(sleigh):
    with pytest.warns(nh.SimulationWarning, match="this model is stiff: use method='bdf'"):
        nh.simulate(sleigh.friction(1e-6), (0, 20), Y0, max_steps=10, method="adams")


def test_dense_output_covers_the_run_not_its_outputs():
    """sol is defined from t_span[0] to t_last, whatever t_eval holds (x = sin t, y = 1 - cos t,
    theta = t on a knife edge). Before, it started at the first stored time: from t0 = 2 with
    t_eval=[] it claimed [0, 10] and extrapolated sol(0.5) 1.05 off; with t_eval=[5, 10] it refused
    t = 1; a backward run refused 9.5; a terminal event left it defined past t_last."""
    x, y, th = sp.symbols("x y theta")
    knife = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=[[sp.sin(th), -sp.cos(th), 0]])
    model = knife.nonholonomic()

    def exact(t):
        return np.array([np.sin(t), 1 - np.cos(t), t, np.cos(t), np.sin(t), 1.0])

    tight = dict(dense_output=True, rtol=1e-10, atol=1e-12)
    late = nh.simulate(model, (2, 10), exact(2.0), t_eval=[], **tight)
    assert (late.sol.t_min, late.sol.t_max) == (2.0, 10.0)
    np.testing.assert_allclose(late.sol(2.5), exact(2.5), atol=1e-8)
    with pytest.raises(ValueError, match=r"defined on \[2.0, 10.0\]"):
        late.sol(0.5)
    early = nh.simulate(model, (0, 10), exact(0.0), t_eval=[5, 10], **tight)
    np.testing.assert_allclose(early.sol(1.0), exact(1.0), atol=1e-8)
    backward = nh.simulate(model, (10, 0), exact(10.0), t_eval=[8, 4, 0], **tight)
    np.testing.assert_allclose(backward.sol(9.5), exact(9.5), atol=1e-8)
    stopped = nh.simulate(model, (0, 10), exact(0.0), events=nh.Event(th - 2, terminal=True), **tight)
    assert stopped.sol.t_max == stopped.t_last == pytest.approx(2.0, abs=1e-9)
