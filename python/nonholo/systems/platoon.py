"""A platoon: K wheeled robots in a line, each with a no-slip axle, coupled by springs."""

import numpy as np
import sympy as sp

from ..system.checks import check_size
from ..system.system import System
from .arguments import integer, real


class Platoon(System):
    """The :class:`~nonholo.System` of :func:`platoon`, with :meth:`initial_state`."""

    @property
    def K(self) -> int:
        """The number of robots (3 coordinates each)."""
        return self.n // 3

    def initial_state(self, speed: float = 1.0, perturbation: float = 0.01, seed: int = 0) -> np.ndarray:
        r"""A consistent moving state ``[q, v]``: the robots in a line along x, robot i's axle at
        (-i L, 0), heading 0, driving forward at ``speed``, each pose, speed and turning rate
        perturbed by ``perturbation`` times a standard normal draw (``seed``). The velocities lie
        on the constraint set by construction: x_i' = s_i cos theta_i, y_i' = s_i sin theta_i."""
        L = float(self.parameters[sp.Symbol("L", positive=True)])
        rng = np.random.default_rng(seed)
        K = self.K
        x = -L * np.arange(K) + perturbation * rng.standard_normal(K)
        y = perturbation * rng.standard_normal(K)
        theta = perturbation * rng.standard_normal(K)
        s = speed * (1 + perturbation * rng.standard_normal(K))
        omega = perturbation * rng.standard_normal(K)
        q = np.column_stack([x, y, theta]).reshape(-1)
        v = np.column_stack([s * np.cos(theta), s * np.sin(theta), omega]).reshape(-1)
        return np.r_[q, v]


def platoon(K: int = 10, m: float = 4.0, I: float = 0.1, d: float = 0.1, k: float = 20.0,  # noqa: E741
            L: float = 1.0, mu: float = 1.0) -> Platoon:
    r"""K differential-drive robots in a line, neighbours joined by springs.

    Robot i has coordinates (x_i, y_i, theta_i): its axle midpoint P_i = (x_i, y_i) and its heading;
    its centre of mass lies a distance d ahead of the axle, at P_i + d e(theta_i), e = (cos, sin),
    with mass m and moment of inertia I about it (the wheels' own inertia left out, as in
    :func:`differential_drive` with I_w = 0). Kinetic energy and spring potential

        T = sum_i m/2 |d/dt (P_i + d e(theta_i))|^2 + I/2 theta_i'^2,
        V = sum_{i<K-1} k/2 (|P_{i+1} - P_i| - L)^2,

    so G is block diagonal (3 x 3 blocks) and the forces couple neighbours only (a banded
    Jacobian). Each axle does not slip sideways (K constraints, one per robot):

        -sin(theta_i) x_i' + cos(theta_i) y_i' = 0,

    with friction coefficient ``mu`` on each for the friction model. Parameters m, I, d, k, L, mu;
    state ``[x_1, y_1, theta_1, ..., x_K, y_K, theta_K, then their rates]``. Conservative.
    ``system.initial_state()`` gives the robots driving forward in a line, slightly perturbed.

    m, I, k, L, mu must be positive and d non-negative, all finite real numbers (a negative
    spring or rest length, or a zero friction coefficient, is refused with a ValueError naming it).
    """
    K = integer(K, "K", why="the number of robots")
    m = real(m, "m", positive=True, why="each robot's mass")
    I = real(I, "I", positive=True, why="each robot's moment of inertia about its centre of mass")  # noqa: E741
    d = real(d, "d", non_negative=True, why="the distance of the centre of mass ahead of the axle")
    k = real(k, "k", positive=True, why="the springs' stiffness")
    L = real(L, "L", positive=True, why="the springs' rest length")
    mu = real(mu, "mu", positive=True, why="the friction coefficient of the no-slip rows: friction(eps) needs mu > 0")
    K = int(K)
    check_size(3 * K, K, f"K = {K}")  # before a symbol is made: platoon(10**6) fails at once
    m_, I_, d_, k_, L_, mu_ = sp.symbols("m I d k L mu", positive=True)
    q, v = [], []
    for i in range(1, K + 1):
        # real: SymPy then settles the sign questions of |P_{i+1} - P_i| at once (else seconds per spring)
        q += sp.symbols(f"x_{i} y_{i} theta_{i}", real=True)
        v += sp.symbols(f"x_{i}_dot y_{i}_dot theta_{i}_dot", real=True)
    n = 3 * K
    G, A = {}, {}  # the nonzeros only: the system keeps them as SymPy sparse matrices, O(nonzeros)
    inertia = m_ * d_**2 + I_
    for i in range(K):
        x, y, theta = 3 * i, 3 * i + 1, 3 * i + 2
        # unevaluated: sin and cos of a symbol evaluate to themselves, after SymPy's checks (0.3 s at K = 300)
        s, c = sp.sin(q[theta], evaluate=False), sp.cos(q[theta], evaluate=False)
        # the metric block of (x, y, theta): C = P + d e(theta), dC/dtheta = d (-s, c)
        G[x, x] = G[y, y] = m_
        G[x, theta] = G[theta, x] = -m_ * d_ * s
        G[y, theta] = G[theta, y] = m_ * d_ * c
        G[theta, theta] = inertia
        A[i, x], A[i, y] = -s, c
    # one Add of all springs, not a running sum (quadratic in K)
    V = sp.Add(*(_spring(k_, L_, q[3 * i:3 * i + 2], q[3 * i + 3:3 * i + 5]) for i in range(K - 1)))
    friction = sp.ImmutableSparseMatrix(K, K, {(i, i): mu_ for i in range(K)})
    return Platoon(q, sp.ImmutableSparseMatrix(n, n, G), potential=V, constraints=sp.ImmutableSparseMatrix(K, n, A),
                   friction=friction, velocities=v,
                   parameters={m_: m, I_: I, d_: d, k_: k, L_: L, mu_: mu}, name=f"platoon (K = {K})")


def _spring(k, L, P, P_next):
    r"""k/2 (|P_next - P| - L)^2, built as SymPy's evaluated form of that expression.

    The outer sqrt, square and product are created unevaluated: evaluating them changes nothing
    (each is already in canonical form) but asks SymPy's assumptions about the square root,
    tens of milliseconds per spring, most of the platoon's set-up at K = 100. tests/test_platoon.py
    checks that the result equals the evaluated ``k/2 * (sqrt(dx**2 + dy**2) - L)**2``."""
    dx, dy = P_next[0] - P[0], P_next[1] - P[1]
    distance = sp.Pow(dx**2 + dy**2, sp.S.Half, evaluate=False)
    return sp.Mul(sp.S.Half, k, sp.Pow(distance - L, 2, evaluate=False), evaluate=False)
