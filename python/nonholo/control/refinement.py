"""Mesh refinement, ``solve(..., refine=n)``: up to n rounds, each splitting the intervals of the plan
that do not resolve it and solving again from it (a warm start on the new mesh).

An interval is halved where its local error (:attr:`~OptimalControlSolution.interval_errors`) exceeds
the limit, ``refine_tol`` or by default 1e-6 (u + r) (:func:`~nonholo.control.solution.state_scale`),
or its cost error (:attr:`~OptimalControlSolution.cost_errors`) the same fraction of the cost
(:func:`~nonholo.control.cost_errors.cost_limit`), or where a bounded control switches inside it
(:func:`switches`); an interval whose re-run crosses a path constraint
is split where it lies deepest in the excluded set (:func:`~nonholo.control.reintegration.path_splits`).
The rounds stop when no interval needs a split, or when ``max_wall_time`` is spent. ``sol.stats``
keeps how the first plan was found and counts the rounds (``refine_rounds``); a plan whose n rounds
ran out with intervals still above the limit says so in its message (an outside probe's nonlinear
problem refined from 11 nodes stopped with errors 1000 times ``refine_tol``, "Optimal Solution Found.").
"""

from __future__ import annotations

import numpy as np

from .cost_errors import cost_errors, cost_limit
from .reintegration import path_splits
from .solution import MULTISTART_KEYS, resolved, state_scale

__all__ = ["refined", "too_coarse", "switches"]

#: A control that moves across an interval by more than this share of its bound range, and by more than
#: JUMP times its median move across an interval, switches inside the interval.
SWITCH_SHARE, JUMP = 0.25, 4.0


def too_coarse(sol, limit: float) -> np.ndarray:
    """The intervals a round splits in two, shape (K,) of bool: those whose local error exceeds
    ``limit``, whose cost error exceeds :func:`~nonholo.control.cost_errors.cost_limit`, or across
    which a control switches (:func:`switches`)."""
    return (sol.interval_errors > limit) | (np.abs(cost_errors(sol)) > cost_limit(sol, limit)) | switches(sol, limit)


def switches(sol, limit: float) -> np.ndarray:
    """The intervals, shape (K,) of bool, across which a bounded control jumps (by more than
    SWITCH_SHARE of its bound range, and JUMP times its median move across an interval: a
    bang-bang switch, not a smooth turn) where the switch's place matters: a switch known only to
    within the interval's length h moves the states by up to h |f(y, u_k) - f(y, u_k+1)|, and that
    is above ``limit``. Neither the interval errors nor the cost errors see it: the re-run follows
    the planned controls exactly. An outside probe's least time of a double integrator on 10 nodes
    with backward Euler, 2.0125 for 2, kept its switch interval (its held control 0) through seven
    rounds of refine and 1,026 nodes, T unchanged."""
    problem, K = sol.problem, sol.dtau.size
    bounds = [problem.control_bounds.get(c, (-np.inf, np.inf)) for c in problem.control_names]
    bounded = [i for i, (lo, hi) in enumerate(bounds) if np.isfinite(lo) and np.isfinite(hi) and hi > lo]
    if not bounded or K < 2:
        return np.zeros(K, bool)
    step = sol._scheme.step
    U = sol.u_points
    cols = [U[:, step * k: step * k + step + 1] for k in range(K)]  # the interval's points, ends included
    moves = np.array([[c[i].max() - c[i].min() for c in cols] for i in bounded])  # (bounded, K)
    ranges = np.array([bounds[i][1] - bounds[i][0] for i in bounded])[:, None]
    typical = np.median(moves, axis=1)[:, None]
    jumped = np.any((moves > SWITCH_SHARE * ranges) & (moves > JUMP * typical), axis=0)
    if not jumped.any():
        return jumped
    k = np.flatnonzero(jumped)
    Y = sol.y_points[:, step * k]
    with np.errstate(all="ignore"):
        change = np.abs(problem._rhs(Y, U[:, step * (k + 1)]) - problem._rhs(Y, U[:, step * k])).max(axis=0)
    h = np.diff(sol._node_times())[k]
    jumped[k] = h * change > limit
    return jumped


def refined(problem, sch, dtau: np.ndarray, sol, options: dict, rounds: int, refine_tol, tally):
    """``sol`` after up to ``rounds`` rounds of refinement (module docstring)."""
    carried = {k: sol.stats[k] for k in MULTISTART_KEYS}  # how the plan refined was found
    if options.get("warm") is None:  # the default: each round from the multipliers of the round before
        options = dict(options, warm=True)
    done, left = 0, None
    def limit_of(plan) -> float:  # refine_tol, or its default on the plan's scale
        return refine_tol if refine_tol is not None else 1e-6 * state_scale(plan.y_points)

    for _ in range(rounds):
        limit = limit_of(sol)
        at = np.where(too_coarse(resolved(sol), limit), 0.5, path_splits(sol))  # or where a path is crossed
        if np.isnan(at).all() or not tally.may_start():
            break
        dtau = np.concatenate([[d] if np.isnan(f) else [f * d, (1 - f) * d] for d, f in zip(dtau, at)])
        again = problem._solve_mesh(sch, dtau, sol, options)
        if sol.success and not again.success and tally.spent():
            break  # max_wall_time stopped the round: the plan before it kept
        sol, done = again, done + 1
    else:
        if rounds and resolved(sol).success:
            limit = limit_of(sol)
            left = int(np.count_nonzero(too_coarse(sol, limit)))
            switching = int(np.count_nonzero(switches(sol, limit)))
    sol.stats.update(carried, refine_rounds=done)
    if left:
        sol.message += (f" refine={rounds} ran out of rounds with {left} of its {sol.dtau.size} intervals still above "
                        f"its limits (largest local error {float(np.max(sol.interval_errors)):.3g} for {limit:.3g}, "
                        f"cost error {float(np.max(np.abs(sol.cost_errors))):.3g} for {cost_limit(sol, limit):.3g}"
                        + (f"; {switching} of those intervals across a control's switch, which each places to "
                           "within its length" if switching else "") + "): more rounds or nodes resolve it.")
    return sol
