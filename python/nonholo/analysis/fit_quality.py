"""What a fit's stop is worth: whether least_squares ended at a first-order stationary point, and
whether its standard errors are resolvable at all (:func:`nonholo.fit`).

Stationarity. least_squares ends on ``xtol`` when its steps become shorter than xtol |x| and on
``ftol`` when they lower the cost by less than ftol of it; both say only that the trust region
shrank, and it also shrinks where the cost varies faster than the fit resolves: over a long horizon
of a chaotic motion the Jacobian of the residuals is huge (|J| = 5.6e27 for a chain of 20 masses
over t = 2000), the linearization holds over a parameter change of 1e-28 only, every larger step is
rejected, and the fit "converged" at its start with a standard error of 4.6e-29. The test is the
relative gradient of Dennis and Schnabel (*Numerical Methods for Unconstrained Optimization and
Nonlinear Equations*, 1983, 7.2), scale-free in the parameters and the data:

    rel_i = |g_i| s_i / cost,   g = J^T r,   s_i = max(|x_i|, |x0_i|, x_scale_i),

the first-order change of the cost when x_i moves by its own scale, relative to the cost. At a
minimum the fit resolved it is zero up to the simulations' error; where it exceeds 1 the
linearization at the stop takes the cost to zero within less than the parameter's own scale,
yet no step lowered it: the steps shrank where the gradient did not. A point is reported as not
stationary where also the gradient is beyond what the residuals' error could make of it:
|g_i| > GRADIENT_NOISE |J_i| |e| (Cauchy-Schwarz: |J_i^T e| <= |J_i| |e|), with e the weighted
error the simulations are asked for, rtol |h| + atol per observation. That guard keeps the fits
to exact data (simulated at the truth) honest: there the cost is the simulations' error itself,
1e-20 or less, rel_i is large for a gradient of rounding size, and the gradient stays within a
few times that bound (4 at most in the test suite's fits). Bounds that hold a parameter
(least_squares' ``active_mask``, or within AT_BOUND of a bound its gradient points out of) are a
minimum with a gradient: those parameters are not tested.

Resolution. A standard error below the floating-point spacing of its estimate (``np.spacing``)
says the data fix the parameter finer than the numbers that hold it: it is rounding or a Jacobian
beyond any resolution (the 4.6e-29 above), not an uncertainty of the data. Its covariance entries
are NaN, with a warning.
"""

from __future__ import annotations

import numpy as np

__all__ = ["stationarity_note", "resolution_note", "held_at_bounds", "bound_note", "STOPPED_ON_STEPS", "GRADIENT_NOISE",
           "AT_BOUND"]

STOPPED_ON_STEPS = {2: "ftol", 3: "xtol", 4: "ftol and xtol"}  # least_squares' status -> the test that ended it
GRADIENT_NOISE = 1e3  # a gradient this many times the bound the residuals' error gives is no error (module doc)


def _scales(x: np.ndarray, x0: np.ndarray, x_scale, column: np.ndarray) -> np.ndarray:
    """s_i = max(|x_i|, |x0_i|, x_scale_i) (x_scale where given as numbers); where that is zero, the
    scale x_scale="jac" gives, 1 / |J_i| (1 for a column of zeros)."""
    given = np.zeros_like(x)
    if x_scale is not None and not isinstance(x_scale, str):
        given = np.broadcast_to(np.abs(np.asarray(x_scale, dtype=float)), x.shape)
    scale = np.maximum(np.maximum(np.abs(x), np.abs(x0)), given)
    fallback = np.where(column > 0, 1.0 / np.where(column > 0, column, 1.0), 1.0)
    return np.where(scale > 0, scale, fallback)


#: How close to a bound, relative to max(1, |bound|, the parameter's scale), a parameter whose gradient
#: points out of the box counts as held there: SciPy's ``active_mask`` marks only those within xtol (1e-12 with
#: fit's default), and its trust region stopped a sleigh's friction coefficient 1.7e-12 above its bound.
AT_BOUND = 1e-6


def held_at_bounds(x: np.ndarray, g: np.ndarray, scale: np.ndarray, bounds) -> np.ndarray:
    """Per parameter, whether it stops at a bound that blocks its descent -g: at the lower bound with
    g > 0, at the upper with g < 0 (a minimum on the box: the projected gradient is zero there)."""
    if bounds is None:
        return np.zeros(x.size, bool)
    lb, ub = (np.broadcast_to(np.asarray(b, dtype=float), x.shape) for b in bounds)
    with np.errstate(invalid="ignore"):
        near_lb = np.isfinite(lb) & ((x - lb) <= AT_BOUND * np.maximum(np.maximum(1.0, np.abs(lb)), scale))
        near_ub = np.isfinite(ub) & ((ub - x) <= AT_BOUND * np.maximum(np.maximum(1.0, np.abs(ub)), scale))
    return (near_lb & (g > 0)) | (near_ub & (g < 0))


def stationarity_note(status: int, J: np.ndarray, r: np.ndarray, x, x0, names: list, *, x_scale=None,
                      active=None, bounds=None, predicted=None, sqrt_w=None, rtol: float = 1e-10,
                      atol=1e-12) -> str | None:
    """Why the stop of least_squares (``status``) at ``x`` is no first-order stationary point (module
    docstring), or None: a stop on ``xtol`` or ``ftol`` where some parameter not held by a bound has
    a relative gradient above 1 and a gradient beyond GRADIENT_NOISE times the residuals' error.
    ``J``, ``r``: the weighted Jacobian and residuals there; ``predicted`` (unweighted) and ``sqrt_w``
    give the error rtol |h| + atol of each observation."""
    if status not in STOPPED_ON_STEPS:
        return None
    x, x0 = np.asarray(x, dtype=float), np.asarray(x0, dtype=float)
    g = J.T @ r
    cost = 0.5 * float(r @ r)
    column = np.linalg.norm(J, axis=0)
    scale = _scales(x, x0, x_scale, column)
    h = np.zeros(r.size) if predicted is None else np.abs(np.asarray(predicted, dtype=float))
    weight = np.ones(r.size) if sqrt_w is None else np.asarray(sqrt_w, dtype=float)
    error = float(np.linalg.norm(weight * (rtol * h + float(np.max(atol)))))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(g != 0, np.abs(g) * scale / cost, 0.0) if cost > 0 else np.zeros_like(g)
    held = np.zeros(x.size, bool) if active is None else np.asarray(active) != 0
    held |= held_at_bounds(x, g, scale, bounds)
    bad = np.flatnonzero((rel > 1.0) & (np.abs(g) > GRADIENT_NOISE * column * error) & ~held)
    if not bad.size:
        return None
    listed = ", ".join(f"{rel[i]:.3g} times the cost for {names[i]} (gradient {g[i]:.3g})" for i in bad)
    return (f"the fit stopped on least_squares' {STOPPED_ON_STEPS[status]} at a point that is not stationary: the "
            f"first-order change of the cost ({cost:.4g}) over a parameter's own scale, |g_i| max(|x_i|, |x0_i|) "
            f"with g = J^T r, is {listed}, far beyond what the simulations' error makes of the gradient, yet no step "
            "lowered the cost: the steps shrank where the gradient did not. The cost varies faster than the fit "
            "resolves (a chaotic or ill-conditioned problem, e.g. a long horizon of a chaotic motion): fit over "
            "shorter horizons, or from a better start; the estimates are no minimum and the covariance describes "
            "none")


def resolution_note(covariance: np.ndarray, x, names: list) -> tuple:
    """(covariance, note or None): NaN in the rows and columns of the parameters whose standard error
    is below the floating-point spacing of their estimate (module docstring), and what the note says."""
    x = np.asarray(x, dtype=float)
    with np.errstate(invalid="ignore"):
        stderr = np.sqrt(np.diag(covariance))
    spacing = np.spacing(np.abs(x))
    lost = np.flatnonzero(np.isfinite(stderr) & (stderr < spacing))
    if not lost.size:
        return covariance, None
    covariance = covariance.copy()
    covariance[lost, :] = np.nan
    covariance[:, lost] = np.nan
    listed = ", ".join(f"{names[i]} ({stderr[i]:.2g} < {spacing[i]:.2g})" for i in lost)
    return covariance, (f"the standard errors of {listed} are below the floating-point spacing of their estimates: "
                        "no data fix a parameter finer than the numbers that hold it, so they measure rounding or "
                        "a Jacobian beyond any resolution, not the data; their covariance entries are NaN")


def bound_note(J: np.ndarray, r: np.ndarray, x, x0, names: list, *, x_scale=None, active=None,
               bounds=None) -> tuple:
    """(names, note or None): the estimates a bound holds and what the note says: the fit is a minimum
    on the box, not an interior one, and a standard error there is the cost's curvature, not an
    uncertainty (a probe's a = 0.35000000000000003 at its lower bound, true value 0.3, read
    "success" with a standard error of 0.0084 and nothing else). Held: at a bound (least_squares'
    ``active_mask``, or within AT_BOUND of a bound the gradient g = J^T r points out of) and with
    the minimum of the cost's quadratic model along the parameter, x_i - g_i / (J^T J)_ii, beyond
    that bound (an interior optimum 4.5e-9 inside a bound set 1e-9 beyond it was called held)."""
    x, x0 = np.asarray(x, dtype=float), np.asarray(x0, dtype=float)
    g = J.T @ r
    held = np.zeros(x.size, bool) if active is None else np.asarray(active) != 0
    held |= held_at_bounds(x, g, _scales(x, x0, x_scale, np.linalg.norm(J, axis=0)), bounds)
    if not held.any():
        return [], None
    lb, ub = (np.broadcast_to(np.asarray(b, dtype=float), x.shape) for b in bounds)
    curvature = np.einsum("ij,ij->j", J, J)
    with np.errstate(divide="ignore", invalid="ignore"):
        newton = np.where(curvature > 0, x - g / curvature, np.where(g > 0, -np.inf, np.inf))
    held &= (newton < lb) | (newton > ub)
    if not held.any():
        return [], None
    side = ["lower" if abs(x[i] - lb[i]) <= abs(ub[i] - x[i]) else "upper" for i in range(x.size)]
    at = [i for i in range(x.size) if held[i]]
    listed = ", ".join(f"{names[i]} = {x[i]:.6g} at its {side[i]} bound" for i in at)
    return [names[i] for i in at], (f"the estimates stop at a bound: {listed}; the cost falls beyond it, so this is a "
                                    "minimum on the box, not an interior one, and a standard error there describes "
                                    "the cost's curvature, not an uncertainty of the estimate (widen the bounds if "
                                    "the data should decide)")
