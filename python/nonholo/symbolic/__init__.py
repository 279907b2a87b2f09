"""SymPy front end: lowering of expressions to C++ expression graphs."""

from .geometry import geometry_symbolic
from .lowering import SerializedGraph, check_free_symbols, lower

__all__ = ["SerializedGraph", "lower", "check_free_symbols", "geometry_symbolic"]
