"""The sparse models (system.nonholonomic(sparse=True), system.friction(eps, sparse=True)) against
the dense ones: the same right-hand side, Jacobian, sensitivities, projection and trajectories to
rounding, on random sparse systems and on the platoon; and the automatic choice at both sides of
its threshold."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def random_sparse_system(blocks: int, seed: int, couple: bool = True, affine: bool = True) -> nh.System:
    """Blocks of three coordinates (x, y, theta) with a metric like a wheeled robot's, random
    parameters, the headings of neighbours coupled in G (``couple``: G is not block diagonal),
    one no-slip-like constraint per block with a random heading term and an affine part
    depending on q, springs between neighbours, and mu coupling the first two rows."""
    rng = np.random.default_rng(seed)
    q, v = [], []
    for i in range(blocks):
        q += sp.symbols(f"x{i} y{i} th{i}", real=True)
        v += sp.symbols(f"xd{i} yd{i} thd{i}", real=True)
    n = 3 * blocks
    G, A, b = sp.zeros(n, n), sp.zeros(blocks, n), sp.zeros(blocks, 1)
    V = 0
    for i in range(blocks):
        m, d, inertia = rng.uniform(1, 3), rng.uniform(0.05, 0.3), rng.uniform(0.2, 0.5)
        th = q[3 * i + 2]
        s, c = sp.sin(th), sp.cos(th)
        G[3 * i:3 * i + 3, 3 * i:3 * i + 3] = sp.Matrix([[m, 0, -m * d * s], [0, m, m * d * c],
                                                         [-m * d * s, m * d * c, inertia + m * d**2]])
        A[i, 3 * i], A[i, 3 * i + 1], A[i, 3 * i + 2] = -s, c, rng.uniform(-0.2, 0.2)
        if affine:
            b[i] = 0.1 * sp.sin(q[3 * i])
        if i + 1 < blocks:
            k, L = rng.uniform(5, 20), rng.uniform(0.8, 1.2)
            V += k / 2 * ((q[3 * i + 3] - q[3 * i] - L)**2 + (q[3 * i + 4] - q[3 * i + 1])**2)
            if couple:  # a small coupling of neighbouring headings (G stays positive definite)
                w = 0.05 * sp.cos(q[3 * i + 2] - q[3 * i + 5])
                G[3 * i + 2, 3 * i + 5] += w
                G[3 * i + 5, 3 * i + 2] += w
    mu = sp.eye(blocks)
    if blocks > 1:
        mu[0, 1] = mu[1, 0] = sp.Rational(3, 10)
    return nh.System(q, G, potential=V, constraints=A, affine=b, friction=mu, velocities=v,
                     name=f"random sparse system {seed}")


def state(system, seed: int, consistent: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed + 100)
    q = rng.uniform(-0.5, 0.5, system.n)
    v = rng.uniform(-1.0, 1.0, system.n)
    if consistent:
        v = system.project(q, v)
    return np.r_[q, v]


@pytest.fixture(scope="module")
def systems():
    return [random_sparse_system(4, 1), random_sparse_system(5, 2, couple=False), nh.systems.platoon(4)]


@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_rhs_and_jacobian_agree_with_the_dense_models(systems, kind):
    for system in systems:
        make = (lambda s: system.nonholonomic(sparse=s)) if kind == "nonholonomic" else \
            (lambda s: system.friction(1e-3, sparse=s))
        dense, sparse = make(False), make(True)
        assert sparse.sparse and not dense.sparse
        for seed in range(3):
            y = state(system, seed, consistent=kind == "nonholonomic")
            f_dense, f_sparse = dense.rhs(0.3, y), sparse.rhs(0.3, y)
            scale = 1 + np.abs(f_dense).max()
            assert np.abs(f_sparse - f_dense).max() <= 1e-12 * scale
            J_dense, J_sparse = dense.jacobian(0.3, y), sparse.jacobian(0.3, y)
            assert np.abs(J_sparse - J_dense).max() <= 1e-10 * (1 + np.abs(J_dense).max())


def test_the_jacobian_pattern_holds_every_nonzero():
    """The structural pattern (coupled groups and the tape's dependencies) must contain every
    entry the dense Jacobian has; the colouring makes few directional derivatives."""
    system = random_sparse_system(6, 3, couple=False)
    model = system.friction(1e-3, sparse=True)
    core = model.core
    J = system.friction(1e-3, sparse=False).jacobian(0.0, state(system, 0, consistent=False))
    assert np.count_nonzero(J) <= core.jacobian_nonzeros
    # blocks of 3 coordinates, each reading its neighbours' positions through the springs
    assert core.jacobian_colors <= 18 < 2 * system.n


def test_trajectories_agree(systems):
    system = systems[0]
    y0 = state(system, 7)
    for make, method in [(lambda s: system.nonholonomic(sparse=s), "auto"),
                         (lambda s: system.nonholonomic(sparse=s), "bdf"),
                         (lambda s: system.friction(1e-4, sparse=s), "auto")]:
        runs = [nh.simulate(make(s), (0, 1), y0, method=method, rtol=1e-10, atol=1e-12, t_eval=[1.0])
                for s in (False, True)]
        assert runs[0].method == runs[1].method
        assert np.abs(runs[1].y[:, -1] - runs[0].y[:, -1]).max() <= 1e-7


def test_friction_runs_bdf_with_a_sparse_newton_matrix():
    """K = 30 robots: BDF on the sparse friction model takes the steps the dense one takes (the
    same Newton matrix up to rounding) and ends at the same state."""
    system = nh.systems.platoon(8)
    y0 = system.initial_state()
    runs = [nh.simulate(system.friction(1e-3, sparse=s), (0, 1), y0, rtol=1e-8, atol=1e-10, t_eval=[1.0])
            for s in (False, True)]
    assert runs[0].method == runs[1].method == "bdf"
    assert abs(runs[0].stats["n_steps"] - runs[1].stats["n_steps"]) <= 0.1 * runs[0].stats["n_steps"]
    assert np.abs(runs[1].y[:, -1] - runs[0].y[:, -1]).max() <= 1e-6


def test_sensitivities_agree(systems):
    system = systems[2]
    y0 = system.initial_state()
    runs = [nh.simulate(system.nonholonomic(sparse=s), (0, 0.5), y0, sensitivities=["k"], rtol=1e-10,
                        atol=1e-12, t_eval=[0.5]) for s in (False, True)]
    S0, S1 = runs[0].sensitivities[:, 0, -1], runs[1].sensitivities[:, 0, -1]
    assert np.abs(S1 - S0).max() <= 1e-6 * (1 + np.abs(S0).max())


def test_projection_agrees(systems):
    system = systems[0]
    dense, sparse = system.nonholonomic(sparse=False), system.nonholonomic(sparse=True)
    y = state(system, 3, consistent=False)
    corr_dense = dense.core.project(0.0, y, dense.param_vector())
    corr_sparse = sparse.core.project(0.0, y, sparse.param_vector())
    assert np.abs(np.asarray(corr_sparse) - np.asarray(corr_dense)).max() <= 1e-12


def test_auto_chooses_sparse_only_for_large_sparse_systems():
    below, above = nh.systems.platoon(6), nh.systems.platoon(7)  # n = 18 and 21 (density 0.11)
    assert not below.prefers_sparse() and not below.nonholonomic().sparse
    assert above.prefers_sparse() and above.nonholonomic().sparse and above.friction(1e-3).sparse
    # large but dense: G with every entry nonzero
    n = 30
    q = sp.symbols(f"q0:{n}", real=True)
    G = sp.eye(n) + sp.Rational(1, 100) * sp.ones(n, n)
    A = sp.zeros(1, n)
    A[0, 0] = 1
    dense = nh.System(q, G, constraints=A, name="dense")
    assert not dense.prefers_sparse() and not dense.nonholonomic().sparse
    assert above.nonholonomic(sparse=False).sparse is False


def test_bad_sparse_argument():
    system = nh.systems.platoon(2)
    with pytest.raises(ValueError, match="sparse must be True, False or 'auto'"):
        system.nonholonomic(sparse="yes")
    with pytest.raises(TypeError, match="sparse must be"):
        system.friction(1e-3, sparse=1)


def test_singular_data_are_reported():
    """A constraint row that vanishes: the sparse factorization reports it, naming the point."""
    x, y = sp.symbols("x y", real=True)
    system = nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[sp.sin(x), 0]]), name="degenerate")
    model = system.nonholonomic(sparse=True)
    with pytest.raises(nh.ModelError, match="linearly dependent"):
        model.rhs(0.0, [0.0, 0.0, 0.0, 0.0])


def test_pickled_and_batched_sparse_models():
    """A sparse model pickles as a sparse model (process pools, Dask), and a batch of runs in
    threads gives what serial runs give."""
    import pickle

    system = nh.systems.platoon(3)
    model = system.friction(1e-3, sparse=True)
    again = pickle.loads(pickle.dumps(model))
    assert again.sparse and again.eps == model.eps
    Y0 = np.array([system.initial_state(seed=s) for s in range(4)])
    batch = nh.simulate_many(model, (0, 1), Y0, t_eval=[1.0], threads=2, compile=False)
    serial = [nh.simulate(model, (0, 1), y0, t_eval=[1.0], compile=False) for y0 in Y0]
    for b, s in zip(batch, serial):
        assert np.array_equal(b.y, s.y)


def test_compile_says_that_a_sparse_model_stays_interpreted():
    model = nh.systems.platoon(8).nonholonomic()
    assert model.sparse
    with pytest.warns(RuntimeWarning, match="sparse model's tape is interpreted"):
        model.compile()


def test_pooled_solvers_never_carry_another_models_pattern():
    """Runs reuse the CVODE instances of their thread (solver_pool.hpp); a sparse Newton matrix's
    pattern belongs to its model, so an instance is reused only for the same pattern, whatever
    address a later model has: models of the same size with different patterns, run one after
    another with their systems freed in between, give their dense models' results."""
    import gc

    for seed, make in enumerate([lambda: nh.systems.platoon(3), lambda: random_sparse_system(3, 5),
                                 lambda: random_sparse_system(3, 6, couple=False), lambda: nh.systems.platoon(3)]):
        system = make()  # n = 9 each
        y0 = state(system, seed, consistent=False)
        runs = [nh.simulate(system.friction(1e-3, sparse=s), (0, 0.5), y0, t_eval=[0.5], compile=False)
                for s in (True, False)]
        assert np.abs(runs[0].y - runs[1].y).max() <= 1e-6
        del system, runs
        gc.collect()
