"""simulate and simulate_many: integration of models with CVODE, in solve_ivp's argument order."""

from __future__ import annotations

import math
import os
import warnings
from contextlib import nullcontext
from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from .. import _core
from .. import options as check
from ..errors import IntegrationError, ModelError, SimulationWarning, attach_partial
from ..models.model import Model, apply_compile
from ..progress import TimeProgress, bar, current_cancel
from .holonomic_start import HELD_MIN, on_holonomic_constraints, on_unit_norm, onto_holonomic_constraints
from .stiff_precision import warn_beyond_precision
from .time_resolution import warn_time_resolution
from ..models import validity
from ..models.reduced import (ReducedModel, frame_initial_state, prepare_run,
                              projected_velocity, projects_initial_state)
from ..models.law_core import LAW_REDUCED_MODELS
from ..models.stick_slip import StickSlipModel
from .law_reduced import run_law_reduced, run_law_reduced_many
from .stick_slip import run_stick_slip
from .hot_compile import HotCompile
from .result import SimulationResult, method_reason
from .sensitivity import (attach_sensitivities, moves_initial_state, sensitivity_spec, through_eps,
                          with_initial_values)
from ..system.arguments import key_name
from ..system.law_relaxation import expand_initial_state, lag_states
from ..system.margins import batch_stopped_by_load, load_specs, loads_at_start, stopped_by_load, warn_at_start
from .events import Event, event_specs
from ..models.start_check import check_start
from . import arguments
from .failure_causes import constraint_singularity, explain_failure, explain_tiny_atol

__all__ = ["simulate", "simulate_many", "Event"]


def _check_model(model) -> Model:
    if isinstance(model, LAW_REDUCED_MODELS):  # reaches here from simulate_many and the sweeps
        raise TypeError("model: the reduced model of a nonlinear friction law runs with nh.simulate and "
                        "nh.simulate_many (its fold check); loop over them, or give model.field (no fold check)")
    if not isinstance(model, Model):
        from ..models.discrete import DiscreteModel
        hint = "; a discrete model runs with nh.simulate_discrete(model, ...)" * isinstance(model, DiscreteModel)
        raise TypeError(f"model must be a nonholo Model (e.g. system.nonholonomic()), got {type(model).__name__}{hint}")
    return model


def initial_state(model: Model, y0, t0: float, params: list, project_y0: bool, rtol: float = 0.0,
                  qdot: bool = False) -> np.ndarray:
    """y0 in the model's state, checked. A velocity off the constraints by at most max(1e-10, rtol) of
    their scale is accepted as it is: a run keeps |A v - b| near its tolerance (drift control: about
    rtol / 10; a reduced model's truncation), so its own final state, continued, was refused at rtol
    above 1e-9."""
    tolerance = max(1e-10, float(rtol))
    y0, labelled_qdot = arguments.labelled_state(model, y0)  # a pandas Series by name
    y0 = frame_initial_state(model, check.real_state(y0), t0, params, project_y0,  # (q, u) -> (q, w)
                             tolerance=tolerance, qdot=qdot or labelled_qdot)
    y0 = expand_initial_state(model, y0)  # [q, v] -> [q, 0, v, 0] with the deflections of relaxed tire laws
    if y0.shape != (model.n_states,):
        raise ValueError(
            f"y0 must have shape ({model.n_states},) ordered as {model.state_names}{_other_form(model, '')}, "
            f"got {np.shape(y0)}"
        )
    if not check.all_finite(y0):
        raise ValueError("y0 contains NaN or inf")
    if model.system.unit_norm:  # a quaternion off |q| = 1: the same motion from q / |q| (on_unit_norm)
        y0 = on_unit_norm(_unit_norm_indices(model), y0)
    check_start(model, t0, y0, params)
    held = max(HELD_MIN, 100 * float(rtol))  # h drifts: 6e-11 in 10 s
    if project_y0:  # q onto h(q) = 0 (G-orthogonally), then v onto the rows there
        y0 = onto_holonomic_constraints(model.system, y0, t0, params, held)
    on_holonomic_constraints(model.system, y0, params, held)
    if not model.constrained and projects_initial_state(model, project_y0):  # not required there, but asked
        y0 = y0.copy()  # for: v onto A v = b (a friction model), or onto the rows a law's model realizes
        y0[model.system.n: 2 * model.system.n] = projected_velocity(model, t0, y0, params)
    if model.constrained:
        residual, scale = model.core.constraint_residual(t0, y0, params)
        if project_y0:
            n = model.system.n
            sys_params = params[: len(model.system.parameters)]
            y0 = y0.copy()
            y0[n : 2 * n] = model.system.core.at(t0, y0[:n], y0[n : 2 * n], sys_params).project()
        elif residual > tolerance * max(scale, 1.0):
            raise ValueError(
                f"y0 violates the constraints A(q) v = b(q, t): |A v - b| = {residual:.3g}. "
                "Pass project_y0=True to project v onto the constraint set (G-orthogonally), "
                "or use system.project(q, v)."
            )
    # a law contact's load below zero, or its rolling speed not positive, at the start that runs (projected)
    loads_at_start(model, t0, y0, params)
    return y0


def _given(option) -> bool:
    """True for events or sensitivities that ask for something (not None, not an empty list)."""
    return option is not None and not (isinstance(option, (list, tuple)) and len(option) == 0)


def _drift_control(model: Model, drift_control, method: str, sensitivities=None) -> bool:
    """None (default): on. BDF projects v onto A v = b after every step (CVODE's projection);
    Adams projects the state and CVODE's history with it when |A v - b| exceeds rtol / 10 of its
    scale (CVODE projects only with BDF). Adams with sensitivities of a constrained model has no
    drift control (the sensitivities would not follow the projection): True is then an error.
    Reduced models in coordinates too (u stays on A(q) u = b, the fibre base of the slow manifold):
    without it the Chaplygin sleigh's reduced run over t = 20 at rtol 1e-8 was 6.0e-6 off (DOP853,
    37 steps, any order), with it 4e-7 at the same steps, above the truncation error of order 2 at
    eps 1e-3 (1.3e-7; tests/test_reduced_default_accuracy.py)."""
    if drift_control is None:
        return True
    if drift_control and sensitivities and model.constrained and method.lower() == "adams":
        raise ValueError("drift_control=True with sensitivities needs method='bdf' or 'auto': with Adams the "
                         "sensitivities would not follow its projections (use drift_control=False)")
    return bool(drift_control)


def _core_options(solver_options, dense_output: bool = False, model: Model | None = None,
                  state_checked: bool = False, method: str | None = None) -> dict:
    """The checked solver_options of simulate and simulate_many, with the system's unit-norm
    groups; ``state_checked``: y0 went through ``initial_state`` with this model (its
    check_state), so the core does not evaluate the model once more to check it again."""
    options = check.cvode_knobs(solver_options, method)
    if state_checked:
        options["initial_state_checked"] = True
    if dense_output:
        options["dense_output"] = True
    if model is not None and checks_validity(model):  # its states between sparse samples of t_eval too
        options["step_trail"] = validity.RUN_SAMPLES
    if model is not None and model.system.unit_norm and "unit_norm" not in options:
        options["unit_norm"] = _unit_norm_indices(model)
    return options


def run_options(opts: dict, project: bool, core_options: dict, sensitivity: dict) -> _core.RunOptions:
    """The options of one run as the core takes them: one object, converted and checked once
    (``opts``: the checked tolerances, method and limits of ``check.solver_options``)."""
    return _core.RunOptions(**opts, project=project, solver_options=core_options, sensitivity=sensitivity)


def _unit_norm_indices(model: Model) -> list:
    """(position, velocity) state indices of the system's unit-norm groups; the velocities are
    left alone in models whose velocity states are quasi-velocities (anholonomic frames)."""
    n = model.system.n
    quasi = model.n_velocities != n
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
    y0: npt.ArrayLike,
    *,
    t_eval: npt.ArrayLike | None = None,
    rtol: float = 1e-8,
    atol: float | npt.ArrayLike = 1e-10,
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
    progress: bool = False,
    sensitivities: Sequence | None = None,
    sensitivity_method: str = "staggered",
    sensitivity_error_control: bool = True,
    compile: bool | str = "auto",
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
        Times at which to store the solution (CVODE's interpolation); default: every step. An
        empty ``t_eval`` stores no samples, as solve_ivp's: the final state is ``result.y_final``.
    rtol, atol : float or array_like
        Relative and absolute tolerances (positive). Defaults 1e-8 and 1e-10.
    events : callable, SymPy expression, Event, or a list of them
        Zero crossings to locate: callables ``g(t, y)`` with optional ``terminal`` and
        ``direction`` attributes (as in solve_ivp; they call Python at every root-function
        evaluation), or symbolic ``nonholo.Event`` / SymPy expressions in t, q, v, evaluated
        in C++. An event with g(t0) = 0 is not reported at t0 (unlike solve_ivp), only its
        later zero crossings; ``direction`` is the sign of dg/dt in time, also in a backward run
        (unlike solve_ivp; see :class:`Event`). A callable does not bound the steps (a symbolic
        event bounds them by its own time scale, :class:`Event`): roots closer together than a step
        can be missed (an outside probe's sin(20 t) on a sleigh: 5 of 19 with DOP853's long steps);
        write such an event as an expression, or bound ``max_step``.
    method : {"auto", "bdf", "adams", "dop853"}
        "auto" chooses for accuracy first, then speed (``result.method`` says what ran):

        - stiff models (friction, stiff forces): BDF with the exact (AD) Jacobian;
        - other models, in runs without sensitivities (events are found on DOP853's dense
          output, which ``dense_output`` keeps: with them Adams held a noisy step, a sleigh whose turning had died
          out taking 58,731 steps over t = 2000 for DOP853's 71, and ended 30-60x farther off): DOP853
          at a tenth of rtol and atol, tightened by sqrt(300 / n) after its n-th step on runs of more
          than 300 steps, to a tenth at most and not below rtol 1e-12 (a conserved energy drifts
          by the sum of the steps' errors: over t = 1e4 at rtol 1e-8, at most 6e-8 relative on
          the conservative systems of ``benchmarks/auto_accuracy.py``), with drift control after
          its steps; its few long steps then
          give a global error at or below that of Adams and BDF at the requested tolerances,
          falling in proportion to rtol (``benchmarks/auto_accuracy.py``). Should the run turn
          out stiff (Hairer's test, or its steps held by a real decaying eigenvalue far inside the
          stability region, where the error estimate stops them), and the Jacobian's dominant
          eigenvalue lies where BDF is stable at any step (within 75 degrees of the real axis; up to 88
          degrees where it is 1000 times faster than the solution moves: a lightly damped fast oscillation
          of a few times the motion's rate stays on DOP853), it goes on with BDF from there:
          ``"dop853->bdf at t=... (stiff)"`` (``result.stats["t_switch"]``);
        - with sensitivities: Adams (BDF for constrained models with
          sensitivities and for systems with unit-norm groups, which CVODE projects with BDF
          only), switching to BDF when the Adams run turns out stiff (repeated failures of its
          fixed-point iteration, 5 within 100 steps), like LSODA:
          ``"adams->bdf at t=... (stiff)"``;
        - reduced models (not stiff): as the other models, DOP853 at a tenth of rtol and atol with
          drift control, when their right-hand side is cheap against Adams' per-step overhead
          (``ReducedModel.method``), else Adams with drift control; the run's integration error
          is then at the tolerance's scale, below the truncation error O(eps^(K+1)) unless that
          is smaller still.

        Choose by hand when you know better: "bdf" for stiff runs, "adams" for long smooth runs
        with events, "dop853" (the explicit Runge-Kutta pair of order 8 of Dormand and Prince,
        Hairer-Norsett-Wanner I, II.10, with its dense output of order 7 at ``t_eval``) for
        non-stiff runs at the tolerances as given, its events found on that dense output, which
        ``dense_output`` keeps; it has no sensitivities (ValueError).
    params : mapping, optional
        Parameter values overriding the defaults, e.g. ``{"m": 2.0, "eps": 1e-4}``.
    max_step, first_step : float, optional
        Bounds on the step size.
    max_steps : int
        Maximum number of steps over the whole interval (a failure beyond it).
    max_wall_time : float, optional
        Stop (as a failure) after this many seconds, checked after every step that ends 20 ms or
        more after the last check: a step runs to its end (with a slow Python event, a DOP853 step
        whose root search calls it dozens of times may pass the budget by that step's time).
    drift_control : bool, optional
        Keep constrained models on A(q) v = b(q, t) (default: on). BDF projects the velocities
        onto the set after every step (CVODE's projection). DOP853 projects them after a step
        whose relative residual |A v - b| / (|A| |v| + |b|) exceeds rtol / 10 (a one-step method
        keeps no history: the projected state costs one right-hand side), and rescales unit-norm
        groups likewise. Adams, which CVODE does not project, checks the same residual after
        every step and, above rtol / 10, projects the velocities (G-orthogonally) and moves
        CVODE's history with them, without a restart: the next step keeps its order and size
        (``result.stats["n_proj"]`` counts the projections). Not for Adams with
        ``sensitivities`` (``True`` is then an error). ``False``: no drift control
        (``result.constraint_residual()`` shows the drift).
    project_y0 : bool
        Project v in y0 onto the constraint set instead of raising when it violates it. The
        friction model accepts any v; with ``project_y0`` it starts from the projected v too
        (no initial layer: at eps <= 1e-12 a layer is below what the solver resolves).
    raise_on_failure : bool
        Raise IntegrationError on solver failure instead of returning status -1 with a warning.
        A run that fails once started (max_steps, max_wall_time, a non-finite right-hand side, a
        singular metric or constraints, a collapsing step, an event that cannot be evaluated)
        does exactly one of the two, never raises anything else; errors in the arguments are
        ValueError or TypeError before the run, and an exception raised by a callable event
        of yours propagates as itself.
    solver_options : mapping, optional
        CVODE's tuning knobs: ``max_order`` (at most 5 for BDF, 12 for Adams; refused with DOP853, and under
        "auto" it orders the stiff BDF phase only, DOP853 keeping its 8), ``jacobian_frequency`` (the most
        steps between Jacobians; CVODE forms one only at a linear setup, which comes every
        ``setup_frequency`` steps (20 by default), after a convergence failure or at a large change of the
        step, so ``{"jacobian_frequency": 1}`` alone is a Jacobian at each setup, and one per step needs
        ``{"jacobian_frequency": 1, "setup_frequency": 1}``), ``setup_frequency``,
        ``max_nonlinear_iterations``, ``nonlinear_convergence``; and BDF's
        ``jacobian_costs``: "measured" (default) or "estimated" (the same steps on any machine),
        and ``jacobian_step_growth`` (> 1; default off): a new Jacobian once the step has grown
        this factor past the largest one taken when the kept Jacobian was, for a stiffness that
        falls by decades (a stick-slip slide from zero slip sets 10).
    dense_output : bool
        Keep the interpolant of every step (DOP853's of order 7, CVODE's Nordsieck history):
        ``result.sol(t)`` then gives the solution at any t in the interval (shape (n_states,) or
        (n_states, n_t)), as accurate as the steps; it leaves the method as it is (with Adams, which
        "auto" ran for it before, a pendulum over t = 20 was 1,000 times farther off).
    progress : bool
        Show a progress bar in t (tqdm.auto, also in Jupyter) for a long run, e.g. one with
        ``max_wall_time``; it calls Python once per step, and the solution is unchanged.
    sensitivities : list, optional
        Forward sensitivities to integrate with CVODES: parameter names (``"mu"``, ``"eps"``,
        any system parameter), ``"y0"`` (every initial state) or ``("y0", i)`` (index or state
        name). Gives ``result.sensitivities`` (n_states, n_sens, n_t),
        ``result.sensitivity_names`` and, at events, ``t_events_sensitivities`` and
        ``y_events_sensitivities`` (implicit function theorem; symbolic events only).
        Constrained models: derivatives of the projected trajectory (see
        :mod:`nonholo.integrate.sensitivity`).
    sensitivity_method : {"staggered", "simultaneous"}
        CVODES's corrector for the sensitivities.
    sensitivity_error_control : bool
        Include the sensitivities in the local error test (default True).
    compile : bool or "auto"
        ``"auto"`` (default): once the run has lasted about four times what compiling the model's
        tapes would cost (their loading, when the cache holds them; at least 50 ms), they are compiled in the
        background and swapped in, only those whose values are the interpreter's bit for bit, so
        the result does not depend on it (:mod:`nonholo.integrate.hot_compile`); ``True`` calls
        ``model.compile()`` before the run (the fused right-hand side too: equal to rounding);
        ``False`` leaves the model as it is.

    Returns
    -------
    SimulationResult
        ``t`` (n_t,), ``y`` (n_states, n_t), ``status``, ``message``, ``success``, ``stats``,
        ``t_events``, ``y_events``, ``y_final``, ``warnings``, ...

    Notes
    -----
    A reduced model run outside the range where its expansion in eps is valid (the friction
    model's slow and fast time scales less than a factor 10 apart; :mod:`nonholo.models.validity`)
    warns (SimulationWarning, and ``result.warnings``). A complex ``y0`` with a non-zero imaginary
    part is a TypeError. Ctrl-C stops the run at the solver's next check (every 64 steps) and
    re-raises the KeyboardInterrupt with ``exc.partial``, the SimulationResult up to there.

    Examples
    --------
    The Chaplygin sleigh, started turning: its energy is conserved to the tolerance, and the
    turning rate decays while the sleigh moves forward.

    >>> import nonholo as nh
    >>> sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    >>> result = nh.simulate(sleigh.nonholonomic(), (0, 20), [0, 0, 0, 1, 0, 1], t_eval=[0, 10, 20])
    >>> result.success, result.y.shape
    (True, (6, 3))
    >>> print(result.energy().round(7))  # 1/2 m u^2 + 1/2 (I + m a^2) omega^2 at the start
    [1.02 1.02 1.02]
    >>> print(result["phi_dot"].round(4))
    [1.     0.0754 0.0048]
    """
    raise_on_failure, dense_output = check.flag(raise_on_failure, "raise_on_failure"), check.flag(dense_output,
                                                                                                  "dense_output")
    progress = check.flag(progress, "progress")
    sensitivity_error_control = check.flag(sensitivity_error_control, "sensitivity_error_control")
    if isinstance(model, StickSlipModel):  # a hybrid model: one run per mode (integrate/stick_slip.py)
        return run_stick_slip(model, t_span, y0, t_eval=t_eval, rtol=rtol, atol=atol, params=params, method=method,
                              max_step=max_step, max_steps=max_steps, max_wall_time=max_wall_time, events=events,
                              sensitivities=sensitivities, dense_output=dense_output, project_y0=project_y0,
                              raise_on_failure=raise_on_failure, first_step=first_step, compile=compile,
                              drift_control=drift_control, solver_options=solver_options)
    if isinstance(model, LAW_REDUCED_MODELS):  # a nonlinear law's reduced model, with its fold check (law_reduced.py)
        # (the run of the C++ model calls simulate on its vector field, model.field, with these arguments)
        return run_law_reduced(**{k: v for k, v in locals().items() if k != "progress"})
    model = _check_model(model)
    compile = check.compile_option(compile)
    project_y0, drift_control = check.flag(project_y0, "project_y0"), check.flag(drift_control, "drift_control", True)
    t0, tf = check.t_span(t_span)
    arguments.refuse_outputs(model.n_states, t_eval)  # before t_eval is converted: its outputs can be held
    arguments.param_values(params)
    p = model.param_vector(params)
    opts = check.solver_options(model.n_states, rtol, atol, method, max_step, first_step, max_steps, max_wall_time)
    check.cvode_knobs(solver_options, opts["method"])  # the method the caller chose, before auto picks one
    given, y0 = y0, initial_state(model, y0, t0, p, project_y0, rtol)
    checked = model
    explicit_ok = not _given(sensitivities)  # DOP853 finds events on its dense output, and keeps it (dense_output)
    model, opts["method"] = prepare_run(model, t0, y0, params, opts["rtol"], opts["atol"], opts["method"], explicit_ok)
    project = _drift_control(model, drift_control, opts["method"], sensitivities)
    sens, sens_names, chain = through_eps(model, *sensitivity_spec(model, sensitivities, sensitivity_method,
                                                                   sensitivity_error_control), params)
    sens = with_initial_values(sens, checked, given, t0, p, project_y0)
    stops = load_specs(model, tf < t0)  # a law's normal loads that vary: the run stops where one reaches zero
    specs = stops + event_specs(model, events, params)
    watch = TimeProgress(t0, tf) if progress else None
    times = check.t_eval(t_eval, t0, tf)
    no_samples = times is not None and times.size == 0  # solve_ivp's t_eval=[]: the final state only
    if compile is True:
        apply_compile(model, True, 0)
    hot = HotCompile(model.core) if compile == "auto" else nullcontext()
    try:
        with hot:
            raw = _core.integrate(model.core, p, t0, tf, y0, None if no_samples else times,
                                  specs + ([watch.spec()] if watch else []),
                                  run_options(opts, project, _core_options(solver_options, dense_output, model,
                                                                           model is checked), sens),
                                  current_cancel())
    except KeyboardInterrupt as exc:  # Ctrl-C: the trajectory up to there goes with it
        raw = getattr(exc, "_nonholo_partial", None)
        partial = None if raw is None else attach_sensitivities(
            SimulationResult(raw, model, dict(zip(model.param_names, p))), raw, sens_names, chain)  # to the interrupt
        raise attach_partial(exc, partial)
    finally:
        if watch:
            watch.close()
    if watch:  # the progress root function is not one of the caller's events
        raw["t_events"], raw["y_events"] = raw["t_events"][: len(specs)], raw["y_events"][: len(specs)]
    if no_samples:
        _drop_samples(raw)
    result = attach_sensitivities(SimulationResult(raw, model, dict(zip(model.param_names, p))), raw, sens_names, chain)
    stopped_by_load(result, len(stops))
    result.method_reason = method_reason(method, result.method, model)
    check_validity(result, y0, t0=t0, p=p)
    warn_at_start(result, events, t0, y0)
    warn_beyond_precision(result, model, (t0, tf), y0, result.params)
    warn_time_resolution(result, (t0, tf), opts["rtol"])
    result = constraint_singularity(result, p, opts)
    result = explain_tiny_atol(explain_failure(result, checked, y0, (t0, tf)), opts["atol"])
    return _report(result, raise_on_failure)


def _drop_samples(raw: dict) -> None:
    """t_eval=[]: no samples (as solve_ivp), the final state kept as ``y_final`` (its sensitivities as
    ``sensitivities_final``)."""
    if raw["t"].size:
        raw["y_final"] = raw["y"][:, -1].copy()
    raw["t"], raw["y"] = raw["t"][:0], raw["y"][:, :0]
    if "sensitivities" in raw:
        if raw["sensitivities"].shape[-1]:
            raw["sensitivities_final"] = raw["sensitivities"][..., -1].copy()
        raw["sensitivities"] = raw["sensitivities"][..., :0]


def checks_validity(model: Model) -> bool:
    """True for a model whose runs are checked against the range of validity of its expansion: a
    reduced model of a system with constraints (without, there is no fast scale: the model is the
    system's own dynamics)."""
    return isinstance(model, ReducedModel) and model.system.k > 0


def check_validity(result: SimulationResult, y0=None, warn: bool = True, t0: float | None = None,
                   p=None) -> SimulationResult:
    """A reduced model's run outside the range where its expansion in eps is valid gets a
    SimulationWarning and an entry in ``result.warnings`` (:mod:`nonholo.models.validity`);
    ``result.validity`` holds the estimate. ``t0``: the run's start, the time of ``y0``; ``p``: the
    parameter vector the run used."""
    if not checks_validity(result.model):
        return result
    result.validity = validity.estimate(result, y0, samples=validity.RUN_SAMPLES, margin=validity.MARGIN, t0=t0,
                                        p=p)
    if result.validity is not None and not result.validity.valid:
        message = result.validity.message(result.model.eps_at(result.params), result.model.order)
        result.warnings.append(message)
        if warn:
            warnings.warn(message, SimulationWarning, stacklevel=3)
    return result


def _batch_params(model: Model, params, n_runs: int) -> tuple:
    """One parameter vector per run from None, a mapping (values scalar or length n_runs), or
    a sequence of mappings; and {run: message} for the runs given a NaN or infinite value, which
    fail alone (their vectors hold it), as runs with an unusable y0 do."""
    if params is None or isinstance(params, Mapping):
        params = dict(params or {})
        lengths = {k: np.size(v) for k, v in params.items() if np.ndim(v) > 0}
        for key, size in lengths.items():
            if size != n_runs:
                raise ValueError(f"params[{key!r}] has {size} values for {n_runs} runs")
        runs = [{k: (np.asarray(v).reshape(-1)[i] if np.ndim(v) else v) for k, v in params.items()}
                for i in range(n_runs)]
    else:
        runs = list(params)
        if len(runs) != n_runs:
            raise ValueError(f"params has {len(runs)} entries for {n_runs} runs")
    vectors, rejected = [], {}
    names = [str(k) for k in model.param_names]
    for i, run in enumerate(runs):
        if not isinstance(run, Mapping):
            raise TypeError(f"params[{i}] must be a mapping {{name: value}}, got {type(run).__name__}")
        arguments.param_values(run)
        bad = {key_name(k): v for k, v in run.items() if isinstance(v, (float, np.floating)) and not math.isfinite(v)}
        try:  # unknown names and bad types refuse the batch
            vector = model.param_vector({k: v for k, v in run.items() if key_name(k) not in bad})
        except ModelError as exc:  # out of the model's range (a value against its symbol's assumptions): the run
            vectors.append(model.param_vector())  # fails alone, as with a NaN
            rejected[i] = f"Run {i} did not start: {exc}"
            continue
        if bad:
            for name in bad:
                if name not in names:
                    model.param_vector({name: 0.0})  # the error of an unknown name
                vector[names.index(name)] = float(bad[name])
            rejected[i] = f"Run {i} did not start: " + ", ".join(f"parameter {k} must be finite, got {v}"
                                                                 for k, v in bad.items())
        vectors.append(vector)
    return vectors, rejected


def simulate_many(
    model: Model,
    t_span: Sequence[float],
    Y0: npt.ArrayLike,
    *,
    params=None,
    threads: int | None = None,
    t_eval: npt.ArrayLike | None = None,
    rtol: float = 1e-8,
    atol: float | npt.ArrayLike = 1e-10,
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
    progress: bool = False,
    sensitivities: Sequence | None = None,
    sensitivity_method: str = "staggered",
    sensitivity_error_control: bool = True,
    compile: bool | str = "auto",
) -> list[SimulationResult]:
    """Integrate a batch of initial states (and parameter sets) in parallel C++ threads.

    ``Y0`` has shape (n_runs, n_states) (or (n_states,) when ``params`` sets the number of
    runs). ``params`` is None, a mapping whose values are scalars or arrays of length n_runs,
    or a sequence of n_runs mappings. ``threads`` defaults to all cores. The GIL is released;
    events must be symbolic. Each result equals the corresponding ``simulate`` call.
    Other arguments (``sensitivities`` too) as in :func:`simulate`. Returns a list of SimulationResult, one per run,
    each with its own ``status``: a run that fails (the solver, or data unusable at its start)
    is a result with status -1 and its message, and every other run is kept. One
    SimulationWarning names the failed runs (``raise_on_failure=True``: an IntegrationError
    whose ``results`` holds the whole batch).

    ``progress=True`` shows a bar of the runs done (tqdm.auto, also in Jupyter): the batch then
    goes to C++ in about 20 parts, with the same results.

    ``threads`` is 1 to ``nonholo.options.MAX_THREADS`` (1024), default all cores. ``Y0`` with
    zero runs (shape (0, n_states)) returns ``[]``. Ctrl-C stops the runs within 50 ms and
    re-raises the KeyboardInterrupt with ``exc.partial``, the list of every run's result (the
    finished ones complete, the others status -1, flag_name "INTERRUPTED").

    ``compile``: ``"auto"`` (default) runs the first run alone, then compiles the model's tapes
    (bit for bit the interpreter's, so every result is the same whether or not, and whenever, they
    compile) before the other runs when a C compiler is present and the runs' right-hand sides, as
    many per run as the first took, are predicted to save more time than the compiler (or the
    cache) costs (:func:`nonholo.expressions.compiled.auto_compile`); ``True`` calls
    ``model.compile()`` first (the fused right-hand side too: equal to rounding); ``False`` runs
    the model as it is.

    Examples
    --------
    Three initial turning rates of the sleigh in one call; each result is what ``simulate``
    gives for its row.

    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> results = nh.simulate_many(model, (0, 10), [[0, 0, 0, 1, 0, w] for w in (0.0, 0.5, 1.0)],
    ...                            threads=2, compile=False)
    >>> [r.status for r in results]
    [0, 0, 0]
    >>> [f"{r['phi_dot'][-1]:.3f}" for r in results]
    ['0.000', '0.061', '0.075']
    """
    raise_on_failure, progress = check.flag(raise_on_failure, "raise_on_failure"), check.flag(progress, "progress")
    sensitivity_error_control = check.flag(sensitivity_error_control, "sensitivity_error_control")
    if isinstance(model, LAW_REDUCED_MODELS):  # a nonlinear law's reduced model with its fold check: all arguments
        return run_law_reduced_many(**locals())
    if isinstance(model, StickSlipModel):
        raise TypeError("model: a stick-slip model runs phase by phase, one run at a time with nh.simulate, not in a "
                        "batch; map nh.simulate over the states or parameters with nh.sweep (threads or processes)")
    model = _check_model(model)
    t0, tf = check.t_span(t_span)
    arguments.refuse_batch(model.n_states, Y0, params, t_eval)  # before Y0 and params are converted
    arguments.param_values(params, batch=True)
    threads = check.threads(threads)
    compile = check.compile_option(compile)
    project_y0, drift_control = check.flag(project_y0, "project_y0"), check.flag(drift_control, "drift_control", True)
    Y0, qdot = arguments.labelled_state(model, Y0, "Y0")  # a DataFrame (or Series) by name
    Y0 = check.real_state(Y0, "Y0")
    if Y0.shape[:1] == (0,):  # no runs: no results (as map over an empty sequence)
        return []
    if Y0.ndim == 1:
        n_runs = len(params) if isinstance(params, Sequence) else max(
            [np.size(v) for v in (params or {}).values() if np.ndim(v) > 0] or [1])
        Y0 = np.tile(Y0, (n_runs, 1))
    lag = lag_states(model.system)  # relaxed tires: a y0 of [q, v] without the deflections
    short = 2 * (model.system.n - lag) if lag else -1
    if Y0.ndim != 2 or Y0.shape[1] not in {model.n_states, 2 * model.system.n if _frame_form(model) else -1, short}:
        raise ValueError(f"Y0 must have shape (n_runs, {model.n_states})"
                         + _other_form(model, "n_runs, ")
                         + f", got {Y0.shape}")
    n_runs = Y0.shape[0]
    P, bad_params = _batch_params(model, params, n_runs)
    opts = check.solver_options(model.n_states, rtol, atol, method, max_step, first_step, max_steps, max_wall_time)
    core_options = _core_options(solver_options, False, model, method=opts["method"])
    Y0_given, (Y0, rejected) = Y0, _batch_initial_states(model, Y0, P, t0, project_y0, rtol, qdot)
    rejected.update(bad_params)  # a NaN parameter fails its own run, not the batch
    checked = model
    if getattr(model, "requested_order", None) == "auto" and model.order is None:
        raise ValueError("order='auto' is chosen per initial state: fix it for the batch with "
                         "model.truncated_at(t0, y0) or simulate the runs one by one")
    model, opts["method"] = prepare_run(model, t0, Y0[0], None, opts["rtol"], opts["atol"], opts["method"],
                                        not _given(sensitivities))
    if model is checked:  # every started run's y0 passed initial_state with this model
        core_options["initial_state_checked"] = True
    stops = load_specs(model, tf < t0)  # as simulate's
    specs = stops + event_specs(model, events)
    sens, sens_names, chain = through_eps(model, *sensitivity_spec(model, sensitivities, sensitivity_method,
                                                                   sensitivity_error_control), params)
    if any(not isinstance(s[0], (_core.Tape, _core.LawFoldEvent)) for s in specs):  # a law's fold: in C++
        raise TypeError("simulate_many takes symbolic events only (nonholo.Event or SymPy expressions)")
    started = [i for i in range(n_runs) if i not in rejected]
    n_started = len(started)
    P_started = np.asarray([P[i] for i in started], dtype=float).reshape(n_started, -1) if n_started else None
    parallel = int(threads or os.cpu_count() or 1)
    # with a progress bar, parts of the batch (each at least two runs per thread) go to C++ in turn
    part = max(-(-n_started // 20), 2 * parallel) if progress else max(n_started, 1)
    bounds = [(start, min(start + part, n_started)) for start in range(0, n_started, part)]
    if compile is True:
        apply_compile(model, True, 0)
    elif compile == "auto" and n_started > 1:  # the first run alone: it tells how many right-hand sides a run takes
        bounds = [(0, 1), *_split(bounds, 1)]
    done, ran = bar(n_runs, "simulate_many", progress), []
    done.update(n_runs - n_started)
    times = check.t_eval(t_eval, t0, tf)
    no_samples = times is not None and times.size == 0  # solve_ivp's t_eval=[]: final states only
    project = _drift_control(model, drift_control, opts["method"], sensitivities)
    options = run_options(opts, project, core_options, sens) if bounds else None
    # Y0 given as [q, q'] for Kane's speeds, projected (project_y0), or moved with a parameter of h: each run's
    # sensitivities start where its own map puts them (projected starts began at 0: a sleigh's d y_dot(1) / d a
    # came out -0.07 for 0.22)
    own = [with_initial_values(sens, checked, Y0_given[i], t0, P[i], project_y0) for i in started] \
        if moves_initial_state(sens, checked, Y0_given[0], project_y0) else None
    if own is not None:
        bounds = [(i, i + 1) for i in range(n_started)]
    try:
        for start, stop in bounds:
            if compile == "auto" and start == 1:
                n_rhs = ran[0].get("stats", {}).get("n_rhs", 0) * (n_started - 1)
                apply_compile(model, "auto", n_rhs, min(parallel, n_started - 1))
            if own is not None:
                options = run_options(opts, project, core_options, own[start])
            ran += _core.integrate_many(model.core, P_started[start:stop].reshape(-1), t0, tf,
                                        Y0[started[start:stop]].reshape(-1), stop - start,
                                        None if no_samples else times, specs, options,
                                        0 if threads is None else threads, current_cancel())
            done.update(stop - start)
    except KeyboardInterrupt as exc:  # Ctrl-C: the runs that finished go with it (the others have status -1)
        ran += getattr(exc, "_nonholo_partial", None) or []
        ran += [_failed_raw("Run not started: the batch was interrupted", t0, model.n_states, "INTERRUPTED")] * \
            (n_started - len(ran))
        raise attach_partial(exc, _batch_results(model, started, ran, rejected, P, (t0, tf), Y0, (sens_names, chain),
                                                 False, method))
    finally:
        done.close()
    if no_samples:
        for raw in ran:
            _drop_samples(raw)
    results = _batch_results(model, started, ran, rejected, P, (t0, tf), Y0, (sens_names, chain), True, method)
    batch_stopped_by_load(results, started, len(stops))
    results = [explain_tiny_atol(constraint_singularity(r, p, opts), opts["atol"]) for r, p in zip(results, P)]
    return _report_batch(results, raise_on_failure)


def _split(bounds: list, first: int) -> list:
    """The parts ``bounds`` (start, stop) of a batch less its first ``first`` runs."""
    return [(max(start, first), stop) for start, stop in bounds if stop > first]


def _batch_results(model: Model, started: list, ran: list, rejected: dict, P: list, t_span: tuple, Y0: np.ndarray,
                   sensitivities: tuple, check_runs: bool, requested: str = "auto") -> list:
    """The SimulationResult of every run of a batch, in order; ``check_runs``: with the messages
    of known failures and the validity check of reduced models (one warning for the batch)."""
    t0 = t_span[0]
    raws = {**dict(zip(started, ran)), **{i: _failed_raw(msg, t0, model.n_states) for i, msg in rejected.items()}}
    names = model.param_names
    results = [attach_sensitivities(SimulationResult(raws[i], model, dict(zip(names, p))), raws[i], *sensitivities)
               for i, p in enumerate(P)]
    for r in results:
        r.method_reason = method_reason(requested, r.method, model)
    if check_runs:
        for i in started:
            explain_failure(results[i], model, Y0[i], t_span)
    if check_runs and isinstance(model, ReducedModel):
        outside = [i for i, r in enumerate(results) if check_validity(r, Y0[i], warn=False, t0=t0).warnings]
        if outside:
            listed = f"{outside[:10]}{'...' if len(outside) > 10 else ''}"
            warnings.warn(f"{len(outside)} of {len(results)} runs (runs {listed}): {results[outside[0]].warnings[0]}",
                          SimulationWarning, stacklevel=4)
    return results


def _frame_form(model: Model) -> bool:
    """A reduced model in a frame or a Hamel model (its y0 may also be (q, u), of length 2n)."""
    return (isinstance(model, ReducedModel) and model.frame is not None) or model.kind == "hamel"


def _other_form(model: Model, rows: str) -> str:
    """The other shape a frame-form model's y0 may have: [q, q'] (length 2n), mapped to its
    quasi-velocities."""
    if not _frame_form(model):
        return ""
    n = model.system.n
    shape = f"({rows}{2 * n})" if rows else f"({2 * n},)"
    return f" or {shape} [q, q'] (mapped to {model.state_names[n:]})"


def _batch_initial_states(model: Model, Y0: np.ndarray, P: list, t0: float, project_y0: bool, rtol,
                          qdot: bool = False) -> tuple:
    """The checked initial states, and {run: message} for the runs whose start is unusable
    (their data or y0 rejected): those runs fail alone, the batch runs the others. ``qdot``: the rows
    are [q, q'] by their labels (:func:`~nonholo.integrate.arguments.labelled_state`)."""
    rejected, states = {}, []
    for i, (y, p) in enumerate(zip(Y0, P)):
        try:
            states.append(initial_state(model, y, t0, p, project_y0, rtol, qdot))
        except (ModelError, ValueError) as exc:
            rejected[i] = f"Run {i} did not start at t = {t0:g}: {exc}"
            states.append(np.zeros(model.n_states))  # not integrated
    return np.array(states).reshape(len(states), -1), rejected


def _failed_raw(message: str, t0: float, n_states: int, flag_name: str = "INITIAL_STATE_REJECTED") -> dict:
    stats = dict(n_steps=0, n_rhs=0, n_jac=0, n_lin_setups=0, n_err_test_fails=0, n_nonlin_iters=0,
                 n_nonlin_fails=0, n_proj=0, n_root_evals=0, last_order=0, last_step=0.0, cpu_time=0.0,
                 t_switch=math.nan)
    return dict(t=np.zeros(0), y=np.zeros((n_states, 0)), status=-1, message=message, flag=0,
                flag_name=flag_name, t_last=t0, stats=stats, t_events=[], y_events=[], messages=[])


def _report_batch(results: list, raise_on_failure: bool) -> list:
    """One warning (or IntegrationError) for the failed runs of a batch; every result is kept
    (``err.results`` holds them all when raising)."""
    failed = [i for i, r in enumerate(results) if r.status < 0]
    if failed:
        first = results[failed[0]]
        listed = f"{failed[:10]}{'...' if len(failed) > 10 else ''}"
        message = f"{len(failed)} of {len(results)} runs failed (runs {listed}); run {failed[0]}: {first.message}"
        if raise_on_failure:
            err = IntegrationError(message, first)
            err.results = results
            raise err
        warnings.warn(message, SimulationWarning, stacklevel=3)
    return results
