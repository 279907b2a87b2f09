"""The benchmark workloads written for the peers of nonholo (SciPy, CasADi, PyDy), from SymPy.

Each peer gets the equations a user of that tool would write: for the Whipple bicycle Kane's
explicit form M(q) x' = f(q, u) (SymPy's ``mass_matrix_full`` and ``forcing_full``, states
[q, u] with every speed); for systems given as a :class:`nonholo.System` (sleigh, knife-edge
chain) the Lagrange-d'Alembert equations from the system's own expressions G, A, b, mu, F, V:

    q' = v,   G v' = r + A^T lambda,   A v' = a          (nonholonomic)
    q' = v,   G v' = r - (1/eps) A^T mu (A v - b)         (friction)

with r = F - dV - c(q, v), c_i = sum_jl d_l G_ij v^j v^l - 1/2 sum_jk d_i G_jk v^j v^k and
a = db/dq v - (dA/dq . v) v (time-independent b), formed once in SymPy. nonholo forms the same
objects on its tape; the benchmark checks that every peer agrees with nonholo before timing.
"""

from __future__ import annotations

import numpy as np
import sympy as sp


def saddle_point_blocks(system) -> dict:
    """{name: SymPy matrix} of G, A, b, mu, r, a in the coordinates and velocities of ``system``
    with its parameters substituted; the symbols under "q" and "v"."""
    q, v = sp.Matrix(system.coordinates), sp.Matrix(system.velocities)
    values = dict(system.parameters)
    subs = lambda M: sp.Matrix(M).xreplace(values)  # noqa: E731
    G, A, b = subs(system.metric), subs(system.constraints), subs(system.affine)
    mu, F, V = subs(system.friction_coefficients), subs(system.force), sp.sympify(system.potential).xreplace(values)
    n = len(q)
    dG = [G.diff(qi) for qi in q]
    Gdot = sp.zeros(n, n)
    for l in range(n):
        Gdot += dG[l] * v[l]
    c = Gdot * v - sp.Matrix([(v.T * dG[i] * v)[0] / 2 for i in range(n)])
    r = F - sp.Matrix([V.diff(qi) for qi in q]) - c
    Adot = sp.zeros(*A.shape)
    for l in range(n):
        Adot += A.diff(q[l]) * v[l]
    a = b.jacobian(q) * v - Adot * v if A.shape[0] else sp.zeros(0, 1)
    return dict(q=list(q), v=list(v), G=G, A=A, b=b, mu=mu, r=r, a=a)


def numpy_saddle_rhs(system, kind: str, eps: float | None = None):
    """f(t, y) for SciPy: the blocks lambdified to NumPy, one dense solve per call."""
    B = saddle_point_blocks(system)
    n, k = len(B["q"]), B["A"].shape[0]
    args = [*B["q"], *B["v"]]
    blocks = sp.lambdify(args, [B["G"], B["A"], B["b"], B["mu"], B["r"], B["a"]], modules="numpy", cse=True)

    def rhs(t, y):
        G, A, b, mu, r, a = (np.asarray(x, dtype=float) for x in blocks(*y))
        v = y[n:]
        if kind == "nonholonomic":
            K = np.block([[G, -A.T], [A, np.zeros((k, k))]])
            vdot = np.linalg.solve(K, np.concatenate([r.ravel(), a.ravel()]))[:n]
        else:
            vdot = np.linalg.solve(G, r.ravel() - (A.T @ (mu @ (A @ v - b.ravel()))) / eps)
        return np.concatenate([v, vdot])

    return rhs


def _casadi_functions(ca) -> dict:
    names = ("sin", "cos", "tan", "exp", "log", "sqrt", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh")
    table = {name: getattr(ca, name) for name in names}
    table.update(Abs=ca.fabs, sign=ca.sign, Pow=ca.power, pi=np.pi)
    return table


def to_casadi(ca, exprs, symbols, sx_args):
    """The SymPy matrix ``exprs`` as a CasADi SX matrix in the SX symbols ``sx_args``."""
    M = sp.Matrix(exprs)
    if M.shape[0] * M.shape[1] == 0:
        return ca.SX(M.shape[0], M.shape[1])
    f = sp.lambdify(symbols, list(M), modules=[_casadi_functions(ca), "math"], cse=True)
    flat = f(*[sx_args[i] for i in range(len(symbols))])
    return ca.reshape(ca.vertcat(*[ca.SX(e) for e in flat]), M.shape[1], M.shape[0]).T


def casadi_saddle_ode(ca, system, kind: str, eps: float | None = None):
    """(x, xdot) as CasADi SX for the nonholonomic or friction model of ``system``."""
    B = saddle_point_blocks(system)
    n, k = len(B["q"]), B["A"].shape[0]
    x = ca.SX.sym("x", 2 * n)
    args = [*B["q"], *B["v"]]
    G, A, b, mu, r, a = (to_casadi(ca, B[name], args, x) for name in ("G", "A", "b", "mu", "r", "a"))
    v = x[n:]
    if kind == "nonholonomic":
        K = ca.vertcat(ca.horzcat(G, -A.T), ca.horzcat(A, ca.SX(k, k)))
        vdot = ca.solve(K, ca.vertcat(r, a))[:n]
    else:
        vdot = ca.solve(G, r - ca.mtimes(A.T, ca.mtimes(mu, ca.mtimes(A, v) - b)) / eps)
    return x, ca.vertcat(v, vdot)


def casadi_kane_ode(ca, km, values: dict):
    """(x, xdot) as CasADi SX of Kane's explicit form: M(q) x' = f(q, u), x = [q, u]."""
    states = [*km.q, *km.u]
    plain = sp.symbols(f"_x0:{len(states)}")
    swap = dict(zip(states, plain))
    M = km.mass_matrix_full.xreplace(values).xreplace(swap)
    f = km.forcing_full.xreplace(values).xreplace(swap)
    x = ca.SX.sym("x", len(states))
    return x, ca.solve(to_casadi(ca, M, plain, x), to_casadi(ca, f, plain, x))


def numpy_kane_rhs(km, values: dict):
    """f(t, x) for SciPy: Kane's M and f lambdified to NumPy, one dense solve per call."""
    states = [*km.q, *km.u]
    plain = sp.symbols(f"_x0:{len(states)}")
    swap = dict(zip(states, plain))
    M = km.mass_matrix_full.xreplace(values).xreplace(swap)
    f = km.forcing_full.xreplace(values).xreplace(swap)
    blocks = sp.lambdify(plain, [M, f], modules="numpy", cse=True)

    def rhs(t, x):
        Mx, fx = blocks(*x)
        return np.linalg.solve(np.asarray(Mx, dtype=float), np.asarray(fx, dtype=float).ravel())

    return rhs
