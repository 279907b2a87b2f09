"""Triangular constraints solved by elimination (cpp/include/nonholo/coordinate_partition.hpp).

The knife-edge chain's constraint rows each add one heading rate to those before them, so its
nonholonomic model solves for the accelerations by generalized coordinate partitioning (two free
velocities, a 2 x 2 system) instead of factoring G and A G^-1 A^T (the C++ test
cpp/tests/test_coordinate_partition.cpp checks the partition and the solve on random data). Here,
through the public API, its right-hand side and multipliers equal an independent dense solve of
the saddle-point system in NumPy, assembled from the system's metric, its constraint matrix
(and the rate of change of that matrix by central differences) and the unconstrained
acceleration G^-1 r, read off the friction model at a friction so weak it vanishes.
"""

import numpy as np
import pytest

import nonholo as nh


@pytest.mark.parametrize("N", [12, 40])
def test_chain_accelerations_equal_a_dense_saddle_point_solve(N):
    system = nh.systems.knife_edge_chain(N)
    n = N + 2
    rng = np.random.default_rng(N)
    q = rng.normal(size=n)
    v = system.project(q, rng.normal(size=n))
    y = np.concatenate([q, v])
    vdot = system.nonholonomic().rhs(0.0, y)[n:]

    G = system.metric_at(q)
    A, b = system.constraint_matrix(q)
    assert np.allclose(b, 0.0)
    r = G @ system.friction(1e30).rhs(0.0, y)[n:]  # G v' = r without constraint forces
    h = 1e-5
    A_dot = (system.constraint_matrix(q + h * v)[0] - system.constraint_matrix(q - h * v)[0]) / (2 * h)
    a = -A_dot @ v  # d/dt (A v) = 0
    K = np.block([[G, -A.T], [A, np.zeros((N, N))]])
    ref = np.linalg.solve(K, np.concatenate([r, a]))
    scale = np.max(np.abs(ref[:n]))
    # central differences of A: error ~ h^2 |A'''| |v|^2
    assert np.max(np.abs(vdot - ref[:n])) < 1e-7 * scale
    lam = system.multipliers(q, v)
    assert np.max(np.abs(lam - ref[n:])) < 1e-7 * np.max(np.abs(ref[n:]))


def _blade_chain(N: int) -> nh.System:
    """N links of length 1 joined end to end by torsion springs (2) and dampers (0.05), each with a blade a
    quarter of its length behind its front joint, the head pushed along its heading by 1 (an outside
    probe's system): each trailing link amplifies the dependent heading rates about 4-fold."""
    import sympy as sp

    x, y = sp.symbols("x y")
    th = list(sp.symbols(f"th1:{N + 1}"))
    q = [x, y, *th]
    v = list(sp.symbols(f"x_dot y_dot {' '.join(f'th{i}_dot' for i in range(1, N + 1))}"))

    def rate(e):
        return sum(sp.diff(e, qi) * vi for qi, vi in zip(q, v))

    joint, T, rows = sp.Matrix([x, y]), 0, []
    for i in range(N):
        e = sp.Matrix([sp.cos(th[i]), sp.sin(th[i])])
        com, blade = joint - e / 2, joint - e / 4
        T += ((rate(com[0]) ** 2 + rate(com[1]) ** 2) + 0.1 * v[2 + i] ** 2) / 2
        rows.append(-sp.sin(th[i]) * rate(blade[0]) + sp.cos(th[i]) * rate(blade[1]))
        joint = joint - e
    V = sum((th[i + 1] - th[i]) ** 2 for i in range(N - 1))
    A = sp.Matrix([[sp.expand(sp.diff(row, vj)) for vj in v] for row in rows])
    F = sp.zeros(N + 2, 1)
    F[0], F[1] = sp.cos(th[0]), sp.sin(th[0])
    for i in range(N - 1):
        F[2 + i] += 0.05 * (v[3 + i] - v[2 + i])
        F[3 + i] -= 0.05 * (v[3 + i] - v[2 + i])
    return nh.System.from_lagrangian(T - V, q, v, constraints=A, force=F)


def test_an_elimination_that_amplifies_rounding_gives_way_to_the_saddle_point_solve():
    """Forward substitution is not backward stable: on a chain of 20 blades a quarter-length behind each
    joint the null-space basis Z reached 4e9 and cond(Z^T G Z) 1e13-6e16 (the saddle-point matrix: 5e3),
    and the default (dense) model's accelerations were 6e-3 off (relative) for t in [1.23, 1.47] of a run
    from this start, which then stalled at t = 1.22-1.38 with every method (an outside probe's; its CasADi
    and the sparse model ran to t = 2). States whose elimination leaves residuals above 1e-12 of their
    scale are now solved as the saddle point: the default model's right-hand side equals the sparse
    model's along the run, and the default run ends where the sparse one does."""
    N = 20
    system = _blade_chain(N)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(0.7 * np.arange(N))]
    y0 = np.r_[q0, system.project(q0, np.r_[1.0, 0.0, 0.4 * np.cos(0.9 * np.arange(N))])]
    sparse = system.nonholonomic(sparse=True)
    run = nh.simulate(sparse, (0, 2), y0, t_eval=np.linspace(1.1, 1.5, 41), rtol=1e-12, atol=1e-14)
    dense = system.nonholonomic()
    for y in run.y.T:
        reference = sparse.rhs(0.0, y)
        assert np.max(np.abs(dense.rhs(0.0, y) - reference)) < 1e-10 * np.max(np.abs(reference))
    default = nh.simulate(dense, (0, 2), y0, t_eval=[2])
    exact = nh.simulate(sparse, (0, 2), y0, t_eval=[2], rtol=1e-12, atol=1e-14)
    assert default.status == 0 and np.max(np.abs(default.y[:, -1] - exact.y[:, -1])) < 1e-7
