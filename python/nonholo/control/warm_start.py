"""A solution's multipliers carried onto another mesh of the same problem: IPOPT's warm start
(``warm_start_init_point``) from an optimum on a coarser mesh, so that the finer solve starts near
the dual solution as well as the primal one instead of IPOPT's own multipliers at mu_init = 0.1.

The collocation NLP's multipliers scale with the mesh as their continuous counterparts do: a
defect of a stencil that approximates y' = f (its b_j sum to 1: the trapezoid, backward Euler,
Simpson's rule) has the costate as its multiplier, independent of the step; a condition that holds
at each point (the path constraints, a model's algebraic equations, the position-level holonomic
constraints, the variable bounds) and an interpolation stencil (its b_j sum to 0: the Hermite
interpolant) have a multiplier that is a density times the point's share of the time, O(h). Each is
interpolated linearly in the normalised time and rescaled to the new mesh."""

from __future__ import annotations

import numpy as np

from .transcription import interval_points

__all__ = ["WARM_START_OPTIONS", "carried_multipliers", "point_weights", "holonomic_pairs"]

# IPOPT's warm start: the carried multipliers, the point and the multipliers pushed 1e-3 into their
# bounds (IPOPT's defaults 1e-3 for the point, 1e-2 for the multipliers; measured on opty's parallel
# park, 501 nodes from the 126-node optimum: with mu_init 1e-3, 24 iterations; with pushes of 1e-9,
# 39; without the multipliers, 28).
WARM_START_OPTIONS = (("warm_start_init_point", "yes"), ("warm_start_bound_push", 1e-3),
                      ("warm_start_bound_frac", 1e-3), ("warm_start_slack_bound_push", 1e-3),
                      ("warm_start_slack_bound_frac", 1e-3), ("warm_start_mult_bound_push", 1e-3))


def point_weights(tau: np.ndarray) -> np.ndarray:
    """Each collocation point's share of the normalised time: half of each adjacent gap."""
    gaps = np.diff(tau)
    return np.concatenate([[0.0], gaps / 2]) + np.concatenate([gaps / 2, [0.0]])


def holonomic_pairs(P: int, n_h: int, ends_fixed: tuple) -> list:
    """(point, row) of each position-level holonomic constraint, in the NLP's order: every point and
    row, except at an end whose states in that row are all given."""
    skip = {(0, r) for r in ends_fixed[0]} | {(P - 1, r) for r in ends_fixed[1]}
    return [(p, r) for p in range(P) for r in range(n_h) if (p, r) not in skip]


def _densities(values: np.ndarray, weights: np.ndarray, free: np.ndarray | None = None) -> np.ndarray:
    """values / weights per point (rows: points), at points where a value is not free (a fixed
    end variable, whose multiplier is no density) the neighbour's."""
    dens = values / weights[:, None]
    if free is not None:
        for q in (0, -1):
            nb = 1 if q == 0 else -2
            dens[q] = np.where(free[q], dens[q], dens[nb])
    return dens


def _interp_rows(x_new: np.ndarray, x_old: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """rows (len(x_old), m) interpolated linearly at x_new: (len(x_new), m)."""
    return np.stack([np.interp(x_new, x_old, col) for col in rows.T], axis=1) if rows.size else \
        np.zeros((x_new.size, rows.shape[1]))


def _midpoints(dtau: np.ndarray) -> np.ndarray:
    """The intervals' midpoints in the normalised time."""
    return np.concatenate([[0.0], np.cumsum(dtau)])[:-1] + dtau / 2


def _shape(problem) -> tuple:
    """What fixes the NLP's layout: the numbers of states, controls, algebraic variables, per-point
    constraints and holonomic constraints, and whether the duration is a variable."""
    return (problem.free_time, len(problem.states), len(problem.controls), len(problem.algebraic),
            len(problem.path_constraints) + len(problem._equations()), len(problem.holonomic))


def carried_multipliers(sol, problem, sch, dtau: np.ndarray, n_gamma: int, x_lo: np.ndarray, x_hi: np.ndarray,
                        n_constraints: int):
    """(lambda, z_lo, z_hi) of the NLP on the mesh ``dtau`` from the solution ``sol`` of a problem
    of the same layout (:func:`_shape`: the same problem on another mesh, or another goal) and the
    same transcription, or None when ``sol`` does not carry them."""
    warm = getattr(sol, "_warm", None)
    if warm is None or sol.method != sch.name or _shape(sol.problem) != _shape(problem):
        return None
    n_y = len(problem.states)
    nz = n_y + len(problem.controls) + len(problem.algebraic)
    S, step = len(sch.stencils), sch.step
    old_dtau = sol.dtau
    K_old, K = old_dtau.size, dtau.size
    tau_old, tau = interval_points(old_dtau, step), interval_points(dtau, step)
    P_old, P = tau_old.size, tau.size
    w_old, w = point_weights(tau_old), point_weights(tau)
    lam_old = sol.multipliers
    n_def_old = K_old * S * n_y
    n_g = (lam_old.size - n_def_old - len(warm['pairs'])) // P_old
    if lam_old.size != n_def_old + P_old * n_g + len(warm['pairs']):
        return None
    # defects: per interval (stencil, state), at the intervals' midpoints
    mid_old, mid = _midpoints(old_dtau), _midpoints(dtau)
    defects = _interp_rows(mid, mid_old, lam_old[:n_def_old].reshape(K_old, S * n_y)).reshape(K, S, n_y)
    h_ratio = dtau / np.interp(mid, mid_old, old_dtau)
    for d, (_, _, b) in enumerate(sch.stencils):
        if abs(sum(b)) < 1e-12:  # an interpolation condition: its multiplier is O(h)
            defects[:, d, :] *= h_ratio[:, None]
    parts = [defects.reshape(-1)]
    # per-point constraints: densities
    g_old = lam_old[n_def_old:n_def_old + P_old * n_g].reshape(P_old, n_g)
    parts.append((_interp_rows(tau, tau_old, _densities(g_old, w_old)) * w[:, None]).reshape(-1))
    if warm['pairs']:
        n_h = len(problem.holonomic)
        old = np.zeros((P_old, n_h))
        seen = np.zeros((P_old, n_h), dtype=bool)
        for (p, r), v in zip(warm['pairs'], lam_old[n_def_old + P_old * n_g:]):
            old[p, r], seen[p, r] = v, True
        new = _interp_rows(tau, tau_old, _densities(old, w_old, seen)) * w[:, None]
        pairs = holonomic_pairs(P, n_h, problem._ends_fixed)
        parts.append(np.array([new[p, r] for p, r in pairs]))
    lam = np.concatenate(parts)
    if lam.size != n_constraints:
        return None
    z = []
    for zo in warm['z']:
        free = (warm['x_hi'] > warm['x_lo'])[:P_old * nz].reshape(P_old, nz)
        blocks = _interp_rows(tau, tau_old, _densities(zo[:P_old * nz].reshape(P_old, nz), w_old, free)) * w[:, None]
        tail = zo[P_old * nz + warm['n_gamma']:]  # the duration's
        z.append(np.concatenate([blocks.reshape(-1), np.zeros(n_gamma), tail]))
    z_lo, z_hi = (np.where(np.isfinite(bound), np.maximum(zz, 0.0), 0.0) for zz, bound in zip(z, (x_lo, x_hi)))
    return lam, z_lo, z_hi
