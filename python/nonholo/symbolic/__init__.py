"""SymPy front end: lowering of expressions to C++ expression graphs."""

from .lowering import SerializedGraph, check_free_symbols, lower

__all__ = ["SerializedGraph", "lower", "check_free_symbols"]
