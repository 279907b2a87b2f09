"""The shortest car path as a start of a planar vehicle's least-time problem: a vehicle whose driving heading
turns at most 1/R per unit of distance, whatever the state, drives its Reeds-Shepp path (where it may reverse)
or its Dubins path (forward only) in the least time at its top speed. The line and the turn-drive-turn start
miss the paths that turn three times or reverse twice: a forward-only car sent to (2.64, 0.45, -1.43), whose
Dubins path is LRL (6.5248), spent 70 s and 27,710 IPOPT iterations from them and failed at 236.8; from this
start it takes 0.1 s. Trailers (the other headings) follow the driving heading along the path."""

from __future__ import annotations

import itertools

import numpy as np

from .solution import MULTISTART_KEYS

__all__ = ["car_path", "car_path_guess", "from_the_car_path", "MARGIN"]

POINTS = 8  # random states the curvature bound is compared at
SAME = 1e-9  # relative spread of the curvature bound over them that counts as constant
MARGIN = 1e-3  # a plan this close above the car path's duration (relative) is not solved from the path again


def car_path_guess(problem, tau: np.ndarray, required: bool = False):
    """(Y, U, T) as :meth:`~nonholo.OptimalControlProblem.default_guess`: the car path between the ends
    of the driving heading's vehicle at its top speed, or None (ValueError if ``required``) where there is
    none: no planar vehicle, not least time, an end of x, y or the driving heading free, or a curvature
    bound that depends on the state."""
    found = _car_path_guess(problem, tau)
    if found is None and required:
        raise ValueError("guess='car path' needs a least-time planar vehicle with its ends' x, y and heading fixed "
                         "and a turning radius that does not depend on the state")
    return found


def from_the_car_path(problem, sch, dtau, solution, options, tally):
    """The default start's plan ``solution``, or the plan solved on the full mesh from the car path where
    that one is better: tried where the plan failed or ends above the path's duration by more than MARGIN
    (the path is the continuous problem's optimum: a plan that close to it is no other route). On the full
    mesh, not the coarse one, which blurs its cusps: a car sent sideways to (0, 0.3, 0) ended 3.1% above
    the Reeds-Shepp length from the coarse optimum of its path."""
    found = _ending_path(problem)
    if found is None or not tally.may_start():
        return solution
    duration = float(np.clip(found[0].length / found[1], *problem.t_bounds))
    if solution is not None and solution.success and solution.objective <= duration * (1 + MARGIN):
        return solution
    other = problem._solve_mesh(sch, dtau, "car path", options)
    if solution is None:
        return other
    keep = other if other.success and (not solution.success or other.objective < solution.objective) else solution
    counts = {k: solution.stats[k] for k in MULTISTART_KEYS if k in solution.stats}
    keep.stats.update(counts, full_solves=counts.get("full_solves", 1) + 1)  # one more solve on the full mesh
    return keep


def car_path(problem):
    """(the car path between the ends of ``problem``'s vehicle, its top speed, the path's samples (s, poses)),
    or None (the conditions of :func:`car_path_guess`). The path ends at the goal's heading modulo 2 pi."""
    vehicle = problem._vehicle()
    if vehicle is None or not problem.free_time or problem.running_cost != 1 or problem.terminal_cost is not None \
            or problem.path_constraints or problem.state_bounds:  # the car path is the optimum of none of those
        return None
    ix, iy, headings = vehicle
    ends = [(problem.initial[i], problem.final[i]) for i in (ix, iy, headings[0])]
    if any(a is None or b is None for a, b in ends):
        return None
    if problem.__dict__.get("_car_limits") is None:  # the vehicle's, whatever the ends (each lift of angles=
        # asks); reset with the ends and bounds, as the reversibility (endpoints.checked_ends)
        problem._car_limits = (_limits(problem, ix, iy, headings[0]),)
    limits = problem._car_limits[0]
    if limits is None:
        return None
    radius, speed, backward = limits
    from ..analysis.car_paths import dubins_path, reeds_shepp_path

    try:
        path = (reeds_shepp_path if backward else dubins_path)([e[0] for e in ends], [e[1] for e in ends], radius)
    except (ValueError, ArithmeticError):
        return None
    if not np.isfinite(path.length) or path.length <= 0:
        return None
    return path, speed, path.sample(4001)


def _ending_path(problem):
    """:func:`car_path` where the path ends at the goal's heading itself, else None (it turns to that heading
    plus a multiple of 2 pi: another problem's end, another lift of ``angles=``)."""
    found = car_path(problem)
    if found is None:
        return None
    end, h = found[2][1][-1, 2], problem._vehicle()[2][0]
    return found if abs(end - problem.final[h]) <= 1e-6 * (1 + abs(problem.final[h])) else None


def _car_path_guess(problem, tau: np.ndarray):
    found = _ending_path(problem)
    if found is None:
        return None
    path, speed, (s, fine) = found
    ix, iy, headings = problem._vehicle()
    h = headings[0]
    T = float(np.clip(path.length / speed, *problem.t_bounds))
    poses = np.array([np.interp(tau * path.length, s, fine[:, j]) for j in range(3)]).T
    Y, _, _ = problem.default_guess(tau)
    Y = Y.copy()
    Y[ix], Y[iy], Y[h] = poses[:, 0], poses[:, 1], poses[:, 2]
    for i in headings[1:]:  # the trailers follow the driving heading, blended to their own ends
        a, b = problem.initial[i], problem.final[i]
        a = poses[0, 2] if a is None else a
        b = poses[-1, 2] if b is None else b
        Y[i] = poses[:, 2] + (a - poses[0, 2]) * (1 - tau) + (b - poses[-1, 2]) * tau
    Ydot = np.gradient(Y, tau, axis=1) / T
    return Y, problem._fit_controls(Y, Ydot), T


def _limits(problem, ix, iy, h):
    """(R, top speed, may reverse) of the vehicle: over the corners of the control bounds at random states,
    the speed |(x', y')| and the turning |h'| / |(x', y')|; None unless the bounds are finite, the largest
    turning the same at every state, and the motion forward only or reversible."""
    bounds = [problem.control_bounds[c] for c in problem.control_names]
    if not bounds or len(bounds) > 6 or not np.all(np.isfinite(bounds)):
        return None
    corners = np.array(list(itertools.product(*bounds)), dtype=float).T  # (m, 2^m)
    rng = np.random.default_rng(0)
    Y = rng.uniform(-1.0, 1.0, (len(problem.states), POINTS))
    Yc = np.repeat(Y, corners.shape[1], axis=1)
    Uc = np.tile(corners, POINTS)
    try:
        with np.errstate(all="ignore"):
            F = np.asarray(problem._rhs(Yc, Uc), dtype=float)
    except (ArithmeticError, ValueError, TypeError, np.linalg.LinAlgError):
        return None
    if not np.isfinite(F).all():
        return None
    speed = np.hypot(F[ix], F[iy]).reshape(POINTS, -1)
    forward = (F[ix] * np.cos(Yc[h]) + F[iy] * np.sin(Yc[h])).reshape(POINTS, -1)
    with np.errstate(all="ignore"):
        turning = np.where(speed > 1e-12, np.abs(F[h].reshape(POINTS, -1)) / speed, 0.0)
    kappa, top = turning.max(axis=1), speed.max(axis=1)
    if not (kappa.min() > 0 and top.min() > 0) or np.ptp(kappa) > SAME * kappa.max() or np.ptp(top) > SAME * top.max():
        return None
    # inside the bounds too: a unicycle's (v, omega) turns tighter than omega_max / v_max at lower speeds
    lo, hi = np.array(bounds, dtype=float).T
    Ui = lo[:, None] + (hi - lo)[:, None] * rng.uniform(0.0, 1.0, (len(bounds), POINTS * 8))
    Yi = np.repeat(Y, 8, axis=1)
    with np.errstate(all="ignore"):
        Fi = np.asarray(problem._rhs(Yi, Ui), dtype=float)
        inner = np.abs(Fi[h]) / np.hypot(Fi[ix], Fi[iy])
    if not np.all(np.nan_to_num(inner, nan=np.inf)[np.hypot(Fi[ix], Fi[iy]) > 1e-12] <= kappa.max() * (1 + 1e-6)):
        return None
    backward = problem.is_reversible()
    if not backward and forward.min() < -SAME * top.max():
        return None  # reverses, but not as fast as it drives
    return 1.0 / float(kappa[0]), float(top[0]), backward
