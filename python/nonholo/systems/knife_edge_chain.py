"""A chain of N planar knife-edge links joined by hinges: an N-trailer or a snake robot."""

import numpy as np
import sympy as sp

from ..viz import drawing as dr
from ..system.system import System


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
    if not isinstance(N, int) or isinstance(N, bool) or N < 1:
        raise ValueError(f"N must be a positive integer (the number of links), got {N!r}")
    x, y = sp.symbols("x y")
    th = sp.symbols(f"theta_1:{N + 1}")
    m_, I_, a_, l_, mu_ = sp.symbols("m I a l mu", positive=True)
    # c[i][j]: the coefficient of e'(theta_j) in dC_i/dtheta_j (links and headings from 0).
    c = [[(a_ if j == i else 0) - (l_ if 1 <= j <= i else 0) for j in range(N)] for i in range(N)]
    n = N + 2
    # cos(theta_j - theta_k) unevaluated: SymPy's canonical form of it (its minus-sign extraction)
    # cost ~5 ms per entry, 28 of 41 s at N = 64, for the same function (cos is even)
    cos_diff = lambda j, k: sp.cos(th[j] - th[k], evaluate=False)  # noqa: E731
    G = sp.zeros(n, n)
    G[0, 0] = G[1, 1] = N * m_
    for j in range(N):
        s_j = sp.Add(*(c[i][j] for i in range(N)))
        G[0, 2 + j] = G[2 + j, 0] = -m_ * s_j * sp.sin(th[j])
        G[1, 2 + j] = G[2 + j, 1] = m_ * s_j * sp.cos(th[j])
        for k in range(j, N):
            w = sp.Add(*(c[i][j] * c[i][k] for i in range(N)))
            G[2 + j, 2 + k] = G[2 + k, 2 + j] = m_ * w * (cos_diff(j, k) if j != k else 1) + (I_ if j == k else 0)
    A = sp.zeros(N, n)
    for i in range(N):
        A[i, 0], A[i, 1] = -sp.sin(th[i]), sp.cos(th[i])
        for j in range(1, i + 1):
            A[i, 2 + j] = -l_ * (cos_diff(i, j) if i != j else 1)
    system = System(
        [x, y, *th], G, constraints=A, friction=mu_ * sp.eye(N),
        parameters={m_: m, I_: I, a_: a, l_: l, mu_: mu}, name=f"knife-edge chain (N = {N})",
    )
    system.drawing = dr.Drawing(knife_edge_shapes, trace=knife_edge_trace)
    return system


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
