"""benchmarks/peer_models.py: the sparse saddle-point blocks (entry-by-entry derivatives, used by
the large peers benchmark) equal the dense ones (G.diff(q_l) for every l) on small systems."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from benchmarks.peer_models import saddle_point_blocks, sparse_saddle_point_blocks
from nonholo.testing import random_system

NAMES = ("G", "A", "b", "mu", "r", "a")


SYSTEMS = {"platoon K=3": lambda: nh.systems.platoon(3), "chain N=3": lambda: nh.systems.knife_edge_chain(3),
           "sleigh": nh.systems.chaplygin_sleigh, "random": lambda: random_system(7, n=3, k=1, force=True)}


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_sparse_blocks_equal_dense_at_random_states(name):
    system = SYSTEMS[name]()
    dense, sparse = saddle_point_blocks(system), sparse_saddle_point_blocks(system)
    args = [*dense["q"], *dense["v"]]
    assert [s.name for s in args] == [s.name for s in [*sparse["q"], *sparse["v"]]]
    f_dense = sp.lambdify(args, [dense[k] for k in NAMES], modules="numpy")
    f_sparse = sp.lambdify([*sparse["q"], *sparse["v"]], [sp.Matrix(sparse[k]) for k in NAMES], modules="numpy")
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = rng.uniform(-1.0, 1.0, len(args))
        for key, d, s in zip(NAMES, f_dense(*y), f_sparse(*y)):
            d, s = np.asarray(d, dtype=float), np.asarray(s, dtype=float)
            assert d.shape == s.shape, key
            np.testing.assert_allclose(s, d, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(d).max(initial=0.0)),
                                       err_msg=f"{name}: block {key}")


def test_sparse_blocks_equal_dense_symbolically_on_the_platoon():
    system = nh.systems.platoon(2)
    dense, sparse = saddle_point_blocks(system), sparse_saddle_point_blocks(system)
    back = dict(zip([*sparse["q"], *sparse["v"]], [*dense["q"], *dense["v"]]))
    for key in NAMES:
        difference = dense[key] - sp.Matrix(sparse[key]).xreplace(back)
        assert sp.expand(difference) == sp.zeros(*dense[key].shape), key
    # only the structural nonzeros are stored: 3 x 3 metric blocks, 2 entries per constraint row
    assert len(sparse["G"].todok()) == 2 * 7 and len(sparse["A"].todok()) == 2 * 2


@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_jacobian_sparsity_covers_the_jacobian_and_is_block_sparse(kind):
    """The sparsity given to SciPy's BDF contains every nonzero of a central-difference Jacobian of
    the right-hand side, and is block-banded for the platoon (robot i's accelerations depend on
    robots i-1, i, i+1 only)."""
    from benchmarks.peer_models import scipy_sparse_saddle
    from nonholo.testing import central_difference

    system = nh.systems.platoon(4)
    rhs, S = scipy_sparse_saddle(system, kind, 1e-2)
    y = system.initial_state(perturbation=0.3, seed=1)
    J = central_difference(lambda x: rhs(0.0, x), y, 1e-6)
    S = S.toarray() != 0
    assert not np.any((np.abs(J) > 1e-6) & ~S)
    n = system.n
    robot = np.arange(2 * n) % n // 3
    assert not np.any(S[n:, :] & (np.abs(robot[n:, None] - robot[None, :]) > 1))
    assert S[n:, :].sum() > 0.5 * (np.abs(robot[n:, None] - robot[None, :]) <= 1).sum()
