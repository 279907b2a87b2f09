"""compile="auto" in a single run: the tapes are built in the background once the run has lasted
long enough and swapped into the running integration; the result is the same bit for bit."""

import time

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core
from nonholo.expressions import compiled
from nonholo.integrate import hot_compile

def chain_run(compile):
    """A platoon of 6 robots realized by friction, oscillating for 300 s: about 69 000 BDF steps, a
    run of about a second on the project's 2-core machine. The waits the tests below set (up to 0.2 s
    after the start) must fall well inside it: over 100 s (22 000 steps) the run took 0.24-0.33 s,
    and a fast moment of the machine ended it before the build was due. The runs weigh the Jacobian's
    estimated cost: each model of its own would measure it apart (the default), and the Jacobian
    policy could then choose other steps for the reference than for the compiled run."""
    system = nh.systems.platoon(6)  # a system of its own: its tapes start interpreted
    model = system.friction(1e-4)
    y0 = system.initial_state(perturbation=0.1)
    return model, nh.simulate(model, (0.0, 300.0), y0, rtol=1e-9, atol=1e-11, compile=compile,
                              solver_options={"jacobian_costs": "estimated"})


def test_the_swap_during_a_run_changes_no_bit(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    warm, _ = chain_run(False)
    compiled.compile_tapes(warm.core, tuple(warm.core.rhs_tapes))  # the cache now holds them: loading is cheap
    finished = []
    original = hot_compile.compile_tapes

    def recorded(core, tapes):
        original(core, tapes)
        finished.append(time.perf_counter())

    monkeypatch.setattr(hot_compile, "compile_tapes", recorded)
    reference_model, reference = chain_run(False)
    start = time.perf_counter()
    model, result = chain_run("auto")
    end = time.perf_counter()
    assert not _core.tape_compiled(reference_model.core, "dynamics")
    assert _core.tape_compiled(model.core, "dynamics")
    assert len(finished) == 1 and start < finished[0] < end, "the kernels were attached during the run"
    assert np.array_equal(result.y, reference.y) and np.array_equal(result.t, reference.t)
    counters = lambda stats: {k: repr(v) for k, v in stats.items() if k != "cpu_time"}  # noqa: E731
    assert counters(result.stats) == counters(reference.stats)


def test_a_short_run_compiles_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))  # empty: a build would take seconds
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    nh.simulate(model, (0, 0.1), [0, 0, 0, 1, 0, 1], compile="auto")
    time.sleep(0.05)
    assert not any(_core.tape_compiled(model.core, t) for t in model.core.rhs_tapes)
    assert hot_compile.pending() == 0  # the run's wait was forgotten when it ended


def test_the_delay_follows_the_cost_model(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    model = nh.systems.knife_edge_chain(4).nonholonomic()
    delay, tapes = compiled.hot_delay(model.core)
    sizes = [_core.diagnostics.tape_size(model.core, t)[0] for t in tapes]
    assert set(tapes) == set(model.core.rhs_tapes)
    assert delay == pytest.approx(compiled.BUILD_NS_PER_INSTRUCTION * max(sizes) * 1e-9 / compiled.SAVED_FRACTION)
    compiled.compile_tapes(model.core, tapes)
    assert compiled.hot_delay(model.core) is None  # nothing left to compile
    other = nh.systems.knife_edge_chain(4).nonholonomic()  # the same tapes, now in the cache
    delay, _ = compiled.hot_delay(other.core)
    assert delay == pytest.approx(compiled.load_cost_ns(sizes) * 1e-9 / compiled.SAVED_FRACTION)
    assert compiled.hot_earliest(other.core) == delay  # what a run waits before it looks at the cache


def test_compile_option_is_checked():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    with pytest.raises(ValueError, match="compile must be True, False or 'auto'"):
        nh.simulate(model, (0, 1), [0, 0, 0, 1, 0, 1], compile="always")


def test_the_environment_can_switch_automatic_compiling_off(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    model = nh.systems.knife_edge_chain(3).nonholonomic()
    assert compiled.hot_delay(model.core) is not None
    monkeypatch.setenv("NONHOLO_AUTO_COMPILE", "0")
    assert compiled.hot_delay(model.core) is None
    assert compiled.auto_compile(model.core, n_rhs=1e9) is False  # would pay, but is switched off


def test_a_build_waits_for_the_delay_the_cache_sets(tmp_path, monkeypatch):
    """The three waits of a run: the fixed first one, the earliest delay (tapes' sizes), the delay
    (the cache asked); the build starts after the last, and the bits stay the interpreter's."""
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    asked, started = [], []
    original_build = hot_compile.HotCompile._build
    monkeypatch.setattr(hot_compile, "hot_earliest", lambda core: asked.append(time.perf_counter()) or 0.05)
    monkeypatch.setattr(hot_compile, "hot_delay",
                        lambda core: asked.append(time.perf_counter()) or (0.2, tuple(core.rhs_tapes)))
    monkeypatch.setattr(hot_compile.HotCompile, "_build",
                        staticmethod(lambda core, tapes: started.append(time.perf_counter())
                                     or original_build(core, tapes)))
    reference_model, reference = chain_run(False)
    start = time.perf_counter()
    model, result = chain_run("auto")
    assert len(asked) == 2 and len(started) == 1
    assert start + hot_compile._FIRST_DELAY <= asked[0] < asked[1] and start + 0.05 <= asked[1]
    assert start + 0.2 <= started[0]
    assert np.array_equal(result.y, reference.y) and np.array_equal(result.t, reference.t)
    assert hot_compile.pending() == 0


def test_a_failing_decision_warns_and_later_runs_still_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    monkeypatch.setattr(hot_compile, "_FIRST_DELAY", 0.0)

    def broken(core):
        raise OSError("cache unreadable")

    monkeypatch.setattr(hot_compile, "hot_earliest", broken)
    with pytest.warns(RuntimeWarning, match="cache unreadable"):
        _, result = chain_run("auto")
        time.sleep(0.05)  # the warning comes from the scheduler's thread, early in the run
    assert result.success
    monkeypatch.undo()
    assert hot_compile._scheduler._thread.is_alive()  # it survived, and serves the next runs
