"""The System layer: a mechanical system defined in SymPy (metric, potential, constraints, forces)
and the frames of its velocity space. Models are built from it (``system.nonholonomic()``, ...)."""

from .frames import AnholonomicFrame, voronets_frame, voronets_split
from .margins import Margin
from .system import System

__all__ = ["System", "AnholonomicFrame", "voronets_frame", "voronets_split", "Margin"]
