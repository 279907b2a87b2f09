"""The expressions layer: SymPy lowered to C++ expression tapes (automatic differentiation), the
symbolic geometry and slow-manifold expansion, the sympy.physics.mechanics importer and the
compilation of tapes to native code."""

from .geometry import geometry_symbolic
from .lowering import SerializedGraph, check_free_symbols, lower

__all__ = ["SerializedGraph", "lower", "check_free_symbols", "geometry_symbolic"]
