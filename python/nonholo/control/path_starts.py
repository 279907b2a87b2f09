"""The starts of a problem whose straight line crosses its path constraints' set (an obstacle on the
line): which of the line's bumps (:meth:`OptimalControlProblem.perturbed_guess`) to solve from.

The line through the middle of an obstacle is a saddle of its constraint, which IPOPT does not leave;
the default therefore also starts from the line with each state the constraints depend on pushed off
it. A push along the line (x, for a robot going from (-2, 0) to (2, 0) around the unit disc) leaves the
crossing where it was: from such starts IPOPT took 1,100-1,200 iterations to reach plans that jump the
disc between two points, while the pushes across it (y) converged in 10-12. Only the pushes that lessen
the line's largest violation are solved, all of them where none does.
"""

from __future__ import annotations

import numpy as np

from .solution import vectorized

__all__ = ["path_function", "path_values", "path_violation", "line_violates_path", "bumps_off_the_path"]

DENSE = 201  # the points at which bumps_off_the_path compares the guesses' violations
LESSEN = 0.99  # ... and the factor by which a bump must lessen the line's (not the sampling's jitter)


def path_function(problem):
    """The path constraints g(Y, U) in NumPy (:func:`~nonholo.control.solution.vectorized`), built once per
    problem: U holds the controls and the algebraic variables."""
    if problem._g is None:
        problem._g = vectorized(problem.path_constraints, problem.states, problem.controls + problem.algebraic)
    return problem._g


def path_values(problem, Y: np.ndarray, U: np.ndarray) -> np.ndarray:
    """The path constraints' values g (rows) at the states Y and controls U (columns), the algebraic
    variables of a System's dynamics solved from them."""
    with np.errstate(all="ignore"):
        if problem._dae:
            U = np.vstack([U, problem.dynamics.algebraic_values(Y, U)])
        return np.asarray(path_function(problem)(Y, U), dtype=float)


def path_violation(problem, Y: np.ndarray, U: np.ndarray) -> float:
    """The largest value of the path constraints g <= 0 (0 where all hold) at the states Y and controls U
    of a guess (one column per point); inf where one cannot be evaluated."""
    g = path_values(problem, Y, U)
    return float(max(np.max(g, initial=0.0), 0.0)) if np.all(np.isfinite(g)) else np.inf


def line_violates_path(problem, tau: np.ndarray) -> bool:
    """Whether the straight line of ``problem.default_guess`` leaves the path constraints' set at the
    points ``tau`` (through an obstacle, say), beyond 1e-9 (1 + |g|)."""
    Y, U, _ = problem.default_guess(tau)
    g = path_values(problem, Y, U)
    return bool(np.any(~(g <= 1e-9 * (1.0 + np.abs(g)))))


def bumps_off_the_path(problem, bumps: list) -> list:
    """Of ``bumps`` (("perturbed", state, amplitude) starts), those whose guess violates the path
    constraints less than the line does (by the factor LESSEN), both evaluated at DENSE points of
    [0, 1] (not a mesh's few, between which a bump's crossing can fall) (module docstring); all of
    them where the line violates none, or where no bump lessens its violation."""
    tau = np.linspace(0.0, 1.0, DENSE)
    Y, U, _ = problem.default_guess(tau)
    line = path_violation(problem, Y, U)
    if not line > 0 or not np.isfinite(line):
        return list(bumps)
    kept = []
    for bump in bumps:
        Yb, Ub, _ = problem.perturbed_guess(tau, bump[1], bump[2])
        if path_violation(problem, Yb, Ub) < LESSEN * line:
            kept.append(bump)
    return kept or list(bumps)
