"""Bounded simplification of derived matrices: SymPy's ``simplify`` of every entry grows without
bound with the size of the expressions (71 s for the metric of the knife-edge chain's kinematics at
N = 4, 73 s for the Voronets frame at N = 6); the tapes evaluate any form of an expression to
rounding, so only the small entries, where simplify is cheap and shortens what is displayed, are
simplified."""

from __future__ import annotations

import sympy as sp

__all__ = ["simplified", "SIMPLIFY_OPS"]

SIMPLIFY_OPS = 20  # entries with at most this many operations are simplified


def simplified(M: sp.Matrix, ops: int = SIMPLIFY_OPS) -> sp.Matrix:
    """``M`` with its entries of at most ``ops`` operations simplified and the others as they are."""
    return M.applyfunc(lambda e: sp.simplify(e) if sp.count_ops(e) <= ops else e)
