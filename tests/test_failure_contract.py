"""A run that fails once started returns status -1 with its message and a SimulationWarning, or
raises IntegrationError with raise_on_failure=True, and nothing else, whatever the failure, the
method and the outputs asked for; the failure diagnosis integrates nothing again (it once called
simulate from the failure state, 1e-9 off the constraints, and raised a ValueError about a y0 the
user never passed)."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import roller_racer


RACER = roller_racer()
Q0 = np.array([0.0, 0.0, 0.0, 0.6])
RACER_Y0 = np.r_[Q0, RACER.project(Q0, np.array([1.0, 0.0, 0.0, 0.0]))]
X = sp.Symbol("x")


def _outcome(model, t_span, y0, raise_on_failure, **kw):
    """('status', result, warnings) or ('raised', exception, warnings); anything else propagates."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return "status", nh.simulate(model, t_span, y0, raise_on_failure=raise_on_failure, **kw), caught
        except nh.IntegrationError as exc:
            return "raised", exc, caught


def test_adams_reaching_max_steps_between_samples_is_a_status_not_a_value_error():
    """The reproducer: the last sample of t_eval before the failure is ~2e-10 off the constraints."""
    model = RACER.nonholonomic()
    t_eval = np.linspace(0, 1e4, 100_001)
    kind, sol, caught = _outcome(model, (0, 1e4), RACER_Y0, False, method="adams", max_steps=2000, t_eval=t_eval)
    assert kind == "status" and sol.status == -1 and sol.flag_name == "CV_TOO_MUCH_WORK"
    assert "max_steps = 2000" in sol.message and len(caught) == 1
    assert sol.t[-1] <= sol.t_last and sol.stats["n_steps"] == 2000
    kind, exc, _ = _outcome(model, (0, 1e4), RACER_Y0, True, method="adams", max_steps=2000, t_eval=t_eval)
    assert kind == "raised" and exc.result.status == -1 and "max_steps" in str(exc)


def _cases():
    sqrt_force = nh.System([X], sp.Matrix([[1]]), force=sp.Matrix([sp.sqrt(X)])).nonholonomic()
    singular_metric = nh.System([X], sp.Matrix([[X]]), force=sp.Matrix([-1])).nonholonomic()
    x_dot = sp.Symbol("x_dot")
    blow_up = nh.System([X], sp.Matrix([[1]]), force=sp.Matrix([x_dot**2]), velocities=[x_dot]).nonholonomic()
    sleigh = nh.systems.chaplygin_sleigh().nonholonomic()
    return {
        "max_steps": (RACER.nonholonomic(), (0, 100), RACER_Y0, dict(max_steps=50)),
        "wall time": (RACER.nonholonomic(), (0, 1e7), RACER_Y0, dict(max_wall_time=0.02, rtol=1e-12, atol=1e-14)),
        "NaN right-hand side later": (sqrt_force, (0, 5), [0.5, -1.0], {}),
        "NaN right-hand side at y0": (sqrt_force, (0, 5), [-1.0, 0.0], {}),
        "singular metric": (singular_metric, (0, 5), [1.0, -1.0], {}),
        "step too small (blow-up)": (blow_up, (0, 5), [0.0, 1.0], {}),
        "event not finite": (sleigh, (0, 5), [0, 0, 0, 1, 0, 1], dict(events=nh.Event(sp.log(X - 0.5)))),
        "friction max_steps, t_eval without t0": (nh.systems.chaplygin_sleigh().friction(1e-3), (0, 10),
                                                  [0, 0, 0, 1, 0.5, 1], dict(max_steps=30, t_eval=[5.0, 10.0])),
    }


@pytest.mark.parametrize("case", list(_cases()))
@pytest.mark.parametrize("method", ["auto", "adams", "bdf", "dop853"])
def test_every_failure_is_a_status_or_an_integration_error(case, method):
    model, t_span, y0, kw = _cases()[case]
    if method == "dop853" and model.kind == "friction":
        return  # refused before the run (ValueError): dop853 has no stiff models
    for t_eval in ([kw["t_eval"]] if "t_eval" in kw else [None, np.linspace(t_span[0], t_span[1], 7)[1:]]):
        options = {**kw, "t_eval": t_eval}
        kind, sol, caught = _outcome(model, t_span, y0, False, method=method, **options)
        assert kind == "status" and sol.status == -1 and sol.message and "t = " in sol.message, case
        assert [str(w.message) for w in caught if issubclass(w.category, nh.SimulationWarning)] == [sol.message]
        kind, exc, _ = _outcome(model, t_span, y0, True, method=method, **options)
        assert kind == "raised" and exc.result.status == -1, case
        if case.startswith("friction"):  # a budget that ran out is not explained as an initial layer
            assert "initial layer" not in sol.message and "max_steps" in sol.message


def test_a_zero_at_t0_is_not_an_event_but_later_crossings_are():
    """The documented rule (CVODE's; solve_ivp would report t0): g(t0) = 0 is not reported, and a
    terminal event does not stop the run there."""
    sleigh = nh.systems.chaplygin_sleigh()
    g = sp.sin(sp.pi * sleigh.time)
    for method in ("auto", "adams", "bdf", "dop853"):
        every = nh.simulate(sleigh.nonholonomic(), (0, 2.5), [0, 0, 0, 1, 0, 0.5], events=nh.Event(g), method=method)
        assert every.t_events[0] == pytest.approx([1.0, 2.0], abs=1e-9)
        stop = nh.simulate(sleigh.nonholonomic(), (0, 2.5), [0, 0, 0, 1, 0, 0.5], events=nh.Event(g, terminal=True),
                           method=method)
        assert stop.status == 1 and stop.t_last == pytest.approx(1.0, abs=1e-9)
        called = nh.simulate(sleigh.nonholonomic(), (0, 2.5), [0, 0, 0, 1, 0, 0.5],
                             events=lambda t, y: np.sin(np.pi * t), method=method)
        assert called.t_events[0] == pytest.approx([1.0, 2.0], abs=1e-9)


def test_friction_at_an_eps_beyond_double_precision_names_eps():
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.warns(nh.SimulationWarning) as caught:
        sol = nh.simulate(sleigh.friction(1e-300), (0, 1), [0, 0, 0, 1, 0.5, 1])
    assert sol.status == -1 and "eps = 1e-300" in sol.message and "system.nonholonomic()" in sol.message
    assert "nan" not in sol.message.lower() and len(caught) == 1


def test_the_diagnosis_runs_nothing_and_builds_no_model(monkeypatch):
    """A failed run is explained from what the run reported: simulate is entered once, and no
    model is built after the run (the friction model's initial layer, explained from y0 and the
    system's point geometry; the snakeboard-like constraint singularity from the core's y_last)."""
    from nonholo.integrate import simulation

    sleigh = nh.systems.chaplygin_sleigh()
    model, racer = sleigh.friction(1e-14), RACER.nonholonomic()
    calls = []
    original = simulation.simulate

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    def no_model(*args, **kwargs):
        raise AssertionError("the failure diagnosis built a model")

    monkeypatch.setattr(simulation, "simulate", counting)
    for factory in ("nonholonomic", "friction", "reduced"):
        monkeypatch.setattr(type(sleigh), factory, no_model)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        sol = simulation.simulate(model, (0, 10), [0.0, 0.0, 0.0, 1.0, 0.5, 1.0])
    assert len(calls) == 1 and sol.status == -1 and "initial layer" in sol.message
    # the default contract with the failure the issue reported (Adams at its step budget)
    kind, sol, caught = _outcome(racer, (0, 1e4), RACER_Y0, False, method="adams", max_steps=500)
    assert kind == "status" and sol.status == -1 and len(caught) == 1 and len(calls) == 1
