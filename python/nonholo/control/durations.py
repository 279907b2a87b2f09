"""Further starts of a free duration that ended on a bound of ``t_final``: the default start
(:meth:`~nonholo.OptimalControlProblem.solve` without ``guess``) puts a free duration where its
straight line fits the bounds of the controls, and from there IPOPT may stop at a bound of the
duration, a local minimum where a longer (or shorter) plan costs less. A double integrator from rest,
cost 1 + a^2/10 and 4 (x(T) - 2)^2 at the end, x(T) free, t_final=(0.1, 10): from the default start
T = 0.1 (cost 16.069), where T = 2.773 costs 3.0557 (CasADi's optimum from T = 3).

Such a plan is solved again from the same line at DURATIONS durations spread geometrically over the
bounds of t_final (within a factor SPAN of the default start's duration where a bound is far or
infinite), on the coarse mesh of the multi-start when the mesh has one, and the full mesh from the
best of them; the better plan is kept. A plan whose duration ends inside its bounds costs nothing
more, nor does a minimum-time plan at its lower bound (the least duration there is)."""

from __future__ import annotations

import math

import numpy as np

from .multistart import coarse_mesh, solved_first
from .solution import MULTISTART_KEYS, resolved

__all__ = ["bound_reached", "other_durations", "standing_still", "vanishing_duration", "DURATIONS", "SPAN", "ON_BOUND",
           "FAR", "ZERO_DURATION"]

DURATIONS = 4  # the further starts' durations
SPAN = 10.0  # ... spread within this factor of the default start's duration (and the bounds)
ON_BOUND = 1e-6  # a duration this close (relative) to a bound of t_final ended on it
ZERO_DURATION = 1e-6  # a free duration this short is a plan that stands still (standing_still)
FAR = 1e3  # a free duration without an upper bound this many times the default start's grew without one


def bound_reached(problem, t_final: float):
    """"lower" or "upper" where the free duration ``t_final`` ended on that bound of ``t_final``
    (within ON_BOUND relative; the lower bound of a duration left unbounded is 1e-8), else None."""
    lo, hi = problem.t_bounds
    if t_final <= lo * (1 + ON_BOUND) + 1e-12:
        return "lower"
    if np.isfinite(hi) and t_final >= hi * (1 - ON_BOUND):
        return "upper"
    return None


def _grown(problem, t_final: float) -> str:
    """A note for a free duration without an upper bound that grew beyond FAR times the default start's:
    a cost that falls as the duration grows has an infimum, not a minimum, and IPOPT stops where its
    gradient falls below the tolerance (an outside probe's double integrator, cost U^2 from rest to rest 1
    ahead, t_final=(0.5, inf): 'Optimal Solution Found' at T = 100001 with the cost 1.2e-14, as 12 / T^3)."""
    if np.isfinite(problem.t_bounds[1]):
        return ""
    T0 = problem.default_guess(np.linspace(0.0, 1.0, 3))[2]
    if not t_final > FAR * T0:
        return ""
    return (f" The duration grew to {t_final:.6g}, {t_final / T0:.3g} times the default start's {T0:.3g}, with no "
            "upper bound of t_final: a cost that falls as the duration grows has no minimum (IPOPT stops where its "
            "gradient is below the tolerance). Bound t_final from above, or add a cost of the duration.")


def durations(problem) -> np.ndarray:
    """The DURATIONS durations strictly inside [a, b], geometrically spread: a and b the bounds of
    t_final, narrowed to within SPAN of the default start's duration."""
    lo, hi = problem.t_bounds
    T0 = problem.default_guess(np.linspace(0.0, 1.0, 3))[2]
    a, b = max(lo, T0 / SPAN), min(hi, T0 * SPAN)
    if not b > a * (1 + 1e-9):
        return np.empty(0)
    return a * (b / a) ** (np.arange(1, DURATIONS + 1) / (DURATIONS + 1))


def _start(problem, tau: np.ndarray, T: float) -> tuple:
    """The default start's line at the duration T as arrays (t, y, u): the controls fitted to it."""
    Y = problem.default_guess(tau)[0]
    return tau * T, Y, problem._fit_controls(Y, np.gradient(Y, tau, axis=1) / T)


def other_durations(problem, sch, nodes: int, dtau: np.ndarray, sol, options: dict):
    """``sol``, or the plan solved from other durations (module docstring) when that costs less; the
    starts solved in ``stats["duration_starts"]`` of the plan returned."""
    side = bound_reached(problem, sol.t_final) if problem.free_time else None
    if side is None and problem.free_time and sol.success:
        sol.message += _grown(problem, sol.t_final)
    if side is None or side == "lower" and problem.running_cost == 1 and problem.terminal_cost is None:
        return sol
    spread = durations(problem)
    tally = options.get("tally")
    coarse = coarse_mesh(nodes)
    mesh = dtau if coarse is None else coarse
    tau = np.linspace(0.0, 1.0, 2 * (mesh.size + 1) + 1)
    found = []
    for T in spread:
        if tally is not None and not tally.may_start():
            break
        found.append(problem._solve_mesh(sch, mesh, _start(problem, tau, float(T)), options))
    ok = sorted((s for s in found if s.success and bound_reached(problem, s.t_final) != side),
                key=lambda s: s.objective)
    best = None
    if ok and mesh is not dtau and (tally is None or tally.may_start()):
        best = resolved(problem._solve_mesh(sch, dtau, ok[0], options))
    elif ok and mesh is dtau:
        best = resolved(solved_first(ok))
    kept = sol
    if best is not None and best.success and (not sol.success or best.objective < sol.objective
                                              - 1e-9 * max(1.0, abs(sol.objective))):
        best.stats.update({k: sol.stats[k] for k in MULTISTART_KEYS if k != "duration_starts"})
        kept = best
    kept.stats["duration_starts"] = len(found)
    return kept


def vanishing_duration(sol) -> str | None:
    """Why a free duration that shrank to zero (ZERO_DURATION) between ends that differ is no plan: a
    minimum time that is not attained, where a control that scales the velocity has no bound (an outside
    probe's car with v unbounded: T = 1.5e-7 at |v| = 4e7, success); None otherwise."""
    problem = sol.problem
    if not problem.free_time or sol.t_final > ZERO_DURATION:
        return None
    if all(a is None or b is None or abs(a - b) <= 1e-9 * (1 + abs(a)) for a, b in zip(problem.initial, problem.final)):
        return None  # the ends meet: standing still is a plan (standing_still notes it)
    peaks = {name: float(np.max(np.abs(u), initial=0.0)) for name, u in sol.u.items()}
    unbounded = [c for c, (lo, hi) in problem.control_bounds.items() if not (math.isfinite(lo) and math.isfinite(hi))]
    return (f"the duration shrank to t_final = {sol.t_final:.3g} between ends that differ (controls up to "
            f"{max(peaks.values(), default=0.0):.3g}): no plan takes the least time, which is not attained; bound "
            f"the controls{' ' + str(unbounded) if unbounded else ''} (control_bounds) or the duration "
            "(t_final=(lo, hi))")


def standing_still(sol) -> str:
    """A note for a free duration that ended at zero or on a bound of ``t_final``: at zero with a
    terminal cost, or at a positive lower bound, a local minimum at the bound that IPOPT reports as
    optimal (a double integrator from rest with 10 (p - 1)^2 at the end: T = 0, cost 10, where moving
    gives T = 1.948, cost 1.974; with 2 (x - 1)^2 and t_final=(0.01, 10): T = 0.01, cost 2.0098, where
    T = 1.267 costs 1.345), or an optimum the bound cuts off; at the upper bound, a plan the bound keeps
    from taking longer (cost 1 + a^2 from rest to rest at 1 is least at T = sqrt(6), 2.449: with
    t_final=(0.5, 2) T = 2, an outside probe found no word of it)."""
    problem = sol.problem
    if not problem.free_time:
        return ""
    if sol.t_final <= ZERO_DURATION:
        if problem.terminal_cost is None:
            return ""
        return (f" The plan has zero duration (t_final = {sol.t_final:.3g}): a local minimum at the bound where "
                "nothing moves, which a plan that moves may beat; give t_final=(lo, hi) with lo > 0, or a guess that "
                "moves.")
    lo, hi = (float(b) for b in problem.t_bounds)
    side = bound_reached(problem, sol.t_final)
    if side == "lower" and lo > ZERO_DURATION:
        return (f" The plan's duration ended at the lower bound of t_final ({lo:g}): a local minimum at the bound, "
                "which a longer plan may beat (give a guess that moves longer), or an optimum below the bound, which "
                "it cuts off (lower it to see).")
    if side == "upper":
        return (f" The plan's duration ended at the upper bound of t_final ({hi:g}): the bound is active, and a "
                "longer plan may cost less (raise it to see).")
    return ""
