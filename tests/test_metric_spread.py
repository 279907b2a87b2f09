"""A positive definite metric whose diagonal spans many decades is factored, and a singular one refused:
each pivot of the metric's LDL^T is measured against its own diagonal entry (an outside probe's diag(m, m, J)
was refused as 'not positive definite ... or a mass or an inertia is zero' from m / J = 2e13 on, measured
against the largest diagonal entry; its closed-form motion ran to 6e-10 below that). The constraints' Gram
matrix keeps the largest entry: a row of A that vanishes is a rank loss (tests/test_discrete.py)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.errors import ModelError

x, th = sp.symbols("x theta")


@pytest.mark.parametrize("mass, inertia", [(1e13, 0.5), (2.0, 1e-13), (1e20, 1e-6)])
def test_a_diagonal_of_any_spread_runs(mass, inertia):
    """x'' = -x and theta'' = -theta (springs scaled with the mass and the inertia): cos t both."""
    system = nh.System([x, th], sp.diag(mass, inertia), potential=(mass * x**2 + inertia * th**2) / 2)
    for method in ("auto", "bdf"):
        r = nh.simulate(system.nonholonomic(), (0, 3), [1.0, 1.0, 0.0, 0.0], method=method, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(r.y_final, [np.cos(3), np.cos(3), -np.sin(3), -np.sin(3)], atol=1e-7)


def test_a_sleigh_with_a_heavy_body_and_a_light_blade_runs():
    """A sleigh of mass 1e13 and inertia 0.5 about its contact (a = 0): uniform motion along its heading."""
    xs, ys, phi = sp.symbols("x y phi")
    sleigh = nh.System([xs, ys, phi], sp.diag(1e13, 1e13, 0.5), constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]))
    r = nh.simulate(sleigh.nonholonomic(), (0, 2), [0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.7], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.y_final[2], 0.3 + 1.4, atol=1e-8)


def test_a_singular_or_indefinite_metric_is_still_refused():
    for G in (sp.Matrix([[1, 1], [1, 1 + 1e-15]]), sp.Matrix([[1, 2], [2, 1]]), sp.diag(1.0, 1e-320)):
        system = nh.System([x, th], G)
        with pytest.raises(ModelError, match="not positive definite"):
            nh.simulate(system.nonholonomic(), (0, 1), [0.0, 0.0, 1.0, 1.0])
