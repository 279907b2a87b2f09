"""Which linear algebra a system's nonholonomic and friction models use: dense, or sparse
(models/sparse_backend.hpp: the nonzeros of G, A and mu only, a sparse L D L^T, a sparse Newton matrix)."""

from __future__ import annotations

import numpy as np

# The rule of sparse="auto", from the platoon (block-diagonal G and A; t in [0, 2], rtol 1e-8, medians
# of 7 runs, loaded 2-core machine), dense time over sparse time: n = 6, 9, 15, 21 (density 0.39, 0.26,
# 0.15, 0.11): nonholonomic 1.08, 1.17, 1.41, 3.2; friction (eps 1e-4, BDF) 0.59, 0.62, 0.86, 1.18;
# n = 30: 2.1 and 3.1; n = 60: 10 and 6.6. The knife-edge chain N = 8 (n = 10, density 0.56) runs
# dense 1.3-1.9x faster. So: sparse from 20 coordinates at 12% of the entries or fewer.
SPARSE_MIN_COORDINATES = 20
SPARSE_MAX_DENSITY = 0.12


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
