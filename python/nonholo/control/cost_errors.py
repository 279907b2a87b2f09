"""The error of a plan's objective, interval by interval: the running cost integrated along each
interval's re-run under the planned controls (the re-integration of
:mod:`~nonholo.control.reintegration`, from the interval's first node) against the transcription's
quadrature of it at the plan's points (:attr:`OptimalControlSolution.cost_errors`, whose sum is
:attr:`~OptimalControlSolution.objective_error`).

The check of every solve (:attr:`~OptimalControlSolution.interval_errors`) measures whether the
states are a motion of the dynamics under the planned controls; it does not see the cost. An outside
probe's x' = u with the cost (x^2 + eps^2 u^2) / 2, eps = 0.02, from x = 1 to 0 in T = 1 (J* = eps
coth(1 / eps) / 2 = 0.0100000, a boundary layer of width eps): on 11 nodes its dynamics hold exactly
(defect 7e-16) while its objective was 24 % above J* with Hermite-Simpson (179 % with the trapezoid),
the cost of its own controls 11 % below its objective, and ``refine`` split no interval. ``refine``
now also splits the intervals whose cost error is large (:func:`cost_limit`).

The re-run's integral is composite Simpson over the re-integration's ERROR_SUBSTEPS substeps (its
states at their ends; the controls the interpolant the re-run uses). The quadrature is the
transcription's: h sum_j w_j L at its points (Hermite-Simpson: Simpson's rule on node, midpoint and
node; the trapezoid; backward Euler h L_{k+1}), and DMOC's h/2 (L(y_m, u_k) + L(y_m, u_{k+1})) at the
midpoint state y_m = ((q_k + q_{k+1}) / 2, the free components of (q_{k+1} - q_k) / h). The errors
are local: each interval from its own first node. What the states' errors do to the cost later on
(and to a terminal cost) is of the order of :attr:`~OptimalControlSolution.final_error`.
"""

from __future__ import annotations

import weakref

import numpy as np
import sympy as sp

__all__ = ["cost_errors", "cost_limit", "cost_size", "objective_note", "NOTE", "SubstepStates"]

#: An objective further than this fraction from the cost of its planned controls is noted in the message.
NOTE = 0.01
_RUNNING = weakref.WeakKeyDictionary()  # problem -> L(Y, [U; Z]) in NumPy, built on first use
_TERMS = weakref.WeakKeyDictionary()  # problem -> the additive terms of L in NumPy, built on first use
_SLOPES = weakref.WeakKeyDictionary()  # problem -> (dL/d(y, u, z), dPhi/dy) in NumPy, built on first use


class SubstepStates:
    """A ``visit`` of :func:`~nonholo.control.reintegration.interval_runs` that keeps the states at the
    inner substeps: ``states[i - 1]`` (n_y, K) at the end of substep i of every interval."""

    def __init__(self, n: int, K: int, substeps: int):
        self.states = np.full((substeps - 1, n, K), np.nan)

    def __call__(self, i: int, idx: np.ndarray, Y: np.ndarray) -> None:
        self.states[i - 1][:, idx] = Y


def running_values(problem, Y: np.ndarray, U: np.ndarray, Z=None, magnitude: bool = False) -> np.ndarray:
    """The running cost L at the columns of Y (n_y, P), U (n_u, P), with the algebraic variables Z
    (solved from the dynamics where None), shape (P,); with ``magnitude``, the sum of the magnitudes of
    L's additive terms instead (the size of its parts: (v^2 + w^2) / 2 - J0 near 0 along a plan is
    of the size of J0)."""
    from .solution import vectorized

    cache = _TERMS if magnitude else _RUNNING
    fn = cache.get(problem)
    if fn is None:
        terms = list(sp.Add.make_args(problem.running_cost)) if magnitude else [problem.running_cost]
        fn = cache[problem] = vectorized(terms, problem.states, problem.controls + problem.algebraic)
    if problem.algebraic:
        U = np.vstack([U, problem.dynamics.algebraic_values(Y, U) if Z is None else Z])
    with np.errstate(all="ignore"):
        values = np.asarray(fn(Y, U), dtype=float).reshape(-1, Y.shape[1])
    return np.abs(values).sum(axis=0) if magnitude else values[0]


def cost_errors(sol) -> np.ndarray:
    """The signed error of the running cost's quadrature on each interval, shape (K,): its integral
    along the interval's re-run minus the quadrature's value (module docstring)."""
    from .reintegration import control_values, interval_runs
    from .solution import ERROR_SUBSTEPS

    problem, K, m = sol.problem, sol.dtau.size, ERROR_SUBSTEPS
    if not K:
        return np.zeros(0)
    step, nodes = sol._scheme.step, sol._node_times()
    h, k = np.diff(nodes), np.arange(K)
    Y0 = sol.y_points[:, ::step]
    if getattr(sol, "_substeps", None) is None:  # the run final_error needs, kept
        sol._error_data()
    kept = getattr(sol, "_substeps", None)
    if kept is not None:
        errors, inner = sol._errors[0], kept.states
    else:
        inner = SubstepStates(Y0.shape[0], K, m)
        with np.errstate(all="ignore"):
            errors = interval_runs(sol, m, False, visit=inner)[0]
        inner = inner.states
    states = [Y0[:, :K], *inner, Y0[:, 1:] + errors]
    weights = np.array([1.0] + [4.0 if i % 2 else 2.0 for i in range(1, m)] + [1.0]) / (3 * m)
    rerun = sum(w * running_values(problem, S, control_values(sol, k, np.full(K, i / m)))
                for i, (w, S) in enumerate(zip(weights, states)))
    return h * rerun - _quadrature(sol, h, k)


def _quadrature(sol, h: np.ndarray, k: np.ndarray, magnitude: bool = False) -> np.ndarray:
    """The transcription's quadrature of the running cost on each interval (module docstring); with
    ``magnitude``, of the sum of its terms' magnitudes (:func:`running_values`)."""
    problem, Y, U = sol.problem, sol.y_points, sol.u_points
    Z = sol.z_points if problem.algebraic else None
    if sol.method == "dmoc":
        free = problem._discrete_mechanics().free
        n = len(problem.states) - len(free)
        q0, q1 = Y[:n, :-1], Y[:n, 1:]
        Ym = np.vstack([(q0 + q1) / 2, ((q1 - q0) / h)[free]])
        return h / 2 * (running_values(problem, Ym, U[:, :-1], magnitude=magnitude)
                        + running_values(problem, Ym, U[:, 1:], magnitude=magnitude))
    sch = sol._scheme
    total = np.zeros(k.size)
    for offset, weight in zip(sch.quad_offsets, sch.quad_weights):
        cols = sch.step * k + offset
        total += weight * running_values(problem, Y[:, cols], U[:, cols], None if Z is None else Z[:, cols],
                                         magnitude)
    return h * total


def cost_limit(sol, limit: float) -> float:
    """The cost error of an interval above which ``refine`` splits it, for the state error ``limit``
    (``refine_tol``, or its default): the same fraction of the cost's scale (:func:`_cost_scale`) as
    ``limit`` is of the states' scale; inf where the running cost vanishes at every point (a cost of
    the end state alone)."""
    from .solution import state_scale

    scale = _cost_scale(sol)
    return limit / state_scale(sol.y_points) * scale if scale > 0 else np.inf


def _cost_scale(sol, *others: float) -> float:
    """The cost's scale: the largest of |objective|, the quadrature of the magnitudes of the running
    cost's terms and ``others`` (magnitudes). A cost shifted by a constant to an optimum near 0 keeps
    the size of its parts: an outside probe's unicycle, (v^2 + w^2) / 2 - J0 with J0 its unshifted
    optimum, was told its objective error 8.4e-9 was 98 % of the cost, and refine split every interval
    three times."""
    h = np.diff(sol._node_times())
    with np.errstate(all="ignore"):
        quadratures = float(np.sum(_quadrature(sol, h, np.arange(h.size), magnitude=True)))
    return max(abs(sol.objective), quadratures, *others)


def cost_size(sol) -> float:
    """The cost's size (:func:`_cost_scale`); where it is 0 (every term of the running cost and the
    objective vanish along the plan: a plan at rest under c (u^2 / 2 - x), where the first solve of an
    outside probe's stopped at c = 1e-7 with its objective 0 for -c / 6), the cost's change for a unit
    change of any variable: the duration times the largest |dL/dz| at the plan's points, or the
    largest |dPhi/dy| of the terminal cost at its end."""
    from .solution import vectorized

    size = _cost_scale(sol)
    if size > 0:
        return size
    problem = sol.problem
    slopes = _SLOPES.get(problem)
    if slopes is None:
        every = problem.states + problem.controls + problem.algebraic
        terminal = [] if problem.terminal_cost is None else [sp.diff(problem.terminal_cost, y) for y in problem.states]
        slopes = _SLOPES[problem] = (vectorized([sp.diff(problem.running_cost, z) for z in every], problem.states,
                                                problem.controls + problem.algebraic),
                                     vectorized(terminal, problem.states, []) if terminal else None)
    U = np.vstack([sol.u_points, sol.z_points]) if problem.algebraic else sol.u_points
    with np.errstate(all="ignore"):
        running = float(np.nanmax(np.abs(slopes[0](sol.y_points, U)), initial=0.0)) * float(sol.t_final)
        final = 0.0 if slopes[1] is None else float(np.nanmax(np.abs(slopes[1](sol.y_points[:, -1:], np.zeros((0, 1)))),
                                                              initial=0.0))
    return max(running, final)


def objective_note(sol) -> str:
    """A note for a plan whose objective, a quadrature on its mesh, is more than NOTE from the cost of
    its planned controls re-run (:attr:`~OptimalControlSolution.objective_error`), relative to the
    cost's size (:func:`_cost_scale`, or that cost where larger). The outside probe's boundary layer on
    11 nodes: 9.7 % above the cost of its controls (its objective itself 24 % above the optimum)."""
    with np.errstate(all="ignore"):
        error = float(np.sum(cost_errors(sol)))
    cost = sol.objective + error  # the cost of the planned controls re-run
    size = _cost_scale(sol, abs(cost))
    if not abs(error) > NOTE * size:
        return ""
    return (f" Its objective {sol.objective:.6g} is a quadrature on the plan's mesh; the cost of its planned controls "
            f"re-run is {cost:.6g} (sol.objective_error {error:.3g}, {abs(error) / size:.1%} of the cost's size "
            f"{size:.3g}, the integral of its terms' magnitudes): the mesh does not resolve the cost; more nodes or "
            "refine= bring them together.")
