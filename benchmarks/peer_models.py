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


def _index(symbols) -> dict:
    return {s: i for i, s in enumerate(symbols)}


def _partials(expr, index: dict):
    """[(l, d expr / d q_l)] over the coordinates q_l that ``expr`` contains (the others vanish)."""
    return [(index[s], expr.diff(s)) for s in sorted(expr.free_symbols & index.keys(), key=index.get)]


def _nonzeros(M) -> dict:
    """{(i, j): entry} of the structurally nonzero entries of the SymPy matrix ``M``."""
    return dict(M.todok()) if M.shape[0] * M.shape[1] else {}


def sparse_saddle_point_blocks(system) -> dict:
    """:func:`saddle_point_blocks` (in plain symbols of the same names) as immutable
    ``sp.SparseMatrix`` blocks, differentiating only the nonzero entries: for an n x n metric with
    s nonzeros, each containing few coordinates, the cost is O(s) derivatives instead of the n^3
    of ``G.diff(q_l)`` for every l.

    c_i = sum_jl dG_ij/dq_l v_j v_l - 1/2 sum_jk dG_jk/dq_i v_j v_k and
    a_i = sum_l db_i/dq_l v_l - sum_jl dA_ij/dq_l v_l v_j, accumulated entry by entry."""
    # plain symbols of the same names: SymPy's assumption queries on the platoon's real symbols make
    # the derivatives of its springs ~1.5x slower
    plain = {s: sp.Symbol(s.name) for s in [*system.coordinates, *system.velocities]}
    q, v = [plain[s] for s in system.coordinates], [plain[s] for s in system.velocities]
    n, at = len(q), _index(q)
    values = {s: sp.sympify(x) for s, x in system.parameters.items()} | plain
    sub = lambda M: {ij: e.xreplace(values) for ij, e in _nonzeros(M).items()}  # noqa: E731
    G, A, b = sub(system.metric), sub(system.constraints), sub(system.affine)
    mu, F = sub(system.friction_coefficients), sub(system.force)
    k = sp.Matrix(system.constraints).shape[0]
    r_terms = [[] for _ in range(n)]
    for (i, _), f in F.items():
        r_terms[i].append(f)
    for term in sp.Add.make_args(sp.sympify(system.potential).xreplace(values)):
        for l, d in _partials(term, at):
            r_terms[l].append(-d)
    for (i, j), g in G.items():
        for l, d in _partials(g, at):
            r_terms[i].append(-d * v[j] * v[l])
            r_terms[l].append(d * v[i] * v[j] / 2)
    a_terms = [[] for _ in range(k)]
    for (i, _), bi in b.items():
        a_terms[i] += [d * v[l] for l, d in _partials(bi, at)]
    for (i, j), e in A.items():
        a_terms[i] += [-d * v[l] * v[j] for l, d in _partials(e, at)]
    column = lambda terms: sp.SparseMatrix(len(terms), 1, {(i, 0): sp.Add(*t) for i, t in enumerate(terms) if t})  # noqa: E731
    return dict(q=q, v=v, G=sp.SparseMatrix(n, n, G), A=sp.SparseMatrix(k, n, A), b=sp.SparseMatrix(k, 1, b),
                mu=sp.SparseMatrix(k, k, mu), r=column(r_terms), a=column(a_terms))


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


# ----------------------------------------------------------------------------- sparse peers (large systems)

def _flat_nonzeros(B: dict, names) -> tuple:
    """(expressions, {name: (rows, cols)}) of the nonzero entries of the blocks ``names``, in order."""
    exprs, where = [], {}
    for name in names:
        dok = B[name].todok()
        where[name] = (np.array([i for i, _ in dok], dtype=int), np.array([j for _, j in dok], dtype=int))
        exprs += list(dok.values())
    return exprs, where


def _saddle_rows(B: dict, kind: str):
    """Triplets (rows, cols, block, sign) of the matrix solved for v': [[G, -A^T], [A, 0]] or G."""
    n = len(B["q"])
    G = B["G"].todok()
    rows, cols = [i for i, _ in G], [j for _, j in G]
    if kind == "nonholonomic":
        A = B["A"].todok()
        rows += [j for _, j in A] + [n + i for i, _ in A]
        cols += [n + i for i, _ in A] + [j for _, j in A]
    return np.array(rows, dtype=int), np.array(cols, dtype=int)


def _dependencies(exprs, index: dict) -> list:
    return [{index[s] for s in e.free_symbols if s in index} for e in exprs]


def jacobian_sparsity(B: dict, kind: str):
    """The sparsity (CSR, 2n x 2n) of d[q', v']/d[q, v] for q' = v and v' from the saddle-point solve.

    The inverse of the matrix M solved for v' is taken as full within each connected component of
    M's graph and zero across components (exact for block-diagonal M with irreducible blocks), so
    v'_i depends on everything that any equation of its component depends on: the entries of M in
    those rows, and their right-hand side (r, a; for the friction model -(1/eps) A^T mu (A v - b))."""
    from scipy.sparse import coo_matrix, csr_matrix
    from scipy.sparse.csgraph import connected_components

    q, v = B["q"], B["v"]
    n, k = len(q), B["A"].shape[0]
    index = {s: i for i, s in enumerate([*q, *v])}
    m = n + k if kind == "nonholonomic" else n
    deps = [set() for _ in range(m)]
    rows, cols = _saddle_rows(B, kind)
    G, A = B["G"].todok(), B["A"].todok()
    entries = list(G.values()) + ([-e for e in A.values()] + list(A.values()) if kind == "nonholonomic" else [])
    for row, d in zip(rows, _dependencies(entries, index)):
        deps[row] |= d
    for (i, _), d in zip(B["r"].todok(), _dependencies(B["r"].todok().values(), index)):
        deps[i] |= d
    if kind == "nonholonomic":
        for (i, _), d in zip(B["a"].todok(), _dependencies(B["a"].todok().values(), index)):
            deps[n + i] |= d
    else:
        # row l of A v - b needs A_l*, v_j for A_lj != 0 and b_l; mu mixes rows; A^T spreads row l to columns j
        slip = [set() for _ in range(k)]
        for (l, j), d in zip(A, _dependencies(A.values(), index)):
            slip[l] |= d | {n + j}
        for (l, _), d in zip(B["b"].todok(), _dependencies(B["b"].todok().values(), index)):
            slip[l] |= d
        mixed = [set() for _ in range(k)]
        for (i, l), d in zip(B["mu"].todok(), _dependencies(B["mu"].todok().values(), index)):
            mixed[i] |= d | slip[l]
        for (l, j), d in zip(A, _dependencies(A.values(), index)):
            deps[j] |= d | mixed[l]
    pattern = coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, m))
    _, component = connected_components(pattern, directed=False)
    union = {}
    for row in range(m):
        union.setdefault(component[row], set()).update(deps[row])
    S_rows, S_cols = list(range(n)), list(range(n, 2 * n))
    for i in range(n):
        cols_i = sorted(union[component[i]])
        S_rows += [n + i] * len(cols_i)
        S_cols += cols_i
    return csr_matrix((np.ones(len(S_rows)), (S_rows, S_cols)), shape=(2 * n, 2 * n))


def scipy_sparse_saddle(system, kind: str, eps: float | None = None, dense_above: float = 0.2, blocks=None):
    """(rhs, jac_sparsity) for ``solve_ivp(method="BDF", jac_sparsity=...)`` built from
    :func:`sparse_saddle_point_blocks`: the nonzeros lambdified to NumPy, the matrix solved for v'
    ([[G, -A^T], [A, 0]] or G) assembled in CSC with a fixed pattern and factored by SuperLU
    (``scipy.sparse.linalg.spsolve``), or by LAPACK when more than ``dense_above`` of it is nonzero
    (the knife-edge chain's metric is dense). ``blocks``: those of the system, if already formed."""
    from scipy.sparse import csc_matrix
    from scipy.sparse.linalg import spsolve

    B = blocks or sparse_saddle_point_blocks(system)
    n, k = len(B["q"]), B["A"].shape[0]
    exprs, where = _flat_nonzeros(B, ("G", "A", "b", "mu", "r", "a"))
    values = sp.lambdify([*B["q"], *B["v"]], exprs, modules="numpy", cse=True)
    sizes = np.cumsum([0] + [len(where[name][0]) for name in ("G", "A", "b", "mu", "r", "a")])
    part = dict(zip(("G", "A", "b", "mu", "r", "a"), zip(sizes[:-1], sizes[1:])))
    rows, cols = _saddle_rows(B, kind)
    m = n + k if kind == "nonholonomic" else n
    # the CSC data array is a fixed permutation of the triplets: found once by assembling their positions
    M = csc_matrix((np.arange(1, len(rows) + 1, dtype=float), (rows, cols)), shape=(m, m))
    order = M.data.astype(int) - 1
    dense = len(rows) > dense_above * m * m
    A_rows, A_cols = where["A"]
    mu_rows, mu_cols = where["mu"]

    def rhs(t, y):
        val = np.asarray(values(*y), dtype=float)
        blocks = {name: val[lo:hi] for name, (lo, hi) in part.items()}
        r = np.zeros(n)
        r[where["r"][0]] = blocks["r"]
        if kind == "nonholonomic":
            data = np.concatenate([blocks["G"], -blocks["A"], blocks["A"]])
            a = np.zeros(k)
            a[where["a"][0]] = blocks["a"]
            f = np.concatenate([r, a])
        else:
            # -(1/eps) A^T mu (A v - b) from the triplets (bincount sums them; no sparse matrix per call)
            data, A_values = blocks["G"], blocks["A"]
            slip = np.bincount(A_rows, A_values * y[n:][A_cols], minlength=k)
            slip[where["b"][0]] -= blocks["b"]
            mixed = np.bincount(mu_rows, blocks["mu"] * slip[mu_cols], minlength=k)
            f = r - np.bincount(A_cols, A_values * mixed[A_rows], minlength=n) / eps
        M.data = data[order]
        vdot = np.linalg.solve(M.toarray(), f) if dense else spsolve(M, f)
        return np.concatenate([y[n:], vdot[:n]])

    return rhs, jacobian_sparsity(B, kind)


def casadi_sparse_saddle_ode(ca, system, kind: str, eps: float | None = None, symbolic: bool = False, blocks=None):
    """(x, xdot) for CasADi with the saddle-point matrix as a sparse SX matrix (only its nonzeros).

    ``symbolic=False``: x is MX and v' = ``casadi.solve(M, f, "csparse")``, a numerical sparse LU
    (CSparse) of M at every call. ``symbolic=True``: x is SX and v' = ``casadi.solve(M, f)``, CasADi's
    symbolic solve, which permutes M to block-triangular form and expands a QR of each diagonal
    block into the expression graph (linear in the number of blocks for the platoon, cubic for a
    dense metric). ``blocks``: those of the system, if already formed."""
    B = blocks or sparse_saddle_point_blocks(system)
    n, k = len(B["q"]), B["A"].shape[0]
    names = ("G", "A", "b", "mu", "r", "a")
    exprs, where = _flat_nonzeros(B, names)
    x = ca.SX.sym("x", 2 * n)
    f = sp.lambdify([*B["q"], *B["v"]], exprs, modules=[_casadi_functions(ca), "math"], cse=True)
    flat = [ca.SX(e) for e in f(*[x[i] for i in range(2 * n)])]
    sizes = np.cumsum([0] + [len(where[name][0]) for name in names])
    shapes = dict(G=(n, n), A=(k, n), b=(k, 1), mu=(k, k), r=(n, 1), a=(k, 1))
    S = {}
    for name, lo, hi in zip(names, sizes[:-1], sizes[1:]):
        rows, cols = where[name]
        S[name] = (ca.SX.triplet(rows.tolist(), cols.tolist(), ca.vertcat(*flat[lo:hi]), *shapes[name]) if hi > lo
                   else ca.SX(*shapes[name]))
    v = x[n:]
    if kind == "nonholonomic":
        M = ca.vertcat(ca.horzcat(S["G"], -S["A"].T), ca.horzcat(S["A"], ca.SX(k, k)))
        rhs = ca.vertcat(S["r"], S["a"])
    else:
        M = S["G"]
        rhs = S["r"] - ca.mtimes(S["A"].T, ca.mtimes(S["mu"], ca.mtimes(S["A"], v) - S["b"])) / eps
    if symbolic:
        return x, ca.vertcat(v, ca.solve(M, rhs)[:n])
    blocks = ca.Function("blocks", [x], [M, rhs])
    X = ca.MX.sym("x", 2 * n)
    Mx, rx = blocks(X)
    return X, ca.vertcat(X[n:], ca.solve(Mx, rx, "csparse")[:n])
