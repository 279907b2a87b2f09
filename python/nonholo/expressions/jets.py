r"""Bivariate truncated Taylor series (jets) in :math:`(\varepsilon, \tau)` and SymPy expressions
evaluated on them.

A jet of degree :math:`D` is :math:`x = \sum_{a + b \le D} x_{ab}\, \varepsilon^a \tau^b`, its
coefficients in a :math:`(D+1) \times (D+1)` array (entries with :math:`a + b > D` are zero).
Arithmetic truncates at total degree :math:`D`, so the coefficients it keeps are exact. A unary
function :math:`F` of a jet :math:`x = x_0 + \tilde x` (:math:`\tilde x` without constant term,
nilpotent of order :math:`D + 1`) is :math:`\sum_{m \le D} F^{(m)}(x_0) \tilde x^m / m!`, with the
derivatives :math:`F^{(m)}` from SymPy: every unary function SymPy differentiates works, with no
table of rules. :func:`jet_function` lambdifies expressions so that they take jets (or plain
numbers, for :math:`D = 0`).

This is the series arithmetic of the slow-manifold expansion of a friction law
(:mod:`nonholo.system.law_slow_manifold`), the Python counterpart of ``scalar/taylor.hpp``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

__all__ = ["Jet", "jet_function", "constant", "variable"]


class Jet:
    """A truncated bivariate series; ``c[a, b]`` the coefficient of eps^a tau^b."""

    __slots__ = ("c",)
    __array_priority__ = 100  # numpy scalars defer to Jet's operators

    def __init__(self, c: np.ndarray):
        self.c = c

    @property
    def degree(self) -> int:
        return self.c.shape[0] - 1

    @property
    def value(self) -> float:
        return float(self.c[0, 0])

    def _coerce(self, other) -> "Jet":
        if isinstance(other, Jet):
            return other
        c = np.zeros_like(self.c)
        c[0, 0] = float(other)
        return Jet(c)

    def __add__(self, other):
        if isinstance(other, Jet):
            return Jet(self.c + other.c)
        c = self.c.copy()
        c[0, 0] += float(other)
        return Jet(c)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.c)

    def __pos__(self):
        return self

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        if not isinstance(other, Jet):
            return Jet(self.c * float(other))
        return Jet(_product(self.c, other.c))

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not isinstance(other, Jet):
            return Jet(self.c / float(other))
        return self * other.reciprocal()

    def __rtruediv__(self, other):
        return self.reciprocal() * float(other)

    def reciprocal(self) -> "Jet":
        return _unary(self, lambda x0, m: (-1.0) ** m * math.factorial(m) / x0 ** (m + 1))

    def __pow__(self, p):
        if isinstance(p, Jet):
            return exp_jet(log_jet(self) * p)
        p = float(p)
        if p == int(p) and 0 <= p <= 8:
            out = self._coerce(1.0)
            for _ in range(int(p)):
                out = out * self
            return out
        return _unary(self, lambda x0, m: _falling(p, m) * x0 ** (p - m))

    def __rpow__(self, base):
        return exp_jet(self * math.log(float(base)))

    def __float__(self):
        return self.value

    def __repr__(self) -> str:
        return f"Jet({self.c.tolist()})"


def _falling(p: float, m: int) -> float:
    out = 1.0
    for i in range(m):
        out *= p - i
    return out


@functools.lru_cache(maxsize=None)
def _mask(D: int) -> np.ndarray:
    a = np.arange(D + 1)
    return (a[:, None] + a[None, :]) <= D


def _product(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    D = x.shape[0] - 1
    if D == 0:
        return x * y
    if D == 1:  # the first order in eps and tau (reduced models of order 2): three coefficients
        x00, x01, x10, y00, y01, y10 = x[0, 0], x[0, 1], x[1, 0], y[0, 0], y[0, 1], y[1, 0]
        return np.array([[x00 * y00, x00 * y01 + x01 * y00], [x00 * y10 + x10 * y00, 0.0]])
    out = np.zeros_like(x)
    for a in range(D + 1):
        for b in range(D + 1 - a):
            xab = x[a, b]
            if xab != 0.0:
                out[a:, b:] += xab * y[: D + 1 - a, : D + 1 - b]
    out[~_mask(D)] = 0.0
    return out


def _unary(x: Jet, derivative) -> Jet:
    """F(x) = sum_m F^(m)(x0) (x - x0)^m / m!, ``derivative(x0, m)`` = F^(m)(x0)."""
    x0, D = x.value, x.degree
    out = np.zeros_like(x.c)
    out[0, 0] = derivative(x0, 0)
    if D == 0:
        return Jet(out)
    tilde = x.c.copy()
    tilde[0, 0] = 0.0
    power = tilde
    for m in range(1, D + 1):
        out += derivative(x0, m) / math.factorial(m) * power
        if m < D:
            power = _product(power, tilde)
    return Jet(out)


def exp_jet(x: Jet) -> Jet:
    return _unary(x, lambda x0, m: math.exp(x0))


def log_jet(x: Jet) -> Jet:
    return _unary(x, lambda x0, m: math.log(x0) if m == 0 else (-1.0) ** (m - 1) * math.factorial(m - 1) / x0**m)


def constant(value: float, D: int) -> Jet:
    c = np.zeros((D + 1, D + 1))
    c[0, 0] = float(value)
    return Jet(c)


def variable(value: float, D: int, which: str) -> Jet:
    """value + eps (``which="eps"``) or value + tau (``"tau"``), degree D."""
    c = np.zeros((D + 1, D + 1))
    c[0, 0] = float(value)
    if D > 0:
        c[(1, 0) if which == "eps" else (0, 1)] = 1.0
    return Jet(c)


def _jet_unary(function) -> callable:
    """A SymPy unary function class as a function of jets (and numbers), its derivatives by SymPy."""
    x = sp.Dummy("x", real=True)
    derivatives: list = []

    def nth(m: int):
        while len(derivatives) <= m:
            expr = function(x) if not derivatives else derivatives[-1][0].diff(x)
            derivatives.append((expr, sp.lambdify(x, expr, "math")))
        return derivatives[m][1]

    def apply(arg):
        if isinstance(arg, Jet):
            return _unary(arg, lambda x0, m: float(nth(m)(x0)))
        return float(nth(0)(float(arg)))

    return apply


def _abs(arg):
    if isinstance(arg, Jet):
        return arg if arg.value >= 0 else -arg
    return abs(arg)


def _sign(arg):
    value = arg.value if isinstance(arg, Jet) else float(arg)
    return float(np.sign(value))


def jet_function(args, exprs, what: str = "expression", cse: bool = True):
    """``exprs`` (a list) lambdified to a function of ``args`` that takes numbers or jets and
    returns a list. Unary SymPy functions take their derivatives from SymPy; Abs and sign are
    piecewise smooth (smooth away from 0); other non-smooth functions (Piecewise, Max, Min) raise
    ValueError naming ``what``."""
    exprs = [sp.sympify(e) for e in exprs]
    modules: dict = {"Abs": _abs, "sign": _sign, "exp": lambda a: exp_jet(a) if isinstance(a, Jet) else math.exp(a),
                     "log": lambda a: log_jet(a) if isinstance(a, Jet) else math.log(a),
                     "sqrt": lambda a: a**0.5 if isinstance(a, Jet) else math.sqrt(a)}
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, (sp.Piecewise, sp.Max, sp.Min)):
                raise ValueError(f"{what} is piecewise ({type(node).__name__}): its slow-manifold expansion needs a "
                                 "smooth expression")
            if isinstance(node, sp.Function) and len(node.args) == 1:
                name = type(node).__name__
                if name not in modules:
                    modules[name] = _jet_unary(type(node))
            elif isinstance(node, sp.Function) and type(node).__name__ not in modules:
                raise ValueError(f"{what} uses {type(node).__name__} of several arguments, which the series "
                                 "arithmetic does not evaluate")
    function = sp.lambdify(list(args), exprs, modules=[modules, "math"], cse=cse)
    return function
