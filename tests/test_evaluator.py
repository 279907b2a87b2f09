"""The evaluation paths agree: compiled C and the interpreter bit for bit, the Jacobians by
implicit differentiation of the models' solves with dual numbers through the whole vector field
and with finite differences, and the Jacobian refresh policy keeps the friction sleigh's accuracy."""

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core
from nonholo.expressions.compiled import detach
from nonholo.testing import random_system


def _random_state(rng, model):
    n = model.system.n
    return np.concatenate([rng.uniform(-1, 1, n), rng.uniform(-1, 1, model.n_states - n)])


def _finite_difference_jacobian(model, y, h=1e-6):
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        step = h * max(1.0, abs(y[j]))
        yp, ym = y.copy(), y.copy()
        yp[j] += step
        ym[j] -= step
        J[:, j] = (model.rhs(0.3, yp) - model.rhs(0.3, ym)) / (2 * step)
    return J


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_tapes_equal_the_interpreter_bit_for_bit(seed, tmp_path):
    system = random_system(seed, n=4, k=2, affine=True, force=True)
    models = [system.nonholonomic(), system.friction(1e-3)]
    rng = np.random.default_rng(seed)
    states = [_random_state(rng, models[0]) for _ in range(5)]
    before = [[m.rhs(0.3, y) for y in states] for m in models]
    points = [(rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4)) for _ in range(3)]
    geometry_before = [system.core.at(0.3, q, v, system.param_vector()).multipliers() for q, v in points]

    models[0].compile(tapes=("dynamics", "constraints", "full", "jacobian"), cache_dir=tmp_path)
    assert models[0].compiled and models[1].compiled  # one system: every model uses the kernels
    assert len(list(tmp_path.glob("*.so"))) == 4
    after = [[m.rhs(0.3, y) for y in states] for m in models]
    geometry_after = [system.core.at(0.3, q, v, system.param_vector()).multipliers() for q, v in points]
    for b, a in zip(before, after):
        for fb, fa in zip(b, a):
            np.testing.assert_array_equal(fa, fb)
    for b, a in zip(geometry_before, geometry_after):
        np.testing.assert_array_equal(a, b)

    # compiled integration equals interpreted integration, constraint residual included
    y0 = np.concatenate([np.zeros(4), system.project(np.zeros(4), np.ones(4), 0.0)])
    compiled_run = nh.simulate(models[0], (0, 2), y0, t_eval=[2.0])
    detach(system.core)
    assert not models[0].compiled
    interpreted_run = nh.simulate(models[0], (0, 2), y0, t_eval=[2.0])
    np.testing.assert_array_equal(compiled_run.y, interpreted_run.y)


def test_compile_cache_is_reused_and_bad_tape_names_are_rejected(tmp_path):
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    model.compile(cache_dir=tmp_path)
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.so")}
    nh.systems.chaplygin_sleigh().nonholonomic().compile(cache_dir=tmp_path)  # same tapes: same files
    assert {p: p.stat().st_mtime_ns for p in tmp_path.glob("*.so")} == stamps
    with pytest.raises(ValueError, match="tapes must be among"):
        model.compile(tapes=("everything",), cache_dir=tmp_path)
    with pytest.raises(ValueError, match="which must be"):
        _core.tape_c_source(model.system.core, "everything", "f")


@pytest.mark.parametrize("seed", [3, 4, 5])
@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_implicit_jacobian_equals_dual_numbers_and_finite_differences(seed, kind):
    system = random_system(seed, n=5, k=2, affine=True, force=True)
    model = system.nonholonomic() if kind == "nonholonomic" else system.friction(0.05)
    rng = np.random.default_rng(seed)
    p = model.param_vector()
    for _ in range(3):
        y = _random_state(rng, model)
        J_implicit = model.core.jacobian_implicit(0.3, y, p)
        J_dual = model.core.jacobian_dual(0.3, y, p)
        scale = np.max(np.abs(J_dual))
        assert np.max(np.abs(J_implicit - J_dual)) <= 1e-12 * scale
        assert np.max(np.abs(J_implicit - _finite_difference_jacobian(model, y))) <= 1e-6 * scale
        # jacobian() takes whichever path its cost estimate says is cheaper
        assert np.max(np.abs(model.jacobian(0.3, y) - J_dual)) <= 1e-12 * scale


@pytest.mark.parametrize("N", [5, 44])  # tapes built with the system, and on first use (n > 40)
@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_implicit_jacobian_of_the_knife_edge_chain(kind, N):
    system = nh.systems.knife_edge_chain(N)
    model = system.nonholonomic() if kind == "nonholonomic" else system.friction(1e-3)
    rng = np.random.default_rng(7)
    q = np.concatenate([[0.2, -0.1], rng.uniform(-1, 1, N)])
    y = np.concatenate([q, system.project(q, rng.uniform(-1, 1, N + 2))])
    assert model.core.jacobian_cost < model.core.dual_jacobian_cost
    J_dual = model.core.jacobian_dual(0.0, y, model.param_vector())
    assert np.max(np.abs(model.jacobian(0.0, y) - J_dual)) <= 1e-12 * np.max(np.abs(J_dual))


def test_the_sleigh_takes_the_cheaper_implicit_jacobian():
    """The cost model picks the cheaper of its two estimates; on the sleigh the implicit Jacobian
    measures 2.4-3.0 right-hand sides against 2.7-4.8 by dual numbers (benchmarks/jacobian_choice.py),
    and the estimates rank them so. Models without an implicit Jacobian estimate it as NaN."""
    sleigh = nh.systems.chaplygin_sleigh()
    y = np.concatenate([[0.3, -0.2, 0.7], sleigh.project(np.array([0.3, -0.2, 0.7]), np.array([1.0, 0.5, -0.4]))])
    for model in (sleigh.friction(1e-4), sleigh.nonholonomic()):
        core, p = model.core, model.param_vector()
        assert core.jacobian_cost == min(core.implicit_jacobian_cost, core.dual_jacobian_cost)
        assert core.implicit_jacobian_cost < core.dual_jacobian_cost
        np.testing.assert_array_equal(model.jacobian(0.0, y), core.jacobian_implicit(0.0, y, p))
    assert np.isnan(sleigh.vakonomic().core.implicit_jacobian_cost)


def test_jacobian_tape_holds_the_derivative_blocks_by_their_nonzeros():
    """The chain's metric and constraints depend on each angle in one row and one column: the
    Jacobian tape's outputs grow like n^2 (the dynamics blocks, dr/d[q, v], da/d[q, v] and the
    nonzeros of dG/dq, dA/dq), not like the n^3 entries of the dense blocks."""
    N = 44
    n, k = N + 2, N
    system = nh.systems.knife_edge_chain(N)
    _, outputs = _core.diagnostics.tape_size(system.core, "jacobian")
    _, dynamics = _core.diagnostics.tape_size(system.core, "dynamics")
    nonzeros = outputs - dynamics - 2 * n * n - 2 * k * n
    assert 0 < nonzeros <= 4 * n * n
    assert nonzeros < 0.05 * (n**3 + k * n * n)  # dense dG/dq and dA/dq: 190 440 entries


def test_jacobian_policy_keeps_the_sleighs_accuracy_at_eps_1e_4():
    """The friction sleigh at eps 1e-4 (its stiff subspace turns with the heading): a start-up
    with a kept Jacobian, new at each linear setup, leaves an error CVODE's convergence test does
    not see (one Newton iteration accepted at the contraction rate of a fresh Jacobian), 17x that
    of a refresh every step at t = 0.3 and 2.1e-5 at t = 20. A refresh costs the sleigh less than
    kCheapRefresh = 0.6 of a step's fixed work, so its start-up refreshes every step
    (jacobian_policy.hpp): the error at t = 20 stays within 2x of a refresh on every step (1.9e-6)."""
    sleigh = nh.systems.chaplygin_sleigh().friction(1e-4)
    y0 = [0, 0, 0, -1.5, 0, 1]
    res = nh.simulate(sleigh, (0, 20), y0, rtol=1e-8, atol=1e-10, t_eval=[20.0])
    reference = nh.simulate(sleigh, (0, 20), y0, rtol=1e-12, atol=1e-14, t_eval=[20.0])
    assert np.max(np.abs(np.asarray(res.y) - np.asarray(reference.y))) < 5e-6
    assert res.stats["n_jac"] >= 0.9 * res.stats["n_steps"]


def test_jacobian_policy_refreshes_on_the_sleigh_and_reuses_on_the_chain():
    """The policy (cpp/include/nonholo/jacobian_policy.hpp) keeps the Jacobian mode that advances
    further per unit of work. The sleigh's stiff subspace turns with its heading: with CVODE's
    reuse the Newton iteration fails on half of the steps and the error grows 7x, so the run
    refreshes on almost every step and keeps the accuracy of benchmarks/friction_sleigh.py
    (7.7e-6 refreshed every step, 5e-5 with reuse). The knife-edge chain's Jacobian changes
    slowly and is reused (a refresh every step is 2-3x slower there); with friction, a new one at
    each linear setup."""
    sleigh = nh.systems.chaplygin_sleigh().friction(1e-6)
    y0 = [0, 0, 0, -1.5, 0, 1]
    res = nh.simulate(sleigh, (0, 20), y0, rtol=1e-8, atol=1e-10, t_eval=[20.0])
    st = res.stats
    assert st["n_jac"] >= 0.7 * st["n_steps"]  # CVODE's reuse: 0.48 (a Jacobian after each failure)
    assert st["n_nonlin_fails"] <= 0.1 * st["n_steps"]  # CVODE's reuse: 0.47
    reference = nh.simulate(sleigh, (0, 20), y0, rtol=1e-12, atol=1e-14, t_eval=[20.0])
    assert np.max(np.abs(np.asarray(res.y) - np.asarray(reference.y))) < 1e-5
    # the start-up leaves the kept Jacobian at the first Newton failures: at most 10% more steps
    # than a refresh on every step (538; 620 when the first 128 steps kept CVODE's reuse)
    every = nh.simulate(sleigh, (0, 20), y0, rtol=1e-8, atol=1e-10, t_eval=[20.0],
                        solver_options=dict(jacobian_frequency=1, setup_frequency=1)).stats
    assert st["n_steps"] <= 1.1 * every["n_steps"]

    system = nh.systems.knife_edge_chain(8)
    q = np.concatenate([[0.0, 0.0], 0.1 * np.arange(1, 9)])
    v = np.zeros(10)
    v[0], v[2] = 1.0, 0.3
    y = np.concatenate([q, system.project(q, v)])
    chain = system.friction(1e-4)
    assert chain.core.jacobian_cost < chain.core.dual_jacobian_cost / 2  # measured: 8.8 us against 20 us
    st = nh.simulate(chain, (0, 2), y, rtol=1e-8, atol=1e-10, t_eval=[2.0]).stats
    assert st["n_jac"] <= 0.25 * st["n_steps"]  # a refresh every step: n_jac = n_steps
    # a stiff model with a cheap Jacobian takes a new one at each linear setup: fewer steps and
    # error-test failures than CVODE's reuse for up to 51 steps (150 and 5 against 226 and 18)
    cvode = nh.simulate(chain, (0, 2), y, rtol=1e-8, atol=1e-10, t_eval=[2.0],
                        solver_options=dict(jacobian_frequency=51, setup_frequency=20)).stats
    assert st["n_steps"] <= 0.8 * cvode["n_steps"]
    assert st["n_err_test_fails"] <= 0.5 * cvode["n_err_test_fails"]
    # the non-stiff nonholonomic chain takes the same steps in every mode: CVODE's reuse
    nonholonomic = nh.simulate(system.nonholonomic(), (0, 2), y, rtol=1e-8, atol=1e-10, t_eval=[2.0]).stats
    assert nonholonomic["n_jac"] <= 0.05 * nonholonomic["n_steps"]
    # frequencies fixed by the caller switch the policy off
    fixed = nh.simulate(chain, (0, 2), y, rtol=1e-8, atol=1e-10, t_eval=[2.0],
                        solver_options=dict(jacobian_frequency=1, setup_frequency=1)).stats
    assert fixed["n_jac"] >= fixed["n_steps"]
