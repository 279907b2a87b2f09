"""The knife-edge chain (N-trailer): N = 1 is the Chaplygin sleigh; energy and constraints hold
along nonholonomic runs; the metric is the one of the links' kinetic energies."""

import numpy as np
import pytest

import nonholo as nh
from conftest import IDENTITY_TOL, TIGHT_ATOL, TIGHT_RTOL


def test_one_link_is_the_sleigh(sleigh):
    chain = nh.systems.knife_edge_chain(1, m=1.0, I=1.0, a=0.2)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-2, 2, 3)
        v = chain.project(q, rng.normal(size=3))
        y = np.concatenate([q, v])
        assert np.allclose(chain.nonholonomic().rhs(0, y), sleigh.nonholonomic().rhs(0, y), atol=IDENTITY_TOL)
        assert np.allclose(chain.friction(1e-2).rhs(0, y + 0.1), sleigh.friction(1e-2).rhs(0, y + 0.1),
                           atol=IDENTITY_TOL)


def link_kinetic_energy(q, v, N, m, I, a, l):  # noqa: E741
    """1/2 sum m |C_i'|^2 + I theta_i'^2 from the positions of the centres of mass, differentiated
    by central differences along v (independent of the metric's closed form)."""
    def centres(qq):
        P = qq[:2].copy()
        out = []
        for i in range(N):
            if i > 0:
                P = P - l * np.array([np.cos(qq[2 + i]), np.sin(qq[2 + i])])
            out.append(P + a * np.array([np.cos(qq[2 + i]), np.sin(qq[2 + i])]))
        return np.array(out)
    h = 1e-6
    dC = (centres(q + h * v) - centres(q - h * v)) / (2 * h)
    return 0.5 * m * np.sum(dC**2) + 0.5 * I * np.sum(v[2:] ** 2)


@pytest.mark.parametrize("N", [2, 5])
def test_metric_is_the_links_kinetic_energy(N):
    pars = dict(m=1.3, I=0.2, a=0.3, l=0.9)
    chain = nh.systems.knife_edge_chain(N, **pars)
    rng = np.random.default_rng(N)
    for _ in range(3):
        q, v = rng.uniform(-2, 2, N + 2), rng.normal(size=N + 2)
        assert chain.energy(q, v) == pytest.approx(link_kinetic_energy(q, v, N, **pars), rel=1e-8)


@pytest.mark.parametrize("N", [1, 3, 6])
def test_constraint_rows_are_the_blades_sideways_velocities(N):
    """A(q) v = e'(theta_i) . dP_i/dt for every knife edge P_i (knife_edges, differentiated along v)."""
    from nonholo.systems.knife_edge_chain import knife_edges
    l = 0.9  # noqa: E741
    chain = nh.systems.knife_edge_chain(N, l=l)
    rng = np.random.default_rng(N)
    for _ in range(3):
        q, v, h = rng.uniform(-2, 2, N + 2), rng.normal(size=N + 2), 1e-6
        dP = (knife_edges(q + h * v, l) - knife_edges(q - h * v, l)) / (2 * h)
        sideways = -np.sin(q[2:]) * dP[:, 0] + np.cos(q[2:]) * dP[:, 1]
        rows = np.array(chain.constraints.subs(dict(zip(chain.coordinates, q))).subs(chain.parameters), dtype=float)
        assert rows @ v == pytest.approx(sideways, abs=1e-8)


def test_nonholonomic_run_keeps_energy_and_constraints():
    N = 4
    chain = nh.systems.knife_edge_chain(N)
    q0 = np.array([0, 0, 0.3, -0.2, 0.1, 0.4])
    rng = np.random.default_rng(0)
    v0 = chain.project(q0, rng.normal(size=N + 2))
    sol = nh.simulate(chain.nonholonomic(), (0, 5), np.concatenate([q0, v0]), rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert sol.success
    e = sol.energy()
    assert np.max(np.abs(e - e[0])) < 1e-8 * e[0]
    assert np.max(sol.constraint_residual()) < 1e-9


def test_bad_number_of_links():
    with pytest.raises(ValueError, match="N must be a positive integer"):
        nh.systems.knife_edge_chain(0)
