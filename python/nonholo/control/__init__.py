"""Optimal control: kinematic control systems, direct collocation, IPOPT (in C++)."""

from .kinematic import KinematicSystem
from .problem import OptimalControlProblem
from .solution import OptimalControlSolution
from .tracking import TrackingResult

__all__ = ["KinematicSystem", "OptimalControlProblem", "OptimalControlSolution", "TrackingResult"]
