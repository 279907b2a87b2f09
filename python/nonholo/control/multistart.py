"""The default start of :meth:`~nonholo.OptimalControlProblem.solve`: several starts solved on a
coarse mesh, the full mesh from the best of them (:func:`multistart`)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from .guesses import REST
from .path_starts import line_violates_path, path_values
from .solution import resolved
from .transcription import interval_points

__all__ = ["multistart", "coarse_mesh", "off_the_saddle", "from_rest", "feasible", "REST_DURATIONS", "AGREE",
           "FULL_SOLVES", "FULL_WINDOW", "SADDLE_SHARE", "SADDLE_FLOOR"]

AGREE = 1e-3  # coarse optima of the structured starts this close (relative) count as one
FULL_SOLVES = 3  # with the bumped starts: full-mesh solves from this many best distinct coarse optima
#: ... each within this fraction of the best's cost above it: a coarse optimum far above it is another
#: route, not a near one the full mesh may rank otherwise (a car's least time around a disc on 40 nodes:
#: the full mesh from the coarse 34.29 beside 6.350 ran IPOPT's 3000 iterations, 7.5 of the solve's 8.7 s)
FULL_WINDOW = 0.5


def coarse_mesh(nodes: int) -> np.ndarray | None:
    """The default start's coarse mesh for ``nodes`` nodes: a quarter of them, at least 11, equally
    spaced (interval fractions); None where that is no coarser than the mesh itself."""
    coarse = max(11, -(-nodes // 4))
    return np.full(coarse - 1, 1.0 / (coarse - 1)) if coarse < nodes else None


def multistart(problem, sch, nodes: int, dtau: np.ndarray, starts, options: dict, extra=(), rescue=(),
               widen: bool = False, seen: list | None = None):
    """Solve from each start on a coarse mesh (a quarter of the nodes, at least 11), then on the
    full mesh from the coarse solution of lowest cost among the successful ones. A start that
    leads IPOPT astray costs a coarse solve, not a full one. The ``extra`` starts are solved
    on the coarse mesh too when two or more of the ``starts`` succeed and disagree (their
    coarse costs differ by more than AGREE relative), or when ``widen``; the full mesh is then solved from the
    FULL_SOLVES best distinct coarse optima (costs AGREE apart: the coarse mesh's ranking of
    nearby optima is not the full mesh's) and the best kept. If no coarse solve succeeds,
    each of ``starts`` is solved on the full mesh and the best kept (the coarse mesh may be
    too coarse). The ``rescue`` starts (the line with a state the path constraints bound
    bumped off it) are solved on the coarse mesh, and the full mesh from their best optimum,
    when ``starts`` give no full-mesh solution (none succeeds on the coarse mesh, or the full
    mesh fails from their optima), before that fallback (on the full mesh when there is no
    coarser one); None when ``starts`` is empty and no rescue start succeeds. ``seen``, a list, collects
    every solve (successful or not)."""
    cdtau = coarse_mesh(nodes)
    coarse = nodes if cdtau is None else cdtau.size + 1
    candidates = []
    tally = options.get("tally")

    def solved(mesh, guesses) -> list:
        """The solves from ``guesses`` on ``mesh``, until max_wall_time is spent (module tally)."""
        out = []
        for guess in guesses:
            if tally is not None and not tally.may_start():
                break
            out.append(problem._solve_mesh(sch, mesh, guess, options))
        if seen is not None:
            seen.extend(out)
        return out

    if cdtau is not None:
        if rescue and line_violates_path(problem, interval_points(cdtau, sch.step)):
            starts, rescue = [*starts, *rescue], ()  # the bumps compete with the starts from the outset
        found = solved(cdtau, starts)
        costs = [s.objective for s in found if s.success]
        disagree = len(costs) > 1 and max(costs) - min(costs) > AGREE * max(abs(min(costs)), 1e-12)
        widened = bool(extra) and (disagree or widen)
        if widened:
            found += solved(cdtau, extra)

        def full_from(coarse_solutions, how_many):
            """The full mesh from the how_many best distinct successful coarse solutions, the best
            kept (None when none succeeded)."""
            picked = []
            for s in sorted((s for s in coarse_solutions if s.success), key=lambda s: s.objective):
                distinct = all(abs(s.objective - p.objective) > AGREE * max(abs(p.objective), 1e-12) for p in picked)
                near = not picked or s.objective - picked[0].objective <= FULL_WINDOW * max(abs(picked[0].objective),
                                                                                             1e-12)
                if len(picked) < how_many and distinct and near:
                    picked.append(s)
            if not picked:
                return None
            # (with max_wall_time spent: the best coarse optimum on the full mesh, not solved)
            full = solved(dtau, picked) or [problem._solve_mesh(sch, dtau, picked[0], options)]
            ok = [s for s in full if s.success]
            sol = min(ok, key=lambda s: s.objective) if ok else solved_first(full)
            sol.stats.update(starts=len(found), coarse_nodes=coarse,
                             coarse_iterations=sum(s.stats["iterations"] for s in found), full_solves=len(full))
            return sol

        # the bumps off the path constraints' saddle: where every start fails on the coarse mesh, or
        # the full mesh fails from the starts' coarse optima (the coarse mesh checks the path
        # constraints at fewer points, and its optimum may cut through an obstacle)
        attempts = [(None, FULL_SOLVES if widened else 1)]
        if rescue:
            attempts.append((rescue, 1))
        for bumps, how_many in attempts:
            bumped = solved(cdtau, bumps) if bumps is not None else []
            found += bumped
            sol = full_from(found if bumps is None else bumped, how_many)
            if sol is not None and sol.success:
                return sol
            if sol is not None:
                candidates.append(sol)
    ran = solved(dtau, starts)  # the starts solved (all but where max_wall_time was spent)
    candidates += ran
    if rescue and coarse >= nodes and (not any(s.success for s in candidates)  # no coarse mesh: the full one,
                                       or line_violates_path(problem, interval_points(dtau, sch.step))):
        bumped = solved(dtau, rescue)
        candidates += bumped
        ran += bumped  # counted in stats["starts"] (it read 0 where only the bumps ran)
    if not candidates and starts:  # max_wall_time spent before a full-mesh solve: the first start, not solved
        candidates = [problem._solve_mesh(sch, dtau, starts[0], options)]
    if not candidates:  # only rescue starts, none of which succeeded on the coarse mesh
        return None  # (a line through an obstacle may jump it between two points: its bumps compete)
    ok = [s for s in candidates if s.success and (coarse < nodes or resolved(s).success)]
    sol = min(ok, key=lambda s: s.objective) if ok else solved_first(candidates)
    sol.stats.update(starts=len(ran), full_solves=len(candidates))
    if coarse < nodes and sol.stats["coarse_nodes"] == 0:  # a start on the full mesh after the coarse ones
        sol.stats.update(coarse_nodes=coarse, coarse_iterations=sum(s.stats["iterations"] for s in found))
    return sol


#: The bumped starts off a saddle may take this many times the time of the solve's IPOPT calls so far
#: (at least SADDLE_FLOOR seconds of the process's CPU time, the same work on a loaded machine; not the
#: building of its functions, which a first solve also spends):
#: an improvement the plan found need not wait for (19 trailers driving 1 m straight, an exact optimum
#: with the Hessian regularized by 1.1e-4, took over 590 s of 88 bumped starts, each with a trailer
#: jack-knifed).
SADDLE_SHARE = 5.0
SADDLE_FLOOR = 1.0


def off_the_saddle(problem, sch, nodes: int, dtau: np.ndarray, sol, options: dict, tally):
    """``sol``, or a plan of lower cost from its states bumped off it: a success with the Hessian
    regularized at IPOPT's last iteration (not positive definite on the constraints' null space), at its
    acceptable level or its optimal one, may be a saddle, such as the line through a cost's hill, which
    the problem's symmetry keeps IPOPT on (with |v| <= 1 an outside reader's hill was "Optimal Solution
    Found" there, 2.120990 against 1.430587 around it). Not for holonomic constraints imposed at velocity
    level, whose NLP is singular (its regularization says nothing of a saddle; the bumps found a drift of
    phi that cost a tenth of the swing). So is a success at IPOPT's first point, iteration 0, where no
    Hessian was factored: the start (the line, a symmetric guess) met the optimality conditions as it
    was, as a saddle does (a double well across the line, (u1^2 + u2^2)/2 - 20 y^2 + 20 y^4, stayed on
    y = 0 at 0.5 where going round costs -1.52; a unicycle's -v^2 with no bound at all, unbounded below,
    was "Optimal Solution Found" at -1). The bumps share SADDLE_SHARE times the IPOPT time so far in the
    process's CPU time (and max_wall_time): on a loaded machine they do the same work."""
    suspect = sol.stats["last_regularization"] > 0 or sol.stats["iterations"] == 0
    if not (sol.success and suspect and (options["holonomic"] or not problem.holonomic)):
        return sol
    if not tally.may_start():  # max_wall_time spent: the plan is unverified, not a minimum found
        return _unverified(sol)
    tried: list = []
    cut = tally.stopped + tally.not_started  # the bumps' solves max_wall_time stops or leaves unstarted
    with tally.capped(max(SADDLE_FLOOR, SADDLE_SHARE * tally.time_ipopt)):
        bumped = multistart(problem, sch, nodes, dtau, (), options, rescue=_by_involvement(problem), seen=tried)
    # lower by more than IPOPT's tolerance: a plan met at iteration 0 (a skate pushed straight ahead, its torque
    # 0) is no worse than a bump's that lands on it 1e-15 lower with the torque at 7e-9
    if bumped is not None and resolved(bumped).success and bumped.objective < sol.objective - 1e-6 * (
            1.0 + abs(sol.objective)):
        return bumped
    # far lower and meeting the dynamics, ends and path constraints, or diverging downhill (IPOPT: "problem
    # might be unbounded"; a unicycle's -v^2 fell to -5e23 from a heading bumped off the line)
    lower = [s for s in tried if s.objective < sol.objective - (1.0 + abs(sol.objective))
             and (feasible(s) or "Iterates diverging" in s.message)]
    if lower:  # no start succeeded, and they went far below it: the saddle is no minimum
        low = min(lower, key=lambda s: s.objective)
        sol.success = False
        unbounded = " The cost may be unbounded below: bound the controls or states it rewards"
        if "Iterates diverging" in low.message:
            reached, after = "diverged downhill", unbounded
        elif low.success:  # a lower optimum, whose full-mesh solve did not succeed or did not run
            reached = "found a lower optimum" + (" on the coarse mesh" if low.t.size < sol.t.size else "")
            after = (" A lower minimum exists; its solve on this mesh " + ("did not complete: max_wall_time was spent"
                     if tally.spent() else "did not succeed") + ". Solve again with guess= from it, or with more time")
        else:
            reached, after = "reached plans that meet the dynamics and ends", unbounded
        sol.message = (f"the plan is no minimum: {_suspicion(sol)}; IPOPT: {sol.message.strip()}), and from starts "
                       f"bumped off the plan IPOPT {reached} at cost {low.objective:.6g} against its "
                       f"{sol.objective:.6g} ({low.message.strip()}).{after}")
    elif tally.stopped + tally.not_started > cut:  # max_wall_time cut the bumps short: no verdict either way
        return _unverified(sol)
    return sol


def _unverified(sol):
    """``sol`` no success: a suspected saddle that max_wall_time left no time to check."""
    sol.success = False
    sol.message = (f"the plan may be a saddle, not a minimum: {_suspicion(sol)}; IPOPT: {sol.message.strip()}), and "
                   "max_wall_time was spent before the starts bumped off it could check (a double well across the "
                   "line stays on it at 0.5 where going round costs -1.52): solve with a larger max_wall_time")
    return sol


def _suspicion(sol) -> str:
    """Why a success may be a saddle: IPOPT's Hessian regularized at its last iteration, or its stop at
    iteration 0."""
    if sol.stats["last_regularization"] > 0:
        return (f"IPOPT's Hessian was regularized at its last iteration ({sol.stats['last_regularization']:.3g}: not "
                "positive definite on the constraints' null space, a saddle")
    return ("IPOPT stopped at its start, iteration 0, which met the optimality conditions as it was (as a symmetric "
            "start on a saddle does")


def _by_involvement(problem) -> list:
    """The bumps of every state (:meth:`OptimalControlProblem.perturbed_guess`), those of the states the
    running cost involves first, then of those the dynamics do, then the rest: the order in which the
    bumps off a saddle are tried, within a bounded time (a double well across the line, in y, was left at
    0.5 while the bumps of x, which no term involves, spent the time)."""
    in_cost = {str(s) for s in sp.sympify(problem.running_cost).free_symbols}
    in_rates = {str(s) for e in problem.dynamics.rhs for s in sp.sympify(e).free_symbols}
    names = problem.state_names
    return sorted(problem._bumps(problem.states),
                  key=lambda b: (names[b[1]] not in in_cost, names[b[1]] not in in_rates))


def feasible(sol) -> bool:
    """IPOPT's last point meets the collocation equations to 1e-6 (1 + the largest |state|) (a
    diverging solve's plan may: a cost -v^2 of a free speed fell to -4e10 with them met to 1e-11), and
    the path constraints to 1e-6 (1 + max |g|) at the points (the bounds IPOPT's iterates keep)."""
    Y = np.asarray(sol.y_points, dtype=float)
    size = float(np.max(np.abs(Y), initial=0.0)) if np.all(np.isfinite(Y)) else np.inf
    if not sol.stats["max_nlp_defect"] <= 1e-6 * (1.0 + size):
        return False
    if not sol.problem.path_constraints:
        return True
    g = path_values(sol.problem, Y, np.asarray(sol.u_points, dtype=float))
    return bool(np.all(g <= 1e-6 * (1.0 + np.max(np.abs(g), axis=1, initial=0.0))[:, None]))


def solved_first(solutions: list):
    """The first of ``solutions`` that IPOPT solved (not a plan left at its start when max_wall_time
    was spent, :mod:`~nonholo.control.tally`), else the first."""
    return next((s for s in solutions if not s._not_started), solutions[0])


#: The durations of the starts at rest of a problem whose duration is free, as multiples of the line's
REST_DURATIONS = (1.0, 4.0, 16.0)


def from_rest(problem, sch, dtau: np.ndarray, options: dict, tally):
    """The best successful plan from the start at rest (:func:`~nonholo.control.guesses.rest_guess`) on
    the mesh ``dtau``, or None: with a free duration, from the line's duration and REST_DURATIONS times
    it (within the bounds of t_final). The line's duration is no time scale of a motion the line does not
    show: opty's torque-limited pendulum, free in duration, starts at 1 s (no swing-up fits in it) and
    swung up from rest at 4 s on every mesh of 31 to 121 nodes, at 1 s only on 41 and 101."""
    if problem.free_time:
        T = problem.default_guess(np.linspace(0.0, 1.0, 3))[2]
        durations = sorted({float(np.clip(f * T, *problem.t_bounds)) for f in REST_DURATIONS})
    else:
        durations = [None]
    found = []
    for duration in durations:
        if not tally.may_start():
            break
        start = REST if duration is None else (REST[0], duration)
        sol = resolved(problem._solve_mesh(sch, dtau, start, options))
        if sol.success:
            found.append(sol)
    return min(found, key=lambda s: s.objective) if found else None
