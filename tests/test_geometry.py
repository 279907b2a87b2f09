"""Identities of the geometric objects at random points of random systems
(notes/003_gzenda_chhabra.md section 5.1), and AD derivatives against finite differences."""

import numpy as np
import pytest

from conftest import FD_TOL, IDENTITY_TOL, central_difference, random_system

SEEDS = [1, 2, 3]


@pytest.fixture(scope="module", params=SEEDS)
def system(request):
    return random_system(request.param, n=4, k=2, affine=True, force=True)


def _points(system, count=4, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield rng.uniform(-1, 1, system.n), rng.uniform(-1, 1, system.n), rng.uniform(0, 2)


def test_projectors(system):
    for q, _, t in _points(system):
        P, Pp = system.projectors(q)
        G = system.metric_at(q)
        A, _ = system.constraint_matrix(q, t)
        I = np.eye(system.n)
        assert np.allclose(P @ P, P, atol=IDENTITY_TOL)
        assert np.allclose(Pp @ Pp, Pp, atol=IDENTITY_TOL)
        assert np.allclose(P + Pp, I, atol=IDENTITY_TOL)
        assert np.allclose(A @ P, 0, atol=IDENTITY_TOL)
        assert np.allclose(G @ Pp, (G @ Pp).T, atol=IDENTITY_TOL)
        assert np.allclose(G @ P, (G @ P).T, atol=IDENTITY_TOL)
        assert np.allclose(Pp @ np.linalg.solve(G, A.T), np.linalg.solve(G, A.T), atol=IDENTITY_TOL)


def test_friction_operator_and_qmat(system):
    for q, _, _ in _points(system):
        _, Pp = system.projectors(q)
        P = np.eye(system.n) - Pp
        FR = system.friction_operator(q)
        Q = system.qmat(q)
        G = system.metric_at(q)
        assert np.allclose(Q @ FR, Pp, atol=IDENTITY_TOL)
        assert np.allclose(FR @ Q, Pp, atol=IDENTITY_TOL)
        assert np.allclose(Q @ P, 0, atol=IDENTITY_TOL)
        assert np.allclose(P @ Q, 0, atol=IDENTITY_TOL)
        assert np.allclose(FR @ P, 0, atol=IDENTITY_TOL)
        assert np.allclose(G @ Q, (G @ Q).T, atol=IDENTITY_TOL)
        assert np.allclose(G @ FR, (G @ FR).T, atol=IDENTITY_TOL)
        assert np.linalg.matrix_rank(FR, tol=1e-9) == system.k


def test_christoffel_against_finite_differences_of_metric(system):
    for q, _, _ in _points(system):
        dG = central_difference(system.metric_at, q)  # dG[i, j, l] = d G_ij / d q^l
        Ginv = np.linalg.inv(system.metric_at(q))
        # Gamma^i_jk = 1/2 G^il (d_k G_jl + d_j G_kl - d_l G_jk)
        lowered = 0.5 * (np.einsum("jlk->jkl", dG) + np.einsum("klj->jkl", dG) - np.einsum("jkl->jkl", dG))
        expected = np.einsum("il,jkl->ijk", Ginv, lowered)
        gamma = system.christoffel(q)
        assert np.allclose(gamma, expected, atol=FD_TOL)
        assert np.allclose(gamma, np.swapaxes(gamma, 1, 2), atol=IDENTITY_TOL)


@pytest.mark.parametrize("kind", ["nonholonomic", "vakonomic", "friction"])
def test_model_jacobian_against_finite_differences(system, kind):
    model = {"nonholonomic": system.nonholonomic, "vakonomic": system.vakonomic,
             "friction": lambda: system.friction(0.3)}[kind]()
    rng = np.random.default_rng(5)
    for q, v, t in _points(system, count=3):
        y = np.concatenate([q, v, rng.uniform(-1, 1, model.n_states - 2 * system.n)])
        J = model.jacobian(t, y)
        expected = central_difference(lambda z: model.rhs(t, z), y)
        scale = max(1.0, np.abs(expected).max())
        assert np.allclose(J, expected, atol=FD_TOL * scale)


def test_nonholonomic_acceleration_keeps_constraint_derivative_zero(system):
    """d/dt (A v - b) = 0 along the Lagrange-d'Alembert vector field (D is invariant)."""
    model = system.nonholonomic()
    for q, v, t in _points(system):
        v = system.project(q, v, t)
        y = np.concatenate([q, v])
        f = model.rhs(t, y)

        def residual(z):
            A, b = system.constraint_matrix(z[: system.n], z[-1])
            return A @ z[system.n : 2 * system.n] - b

        z = np.concatenate([y, [t]])
        dr = central_difference(residual, z) @ np.concatenate([f, [1.0]])
        assert np.allclose(dr, 0, atol=FD_TOL * 10)


def test_multipliers_solve_the_saddle_point_system(system):
    """G v' + c + dV - F = A^T lambda with the nonholonomic acceleration v'."""
    model = system.nonholonomic()
    for q, v, t in _points(system):
        v = system.project(q, v, t)
        vdot = model.rhs(t, np.concatenate([q, v]))[system.n :]
        lam = system.multipliers(q, v, t)
        A, _ = system.constraint_matrix(q, t)
        # Euler-Lagrange operator G v' + c(q, v) + dV - F from finite differences of the energy
        G = system.metric_at(q)
        dG = central_difference(system.metric_at, q)
        c = np.einsum("ijl,j,l->i", dG, v, v) - 0.5 * np.einsum("jki,j,k->i", dG, v, v)
        dV = central_difference(lambda z: np.array([system.energy(z, np.zeros(system.n))]), q)[0]
        F = system.core.at(t, q, v, system.param_vector()).force()
        assert np.allclose(G @ vdot + c + dV - F, A.T @ lam, atol=FD_TOL * 10)


def test_project_lands_on_constraint_set_and_is_g_orthogonal(system):
    for q, v, t in _points(system):
        w = system.project(q, v, t)
        A, b = system.constraint_matrix(q, t)
        G = system.metric_at(q)
        assert np.allclose(A @ w, b, atol=IDENTITY_TOL)
        # v - w lies in D_perp = G^-1 A^T (range): orthogonal to D in the metric G
        P, _ = system.projectors(q)
        assert np.allclose(P.T @ G @ (v - w), 0, atol=IDENTITY_TOL)
