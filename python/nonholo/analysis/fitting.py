"""Parameter estimation: weighted least squares on trajectories with the exact Jacobian from
the forward sensitivities (:mod:`nonholo.integrate.sensitivity`), in the manner of AMICI/pyPESTO and
SciPy's ``curve_fit``.

    minimize  1/2 sum_i w_i (h_i(theta) - y_i)^2,

h the observed quantities of ``simulate(model, ..., params=theta)``; the Jacobian dh/dtheta is
read from the sensitivities, never from difference quotients. At the optimum the covariance
is ``s^2 (J^T W J)^-1`` (s^2 = 2 cost / (n_obs - n_params) unless ``absolute_sigma``), the
linearized (Gauss-Newton) estimate of Bard, *Nonlinear Parameter Estimation* (1974), 7-5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from .. import options as check
from ..models.model import Model, apply_compile
from ..errors import attach_partial
from ..integrate.simulation import simulate
from .states import parameter_mapping

#: The simulations compile="auto" expects of a fit (least_squares' evaluations at the trust region's
#: trial points; at least a handful for one parameter, tens for several).
FIT_EVALUATIONS = 20

__all__ = ["fit", "FitResult", "FitProgress"]


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
    ``covariance``, ``stderr`` (name -> standard error, its diagonal's square roots, keyed as
    ``params``), ``residuals (weighted,
    h - y_obs times sqrt(w), flat), ``jacobian`` (weighted, of the residuals), ``cost``
    (1/2 sum residuals^2), ``success``, ``message``, ``nfev``, ``simulation`` (the trajectory
    at the estimates), ``observed`` and ``predicted`` (flat, unweighted).
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

    @property
    def params(self) -> dict:
        return dict(zip(self.names, self.x))

    @property
    def stderr(self) -> dict:
        """name -> standard error (the square root of the covariance's diagonal), keyed as ``params``."""
        return dict(zip(self.names, np.sqrt(np.diag(self.covariance))))

    def plot(self, ax=None):
        """Observed data (markers) against the fitted prediction (lines), and the estimates
        with their standard errors in the title. Returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        label = ", ".join(f"{n} = {v:.4g} ± {e:.2g}" for n, v, e in zip(self.names, self.x, self.stderr.values()))
        if self.observe_names is not None:
            obs = self.observed.reshape(len(self.observe_names), -1)
            pred = self.predicted.reshape(len(self.observe_names), -1)
            for name, o, p in zip(self.observe_names, obs, pred):
                line, = ax.plot(self.t_obs, p, label=f"{name} (fit)")
                ax.plot(self.t_obs, o, "o", ms=3, color=line.get_color(), label=f"{name} (data)")
            ax.set_xlabel("t")
        else:
            idx = np.arange(self.observed.size)
            ax.plot(idx, self.observed, "o", label="data")
            ax.plot(idx, self.predicted, "x", label="fit")
            ax.set_xlabel("observation")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
        return ax


def _state_observer(model: Model, names: Sequence[str]):
    """observe(result) -> (values, jacobian) for states named in ``names``, at result.t."""
    states = model.state_names
    unknown = [s for s in names if s not in states]
    if unknown:
        raise ValueError(f"observe names unknown states {unknown}; the model's states are {states}")
    rows = [states.index(s) for s in names]

    def observe(result):
        values = result.y[rows]
        jac = np.transpose(result.sensitivities[rows], (0, 2, 1)).reshape(-1, result.sensitivities.shape[1])
        return values, jac

    return observe


def _name(key):
    """A parameter given by name or by a symbol of that name (whatever its assumptions)."""
    return key.name if isinstance(key, sp.Symbol) else key


def _start(model: Model, params) -> tuple:
    if isinstance(params, (str, sp.Symbol)):
        params = [params]
    defaults = model.params
    if isinstance(params, Mapping):
        names, x0 = [_name(k) for k in params], [float(v) for v in params.values()]
    else:
        names = [_name(k) for k in params]
        x0 = [defaults[n] for n in names if n in defaults]
    unknown = [n for n in names if n not in defaults]
    if unknown:
        raise ValueError(f"params names unknown parameters {unknown}; the model's parameters are {list(defaults)}")
    if not names:
        raise ValueError("params is empty: name at least one parameter to fit")
    return names, np.array(x0, dtype=float)


def _weights(weights, shape: tuple) -> np.ndarray:
    """``weights`` broadcast to the shape of y_obs; ValueError naming both shapes when it does not."""
    w = np.asarray(weights, dtype=float)
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
        Any model (nonholonomic, vakonomic, friction, reduced).
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
        Initial state (as for ``simulate``).
    observe : list of state names, or callable
        State names (default: all states), or ``observe(result) -> (values, jacobian)`` with
        ``values`` the predicted observations (any shape, matched to ``y_obs``) and
        ``jacobian`` of shape (values.size, n_params), built from ``result.sensitivities``,
        ``result.t_events_sensitivities`` ... (columns in the order of ``params``). NaN values
        mark a parameter point where the observation does not exist (e.g. fewer events): the
        trust region rejects such trial points and shrinks (at the start it is an error).
    weights : array_like, optional
        Per observation (shape of ``y_obs``, or one that broadcasts to it: a scalar, one value
        per time), e.g. 1 / sigma^2; non-negative and finite. Default 1.
    bounds : (lower, upper), optional
        As in ``least_squares``: scalars or one value per parameter.
    fixed : mapping name -> value, optional
        Other parameter values held fixed.
    absolute_sigma : bool
        ``weights`` are exact inverse variances: the covariance is (J^T W J)^-1, not scaled by
        the residual variance.
    compile : {"auto", True, False}
        "auto" (default): after the simulation at the starting point, the model's tapes that are
        bit for bit the interpreter's are compiled when FIT_EVALUATIONS (20) simulations like it
        are predicted to repay the build (:func:`nonholo.expressions.compiled.auto_compile`), so
        the fit is the same either way; True: ``model.compile()`` first; False: as it is.
    simulate_options
        Passed to :func:`simulate` (events, method, project_y0, ...).

    Raises
    ------
    KeyboardInterrupt
        Ctrl-C stops the fit and re-raises the same KeyboardInterrupt with ``exc.partial``, a
        :class:`FitProgress`: the best parameters among the simulations that finished (a dict
        name -> value) with their cost and trajectory; None when none had.

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
    from scipy.optimize import least_squares

    compile = check.compile_option(compile)
    apply_compile(model, compile is True, 0)
    names, x0 = _start(model, params)
    t_obs = np.asarray(t_obs, dtype=float).reshape(-1)
    if t_obs.size == 0:
        raise ValueError("t_obs is empty: give at least one observation time")
    span = check.t_span((t_obs[0], t_obs[-1]) if t_span is None else t_span)
    t_obs = check.t_eval(t_obs, *span)
    rtol, atol = check.tolerances(rtol, atol, model.n_states)
    y_obs = np.asarray(y_obs, dtype=float)
    if not np.all(np.isfinite(y_obs)):
        bad = np.argwhere(~np.isfinite(y_obs))
        where = ", ".join(str(tuple(int(i) for i in b)) for b in bad[:5]) + (", ..." if len(bad) > 5 else "")
        raise ValueError(f"y_obs contains NaN or inf ({len(bad)} of {y_obs.size} values, at the indices {where}); "
                         "fit takes no NaN as a missing value: leave it out (its time from t_obs), or give it any "
                         "finite value and weight 0")
    fixed = parameter_mapping(fixed, "fixed")
    observe_names = None
    if observe is None or isinstance(observe, (list, tuple)):
        observe_names = list(model.state_names if observe is None else observe)
        observer = _state_observer(model, observe_names)
    elif callable(observe):
        observer = observe
    else:
        raise TypeError(f"observe must be state names or a callable observe(result) -> (values, jacobian), got "
                        f"{observe!r}")
    w = np.ones_like(y_obs) if weights is None else _weights(weights, y_obs.shape)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be non-negative and finite")
    sqrt_w = np.sqrt(w).reshape(-1)
    base = dict(fixed or {})
    cache = {}
    best = FitProgress()  # the best finished evaluation: what Ctrl-C hands over

    def evaluate(x):
        key = tuple(x)
        if key not in cache:
            cache.clear()
            sol = simulate(model, span, y0, t_eval=t_obs, params={**base, **dict(zip(names, x))}, rtol=rtol,
                           atol=atol, sensitivities=names, raise_on_failure=True, **simulate_options)
            values, jac = observer(sol)
            values = np.asarray(values, dtype=float)
            if values.shape != y_obs.shape:
                raise ValueError(f"the observed values have shape {values.shape}, y_obs has {y_obs.shape}")
            jac = np.asarray(jac, dtype=float).reshape(values.size, len(names))
            cache[key] = (sol, values.reshape(-1), jac)
            best.record(names, x, sqrt_w * (cache[key][1] - y_obs.reshape(-1)), sol)
        return cache[key]

    def residuals(x):
        return sqrt_w * (evaluate(x)[1] - y_obs.reshape(-1))

    def jacobian(x):
        return sqrt_w[:, None] * evaluate(x)[2]

    lb, ub = (-np.inf, np.inf) if bounds is None else bounds
    options = dict(xtol=1e-12, ftol=1e-12, gtol=1e-12, x_scale="jac")
    options.update(least_squares_options or {})
    try:
        if not np.all(np.isfinite(residuals(x0))):
            raise ValueError(f"the observations are not defined (NaN) at the starting point {dict(zip(names, x0))}")
        if compile == "auto":  # the first simulation tells how many right-hand sides one takes
            apply_compile(model, "auto", FIT_EVALUATIONS * evaluate(x0)[0].stats["n_rhs"])
        res = least_squares(residuals, x0, jac=jacobian, bounds=(lb, ub), method="trf", **options)
    except KeyboardInterrupt as exc:  # Ctrl-C: the best parameters of the simulations that finished
        raise attach_partial(exc, best if best.evaluations else None)
    sol, predicted, _ = evaluate(res.x)
    J = jacobian(res.x)
    r = residuals(res.x)
    dof = max(r.size - len(names), 1)
    JTJ_inv = np.linalg.pinv(J.T @ J)
    covariance = JTJ_inv if absolute_sigma else JTJ_inv * (r @ r / dof)
    return FitResult(names=names, x=res.x, covariance=covariance, residuals=r, jacobian=J, cost=float(0.5 * r @ r),
                     success=bool(res.success), message=res.message, nfev=int(res.nfev), simulation=sol,
                     observed=y_obs.reshape(-1), predicted=predicted, t_obs=t_obs, observe_names=observe_names)
