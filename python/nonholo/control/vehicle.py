"""Planar vehicles among the systems of an optimal control problem: which states are the
position (x, y) and which the headings, for the starts that turn, drive and turn
(:meth:`~nonholo.control.problem.OptimalControlProblem.heading_guess`) and swing out and back.

States named ``x``, ``y`` and ``theta*`` are taken as they are named. Otherwise the dynamics
decide: a pair of states whose rates are w cos(h) and w sin(h) for a state h (a car's
x' = v cos(theta), y' = v sin(theta), whatever its states are called), checked at random points,
with h and every other state inside a sine or a cosine of the rates as the headings (the
trailers' angles)."""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

__all__ = ["planar_vehicle", "reversible"]

POINTS = 6  # random points the rates are compared at
TOLERANCE = 1e-9  # |x' sin(h) - y' cos(h)| relative to the rates


def planar_vehicle(problem) -> tuple | None:
    """(index of x, index of y, indices of the headings, the driving one first) of a planar
    vehicle's states, or None for another system."""
    names = problem.state_names
    headings = [i for i, nm in enumerate(names) if nm.startswith("theta")]
    if "x" in names and "y" in names and headings:
        return names.index("x"), names.index("y"), headings
    return _by_the_dynamics(problem)


def _by_the_dynamics(problem) -> tuple | None:
    states = list(problem.states)
    rhs = [sp.sympify(e) for e in problem.dynamics.rhs]
    inside = set().union(*(f.free_symbols for e in rhs for f in e.atoms(sp.sin, sp.cos)))
    angles = [i for i, s in enumerate(states) if s in inside]
    if not angles or len(states) < 3:
        return None
    rng = np.random.default_rng(0)
    Y = rng.uniform(-1.0, 1.0, (len(states), POINTS))
    U = np.empty((len(problem.controls), POINTS))
    for j, c in enumerate(problem.control_names):
        lo, hi = problem.control_bounds[c]
        lo, hi = (lo, hi) if np.isfinite(lo) and np.isfinite(hi) else (-1.0, 1.0)
        U[j] = rng.uniform(lo, hi, POINTS)
    try:
        with np.errstate(all="ignore"):
            F = np.asarray(problem._rhs(Y, U), dtype=float)
    except (ArithmeticError, ValueError, TypeError, np.linalg.LinAlgError):
        return None
    if F.shape != Y.shape or not np.isfinite(F).all():
        return None
    for h in angles:
        c, s = np.cos(Y[h]), np.sin(Y[h])
        for i in range(len(states)):
            for j in range(len(states)):
                if len({i, j, h}) < 3:
                    continue
                scale = np.maximum(np.abs(F[i]), np.abs(F[j]))
                if scale.max() > 1e-9 and np.all(np.abs(F[i] * s - F[j] * c) <= TOLERANCE * np.maximum(scale, 1.0)):
                    return i, j, [h] + [a for a in angles if a not in (i, j, h)]
    return None


def reversible(problem) -> bool:
    """A minimum-time problem (free duration, no other cost) of a driftless system that can drive every
    path backwards: flipping the signs of some controls (a pattern s of +-1, e.g. the car's speed but not its
    curvature) reverses the velocity, f(y, s u) = -f(y, u), at random points, and the bounds of the flipped
    controls are sign-symmetric. Its optimum may then reverse (a cusp), which the structured starts miss.
    Dynamics with algebraic variables (a System's Lagrange-d'Alembert equations) have drift: never."""
    m = len(problem.controls)
    if not (problem.free_time and problem.running_cost == 1 and problem.terminal_cost is None and 0 < m <= 6
            and not problem.algebraic):
        return False
    problem._point_functions()  # f vectorized
    rng = np.random.default_rng(0)
    Y, U = rng.normal(size=(len(problem.states), 7)), rng.normal(size=(m, 7))
    for signs in itertools.product((1, -1), repeat=m):
        flipped = [c for c, sg in zip(problem.control_names, signs) if sg < 0]
        if not flipped or any(problem.control_bounds[c][0] != -problem.control_bounds[c][1] for c in flipped):
            continue
        if np.allclose(problem._f(Y, np.array(signs, dtype=float)[:, None] * U), -problem._f(Y, U), rtol=1e-10,
                       atol=1e-12):
            return True
    return False
