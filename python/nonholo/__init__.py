"""nonholo: nonholonomic, vakonomic and friction-realized mechanics.

Define a system in SymPy (or take a built-in one), build a model, simulate it with CVODE::

    import nonholo as nh
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    sol = nh.simulate(sleigh.nonholonomic(), (0, 20), [0, 0, 0, -1.5, 0, 1])

The numerics run in C++ (expression tapes with automatic differentiation, SUNDIALS CVODE).
"""

from . import _core, bodies, contact, frames, plot, sleigh_frames, studies, surfaces, systems
from .discrete import DiscreteModel, DiscreteResult, simulate_discrete
from .errors import IntegrationError, ModelError, SimulationWarning
from .model import Model
from .result import SimulationResult
from .simulate import Event, simulate, simulate_many
from .stability import (CriticalValue, EigenvaluePath, Linearization, SteadyMotion, SteadyMotionError, critical_values,
                        eigenvalue_path, linearize, steady_motions)
from .sweep import SweepResult, sweep
from .system import System

__version__ = getattr(_core, "__version__", "0.0.0")

__all__ = [
    "System", "Model", "SimulationResult", "Event", "simulate", "simulate_many", "systems", "studies", "plot",
    "bodies", "contact", "surfaces",
    "ModelError", "IntegrationError", "SimulationWarning", "__version__",
    "DiscreteModel", "DiscreteResult", "simulate_discrete", "sweep", "SweepResult",
    "linearize", "Linearization", "steady_motions", "SteadyMotion", "SteadyMotionError", "eigenvalue_path",
    "EigenvaluePath", "critical_values", "CriticalValue",
]
