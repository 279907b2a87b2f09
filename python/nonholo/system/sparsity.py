"""Which linear algebra a system's nonholonomic and friction models use: dense, or sparse
(models/sparse.hpp: the nonzeros of G, A and mu only, a sparse L D L^T, a sparse Newton matrix)."""

from __future__ import annotations

import numpy as np

# The rule of sparse="auto". Below SPARSE_MIN_COORDINATES the dense factorizations cost less than
# the sparse ones' bookkeeping; above it, at a tenth of the entries or fewer, the dense path's n^3
# dominates (benchmarks/platoon_scaling.py: the platoon K = 30, n = 90, runs 10-100x faster sparse).
SPARSE_MIN_COORDINATES = 60
SPARSE_MAX_DENSITY = 0.1


def prefers_sparse(system) -> bool:
    """True for at least SPARSE_MIN_COORDINATES coordinates and at most SPARSE_MAX_DENSITY of the
    entries of G, A and mu nonzero (structurally, from the expressions)."""
    if system.n < SPARSE_MIN_COORDINATES:
        return False
    return system._core.sparse_density <= SPARSE_MAX_DENSITY


def sparse_choice(system, sparse) -> bool:
    """The ``sparse`` argument of the model factories: True, False or "auto" (prefers_sparse)."""
    if isinstance(sparse, str):
        if sparse != "auto":
            raise ValueError(f"sparse must be True, False or 'auto', got {sparse!r}")
        return prefers_sparse(system)
    if not isinstance(sparse, (bool, np.bool_)):
        raise TypeError(f"sparse must be True, False or 'auto', got {sparse!r}")
    return bool(sparse)
