"""Symbols by name: where a name the user gives meets the system's symbols.

SymPy tells ``Symbol("m")`` and ``Symbol("m", positive=True)`` apart: they are different symbols,
and an expression in one does not contain the other. nonholo lets every symbol be given by
its name (parameters, events, sensitivities, ...), so a system holds one symbol per name, and a
name (or a symbol of that name with other assumptions) means the system's symbol of that name.
:class:`SymbolTable` collects the symbols of a system and refuses two different symbols of one
name; :func:`resolve` rewrites an expression in the system's symbols.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import sympy as sp

from ..errors import ModelError
from .parsing import to_sympy

__all__ = ["SymbolTable", "describe", "expression_symbols", "resolve"]


def describe(symbol: sp.Symbol) -> str:
    """``m (positive=True)``, or ``m (no assumptions)``: a symbol with the assumptions it was made with."""
    given = getattr(symbol, "_assumptions_orig", None)
    if given is None:
        given = {k: v for k, v in symbol.assumptions0.items() if k != "commutative"}
    given = {k: v for k, v in given.items() if k != "commutative"}
    detail = ", ".join(f"{k}={v}" for k, v in sorted(given.items())) or "no assumptions"
    return f"{symbol.name} ({detail})"


def unique_nodes(exprs: Iterable) -> set:
    """Every distinct node of the trees of ``exprs`` (SymPy caches hashes, so subtrees shared within
    and between the large expressions of mechanics are visited once, where ``free_symbols`` visits
    every path to them)."""
    seen, stack = set(), [to_sympy(e) for e in exprs]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.args)
    return seen


def expression_symbols(exprs: Iterable) -> set:
    """The symbols of ``exprs``, each shared subexpression visited once (:func:`unique_nodes`)."""
    return {node for node in unique_nodes(exprs) if node.is_Symbol}


class SymbolTable:
    """The symbols of one system by name, with where each was first seen (for the messages)."""

    def __init__(self):
        self.symbols: dict = {}
        self.where: dict = {}

    def add(self, symbol: sp.Symbol, where: str) -> None:
        """Record ``symbol``; ModelError when another symbol of the same name was recorded."""
        known = self.symbols.get(symbol.name)
        if known is None:
            self.symbols[symbol.name] = symbol
            self.where[symbol.name] = where
        elif known != symbol:
            raise ModelError(
                f"two different symbols are named {symbol.name!r}: {describe(known)} in {self.where[symbol.name]} "
                f"and {describe(symbol)} in {where}. SymPy treats them as different symbols; nonholo matches symbols "
                "by name, so a system needs one symbol per name (create it once, with the same assumptions, and use "
                "it everywhere)")

    def add_all(self, symbols: Iterable, where: str) -> None:
        for s in symbols:
            self.add(s, where)

    def get(self, name: str, default=None):
        return self.symbols.get(name, default)

    def __contains__(self, name: str) -> bool:
        return name in self.symbols


#: The assumptions SymPy simplifies under (Abs(k) -> k for a positive k, (-1)**n for an even n)
FACTS = ("positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero", "integer", "even", "odd")


def assumed(symbol) -> list:
    """The FACTS ``symbol`` is declared with (or that follow from its declaration)."""
    return [f for f in FACTS if getattr(symbol, f"is_{f}") is True]


def resolve(expr, symbols: Mapping):
    """``expr`` with every symbol replaced by the symbol of the same name in ``symbols``
    ({name: symbol}), whatever its assumptions; symbols of other names are kept. ModelError where the
    expression's symbol assumes more than the one it stands for (positive for a real parameter): SymPy has
    simplified the expression under that (an outside probe's -Abs(k) x' with k positive, given to a system
    whose k is real, pushed at k = -0.7), which the system's values need not meet."""
    expr = to_sympy(expr)
    rule = {s: symbols[s.name] for s in expression_symbols([expr]) if s.name in symbols and symbols[s.name] != s}
    for given, target in rule.items():
        more = [f for f in assumed(given) if f not in assumed(target)]
        if more:
            raise ModelError(f"{given.name} in the expression is {describe(given)}, but the system's {given.name} is "
                             f"{describe(target)}, which is not {' or '.join(more)}: SymPy simplified the expression "
                             f"under those assumptions (Abs({given.name}) -> {given.name}), which the system's values "
                             f"need not meet; write it with the system's symbol (system.symbol({given.name!r})) or "
                             "declare the parameter with the same assumptions")
    return expr.xreplace(rule) if rule else expr
