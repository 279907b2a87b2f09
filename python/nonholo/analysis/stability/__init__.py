"""Stability of steady motions: linearization on the constraint manifold, steady motions,
eigenvalues along a parameter and their critical values."""

from .eigenpath import CriticalValue, EigenvaluePath, critical_values, eigenvalue_path
from .linearize import Linearization, linearize, tangent_space
from .steady import SteadyMotion, SteadyMotionError, steady_motions
from .zero_modes import ZeroMode

__all__ = ["Linearization", "linearize", "tangent_space", "ZeroMode", "SteadyMotion", "SteadyMotionError",
           "steady_motions", "EigenvaluePath", "CriticalValue", "eigenvalue_path", "critical_values"]
