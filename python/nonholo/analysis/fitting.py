"""Parameter estimation: weighted least squares on trajectories with the exact Jacobian from
the forward sensitivities (:mod:`nonholo.integrate.sensitivity`), in the manner of AMICI/pyPESTO and
SciPy's ``curve_fit``.

    minimize  1/2 sum_i w_i (h_i(theta) - y_i)^2,

h the observed quantities of ``simulate(model, ..., params=theta)``; the Jacobian dh/dtheta is
read from the sensitivities, never from difference quotients. At the optimum the covariance
is ``s^2 (J^T W J)^-1`` (s^2 = 2 cost / (n - r) unless ``absolute_sigma``), the linearized
(Gauss-Newton) estimate of Bard, *Nonlinear Parameter Estimation* (1974), 7-5. n counts the
observations of nonzero weight only (a weight 0 removes its observation: the fit and its
covariance are those without it), r is the rank of J (n_params when every parameter is identified).

Identifiability: with the SVD sqrt(W) J = U S V^T, the directions v of parameter space with
singular value below eps max(n, n_params) s_max (the rank test of SciPy's ``curve_fit`` and NumPy's
``matrix_rank``) leave the observations unchanged to working precision: only combinations of the
parameters along the other directions are determined by the data. A parameter i is identified when
e_i is orthogonal to those directions (its component there, ||P e_i|| with P = V_0 V_0^T the
projector onto them, below sqrt(eps)); its variance is then s^2 e_i^T (J^T W J)^+ e_i, the same in
any parametrization of the identified combinations. The covariance entries of the others are inf
(``curve_fit`` fills the whole matrix with inf) and an OptimizeWarning names them, grouped by the
couplings of P (i and j coupled when P e_i and P e_j are not orthogonal, their cosine above
sqrt(eps)): "F and m enter only in a combination" when only F/m reaches the observations.

Trial points out of the model's range: a trial point of the trust region (trf, dogbox) where the
simulation fails (ModelError: e.g. a metric no longer positive definite; IntegrationError) gets
NaN residuals, and SciPy's trf and dogbox reject such a step and shrink the radius to a quarter
of its length (``if not np.all(np.isfinite(f_new)): Delta = 0.25 * step_h_norm``), as for NaN
observations. MINPACK's lm has no such branch: there the failure is an error. At the starting
point there is no step to reject: the error propagates, naming the start.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from .. import options as check
from ..models.model import Model, apply_compile
from ..errors import IntegrationError, ModelError, attach_partial
from ..integrate.holonomic_start import holonomic_parameters
from ..integrate.simulation import simulate
from ..models.law_core import CoreLawReducedModel
from ..system.arguments import key_name
from ..models.reduced import maps_initial_state
from ..models.stick_slip import StickSlipModel
from .fit_quality import bound_note, resolution_note, stationarity_note
from .states import parameter_mapping

#: The simulations compile="auto" expects of a fit (least_squares' evaluations at the trust region's
#: trial points; at least a handful for one parameter, tens for several).
FIT_EVALUATIONS = 20

__all__ = ["fit", "FitResult", "FitProgress"]

#: simulate's arguments that fit gives each simulation itself
_FIT_SETS = ("t_eval", "sensitivities", "raise_on_failure")


class FitProgress(dict):
    """What a fit interrupted by Ctrl-C had found (``exc.partial``): name -> value of the best
    parameters among the simulations that finished, with ``cost`` (1/2 the sum of the squared
    weighted residuals there), ``simulation`` (the trajectory there) and ``evaluations`` (the
    simulations that finished)."""

    def __init__(self):
        super().__init__()
        self.cost, self.simulation, self.evaluations = np.inf, None, 0

    def record(self, names, x, residuals, simulation) -> None:
        self.evaluations += 1
        cost = 0.5 * float(residuals @ residuals)
        if not self.evaluations - 1 or cost < self.cost:  # the first, or a better one
            self.clear()
            self.update(zip(names, (float(v) for v in x)))
            self.cost, self.simulation = cost, simulation


@dataclass
class FitResult:
    """Outcome of :func:`fit`.

    Attributes: ``params`` (name -> estimate), ``x`` (estimates in the order of ``names``),
    ``covariance`` (inf in the rows and columns of parameters the data do not identify, NaN in
    those of a standard error below its estimate's floating-point spacing),
    ``stderr`` (name -> standard error, its diagonal's square roots, keyed as
    ``params``), ``residuals`` (weighted,
    h - y_obs times sqrt(w), flat), ``jacobian`` (weighted, of the residuals), ``cost``
    (1/2 sum residuals^2), ``success`` (False also where least_squares stopped on its step or cost
    tolerance at a point that is not stationary: :mod:`nonholo.analysis.fit_quality`), ``message``,
    ``nfev``, ``simulation`` (the trajectory at the estimates), ``observed`` and ``predicted``
    (flat, unweighted), ``at_bounds`` (the names of the estimates a bound holds: the fit is a minimum
    on the box there, which the message and a warning say; their standard errors are no uncertainty).
    """

    names: list
    x: np.ndarray
    covariance: np.ndarray
    residuals: np.ndarray
    jacobian: np.ndarray
    cost: float
    success: bool
    message: str
    nfev: int
    simulation: object
    observed: np.ndarray
    predicted: np.ndarray
    t_obs: np.ndarray = field(default=None)
    observe_names: list = field(default=None)
    weights: np.ndarray = field(default=None)  # flat, as observed: a weight 0 left its observation out
    at_bounds: list = field(default_factory=list)  # names of the estimates held at a bound (fit_quality.bound_note)

    def __repr__(self) -> str:
        estimates = ", ".join(f"{n}={v:.6g} ± {e:.2g}" for n, v, e in zip(self.names, self.x, self.stderr.values()))
        return (f"FitResult(success={self.success}, {estimates}, cost={self.cost:.4g}, nfev={self.nfev}, "
                f"message={self.message!r})")  # whole: a warning (an unidentified parameter) ends it

    @property
    def params(self) -> dict:
        return dict(zip(self.names, self.x))

    @property
    def stderr(self) -> dict:
        """name -> standard error (the square root of the covariance's diagonal), keyed as ``params``."""
        return dict(zip(self.names, np.sqrt(np.diag(self.covariance))))

    def plot(self, ax=None):
        """Observed data (markers; hollow where a weight 0 left them out of the fit) against the
        fitted prediction (lines), and the estimates with their standard errors in the title.
        Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        label = ", ".join(f"{n} = {v:.4g} ± {e:.2g}" for n, v, e in zip(self.names, self.x, self.stderr.values()))
        if self.observe_names is not None:
            obs = self.observed.reshape(len(self.observe_names), -1)
            pred = self.predicted.reshape(len(self.observe_names), -1)
            left = (np.zeros(self.observed.size, dtype=bool) if self.weights is None else
                    self.weights == 0).reshape(obs.shape)  # weight 0: not fitted, drawn hollow
            for name, o, p, out in zip(self.observe_names, obs, pred, left):
                line, = ax.plot(self.t_obs, p, label=f"{name} (fit)")
                ax.plot(self.t_obs[~out], o[~out], "o", ms=3, color=line.get_color(), label=f"{name} (data)")
                if out.any():
                    ax.plot(self.t_obs[out], o[out], "o", ms=3, mfc="none", color=line.get_color(),
                            label=f"{name} (weight 0, not fitted)")
            ax.set_xlabel("t")
        else:
            idx = np.arange(self.observed.size)
            ax.plot(idx, self.observed, "o", label="data")
            ax.plot(idx, self.predicted, "x", label="fit")
            ax.set_xlabel("observation")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
        return ax


def _repeated(names) -> list:
    """The names that ``names`` holds more than once, sorted."""
    names = list(names)
    return sorted({n for n in names if names.count(n) > 1})


def _state_observer(model: Model, names: Sequence[str]):
    """observe(result) -> (values, jacobian) for states named in ``names``, at result.t."""
    states = model.state_names
    unknown = [s for s in names if s not in states]
    if unknown:
        raise ValueError(f"observe names unknown states {unknown}; the model's states are {states}")
    twice = _repeated(names)
    if twice:  # a row of y_obs per name: one observed twice weighs double, or its two rows differ
        raise ValueError(f"observe names {twice} more than once: name each observed state once (weights= weighs them)")
    rows = [states.index(s) for s in names]

    def observe(result):
        values = result.y[rows]
        jac = np.transpose(result.sensitivities[rows], (0, 2, 1)).reshape(-1, result.sensitivities.shape[1])
        return values, jac

    return observe


def _observation(out, by_callable: bool, y_shape: tuple, n_params: int) -> tuple:
    """(values, jacobian) as float arrays from what the observer returned; for a callable ``observe``,
    TypeError naming it when that is no pair of real arrays (an array alone, a pair unpacked from its
    rows, a scalar)."""
    if not by_callable:
        return np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float)
    contract = (f"observe(result) must return a pair (values, jacobian): values of the shape of y_obs {y_shape} "
                f"and the jacobian of shape (values.size, n_params) = ({int(np.prod(y_shape))}, {n_params})")
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        got = (f"an array of shape {out.shape}" if isinstance(out, np.ndarray) else
               f"a {type(out).__name__} of length {len(out)}" if isinstance(out, (tuple, list)) else
               f"{type(out).__name__} {out!r:.60}")
        raise TypeError(f"{contract}; got {got}")
    try:
        return np.asarray(out[0], dtype=float), np.asarray(out[1], dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{contract}; its values or jacobian are no arrays of real numbers ({exc})") from None


def _named(names, x) -> dict:
    return {n: float(v) for n, v in zip(names, x)}


#: An estimate that the integration's error moves by more than this share of it (and more than its standard
#: error) is noted: :func:`_tolerance_note`.
TOLERANCE_SHARE = 1e-3
#: ... measured by a run at the estimates with rtol and atol divided by this, with rtol no lower than TIGHTEST
#: (a fit at rtol 1e-12, whose runs with sensitivities were 6% off a damping of 1e-9, is checked at 1e-13).
TIGHTER, TIGHTEST = 100.0, 1e-13


def _tolerance_note(names, x, J, tight_residuals, stderr, tight) -> str | None:
    """A note for the estimates that the integration's error moves by more than TOLERANCE_SHARE of their
    value and more than their standard error: ``tight_residuals`` are the weighted residuals of a run at
    the estimates without sensitivities at rtol ``tight`` (TIGHTER times tighter, no lower than TIGHTEST),
    r + change with change the tight run's observations minus the fit's, and their least-squares image in
    the parameters, -J^+ (r + change), how far the estimates would move (a Gauss-Newton step) were the
    observations computed that much more precisely. At a stationary point J^+ r = 0 and that is -J^+ change;
    (J's columns of the estimates held at a bound are zero: those do not move);
    a fit the loose integration's noise stopped short is not stationary (an outside probe's fit at rtol 1e-8
    stopped at its start, 100% off, with success: -J^+ change said +7.5e-12 where -J^+ (r + change) says
    -1e-8, the move it needed). The standard error sees the integration's error as scatter, which
    it is not: it is smooth along the run (a phase that grows) and lands on a column it resembles. An
    outside probe's damping c = 1e-8 of x'' = -c x' - x, fitted to its closed form over 20 s, came out
    9.415e-9 (5.8 % off) with a standard error of 3.6e-11 and no word; at rtol 1e-12, 7e-11 off."""
    with np.errstate(all="ignore"):
        shift = -np.linalg.lstsq(J, tight_residuals, rcond=None)[0]
    loose = [f"{name} by {d:+.2g} ({abs(d) / abs(v):.2g} of it)" if v else f"{name} by {d:+.2g}"
             for name, d, v, e in zip(names, shift, x, stderr)
             if np.isfinite(d) and abs(d) > TOLERANCE_SHARE * abs(v) and abs(d) > e]
    if not loose:
        return None
    return (f"the integration's error moves the estimates: with rtol={tight:g} (the states observed, without "
            f"sensitivities) they would move {', '.join(loose)}, more than their standard errors (which see the "
            "integration's error as scatter): tighten rtol and atol")


def _blind(names, x0, J, sqrt_w, values, rtol, atol) -> list:
    """The parameters whose weighted Jacobian column, times the parameter's size (1 at 0), is within
    the integration's tolerances on the weighted observations: zero up to the sensitivities' own error
    (a damping c = 1e-10 that moves x(10) by 5e-9 is resolved at rtol 1e-10: fitted). A knife edge's x
    and y do not depend on its mass; their computed derivatives were 1e-12 there, and the fit wandered
    from m = 1.3 to 0.975 with "success" (to NaN from 0.2)."""
    noise = rtol * np.linalg.norm(sqrt_w * values) + float(np.max(atol)) * np.linalg.norm(sqrt_w)
    size = np.where(x0 != 0, np.abs(x0), 1.0)
    return [n for n, column, s in zip(names, J.T, size) if not np.linalg.norm(column) * s > noise]


def _bounds(bounds, names: list, x0: np.ndarray) -> tuple:
    """(lower, upper) of the fitted parameters, each a number or one per parameter, the start within
    them; ValueError naming the parameter otherwise."""
    if bounds is None:
        return -np.inf, np.inf
    try:
        lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (len(names),)) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be (lower, upper), each a number or {len(names)} numbers (one per parameter "
                         f"of {names}), got {bounds!r:.200}") from None
    for name, a, b, x in zip(names, lo, hi, x0):
        if np.isnan(a) or np.isnan(b) or not a < b:
            raise ValueError(f"bounds of {name!r} are ({a:g}, {b:g}): the lower must be below the upper")
        if not a <= x <= b:
            raise ValueError(f"the start {name} = {x:g} lies outside its bounds ({a:g}, {b:g})")
    return lo, hi


def _start(model: Model, params) -> tuple:
    if isinstance(params, (str, sp.Symbol)):
        params = [params]
    defaults = model.params
    if isinstance(params, Mapping):
        names, x0 = [key_name(k) for k in params], [float(v) for v in params.values()]
    else:
        names = [key_name(k) for k in params]
        x0 = [defaults[n] for n in names if n in defaults]
    unknown = [n for n in names if n not in defaults]
    if unknown:
        raise ValueError(f"params names unknown parameters {unknown}; the model's parameters are {list(defaults)}")
    if not names:
        raise ValueError("params is empty: name at least one parameter to fit")
    twice = _repeated(names)
    if twice:  # was blamed on sensitivities, which the caller never gave
        raise ValueError(f"params names {twice} more than once: name each parameter to fit once")
    return names, np.array(x0, dtype=float)


def _not_fitted(names: list, fixed) -> None:
    """ValueError naming the parameters given both to fit (``params``) and held fixed (``fixed``)."""
    both = [n for n in names if n in {key_name(k) for k in (fixed or {})}]
    if both:
        raise ValueError(f"the parameters {both} are given both in params (to fit) and in fixed (held fixed): "
                         "give each parameter in one of them")


def _fixed_names(model: Model, names: list, fixed) -> None:
    """ValueError naming ``fixed`` and its names that are no parameters of the model, and those it shares
    with ``params`` (:func:`_not_fitted`)."""
    unknown = [key_name(k) for k in (fixed or {}) if key_name(k) not in model.params]
    if unknown:
        raise ValueError(f"fixed names unknown parameters {unknown}; the model's parameters are {list(model.params)}")
    _not_fitted(names, fixed)
    try:  # a value out of the model's range held fixed: named as fixed's (the start was blamed)
        model.param_vector(dict(fixed or {}))
    except ValueError as exc:
        raise type(exc)(f"fixed: {exc}") from None


def _own_options(simulate_options: Mapping) -> None:
    """ValueError for simulate's arguments that fit sets itself (``_FIT_SETS``)."""
    given = [k for k in _FIT_SETS if k in simulate_options]
    if given:
        raise ValueError(f"fit sets {given} of its simulations itself (t_eval = t_obs, sensitivities = the fitted "
                         "parameters, raise_on_failure=True): leave them out")


def _in_constraints(model: Model, names: list) -> list:
    """The fitted parameters that appear in the constraints A(q, p), their affine term b(q, t, p) or the
    holonomic constraints h(q, p) = 0 (a trial value moves the set the start must be on: an outside
    probe's pendulum length fitted from the defaults ended at a refused trial run)."""
    system = getattr(model, "system", None)
    if system is None or not getattr(system, "k", 0):
        return []
    symbols = {s.name for s in (*system.constraints.free_symbols, *system.affine.free_symbols)}
    symbols |= _holonomic_names(system)
    return [n for n in names if n in symbols]


def _holonomic_names(system) -> set:
    """The names of the system's parameters that its holonomic constraints h(q, p) = 0 involve."""
    parameters = list(system.parameters)
    return {parameters[i].name for i in holonomic_parameters(system)}


def _needs_constraints(model: Model, y0) -> bool:
    """True when ``simulate`` requires the velocity of ``y0`` on the constraints (a constrained model, or
    y0 in coordinate velocities mapped into a frame-form or speeds model's state)."""
    if getattr(model, "constrained", False):
        return True
    try:
        return maps_initial_state(model, np.asarray(y0, dtype=float))
    except (TypeError, ValueError):
        return False


def _point(names: list, x, trial: bool) -> str:
    """Where a simulation of the fit ran: its starting point or a trial point, with the parameter values."""
    point = {n: float(v) for n, v in zip(names, x)}
    return f"at the trial point {point} of the fit" if trial else f"at the starting point of the fit, {point}"


def _rejected_note(rejected: list, names: list) -> str:
    """The note of a fit that ended unsuccessfully after rejecting trial points where the simulation
    failed: it may have stopped at the edge of the parameters where the model runs (an outside probe's
    frame-form model, whose runs with sensitivities stop where the frame is re-split, stopped at beta =
    0.039 of 0.2, the message blaming a chaotic cost)."""
    x, exc = rejected[-1]
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return (f"{len(rejected)} trial point(s) were rejected because the simulation failed there, the last "
            f"{_point(names, x, True)}: {first.rstrip('.')}; the fit may have stopped at the edge of the parameters "
            "where the model runs, not at a minimum: remove the cause of that failure (or fit another form of the "
            "model)")


def _at_start(exc: BaseException, names: list, x, trial: bool = False, hint: str | None = None) -> BaseException:
    """``exc`` (the simulation's failure at the fit's starting point, or at a trial point where fit cannot
    reject the step, ``trial``) with the parameter values in its message: at the start there is no step of
    the trust region to reject yet. ``hint`` (None: the model's range) follows."""
    if len(exc.args) == 1 and isinstance(exc.args[0], str):
        advice = ": start within the model's range" if hint is None else ""
        exc.args = (f"{exc.args[0]} ({_point(names, x, trial)}{advice}){hint or ''}",)
    return exc


def _lm_refuses(x, names: list, why) -> ValueError:
    """The error of method='lm' at a trial point out of the model's range: MINPACK cannot reject it."""
    point = {n: float(v) for n, v in zip(names, x)}
    return ValueError(f"the trial point {point} of least_squares' method='lm' is out of the model's range ({why}); "
                      "lm cannot reject a step whose residuals are not finite: use method 'trf' (the default) or "
                      "'dogbox', which shrink the trust region there, with bounds that keep the parameters in range")


def _groups(coupling: np.ndarray) -> list:
    """The connected components (lists of indices) of the graph with an edge i - j where coupling[i, j]."""
    left, groups = set(range(len(coupling))), []
    while left:
        stack, group = [min(left)], set()
        while stack:
            i = stack.pop()
            if i in group:
                continue
            group.add(i)
            stack.extend(j for j in np.flatnonzero(coupling[i]) if j not in group)
        groups.append(sorted(group))
        left -= group
    return groups


def _and(words: list) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _covariance(J: np.ndarray, r: np.ndarray, n_obs: int, names: list, absolute_sigma: bool) -> tuple:
    """(covariance, warning message or None) at the optimum (module docstring): s^2 (J^T J)^+ on the
    identified parameters with s^2 = r.r / (n_obs - rank), inf in the rows and columns of the others;
    n_obs the residuals of nonzero weight. Everything inf when no degree of freedom is left for s^2."""
    n = len(names)
    _, s, vt = np.linalg.svd(J, full_matrices=False)
    eps = np.finfo(float).eps
    rank = int(np.sum(s > eps * max(n_obs, n) * s[0])) if s.size else 0
    covariance = (vt[:rank].T / s[:rank] ** 2) @ vt[:rank]
    notes = []
    if not absolute_sigma:
        if n_obs > rank:
            covariance *= r @ r / (n_obs - rank)
        else:
            covariance[:] = np.inf
            notes.append(f"the residual variance needs more observations of nonzero weight ({n_obs}) than "
                         f"identified parameters ({rank}): the covariance is inf (absolute_sigma=True takes the "
                         "weights as inverse variances instead)")
    if rank < n:
        null = vt[rank:]
        projector = null.T @ null  # onto the directions that leave the observations unchanged
        lost = np.flatnonzero(np.diag(projector) > eps)  # ||P e_i|| > sqrt(eps)
        covariance[lost, :] = np.inf
        covariance[:, lost] = np.inf
        parts = []
        norms = np.sqrt(np.diag(projector)[lost])  # coupled: P e_i, P e_j at an angle off 90 deg by > sqrt(eps)
        for group in _groups(np.abs(projector[np.ix_(lost, lost)]) > np.sqrt(eps) * np.outer(norms, norms)):
            members, block = [names[lost[i]] for i in group], projector[np.ix_(lost[group], lost[group])]
            combinations = len(group) - int(round(np.trace(block)))  # what the data still determine of them
            parts.append(f"{members[0]} does not enter the observations" if combinations == 0 else
                         f"{_and(members)} enter only in a combination" if combinations == 1 else
                         f"{_and(members)} enter only in {combinations} combinations")
        notes.insert(0, f"the parameters {[names[i] for i in lost]} are not identified by the observations: "
                        f"{'; '.join(parts)} (the weighted Jacobian has rank {rank} of {n}, singular values "
                        f"{np.array2string(s, precision=3)}); their covariance entries are inf, their estimates "
                        "one point of a set that fits as well (fix some of them, or observe more)")
    return covariance, "; ".join(notes) or None


def _weights(weights, shape: tuple) -> np.ndarray:
    """``weights`` broadcast to the shape of y_obs; ValueError naming both shapes when it does not."""
    w = np.asarray(weights)
    w = check.real_array(w, "weights") if w.dtype.kind == "c" else w.astype(float)  # a mask of bools: 1 and 0
    try:
        return np.broadcast_to(w, shape)
    except ValueError:
        last = f", or {shape[-1:]}" if shape else ""
        raise ValueError(f"weights must have the shape of y_obs, {shape}, or one that broadcasts to it (a scalar"
                         f"{last}), got shape {w.shape}") from None


def fit(
    model: Model,
    t_obs,
    y_obs,
    params,
    y0,
    observe: Sequence[str] | Callable | None = None,
    weights=None,
    bounds=None,
    *,
    fixed: Mapping | None = None,
    absolute_sigma: bool = False,
    t_span: Sequence[float] | None = None,
    rtol: float = 1e-10,
    atol=1e-12,
    least_squares_options: Mapping | None = None,
    compile: bool | str = "auto",
    **simulate_options,
) -> FitResult:
    """Fit model parameters to observations by weighted least squares (SciPy's
    ``least_squares``, trust-region reflective) with the exact Jacobian from sensitivities.

    Parameters
    ----------
    model : Model
        Any model that runs with sensitivities (nonholonomic, vakonomic, friction, reduced, and the
        reduced model of a friction law).
    t_obs : array_like
        Observation times (``t_eval`` of the simulations, sorted); the integration runs over
        ``t_span`` (default ``(t_obs[0], t_obs[-1])``).
    y_obs : array_like
        Observations: shape (n_observed, n_t) for state names, or the shape of the values a
        callable ``observe`` returns. Finite: NaN is no marker of a missing value here (an
        error); leave a missing one out (its time from ``t_obs``), or give it any finite value
        and weight 0.
    params : list of str, or mapping name -> starting value
        Parameters to fit (a list starts from the model's defaults).
    y0 : array_like
        The state at ``t_span[0]``, by default at ``t_obs[0]`` (as for ``simulate``): pass
        ``t_span=(t0, t_obs[-1])`` when the observations start after y0's time t0, and sort t_obs
        increasing for a forward run (decreasing times make it a backward run from ``t_obs[0]``).
    observe : list of state names, or callable
        State names (default: all states), or ``observe(result) -> (values, jacobian)`` with
        ``values`` the predicted observations (any shape, matched to ``y_obs``) and
        ``jacobian`` of shape (values.size, n_params) exactly (row k the derivative of the k-th
        of the flattened values; any other shape is an error), built from ``result.sensitivities``,
        ``result.t_events_sensitivities`` ... (columns in the order of ``params``). NaN values
        mark a parameter point where the observation does not exist (e.g. fewer events): the
        trust region rejects such trial points and shrinks (at the start it is an error).
    weights : array_like, optional
        Per observation (shape of ``y_obs``, or one that broadcasts to it: a scalar, one value
        per time), e.g. 1 / sigma^2; non-negative and finite. Default 1. A weight 0 removes its
        observation: it counts in no degree of freedom of the residual variance.
    bounds : (lower, upper), optional
        As in ``least_squares``: scalars or one value per parameter.
    fixed : mapping name -> value, optional
        Other parameter values held fixed (none of those in ``params``: ValueError).
    absolute_sigma : bool
        ``weights`` are exact inverse variances: the covariance is (J^T W J)^-1, not scaled by
        the residual variance.
    least_squares_options : mapping, optional
        Passed to ``least_squares`` (xtol, ftol, gtol, x_scale, max_nfev, method ...). ``method``
        "trf" (default) or "dogbox" reject a trial point where the simulation fails or the
        observations are NaN; "lm" cannot (an error there) and takes no ``bounds``. Defaults:
        ``xtol=1e-12``, ``ftol=1e-12`` (both relative), ``x_scale="jac"``, and ``gtol=None``
        (trf's and dogbox's gradient test is in the data's units: a fit to data of size 1e-3
        stopped short of the optimum) but 1e-12 with "lm" (its gtol is a cosine).
    compile : {"auto", True, False}
        "auto" (default): after the simulation at the starting point, the model's tapes that are
        bit for bit the interpreter's are compiled when FIT_EVALUATIONS (20) simulations like it
        are predicted to repay the build (:func:`nonholo.expressions.compiled.auto_compile`), so
        the fit is the same either way; True: ``model.compile()`` first; False: as it is.
    simulate_options
        Passed to :func:`simulate` (events, method, project_y0, ...); not ``t_eval``,
        ``sensitivities`` or ``raise_on_failure``, which fit sets (ValueError). When a
        fitted parameter appears in the constraints (A or the affine term b) and ``project_y0`` is
        not given, y0 must lie on the constraints at the starting values, and the simulations at
        the trial points start from its G-orthogonal projection onto the constraints there (as
        ``project_y0=True``; the sensitivities are those of that start).

    Warns
    -----
    OptimizeWarning
        Parameters the observations do not identify (the weighted Jacobian's rank test, module
        docstring), named with their combinations; their covariance entries are inf. A stop on
        ``xtol`` or ``ftol`` at a point that is not first-order stationary (the relative gradient
        of :mod:`nonholo.analysis.fit_quality`: the steps shrank where the gradient did not, as
        over a long horizon of a chaotic motion): ``success`` is False and the message says so.
        Standard errors below the floating-point spacing of their estimates: their covariance
        entries are NaN.

    Raises
    ------
    ModelError, IntegrationError
        The simulation fails at the starting point (the message names it).
    ValueError
        A simulation fails at the starting point or a trial point for a reason the trust region
        cannot reject (the message names the parameter values).
    KeyboardInterrupt
        Ctrl-C stops the fit and re-raises the same KeyboardInterrupt with ``exc.partial``, a
        :class:`FitProgress`: the best parameters among the simulations that finished (a dict
        name -> value) with their cost and trajectory; None when none had. An exception raised by
        an ``observe`` callable comes through as raised, with the same ``exc.partial`` and a note
        naming the parameter values it was called at.

    Examples
    --------
    Recover the position a of the sleigh's centre of mass from its turning rate, observed at six
    times of a run made with a = 0.3, starting from a = 0.2:

    >>> import numpy as np
    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> t_obs, y0 = np.linspace(0, 5, 6), [0, 0, 0, 1, 0, 1]
    >>> observed = nh.simulate(model, (0, 5), y0, t_eval=t_obs, params={"a": 0.3})["phi_dot"]
    >>> result = nh.fit(model, t_obs, observed[None], {"a": 0.2}, y0, observe=["phi_dot"], compile=False)
    >>> result.success, round(float(result.params["a"]), 6)
    (True, 0.3)
    """
    from scipy.optimize import OptimizeWarning, least_squares

    if not isinstance(model, (Model, CoreLawReducedModel)):
        raise TypeError(f"model: nh.fit takes a model that runs with sensitivities (system.nonholonomic(), "
                        f".friction(eps), .reduced(eps), .reduced(order=K, law=...), ...), got {type(model).__name__}"
                        + (": a stick-slip model runs without them; fit the friction model of its system, "
                           "whose eps regularizes the same law" if isinstance(model, StickSlipModel) else ""))
    absolute_sigma = check.flag(absolute_sigma, "absolute_sigma")
    compile = check.compile_option(compile)
    apply_compile(model, compile is True, 0)
    names, x0 = _start(model, params)
    t_obs = check.real_array(t_obs, "t_obs").reshape(-1)  # a complex one refused, not its imaginary part dropped
    if t_obs.size == 0:
        raise ValueError("t_obs is empty: give at least one observation time")
    if t_span is None and (t_obs.size == 1 or t_obs[0] == t_obs[-1]):
        raise ValueError(f"t_obs holds one time ({t_obs[0]:g}): give t_span=(t0, {t_obs[-1]:g}) with the time t0 of y0")
    span = check.t_span((t_obs[0], t_obs[-1]) if t_span is None else t_span)
    steps = np.diff(t_obs) * (1.0 if span[1] > span[0] else -1.0)
    if np.any(steps <= 0):
        i = int(np.argmax(steps <= 0))
        raise ValueError(f"t_obs must be strictly {'increasing' if span[1] > span[0] else 'decreasing'} in the "
                         f"direction of t_span {tuple(span)}: t_obs[{i}] = {t_obs[i]:g}, t_obs[{i + 1}] = "
                         f"{t_obs[i + 1]:g}")
    try:
        t_obs = check.t_eval(t_obs, *span)
    except ValueError as err:
        raise ValueError(str(err).replace("t_eval", "t_obs")) from None
    rtol, atol = check.tolerances(rtol, atol, model.n_states)
    y_obs = check.real_array(y_obs, "y_obs")  # complex: refused (NumPy dropped the imaginary part with a warning)
    if not np.all(np.isfinite(y_obs)):
        bad = np.argwhere(~np.isfinite(y_obs))
        where = ", ".join(str(tuple(int(i) for i in b)) for b in bad[:5]) + (", ..." if len(bad) > 5 else "")
        raise ValueError(f"y_obs contains NaN or inf ({len(bad)} of {y_obs.size} values, at the indices {where}); "
                         "fit takes no NaN as a missing value: leave it out (its time from t_obs), or give it any "
                         "finite value and weight 0")
    fixed = parameter_mapping(fixed, "fixed")
    _fixed_names(model, names, fixed)
    _own_options(simulate_options)
    moving = _in_constraints(model, names)  # fitted parameters in A, b or h: y0 projected at the trial points
    in_h = bool(moving) and bool(_holonomic_names(model.system) & set(moving))  # moving: the model has a system
    project_default = bool(moving) and "project_y0" not in simulate_options and (
        _needs_constraints(model, y0) or in_h)
    hint = (f"; the fitted parameters {moving} appear in the constraints: pass project_y0=True (or leave "
            "project_y0 out) to start each run from y0 projected onto the constraints at its parameters"
            if moving and not simulate_options.get("project_y0", True) else "")
    observe_names = None
    if isinstance(observe, str):
        observe = [observe]  # one state name, as params takes one name
    if observe is None or isinstance(observe, (list, tuple)):
        observe_names = list(model.state_names if observe is None else observe)
        observer = _state_observer(model, observe_names)
        if y_obs.ndim == 2 and y_obs.shape[0] == len(observe_names) and y_obs.shape[1] != t_obs.size:
            raise ValueError(f"t_obs has {t_obs.size} times and y_obs {y_obs.shape[1]} columns (shape {y_obs.shape}): "
                             f"y_obs needs one row per observed state ({len(observe_names)}) and one column per time "
                             "of t_obs")
    elif callable(observe):
        observer = observe
    else:
        raise TypeError(f"observe must be state names or a callable observe(result) -> (values, jacobian), got "
                        f"{observe!r}")
    w = np.ones_like(y_obs) if weights is None else _weights(weights, y_obs.shape)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be non-negative and finite")
    if not np.any(w > 0):
        raise ValueError("weights are all zero: no observation is left to fit (a weight 0 leaves its observation "
                         "out)")
    sqrt_w = np.sqrt(w).reshape(-1)
    base = dict(fixed or {})
    options = dict(xtol=1e-12, ftol=1e-12, x_scale="jac", method="trf")
    options.update(least_squares_options or {})
    # gtol: trf's and dogbox's test the gradient J^T r in the parameters' and the data's units, so on
    # data of size 1e-3 a sleigh's fit stopped at a = 0.295 of 0.3 (at 1e-6 at its start): off by
    # default, xtol and ftol (relative) end the fit; lm's gtol is a cosine, in no units
    options.setdefault("gtol", 1e-12 if options["method"] == "lm" else None)
    cache, trial = {}, False  # trial: least_squares has started, a failing point is a step to reject
    rejected = []  # (x, exc) of the trial points whose simulation failed: said where the fit fails
    best = FitProgress()  # the best finished evaluation: what Ctrl-C hands over

    def evaluate(x):
        """(simulation, flat values, jacobian, why the values are NaN or None) at x."""
        key = tuple(x)
        if key not in cache:
            cache.clear()
            # the start is y0 itself (on the constraints); the trial points project it (project_default)
            projected = {"project_y0": True} if project_default and trial else {}
            try:
                sol = simulate(model, span, y0, t_eval=t_obs, params={**base, **dict(zip(names, x))}, rtol=rtol,
                               atol=atol, sensitivities=names, raise_on_failure=True, **simulate_options, **projected)
            except (ModelError, IntegrationError) as exc:  # out of the model's range (module docstring)
                if not trial:
                    raise _at_start(exc, names, x)
                if options["method"] == "lm":
                    raise _lm_refuses(x, names, exc) from exc
                rejected.append((np.array(x, dtype=float), exc))
                cache[key] = (None, np.full(y_obs.size, np.nan), np.full((y_obs.size, len(names)), np.nan), exc)
                return cache[key]
            except ValueError as exc:  # no step to reject (y0 off the constraints, ...): name the point
                raise _at_start(exc, names, x, trial, hint)
            if observe_names is not None and sol.status == 1 and sol.t.size < t_obs.size:  # states at t_obs
                raise ValueError(f"a terminal event stopped the simulation at t = {sol.t_last:g}, before the "
                                 f"observation times after it ({t_obs.size - sol.t.size} of {t_obs.size}, from "
                                 f"t = {t_obs[sol.t.size]:g}) {_point(names, x, trial)}: fit observations up to "
                                 "the event, or make it non-terminal")
            try:
                observed = observer(sol)
            except Exception as exc:  # the caller's observe: say where, and keep what the fit had found
                if observe_names is not None:
                    raise
                exc.add_note(f"nh.fit: raised by the observe callable {_point(names, x, trial)}; exc.partial holds "
                             "the best parameters of the simulations that finished")
                raise attach_partial(exc, best if best.evaluations else None)
            values, jac = _observation(observed, observe_names is None, y_obs.shape, len(names))
            if values.shape != y_obs.shape:
                contract = ("observe(result) must return (values, jacobian) with values of the shape of y_obs: "
                            if observe_names is None else "")
                raise ValueError(f"{contract}the observed values have shape {values.shape} (at the {t_obs.size} "
                                 f"times of t_obs), y_obs has {y_obs.shape}")
            if jac.shape != (values.size, len(names)):
                raise ValueError(f"the Jacobian the observe callable returns must have the shape (values.size, "
                                 f"n_params) = {(values.size, len(names))}, a row per flattened value and a column "
                                 f"per parameter of {names}; got shape {jac.shape}")
            cache[key] = (sol, values.reshape(-1), jac, None if np.all(np.isfinite(values)) else "NaN observations")
            best.record(names, x, sqrt_w * (cache[key][1] - y_obs.reshape(-1)), sol)
        return cache[key]

    def residuals(x):
        _, values, _, why = evaluate(x)
        if why is not None and trial and options["method"] == "lm":
            raise _lm_refuses(x, names, why)
        return sqrt_w * (values - y_obs.reshape(-1))

    def jacobian(x):
        return sqrt_w[:, None] * evaluate(x)[2]

    lb, ub = _bounds(bounds, names, x0)
    try:
        if not np.all(np.isfinite(residuals(x0))):
            raise ValueError(f"the observations are not defined (NaN) at the starting point {_named(names, x0)}")
        broken = [n for n, column in zip(names, jacobian(x0).T) if not np.all(np.isfinite(column))]
        if broken:  # not "zero", as _blind would read them
            raise ValueError(f"the Jacobian of the observations is not finite (NaN or inf) in the columns of {broken} "
                             f"at the starting point {_named(names, x0)}: check the jacobian an observe callable "
                             "returns, or the model's sensitivities there")
        blind = _blind(names, x0, jacobian(x0), sqrt_w, evaluate(x0)[1], rtol, atol)
        if blind:  # least_squares' scaling by the Jacobian's columns divides by zero there: NaN trial points
            raise ValueError(f"the observations of nonzero weight do not depend on {blind} at the starting point "
                             f"{_named(names, x0)} (their columns of the Jacobian are zero, or below what the "
                             "integration resolves: a change of each by its own size moves the observations by less "
                             "than the tolerances): no data there identify them; observe what they change, weight "
                             "it, fix them, or, where their effect is real but small, tighten rtol and atol")
        if compile == "auto":  # the first simulation tells how many right-hand sides one takes
            apply_compile(model, "auto", FIT_EVALUATIONS * evaluate(x0)[0].stats["n_rhs"])
        trial = True
        res = least_squares(residuals, x0, jac=jacobian, bounds=(lb, ub), **options)
    except KeyboardInterrupt as exc:  # Ctrl-C: the best parameters of the simulations that finished
        raise attach_partial(exc, best if best.evaluations else None)
    sol, predicted, _, _ = evaluate(res.x)
    J = jacobian(res.x)
    r = residuals(res.x)
    covariance, warning = _covariance(J, r, int(np.count_nonzero(sqrt_w)), names, absolute_sigma)
    # steps that shrank where the gradient did not (a chaotic cost), and standard errors below rounding (fit_quality)
    stalled = stationarity_note(int(res.status), J, r, res.x, x0, names, x_scale=options.get("x_scale"),
                                active=getattr(res, "active_mask", None), bounds=(lb, ub), predicted=predicted,
                                sqrt_w=sqrt_w,
                                rtol=rtol, atol=atol)
    covariance, unresolved = resolution_note(covariance, res.x, names)
    loose = None
    tighter = max(rtol / TIGHTER, TIGHTEST)
    if tighter < rtol:  # the integration's share of the estimates' error (_tolerance_note)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a failure of this run is no failure of the fit: no note
                # the states observed: a run without sensitivities, which "auto" integrates with DOP853 (Adams,
                # which carries them, was 4000x less accurate at rtol 1e-12 over 32 periods of an oscillator,
                # and the note quoted its error); a callable observe reads them
                tight = simulate(model, span, y0, t_eval=t_obs, params={**base, **dict(zip(names, res.x))},
                                 rtol=tighter, atol=np.asarray(atol) * (tighter / rtol),
                                 sensitivities=None if observe_names is not None else names,
                                 **simulate_options, **({"project_y0": True} if project_default else {}))
            if tight.success and tight.t.size == t_obs.size:
                values = tight.y[[model.state_names.index(s) for s in observe_names]] if observe_names is not None \
                    else _observation(observer(tight), True, y_obs.shape, len(names))[0]
                change = sqrt_w * (values.reshape(-1) - predicted)
                free = np.asarray(getattr(res, "active_mask", np.zeros(len(names)))) == 0  # not held at a bound
                loose = _tolerance_note(names, res.x, J * free, r + change, np.sqrt(np.abs(np.diag(covariance))),
                                        tighter)
        except (ModelError, IntegrationError, ValueError):
            pass
    at_bounds, bounded = bound_note(J, r, res.x, x0, names, x_scale=options.get("x_scale"),
                                    active=getattr(res, "active_mask", None), bounds=(lb, ub))
    message = res.message
    failed = _rejected_note(rejected, names) if rejected and (stalled is not None or not res.success) else None
    for note in (failed, stalled, warning, unresolved, bounded, loose):
        if note is not None:
            warnings.warn(f"nh.fit: {note}", OptimizeWarning, stacklevel=2)
            message = f"{message} {note[0].upper()}{note[1:]}."
    return FitResult(names=names, x=res.x, covariance=covariance, residuals=r, jacobian=J, cost=float(0.5 * r @ r),
                     success=bool(res.success) and stalled is None, message=message, nfev=int(res.nfev), simulation=sol,
                     observed=y_obs.reshape(-1), predicted=predicted, t_obs=t_obs, observe_names=observe_names,
                     weights=w.reshape(-1), at_bounds=at_bounds)
