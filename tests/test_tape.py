"""Expression tapes: SymPy lowering against sympy.lambdify, AD against SymPy's derivatives."""

import numpy as np
import pytest
import sympy as sp

from nonholo import ModelError
from nonholo.expressions import lower

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


def _random_graph(seed, n_inputs=4, n_nodes=300):
    """Serialized nodes with many products read once (the interpreter fuses those into their
    reader) at every operand position, and some read twice or output (those it must not fuse).
    Values stay bounded: factors other than the recent nodes are inputs (in [0.5, 1.5]) or sines,
    denominators are inputs, and every eighth node is a sine."""
    from nonholo import _core

    codes = _core.op_codes()
    rng = np.random.default_rng(seed)
    nodes = [("input", i, -1, 0) for i in range(n_inputs)]
    bounded = list(range(n_inputs))
    kinds = ["add", "sub", "sub", "mul", "mul", "mul", "mul", "div", "neg", "powi", "sin"]
    for k in range(n_nodes):
        kind = "sin" if k % 8 == 7 else kinds[rng.integers(len(kinds))]
        recent = rng.choice(np.arange(max(0, len(nodes) - 6), len(nodes)), 2, replace=False)
        a, b, n = int(recent[0]), int(recent[1]), 0
        if kind == "mul" and rng.uniform() < 0.5:
            a, b = b, int(rng.choice(bounded))
        elif kind == "mul":
            b = int(rng.choice(bounded))
        if kind == "div":
            b = int(rng.integers(n_inputs))
        if kind == "powi":
            a, b, n = int(rng.choice(bounded)), -1, int(rng.choice([2, 3, -2]))
        if kind in ("neg", "sin"):
            b = -1
        if kind == "sin":
            bounded.append(len(nodes))
        nodes.append((kind, a, b, n))
    outputs = sorted({len(nodes) - 1, *rng.integers(n_inputs, len(nodes), 25).tolist()})
    ops = [codes[k] for k, *_ in nodes]
    graph = _core.make_graph(n_inputs, ops, [a for _, a, _, _ in nodes], [b for *_, b, _ in nodes],
                             [n for *_, n in nodes], [0.0] * len(nodes), outputs)
    return nodes, outputs, _core.Tape(graph)


class _Dual:
    """Forward-mode dual number with nonholo's Dual<double, 1> formulas (scalar/dual.hpp)."""

    def __init__(self, v, d=0.0):
        self.v, self.d = v, d

    def __add__(self, o):
        return _Dual(self.v + o.v, self.d + o.d)

    def __sub__(self, o):
        return _Dual(self.v - o.v, self.d - o.d)

    def __mul__(self, o):
        return _Dual(self.v * o.v, self.d * o.v + self.v * o.d)

    def __truediv__(self, o):
        v = self.v / o.v
        return _Dual(v, (self.d - v * o.d) / o.v)

    def __neg__(self):
        return _Dual(-self.v, -self.d)

    def sin(self):
        return _Dual(np.sin(self.v), np.cos(self.v) * self.d)


def _powi(x, n, one):
    """nonholo::powi: repeated squaring, 1/x^-n for negative n."""
    if n < 0:
        return one / _powi(x, -n, one)
    result, base, first = None, x, True
    while n > 0:
        if n & 1:
            result = base if first else result * base
            first = False
        n >>= 1
        if n > 0:
            base = base * base
    return result


def _evaluate_in_graph_order(nodes, inputs, one, sin):
    values = []
    for kind, a, b, n in nodes:
        if kind == "input":
            values.append(inputs[a])
        elif kind == "neg":
            values.append(-values[a])
        elif kind == "sin":
            values.append(sin(values[a]))
        elif kind == "powi":
            values.append(_powi(values[a], n, one))
        else:
            x, y = values[a], values[b]
            values.append(x + y if kind == "add" else x - y if kind == "sub" else x * y if kind == "mul" else x / y)
    return values


@pytest.mark.parametrize("seed", range(4))
def test_interpreter_rounds_exactly_as_the_graph_in_doubles_and_dual_numbers(seed):
    # The interpreter fuses products into their reader (a*b + c, c - a*(b*c), ...) and reorders
    # the operations by level; every value must still be the graph's, bit for bit.
    nodes, outputs, tape = _random_graph(seed)
    assert tape.n_interpreted <= tape.n_instructions - 10  # products were fused
    rng = np.random.default_rng(100 + seed)
    for _ in range(3):
        x = rng.uniform(0.5, 1.5, 4)
        values = _evaluate_in_graph_order(nodes, [float(v) for v in x], 1.0, np.sin)
        np.testing.assert_array_equal(tape(x), [values[o] for o in outputs])
        J = tape.jacobian(x)
        for j in range(4):
            duals = [_Dual(float(v), 1.0 if i == j else 0.0) for i, v in enumerate(x)]
            values = _evaluate_in_graph_order(nodes, duals, _Dual(1.0), _Dual.sin)
            np.testing.assert_array_equal(J[:, j], [values[o].d for o in outputs])


def test_independent_products_are_fused_and_run_together():
    # x_a x_b x_c + x_d on disjoint symbols, 20 times: two products and a sum fused into one
    # operation each, all on the first level of the schedule and of one kind: one run.
    xs = sp.symbols("x0:80")
    exprs = [xs[4 * i] * xs[4 * i + 1] * xs[4 * i + 2] + xs[4 * i + 3] for i in range(20)]
    tape = lower(exprs, list(xs)).tape()
    p = np.linspace(0.5, 1.5, 80)
    assert tape(p) == pytest.approx([p[4 * i] * p[4 * i + 1] * p[4 * i + 2] + p[4 * i + 3] for i in range(20)],
                                    rel=1e-15)
    assert tape.n_instructions >= 60  # two products and a sum per output, plus the inputs' loads
    assert tape.n_interpreted == 20
    assert tape.n_runs == 1
