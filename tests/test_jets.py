"""Bivariate truncated Taylor series (nonholo.expressions.jets) against SymPy's series.

A function F(x(eps, tau), y(eps, tau)) of two jets must have the Taylor coefficients of the
composition, up to the jets' total degree; checked at random base points for arithmetic, powers
and unary functions whose derivatives come from SymPy."""

import math

import numpy as np
import pytest
import sympy as sp

from nonholo.expressions.jets import Jet, jet_function, variable

E, T = sp.symbols("e t", real=True)


def reference_coefficients(expr, D):
    """c[a, b] of expr(e, t) at 0, a + b <= D, by SymPy's differentiation."""
    c = np.zeros((D + 1, D + 1))
    for a in range(D + 1):
        for b in range(D + 1 - a):
            c[a, b] = float(expr.diff(E, a).diff(T, b).subs({E: 0, T: 0})) / (math.factorial(a) * math.factorial(b))
    return c


@pytest.mark.parametrize("seed, D", [(0, 1), (1, 1), (2, 3)])
def test_compositions_have_the_taylor_coefficients_of_sympy(seed, D):
    rng = np.random.default_rng(seed)
    x0, y0, ax, bx, ay, by = rng.uniform(0.3, 1.2, 6)
    x_s, y_s = sp.symbols("x y")
    exprs = [x_s * y_s + 3, x_s / y_s - 2 * x_s, x_s**2.5 * sp.sqrt(y_s), sp.sin(x_s) * sp.exp(y_s),
             sp.atan(x_s - y_s) + sp.log(x_s), sp.tanh(x_s * y_s) ** 3, 1 / sp.sqrt(1 + x_s**2 + y_s**2),
             sp.cos(x_s) ** y_s, sp.Abs(x_s - 2) * y_s]
    function = jet_function([x_s, y_s], exprs)
    x = variable(x0, D, "eps") * ax + variable(0.0, D, "tau") * bx
    y = variable(y0, D, "tau") * by + variable(0.0, D, "eps") * ay
    x, y = x + x0 * (1 - ax), y + y0 * (1 - by)  # x = x0 + ax eps + bx tau, y = y0 + ay eps + by tau
    got = function(x, y)
    subs = {x_s: x0 + ax * E + bx * T, y_s: y0 + ay * E + by * T}
    for expr, jet in zip(exprs, got):
        expected = reference_coefficients(expr.subs(subs), D)
        np.testing.assert_allclose(jet.c, expected, rtol=1e-12, atol=1e-12, err_msg=str(expr))


def test_numbers_pass_through_and_truncation_keeps_the_degree():
    x = sp.Symbol("x")
    f = jet_function([x], [sp.sin(x) + x**2])
    assert f(0.5)[0] == pytest.approx(math.sin(0.5) + 0.25, rel=1e-15)
    j = variable(0.5, 2, "eps")
    out = (j * j * j).c  # (0.5 + eps)^3 truncated at degree 2
    np.testing.assert_allclose(out, [[0.125, 0, 0], [0.75, 0, 0], [1.5, 0, 0]])
    assert isinstance(f(j)[0], Jet)


def test_piecewise_expressions_are_refused_naming_what():
    x = sp.Symbol("x")
    with pytest.raises(ValueError, match="the law is piecewise"):
        jet_function([x], [sp.Piecewise((x, x > 0), (0, True))], "the law")
