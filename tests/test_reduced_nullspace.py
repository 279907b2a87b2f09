"""The reduced models of orders 0 and 1 evaluate by the null-space method in doubles where it needs
fewer dense operations (ReducedModel::eval_nullspace_in_workspace_split, a split of the coordinates
kept in the workspace): equal to the range-space path in exact arithmetic. Of the systems below the
chain N = 8 and the random system with n = 10, k = 8 take it (reduced_nullspace_pays: k >= 4 and at most
0.75 of the range space's operations), the others the range space. Checked against
independent paths at random states of systems the method was not written for: order 0 against the
nonholonomic model, order 1 against the same model given a CompiledSlip of order 1 (which takes the
range-space path: the slip tape, then the projected acceleration at v = u + eps h^(1))."""

import numpy as np
import pytest

import nonholo as nh
import nonholo.testing

SYSTEMS = {
    "chain N=8": lambda: nh.systems.knife_edge_chain(8),
    "chain N=3": lambda: nh.systems.knife_edge_chain(3),
    "sleigh": lambda: nh.systems.chaplygin_sleigh(),
    "disk": lambda: nh.systems.vertical_rolling_disk(),
    "random n=6 k=4": lambda: nh.testing.random_system(2, n=6, k=4, force=True),
    "random n=5 k=1 affine": lambda: nh.testing.random_system(1, n=5, k=1, affine=True, force=True),
    "random n=4 k=3 affine": lambda: nh.testing.random_system(3, n=4, k=3, affine=True),
    "random n=10 k=8 affine": lambda: nh.testing.random_system(4, n=10, k=8, affine=True, force=True),
    "random n=9 k=7": lambda: nh.testing.random_system(5, n=9, k=7),
}


def _states(system, count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q = rng.uniform(-0.8, 0.8, system.n)
        yield q, system.project(q, rng.uniform(-1.0, 1.0, system.n), 0.3)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_order_zero_is_the_nonholonomic_model(name):
    system = SYSTEMS[name]()
    reduced, nonholonomic = system.reduced(1e-2, order=0), system.nonholonomic()
    for q, u in _states(system, 10, 1):
        y = np.r_[q, u]
        expected = nonholonomic.rhs(0.3, y)
        np.testing.assert_allclose(reduced.rhs(0.3, y), expected, rtol=0, atol=1e-13 * np.abs(expected).max())


@pytest.mark.parametrize("eps", [1e-4, 0.05])
@pytest.mark.parametrize("name", list(SYSTEMS))
def test_order_one_is_the_range_space_path(name, eps):
    system = SYSTEMS[name]()
    model = system.reduced(eps, order=1)
    p = model.param_vector()
    for i, (q, u) in enumerate(_states(system, 10, 2)):
        if i == 0:
            slip = nh._core.CompiledSlip(system.core, 1, 0.3, q, u, system.param_vector())
            range_space = nh._core.reduced_model(system.core, 1, slip)
        y = np.r_[q, u]
        expected = range_space.rhs(0.3, y, p)
        np.testing.assert_allclose(model.core.rhs(0.3, y, p), expected, rtol=0, atol=1e-13 * np.abs(expected).max())


def test_a_run_across_a_resplit_is_the_range_space_run():
    """The chain N = 8 with its front link turning through more than pi: a split that solves for x or
    y becomes singular on the way (where cos or sin of the heading vanishes), so the workspace's split
    is re-chosen during the run; the states agree with the range-space right-hand side throughout."""
    chain = nh.systems.knife_edge_chain(8)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(8))]
    y0 = np.r_[q0, chain.project(q0, np.r_[0.0, 1.0, 2.0, np.zeros(7)])]
    model = chain.reduced(1e-3, order=1)
    p = model.param_vector()
    slip = nh._core.CompiledSlip(chain.core, 1, 0.0, q0, y0[chain.n:], chain.param_vector())
    range_space = nh._core.reduced_model(chain.core, 1, slip)
    sol = nh.simulate(model, (0, 3), y0, t_eval=np.linspace(0, 3, 31), rtol=1e-10, atol=1e-12)
    assert sol.success and np.ptp(sol.y[2]) > np.pi  # the front link turns through more than pi
    for t, y in zip(sol.t, sol.y.T):
        expected = range_space.rhs(t, y, p)
        np.testing.assert_allclose(model.core.rhs(t, y, p), expected, rtol=0, atol=1e-12 * np.abs(expected).max())
