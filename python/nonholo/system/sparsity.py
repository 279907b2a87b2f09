"""Which linear algebra a system's nonholonomic and friction models use: dense, or sparse
(models/sparse_backend.hpp: the nonzeros of G, A and mu only, a sparse L D L^T, a sparse Newton matrix)."""

from __future__ import annotations

import numpy as np

from .. import _core

# The rule of sparse="auto": sparse from 20 coordinates at 12% of the entries or fewer; measured on
# the platoon and the knife-edge chain (the numbers: cpp/include/nonholo/cost_constants.hpp, where
# every fitted constant lives).
SPARSE_MIN_COORDINATES = int(_core.cost_constants()["sparse_min_coordinates"])
SPARSE_MAX_DENSITY = _core.cost_constants()["sparse_max_density"]


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
