"""The options of a run cross the binding as one object, ``_core.RunOptions`` (issue 42), converted
and checked once in C++ (check_options): every unusable option is refused when the object is made,
with a message naming it, and a run through it is the run ``simulate`` makes with the same
options, bit for bit."""

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core


def test_defaults_are_simulates():
    options = _core.RunOptions()
    assert (options.rtol, options.atol, options.method) == (1e-8, [1e-10], "auto")
    assert (options.max_step, options.first_step, options.max_steps, options.max_wall_time) == (0.0, 0.0, 500000, 0.0)
    assert options.project and not options.dense_output and options.n_sensitivities == 0
    given = _core.RunOptions(rtol=1e-6, atol=[1e-9, 1e-8], method="BDF", max_steps=7, project=False,
                             solver_options={"dense_output": True})
    assert (given.rtol, given.atol, given.method, given.max_steps) == (1e-6, [1e-9, 1e-8], "bdf", 7)
    assert not given.project and given.dense_output


@pytest.mark.parametrize("bad, name", [
    (dict(rtol=0.0), "rtol"), (dict(rtol=float("nan")), "rtol"), (dict(atol=-1.0), "atol"), (dict(atol=[]), "atol"),
    (dict(max_steps=0), "max_steps"), (dict(method="rk4"), "method"), (dict(max_step=-1.0), "max_step"),
    (dict(solver_options={"max_order": 13}), "max_order"), (dict(solver_options={"no_such_key": 1}), "no_such_key"),
    (dict(solver_options={"unit_norm": [([], [])]}), "unit_norm"),
])
def test_an_unusable_option_is_refused_by_name(bad, name):
    with pytest.raises(ValueError, match=name):
        _core.RunOptions(**bad)


def test_the_model_dependent_checks_run_with_the_model():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    options = _core.RunOptions(atol=[1e-10, 1e-10])  # 2 entries for 6 states
    with pytest.raises(ValueError, match=r"atol must be a scalar or have one entry per state \(6\)"):
        _core.integrate(model.core, model.param_vector(), 0.0, 1.0, [0, 0, 0, 1, 0, 1], None, [], options)


def test_a_run_through_the_object_is_simulates():
    model = nh.systems.chaplygin_sleigh().friction(1e-3)
    y0 = np.array([0, 0, 0, 1, 0.5, 1.0])
    t_eval = np.linspace(0, 2, 5)
    sol = nh.simulate(model, (0, 2), y0, rtol=1e-7, atol=1e-9, method="bdf", t_eval=t_eval)
    raw = _core.integrate(model.core, model.param_vector(), 0.0, 2.0, y0, t_eval, [],
                          _core.RunOptions(rtol=1e-7, atol=1e-9, method="bdf"))
    assert np.array_equal(raw["y"], sol.y) and raw["stats"]["n_steps"] == sol.stats["n_steps"]
    runs = _core.integrate_many(model.core, np.tile(model.param_vector(), 2), 0.0, 2.0, np.tile(y0, 2), 2, t_eval, [],
                                _core.RunOptions(rtol=1e-7, atol=1e-9, method="bdf"))
    assert all(np.array_equal(run["y"], sol.y) for run in runs)


def test_python_and_the_core_check_solver_options_against_one_list():
    """The keys of solver_options are listed once, in the core (_core.solver_option_keys); Python's
    checks (nonholo.options) read that list: every key either side takes, the other takes with the
    same value, the bounds refuse the same values, and an unknown key is refused by both with the
    same list of known keys."""
    from nonholo import options as check

    keys = _core.solver_option_keys()
    assert set(keys) == set(check.CVODE_KNOBS) | set(check.PASSED_THROUGH)
    assert {"max_order", "jacobian_frequency", "unit_norm"} <= set(keys) and "dense_output" not in keys
    assert keys["jacobian_costs"][:2] == ("choice", ("measured", "estimated"))
    samples = {"int": lambda low, high: int(high) if high is not None else int(low) + 4,
               "float": lambda low, high: low + 0.5}
    for name, (kind, low, high) in keys.items():
        if kind == "choice":  # every string it lists, on both sides; any other value refused by both
            for value in low:
                assert check.cvode_knobs({name: value}) == {name: value}
                _core.RunOptions(solver_options={name: value})
            for wrong in ("no_such_choice", 1, None):
                with pytest.raises(ValueError, match=name):
                    check.cvode_knobs({name: wrong})
                with pytest.raises(ValueError, match=name):
                    _core.RunOptions(solver_options={name: wrong})
            continue
        value = [([0, 1], [3, 4])] if kind == "pairs" else samples[kind](low, high)
        assert check.cvode_knobs({name: value}) == {name: value}
        _core.RunOptions(solver_options={name: value})  # the core takes it too
        if kind in samples:
            below = low - 1 if kind == "int" else low  # a float must exceed its low bound
            with pytest.raises(ValueError, match=name):
                check.cvode_knobs({name: below})
            if high is not None:
                above = int(high) + 1 if kind == "int" else 2 * high
                with pytest.raises(ValueError, match=name):
                    check.cvode_knobs({name: above})
                with pytest.raises(ValueError, match=name):
                    _core.RunOptions(solver_options={name: above})
    known = "known: " + ", ".join(keys)
    with pytest.raises(ValueError, match=known):
        check.cvode_knobs({"no_such_key": 1})
    with pytest.raises(ValueError, match=known):
        _core.RunOptions(solver_options={"no_such_key": 1})
    # the default: no solver_options at all is a valid (empty) set of knobs on both sides
    assert check.cvode_knobs(None) == {} and _core.RunOptions().dense_output is False
