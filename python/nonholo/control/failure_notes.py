"""What a failed solve's message adds to IPOPT's status about the problem's own expressions.

- Where a plan's functions or their first derivatives are not finite: what IPOPT's "Invalid number in NLP
  function or derivative detected" leaves out. A keep-in region written sqrt(x^2 + y^2) <= 3 has the
  derivative x / sqrt(x^2 + y^2), 0/0 at a start at the origin, where x^2 + y^2 <= 9 has 2 x; IPOPT stops
  at its first iterate and names neither the expression nor the point.
- Where IPOPT stopped at a point of local infeasibility: which of the plan's equations it could not meet
  (the dynamics of a state on an interval, a path constraint at a time) and which bounds held it there:
  a sleigh sent 3 m in a fixed 0.5 s with |F| <= 1 was "Problem may be infeasible" and no more.
- A cost or path constraint with Abs or sign, which IPOPT's Newton steps (twice differentiable functions)
  do not suit: the minimum fuel of a double integrator written int |a| ended in "Restoration Phase Failed"
  at 0.92 where the optimum is 0.7639."""

from __future__ import annotations

import numpy as np
import sympy as sp

from .durations import ON_BOUND  # a value this close (relative, 1 + |bound|) to a bound is on it
from .solution import vectorized

__all__ = ["invalid_number_note", "nonsmooth_note", "diverging_note", "infeasible_note"]


def _expressions(problem, rates: bool = True) -> list:
    """(what, expression) of the plan's running cost, terminal cost, path constraints and (``rates``) dynamics."""
    out = [("the running cost", problem.running_cost)]
    if problem.terminal_cost is not None:
        out.append(("the terminal cost", problem.terminal_cost))
    out += [(f"the path constraint {g} <= 0", g) for g in problem.path_constraints]
    if rates:
        rhs = getattr(problem.dynamics, "rhs", ())
        out += [(f"the rate of {name}", e) for name, e in zip(problem.state_names, rhs)]
    return out


def invalid_number_note(sol) -> str:
    """" ..." naming the first of the plan's expressions (:func:`_expressions`) that is not finite, or whose
    derivative by a state, control or algebraic variable is not, at the plan's points (IPOPT's last iterate:
    its first where it stopped there), with the time and the state; "" where all are finite there."""
    problem = sol.problem
    states, others = list(problem.states), list(problem.controls) + list(problem.algebraic)
    Y = sol.y_points
    U = np.vstack([sol.u_points, sol.z_points])
    variables = states + others
    for what, expr in _expressions(problem):
        expr = sp.sympify(expr)
        names = ["value"] + [f"derivative by {v}" for v in variables]
        with np.errstate(all="ignore"):
            try:
                values = vectorized([expr, *(sp.diff(expr, v) for v in variables)], states, others)(Y, U)
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                continue
        bad = ~np.isfinite(values)
        if not bad.any():
            continue
        where = np.argwhere(bad)  # (row, point): the earliest point, then the first row
        row, j = where[np.lexsort((where[:, 0], where[:, 1]))[0]]
        at = ", ".join(f"{n} = {v:.4g}" for n, v in zip(problem.state_names, Y[:, j]))
        return (f" The {names[row]} of {what} is {values[row, j]} at t = {sol.t_points[j]:.4g} ({at}): write it in a "
                "form whose derivatives are finite there (the square of a distance instead of the distance, a smooth "
                "bound instead of Abs), or start elsewhere (guess=).")
    return ""


def nonsmooth_note(sol) -> str:
    """" ..." naming the cost terms and path constraints with Abs or sign (not differentiable where their
    argument is 0) of a failed solve's problem, with the smooth forms to write instead; "" without."""
    found = [what for what, e in _expressions(sol.problem, rates=False) if sp.sympify(e).has(sp.Abs, sp.sign)]
    if not found:
        return ""
    return (f" {found[0][0].upper()}{found[0][1:]}{' and others' if len(found) > 1 else ''} has Abs or sign, not "
            "differentiable where its argument is 0, which IPOPT's Newton steps need: split a control a = a_plus - "
            "a_minus with both at least 0 and minimize a_plus + a_minus, or smooth it (sqrt(a**2 + d**2) - d for a "
            "small d).")


def diverging_note(sol) -> str:
    """" ..." for IPOPT's "Iterates diverging" where the problem's own ends or bounds reach a tenth of the
    divergence test nonholo sets (``diverging_iterates_tol`` 1e12, where IPOPT's is 1e20, so that an
    unbounded cost stops early): a double integrator sent to 2e12, a convex problem whose optimum is
    4.8e25, was "problem might be unbounded"."""
    problem = sol.problem
    values = [v for v in (*problem.initial, *problem.final) if v is not None]
    values += [b for bounds in (*problem.state_bounds.values(), *problem.control_bounds.values()) for b in bounds
               if b is not None and np.isfinite(b)]
    largest = max((abs(float(v)) for v in values), default=0.0)
    if not largest >= 1e11:
        return ""
    return (f" The problem's own ends or bounds reach {largest:.3g}, near the divergence test diverging_iterates_tol "
            "(1e12 unless given in ipopt_options): rescale the problem, or pass a larger one, e.g. "
            "ipopt_options={'diverging_iterates_tol': 1e20}.")


def infeasible_note(sol) -> str:
    """" ..." for IPOPT's "local infeasibility": at its last point, the largest violation of a path
    constraint, the largest local error of the dynamics (which state, on which interval; not one at
    round-off), and the controls, states and path constraints held at a limit at most of the points,
    with what may be loosened; "" where none of these is found."""
    problem = sol.problem
    parts = []
    with np.errstate(all="ignore"):
        try:
            errors = np.abs(sol._signed_errors())
        except (ArithmeticError, ValueError, np.linalg.LinAlgError):  # a re-integration that fails: no note of it
            errors = np.zeros((0, 0))
    scale = 1.0 + float(np.nanmax(np.ptp(sol.y_points, axis=1), initial=0.0))
    if errors.size and np.nanmax(errors, initial=0.0) > ON_BOUND * scale:  # not round-off
        i, k = np.unravel_index(np.nanargmax(errors), errors.shape)
        t0, t1 = sol.t[k], sol.t[min(k + 1, sol.t.size - 1)]
        parts.append(f"the dynamics of {problem.state_names[i]!r} are off by {errors[i, k]:.3g} on t in "
                     f"[{t0:.4g}, {t1:.4g}] (the largest of the intervals' errors)")
    if problem.path_constraints:
        from .path_starts import path_values

        g = path_values(problem, sol.y_points, sol.u_points)
        size = 1 + np.nanmax(np.abs(g), axis=1, initial=0.0)
        if g.size and np.nanmax(g / size[:, None]) > ON_BOUND:
            r, j = np.unravel_index(np.nanargmax(g / size[:, None]), g.shape)
            parts.insert(0, f"the path constraint {problem.path_constraints[r]} <= 0 is {g[r, j]:.3g} at "
                            f"t = {sol.t_points[j]:.4g}")
        at_limit = [f"the path constraint {c} <= 0 at its limit at {100 * share:.0f}% of the points" for c, share in
                    zip(problem.path_constraints, np.mean(np.abs(g) <= ON_BOUND * size[:, None], axis=1))
                    if share > 0.5]
    else:
        at_limit = []
    held = _on_bounds(problem.control_names, sol.u_points, problem.control_bounds) + \
        _on_bounds(problem.state_names, sol.y_points, problem.state_bounds) + at_limit
    collapsed = problem.free_time and abs(sol.t_final - problem.t_bounds[0]) <= ON_BOUND * (1 + problem.t_bounds[0])
    if collapsed:  # a free duration shortened to its lower bound: the start, not the bounds, may be the cause
        held.append(f"the duration on its lower bound t_final = {sol.t_final:.3g}")
    if not parts and not held:
        return _chart_hint(problem, sol)
    text = " At IPOPT's last point " + "; ".join(parts) if parts else " At IPOPT's last point"
    if held:
        text += ("; " if parts else " ") + ", ".join(held)
    duration = f"the duration t_final = {problem.t_final:g}" if not problem.free_time else \
        f"the bounds of t_final {tuple(problem.t_bounds)}"
    start = (" IPOPT shortened the plan to its shortest duration, where no motion reaches the goal: a start "
             "whose duration is nearer a solution's (guess= with arrays over such a time, or a previous plan), or "
             "a larger lower bound of t_final, may solve it where this one did not." if collapsed else "")
    bounded = bool(problem.path_constraints) or any(
        np.isfinite(b) for bounds in (problem.control_bounds, problem.state_bounds) for pair in bounds.values()
        for b in pair)
    limits = (f"the bounds and {duration} allow (loosen them, or check the ends and path constraints)" if bounded
              else f"{duration} allows (the problem has no bounds)")
    chart = "" if held else _chart_hint(problem, sol)
    if chart:  # no bound held: the chart, which the motion may have to cross, first (an outside probe's
        # sleigh sent sideways was told to loosen the bounds it did not have)
        return text + "." + chart + f" Else the goal may lie beyond what {limits}, or the start led IPOPT there " \
            "(guess=)." + start
    return (text + f": the goal may lie beyond what {limits}, or the start led IPOPT there (guess=)." + start)


def _chart_hint(problem, sol) -> str:
    """For dynamics posed in a Voronets chart (:mod:`~nonholo.control.charts`): that a motion which must
    cross the chart's singular set has no plan in it. An outside probe's sleigh, rest to rest 1 sideways
    in 2 s, needs its heading past pi/2, where the chart's y' = tan(theta) x' is singular: every start
    ended at local infeasibility, the note blaming the bounds and the duration, while the same problem in
    body velocities solves in 0.1 s. Only where no bound is held at IPOPT's last point (the caller's
    test): a knife edge pushed by |F| <= 0.1, too weak for its goal, is no case of the chart's. Where the
    ends do not lie across the set, the note says how far IPOPT's last point kept from it (its normalized
    determinant): a roller racer whose heading stayed 0, far from cos(theta) = 0, was told of the chart as
    the cause, which a plan that need not cross it is not."""
    from .charts import ends_across, normalized_determinant

    chart = getattr(problem.dynamics, "chart", None)
    if chart is None:
        return ""
    d = normalized_determinant(problem.dynamics, problem.states, sol.y_points)
    away = None if ends_across(problem) or d is None else float(np.nanmin(np.abs(d), initial=np.inf))
    where = "" if away is None or not np.isfinite(away) else \
        f" (IPOPT's last point keeps {away:.2g} from it, in the normalized determinant, 0 on it)"
    cross = "a motion that must cross that set" if away is None else "should the motion have to cross that set, it"
    return (f" The dynamics are posed in a Voronets chart that solves the velocities of {', '.join(chart['solved'])}, "
            f"singular where {chart['determinant']} = 0{where}: {cross} has no plan in it. Pose it "
            "in a frame regular along the motion: a KinematicSystem in body velocities, or a System from "
            "from_kanes_method in such speeds.")


def _on_bounds(names, values: np.ndarray, bounds: dict) -> list:
    """"'F' on its bounds at 85% of the points" for each variable on a finite bound at more than half of
    the points."""
    out = []
    for name, row in zip(names, values):
        lo, hi = bounds.get(name, (-np.inf, np.inf))
        on = np.zeros(row.shape, dtype=bool)
        for b in (lo, hi):
            if np.isfinite(b):
                on |= np.abs(row - b) <= ON_BOUND * (1 + abs(b))
        if on.size and on.mean() > 0.5:
            out.append(f"{name!r} on its bounds at {100 * on.mean():.0f}% of the points")
    return out
