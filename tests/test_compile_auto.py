"""compile="auto" (simulate_many's default): the tapes, bit for bit the interpreter's, are compiled
before the batch exactly when the cost model predicts a gain, and the results are the bits of
compile=False whichever way it decides."""

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core
from nonholo.expressions import compiled

pytestmark = pytest.mark.slow  # compiles C kernels


def _sleigh_batch(n_runs=6):
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    rng = np.random.default_rng(31)
    Y0 = []
    for _ in range(n_runs):
        q = rng.uniform(-0.5, 0.5, 3)
        v = model.system.project(q, rng.uniform(-1, 1, 3), 0.0)
        Y0.append(np.r_[q, v])
    return model, np.array(Y0)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path))
    return tmp_path


def test_auto_gives_the_bits_of_false_when_it_compiles(cache):
    # about 140 000 right-hand sides of 39 instructions, two at a time: they save twice what loading
    # the tapes costs (a millisecond)
    model, Y0 = _sleigh_batch(200)
    reference = nh.simulate_many(model, (0, 200), Y0, compile=False)
    assert not model.compiled
    nh.systems.chaplygin_sleigh().nonholonomic().compile(fuse=False)  # the cache holds the tapes: loading pays
    auto_model, _ = _sleigh_batch(200)
    results = nh.simulate_many(auto_model, (0, 200), Y0)  # compile="auto" is the default
    assert auto_model.compiled
    tapes = auto_model.core.tape_names  # never the fused right-hand side (equal to rounding only)
    assert "rhs" not in tapes or not _core.tape_compiled(auto_model.core, "rhs")
    for a, b in zip(reference, results):
        assert a.status == b.status == 0
        assert np.array_equal(a.t, b.t) and np.array_equal(a.y, b.y)


def test_auto_does_not_build_for_a_short_batch(cache):
    model, Y0 = _sleigh_batch(3)
    reference = nh.simulate_many(model, (0, 0.5), Y0, compile=False)
    auto_model, _ = _sleigh_batch(3)
    results = nh.simulate_many(auto_model, (0, 0.5), Y0, compile="auto")
    assert not auto_model.compiled  # a few hundred right-hand sides never repay the C compiler
    assert not list(cache.glob("*.so"))
    for a, b in zip(reference, results):
        assert np.array_equal(a.y, b.y)
    # with a progress bar the first run goes alone too, and the parts after it keep the order
    shown = nh.simulate_many(auto_model, (0, 0.5), Y0, progress=True)
    assert all(np.array_equal(a.y, b.y) for a, b in zip(reference, shown))


def test_the_rule_at_both_sides_of_its_threshold(cache):
    core = nh.systems.chaplygin_sleigh().nonholonomic().core
    sizes = [_core.diagnostics.tape_size(core, which)[0] for which in core.rhs_tapes]
    # the right-hand sides that repay the build (of the largest tape: they build side by side)
    ratio = compiled.BUILD_NS_PER_INSTRUCTION * max(sizes) / (compiled.SAVED_NS_PER_INSTRUCTION * sum(sizes))
    assert not compiled.auto_compile(core, 0.99 * ratio * 2, parallel=2)
    assert not any(_core.tape_compiled(core, t) for t in core.rhs_tapes)
    assert compiled.auto_compile(core, 1.01 * ratio * 2, parallel=2)
    assert all(_core.tape_compiled(core, t) for t in core.rhs_tapes)
    # cached now: a fresh system's tapes load for far fewer right-hand sides, but not for none
    fresh = nh.systems.chaplygin_sleigh().nonholonomic().core
    load = compiled.load_cost_ns(sizes) / (compiled.SAVED_NS_PER_INSTRUCTION * sum(sizes))
    assert not compiled.auto_compile(fresh, 0.99 * load)
    assert compiled.auto_compile(fresh, 1.01 * load)


def test_compile_true_and_bad_values(cache):
    model, Y0 = _sleigh_batch(2)
    nh.simulate_many(model, (0, 0.5), Y0, compile=True)
    assert model.compiled
    with pytest.raises(ValueError, match="compile must be True, False or 'auto'"):
        nh.simulate_many(model, (0, 0.5), Y0, compile="yes")


def test_fit_and_eigenvalue_path_are_the_same_with_auto(cache):
    y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]
    t = np.linspace(0.5, 6, 12)
    truth = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic()
    data = nh.simulate(truth, (0, 6), y0, t_eval=t, params={"a": 0.3, "I": 1.4}).y[:2]
    fits = {}
    for compile in (False, "auto"):
        model = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic()
        if compile == "auto":  # the cache holds the tapes: the fit's right-hand sides repay loading them
            nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic().compile(fuse=False)
        fits[compile] = nh.fit(model, t, data, params={"a": 0.2, "I": 1.0}, y0=y0, observe=["x", "y"],
                               t_span=(0, 6), compile=compile)
        assert model.compiled == (compile == "auto")
    assert np.array_equal(fits[False].x, fits["auto"].x) and fits[False].nfev == fits["auto"].nfev
    assert np.array_equal(fits[False].simulation.y, fits["auto"].simulation.y)

    model = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic()
    paths = [nh.eigenvalue_path(model, "a", [0.1, 0.2, 0.3], [0, 0, 0, 1.0, 0, 0], compile=c) for c in (False, "auto")]
    assert np.array_equal(paths[0].eigenvalues, paths[1].eigenvalues)
    with pytest.raises(ValueError, match="compile must be"):
        nh.eigenvalue_path(model, "a", [0.1, 0.2], [0, 0, 0, 1.0, 0, 0], compile="always")
