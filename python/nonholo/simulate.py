"""simulate and simulate_many: integration of models with CVODE, in solve_ivp's argument order."""

from __future__ import annotations

import math
import warnings
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from . import _core
from .errors import IntegrationError, SimulationWarning
from .model import Model
from .result import SimulationResult
from .symbolic.lowering import check_free_symbols, lower

__all__ = ["simulate", "simulate_many", "Event"]


class Event:
    """A symbolic event g(t, q, v) = 0, located by CVODE's root finding and evaluated in C++.

    Parameters
    ----------
    expr : SymPy expression
        In the system's coordinates, velocities, time and parameters.
    terminal : bool or int
        Stop the integration at the first (True) or the n-th occurrence.
    direction : {-1, 0, 1}
        Only zero crossings where g decreases (-1), increases (1), or both (0).
    """

    def __init__(self, expr, terminal: bool | int = False, direction: int = 0):
        self.expr = sp.sympify(expr)
        self.terminal = terminal
        self.direction = direction

    def __repr__(self) -> str:
        return f"Event({self.expr}, terminal={self.terminal}, direction={self.direction})"


def _check_model(model) -> Model:
    if not isinstance(model, Model):
        raise TypeError(
            f"model must be a nonholo Model (e.g. system.nonholonomic()), got {type(model).__name__}"
        )
    return model


def _t_span(t_span) -> tuple:
    try:
        t0, tf = (float(x) for x in t_span)
    except (TypeError, ValueError):
        raise ValueError(f"t_span must be a pair (t0, tf) of numbers, got {t_span!r}") from None
    if not (math.isfinite(t0) and math.isfinite(tf)):
        raise ValueError(f"t_span must be finite, got ({t0}, {tf})")
    if t0 == tf:
        raise ValueError("t_span must have t0 != tf")
    return t0, tf


def _tolerances(rtol, atol, n_states: int):
    rtol = float(rtol)
    if not (rtol > 0 and math.isfinite(rtol)):
        raise ValueError(f"rtol must be positive and finite, got {rtol}")
    atol = np.atleast_1d(np.asarray(atol, dtype=float))
    if atol.ndim != 1 or atol.size not in (1, n_states):
        raise ValueError(f"atol must be a scalar or have shape ({n_states},), got shape {atol.shape}")
    if not np.all((atol > 0) & np.isfinite(atol)):
        raise ValueError("atol must be positive and finite")
    return rtol, atol


def _terminal_count(terminal) -> int:
    if isinstance(terminal, (bool, np.bool_)):
        return 1 if terminal else 0
    count = int(terminal)
    if count < 0:
        raise ValueError(f"event terminal must be a bool or a non-negative int, got {terminal!r}")
    return count


def _direction(direction) -> int:
    d = float(direction)
    if d not in (-1.0, 0.0, 1.0):
        d = float(np.sign(d))
    return int(d)


def _events(model: Model, events) -> list:
    if events is None:
        return []
    if callable(events) or isinstance(events, (sp.Basic, Event)):
        events = [events]
    system = model.system
    allowed = {*system.coordinates, *system.velocities, system.time, *system.parameters}
    specs = []
    for i, ev in enumerate(events):
        if isinstance(ev, sp.Basic):
            ev = Event(ev)
        if isinstance(ev, Event):
            check_free_symbols([ev.expr], allowed, f"event {i}")
            tape = lower([ev.expr], system._inputs).tape()
            specs.append((tape, _direction(ev.direction), _terminal_count(ev.terminal)))
        elif callable(ev):
            specs.append((ev, _direction(getattr(ev, "direction", 0)), _terminal_count(getattr(ev, "terminal", False))))
        else:
            raise TypeError(f"events[{i}] must be a callable g(t, y), a SymPy expression or nonholo.Event")
    return specs


def _initial_state(model: Model, y0, t0: float, params: list, project_y0: bool) -> np.ndarray:
    y0 = np.array(y0, dtype=float)
    if y0.shape != (model.n_states,):
        raise ValueError(
            f"y0 must have shape ({model.n_states},) ordered as {model.state_names}, got {np.shape(y0)}"
        )
    if not np.all(np.isfinite(y0)):
        raise ValueError("y0 contains NaN or inf")
    model.core.check_state(t0, y0, params)
    if model.constrained:
        residual, scale = model.core.constraint_residual(t0, y0, params)
        if project_y0:
            n = model.system.n
            sys_params = params[: len(model.system.parameters)]
            y0 = y0.copy()
            y0[n : 2 * n] = model.system.core.at(t0, y0[:n], y0[n : 2 * n], sys_params).project()
        elif residual > 1e-10 * max(scale, 1.0):
            raise ValueError(
                f"y0 violates the constraints A(q) v = b(q, t): |A v - b| = {residual:.3g}. "
                "Pass project_y0=True to project v onto the constraint set (G-orthogonally), "
                "or use system.project(q, v)."
            )
    return y0


def _options(model, rtol, atol, method, max_step, first_step, max_steps, max_wall_time):
    rtol, atol = _tolerances(rtol, atol, model.n_states)
    if method not in ("auto", "bdf", "BDF", "adams", "Adams"):
        raise ValueError(f"method must be 'auto', 'bdf' or 'adams', got {method!r}")
    max_step = float(max_step)
    if not max_step > 0:
        raise ValueError(f"max_step must be positive, got {max_step}")
    first_step = 0.0 if first_step is None else float(first_step)
    if first_step < 0 or not math.isfinite(first_step):
        raise ValueError(f"first_step must be positive, got {first_step}")
    if int(max_steps) < 1:
        raise ValueError(f"max_steps must be at least 1, got {max_steps}")
    max_wall_time = 0.0 if max_wall_time is None else float(max_wall_time)
    if not max_wall_time >= 0:
        raise ValueError(f"max_wall_time must be non-negative, got {max_wall_time}")
    return dict(rtol=rtol, atol=atol, method=method.lower(), max_step=0.0 if math.isinf(max_step) else max_step,
                first_step=first_step, max_steps=int(max_steps), max_wall_time=max_wall_time)


def _t_eval(t_eval, t0: float, tf: float):
    if t_eval is None:
        return None
    t_eval = np.asarray(t_eval, dtype=float).reshape(-1)
    if not np.all(np.isfinite(t_eval)):
        raise ValueError("t_eval contains NaN or inf")
    lo, hi = min(t0, tf), max(t0, tf)
    if t_eval.size and (t_eval.min() < lo or t_eval.max() > hi):
        raise ValueError(f"t_eval must lie within t_span = ({t0}, {tf})")
    d = np.diff(t_eval)
    if np.any(d * (tf - t0) < 0):
        raise ValueError("t_eval must be sorted in the direction of integration")
    return t_eval


def _drift_control(model: Model, drift_control, method: str) -> bool:
    """None (default): project onto A v = b when the method is BDF (CVODE projects only with BDF;
    'auto' picks BDF for constrained models). True with 'adams' cannot be honoured: an error."""
    if drift_control is None:
        return True
    if drift_control and model.constrained and method.lower() == "adams":
        raise ValueError("drift_control=True needs method='bdf' or 'auto': CVODE projects onto the constraint "
                         "set only with BDF (use drift_control=False to run Adams without it)")
    return bool(drift_control)


def _core_options(solver_options, dense_output: bool, model: Model | None = None) -> dict:
    options = dict(solver_options or {})
    if dense_output:
        options["dense_output"] = True
    if model is not None and model.system.unit_norm and "unit_norm" not in options:
        options["unit_norm"] = _unit_norm_indices(model)
    return options


def _unit_norm_indices(model: Model) -> list:
    """(position, velocity) state indices of the system's unit-norm groups; the velocities are
    left alone in models whose velocity states are quasi-velocities (anholonomic frames)."""
    n = model.system.n
    quasi = getattr(model, "frame", None) is not None
    return [(list(g), [] if quasi else [n + i for i in g]) for g in model.system.unit_norm]


def _report(result: SimulationResult, raise_on_failure: bool) -> SimulationResult:
    if result.status < 0:
        if raise_on_failure:
            raise IntegrationError(result.message, result)
        warnings.warn(result.message, SimulationWarning, stacklevel=3)
    return result


def simulate(
    model: Model,
    t_span: Sequence[float],
    y0,
    *,
    t_eval=None,
    rtol: float = 1e-8,
    atol=1e-10,
    events=None,
    method: str = "auto",
    params: Mapping | None = None,
    max_step: float = math.inf,
    first_step: float | None = None,
    max_steps: int = 500_000,
    max_wall_time: float | None = None,
    drift_control: bool | None = None,
    project_y0: bool = False,
    raise_on_failure: bool = False,
    solver_options: Mapping | None = None,
    dense_output: bool = False,
) -> SimulationResult:
    """Integrate a model with CVODE, in the manner of ``scipy.integrate.solve_ivp``.

    Parameters
    ----------
    model : Model
        From ``system.nonholonomic()``, ``.vakonomic()``, ``.friction(eps)``, ...
    t_span : (t0, tf)
        Integration interval; tf < t0 integrates backwards.
    y0 : array_like, shape (n_states,)
        Initial state ordered as ``model.state_names`` (``[q, v]``; ``[q, v, lambda]`` for
        vakonomic). For constrained models v must satisfy A(q) v = b(q, t) (see
        ``project_y0``).
    t_eval : array_like, optional
        Times at which to store the solution (CVODE's interpolation); default: every step.
    rtol, atol : float or array_like
        Relative and absolute tolerances (positive). Defaults 1e-8 and 1e-10.
    events : callable, SymPy expression, Event, or a list of them
        Zero crossings to locate: callables ``g(t, y)`` with optional ``terminal`` and
        ``direction`` attributes (as in solve_ivp; they call Python at every root-function
        evaluation), or symbolic ``nonholo.Event`` / SymPy expressions in t, q, v, evaluated
        in C++.
    method : {"auto", "bdf", "adams"}
        "auto": BDF with the exact (AD) Jacobian for stiff and constrained models, Adams for
        the others. Constraint drift control (projection onto A v = b) needs BDF.
    params : mapping, optional
        Parameter values overriding the defaults, e.g. ``{"m": 2.0, "eps": 1e-4}``.
    max_step, first_step : float, optional
        Bounds on the step size.
    max_steps : int
        Maximum number of steps over the whole interval (a failure beyond it).
    max_wall_time : float, optional
        Stop (as a failure) after this many seconds.
    drift_control : bool, optional
        Project the velocities onto A(q) v = b(q, t) after every step (constrained models).
        Default: whenever the method is BDF (always with "auto"); CVODE projects only with BDF,
        so ``True`` with ``method="adams"`` is an error, and Adams runs without drift control
        (``result.constraint_residual()`` shows the drift).
    project_y0 : bool
        Project v in y0 onto the constraint set instead of raising when it violates it.
    raise_on_failure : bool
        Raise IntegrationError on solver failure instead of returning status -1 with a warning.
    solver_options : mapping, optional
        CVODE's tuning knobs: ``max_order``, ``jacobian_frequency`` (steps between Jacobian
        evaluations), ``setup_frequency`` (steps between linear-solver setups),
        ``max_nonlinear_iterations``, ``nonlinear_convergence``.
    dense_output : bool
        Keep CVODE's interpolant of every step: ``result.sol(t)`` then gives the solution at any
        t in the interval (shape (n_states,) or (n_states, n_t)), as accurate as the steps.

    Returns
    -------
    SimulationResult
        ``t`` (n_t,), ``y`` (n_states, n_t), ``status``, ``message``, ``success``, ``stats``,
        ``t_events``, ``y_events``, ...
    """
    model = _check_model(model)
    t0, tf = _t_span(t_span)
    p = model.param_vector(params)
    opts = _options(model, rtol, atol, method, max_step, first_step, max_steps, max_wall_time)
    y0 = _initial_state(model, y0, t0, p, project_y0)
    raw = _core.integrate(model.core, p, t0, tf, y0, _t_eval(t_eval, t0, tf), _events(model, events),
                          opts["rtol"], opts["atol"], opts["method"], opts["max_step"], opts["first_step"],
                          opts["max_steps"], opts["max_wall_time"], _drift_control(model, drift_control, method),
                          _core_options(solver_options, dense_output, model))
    names = [*model.system.parameter_names, *model._extra]
    return _report(SimulationResult(raw, model, dict(zip(names, p))), raise_on_failure)


def _batch_params(model: Model, params, n_runs: int) -> list:
    """One parameter vector per run from None, a mapping (values scalar or length n_runs), or
    a sequence of mappings."""
    if params is None or isinstance(params, Mapping):
        params = dict(params or {})
        lengths = {k: np.size(v) for k, v in params.items() if np.ndim(v) > 0}
        for key, size in lengths.items():
            if size != n_runs:
                raise ValueError(f"params[{key!r}] has {size} values for {n_runs} runs")
        return [model.param_vector({k: (np.asarray(v).reshape(-1)[i] if np.ndim(v) else v)
                                    for k, v in params.items()}) for i in range(n_runs)]
    params = list(params)
    if len(params) != n_runs:
        raise ValueError(f"params has {len(params)} entries for {n_runs} runs")
    return [model.param_vector(p) for p in params]


def simulate_many(
    model: Model,
    t_span: Sequence[float],
    Y0,
    *,
    params=None,
    threads: int | None = None,
    t_eval=None,
    rtol: float = 1e-8,
    atol=1e-10,
    events=None,
    method: str = "auto",
    max_step: float = math.inf,
    first_step: float | None = None,
    max_steps: int = 500_000,
    max_wall_time: float | None = None,
    drift_control: bool | None = None,
    project_y0: bool = False,
    raise_on_failure: bool = False,
    solver_options: Mapping | None = None,
) -> list:
    """Integrate a batch of initial states (and parameter sets) in parallel C++ threads.

    ``Y0`` has shape (n_runs, n_states) (or (n_states,) when ``params`` sets the number of
    runs). ``params`` is None, a mapping whose values are scalars or arrays of length n_runs,
    or a sequence of n_runs mappings. ``threads`` defaults to all cores. The GIL is released;
    events must be symbolic. Each result equals the corresponding ``simulate`` call.
    Other arguments as in :func:`simulate`. Returns a list of SimulationResult.
    """
    model = _check_model(model)
    t0, tf = _t_span(t_span)
    Y0 = np.asarray(Y0, dtype=float)
    if Y0.ndim == 1:
        n_runs = len(params) if isinstance(params, Sequence) else max(
            [np.size(v) for v in (params or {}).values() if np.ndim(v) > 0] or [1])
        Y0 = np.tile(Y0, (n_runs, 1))
    if Y0.ndim != 2 or Y0.shape[1] != model.n_states:
        raise ValueError(f"Y0 must have shape (n_runs, {model.n_states}), got {Y0.shape}")
    n_runs = Y0.shape[0]
    P = _batch_params(model, params, n_runs)
    opts = _options(model, rtol, atol, method, max_step, first_step, max_steps, max_wall_time)
    Y0 = np.array([_initial_state(model, y, t0, p, project_y0) for y, p in zip(Y0, P)]).reshape(n_runs, -1)
    specs = _events(model, events)
    if any(not isinstance(s[0], _core.Tape) for s in specs):
        raise TypeError("simulate_many takes symbolic events only (nonholo.Event or SymPy expressions)")
    if threads is not None and int(threads) < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    raws = _core.integrate_many(model.core, np.asarray(P, dtype=float).reshape(-1), t0, tf, Y0.reshape(-1), n_runs,
                                _t_eval(t_eval, t0, tf), specs, opts["rtol"], opts["atol"], opts["method"],
                                opts["max_step"], opts["first_step"], opts["max_steps"], opts["max_wall_time"],
                                _drift_control(model, drift_control, method), 0 if threads is None else int(threads),
                                _core_options(solver_options, False, model))
    names = [*model.system.parameter_names, *model._extra]
    return [_report(SimulationResult(raw, model, dict(zip(names, p))), raise_on_failure) for raw, p in zip(raws, P)]
