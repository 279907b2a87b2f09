"""A chain of N planar knife-edge links joined by hinges: an N-trailer or a snake robot."""

import numpy as np
import sympy as sp

from ..viz import drawing as dr
from ..system.checks import check_size
from ..system.system import System
from .arguments import integer, real


def knife_edge_chain(N: int = 4, m: float = 1.0, I: float = 0.1, a: float = 0.2, l: float = 1.0,  # noqa: E741
                     mu: float = 1.0) -> System:
    r"""N rigid links on knife edges, each hitched at the knife edge of the link ahead of it.

    Coordinates (x, y, theta_1, ..., theta_N): (x, y) is the contact point P_1 of the front link,
    theta_i the heading of link i. Link i+1 is hinged to link i at P_i and has its own knife edge
    at P_{i+1} = P_i - l e(theta_{i+1}), e(theta) = (cos theta, sin theta) (the standard N-trailer
    with on-axle hitching, as in Laumond's and Sørdalen's N-trailer studies). Every link has mass
    ``m``, moment of inertia ``I`` about its centre of mass, and its centre of mass a distance
    ``a`` ahead of its own knife edge: C_i = P_i + a e(theta_i). Because dC_i/dtheta_j =
    c_ij e'(theta_j) with constants c_ij, the metric is

        G = sum_i m (dC_i/dq)^T (dC_i/dq) + I sum_i dtheta_i^2,
        G[theta_j, theta_k] = m (sum_i c_ij c_ik) cos(theta_j - theta_k) + I delta_jk,

    and the constraints (no sideways slip of any knife edge) are e'(theta_i) . P_i' = 0,

        -sin(theta_i) x' + cos(theta_i) y' - l sum_{j=2..i} cos(theta_i - theta_j) theta_j' = 0,

    N rows, with friction coefficient ``mu`` on each for the friction model. N = 1 is the
    Chaplygin sleigh (with I its inertia). Parameters: m, I, a, l, mu. State order
    ``[x, y, theta_1..theta_N, x_dot, y_dot, theta_1_dot..theta_N_dot]``.
    """
    N = integer(N, "N", why="the number of links")
    m, l = real(m, "m", positive=True), real(l, "l", positive=True, why="the length of a link")
    I, mu = real(I, "I", non_negative=True), real(mu, "mu", non_negative=True)  # noqa: E741
    a = real(a, "a", why="the offset of a centre of mass ahead of its knife edge")
    check_size(N + 2, N, f"N = {N}")  # before anything is built
    x, y = sp.symbols("x y")
    th = sp.symbols(f"theta_1:{N + 1}")
    m_, I_, l_, mu_ = sp.symbols("m I l mu", positive=True)
    a_ = sp.Symbol("a", real=True)  # either sign
    # c[i][j]: the coefficient of e'(theta_j) in dC_i/dtheta_j (links and headings from 0), one of
    # four expressions: kind[i][j] indexes them (0: zero, 1: a, 2: a - l, 3: -l)
    values = [sp.S.Zero, a_, a_ - l_, -l_]
    i, j = np.indices((N, N))
    kind = np.where(i == j, np.where(j == 0, 1, 2), np.where((1 <= j) & (j < i), 3, 0))
    c = [[values[kind[i_, j_]] for j_ in range(N)] for i_ in range(N)]
    n = N + 2
    cos_diff = _differences_cos(th)
    G = sp.zeros(n, n)
    G[0, 0] = G[1, 1] = N * m_
    for j in range(N):
        s_j = sp.Add(*(c[i][j] for i in range(N)))
        G[0, 2 + j] = G[2 + j, 0] = -m_ * s_j * sp.sin(th[j])
        G[1, 2 + j] = G[2 + j, 1] = m_ * s_j * sp.cos(th[j])
        G[2 + j, 2 + j] = m_ * _sum_of_products(values, kind, j, j) + I_
        for k in range(j + 1, N):
            w = _sum_of_products(values, kind, j, k)
            if w != 0:  # products built unevaluated: each factor is already canonical (1 s at N = 128)
                G[2 + j, 2 + k] = G[2 + k, 2 + j] = sp.Mul(m_, w, cos_diff(j, k), evaluate=False)
    A = sp.zeros(N, n)
    for i in range(N):
        A[i, 0], A[i, 1] = -sp.sin(th[i]), sp.cos(th[i])
        if i:  # link i's own hinge term; the front link (i = 0) has none
            A[i, 2 + i] = -l_
        for j in range(1, i):
            A[i, 2 + j] = sp.Mul(-l_, cos_diff(i, j), evaluate=False)
    system = System(
        [x, y, *th], G, constraints=A, friction=mu_ * sp.eye(N),
        parameters={m_: m, I_: I, a_: a, l_: l, mu_: mu}, name=f"knife-edge chain (N = {N})",
    )
    system.drawing = dr.Drawing(knife_edge_shapes, trace=knife_edge_trace)
    return system


def _differences_cos(th: tuple):
    """cos(theta_j - theta_k) as cos(theta_lo - theta_hi) (cos is even), each pair built once (the
    metric and the constraint rows share them) and unevaluated: SymPy's canonical form of it (its
    minus-sign extraction) cost ~5 ms per entry, 28 of 41 s at N = 64, for the same function."""
    built = {}

    def cos_diff(j: int, k: int):
        lo, hi = min(j, k), max(j, k)
        if (lo, hi) not in built:
            difference = sp.Add(th[lo], sp.Mul(sp.S.NegativeOne, th[hi], evaluate=False), evaluate=False)
            built[lo, hi] = sp.cos(difference, evaluate=False)
        return built[lo, hi]
    return cos_diff


def _sum_of_products(values: list, kind: np.ndarray, j: int, k: int):
    """sum_i c[i][j] c[i][k] with c[i][j] = values[kind[i, j]]: the same SymPy expression as the
    sum of the N products, from the pairs of kinds counted first (SymPy's sum of N products for
    each of the N^2 / 2 pairs took most of the build: 20 s at N = 128)."""
    counts = np.bincount(kind[:, j] * len(values) + kind[:, k], minlength=len(values) ** 2)
    return sp.Add(*(int(count) * (values[code // len(values)] * values[code % len(values)])
                    for code, count in enumerate(counts) if count and code // len(values) and code % len(values)))


def knife_edges(q, l: float = 1.0) -> np.ndarray:  # noqa: E741
    """The knife-edge points P_1..P_N, shape (N, 2), of q = (x, y, theta_1..theta_N):
    P_1 = (x, y), P_{i+1} = P_i - l e(theta_{i+1})."""
    q = np.asarray(q, dtype=float)
    theta = q[2:]
    steps = -l * np.column_stack([np.cos(theta[1:]), np.sin(theta[1:])])
    return np.vstack([q[:2], q[:2] + np.cumsum(steps, axis=0)]) if theta.size > 1 else q[None, :2]


def _outline(start: float, end: float, width: float) -> np.ndarray:
    """A slender hexagon along the body x axis from ``start`` to ``end``."""
    h = width / 2
    return np.array([[start, 0], [start + h, h], [end - h, h], [end, 0], [end - h, -h], [start + h, -h]])


def knife_edge_shapes(q, t, params) -> list:
    """Each link as an outline from its knife edge to the hinge ahead (the front link around its
    knife edge and its centre of mass, a ahead, with the radius of gyration sqrt(I/m) as margin),
    the blades as thick segments and the centres of mass as dots."""
    a, gyration = params["a"], float(np.sqrt(params["I"] / params["m"]))
    length = params.get("l", 1.0)
    points, headings = knife_edges(q, length), np.asarray(q, dtype=float)[2:]
    shapes = []
    for i, ((x, y), heading) in enumerate(zip(points, headings)):
        start, end = (-gyration, a + gyration) if i == 0 else (0.0, length)
        e = np.array([np.cos(heading), np.sin(heading)])
        blade = 0.15 * max(end - start, 1e-9)
        shapes += [dr.planar_body(_outline(start, end, 0.25 * (end - start)), x, y, heading, color="tab:blue"),
                   dr.line([[x, y] - blade * e, [x, y] + blade * e], color="black", linewidth=3),
                   dr.dot([x, y] + a * e, color="tab:red", markersize=4)]
    return shapes


def knife_edge_trace(q, t, params) -> np.ndarray:
    """The paths of the first and the last knife edge."""
    points = knife_edges(q, params.get("l", 1.0))
    return points[[0, -1]]
