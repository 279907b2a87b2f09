"""Strings as expressions, parsed without evaluation.

``sympy.sympify`` turns a string into an expression by running it as Python (``eval``): a string
from a file or a web form could run any command. Every place nonholo takes an expression from
the user (``nh.Event("phi - 1")``, ``System(potential="m*g*y")``, matrices of strings, the
builders' parameters) goes through :func:`to_sympy`, which reads a string with Python's parser
(``ast.parse``, which runs nothing) and builds the SymPy expression from the tree itself, accepting
only plain arithmetic: numbers, names (symbols, matched by name like every symbol nonholo is
given; ``pi`` and ``oo`` are the constants, ``E`` and ``I`` symbols), ``+ - * / **`` (and ``^`` as
a power, as sympify reads it), and calls of the elementary
functions :data:`FUNCTIONS`. Anything else (attributes, subscripts, keywords, lambdas, unknown
functions) is refused with a ValueError that asks for a SymPy expression.
"""

from __future__ import annotations

import ast
import math

import numpy as np
import sympy as sp

__all__ = ["parse", "to_sympy", "plain", "FUNCTIONS"]

#: The functions a string may call, by the name SymPy gives them.
FUNCTIONS = {
    "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "cot": sp.cot, "sec": sp.sec, "csc": sp.csc,
    "asin": sp.asin, "acos": sp.acos, "atan": sp.atan, "atan2": sp.atan2, "acot": sp.acot,
    "sinh": sp.sinh, "cosh": sp.cosh, "tanh": sp.tanh, "asinh": sp.asinh, "acosh": sp.acosh, "atanh": sp.atanh,
    "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt, "cbrt": sp.cbrt, "Abs": sp.Abs, "sign": sp.sign,
    "floor": sp.floor, "ceiling": sp.ceiling, "Min": sp.Min, "Max": sp.Max, "Heaviside": sp.Heaviside,
    "erf": sp.erf, "abs": sp.Abs, "ln": sp.log}
#: The names a string reads as constants: pi and oo. ``E`` and ``I`` are symbols like any other name
#: (a modulus E, an inertia I: sympify's Euler number and imaginary unit made a parameter named E
#: silently e = 2.718, and ``"I*phi_dot"`` a complex constant); write ``exp(1)`` for e.
CONSTANTS = {"pi": sp.pi, "oo": sp.oo}
#: A power of two numbers is evaluated exactly by SymPy: an exponent beyond this would take
#: unbounded time and memory (``"9**9**9"``).
MAX_NUMERIC_EXPONENT = 4096
MAX_NUMERIC_DIGITS = 1e5  # nor one whose exact value has more digits than this (a nested power, "(9**4096)**4096")
_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.Pow: None}


class _Refused(ValueError):
    pass


def _power(base, exponent):
    if base.is_Number and exponent.is_Number:
        if abs(exponent) > MAX_NUMERIC_EXPONENT:
            raise _Refused(f"the power of two numbers with the exponent {exponent} is too large to evaluate")
        if _digits(base) * abs(float(exponent)) > MAX_NUMERIC_DIGITS:  # "(9**4096)**4096": 16 million digits
            raise _Refused(f"the power of two numbers with the exponent {exponent} is too large to evaluate (about "
                           f"{_digits(base) * abs(float(exponent)):.3g} digits)")
    return base ** exponent


def _digits(number) -> float:
    """About the decimal digits of a SymPy number's numerator and denominator (0 for a float's, which has no
    exact power to grow)."""
    if not number.is_Rational:
        return 0.0
    return 0.30103 * (abs(int(number.p)).bit_length() + int(number.q).bit_length())


def _build(node):
    if isinstance(node, ast.Expression):
        return _build(node.body)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _build(node.left), _build(node.right)
        operation = _BINARY[type(node.op)]
        return _power(left, right) if operation is None else operation(left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _build(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        if isinstance(node.value, float):
            if not math.isfinite(node.value):
                raise _Refused(f"the number {node.value!r} is not finite")
            return sp.Float(node.value)
        return sp.Integer(node.value)
    if isinstance(node, ast.Name):
        return CONSTANTS.get(node.id) or sp.Symbol(node.id)
    if isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in FUNCTIONS:
            raise _Refused(f"it calls {ast.unparse(node.func)}, which is not one of the functions a string may "
                           f"use ({', '.join(sorted(FUNCTIONS))})")
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise _Refused(f"the call of {name} has keyword or starred arguments")
        return FUNCTIONS[name](*(_build(a) for a in node.args))
    what = type(node).__name__
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        what = f"the operator {type(node.op).__name__}"
    elif isinstance(node, ast.Constant):
        what = f"the constant {node.value!r}"
    raise _Refused(f"it contains {what} ({ast.unparse(node)!r}), which is not plain arithmetic")


def parse(text: str, argument: str = "expression") -> sp.Expr:
    """The SymPy expression a string ``text`` writes, built from Python's syntax tree without
    evaluating anything; ValueError naming ``argument`` for anything but plain arithmetic of
    numbers, names and the functions :data:`FUNCTIONS`."""
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")  # ^ is a power, as sympify reads it
        return _build(tree)
    except (SyntaxError, _Refused, RecursionError, MemoryError, TypeError, ValueError) as error:
        reason = f"it is not a Python expression ({error.msg})" if isinstance(error, SyntaxError) else \
            str(error) or type(error).__name__
        shown = text if len(text) <= 200 else text[:200] + "..."
        raise ValueError(
            f"{argument}: the string {shown!r} is refused: {reason}. nonholo reads strings without evaluating "
            "them (numbers, names, + - * / ** and elementary functions such as sin, exp, sqrt); pass a SymPy "
            "expression instead, e.g. sympy.Symbol('phi') - 1") from None


def plain(obj, argument: str = "expression"):
    """``obj`` with every string in it (nested lists and tuples, object arrays) parsed by
    :func:`parse`; other entries are left as they are (for ``sympy.Matrix`` to convert)."""
    if isinstance(obj, str):
        return parse(obj, argument)
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain(item, argument) for item in obj)
    if isinstance(obj, np.ndarray) and obj.dtype.kind in "OUS":
        return [plain(item, argument) for item in obj.tolist()]
    return obj


def to_sympy(obj, argument: str = "expression"):
    """``sympy.sympify(obj)`` without evaluating strings: a string is parsed by :func:`parse`, a
    list or tuple entry by entry, anything else converted by ``sympify(strict=True)`` (numbers,
    SymPy objects, objects with ``_sympy_``); TypeError naming ``argument`` for what is none of them."""
    if isinstance(obj, sp.Basic):
        return obj
    if isinstance(obj, str):
        return parse(obj, argument)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_sympy(item, argument) for item in obj)
    if isinstance(obj, np.floating) and not isinstance(obj, float):  # SymPy takes a float32 NaN for a ratio
        obj = float(obj)
    try:
        return sp.sympify(plain(obj, argument), strict=True)
    except sp.SympifyError:
        raise TypeError(f"{argument} must be a SymPy expression or a number, got {type(obj).__name__} "
                        f"{obj!r:.200}") from None
