"""Parameter studies: convergence of reduced models to the friction model as eps -> 0."""

from __future__ import annotations

import operator
import time
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from .. import _core
from .. import options as check
from ..integrate.simulation import simulate
from ..errors import attach_partial
from ..progress import iterate
from ..numerics import loglog_slope
from .states import parameter_mapping

__all__ = ["convergence", "ConvergenceStudy"]


@dataclass
class ConvergenceStudy:
    """Errors of reduced models of several orders against the friction model.

    Attributes
    ----------
    eps : ndarray, shape (n_eps,)
    orders : tuple of int
    errors : dict order -> ndarray (n_eps,)
        max over the output times of the max-norm difference of (q, u) between the reduced
        model and the friction model (whose u is P v + v_b).
    slip_residuals : dict order -> ndarray (n_eps,)
        max over the output times of |P_perp v - v_b - sum_{k<=K} eps^k h^(k)(q, u)| along the
        friction model's trajectory.
    slopes, slip_slopes : dict order -> float
        Least-squares log-log slopes (expected K + 1).
    times : dict
        Wall times of each run: ``times["friction"][i]``, ``times[K][i]``.
    """

    eps: np.ndarray
    orders: tuple
    errors: dict
    slip_residuals: dict
    slopes: dict
    slip_slopes: dict
    times: dict = field(default_factory=dict)
    system_name: str = ""

    def table(self) -> str:
        """A Markdown table of errors and slopes."""
        head = "| eps | " + " | ".join(f"order {K}" for K in self.orders) + " |"
        lines = [head, "|---" * (len(self.orders) + 1) + "|"]
        for i, e in enumerate(self.eps):
            lines.append(f"| {e:.4g} | " + " | ".join(f"{self.errors[K][i]:.3e}" for K in self.orders) + " |")
        lines.append("| slope | " + " | ".join(f"{self.slopes[K]:.2f}" for K in self.orders) + " |")
        return "\n".join(lines)

    def __repr__(self) -> str:
        slopes = ", ".join(f"K={K}: {self.slopes[K]:.2f}" for K in self.orders)
        return f"<ConvergenceStudy {self.system_name}: eps {self.eps.min():g}..{self.eps.max():g}, slopes {slopes}>"




REFERENCE_SOLVER = {"jacobian_frequency": 1, "setup_frequency": 1}  # the friction runs' Jacobian: every step


def convergence(
    system,
    eps_values: Sequence[float],
    y0,
    t_span: Sequence[float],
    orders: Sequence[int] = (0, 1, 2, 3),
    *,
    t_eval=None,
    rtol: float = 1e-12,
    atol: float = 1e-14,
    params: Mapping | None = None,
    manifold_order: int | None = None,
    progress: bool = True,
) -> ConvergenceStudy:
    """Run the friction model and the reduced models of the given orders for each eps.

    Parameters
    ----------
    system : System
    eps_values : sequence of float
        At least two (four or more for a meaningful slope).
    y0 : array_like, shape (2n,)
        ``[q0, u0]`` with u0 on the constraint set. The friction model starts on the slow
        manifold, v0 = u0 + sum_{k<=manifold_order} eps^k h^(k) (default: max(orders) + 2, at most 16), so
        that no initial layer spoils the orders; the reduced models start at (q0, u0).
    t_span : (t0, tf)
    orders : sequence of int
        Orders K of the reduced models (0 is the nonholonomic model), each once.
    t_eval : array_like, optional
        Times where the errors are measured (default: 11 equispaced times).
    rtol, atol : float
        Tolerances of every run: tight, so that integration errors stay below the model errors. The
        friction runs, the reference, take a Jacobian every step (``REFERENCE_SOLVER``).
    progress : bool
        Show a progress bar (tqdm, if installed).

    Returns
    -------
    ConvergenceStudy
        Errors, slip residuals and their fitted slopes (expected K + 1).
    """
    eps_values = np.asarray(eps_values, dtype=float)
    if eps_values.ndim != 1 or eps_values.size < 2:
        raise ValueError(f"eps_values must be at least two positive numbers, got {eps_values}")
    for i, eps in enumerate(eps_values):
        check.positive(eps, f"eps_values[{i}]")
    if np.unique(eps_values).size != eps_values.size:  # a slope fitted through repeated eps is noise
        raise ValueError(f"eps_values must be distinct, got {eps_values.tolist()}")
    rtol, atol = check.tolerances(rtol, atol)
    orders = _orders(orders)
    n = system.n
    y0 = np.asarray(y0, dtype=float)
    if y0.shape != (2 * n,):
        raise ValueError(f"y0 must have shape ({2 * n},): [q0, u0]")
    q0, u0 = y0[:n], y0[n:]
    t0, tf = check.t_span(t_span)
    if tf < t0:
        raise ValueError(f"t_span must run forward in time, got {t_span}: the friction model's fast modes decay "
                         "at rates about 1/eps forward in time and grow as fast backward, so no run of it backward "
                         "from the slow manifold stays there")
    t_eval = np.linspace(t0, tf, 11) if t_eval is None else check.t_eval(t_eval, t0, tf)
    # the start's own order: two above the highest studied (at most the highest the series gives)
    manifold_order = min(max(orders) + 2, _core.max_slow_manifold_order) if manifold_order is None \
        else int(manifold_order)
    sys_params = dict(parameter_mapping(params) or {})
    kw = dict(t_eval=t_eval, rtol=rtol, atol=atol)

    errors = {K: [] for K in orders}
    slips = {K: [] for K in orders}
    times: dict = {"friction": [], **{K: [] for K in orders}}
    try:
        for eps in iterate(eps_values, len(eps_values), f"convergence ({system.name})", progress):
            v0 = system.on_slow_manifold(q0, u0, eps, order=manifold_order, t=t0, params=sys_params)
            start = time.perf_counter()
            # the reference: a Jacobian every step (a kept one leaves an error CVODE's Newton test does not see, the
            # floor of the errors: an outside probe's sleigh 5.8e-10 at rtol 1e-12, 5.1e-11 with one every step)
            full = simulate(system.friction(eps), (t0, tf), np.r_[q0, v0], params=sys_params, raise_on_failure=True,
                            solver_options=REFERENCE_SOLVER, **kw)
            times["friction"].append(time.perf_counter() - start)
            q_full = full.q
            u_full = np.array([system.project(q, v, t, sys_params) for q, v, t in zip(full.q.T, full.v.T, full.t)]).T
            slip_full = full.v - u_full
            for K in orders:
                reduced = system.reduced(eps, order=K)
                start = time.perf_counter()
                red = simulate(reduced, (t0, tf), y0, params=sys_params, raise_on_failure=True, **kw)
                times[K].append(time.perf_counter() - start)
                errors[K].append(max(np.abs(red.q - q_full).max(), np.abs(red.v - u_full).max()))
                # the truncated manifold sum_{k<=K} eps^k h^(k) along the friction trajectory (C++, one pass)
                manifold = reduced.velocity(full.t, np.vstack([q_full, u_full]), sys_params) - u_full
                slips[K].append(float(np.abs(slip_full - manifold).max()))
    except KeyboardInterrupt as exc:  # Ctrl-C: the study of the eps values done goes with it
        done = min((len(errors[K]) for K in orders), default=0)
        raise attach_partial(exc, _study(eps_values[:done], orders, errors, slips, times, system.name))
    return _study(eps_values, orders, errors, slips, times, system.name)


def _orders(orders) -> tuple:
    """The orders K of a study: distinct integers >= 0, in the given order."""
    try:
        given = list(orders)
    except TypeError:
        raise TypeError(f"orders must be a sequence of integers >= 0, got {orders!r}") from None
    out = []
    for i, K in enumerate(given):
        try:
            if isinstance(K, bool):
                raise TypeError
            K = operator.index(K)
        except TypeError:
            raise TypeError(f"orders[{i}] must be an integer >= 0, got {K!r}") from None
        if not 0 <= K <= _core.max_slow_manifold_order:
            raise ValueError(f"orders[{i}] must be an integer from 0 to {_core.max_slow_manifold_order}, got {K}")
        if K in out:
            raise ValueError(f"orders has the order {K} twice: give each order once")
        out.append(K)
    if not out:
        raise ValueError("orders must name at least one order")
    return tuple(out)


def _study(eps_values, orders, errors, slips, times, name) -> ConvergenceStudy:
    """The study of the eps values done (slopes NaN with fewer than two, and, with a warning, where
    a value is zero: a model exact at those eps has no rate to fit)."""
    n = len(eps_values)
    errors = {K: np.array(v[:n]) for K, v in errors.items()}
    slips = {K: np.array(v[:n]) for K, v in slips.items()}

    def slope(values, what, K):
        if n < 2:
            return float("nan")
        if not np.all(np.abs(values) > 0):
            zero = ", ".join(f"{e:g}" for e in eps_values[~(np.abs(values) > 0)])
            warnings.warn(f"convergence: the {what} of order {K} are zero at eps = {zero} (the reduced model is "
                          "exact there, to rounding): their slope is NaN", RuntimeWarning, stacklevel=4)
            return float("nan")
        return loglog_slope(eps_values, values)

    return ConvergenceStudy(
        eps=eps_values, orders=orders, errors=errors, slip_residuals=slips,
        slopes={K: slope(errors[K], "errors", K) for K in orders},
        slip_slopes={K: slope(slips[K], "slip residuals", K) for K in orders},
        times={k: np.array(v[:n]) for k, v in times.items()}, system_name=name,
    )
