"""Mesh refinement, ``solve(..., refine=n)``: up to n rounds, each splitting the intervals of the plan
that do not resolve it and solving again from it (a warm start on the new mesh).

An interval is halved where its local error (:attr:`~OptimalControlSolution.interval_errors`) exceeds
the limit, ``refine_tol`` or by default 1e-6 (u + r) (:func:`~nonholo.control.solution.state_scale`),
or its cost error (:attr:`~OptimalControlSolution.cost_errors`) the same fraction of the cost
(:func:`~nonholo.control.cost_errors.cost_limit`); an interval whose re-run crosses a path constraint
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

__all__ = ["refined", "too_coarse"]


def too_coarse(sol, limit: float) -> np.ndarray:
    """The intervals a round splits in two, shape (K,) of bool: those whose local error exceeds
    ``limit`` or whose cost error exceeds :func:`~nonholo.control.cost_errors.cost_limit`."""
    return (sol.interval_errors > limit) | (np.abs(cost_errors(sol)) > cost_limit(sol, limit))


def refined(problem, sch, dtau: np.ndarray, sol, options: dict, rounds: int, refine_tol, tally):
    """``sol`` after up to ``rounds`` rounds of refinement (module docstring)."""
    carried = {k: sol.stats[k] for k in MULTISTART_KEYS}  # how the plan refined was found
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
    sol.stats.update(carried, refine_rounds=done)
    if left:
        sol.message += (f" refine={rounds} ran out of rounds with {left} of its {sol.dtau.size} intervals still above "
                        f"its limits (largest local error {float(np.max(sol.interval_errors)):.3g} for {limit:.3g}, "
                        f"cost error {float(np.max(np.abs(sol.cost_errors))):.3g} for {cost_limit(sol, limit):.3g}): "
                        "more rounds or nodes resolve it.")
    return sol
