"""The validity check of reduced models covers the whole run, not only its start (adversarial
finding 2 of issue 40): a sleigh pushed by a constant torque leaves the range of its order-1 model
part-way, and the run warns; a run that stays inside does not."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.models import validity

Y0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 1.0])


def pushed_sleigh(torque: float = 10.0) -> nh.System:
    """The Chaplygin sleigh (m = I = 1, a = 0.2, mu = 1) with a constant torque on its heading."""
    x, y, phi = sp.symbols("x y phi")
    m, I, a = 1, 1, sp.Rational(1, 5)  # noqa: E741
    s, c = sp.sin(phi), sp.cos(phi)
    G = sp.Matrix([[m, 0, -m * a * s], [0, m, m * a * c], [-m * a * s, m * a * c, I + m * a**2]])
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-s, c, 0]]), friction=sp.Matrix([[1]]),
                     force=sp.Matrix([0, 0, torque]), name="pushed sleigh")


def _run(model, y0, t_span, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = nh.simulate(model, t_span, y0, **kw)
    return sol, [str(w.message) for w in caught if issubclass(w.category, nh.SimulationWarning)]


@pytest.fixture(scope="module")
def pushed():
    return pushed_sleigh()


@pytest.mark.parametrize("t_eval", [None, np.linspace(0, 10, 41)], ids=["steps", "t_eval with t0"])
def test_a_run_that_leaves_the_range_later_warns(pushed, t_eval):
    """delta = 0.016 at the start, above 0.1 from t = 1 on (the velocity grows to 11.6): the run warns,
    at a state after the start, and it is indeed far from the friction model (2.9 in q)."""
    eps = 0.05
    sol, caught = _run(pushed.reduced(eps, order=1), Y0, (0, 10), t_eval=t_eval)
    assert sol.success and len(caught) == 1 and sol.warnings == caught
    assert "left the range where its expansion in eps is valid" in caught[0] and "delta" in caught[0]
    est = sol.validity
    assert est.delta[0] < 0.02 < validity.THRESHOLD < np.max(est.delta)  # valid at y0, not later
    assert est.t[int(np.argmax(est.delta))] > 1.0 and not est.valid
    stored = validity.sample_indices(sol.t.size, validity.RUN_SAMPLES)  # evenly over the run, the end included
    assert set(sol.t[stored]) <= set(est.t) and est.t.max() == 10.0
    n = pushed.n
    start = np.r_[Y0[:n], pushed.on_slow_manifold(Y0[:n], Y0[n:], eps, order=4)]
    friction = nh.simulate(pushed.friction(eps), (0, 10), start, t_eval=sol.t, rtol=1e-10, atol=1e-12)
    assert np.abs(friction.q - sol.q).max() > 1.0  # the silent wrong answer the warning reports


@pytest.mark.parametrize("t_eval", [None, np.linspace(0, 10, 41)], ids=["steps", "t_eval with t0"])
def test_a_run_that_stays_in_the_range_does_not_warn(pushed, t_eval):
    """The same push at eps = 1e-3: delta stays near 0.003 over the whole run, no warning."""
    sol, caught = _run(pushed.reduced(1e-3, order=1), Y0, (0, 10), t_eval=t_eval)
    assert sol.success and caught == [] and sol.warnings == [] and sol.validity.valid
    stored = validity.sample_indices(sol.t.size, validity.RUN_SAMPLES)
    assert set(sol.t[stored]) <= set(sol.validity.t) and np.max(sol.validity.delta) < 0.01


def test_estimate_samples(pushed):
    """samples=None: every stored state; samples=S: S of them, the first and the last included."""
    sol, _ = _run(pushed.reduced(0.05, order=1), Y0, (0, 10), t_eval=np.linspace(0, 10, 41))
    assert validity.estimate(sol, Y0).t.size == 41  # y0 is the first stored state: counted once
    est = validity.estimate(sol, Y0, samples=5)
    assert list(est.t) == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert list(validity.sample_indices(41, 5)) == [0, 10, 20, 30, 40]
    assert list(validity.sample_indices(3, 5)) == [0, 1, 2]
    with pytest.raises(ValueError, match="samples"):
        validity.sample_indices(41, 1)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_one_pass_estimate_is_the_definition(order):
    """_core.reduced_validity (one pass in C++ over the samples) against the definitions evaluated
    point by point: V the model's velocity, J the friction model's Jacobian at (q, V), r the term
    eps^(K+1) h^(K+1) of the series of order K + 1 relative to the samples' largest |u|, |V|."""
    chain = nh.systems.knife_edge_chain(3)
    eps, n = 0.05, chain.n
    rng = np.random.default_rng(1)
    Q = rng.uniform(-0.5, 0.5, (4, n))
    QU = np.array([np.r_[q, chain.project(q, rng.uniform(-1, 1, n))] for q in Q])
    t = np.linspace(0.0, 1.0, 4)
    model = chain.reduced(eps, order=order)
    p = chain.param_vector()
    V, J, r = nh._core.reduced_validity(chain.friction(eps).core, chain.core, order, eps, t, QU, p,
                                        nh.models.reduced.compiled_slip(chain, order + 1))
    np.testing.assert_allclose(V, model.velocity(t, QU.T).T, rtol=1e-12, atol=1e-14)
    friction = chain.friction(eps)
    for i in range(len(t)):
        np.testing.assert_allclose(J[i], friction.core.jacobian(t[i], np.r_[QU[i, :n], V[i]],
                                                                  friction.param_vector()), rtol=1e-12, atol=1e-12)
    series = np.array([chain.slip(q, u, order=order + 1, t=ti)[order] for q, u, ti in zip(QU[:, :n], QU[:, n:], t)])
    scale = max(np.abs(QU[:, n:]).max(), np.abs(V).max())
    np.testing.assert_allclose(r, eps ** (order + 1) * np.abs(series).max(axis=1) / scale, rtol=1e-9)
    with pytest.raises(ValueError, match="qu"):
        nh._core.reduced_validity(friction.core, chain.core, order, eps, t, QU[:, :n], p)
