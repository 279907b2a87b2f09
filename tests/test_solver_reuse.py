"""Runs reuse CVODE instances and model workspaces (the set-up cost of a call), bit for bit.

Each thread keeps the CVODE instances of its finished runs and the next run of the same kind
re-initializes one (cpp/src/integrate/solver_pool.cpp, SolverPool); each model keeps idle workspaces
(Model::borrow_workspace). A run must not see its predecessors: whatever ran before on the
thread (a failed run, other options, other parameters, events, another method), a run equals,
to the last bit, the same run as the first one on a new thread (a fresh CVODE instance).
"""

import threading
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def on_new_thread(fn):
    """fn() as the first integration on a thread of its own: a fresh CVODE instance."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # re-raised on the calling thread
            out["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def assert_same_run(a, b):
    assert a.status == b.status and a.message == b.message and a.method == b.method
    assert np.array_equal(a.t, b.t) and np.array_equal(a.y, b.y)
    counters = ("n_steps", "n_rhs", "n_jac", "n_lin_setups", "n_err_test_fails", "n_nonlin_iters", "n_proj",
                "n_restarts")
    assert {k: a.stats[k] for k in counters} == {k: b.stats[k] for k in counters}
    assert len(a.t_events) == len(b.t_events)
    for ta, tb in zip(a.t_events, b.t_events):
        assert np.array_equal(ta, tb)


@pytest.fixture(scope="module")
def sleigh_runs():
    system = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    y0 = np.array([0.0, 0.0, 0.0, -1.5, 0.0, 1.0])
    return system, y0


# (model, keyword arguments) of a reference run, each exercising one path of the integrator:
# BDF with the Jacobian policy (friction), Adams with drift-control restarts and BDF with
# CVODE's projection (nonholonomic)
REFERENCES = {
    "friction bdf": ("friction", dict()),
    "nonholonomic adams": ("nonholonomic", dict(method="adams")),
    "nonholonomic bdf": ("nonholonomic", dict(method="bdf")),
}

# what runs before the reference on the same thread: failures and every option that sets a
# knob of the CVODE instance
BEFORE = {
    "failure at max_steps": dict(max_steps=5),
    "failure at a singular step": dict(max_step=1e-300, max_steps=50),
    "other options": dict(max_step=0.01, first_step=1e-5, atol=np.full(6, 1e-7), rtol=1e-5,
                          solver_options=dict(max_order=2, max_nonlinear_iterations=7, nonlinear_convergence=0.5,
                                              jacobian_frequency=3, setup_frequency=2)),
    "events and dense output": dict(events=[nh.Event("x - 0.1", terminal=2)], dense_output=True),
    "no drift control": dict(drift_control=False),
    "other parameters": dict(params={"a": 0.3}),
}


def model_of(system, kind):
    return system.friction(1e-3) if kind == "friction" else system.nonholonomic()


@pytest.mark.parametrize("reference", sorted(REFERENCES))
def test_a_run_equals_a_fresh_one_whatever_ran_before(sleigh_runs, reference):
    system, y0 = sleigh_runs
    kind, kwargs = REFERENCES[reference]
    model = model_of(system, kind)

    def run():
        return nh.simulate(model, (0.0, 3.0), y0, **kwargs)

    fresh = on_new_thread(run)

    def after_each():
        out = {}
        for name, before in BEFORE.items():
            for method in ("bdf", "adams"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", nh.SimulationWarning)
                    nh.simulate(model, (0.0, 3.0), y0, **{"method": method, **before})
            out[name] = run()
        return out

    for name, result in on_new_thread(after_each).items():
        assert_same_run(result, fresh), name
    assert fresh.success and fresh.stats["n_steps"] > 20


def test_failed_runs_before_fail_as_they_do_fresh(sleigh_runs):
    system, y0 = sleigh_runs
    model = system.friction(1e-3)

    def failing():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", nh.SimulationWarning)
            return nh.simulate(model, (0.0, 3.0), y0, max_steps=5)

    fresh = on_new_thread(failing)
    again = on_new_thread(lambda: [failing() for _ in range(3)])
    assert fresh.status == -1 and "max_steps" in fresh.message
    for result in again:
        assert_same_run(result, fresh)


def test_a_run_after_an_exception_in_an_event_function(sleigh_runs):
    """An event function that raises ends its run with the exception (CVODE left mid-step);
    the next run on the thread is still a fresh one."""
    system, y0 = sleigh_runs
    model = system.nonholonomic()

    def run():
        return nh.simulate(model, (0.0, 3.0), y0, method="bdf")

    def failing_event(t, y):
        if t > 0.5:
            raise ArithmeticError("stop here")
        return 1.0

    def after_the_exception():
        with pytest.raises(ArithmeticError, match="stop here"):
            nh.simulate(model, (0.0, 3.0), y0, method="bdf", events=[failing_event])
        return run()

    assert_same_run(on_new_thread(after_the_exception), on_new_thread(run))


def test_changed_parameters_are_used(sleigh_runs):
    """The reused instance and workspace integrate the new parameters: a = 0.3 after a = 0.2
    equals a = 0.3 fresh, and differs from a = 0.2."""
    system, y0 = sleigh_runs
    model = system.friction(1e-3)

    def run(a):
        return nh.simulate(model, (0.0, 2.0), y0, params={"a": a})

    fresh = on_new_thread(lambda: run(0.3))
    first, second = on_new_thread(lambda: (run(0.2), run(0.3)))
    assert_same_run(second, fresh)
    assert np.abs(first.y[:, -1] - second.y[:, -1]).max() > 1e-3


def test_a_factorization_kept_in_a_lent_workspace_follows_the_parameters():
    """Reduced models keep the factorization of mu in their workspace, keyed by the parameters
    it was made with; a workspace lent again after a run with other parameters gives what a new
    model (new workspaces) gives."""
    def reduced():
        return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).reduced(1e-2, order=1)

    model = reduced()
    q = np.array([0.0, 0.0, 0.3])
    y0 = np.r_[q, model.system.project(q, np.array([1.0, 0.5, 1.0]))]

    def run(m, mu):
        return nh.simulate(m, (0.0, 2.0), y0, params={"mu": mu})

    first, second = run(model, 1.0), run(model, 3.0)
    assert_same_run(second, run(reduced(), 3.0))
    assert_same_run(run(model, 1.0), first)
    assert np.abs(first.y[:, -1] - second.y[:, -1]).max() > 1e-6


def test_simulate_many_threads_equal_serial_runs():
    system = nh.systems.knife_edge_chain(2)
    rng = np.random.default_rng(3)
    Y0 = []
    for _ in range(8):
        q = rng.normal(size=system.n)
        Y0.append(np.r_[q, system.project(q, rng.normal(size=system.n))])
    Y0 = np.array(Y0)
    for model in (system.friction(1e-3), system.nonholonomic()):
        serial = [nh.simulate(model, (0.0, 1.0), y) for y in Y0]
        for _ in range(2):  # the second batch reuses the first's instances on the same threads... or new ones
            batch = nh.simulate_many(model, (0.0, 1.0), Y0, threads=2)
            for a, b in zip(batch, serial):
                assert_same_run(a, b)


def test_python_threads_sharing_a_model_equal_serial_runs(sleigh_runs):
    """simulate from several Python threads at once on one model (the GIL is released while
    CVODE runs): each thread has its own instances, the model lends each run its own workspace."""
    system, y0 = sleigh_runs
    model = system.friction(1e-3)
    starts = [y0 * (1.0 + 0.1 * i) for i in range(4)]
    serial = [nh.simulate(model, (0.0, 2.0), y) for y in starts]
    results = [None] * len(starts)

    def work(i):
        for _ in range(5):
            results[i] = nh.simulate(model, (0.0, 2.0), starts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(starts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for a, b in zip(results, serial):
        assert_same_run(a, b)


def test_a_run_nested_in_an_event_callback(sleigh_runs):
    """A run started from inside another run's event function (same thread) leaves the outer
    run and itself as they are fresh."""
    system, y0 = sleigh_runs
    model = system.nonholonomic()
    inner_kwargs = dict(t_eval=np.linspace(0.0, 0.5, 5))

    def inner():
        return nh.simulate(system.friction(1e-3), (0.0, 0.5), y0, **inner_kwargs)

    inner_fresh = on_new_thread(inner)
    inner_results = []

    def event(t, y):
        if len(inner_results) < 3:
            inner_results.append(inner())
        return y[0] - 0.1

    def outer(callback):
        return nh.simulate(model, (0.0, 2.0), y0, events=[callback], method="bdf")

    outer_fresh = on_new_thread(lambda: outer(lambda t, y: y[0] - 0.1))
    outer_nested = on_new_thread(lambda: outer(event))
    assert_same_run(outer_nested, outer_fresh)
    assert len(inner_results) == 3
    for result in inner_results:
        assert_same_run(result, inner_fresh)


ALLOCATIONS = """
import ctypes, numpy as np, nonholo as nh
from nonholo import _core
counter = ctypes.CDLL(None).nonholo_allocation_count
counter.restype = ctypes.c_long
system = nh.systems.chaplygin_sleigh()
y0 = np.array([0, 0, 0, -1.5, 0, 1.0])
out = {}
# three kinds of instance: BDF, BDF with projection, Adams (the pool's key: method, size, projection)
for name, model, method in (("bdf", system.friction(1e-3), "bdf"), ("bdf projecting", system.nonholonomic(), "bdf"),
                            ("adams", system.nonholonomic(), "adams")):
    p, atol, t_eval = model.param_vector(), np.array([1e-10]), np.linspace(0, 0.1, 5)
    counts = []
    for _ in range(2):
        before = counter()
        _core.integrate(model.core, p, 0.0, 0.1, y0, t_eval, [], _core.RunOptions(rtol=1e-8, atol=atol, method=method))
        counts.append(counter() - before)
    out[name] = counts
print(repr(out))
"""


def test_a_second_run_of_the_same_kind_allocates_a_fraction_of_the_first(tmp_path):
    """The heap allocations of _core.integrate (a counting malloc preloaded, as in
    test_reduced_allocations.py): the first run of a kind on a thread makes its CVODE instance
    (and, the first time, the model's workspace); the next run of that kind takes them from
    the pools and makes less than half as many allocations (the output and the per-run vectors)."""
    from test_reduced_allocations import allocation_counts

    counts = allocation_counts(tmp_path, ALLOCATIONS)
    assert set(counts) == {"bdf", "bdf projecting", "adams"}
    for kind, (first, again) in counts.items():
        assert 2 * again < first, (kind, first, again)


@pytest.mark.parametrize("method", ["adams", "bdf"])
def test_an_identically_zero_event_does_not_silence_the_next_runs_event(method):
    """CVODE turns an event that is zero at t0 and just after inactive; a reused instance must not
    carry that into the next run, whose event crosses zero inside its first step (about 6e-12 here)."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    y0 = [0, 0, 0, 1, 0, 0.5]
    x = sp.Symbol("x")
    fresh = nh.simulate(model, (0, 1), y0, events=nh.Event(x - 1e-12), method=method)
    assert fresh.t_events[0] == pytest.approx([1e-12], rel=1e-6) and fresh.t[1] > 1e-12  # inside step 1
    zero = nh.simulate(model, (0, 1), y0, events=nh.Event(0 * x), method=method)
    assert zero.t_events[0].size == 0
    after = nh.simulate(model, (0, 1), y0, events=nh.Event(x - 1e-12), method=method)
    assert np.array_equal(after.t_events[0], fresh.t_events[0])
    # and one event among others keeps its place
    both = nh.simulate(model, (0, 1), y0, events=[nh.Event(0 * x), nh.Event(x - 0.5)], method=method)
    again = nh.simulate(model, (0, 1), y0, events=[nh.Event(x - 1e-12), nh.Event(x - 0.5)], method=method)
    assert both.t_events[0].size == 0 and again.t_events[0] == pytest.approx([1e-12], rel=1e-6)
    # at its place to the tolerance (rtol 1e-8): the runs' steps differ (the root at 1e-12 is a value of the
    # events' step bound), so the two agree to the integration error (0.9e-9 and 0.3e-9 off with BDF)
    exact = nh.simulate(model, (0, 1), y0, events=nh.Event(x - 0.5), rtol=1e-13, atol=1e-14).t_events[0]
    assert again.t_events[1] == pytest.approx(exact, rel=1e-8) and both.t_events[1] == pytest.approx(exact, rel=1e-8)
