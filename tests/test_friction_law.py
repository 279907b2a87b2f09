"""The friction model's force is its law (cpp/include/nonholo/models/friction_law.hpp), the viscous
law z = -(1/eps) mu (A v - b), through the public API, dense and sparse: on a system with a full,
configuration-dependent mu(q) and affine constraints, where the law's coefficient derivative dmu/dq
enters the implicit Jacobian. The law's own identities are checked at random points in
cpp/tests/test_friction_law.cpp.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo import _core


@pytest.fixture(scope="module")
def two_blades():
    """Two knife edges on a free body with masses m, constant metric (so r = F = 0): the closed form
    of the friction model is v' = -(1/eps) G^-1 A^T mu (A v - b)."""
    x, y, th, ph = q = sp.symbols("x y theta phi")
    m, J = sp.symbols("m J")
    G = sp.diag(m, m, J, J)
    A = sp.Matrix([[-sp.sin(th), sp.cos(th), 0, 0], [sp.cos(ph), sp.sin(ph), 0, sp.Rational(1, 5)]])
    b = sp.Matrix([sp.Rational(1, 10) * sp.cos(x), 0])
    mu = sp.Matrix([[2 + sp.sin(th) ** 2, sp.Rational(3, 10) * sp.cos(ph)],
                    [sp.Rational(3, 10) * sp.cos(ph), sp.Rational(3, 2) + sp.cos(x) ** 2]])
    values = {m: 1.3, J: 0.7}
    system = nh.System(list(q), G, constraints=A, affine=b, friction=mu, parameters=values,
                       name="two blades")
    arrays = [sp.lambdify(list(q), e.subs(values), "numpy") for e in (G, A, b, mu)]
    return system, arrays


def closed_form(arrays, y, eps):
    n = 4
    G, A, b, mu = (np.array(f(*y[:n]), dtype=float).reshape(shape)
                   for f, shape in zip(arrays, [(4, 4), (2, 4), (2,), (2, 2)]))
    slip = A @ y[n:] - b
    return np.r_[y[n:], np.linalg.solve(G, -(A.T @ mu @ slip) / eps)]


@pytest.mark.parametrize("sparse", [False, True])
def test_the_force_is_the_viscous_law_of_the_slip(two_blades, sparse):
    system, arrays = two_blades
    rng = np.random.default_rng(11)
    for eps in (1e-3, 0.5):
        model = system.friction(eps, sparse=sparse)
        assert model.sparse == sparse
        for _ in range(4):
            y = rng.uniform(-1.0, 1.0, 8)
            expected = closed_form(arrays, y, eps)
            assert np.abs(model.rhs(0.2, y) - expected).max() <= 1e-12 * (1 + np.abs(expected).max())


def test_the_implicit_jacobian_differentiates_the_law_and_its_coefficients(two_blades):
    """The implicit Jacobian (the law's derivative along the slip and along dmu/dq) equals dual
    numbers through the whole vector field, and the sparse model's, to rounding."""
    system, _ = two_blades
    rng = np.random.default_rng(12)
    dense, sparse = system.friction(1e-2), system.friction(1e-2, sparse=True)
    p = dense.param_vector()
    for _ in range(4):
        y = rng.uniform(-1.0, 1.0, 8)
        J_dual = dense.core.jacobian_dual(0.0, y, p)
        J_implicit = dense.core.jacobian_implicit(0.0, y, p)
        scale = np.abs(J_dual).max()
        assert np.abs(J_implicit - J_dual).max() <= 1e-12 * scale
        assert np.abs(sparse.jacobian(0.0, y) - J_dual).max() <= 1e-10 * scale


@pytest.mark.parametrize("sparse", [False, True])
def test_the_laws_inputs_are_checked_alike_dense_and_sparse(two_blades, sparse):
    system, _ = two_blades
    model = system.friction(1e-3, sparse=sparse)
    y = np.r_[0.1, 0.2, 0.3, 0.4, np.zeros(4)]
    p = list(model.param_vector())
    model.core.check_state(0.0, y, p)  # usable
    for bad in (0.0, -1e-3, np.inf, np.nan):
        with pytest.raises(ValueError, match="eps must be a positive finite number"):
            model.core.check_state(0.0, y, p[:-1] + [bad])
    indefinite = nh.System(list(system.coordinates), system.metric, constraints=system.constraints,
                           friction=-sp.eye(2), parameters=system.parameters)
    with pytest.raises(nh.ModelError, match="friction coefficients mu are not symmetric positive definite"):
        indefinite.friction(1e-3, sparse=sparse).core.check_state(0.0, y, p)


@pytest.mark.parametrize("make", [nh.systems.chaplygin_sleigh, lambda: nh.systems.knife_edge_chain(3)],
                         ids=["sleigh", "chain"])
def test_one_reduced_model_for_every_law(make):
    """The core has one reduced model (models/reduced.hpp): the law only says what the slip is. The
    viscous law written with Law(...) (nh.laws.Viscous, mu = 1 as these systems' coefficients) goes
    through the expansion of a law given by tapes (law_slow_manifold.hpp: Newton's method and the
    chord iteration), the default through the linear law's closed-form expansion, and both give the
    same right-hand side at orders 0..3 to rounding; another eps does not."""
    from nonholo.models.law_core import law_expansion_core
    from nonholo.system.law_slow_manifold import LawSlowManifold

    system, eps, t = make(), 1e-2, 0.3
    law = law_expansion_core(LawSlowManifold(system, nh.laws.Viscous(1.0, eps), normal=1.0))
    rng = np.random.default_rng(7)
    p = list(system.param_vector())
    for _ in range(3):
        q = rng.uniform(-1, 1, system.n)
        y = np.r_[q, system.project(q, rng.uniform(-1, 1, system.n), t)]
        for order in range(4):
            linear = _core.reduced_model(system.core, order)
            by_law = _core.reduced_model(system.core, order, law=law)
            assert (linear.n_params, by_law.n_params) == (len(p) + 1, len(p))
            expected = linear.rhs(t, y, [*p, eps])
            np.testing.assert_allclose(by_law.rhs(t, y, p), expected, rtol=1e-12, atol=1e-13 * np.abs(expected).max())
            if order > 0:
                other = linear.rhs(t, y, [*p, 2 * eps])
                assert np.abs(other - expected).max() > 1e-6 * np.abs(expected).max()
    with pytest.raises(ValueError, match="compiled"):
        compiled = _core.CompiledSlip(system.core, 1, t, y[:system.n], y[system.n:], p)
        _core.reduced_model(system.core, 1, compiled, law=law)
