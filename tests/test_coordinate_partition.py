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
