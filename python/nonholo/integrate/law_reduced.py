"""The run of a reduced model of a nonlinear friction law: the C++ model
(:class:`nonholo.models.law_core.CoreLawReducedModel`, the default) by ``nh.simulate`` on its vector
field with the fold margin as a terminal event, or the Python reference
(:class:`nonholo.models.law_reduced.LawReducedModel`) by SciPy's DOP853; either way the friction
ratio of each contact at the output times (``result.friction_ratio``), a SimulationWarning where it
exceeds ``RATIO_THRESHOLD`` and a stop where it reaches ``RATIO_STOP``, short of the fold of the slow
manifold."""

from __future__ import annotations

import time
import warnings

import numpy as np

from .. import options as check
from ..errors import IntegrationError, SimulationWarning
from ..models import validity
from ..models.law_reduced import RATIO_STOP, RATIO_THRESHOLD, LawReducedModel
from ..system.law_slow_manifold import FoldError
from ..system.margins import loads_at_start
from .events import Event
from .result import SimulationResult

__all__ = ["run_law_reduced"]


def _start(model, t_span, y0, params, project_y0: bool, ratio) -> tuple:
    """(t0, tf, y0, p): y0 checked (u on the constraint set, or projected onto it), and inside the cone
    (``ratio(t0, y0, p)``: the friction ratio per contact)."""
    system, n = model.system, model.system.n
    t0, tf = check.t_span(t_span)
    p = model.param_vector(params)
    y0 = np.asarray(y0, dtype=float)
    if y0.shape != (2 * n,) or not np.all(np.isfinite(y0)):
        raise ValueError(f"y0 must be finite with shape ({2 * n},) ordered as {model.state_names}, got {y0.shape}")
    if project_y0:
        y0 = np.r_[y0[:n], system.project(y0[:n], y0[n:], t0, params)]
    system._on_constraint_set(y0[:n], y0[n:], t0, params, "the velocity part u of y0")
    loads_at_start(model, t0, y0, p)  # a negative load lifts the contact off (not a fold of the manifold)
    ratio0 = ratio(t0, y0, p)
    if np.nanmax(ratio0, initial=0.0) >= RATIO_STOP:
        raise FoldError(f"y0: the friction ratio (|lambda| over the law's largest force in its direction) is "
                        f"{np.nanmax(ratio0):.6g} at the start: the slow manifold of the {model.law.name} law does not "
                        "exist there (it folds at 1)")
    return t0, tf, y0, p


def run_law_reduced(model, t_span, y0, t_eval=None, rtol: float = 1e-8, atol=1e-10, params=None,
                    max_step: float = np.inf, project_y0: bool = False, method: str = "auto", events=None,
                    sensitivities=None, dense_output: bool = False, **options) -> SimulationResult:
    """Integrate ``model`` from y0 = [q, u] (u on the constraint set, or projected onto it G-orthogonally
    with ``project_y0``) over ``t_span`` (module docstring): the C++ model of the law
    (:class:`~nonholo.models.law_core.CoreLawReducedModel`) by ``nh.simulate`` on its vector field, the
    Python reference (:class:`~nonholo.models.law_reduced.LawReducedModel`) by SciPy; ``options``: the
    other options of ``nh.simulate`` (the C++ model only)."""
    if dense_output:
        raise ValueError("dense_output: the reduced model of a nonlinear law runs without dense output (not supported)")
    if not isinstance(model, LawReducedModel):
        return run_law_reduced_core(model, t_span, y0, t_eval, rtol, atol, params, max_step, project_y0, method,
                                    dict(options, events=events, sensitivities=sensitivities))
    if events is not None or sensitivities:
        raise ValueError("events, sensitivities: the Python reference of the reduced model of a nonlinear law runs "
                         "without them; the C++ model (system.reduced(order=K, law=...)) takes them")
    if method not in ("auto", "dop853"):
        raise ValueError("the Python reference of the reduced model of a nonlinear law runs with method 'dop853'")
    from scipy.integrate import solve_ivp

    n = model.system.n
    t0, tf, y0, p = _start(model, t_span, y0, params, project_y0,
                           lambda t, y, p: model.expansion.friction_ratio(t, y[:n], y[n:], p))
    rtol, atol = check.tolerances(rtol, atol, 2 * n)
    atol = float(atol[0]) if atol.size == 1 else atol
    times = check.t_eval(t_eval, t0, tf)

    def fold(t, y):
        return RATIO_STOP - np.nanmax(model.expansion.friction_ratio(t, y[:n], y[n:], p), initial=0.0)

    fold.terminal, fold.direction = True, -1
    calls = [0]

    def rhs(t, y):
        calls[0] += 1
        return model._rhs(t, y, p)

    start = time.thread_time()
    sol = solve_ivp(rhs, (t0, tf), y0, method="DOP853", t_eval=times, rtol=rtol, atol=atol, events=[fold],
                    max_step=max_step)
    folded = sol.status == 1
    if folded:
        t_last = float(sol.t_events[0][0])
    else:
        t_last = tf if sol.status == 0 else (float(sol.t[-1]) if sol.t.size else t0)
    if folded:
        message = (f"stopped at t = {t_last:.6g}: the friction ratio (|lambda| over the law's largest force in its "
                   f"direction) reached {RATIO_STOP:g}, where the slow manifold of the {model.law.name} law folds (the "
                   "constraint force leaves the law's range; no slip of the law carries it beyond). Simulate "
                   "system.friction(law=...) or the stick-slip model there")
    else:
        message = sol.message
    raw = dict(t=sol.t, y=sol.y, status=sol.status, message=message, flag=sol.status,
               flag_name="SLOW_MANIFOLD_FOLD" if folded else ("SUCCESS" if sol.status == 0 else "FAILURE"),
               t_last=t_last, stats=dict(n_rhs=sol.nfev, n_jac=0, n_lin_setups=0, n_steps=(sol.nfev - 1) // 12,
                                           cpu_time=time.thread_time() - start),
               t_events=list(sol.t_events), y_events=list(sol.y_events), messages=[], method="dop853",
               y_final=sol.y_events[0][0] if folded else None)
    result = SimulationResult(raw, model, dict(zip(model.param_names, p)))
    result.method_reason = "the reduced model of a nonlinear law runs on SciPy's DOP853 (Python right-hand side)"
    samples = [(t0, y0)] + list(zip(result.t, result.y.T)) + ([(t_last, raw["y_final"])] if folded else [])
    ratios = np.array([model.expansion.friction_ratio(t, y[:n], y[n:], p) for t, y in samples]).T
    return _report_ratios(result, model, ratios, samples, folded)


def _report_ratios(result: SimulationResult, model, ratios: np.ndarray, samples: list, folded: bool):
    """``result.friction_ratio`` at the output times, and the warning where the ratio at ``samples``
    (y0, the outputs, the stop) exceeded RATIO_THRESHOLD."""
    result.friction_ratio = ratios[:, 1: 1 + result.t.size]
    worst = np.nanmax(ratios, initial=0.0)
    if worst > RATIO_THRESHOLD or folded:
        at = samples[int(np.nanargmax(np.nanmax(ratios, axis=0)))][0]
        text = (f"the reduced model (order {model.order}) of the {model.law.name} law ran close to the fold of its "
                f"slow manifold: the friction ratio |lambda| / (largest force) reached {worst:.4g} at t = {at:.4g} "
                f"(its expansion holds while it is below {RATIO_THRESHOLD:g}; the manifold folds at 1, where no-slip "
                "needs more friction than there is)")
        _warn(result, text, stacklevel=4)
    return result


def _warn(result: SimulationResult, text: str, stacklevel: int) -> None:
    """The SimulationWarning ``text``, kept in ``result.warnings`` too."""
    result.warnings.append(text)
    warnings.warn(text, SimulationWarning, stacklevel=stacklevel)


def run_law_reduced_core(model, t_span, y0, t_eval, rtol, atol, params, max_step, project_y0, method: str,
                         options: dict) -> SimulationResult:
    """The run of :class:`~nonholo.models.law_core.CoreLawReducedModel`: ``nh.simulate`` on its C++
    vector field with the terminal event RATIO_STOP - the friction ratio = 0 (the fold margin; the
    method as :func:`_events_with_fold` chooses), then the ratio at the outputs in one C++ call."""
    from .simulation import simulate

    given_y0 = y0
    t0, tf, y0, p = _start(model, t_span, y0, params, project_y0, lambda t, y, p: model.friction_ratio(t, y, params))
    given = options.pop("events", None)
    method, events, margin = _events_with_fold(model, method, given, bool(options.get("sensitivities")), tf < t0)
    # the given y0 projected again by simulate, which then starts the sensitivities at the projection's
    # derivative (y0 projected here alone left them at 0: a sleigh's start off its blade row gave
    # d y_dot / d a 20% off its differences)
    result = simulate(model.field, (t0, tf), given_y0 if project_y0 else y0, t_eval=t_eval, rtol=rtol, atol=atol,
                      params=params, max_step=max_step, method=method, events=events, project_y0=bool(project_y0),
                      **options)
    return _finish_core(model, result, t0, y0, params, margin is not None)


def _events_with_fold(model, method: str, given, sensitivities: bool = False, backward: bool = False) -> tuple:
    """(method, events, margin): the fold margin's terminal event first, then the events ``given``.
    ``method="auto"`` runs DOP853 (its events found on its dense output) when the model's right-hand
    side is cheap against Adams' per-step overhead (``explicit_rk_pays``, as for the linear law's
    reduced models), events of the caller's too, Adams otherwise. A run with sensitivities has no fold event (CVODES has
    sensitivities at events of the state only, and a margin depends on the multipliers): it stops
    at the fold itself, where the expansion fails."""
    user = [] if given is None else list(given) if isinstance(given, (list, tuple)) else [given]
    margin = None if sensitivities else model.fold_margin()
    if method == "auto":
        method = "dop853" if model.core.explicit_rk_pays and not sensitivities else "adams"
    # the margin falls to zero in the run's direction: in t, rising where the run goes backward
    events = ([] if margin is None else [Event(margin, terminal=True, direction=1 if backward else -1)]) + user
    return method, events or None, margin


def _finish_core(model, result, t0: float, y0, params, fold_event: bool):
    """A run of the C++ model's vector field as the run of ``model``: the fold event (the first) taken
    out of the events, the stop there, and the friction ratio at the outputs."""
    n = model.system.n
    folded = False
    if fold_event:  # terminal: when it fired, the run ended there
        fold_t, fold_y = result.t_events.pop(0), result.y_events.pop(0)
        folded = result.status == 1 and len(fold_t) > 0
    if folded:
        result.flag_name = "SLOW_MANIFOLD_FOLD"
        result.message = (f"stopped at t = {result.t_last:.6g}: the friction ratio (|lambda| over the law's largest "
                          f"force in its direction) reached {RATIO_STOP:g}, where the slow manifold of the "
                          f"{model.law.name} law folds (the constraint force leaves the law's range; no slip of the "
                          "law carries it beyond). Simulate "
                          "system.friction(law=...) or the stick-slip model there")
        result.y_final = fold_y[-1]
    result.model = model
    ran = "DOP853" if result.method == "dop853" else f"CVODE ({result.method})"
    result.method_reason = (f"the reduced model of the {model.law.name} law runs in C++ on {ran}"
                            f"{' with its fold event' if fold_event else ''}")
    samples = [(t0, y0)] + list(zip(result.t, result.y.T)) + ([(result.t_last, result.y_final)] if folded else [])
    T = np.array([t for t, _ in samples], dtype=float)
    Y = np.array([y for _, y in samples], dtype=float).reshape(len(samples), 2 * n)
    ratios = model.friction_ratio(T, Y.T, params)
    _report_gap(result, model, T, Y, params)
    return _report_ratios(result, model, np.asarray(ratios).reshape(-1, len(samples)), samples, folded)


def _report_gap(result: SimulationResult, model, T: np.ndarray, Y: np.ndarray, params) -> None:
    """``result.spectral_gap`` ({"t", "delta"}) at y0 and up to RUN_SAMPLES evenly spaced samples, the
    last included, and the warning where the friction model's time scales are less than a factor
    1 / THRESHOLD apart (the expansion then no longer gives a small correction, whatever the
    friction ratio: the single-track car on Magic Formula tires at 30 m/s, delta 0.41, order 1 off
    by half in its yaw rate)."""
    index = np.unique(np.linspace(0, T.size - 1, min(T.size, validity.RUN_SAMPLES + 1)).round().astype(int))
    delta = np.asarray(model.spectral_gap(T[index], Y[index].T, params), dtype=float).reshape(-1)
    result.spectral_gap = {"t": T[index], "delta": delta}
    if np.nanmax(delta, initial=0.0) > validity.THRESHOLD:
        at = int(np.nanargmax(delta))
        text = (f"the reduced model (order {model.order}) of the {model.law.name} law ran outside the range where its "
                f"expansion holds: the slowest fast rate of the friction model is only {1 / delta[at]:.3g} times its "
                f"fastest slow rate at t = {T[index][at]:.4g} (delta = {delta[at]:.3g} > {validity.THRESHOLD:g}); "
                "simulate system.friction(law=...) there")
        _warn(result, text, stacklevel=5)


def run_law_reduced_many(model, t_span, Y0, *, params=None, project_y0: bool = False, method: str = "auto",
                         events=None, sensitivities=None, raise_on_failure: bool = False, **options) -> list:
    """``nh.simulate_many`` of the C++ reduced model of a law: each run's start checked as
    :func:`run_law_reduced`'s (a run that starts outside the cone fails alone), the batch on the model's
    vector field with the fold event first, each result then as :func:`run_law_reduced`'s."""
    from .simulation import simulate_many

    if isinstance(model, LawReducedModel):
        raise TypeError("model: the Python reference of the reduced model of a law runs with nh.simulate only; "
                        "system.reduced(order=K, law=...) gives the C++ model, which runs in batches")
    t0, _ = check.t_span(t_span)
    Y0 = check.real_state(Y0, "Y0")
    if Y0.shape[:1] == (0,):
        return []
    if Y0.ndim == 1:
        n_runs = len(params) if isinstance(params, (list, tuple)) else max(
            [np.size(v) for v in (params or {}).values() if np.ndim(v) > 0] or [1])
        Y0 = np.tile(Y0, (n_runs, 1))
    if Y0.ndim != 2 or Y0.shape[1] != model.n_states:
        raise ValueError(f"Y0 must have shape (n_runs, {model.n_states}), got {Y0.shape}")
    n_runs = Y0.shape[0]
    if params is None or isinstance(params, dict):  # one mapping: scalars, or arrays of one value per run
        params = [{k: (np.asarray(v).reshape(-1)[i] if np.ndim(v) else v) for k, v in (params or {}).items()}
                  for i in range(n_runs)]
    if len(params) != n_runs:
        raise ValueError(f"params has {len(params)} entries for {n_runs} runs")
    runs = [dict(zip(model.param_names, model.param_vector(run))) for run in params]
    starts, rejected = {}, {}
    for i, y0 in enumerate(Y0):
        if i in rejected:
            continue
        try:
            starts[i] = _start(model, t_span, y0, runs[i], project_y0,
                               lambda t, y, p, run=runs[i]: model.friction_ratio(t, y, run))[2]
        except (ValueError, FoldError) as exc:
            rejected[i] = f"Run {i} did not start: {exc}"
    method, all_events, margin = _events_with_fold(model, method, events, bool(sensitivities),
                                                   float(t_span[1]) < float(t_span[0]))
    ok = sorted(starts)
    given = Y0 if project_y0 else np.array([starts.get(i, Y0[i]) for i in range(n_runs)])  # as run_law_reduced
    ran = simulate_many(model.field, t_span, given[ok].reshape(len(ok), -1), params=[runs[i] for i in ok],
                        method=method, events=all_events, sensitivities=sensitivities, project_y0=bool(project_y0),
                        **options) if ok else []
    results = dict(zip(ok, ran))
    out = []
    for i in range(Y0.shape[0]):
        if i in results:
            out.append(_finish_core(model, results[i], t0, starts[i], runs[i], margin is not None))
            continue
        stats = dict(n_steps=0, n_rhs=0, n_jac=0, n_lin_setups=0, cpu_time=0.0)
        failed = SimulationResult(dict(t=np.zeros(0), y=np.zeros((model.n_states, 0)), status=-1, message=rejected[i],
                                       flag=0, flag_name="INITIAL_STATE_REJECTED", t_last=t0, stats=stats,
                                       t_events=[], y_events=[], messages=[]), model, runs[i])
        failed.friction_ratio = np.zeros((0, 0))
        out.append(failed)
    if rejected:
        text = f"{len(rejected)} of {len(out)} runs did not start: " + "; ".join(rejected[i] for i in sorted(rejected))
        if raise_on_failure:
            raise IntegrationError(text)
        warnings.warn(text, SimulationWarning, stacklevel=3)
    return out
