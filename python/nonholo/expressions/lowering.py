"""Lowering of SymPy expressions to the C++ expression graph.

The expressions are walked once, bottom-up, with a memo keyed on the (hash-consed) SymPy
subexpressions, so shared subexpressions become shared nodes. Every node is one operation
of ``nonholo._core`` (``_core.op_codes()``); the C++ builder folds constants and merges equal
nodes again, and differentiates the graph when a system needs derivatives. No SymPy call
happens after lowering, and no compiler runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import sympy as sp

from .. import _core
from ..errors import ModelError
from .names import unique_nodes
from .parsing import to_sympy

_OPS = _core.op_codes()

_UNARY_FUNCTIONS = {
    sp.exp: "exp",
    sp.log: "log",
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.asin: "asin",
    sp.acos: "acos",
    sp.atan: "atan",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.asinh: "asinh",
    sp.acosh: "acosh",
    sp.atanh: "atanh",
    sp.Abs: "abs",
    sp.sign: "sign",
}

# Reciprocal functions, lowered as 1/f(x).
_RECIPROCALS = {sp.cot: "tan", sp.sec: "cos", sp.csc: "sin", sp.coth: "tanh", sp.sech: "cosh", sp.csch: "sinh"}


@dataclass
class SerializedGraph:
    """Nodes of an expression graph as flat arrays (the form C++ and pickle take)."""

    n_inputs: int
    ops: list = field(default_factory=list)
    a: list = field(default_factory=list)
    b: list = field(default_factory=list)
    n: list = field(default_factory=list)
    c: list = field(default_factory=list)
    outputs: list = field(default_factory=list)

    def to_core(self):
        return _core.make_graph(self.n_inputs, self.ops, self.a, self.b, self.n, self.c, self.outputs)

    def tape(self):
        return _core.Tape(self.to_core())


class _Lowerer:
    def __init__(self, inputs: Sequence[sp.Symbol]):
        self.graph = SerializedGraph(n_inputs=len(inputs))
        self.memo: dict = {}
        self.consts: dict = {}
        for i, s in enumerate(inputs):
            self.memo[s] = self._emit("input", a=i)

    def _emit(self, op, a=-1, b=-1, n=0, c=0.0):
        g = self.graph
        g.ops.append(_OPS[op])
        g.a.append(a)
        g.b.append(b)
        g.n.append(int(n))
        g.c.append(float(c))
        return len(g.ops) - 1

    def const(self, value: float) -> int:
        value = float(value)
        if value not in self.consts:
            self.consts[value] = self._emit("const", c=value)
        return self.consts[value]

    def lower(self, expr) -> int:
        expr = to_sympy(expr)
        # Iterative post-order walk: deep expressions must not hit Python's recursion limit.
        stack = [(expr, False)]
        while stack:
            e, ready = stack.pop()
            if e in self.memo:
                continue
            if ready or not e.args or e.is_Number or e.is_NumberSymbol:
                self.memo[e] = self._lower_node(e)
                continue
            _check_supported(e)
            stack.append((e, True))
            for arg in e.args:
                if arg not in self.memo:
                    stack.append((arg, False))
        return self.memo[expr]

    def _lower_node(self, e) -> int:
        if e.is_Symbol:
            raise ModelError(f"symbol {e} is neither a coordinate, a velocity, the time nor a parameter")
        if e is sp.I:
            raise ModelError("complex constant I in an expression; nonholo works in real arithmetic")
        if e.is_Number or e.is_NumberSymbol:
            value = float(e)
            if not math.isfinite(value):
                raise ModelError(f"non-finite constant {e} in an expression")
            return self.const(value)
        if e.is_Add:
            return self._lower_add(e)
        if e.is_Mul:
            return self._lower_mul(e)
        if e.is_Pow:
            return self._lower_pow(e.base, e.exp)
        func = e.func
        if func in _UNARY_FUNCTIONS:
            return self._emit(_UNARY_FUNCTIONS[func], a=self.memo[e.args[0]])
        if func in _RECIPROCALS:
            inner = self._emit(_RECIPROCALS[func], a=self.memo[e.args[0]])
            return self._emit("div", a=self.const(1.0), b=inner)
        if func is sp.atan2:
            return self._emit("atan2", a=self.memo[e.args[0]], b=self.memo[e.args[1]])
        if isinstance(e, sp.core.function.AppliedUndef):
            raise ModelError(f"undefined function {e} in an expression; use symbols for coordinates and parameters")
        _check_supported(e)

    def _sub_expr(self, e) -> int:
        if e in self.memo:
            return self.memo[e]
        return self.lower(e)

    def _lower_add(self, e) -> int:
        acc = None
        for term in e.args:
            coeff, _ = term.as_coeff_Mul()
            negative = coeff.is_Number and coeff < 0
            node = self._sub_expr(-term) if negative else self.memo[term]
            if acc is None:
                acc = self._emit("neg", a=node) if negative else node
            else:
                acc = self._emit("sub" if negative else "add", a=acc, b=node)
        return acc

    def _lower_mul(self, e) -> int:
        coeff, rest = e.as_coeff_Mul()
        if coeff == -1:
            return self._emit("neg", a=self._sub_expr(rest))
        numerator, denominator = [], []
        for f in e.args:
            if f.is_Pow and f.exp.is_Number and f.exp < 0:
                denominator.append(self._sub_expr(f.base ** (-f.exp)))
            elif f.is_Rational and not f.is_Integer and f.p == 1:
                denominator.append(self.const(f.q))
            else:
                numerator.append(self.memo[f] if f in self.memo else self._sub_expr(f))
        num = self._product(numerator) if numerator else self.const(1.0)
        if not denominator:
            return num
        return self._emit("div", a=num, b=self._product(denominator))

    def _product(self, nodes: list) -> int:
        acc = nodes[0]
        for node in nodes[1:]:
            acc = self._emit("mul", a=acc, b=node)
        return acc

    def _lower_pow(self, base, exponent) -> int:
        """base**exponent: an integer exponent by repeated products (``powi``, whose exponent is a
        32-bit integer: larger ones, x**(2**31), take the general ``pow`` with the exponent as a
        constant, the same value in doubles), a half by ``sqrt``, e**y by ``exp``."""
        b = self.memo[base] if base in self.memo else self._sub_expr(base)
        if exponent.is_Integer and abs(int(exponent)) <= MAX_POWI:
            k = int(exponent)
            if k < 0:
                return self._emit("div", a=self.const(1.0), b=self._emit("powi", a=b, n=-k))
            return self._emit("powi", a=b, n=k)
        if exponent == sp.Rational(1, 2):
            return self._emit("sqrt", a=b)
        if exponent == sp.Rational(-1, 2):
            return self._emit("div", a=self.const(1.0), b=self._emit("sqrt", a=b))
        if base == sp.E:
            return self._emit("exp", a=self._sub_expr(exponent))
        return self._emit("pow", a=b, b=self._sub_expr(exponent))


#: The largest |n| of the tape's integer power ``powi`` (a 32-bit integer in the core).
MAX_POWI = 2**31 - 1


SUPPORTED = ("+, *, powers, " + ", ".join(f.__name__ for f in (*_UNARY_FUNCTIONS, *_RECIPROCALS)) + ", atan2")


def _check_supported(e) -> None:
    """Reject an unsupported node before walking into its arguments (which may be booleans)."""
    if e.is_Add or e.is_Mul or e.is_Pow or e.func in _UNARY_FUNCTIONS or e.func in _RECIPROCALS or e.func is sp.atan2:
        return
    if isinstance(e, sp.core.function.AppliedUndef):
        raise ModelError(f"undefined function {e} in an expression; use symbols for coordinates and parameters")
    shown = str(e) if len(str(e)) <= 200 else str(e)[:197] + "..."
    raise ModelError(f"unsupported SymPy node {e.func.__name__} in expression {shown}: the expressions are compiled "
                     f"from {SUPPORTED} (a switch such as Piecewise, Heaviside, Max or Min has no derivative there: "
                     "write a smooth form, e.g. (1 + tanh(x / w)) / 2 for a step of width w)")


def lower(exprs: Iterable, inputs: Sequence[sp.Symbol]) -> SerializedGraph:
    """Serialized expression graph computing ``exprs`` from ``inputs`` (in that order)."""
    lowerer = _Lowerer(inputs)
    outputs = [lowerer.lower(e) for e in exprs]
    lowerer.graph.outputs = outputs
    return lowerer.graph


KEPT_TAPES = 64  # tapes an owner keeps by kept_tape (the oldest dropped first)


def kept_tape(owner, kind: str, key, build):
    """The tape ``build()`` makes, kept by ``owner`` (a System) under ``(kind, key)``: expressions that
    runs lower again and again (a symbolic event, a contact-force margin built inside a sweep's
    function) are lowered once per owner and key. At most KEPT_TAPES per kind, the oldest dropped.
    ``key`` must be hashable and equal exactly when the tapes would be (SymPy expressions are)."""
    cache = owner.__dict__.setdefault("_kept_tapes", {}).setdefault(kind, {})
    tape = cache.get(key)
    if tape is None:
        tape = build()
        if len(cache) >= KEPT_TAPES:
            cache.pop(next(iter(cache)), None)
        cache[key] = tape
    return tape


def matrix_entries(matrix) -> dict:
    """{row-major index: entry} of the entries of a SymPy matrix other than zero, in row-major order,
    read from its sparse representation: O(nonzeros), where ``list(matrix)`` visits all n^2 entries.
    Every index it leaves out holds ``S.Zero``."""
    cols = matrix.shape[1]
    return {i * cols + j: e for (i, j), e in sorted(matrix.todok().items())}


def nonzero_entries(matrix) -> list:
    """The entries of a SymPy matrix (or None: none) other than zero, row-major, in O(nonzeros)."""
    return [] if matrix is None else list(matrix_entries(matrix).values())


def lower_parts(parts: Iterable, inputs: Sequence[sp.Symbol], names: Sequence[str] | None = None) -> SerializedGraph:
    """The graph of :func:`lower` for the outputs ``parts`` spell out: each part a SymPy matrix
    (its entries in row-major order) or a scalar expression (one output). The same graph, node for
    node, as ``lower`` of the flat list of entries, at a cost in the nonzero entries: a zero
    entry is an output referring to the one constant node 0, which is emitted where ``lower``
    would emit it (at the first zero of the flat list), and SymPy is not visited for it. ``names``:
    the parts' names, which an error in one of them is prefixed with (``force: ...``)."""
    lowerer = _Lowerer(inputs)
    outputs: list = []
    for i, part in enumerate(parts):
        try:
            if isinstance(part, sp.MatrixBase):
                outputs += _lower_entries(lowerer, part.shape[0] * part.shape[1], matrix_entries(part))
            else:
                outputs.append(lowerer.lower(part))
        except ModelError as error:
            if names is None:
                raise
            raise ModelError(f"{names[i]}: {error}") from None
    lowerer.graph.outputs = outputs
    return lowerer.graph


def _lower_entries(lowerer: _Lowerer, size: int, entries: dict) -> list:
    """Output nodes of ``size`` row-major entries, those other than zero ``entries`` (in order)."""
    first_zero = 0
    while first_zero in entries:
        first_zero += 1
    nodes, zero = {}, None
    for index, expr in entries.items():
        if zero is None and index > first_zero:
            zero = lowerer.lower(sp.S.Zero)
        nodes[index] = lowerer.lower(expr)
    if first_zero == size:
        return list(nodes.values())
    if zero is None:
        zero = lowerer.lower(sp.S.Zero)
    outputs = [zero] * size
    for index, node in nodes.items():
        outputs[index] = node
    return outputs


def check_free_symbols(exprs: Iterable, allowed: set, what: str) -> None:
    """Raise ModelError naming every symbol of ``exprs`` outside ``allowed``, and those it may use (the
    names of ``allowed``: coordinates, velocities, the time, parameters, controls, as the caller allows
    them here)."""
    nodes = unique_nodes(exprs)  # once per shared subexpression, not per path to it
    unknown = {s for s in nodes if s.is_Symbol and s not in allowed}
    undefined = {f for f in nodes if isinstance(f, sp.core.function.AppliedUndef)}
    if undefined:
        raise ModelError(
            f"{what} contains undefined functions {sorted(map(str, undefined))}; "
            "write coordinates and parameters as symbols"
        )
    if unknown:
        names = ", ".join(sorted(str(s) for s in unknown))
        may = sorted(str(s) for s in allowed if isinstance(s, sp.Symbol))
        listed = ", ".join(may[:ALLOWED_LISTED]) + (f" and {len(may) - ALLOWED_LISTED} more"
                                                     if len(may) > ALLOWED_LISTED else "")
        raise ModelError(
            f"{what} contains symbols it may not depend on: {names} (it may use {listed or 'no symbol'}; a "
            "parameter of the system is declared with its parameters={symbol: value})"
        )


ALLOWED_LISTED = 24  # the symbols an error of check_free_symbols names as allowed, at most
