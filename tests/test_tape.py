"""Expression tapes: SymPy lowering against sympy.lambdify, AD against SymPy's derivatives."""

import numpy as np
import pytest
import sympy as sp

from nonholo import ModelError
from nonholo.symbolic import lower

x, y, z = sp.symbols("x y z", real=True)

EXPRESSIONS = [
    x + y * z - 3,
    x * y / (1 + z**2),
    -x / 7 + sp.Rational(3, 2) * y**3 - z**-2,
    sp.sqrt(2 + x**2) + 1 / sp.sqrt(3 + y**2),
    sp.exp(x * y) * sp.log(2 + z**2),
    sp.sin(x) * sp.cos(y) + sp.tan(z / 3),
    sp.asin(x / 3) + sp.acos(y / 4) + sp.atan(z),
    sp.atan2(y, x + 3),
    sp.sinh(x / 2) + sp.cosh(y / 3) * sp.tanh(z),
    sp.asinh(x) + sp.acosh(2 + y**2) + sp.atanh(z / 3),
    (2 + x**2) ** sp.Rational(1, 3) + (3 + y**2) ** (z / 5),
    sp.Abs(x - y) + sp.sign(z) * x,
    sp.cot(1 + x**2) + sp.sec(y / 3) + sp.csc(2 + z**2),
    sp.pi * x + sp.E * y,
    (x - y) ** 7 - 5 * (x + z) ** 4,
]


def _points(n=5, seed=1):
    return np.random.default_rng(seed).uniform(-1.5, 1.5, size=(n, 3))


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=[str(i) for i in range(len(EXPRESSIONS))])
def test_tape_matches_lambdify(expr):
    tape = lower([expr], [x, y, z]).tape()
    f = sp.lambdify([x, y, z], expr, "math")
    for p in _points():
        assert tape(p)[0] == pytest.approx(f(*p), rel=1e-13, abs=1e-13)


@pytest.mark.parametrize("expr", EXPRESSIONS, ids=[str(i) for i in range(len(EXPRESSIONS))])
def test_tape_jacobian_matches_sympy_diff(expr):
    tape = lower([expr], [x, y, z]).tape()
    # sign has derivative 0 away from 0 (SymPy writes 2 DiracDelta, zero off the origin).
    grads = [sp.lambdify([x, y, z], sp.diff(expr, s).replace(sp.DiracDelta, lambda *a: 0), "math") for s in (x, y, z)]
    for p in _points(seed=2):
        if abs(p[0] - p[1]) < 1e-3 or abs(p[2]) < 1e-3:
            continue  # Abs and sign are not differentiable there
        J = tape.jacobian(p)
        assert J[0] == pytest.approx([g(*p) for g in grads], rel=1e-12, abs=1e-12)


def test_shared_subexpressions_are_stored_once():
    s = sp.sin(x * y)
    tape = lower([s + 1, s * 2, s**2], [x, y]).tape()
    listing = tape.disassemble()
    assert listing.count("sin") == 1
    assert tape(np.array([0.3, 0.7])) == pytest.approx([np.sin(0.21) + 1, 2 * np.sin(0.21), np.sin(0.21) ** 2])


def test_work_slots_are_reused():
    expr, value = x, 0.4
    for k in range(1, 40):
        expr = sp.sin(expr) * (1 + x * k)
        value = np.sin(value) * (1 + 0.4 * k)
    tape = lower([expr], [x]).tape()
    assert tape.n_slots <= 4 < tape.n_instructions / 10
    assert tape(np.array([0.4]))[0] == pytest.approx(value, rel=1e-12)


def test_constant_outputs_and_inputs_as_outputs():
    tape = lower([sp.Integer(3), x, sp.Float(0.0)], [x, y]).tape()
    assert list(tape(np.array([1.5, 2.0]))) == [3.0, 1.5, 0.0]


def test_unknown_symbol_is_named():
    with pytest.raises(ModelError, match="symbol w"):
        lower([x + sp.Symbol("w")], [x])


def test_unsupported_node_is_named():
    with pytest.raises(ModelError, match="Piecewise"):
        lower([sp.Piecewise((x, x > 0), (0, True))], [x])


def test_undefined_function_is_named():
    f = sp.Function("f")
    with pytest.raises(ModelError, match="undefined function f"):
        lower([f(x) + 1], [x])


def test_complex_constant_is_rejected():
    with pytest.raises(ModelError, match="complex"):
        lower([sp.I * x], [x])


def test_deep_expression_does_not_hit_recursion_limit():
    expr = x
    # Built unevaluated: SymPy's own evaluation recurses too deeply for this depth.
    for k in range(3000):
        expr = sp.Add(sp.sin(expr, evaluate=False), sp.Float(k * 1e-4), evaluate=False)
    tape = lower([expr], [x]).tape()
    value = 0.3
    for k in range(3000):
        value = np.sin(value) + k * 1e-4
    assert tape(np.array([0.3]))[0] == pytest.approx(value, rel=1e-12)
