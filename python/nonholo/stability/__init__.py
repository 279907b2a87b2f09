"""Stability of steady motions: linearization on the constraint manifold, steady motions,
eigenvalues along a parameter and their critical values."""

from .linearize import Linearization, linearize
from .zero_modes import ZeroMode

__all__ = ["Linearization", "linearize", "ZeroMode"]
