"""End headings modulo 2 pi (``OptimalControlProblem(..., angles=["theta"])``).

A final state is a number: a car asked to end at heading 0 may not end at 2 pi, so a goal straight
behind it, reached forward only, needs an S-shaped path (left half-turn, straight, right half-turn)
instead of the loop (left, straight, left) that ends at 2 pi and is pi shorter. Headings named in
``angles`` count modulo 2 pi: the solve tries the final value lifted to within pi of the initial
one, and that lift turned once more either way (the named angles together: a car and its trailers
turn as one), and keeps the best plan that succeeds.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["angle_indices", "check_periodic", "lifted_finals", "solve_over_lifts"]

LIFTS = (0, -1, 1)  # turns added to the nearest lift, in the order they are solved


def angle_indices(angles, state_names) -> tuple:
    """The indices of the states named in ``angles`` (None: none); ValueError naming an unknown one."""
    if angles is None:
        return ()
    if isinstance(angles, str):
        angles = [angles]
    out = []
    for name in angles:
        if str(name) not in state_names:
            raise ValueError(f"angles: {name!r} is not a state; the states are {state_names}")
        out.append(state_names.index(str(name)))
    return tuple(sorted(set(out)))


def lifted_finals(initial, final, indices) -> list:
    """The final states to try, one per turn of LIFTS: each angle's final value moved by a multiple of
    2 pi to within pi of its initial value (kept where either is free), then by the turn."""
    base = list(final)
    for i in indices:
        if base[i] is not None and initial[i] is not None:
            base[i] = base[i] + 2 * math.pi * round((initial[i] - base[i]) / (2 * math.pi))
    return [[b + 2 * math.pi * k if i in indices and b is not None else b for i, b in enumerate(base)]
            for k in LIFTS]


def solve_over_lifts(problem, solve_one, options: dict):
    """``solve_one(**options)`` for each lift of the final angles (:func:`lifted_finals`) that the
    state bounds allow (the given values when they allow none), with ``problem.final`` set to it; the
    successful plan of least objective, or the nearest lift's plan when none succeeds.
    ``raise_on_failure`` applies to that result. With a ``tally`` in ``options`` whose
    max_wall_time is spent, the lifts left are not solved. A vehicle whose car path is a start
    (:func:`~nonholo.control.car_starts.car_path`) solves the lift that path ends at first, and stops at a
    plan within MARGIN of the path's duration: no lift is shorter."""
    from ..errors import OptimalControlError
    from .car_starts import MARGIN, car_path

    check_periodic(problem)
    raise_on_failure = options.pop("raise_on_failure")
    given = problem.final
    best = first = None
    failed = []  # the lifts no start solved: a plan there may be better than the best one found
    finals = [f for f in lifted_finals(problem.initial, given, problem.angles) if _within(f, problem)] or [given]
    shortest = car_path(problem)  # a vehicle's car path: its lift first, and no other lift is shorter
    if shortest is not None:
        end, h = shortest[2][1][-1, 2], problem._vehicle()[2][0]
        finals.sort(key=lambda f: abs(f[h] - end) > 1e-6 * (1 + abs(end)))
    try:
        tally = options.get("tally")
        for final in finals:  # the given values when the bounds allow no lift
            if first is not None and tally is not None and not tally.may_start():
                break  # max_wall_time spent: the lifts left are not solved (module tally)
            problem.final = final
            sol = solve_one(**options, raise_on_failure=False)
            first = first or sol
            if sol.success and (best is None or sol.objective < best.objective):
                best = sol
            elif not sol.success:
                failed.append((final, sol.message))
            if best is not None and shortest is not None and \
                    best.objective <= shortest[0].length / shortest[1] * (1 + MARGIN):
                failed = []  # the other lifts' plans are no shorter than the shortest path
                break
    finally:
        problem.final = given
    if best is not None and failed:
        best.message += _unsolved_lifts(problem, failed)
    sol = best or first
    if raise_on_failure and not sol.success:
        raise OptimalControlError(f"no optimal plan: {sol.message}", sol)
    return sol


def check_periodic(problem, samples: int = 16) -> None:
    """ValueError naming a state of ``angles`` that is no angle of the dynamics: its rates change when it
    is turned by 2 pi (at random states and controls, where both values are finite). An outside probe's
    ``angles=["x"]``, x a position, sent a car to x = 4 - 2 pi (time 2.736) for x = 4 (4.128), unsaid."""
    rng = np.random.default_rng(20261207)
    n, m = len(problem.states), len(problem.controls)
    Y = rng.uniform(-2.0, 2.0, (n, samples))
    lo = np.array([problem.control_bounds.get(c, (-1.0, 1.0))[0] for c in problem.control_names], dtype=float)
    hi = np.array([problem.control_bounds.get(c, (-1.0, 1.0))[1] for c in problem.control_names], dtype=float)
    lo, hi = np.where(np.isfinite(lo), lo, -1.0), np.where(np.isfinite(hi), hi, 1.0)
    U = lo[:, None] + (hi - lo)[:, None] * rng.uniform(0.0, 1.0, (m, samples))
    with np.errstate(all="ignore"):
        try:
            base = np.asarray(problem._rhs(Y, U), dtype=float)
        except Exception:  # noqa: BLE001 (the dynamics' own solve, far from the plan, may fail: no test then)
            return
        for i in problem.angles:
            turned = Y.copy()
            turned[i] += 2 * math.pi
            try:
                other = np.asarray(problem._rhs(turned, U), dtype=float)
            except Exception:  # noqa: BLE001
                continue
            both = np.isfinite(base) & np.isfinite(other)
            change = np.abs(np.where(both, other - base, 0.0))
            if np.any(change > 1e-8 * (1.0 + np.abs(np.where(both, base, 0.0)))):
                raise ValueError(f"angles: {problem.state_names[i]!r} is no angle of the dynamics: turned by 2 pi, "
                                 f"it changes the rates by up to {float(change.max()):.3g}, so its final value does "
                                 "not count modulo 2 pi; name only headings (states the dynamics contain through "
                                 "sines and cosines)")


def _unsolved_lifts(problem, failed: list) -> str:
    """The note of a plan kept while other lifts of its final angles found none: an outside probe's
    forward-only car to (2.4215, 0.2629, -1.5563) kept the lift +4.727 (8.227) as optimal, where the
    lift -1.5563, which no start solved (IPOPT: local infeasibility), holds the shortest path (Dubins LRL,
    6.7548). Another probe's pendulum was told a plan to lifts that are out of reach "may be better": the
    note now gives IPOPT's reason and says that it does not tell the two apart."""
    ends = " or ".join(", ".join(f"{problem.state_names[i]} = {final[i]:.6g}" for i in problem.angles)
                        for final, _ in failed)
    reasons = "; ".join(dict.fromkeys(message.split(". ")[0].rstrip(".") for _, message in failed))
    return (f" No start found a plan ending at {ends} (angles= tries each lift of the final angles; IPOPT: "
            f"{reasons}). A plan there may be better, or none may exist: IPOPT's failure from the default starts "
            "does not tell which (a reachable lift was found locally infeasible). Solve that lift from a guess of "
            "your own (final= with that value, guess=; for a car, its shortest path: guess=(s, poses.T) from "
            "s, poses = nh.analysis.dubins_path(start, goal, R).sample(n), or reeds_shepp_path).")


def _within(final, problem) -> bool:
    for name, value in zip(problem.state_names, final):
        lo, hi = problem.state_bounds.get(name, (-math.inf, math.inf))
        if value is not None and not lo <= value <= hi:
            return False
    return True
