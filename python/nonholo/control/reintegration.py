"""The re-integration of a plan's intervals: the controls a plan gives between its points, and each
interval integrated from its first node under them (:attr:`OptimalControlSolution.interval_errors`,
the check that a plan is a motion of its dynamics, :meth:`OptimalControlSolution.simulate`).

The controls are the transcription's interpolant of its points (:attr:`Scheme.controls`), clipped
to the problem's control bounds: the quadratic of Hermite-Simpson through node, midpoint and node
overshoots them where the control saturates (a bang-bang control: |F| = 4.5 on bounds of 4), and a
saturated control is the standard treatment (what an actuator does). Backward Euler's control on
(t_k, t_{k+1}] is u_{k+1}, a zero-order hold (its equations use f(y_{k+1}, u_{k+1}) alone).

An interval is integrated on the substeps asked by RK4 where h |lambda| stays in its stability
region (which holds the left half-disc of radius 2.6) for every eigenvalue lambda of df/dy,
bounded by the largest ||df/dy||_inf at the interval's points; elsewhere (a stiff model) by the
3-stage Radau IIA rule (order 5, L-stable, stiffly accurate; simplified Newton), with the
state-transition matrix from its stage equations differentiated. A friction realization of a knife
edge (lateral viscous force -v_lat / 1e-3, 41 nodes, h ||df/dy|| about 55) went unstable under RK4 on
8 substeps: 1.98e7 away from the next node, where a stiff solver ends 3.9e-7 away. RK4 on the
substeps its stability needs (about 22) is stable but off by 6e-7 there, Radau IIA on 16 by 3e-12."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from .path_starts import path_function, path_values

__all__ = ["bounded_states", "bound_violations", "sample_points", "control_values", "controls_at", "kinks",
           "jacobian_norms", "interval_runs", "point_controls", "path_violations", "path_points", "path_splits",
           "densified", "judged", "depth_measure", "RK4_STABLE", "PATH_TOL"]

#: h ||df/dy||_inf on an RK4 substep at most this: RK4's stability region holds the left half-disc
#: of radius 2.6156 (|R(z)| <= 1 for |z| <= 2.6156, Re z <= 0), so every eigenvalue h lambda of
#: a stable mode (|lambda| <= ||df/dy||) lies in it. A substep beyond it: Radau IIA.
RK4_STABLE = 2.5
NEWTON_ITERATIONS = 12  # simplified Newton on Radau's stages, until the update is below NEWTON_TOL (1 + |y|)
NEWTON_TOL = 1e-12
#: A path constraint g <= 0 whose value between the points exceeds PATH_TOL (1 + max |g| at the
#: points) is named in the plan's message (well above IPOPT's tolerance at the points, 1e-8).
PATH_TOL = 1e-6
#: g / |grad g| above FLAT_DEPTH times the interval's step (and 1) is no depth: the gradient nearly vanishes there
FLAT_DEPTH = 1e3
_S6 = math.sqrt(6.0)
RADAU_C = np.array([(4 - _S6) / 10, (4 + _S6) / 10, 1.0])
RADAU_A = np.array([[(88 - 7 * _S6) / 360, (296 - 169 * _S6) / 1800, (-2 + 3 * _S6) / 225],
                    [(296 + 169 * _S6) / 1800, (88 + 7 * _S6) / 360, (-2 - 3 * _S6) / 225],
                    [(16 - _S6) / 36, (16 + _S6) / 36, 1 / 9]])


def _box(sol) -> tuple:
    """The control bounds (lo, hi) as columns, in control_names order."""
    bounds = sol.problem.control_bounds
    lo = np.array([bounds.get(c, (-math.inf, math.inf))[0] for c in sol.control_names], dtype=float)
    hi = np.array([bounds.get(c, (-math.inf, math.inf))[1] for c in sol.control_names], dtype=float)
    return lo[:, None], hi[:, None]


def control_values(sol, k: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The controls (n_u, len(k)) that the plan ``sol`` gives at the fractions ``s`` in [0, 1] of
    its intervals ``k``: the scheme's interpolant on that interval (its end values included: a
    zero-order hold is u_{k+1} on the closed interval), clipped to the control bounds."""
    U, kind = sol.u_points, getattr(sol._scheme, "controls", "linear")
    k, s = np.asarray(k, dtype=int), np.asarray(s, dtype=float)
    if kind == "hold":
        u = U[:, k + 1]
    elif kind == "quadratic":
        u0, um, u1 = U[:, 2 * k], U[:, 2 * k + 1], U[:, 2 * k + 2]
        u = u0 * (2 * (s - 0.5) * (s - 1)) + um * (-4 * s * (s - 1)) + u1 * (2 * s * (s - 0.5))
    else:
        u = U[:, k] * (1 - s) + U[:, k + 1] * s
    lo, hi = _box(sol)
    return np.clip(u, lo, hi)


def controls_at(sol, t: np.ndarray) -> np.ndarray:
    """The controls at the times ``t`` (within [0, t_final]): :func:`control_values` of the interval
    holding each time; at a node the interval that ends there for a zero-order hold (u on
    (t_k, t_{k+1}] is u_{k+1}, and at t = 0 u_1), the one that starts there otherwise (the
    interpolants are continuous)."""
    nodes = sol._node_times()
    hold = getattr(sol._scheme, "controls", "linear") == "hold"
    k = np.clip(np.searchsorted(nodes, t, side="left" if hold else "right") - 1, 0, sol.dtau.size - 1)
    s = np.clip((t - nodes[k]) / (nodes[k + 1] - nodes[k]), 0.0, 1.0)
    return control_values(sol, k, s)


def kinks(sol) -> np.ndarray:
    """The times inside the intervals where :func:`control_values` has a kink: where a quadratic
    (Hermite-Simpson) crosses a control bound and is clipped (a run across one loses its order;
    :meth:`OptimalControlSolution.simulate` restarts there)."""
    if getattr(sol._scheme, "controls", "linear") != "quadratic" or not sol.dtau.size:
        return np.empty(0)
    nodes, U = sol._node_times(), sol.u_points
    lo, hi = _box(sol)
    u0, um, u1 = U[:, 0:-1:2], U[:, 1::2], U[:, 2::2]  # (n_u, K): u(s) = a s^2 + b s + c
    a, b, c = 2 * u0 - 4 * um + 2 * u1, -3 * u0 + 4 * um - u1, u0
    out = []
    for bound in (lo, hi):
        finite = np.isfinite(bound[:, 0])
        if not finite.any():
            continue
        aa, bb, cc = a[finite], b[finite], c[finite] - bound[finite]
        with np.errstate(all="ignore"):
            root = np.sqrt(bb**2 - 4 * aa * cc)
            for r in ((-bb + root) / (2 * aa), (-bb - root) / (2 * aa),
                      np.where(np.abs(aa) <= 1e-14 * (np.abs(bb) + np.abs(cc)), -cc / bb, np.nan)):
                k = np.nonzero((r > 1e-12) & (r < 1 - 1e-12))
                out.append(nodes[k[1]] + r[k] * (nodes[k[1] + 1] - nodes[k[1]]))
    return np.unique(np.concatenate(out)) if out else np.empty(0)


def jacobian_norms(sol, intervals: np.ndarray) -> np.ndarray:
    """max ||df/dy||_inf over the points of each interval (its nodes, and with Hermite-Simpson its
    midpoint) under the plan's controls there: a bound of the spectral radius of df/dy."""
    step = sol._scheme.step
    j = np.arange(step + 1)
    k = np.repeat(intervals, step + 1)
    cols = step * k + np.tile(j, intervals.size)
    Y = sol.y_points[:, cols]
    U = control_values(sol, k, np.tile(j / step, intervals.size))
    with np.errstate(all="ignore"):
        J = sol.problem._rhs_y(Y, U)
        norms = np.max(np.sum(np.abs(J), axis=2), axis=1)
    norms = np.where(np.isnan(norms), np.inf, norms)
    return np.max(norms.reshape(intervals.size, step + 1), axis=1)


def interval_runs(sol, substeps: int, transition: bool, intervals=None, adapt: bool = True, visit=None):
    """The signed local errors (n_y, len(intervals)) of the plan's ``intervals`` (default: all)
    and their state-transition matrices (len, n_y, n_y), or None without ``transition``: each
    interval integrated from its first node under :func:`control_values` and compared with the next
    node, on ``substeps`` steps. ``adapt``: by Radau IIA on the intervals where a step h has
    h ||df/dy||_inf > RK4_STABLE, RK4 elsewhere; else RK4 everywhere (the cheap first pass of the
    check, where an interval it flags is integrated again with ``adapt``). ``visit(i, k, Y)``, if
    given, sees the states Y (n_y, len(k)) of the intervals k at the end of each inner substep i
    (1 to substeps - 1)."""
    K = sol.dtau.size
    idx = np.arange(K) if intervals is None else np.asarray(intervals, dtype=int)
    n = len(sol.state_names)
    stiff = np.zeros(idx.size, dtype=bool)
    if adapt and idx.size:
        widths = np.diff(sol._node_times())[idx]
        with np.errstate(invalid="ignore", over="ignore"):
            stiff = ~(widths / substeps * jacobian_norms(sol, idx) <= RK4_STABLE)
    Y0 = sol.y_points[:, ::sol._scheme.step]
    errors = np.empty((n, idx.size))
    phis = np.empty((idx.size, n, n)) if transition else None
    for part, run in ((~stiff, _rk4), (stiff, _radau)):
        if part.any():
            y, phi = run(sol, idx[part], int(substeps), transition, visit)
            errors[:, part] = y - Y0[:, idx[part] + 1]
            if transition:
                phis[part] = phi
    return errors, phis


def _rk4(sol, idx: np.ndarray, m: int, transition: bool, visit=None):
    """RK4 on ``m`` substeps of the intervals ``idx``, all at once."""
    n = len(sol.state_names)
    h, ds = np.diff(sol._node_times())[idx] / m, 1.0 / m
    Y = sol.y_points[:, ::sol._scheme.step][:, idx].copy()
    Phi = np.repeat(np.eye(n)[None], idx.size, axis=0) if transition else None
    f, f_y = sol.problem._rhs, sol.problem._rhs_y
    controls = {}  # half-substep j -> the controls at s = j ds / 2, each computed once

    def rhs(y, phi, j):
        u = controls.get(j)
        if u is None:
            u = controls[j] = control_values(sol, idx, j * ds / 2)
        return f(y, u), (f_y(y, u) @ phi if transition else None)

    hh = h[:, None, None]
    for i in range(m):
        k1, p1 = rhs(Y, Phi, 2 * i)
        k2, p2 = rhs(Y + h / 2 * k1, Phi + hh / 2 * p1 if transition else None, 2 * i + 1)
        k3, p3 = rhs(Y + h / 2 * k2, Phi + hh / 2 * p2 if transition else None, 2 * i + 1)
        k4, p4 = rhs(Y + h * k3, Phi + hh * p3 if transition else None, 2 * i + 2)
        Y = Y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if transition:
            Phi = Phi + hh / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
        if visit is not None and i < m - 1:
            visit(i + 1, idx, Y)
    return Y, Phi


def _radau(sol, idx: np.ndarray, m: int, transition: bool, visit=None):
    """The 3-stage Radau IIA rule on ``m`` substeps of the intervals ``idx``, all at once: stages
    Z_i = h sum_j a_ij f(y + Z_j, u(t + c_j h)) by simplified Newton (df/dy at the substep's
    start), y + Z_3 the next state; the transition matrix from the stages' variational
    equations Psi_i = h sum_j a_ij J_j (Phi + Psi_j), J_j = df/dy at the stages."""
    n, B = len(sol.state_names), idx.size
    widths = np.diff(sol._node_times())[idx]
    Y = sol.y_points[:, ::sol._scheme.step][:, idx].copy()
    Phi = np.repeat(np.eye(n)[None], B, axis=0) if transition else None
    f, f_y = sol.problem._rhs, sol.problem._rhs_y
    eye = np.eye(3 * n)
    h, ds = widths / m, 1.0 / m
    for i in range(m):
        s = i * ds
        Us = [control_values(sol, idx, s + c * ds) for c in RADAU_C]
        with np.errstate(all="ignore"):
            J0 = f_y(Y, control_values(sol, idx, s))  # (B, n, n)
            M = eye - h[:, None, None] * np.einsum("ij,bkl->bikjl", RADAU_A, J0).reshape(B, 3 * n, 3 * n)
            Z = np.zeros((B, 3, n))
            for _ in range(NEWTON_ITERATIONS):
                F = np.stack([f(Y + Z[:, j].T, Us[j]).T for j in range(3)], axis=1)  # (B, 3, n)
                R = -Z + h[:, None, None] * np.einsum("ij,bjn->bin", RADAU_A, F)
                try:
                    dZ = np.linalg.solve(M, R.reshape(B, 3 * n, 1))[:, :, 0].reshape(B, 3, n)
                except np.linalg.LinAlgError:
                    dZ = np.full_like(Z, np.nan)
                Z = Z + dZ
                if not np.max(np.abs(dZ), initial=0.0) > NEWTON_TOL * (1.0 + np.max(np.abs(Y), initial=0.0)):
                    break
            if transition:
                Js = [f_y(Y + Z[:, j].T, Us[j]) for j in range(3)]
                blocks = np.stack([np.stack([RADAU_A[a, b] * Js[b] for b in range(3)], axis=1) for a in range(3)],
                                  axis=1)  # (B, 3, 3, n, n): a_ij J_j
                G = eye - h[:, None, None] * blocks.transpose(0, 1, 3, 2, 4).reshape(B, 3 * n, 3 * n)
                rhs = h[:, None, None] * np.einsum("bajkl,blm->bakm", blocks, Phi).reshape(B, 3 * n, n)
                try:
                    Psi = np.linalg.solve(G, rhs)
                except np.linalg.LinAlgError:
                    Psi = np.full((B, 3 * n, n), np.nan)
                Phi = Phi + Psi[:, 2 * n:]
        Y = Y + Z[:, 2].T
        if visit is not None and i < m - 1:
            visit(i + 1, idx, Y)
    return Y, Phi


def point_controls(sol, k: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The controls (n_u, len(k)) at the fractions ``s`` of the intervals ``k`` interpolated linearly
    between the NLP's own points: node, midpoint (Hermite-Simpson's variable) and node; u_{k+1} under
    a zero-order hold. Within the range of the points' values, each in its bounds, and at a point
    its value there: what the path constraints between the points are evaluated with
    (:func:`path_violations`). The quadratic of :func:`control_values` overshoots the points where a
    control switches within an interval, and its clipping of each control to its bounds puts
    together values no point has: a car's v from -0.5 to 0.894 and curvature from -1 to 1 read
    (v, kappa) = (1, 1) between them, where the points all hold v^2 (1 + kappa^2/4) <= 1."""
    U, kind = sol.u_points, getattr(sol._scheme, "controls", "linear")
    k, s = np.asarray(k, dtype=int), np.asarray(s, dtype=float)
    if kind == "hold":
        return U[:, k + 1]
    if kind == "quadratic":
        first = s <= 0.5
        a = np.where(first, 2 * k, 2 * k + 1)
        w = np.where(first, 2 * s, 2 * s - 1)
        return U[:, a] * (1 - w) + U[:, a + 1] * w
    return U[:, k] * (1 - s) + U[:, k + 1] * s


def path_violations(sol, samples, gross: float) -> tuple:
    """(note, crossing) on the path constraints violated between the collocation points, where they
    are not imposed. The note: for each constraint g <= 0 whose largest value on the re-integration
    of the intervals (``samples``: the states (m - 1, n_y, K) at the inner substeps of each interval,
    from the check's; the controls there those of :func:`point_controls`, linear between the NLP's
    points) exceeds PATH_TOL (1 + max |g| at the points), its value and time there; "" without. A disc
    obstacle of radius 0.05 crossed between trapezoid nodes: g = 0.0025 at its centre. ``crossing``:
    why the plan is none, where a value exceeds ``gross`` (1 + max |g| at the points): a plan through
    the middle of an obstacle, which IPOPT's solution of the collocation equations at 11 points can be
    (the unit disc between (-2, 0) and (2, 0): g = 0.98); else None."""
    problem = sol.problem
    Y, U, times, at_points, nodes, node_values = path_points(sol, samples)
    with np.errstate(all="ignore"):
        G = path_values(problem, Y, U)
    depth = depth_measure(problem, Y, U, times, nodes, node_values)
    note, crossing = judged(problem, G, times, at_points, gross,
                            " Between the collocation points, where path constraints are not imposed, the re-run of "
                            "the plan violates ", "the plan crosses a path constraint between the collocation points, "
                            "where it is not imposed: its re-run violates ", depth)
    return note + _overshoot_note(sol, samples, G, at_points), crossing


def _overshoot_note(sol, samples, G: np.ndarray, at_points: np.ndarray) -> str:
    """A note where the plan's own controls between its points (:func:`control_values`: Hermite-Simpson's
    quadratic through node, midpoint and node, which ``sol.simulate`` and ``sol.track`` run) violate a
    path constraint well beyond what the check's linear controls between the points do (``G``): the
    quadratic overshoots where a control turns sharply within an interval. An outside probe's sleigh
    with a friction-cone margin R^2 <= 0.25^2 on its lateral force, whose torque went from 0.118 to
    -0.345 within an interval: |R| = 0.2914 under the plan's controls, the note 0.000128 (g)."""
    if sol.method == "dmoc" or getattr(sol._scheme, "controls", "linear") != "quadratic" or samples is None:
        return ""
    problem = sol.problem
    Y, k, s, times = sample_points(sol, samples)
    with np.errstate(all="ignore"):
        Gq = path_values(problem, Y, control_values(sol, k, s))
    notes = []
    for r, g in enumerate(problem.path_constraints):
        scale = 1.0 + float(np.max(np.abs(at_points[r]), initial=0.0))
        row = np.where(np.isfinite(Gq[r]), Gq[r], -np.inf)
        j = int(np.argmax(row))
        if row[j] > PATH_TOL * scale and row[j] > 2 * max(float(np.nanmax(G[r], initial=-np.inf)), 0.0):
            notes.append(f"{g} <= 0 by {row[j]:.3g} at t = {times[j]:.4g}")
    if not notes:
        return ""
    return (" The plan's own controls between its points (sol.controls_at, the quadratic through node, midpoint and "
            "node that sol.simulate and sol.track run) overshoot them where a control turns sharply within an "
            "interval, and under them the re-run violates " + "; ".join(notes) + ": the trapezoid's controls are "
            "linear between its nodes.")


def path_points(sol, samples=None) -> tuple:
    """(Y, U, times, at_points, node_times, node_values): where the path constraints are checked
    between the points, the states Y and controls U (a column each) at ``times`` -- the re-run's inner
    substeps (``samples``, as :func:`path_violations` takes them; DMOC: its discrete trajectory,
    :func:`~nonholo.control.dmoc.path_samples`) and the chords :func:`densified` adds --, the
    constraints' values where they are imposed (rows), and the nodes' times and values (states and
    controls, a column per node). The check's verdict and ``refine=`` (:func:`path_splits`) read the same."""
    problem, nodes = sol.problem, sol._node_times()
    if sol.method == "dmoc":
        from .dmoc import path_samples
        from .solution import ERROR_SUBSTEPS

        Y, U, times, points = path_samples(sol, ERROR_SUBSTEPS)
        with np.errstate(all="ignore"):
            at_points = path_values(problem, Y[:, points], U[:, points])
        node_values = np.vstack([sol.y, sol.u_points])
    else:
        Y, k, s, times = sample_points(sol, samples)
        U = point_controls(sol, k, s)
        with np.errstate(all="ignore"):
            at_points = path_function(problem)(sol.y_points, np.vstack([sol.u_points, sol.z_points]))
        node_values = np.vstack([sol.y, sol.u_points[:, ::getattr(sol._scheme, "step", 1)]])
    return (*densified(problem, Y, U, times, nodes, node_values), at_points, nodes, node_values)


CHORD_POINTS = 32  # points on each chord between samples next to a local maximum of a path constraint


def densified(problem, Y: np.ndarray, U: np.ndarray, times: np.ndarray, node_times: np.ndarray,
              node_values: np.ndarray) -> tuple:
    """(Y, U, times) of the samples (states Y and controls U at ``times``, one column each) with
    CHORD_POINTS points added on each chord, linear in the states and controls, between consecutive
    samples of an interval (its nodes, ``node_values`` at ``node_times``, at its ends) next to a local
    maximum of a path constraint's values along them. A wall thinner than the samples' spacing lies
    between two of them, each outside it: an outside probe's 4 mm wall between Hermite-Simpson nodes
    0.14 apart, whose 16 substeps are 8.6 mm apart, was crossed at 5 of its 9 positions unseen, the plan
    a success. Near the wall g rises to a maximum at a sample beside it, and the chords on either side
    of that sample cross it (within a 33rd of the samples' spacing)."""
    n_y, K = Y.shape[0], node_times.size
    W = np.hstack([node_values, np.vstack([Y, U])])  # the nodes' columns, then the samples'
    W_t = np.r_[node_times, times]
    # each interval's sequence: its first node, its inner samples in time order, its last node
    k = np.searchsorted(node_times, times, side="right") - 1
    inner = np.flatnonzero((k >= 0) & (k < K - 1) & (times > node_times[np.clip(k, 0, K - 1)])
                           & (times < node_times[np.clip(k + 1, 0, K - 1)]))
    inner = inner[np.lexsort((times[inner], k[inner]))]
    idx = np.concatenate([np.arange(K - 1), np.arange(1, K), K + inner])  # columns of W
    seg = np.concatenate([np.arange(K - 1), np.arange(K - 1), k[inner]])
    rank = np.concatenate([np.zeros(K - 1), np.full(K - 1, 2.0), np.ones(inner.size)])  # first, last, inner
    order = np.lexsort((W_t[idx], rank, seg))
    idx, seg = idx[order], seg[order]
    with np.errstate(all="ignore"):
        g = np.nan_to_num(path_values(problem, W[:n_y, idx], W[n_y:, idx]), nan=-np.inf)
    first = np.r_[True, seg[1:] != seg[:-1]]
    last = np.r_[seg[1:] != seg[:-1], True]
    # a maximum: strictly above the sample before it, not below the one after (in its interval)
    up = np.ones_like(g, dtype=bool)
    up[:, 1:] = g[:, 1:] > g[:, :-1]
    down = np.ones_like(g, dtype=bool)
    down[:, :-1] = g[:, :-1] >= g[:, 1:]
    peak = np.any((up | first) & (down | last), axis=0)
    chords = np.zeros(idx.size, dtype=bool)  # chord c joins positions c and c + 1 of one interval
    chords[:-1] |= peak[1:] & ~first[1:]  # the chord before a maximum
    chords |= peak & ~last  # the chord after it
    c = np.flatnonzero(chords)
    if not c.size:
        return Y, U, times
    frac = np.arange(1, CHORD_POINTS + 1) / (CHORD_POINTS + 1)
    a, b = W[:, idx[c]], W[:, idx[c + 1]]
    added = (a[:, :, None] * (1 - frac) + b[:, :, None] * frac).reshape(W.shape[0], -1)
    ta, tb = W_t[idx[c]], W_t[idx[c + 1]]
    added_t = (ta[:, None] + frac * (tb - ta)[:, None]).ravel()
    Z = np.hstack([np.vstack([Y, U]), added])
    return Z[:n_y], Z[n_y:], np.concatenate([times, added_t])


def interval_columns(times: np.ndarray, node_times: np.ndarray, k: int) -> np.ndarray:
    """The columns of the samples at ``times`` strictly inside interval k (between ``node_times[k]`` and
    ``node_times[k + 1]``), in time order: the nodes themselves are taken from their own values."""
    cols = np.flatnonzero((times > node_times[k]) & (times < node_times[k + 1]))
    return cols[np.argsort(times[cols], kind="stable")]


def path_splits(sol) -> np.ndarray:
    """Where (a fraction of each interval; NaN for none) the re-run of the plan lies deepest in a path
    constraint's excluded set between the collocation points, in the intervals where it violates one
    by more than PATH_TOL (1 + max |g| at the points) or passes through its set (:func:`judged`), on the
    samples and the chords :func:`densified` adds: the violations :func:`path_violations` notes,
    which the collocation error does not see (a straight line jumping a disc obstacle between two
    nodes has none). ``refine=`` splits those intervals there, so that the new point lies in the set
    and the solve must move it out (a split at the midpoint can miss a small obstacle again). For
    DMOC, on its discrete trajectory between the nodes (:func:`~nonholo.control.dmoc.path_samples`)."""
    problem, K = sol.problem, sol.dtau.size
    where = np.full(K, np.nan)
    if not problem.path_constraints or sol.method != "dmoc" and sol._samples is None:
        return where
    Y, U, times, at_points, nodes, node_values = path_points(sol, sol._samples)
    with np.errstate(all="ignore"):
        G = path_values(problem, Y, U)
    k = np.clip(np.searchsorted(nodes, times, side="right") - 1, 0, K - 1)
    s = (times - nodes[k]) / (nodes[k + 1] - nodes[k])
    scale = PATH_TOL * (1.0 + np.max(np.abs(np.nan_to_num(at_points)), axis=1, initial=0.0))
    with np.errstate(invalid="ignore"):
        over = np.nan_to_num(np.max(G / scale[:, None], axis=0), nan=-np.inf)
        rows = np.nan_to_num(G, nan=-np.inf)
    depth = depth_measure(problem, Y, U, times, nodes, node_values)
    for r in range(len(problem.path_constraints)):  # a pass through the set, whatever g's values (judged)
        j = int(np.argmax(rows[r]))
        if rows[r, j] > 0 and over[j] <= 1.0 and depth.through(r, j):
            over[j] = 1.0 + 1e-9
    worst = np.full(K, 1.0)
    for j in np.flatnonzero(over > 1.0):
        if over[j] > worst[k[j]] and 0.0 < s[j] < 1.0:
            worst[k[j]], where[k[j]] = over[j], s[j]
    return where


def sample_points(sol, samples) -> tuple:
    """(Y, k, s, times) of the check's samples (``samples``: the states (m - 1, n_y, K) at the inner
    substeps of each interval): their states one column each (n_y, (m - 1) K), each column's interval k,
    its fraction s of the interval and its time."""
    m = samples.shape[0] + 1
    K = sol.dtau.size
    k = np.tile(np.arange(K), m - 1)
    s = np.repeat(np.arange(1, m) / m, K)
    nodes = sol._node_times()
    return samples.transpose(1, 0, 2).reshape(samples.shape[1], -1), k, s, nodes[k] + s * (nodes[k + 1] - nodes[k])


def depth_measure(problem, Y: np.ndarray, U: np.ndarray, times: np.ndarray, node_times: np.ndarray,
                  node_values: np.ndarray):
    """measure(r, j, g) -> (depth, step): how deep the sample j (states Y[:, j], controls U[:, j] at
    times[j], where path constraint r has the value g) lies in the set that constraint excludes,
    g / |grad g| (the distance to g = 0 to first order, in the states and controls; inf where the
    gradient vanishes: the centre of a disc written as r^2 - x^2 - y^2 <= 0), and the length
    |z_{k+1} - z_k| of the step between the nodes (``node_values``: states and controls, one column
    per node at ``node_times``) of its interval, or the longer length of the re-run's path over it (an
    outside probe's Bryson-Denham plan rode x <= 1/7 with x and v fixed at the nodes while its control
    oscillated: a step of 5e-14 against a bulge of 3.6e-4, no success), in the states and the controls
    that g involves (every
    control where g involves the algebraic variables of a System's dynamics). Both in the same units,
    whatever the units of g: a plan cutting a disc of radius R between nodes a step h apart goes
    h^2 / (8 R) deep, a plan through its middle R. The controls g does not involve stay out of the
    step: a plan that jumps an obstacle needs a spike of its speed, which would widen the step it is
    judged by (an outside probe's unicycle crossed a disc of radius 0.2 between Hermite-Simpson points
    with the speed at 13-16, a step of 2-4 in the states and controls against 0.56 in the states)."""
    n_y = Y.shape[0]
    involved = []
    for g in problem.path_constraints:
        symbols = sp.sympify(g).free_symbols
        every = any(a in symbols for a in getattr(problem, "algebraic", ()))
        involved.append(np.r_[np.ones(n_y, dtype=bool), [every or u in symbols for u in problem.controls]])

    def gradient(r: int, z: np.ndarray) -> np.ndarray:
        h = 1e-6 * (1.0 + np.abs(z))
        Z = np.hstack([z[:, None] + np.diag(h), z[:, None] - np.diag(h)])
        g = path_values(problem, Z[:n_y], Z[n_y:])[r]
        return (g[:z.size] - g[z.size:]) / (2 * h)

    def interval(j: int) -> int:
        return int(np.clip(np.searchsorted(node_times, times[j]) - 1, 0, node_values.shape[1] - 2))

    def measure(r: int, j: int, value: float) -> tuple:
        norm = float(np.linalg.norm(gradient(r, np.r_[Y[:, j], U[:, j]])))
        depth = value / norm if np.isfinite(norm) and norm > 0 else np.inf
        k = interval(j)
        cols = interval_columns(times, node_times, k)
        path = np.column_stack([node_values[:, k], np.vstack([Y[:, cols], U[:, cols]]), node_values[:, k + 1]])
        steps = np.linalg.norm(np.diff(path[involved[r]], axis=1), axis=0)
        return depth, float(max(np.linalg.norm((node_values[:, k + 1] - node_values[:, k])[involved[r]]),
                                np.sum(steps[np.isfinite(steps)])))

    def through(r: int, j: int) -> bool:
        """Whether the re-run passes through the set constraint r excludes around sample j: the
        gradients of g at the last point before j and the first after it where g <= 0 (the samples
        of j's interval in time, with its nodes at the ends) point against each other. A chord that
        cuts the edge of a disc leaves where it entered, at nearly the same normal; one through a
        wall, or across more than 0.29 of a disc's radius (a cap of half-angle 45 degrees), leaves
        on the other side, however thin the wall and whatever the values of g."""
        k = interval(j)
        cols = interval_columns(times, node_times, k)
        if j not in cols:  # a node's own value (DMOC's samples hold its nodes): judged by its value and depth
            return False
        Z = np.column_stack([node_values[:, k], np.vstack([Y[:, cols], U[:, cols]]), node_values[:, k + 1]])
        g = path_values(problem, Z[:n_y], Z[n_y:])[r]
        at = int(np.flatnonzero(cols == j)[0]) + 1
        before = [i for i in range(at) if g[i] <= 0]
        after = [i for i in range(at + 1, g.size) if g[i] <= 0]
        if not before or not after:
            return False
        a, b = gradient(r, Z[:, before[-1]])[involved[r]], gradient(r, Z[:, after[0]])[involved[r]]
        return bool(np.dot(a, b) < 0)

    measure.through = through
    return measure


def judged(problem, G: np.ndarray, times: np.ndarray, at_points: np.ndarray, gross: float, lead: str,
           crosses: str, depth=None) -> tuple:
    """(note, crossing) of the path constraints' values ``G`` (rows) at ``times``: each constraint whose
    largest value exceeds PATH_TOL (1 + max |g| of ``at_points``, its values where it is imposed) named
    with its value and time after ``lead``; ``crossing`` (after ``crosses``) where one exceeds ``gross``
    (1 + max |g| there), or lies deeper in the excluded set than ``gross`` times its interval's step
    (``depth``: :func:`depth_measure`; the value alone depends on how g is written: a disc of radius
    0.3 as 0.09 - x^2 - y^2 <= 0 is at most 0.09 inside), or passes through the set g excludes
    (``depth.through``, whatever the value: a wall 4 mm thick written as 1 - ((x - 2) / 0.002)^2 <= 0,
    whose value far from it is -1e6, was crossed at g = 0.93 between nodes 0.04 apart, a success
    without a note), else None (:func:`path_violations`)."""
    notes, crossing = [], None
    for r, g in enumerate(problem.path_constraints):
        scale = 1.0 + float(np.max(np.abs(at_points[r]), initial=0.0))
        row = np.where(np.isfinite(G[r]), G[r], -np.inf)
        j = int(np.argmax(row))
        through = depth is not None and row[j] > 0 and depth.through(r, j)
        if row[j] > PATH_TOL * scale or through:
            notes.append(f"{g} <= 0 by {row[j]:.3g} at t = {times[j]:.4g}")
            if crossing is None and row[j] > gross * scale:
                crossing = (f"{crosses}{notes[-1]} (more than {gross:g} (1 + max |g| at the points)). Solve with more "
                            "nodes, with refine=, or from another guess")
            elif crossing is None and depth is not None:
                inside, step = depth(r, j, float(row[j]))
                if inside > gross * step and inside > FLAT_DEPTH * max(step, 1.0):
                    # g / |grad g| is no distance where the gradient (nearly) vanishes: an outside probe's
                    # wall (x - 2)^2 >= 0.25 crossed at its mid-plane read 1.9e7 deep
                    crossing = (f"{crosses}{notes[-1]}, where g's gradient nearly vanishes (the middle of the set it "
                                "excludes: across a wall, or through a disc's centre). Solve with more nodes, with "
                                "refine=, or from another guess; if those only stretch the plan, the path "
                                "constraints may leave no way through")
                elif inside > gross * step:
                    crossing = (f"{crosses}{notes[-1]}: g / |grad g| = {inside:.3g}, its distance into the excluded "
                                f"set to first order, is more than {gross:g} of the step {step:.3g} between its "
                                "interval's nodes (in the states and the controls it involves). Solve with more nodes, "
                                "with refine=, or from another guess")
            if crossing is None and through:
                crossing = (f"{crosses}{notes[-1]}, and passes through the set it excludes (g's gradients where the "
                            "re-run enters and leaves it point against each other: through a wall, or across a "
                            "disc's middle). Solve with more nodes, with refine=, or from another guess")
    if not notes:
        return "", None
    return lead + "; ".join(notes) + ".", crossing


def bounded_states(problem) -> list:
    """(index, lo, hi) of each state with a finite bound (``problem.state_bounds``)."""
    out = []
    for i, name in enumerate(problem.state_names):
        lo, hi = problem.state_bounds.get(name, (-math.inf, math.inf))
        if math.isfinite(lo) or math.isfinite(hi):
            out.append((i, lo, hi))
    return out


def bound_violations(sol, samples) -> str:
    """A note on the state bounds left between the collocation points, where they are imposed only at
    the points as path constraints are: for each bounded state whose re-run (``samples``, as
    :func:`path_violations` takes them) leaves its bounds by more than PATH_TOL (u + its largest finite
    bound), u the plan's unit (:func:`~nonholo.control.solution.scale_unit`: 1 unless every state moves
    less), by how much and when; "" without. An outside probe's sleigh with |omega| <= 0.8 as a state
    bound reached 0.8187 between 100 Hermite-Simpson nodes where its torque switched, unmentioned,
    while the same bound as a path constraint was judged; with 1 for u, another's double integrator
    leaving v <= 0.6 k by 0.0038 k was noted at k = 1 and 1e-3, not at 1e-6."""
    from .solution import scale_unit

    Y, _, _, times = sample_points(sol, samples)
    notes = []
    unit = scale_unit(sol.y_points)
    for i, lo, hi in bounded_states(sol.problem):
        values = Y[i]
        with np.errstate(invalid="ignore"):
            over = np.nan_to_num(np.maximum(values - hi, lo - values), nan=-np.inf)
        j = int(np.argmax(over))
        scale = unit + max(abs(b) for b in (lo, hi) if math.isfinite(b))
        if over[j] > PATH_TOL * scale:
            side = f"<= {hi:g}" if values[j] > hi else f">= {lo:g}"
            notes.append(f"{sol.state_names[i]} {side} by {over[j]:.3g} at t = {times[j]:.4g}")
    if not notes:
        return ""
    return (" Between the collocation points, where state bounds are imposed only at the points, the re-run of the "
            "plan leaves " + "; ".join(notes) + " (where a bound must hold between the points too, tighten it by that "
            "much: more nodes need not shrink it where the controls switch).")
