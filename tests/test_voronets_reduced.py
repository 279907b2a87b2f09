"""The reduced models of orders 0 and 1 in a Voronets frame (``velocities="frame"``) without
M = A G^-1 A^T and without a factorization of G (models/reduced.hpp, voronets_reduced_rate).

With the split q = (r, s), X_D = [I; B], B = -A_s^-1 A_r, X_C = [0; I] and the reduced metric
Ghat = X_D^T G X_D: u' = X_D z + X_C A_s^-1 a with Ghat z = X_D^T (r - G X_C A_s^-1 a)
(order 0), and at order 1 the slip s = eps G^-1 A^T M^-1 mu^-1 l (Gzenda-Chhabra Remark 12)
as the G-minimum-norm solution of A s = eps mu^-1 l, l from A_s^T l = (r - G u0')_s, and the
P-projected acceleration at v = u + s (Gzenda-Chhabra section 3.9). The coordinate form
computes the same quantities through M and the LDL^T of G: its q' and u'_r are the oracle, at
random points of random systems (q-dependent mu, velocity-dependent forces, potentials) and of
the library's systems with parameters; the Jacobian (dual numbers through the new path) is checked
against central differences; whole runs agree with the coordinate form at the integration
tolerance, also through a re-split of the frame.
"""

import numpy as np
import pytest

import nonholo as nh
from nonholo.testing import FD_TOL, IDENTITY_TOL, central_difference, random_system

EPS = 0.05  # large enough that the order-1 slip is far above round-off in the comparison


def _systems():
    return [
        ("random n=5 k=2", random_system(11, n=5, k=2, force=True)),
        ("random n=6 k=3", random_system(12, n=6, k=3)),
        ("random n=6 k=4", random_system(13, n=6, k=4, force=True)),
        ("random n=7 k=5", random_system(14, n=7, k=5)),
        ("sleigh", nh.systems.chaplygin_sleigh(m=1.3, I=0.7, a=0.3)),
        ("disk", nh.systems.vertical_rolling_disk(m=1.1, R=0.8, I=0.3, J=0.6)),
        ("chain N=3", nh.systems.knife_edge_chain(3, m=1.2, I=0.15, a=0.25, l=0.9, mu=1.7)),
    ]


SYSTEMS = _systems()


def _random_point(system, rng):
    q = rng.uniform(-0.6, 0.6, system.n)
    u = system.project(q, rng.normal(size=system.n))
    return q, u


def _pair(system, order):
    coords = system.reduced(EPS, order=order)
    frame = system.reduced(EPS, order=order, velocities="frame")
    return coords, frame


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("name,system", SYSTEMS, ids=[s[0] for s in SYSTEMS])
def test_frame_rhs_equals_the_coordinate_forms_velocity_and_free_acceleration(name, system, order):
    """q' equal, w' = u'_r of the coordinate form, to round-off, at random points and times."""
    coords, frame = _pair(system, order)
    n = system.n
    free = [i for i in range(n) if i not in frame.frame.core.solved]
    assert len(free) == n - system.k
    rng = np.random.default_rng(len(name) + 10 * order)
    for _ in range(4):
        q, u = _random_point(system, rng)
        t = rng.uniform(0, 2)
        yc = coords.core.rhs(t, np.r_[q, u], coords.param_vector())
        yf = frame.core.rhs(t, np.r_[q, u[free]], frame.param_vector())
        scale = np.abs(yc).max()
        assert np.abs(yf[:n] - yc[:n]).max() <= IDENTITY_TOL * scale
        assert np.abs(yf[n:] - yc[n:][free]).max() <= IDENTITY_TOL * scale
        if order == 1:  # the slip is there and far above round-off
            assert np.abs(yc[:n] - u).max() > 1e-4 * np.abs(u).max()


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("name,system", [SYSTEMS[0], SYSTEMS[2], SYSTEMS[6]], ids=["random k=2", "random k=4", "chain"])
def test_frame_jacobian_matches_central_differences(name, system, order):
    _, frame = _pair(system, order)
    rng = np.random.default_rng(3 + order)
    q, u = _random_point(system, rng)
    free = [i for i in range(system.n) if i not in frame.frame.core.solved]
    y, p = np.r_[q, u[free]], frame.param_vector()
    J = np.asarray(frame.core.jacobian(0.4, y, p))
    fd = central_difference(lambda x: frame.core.rhs(0.4, x, p), y)
    assert np.abs(J - fd).max() <= FD_TOL * max(1.0, np.abs(fd).max())


@pytest.mark.parametrize("order", [0, 1])
def test_chain_run_frame_equals_coordinates(order):
    """Knife-edge chain N = 8 at eps = 1e-4 (the issue's row), rtol 1e-10: (q, u) of both forms agree."""
    chain = nh.systems.knife_edge_chain(8)
    N = 8
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
    u0 = chain.project(q0, np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)])
    opts = dict(t_eval=np.linspace(0, 3, 16), rtol=1e-10, atol=1e-12, raise_on_failure=True)
    c = nh.simulate(chain.reduced(1e-4, order=order), (0, 3), np.r_[q0, u0], **opts)
    f = nh.simulate(chain.reduced(1e-4, order=order, velocities="frame"), (0, 3), np.r_[q0, u0], **opts)
    scale = 1 + np.abs(c.velocity).max()
    assert np.abs(f.q - c.q).max() < 1e-8 * scale
    assert np.abs(f.velocity - c.velocity).max() < 1e-8 * scale


def test_order0_sleigh_through_a_resplit_equals_coordinates():
    """The sleigh turning through phi = pi/2, where its default split is singular: the order-0
    frame form re-splits and still agrees with the coordinate form (order 1: test_frame_resplit)."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0 = np.array([0.0, 0.0, 1.2])
    u0 = sleigh.project(q0, np.array([1.0, 0.5, 1.0]))
    opts = dict(t_eval=np.linspace(0, 6, 31), rtol=1e-10, atol=1e-12, raise_on_failure=True)
    c = nh.simulate(sleigh.reduced(1e-3, order=0), (0, 6), np.r_[q0, u0], **opts)
    f = nh.simulate(sleigh.reduced(1e-3, order=0, velocities="frame"), (0, 6), np.r_[q0, u0], **opts)
    assert f.stats["n_frame_switches"] >= 1
    scale = 1 + np.abs(c.velocity).max()
    assert np.abs(f.q - c.q).max() < 1e-8 * scale
    assert np.abs(f.velocity - c.velocity).max() < 1e-8 * scale
