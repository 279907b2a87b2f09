"""nh.fit says when a bound holds an estimate, and refuses weights that leave nothing to fit.

An outside probe fitted a = 0.3 with bounds (0.35, 0.5): "success", a = 0.35000000000000003, a
standard error of 0.0084 and the message "`xtol` termination condition is satisfied", nothing
saying that the bound, not the data, fixed the estimate. And weights=0.0 gave "parameter a must be
finite, got nan (at the trial point {'a': nan} of the fit)", blaming a trial point."""

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import OptimizeWarning

import nonholo as nh

x, v, c = sp.symbols("x v c")


@pytest.fixture(scope="module")
def damped():
    """x'' = -c x' (c = 0.3), observed x at 21 times with noise 1e-3."""
    system = nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([-c * v]), parameters={c: 0.3}, velocities=[v])
    model, t = system.nonholonomic(), np.linspace(0, 4, 21)
    data = nh.simulate(model, (0, 4), [0, 1], t_eval=t)["x"] + 1e-3 * np.random.default_rng(1).standard_normal(21)
    return model, t, data[None, :]


def test_an_estimate_held_at_a_bound_is_named(damped):
    model, t, data = damped
    with pytest.warns(OptimizeWarning, match=r"stop at a bound: c = 0\.35 at its lower bound"):
        held = nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"], bounds=(0.35, 0.5))
    assert held.at_bounds == ["c"] and held.params["c"] == pytest.approx(0.35, abs=1e-9)
    assert "not an interior one" in held.message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default (no bounds): an interior minimum, no note
        free = nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"])
    assert free.at_bounds == [] and abs(free.params["c"] - 0.3) < 5 * free.stderr["c"]
    inside = nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"], bounds=(0.1, 0.5))  # not binding: no note
    assert inside.at_bounds == [] and inside.params["c"] == pytest.approx(free.params["c"], rel=1e-6)


def test_weights_that_are_all_zero_are_refused_by_name(damped):
    model, t, data = damped
    with pytest.raises(ValueError, match="weights are all zero"):
        nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"], weights=0.0)
    two = np.zeros_like(data)
    two[0, [10, 20]] = 1.0  # two observations left: still a fit
    assert nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"], weights=two).success


def test_an_observe_callable_that_raises_mid_fit_keeps_what_the_fit_found(damped):
    model, t, data = damped
    calls = []

    def observe(sol):
        calls.append(sol.params["c"])
        if len(calls) == 3:
            raise RuntimeError("the user's observation failed")
        return sol["x"][None, :], sol.sensitivities[0].T  # d x / d c at the 21 times: (21, 1)

    with pytest.raises(RuntimeError, match="the user's observation failed") as info:
        nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=observe)
    assert any("raised by the observe callable at the trial point {'c':" in note for note in info.value.__notes__)
    assert info.value.partial is not None and info.value.partial["c"] in calls[:2]  # a FitProgress: name -> value


def test_weights_that_leave_only_observations_blind_to_a_parameter_are_refused_by_name(damped):
    """Only the observation at t = 0 left, x(0) = y0's x whatever c: the fit ran into NaN trial points and
    blamed {'c': nan} (a second-round probe)."""
    model, t, data = damped
    first = np.zeros_like(data)
    first[0, 0] = 1.0
    with pytest.raises(ValueError, match=r"do not depend on \['c'\] at the starting point"):
        nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"], weights=first)


def test_a_bound_just_beyond_an_interior_optimum_holds_nothing(damped):
    """A bound set 1e-9 beyond the unconstrained optimum: the fit stops a few 1e-9 inside it, where the
    gradient is noise; it was reported as held, "the cost falls beyond it" (a second-round probe)."""
    model, t, data = damped
    free = nh.fit(model, t, data, {"c": 0.4}, [0, 1], observe=["x"])
    c = free.params["c"]
    for bounds in ((0.0, c + 1e-9), (c - 1e-9, 1.0)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            near = nh.fit(model, t, data, {"c": 0.2 if bounds[1] < 1 else 0.4}, [0, 1], observe=["x"], bounds=bounds)
        assert near.at_bounds == [] and abs(near.params["c"] - c) < 1e-8
