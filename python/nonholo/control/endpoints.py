"""Checks, before any solve, of what an optimal control problem fixes at its ends and of the symbols
it takes as controls: fixed end states that violate a path constraint of the states alone (IPOPT
would only report "local infeasibility"), final states that the initial ones imply (a state the
dynamics hold constant), and controls of a System that appear anywhere but in its force (a mass or
a length as a control: the dynamics then vary it along the plan)."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

__all__ = ["ends_within_path_constraints", "controls_only_in_force", "potential_controls_as_force", "implied_final",
           "checked_ends", "FIXED_WHEN_BUILT", "PATH_SLACK"]

#: A fixed end state may exceed a path constraint g <= 0 by PATH_SLACK (1 + |g|) (rounding): one
#: exactly on the boundary passes.
PATH_SLACK = 1e-9

# Where a System's expressions hold a symbol other than its force, and what each is (the messages).
_NOT_FORCE = {"metric": "metric (its mass matrix)", "potential": "potential",
              "constraints": "constraints (the rows A of A v = b)", "affine": "affine constraint terms b",
              "friction": "friction coefficients", "holonomic": "holonomic constraints"}
_SPEEDS = ("kinematics", "kinematics_offset", "constraints", "constraints_offset")


def ends_within_path_constraints(exprs: list, states: list, initial: list, final: list) -> None:
    """ValueError naming the end, the path constraint and the violation when a fixed end state
    violates a path constraint g <= 0 (``exprs``: the g) by more than PATH_SLACK (1 + |g|). Only the
    constraints whose symbols are all states fixed at that end are evaluated (those with a control,
    an algebraic variable or a free entry of the end are not); one whose value there is not a finite
    real number is refused too (the solve would evaluate it there)."""
    state_set = set(states)
    for what, values in (("initial", initial), ("final", final)):
        fixed = {s: v for s, v in zip(states, values) if v is not None}
        for r, g in enumerate(exprs):
            g = sp.sympify(g)
            if not g.free_symbols <= state_set or not g.free_symbols <= set(fixed):
                continue
            shown = [v if v is None else float(v) for v in values]
            try:
                value = complex(g.xreplace({s: fixed[s] for s in g.free_symbols}).evalf())
            except (TypeError, ValueError, ArithmeticError):
                value = complex(math.nan)
            if value.imag != 0 or not np.isfinite(value.real):
                raise ValueError(f"{what} = {shown} gives path_constraints[{r}] ({g} <= 0) no finite real value "
                                 f"there ({value:.6g}): the path constraints hold at the ends too")
            if value.real > PATH_SLACK * (1 + abs(value.real)):
                raise ValueError(f"{what} = {shown} violates path_constraints[{r}], {g} <= 0: its left side is "
                                 f"{value.real:.6g} there (the path constraints hold at the ends too, so no plan "
                                 "meets them); move the end state or relax the constraint")


def potential_controls_as_force(system, controls):
    """``system`` with the part of its potential that depends on a control moved into its force: V(q; u)
    with u varying along the plan acts through -dV/dq at each instant (Lagrange's equations of
    T - V(q, u(t)) have no term in u'), so W = V - V|_(u=0) leaves the potential and -dW/dq joins the force
    (a horizontal push F N.x on a pendulum's bob, given as a load to ``from_kanes_method``, is its
    potential -F x there). ``system`` itself where no control appears in V, or where V at u = 0 is not
    finite (:func:`controls_only_in_force` then names it)."""
    names = {c.name if isinstance(c, sp.Symbol) else str(c) for c in controls}
    V = sp.sympify(system.potential)
    found = [s for s in V.free_symbols if s.name in names]
    if not found:
        return system
    rest = V.subs({s: 0 for s in found})
    if rest.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return system
    part = V - rest
    return system.with_potential(-part).with_force(-sp.Matrix([part]).jacobian(list(system.coordinates)).T)


def controls_only_in_force(system, controls) -> None:
    """ValueError naming the control and where it appears when a control of ``system`` appears in
    its metric, potential, constraints, affine terms, friction coefficients, holonomic constraints or
    speed frame (anything but the force, or the applied force of Kane's equations), or in none of its
    forces (it would not act): a System's controls are the symbols of its force."""
    groups = system._expression_groups()
    force_names = {str(x) for what in ("force", "applied_force") for e in groups.get(what, ()) for x in
                   sp.sympify(e).free_symbols}
    speeds = getattr(system, "speeds", None)
    frame = speeds[1] if speeds is not None else None
    for c in controls:
        name = c.name if isinstance(c, sp.Symbol) else str(c)
        places = [desc for what, desc in _NOT_FORCE.items()
                  if any(name in {str(x) for x in sp.sympify(e).free_symbols} for e in groups.get(what, ()))]
        if frame is not None:
            mats = [getattr(frame, a, None) for a in _SPEEDS] if not isinstance(frame, sp.MatrixBase) \
                else [frame, speeds[2]]
            if any(m is not None and name in {str(x) for x in sp.Matrix(m).free_symbols} for m in mats):
                places.append("speed frame")
        if places:
            raise ValueError(f"controls: {name!r} appears in the system's {' and '.join(places)}, not only in its "
                             "force: a control is a symbol of the force alone (a force or a torque), as the "
                             "dynamics take it to vary along the plan; give it a value among the parameters instead")
        if name not in force_names:
            raise ValueError(f"controls: {name!r} does not appear in the system's force, so it would not act on the "
                             "dynamics: a control is a symbol of the force (a force or a torque)")


def implied_final(rates: list, initial: list, final: list, names: list) -> frozenset:
    """The indices of the states whose rate is identically 0 (a coordinate that a constraint row holds
    still: its row of the dynamics is 0) fixed at both ends: the final value is the initial one, and
    imposing it too makes the collocation's equality constraints linearly dependent (an outside probe's
    convex problem with such a coordinate failed in IPOPT's restoration phase at 41 trapezoid nodes and
    solved at 11 and 81; CasADi on the same equations alike). The solve leaves those final values to the
    dynamics. ValueError naming the state where the two ends differ: no plan reaches the final one."""
    out = set()
    for i, rate in enumerate(rates):
        if not sp.sympify(rate).is_zero or initial[i] is None or final[i] is None:
            continue
        if not abs(final[i] - initial[i]) <= 1e-12 * (1.0 + abs(initial[i])):
            raise ValueError(f"final[{names[i]!r}] = {final[i]:g} differs from initial[{names[i]!r}] = {initial[i]:g}, "
                             f"but the dynamics hold {names[i]} constant (its rate is 0): no plan reaches that end; "
                             f"give final[{names[i]!r}] = {initial[i]:g} or None")
        out.add(i)
    return frozenset(out)


#: What a problem compiles or derives when it is built: set after that, it would be silently ignored
#: (a new cost after a first solve ran the old one), so OptimalControlProblem refuses to set it.
FIXED_WHEN_BUILT = frozenset({"dynamics", "states", "controls", "algebraic", "cost", "running_cost", "terminal_cost",
                              "path_constraints", "path_bounds", "t_final", "t_bounds", "free_time", "angles",
                              "holonomic", "state_names", "control_names"})


def checked_ends(problem) -> None:
    """The checks of a problem's ends and bounds, when it is built and again at each solve: ``initial``,
    ``final``, ``state_bounds`` and ``control_bounds`` may be set (or edited in place) between solves
    (another goal: a re-plan), and a solve must refuse what a new problem would (an outside probe's
    final state outside state_bounds set after construction solved to a plan through the bound; a NaN
    final state failed as a singular model). Sets the problem's normalized ends and bounds, the final
    states its dynamics imply and the holonomic rows its fixed ends satisfy."""
    from . import checks

    n, names = len(problem.states), problem.state_names
    problem.initial = checks.endpoint(problem.initial, n, "initial", names)
    problem.final = checks.endpoint(problem.final, n, "final", names)
    problem.state_bounds = checks.named_bounds(problem.state_bounds, names, "state_bounds")
    problem.control_bounds = {**{c: (-math.inf, math.inf) for c in problem.control_names},
                              **checks.named_bounds(problem.control_bounds, problem.control_names, "control_bounds")}
    checks.ends_within_bounds(problem.initial, problem.final, names, problem.state_bounds)
    ends_within_path_constraints(problem.path_constraints, problem.states, problem.initial, problem.final)
    problem._implied = implied_final(list(getattr(problem.dynamics, "rhs", ())), problem.initial, problem.final, names)
    problem._ends_fixed = checks.ends_on_holonomic(problem.holonomic, problem.states, problem.initial, problem.final)
    checks.minimum_time_attained(problem)  # refused where the duration can shrink to 0
    problem._reversible = problem._car_limits = None  # decided again: they depend on the control bounds
