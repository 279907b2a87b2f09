"""DMOC: discrete mechanics and optimal control. The transcription of an optimal control problem of a
:class:`~nonholo.System` by the midpoint discrete Lagrange-d'Alembert equations, the equations of
``system.discrete(h)`` (:class:`~nonholo.models.discrete.DiscreteModel`) with the controls in the force.

With q_m = (q_k + q_{k+1})/2, v_m = (q_{k+1} - q_k)/h_k, u_m = (u_k + u_{k+1})/2 and the discrete
Lagrangian L_d(q_k, q_{k+1}) = h_k L(q_m, v_m), L = 1/2 v^T G v - V:

    D1 L_d + f_k^- = h_k/2 (dL/dq + F)(q_m, v_m, u_m) - G(q_m) v_m,
    D2 L_d + f_k^+ = h_k/2 (dL/dq + F)(q_m, v_m, u_m) + G(q_m) v_m,

and the discrete Lagrange-d'Alembert equations at the nodes, with impulses Lambda_k (h lambda):

    D2 L_d(q_{k-1}, q_k) + f_{k-1}^+ + D1 L_d(q_k, q_{k+1}) + f_k^- + A(q_k)^T Lambda_k = 0,
    A(q_m) v_m = b(q_m)                              (the discrete constraint, on each interval),

closed at the ends by the discrete Legendre transforms: p_0 + D1 L_d(q_0, q_1) + f_0^- + A^T Lambda_0 = 0
and D2 L_d(q_{N-1}, q_N) + f_{N-1}^+ + A^T Lambda_N = p_N, p = G(q) q' the given end momenta (an end
whose velocities are free has no such equation). Holonomic constraints phi(q) = 0 of the system
(``System(holonomic=...)``) are imposed at position level at every node, phi(q_{k+1}) = 0, in place of
the constraint rows that are their derivatives. The running cost is h_k/2 (L(y_m, u_k) + L(y_m, u_{k+1}))
(y_m the midpoint state). Path constraints hold at the midpoints (y_m, u_m), and those of the coordinates
and controls alone at every node (q_k, u_k) too: the nodes are the plan's states (``sol.y``), and a knife
edge planned around a disc on 11 nodes went 3.1 cm into it at a node, its midpoints outside. One with a
velocity is imposed at the midpoints only (the nodes' velocities come from the discrete momenta after the
solve); the check of every solve evaluates all of them at the nodes and between them
(:func:`path_samples`). The NLP (``_core.solve_interval_nlp``) runs the interval's and the node's tapes
in C++.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from .. import _core
from ..errors import ModelError
from .transcription import DMOC, point_functions
from .ipopt_lock import locked_solve

__all__ = ["DiscreteMechanics", "solve_dmoc", "path_samples"]


def _holonomic_rows(A: sp.Matrix, phi: list, q: list, values: dict) -> list:
    """The rows of A to drop for phi(q) = 0: as many as phi has, chosen (at a random point) so that
    the kept rows and dphi/dq span the rows of A."""
    if not phi:
        return []
    rng = np.random.default_rng(7)
    point = {s: float(rng.uniform(0.2, 0.8)) for s in q}
    An = np.array(A.subs(values).subs(point).evalf(), dtype=float)
    Dn = np.array(sp.Matrix(phi).jacobian(q).subs(values).subs(point).evalf(), dtype=float)
    rank = np.linalg.matrix_rank(An)
    if np.linalg.matrix_rank(np.vstack([An, Dn])) != rank:
        raise ModelError("the holonomic constraints' derivatives are not among the constraint rows")
    dropped: list = []
    for i in reversed(range(An.shape[0])):
        if len(dropped) == len(phi):
            break
        kept = [j for j in range(An.shape[0]) if j != i and j not in dropped]
        if np.linalg.matrix_rank(np.vstack([An[kept], Dn])) == rank:
            dropped.append(i)
    if len(dropped) != len(phi):
        raise ModelError("could not match the holonomic constraints with constraint rows")
    return sorted(dropped)


class DiscreteMechanics:
    """The discrete Lagrange-d'Alembert equations of ``problem.system`` with the problem's controls, as
    the interval and node functions of the interval NLP (see the module's docstring).

    Node variables z_k = (q_k, u_k, Lambda_k). Interval outputs [D1 L_d + f^- (n), D2 L_d + f^+ (n),
    the discrete constraints and phi(q_{k+1}), the path constraints at the midpoint, the cost]; node
    outputs [A(q_k)^T Lambda_k, the path constraints of the coordinates and controls alone at the node]."""

    def __init__(self, problem):
        system = problem.system
        if system is None:
            raise ValueError("method='dmoc' needs a System given with controls= (a Lagrangian with the controls "
                             "in its force)")
        controls = list(problem.controls)
        values = {p: v for p, v in system.parameters.items() if p not in controls}
        q, v = list(system.coordinates), list(system.velocities)
        n, m = len(q), len(controls)
        G = sp.Matrix(system.metric).subs(values)
        V = sp.sympify(system.potential).subs(values)
        F = sp.Matrix(system.force).subs(values)
        A = sp.Matrix(system.constraints).subs(values)
        b = sp.Matrix(system.affine).subs(values)
        if system.time in F.free_symbols | b.free_symbols:
            raise ModelError("a time-dependent force or constraint is not supported with method='dmoc'")
        phi = [sp.sympify(h).subs(values) for h in (system.holonomic or [])]
        dropped = _holonomic_rows(A, phi, q, values)
        kept = [i for i in range(A.rows) if i not in dropped]
        self.n, self.m, self.k = n, m, A.rows
        self.system, self.problem = system, problem
        names = problem.state_names[n:]
        by_name = {str(s): i for i, s in enumerate(v)}
        if any(nm not in by_name for nm in names):
            raise ValueError(f"method='dmoc' needs states q and velocities of {system.name!r}; the problem's are "
                             f"{problem.state_names} (Kane's speeds: use a collocation method)")
        self.free = [by_name[nm] for nm in names]  # w = v[free]

        def named(stem, count):
            return [sp.Symbol(f"{stem}_{i}") for i in range(count)]

        q0, q1, u0, u1 = named("_qa", n), named("_qb", n), named("_ua", m), named("_ub", m)
        L0, L1 = named("_La", self.k), named("_Lb", self.k)
        h = sp.Symbol("_h", positive=True)
        qm = [(a + c) / 2 for a, c in zip(q0, q1)]
        vm = [(c - a) / h for a, c in zip(q0, q1)]
        um = [(a + c) / 2 for a, c in zip(u0, u1)]
        mid = dict(zip(q, qm)) | dict(zip(v, vm)) | dict(zip(controls, um))
        Gm, vmv = G.xreplace(mid), sp.Matrix(vm)
        dLdq = [(vmv.T * sp.diff(G, qi).xreplace(mid) * vmv)[0, 0] / 2 - sp.diff(V, qi).xreplace(mid) for qi in q]
        half = [h / 2 * (d + f) for d, f in zip(dLdq, F.xreplace(mid))]
        Gv = Gm * vmv
        minus = [a - c for a, c in zip(half, Gv)]
        plus = [a + c for a, c in zip(half, Gv)]
        constraint = [(A[i, :].xreplace(mid) * vmv)[0, 0] - b[i].xreplace(mid) for i in kept]
        holonomic = [e.xreplace(dict(zip(q, q1))) for e in phi]
        ystate = list(problem.states)
        ymid = dict(zip(ystate[:n], qm)) | {ystate[n + j]: vm[i] for j, i in enumerate(self.free)}
        at = [ymid | dict(zip(controls, uu)) for uu in (u0, u1)]
        path = [g.xreplace(ymid | dict(zip(controls, um))) for g in problem.path_constraints]
        cost = h / 2 * (problem.running_cost.xreplace(at[0]) + problem.running_cost.xreplace(at[1]))
        z0, z1 = [*q0, *u0, *L0], [*q1, *u1, *L1]
        self.interval = point_functions([*z0, *z1, h], [*minus, *plus, *constraint, *holonomic, *path, cost])
        Lam = sp.Matrix(L0)
        # the path constraints without a velocity state hold at the nodes too (the module's docstring)
        velocities = set(ystate[n:])
        at_node = [i for i, g in enumerate(problem.path_constraints) if not g.free_symbols & velocities]
        node_path = [problem.path_constraints[i].xreplace(dict(zip(ystate[:n], q0)) | dict(zip(controls, u0)))
                     for i in at_node]
        self.node = point_functions(z0, (list(A.xreplace(dict(zip(q, q0))).T * Lam) if self.k else [0] * n)
                                    + node_path)
        self.g_bounds = [problem.path_bounds[i] for i in at_node]
        self.c_bounds = [(0.0, 0.0)] * (len(constraint) + len(holonomic)) + list(problem.path_bounds)
        self.n_c = len(self.c_bounds)
        # numeric helpers for the ends and the node velocities (not per iteration)
        self._metric = sp.lambdify([q], G, "numpy")
        self._rows = sp.lambdify([q], A, "numpy")
        self._affine = sp.lambdify([q], b, "numpy")
        self._plus = sp.lambdify([q0, u0, q1, u1, h], plus, "numpy")
        self._minus = sp.lambdify([q0, u0, q1, u1, h], minus, "numpy")
        self._phi = sp.lambdify([q], phi, "numpy") if phi else None
        self._qdot = sp.lambdify([ystate], list(problem.dynamics.rhs[:n]), "numpy")

    # ------------------------------------------------------------------ numbers
    def momentum(self, y) -> np.ndarray:
        """p = G(q) q' at a state y = (q, w) of the problem."""
        y = np.asarray(y, dtype=float)
        return np.asarray(self._metric(y[: self.n]), dtype=float) @ np.asarray(self._qdot(y), dtype=float).reshape(-1)

    def velocity(self, q, p) -> np.ndarray:
        """The velocity on the constraint set whose momentum is p modulo the rows of A:
        [G A^T; A 0] [v; mu] = [p; b]."""
        G = np.asarray(self._metric(q), dtype=float)
        if not self.k:
            return np.linalg.solve(G, p)
        A = np.asarray(self._rows(q), dtype=float).reshape(self.k, self.n)
        b = np.asarray(self._affine(q), dtype=float).reshape(-1)
        K = np.block([[G, A.T], [A, np.zeros((self.k, self.k))]])
        return np.linalg.solve(K, np.concatenate([p, b]))[: self.n]

    def holonomic_residual(self, q) -> np.ndarray:
        """|phi(q)| at the columns of q (n, P); zeros without holonomic constraints."""
        q = np.atleast_2d(np.asarray(q, dtype=float))
        if self._phi is None:
            return np.zeros(q.shape[1])
        return np.max(np.abs(np.array([np.asarray(self._phi(col), dtype=float) for col in q.T])), axis=1)


def solve_dmoc(problem, dtau: np.ndarray, guess, options: dict):
    """One DMOC solve of ``problem`` on the mesh ``dtau`` from ``guess`` (as ``problem._guess``);
    returns an :class:`~nonholo.control.solution.OptimalControlSolution` whose states (q, w) at the
    nodes take w from the discrete momenta (D2 L_d + f^+, projected on the constraint set)."""
    from .solution import OptimalControlSolution

    dm = problem._discrete_mechanics()
    n, m, k = dm.n, dm.m, dm.k
    if problem.terminal_cost is not None:
        raise ValueError("terminal_cost is not supported with method='dmoc'")
    velocity_names = problem.state_names[n:]
    bounded = sorted(set(problem.state_bounds) & set(velocity_names))
    if bounded:
        raise ValueError(f"state_bounds on the velocities {bounded} are not supported with method='dmoc' "
                         f"(its variables are the coordinates at the nodes)")
    ends = []
    for what, values in (("initial", problem.initial), ("final", problem.final)):
        given = [x is not None for x in values[n:]]
        if any(given) and not all(given):
            raise ValueError(f"{what}: with method='dmoc' the velocities {velocity_names} are all given or all free")
        if all(given) and given and not all(x is not None for x in values[:n]):
            raise ValueError(f"{what}: with method='dmoc' given velocities need the coordinates given too")
        ends.append(all(given) and bool(given))
    if dm._phi is not None:
        if any(x is None for x in problem.initial[:n]):
            raise ValueError("initial: with holonomic constraints and method='dmoc' the coordinates must be given")
        for what, values in (("initial", problem.initial), ("final", problem.final)):
            given = all(x is not None for x in values[:n])
            if given and dm.holonomic_residual(np.array(values[:n], dtype=float)[:, None])[0] > 1e-8:
                raise ValueError(f"{what} coordinates violate the holonomic constraints phi(q) = 0")
    tau = np.concatenate([[0.0], np.cumsum(dtau)])
    tau[-1] = 1.0
    with np.errstate(all="ignore"):  # the guess's controls are fitted through the problem's q' = X_D(q) w,
        Y, U, T = problem._guess(guess, tau)  # singular where the Voronets split is: DMOC is not
    U = np.nan_to_num(U, nan=0.0, posinf=0.0, neginf=0.0)
    P = tau.size
    nz = n + m + k
    lo = np.full(nz, -math.inf)
    hi = np.full(nz, math.inf)
    for i, name in enumerate(problem.state_names[:n]):
        lo[i], hi[i] = problem.state_bounds.get(name, (-math.inf, math.inf))
    for j, name in enumerate(problem.control_names):
        lo[n + j], hi[n + j] = problem.control_bounds[name]
    x_lo, x_hi = np.tile(lo, P), np.tile(hi, P)
    for i in range(n):
        if problem.initial[i] is not None:
            x_lo[i] = x_hi[i] = problem.initial[i]
        if problem.final[i] is not None and i not in problem._implied:  # implied: left to the constraint rows
            x_lo[(P - 1) * nz + i] = x_hi[(P - 1) * nz + i] = problem.final[i]
    for end, node in zip(ends, (0, P - 1)):
        if not end:  # no equation there: its impulse is not a variable
            x_lo[node * nz + n + m: (node + 1) * nz] = x_hi[node * nz + n + m: (node + 1) * nz] = 0.0
    first = dm.momentum(problem.initial) if ends[0] else np.zeros(n)
    last = -dm.momentum(problem.final) if ends[1] else np.zeros(n)
    x0 = np.vstack([Y[:n], U, np.zeros((k, P))]).T.reshape(-1)
    if problem.free_time:
        x_lo, x_hi, x0 = np.append(x_lo, problem.t_bounds[0]), np.append(x_hi, problem.t_bounds[1]), np.append(x0, T)
    x0 = np.clip(x0, x_lo, x_hi)

    def taped(f):
        return (f.node, f.jac_rows, f.jac_cols, f.hessian, f.hess_rows, f.hess_cols)

    out = locked_solve(
        _core.solve_interval_nlp, n_z=nz, n_r=n, n_c=dm.n_c, n_g=len(dm.g_bounds), dtau=list(dtau),
        free_time=problem.free_time, t_final=float(problem.t_final if not problem.free_time else 1.0),
        interval=taped(dm.interval),
        node=taped(dm.node), first_rows=list(first), last_rows=list(last), first_imposed=ends[0],
        last_imposed=ends[1], c_lo=[c[0] for c in dm.c_bounds], c_hi=[c[1] for c in dm.c_bounds],
        g_lo=[g[0] for g in dm.g_bounds], g_hi=[g[1] for g in dm.g_bounds], x_lo=list(x_lo), x_hi=list(x_hi),
        x0=list(x0), **options)
    x = np.asarray(out["x"])
    blocks = x[: P * nz].reshape(P, nz).T
    Q, Uc, Lam = blocks[:n], blocks[n:n + m], blocks[n + m:]
    t_final = float(x[-1]) if problem.free_time else float(problem.t_final)
    h = np.asarray(dtau) * t_final
    V = np.empty((n, P))
    for node in range(P):
        if node == 0:
            p = first if ends[0] else -np.asarray(dm._minus(Q[:, 0], Uc[:, 0], Q[:, 1], Uc[:, 1], h[0]), dtype=float)
        else:
            p = np.asarray(dm._plus(Q[:, node - 1], Uc[:, node - 1], Q[:, node], Uc[:, node], h[node - 1]),
                           dtype=float)
        V[:, node] = dm.velocity(Q[:, node], p)
    layout = dict(out)
    layout["x"] = np.concatenate([np.vstack([Q, V[dm.free], Uc]).T.reshape(-1), x[P * nz:]])
    sol = OptimalControlSolution(problem, DMOC, dtau, layout)
    sol.stats["n_variables"], sol.stats["n_constraints"] = out["n_variables"], out["n_constraints"]
    sol.impulses = Lam
    sol.velocities = V
    sol.holonomic_residual = dm.holonomic_residual(Q)
    return sol


def path_samples(sol, substeps: int) -> tuple:
    """(states (n_y, M), controls (n_u, M), times (M,), which are the nodes and midpoints (M,)) of a DMOC
    plan at which the check of every solve
    evaluates its path constraints: the nodes (``sol.y``, ``sol.u``: the states the plan reports, with
    the velocities of the discrete momenta) and the ``substeps - 1`` inner points of each interval of
    the discrete trajectory, q linear from q_k to q_{k+1} at the constant velocity (q_{k+1} - q_k)/h_k
    of the midpoint rule, the controls linear (the midpoint, s = 1/2, among them for an even
    ``substeps``)."""
    n = sol.problem._discrete_mechanics().n
    nodes = sol._node_times()
    K = sol.dtau.size
    Q, U = sol.y[:n], sol.u_points
    free = sol.problem._discrete_mechanics().free
    V = (Q[:, 1:] - Q[:, :-1]) / np.diff(nodes)  # (n, K): the intervals' velocities
    s = np.repeat(np.arange(1, substeps) / substeps, K)
    k = np.tile(np.arange(K), substeps - 1)
    Ys = np.vstack([Q[:, k] * (1 - s) + Q[:, k + 1] * s, V[free][:, k]])
    Us = U[:, k] * (1 - s) + U[:, k + 1] * s
    times = nodes[k] + s * (nodes[k + 1] - nodes[k])
    points = np.concatenate([np.ones(K + 1, dtype=bool), np.isclose(s, 0.5)])
    return np.hstack([sol.y, Ys]), np.hstack([U, Us]), np.concatenate([nodes, times]), points
