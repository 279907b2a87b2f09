"""nonholo: nonholonomic, vakonomic and friction-realized mechanics.

Define a system in SymPy (or take a built-in one), build a model, simulate it with CVODE::

    import nonholo as nh
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    sol = nh.simulate(sleigh.nonholonomic(), (0, 20), [0, 0, 0, -1.5, 0, 1])

The numerics run in C++ (expression tapes with automatic differentiation, SUNDIALS CVODE).
"""

from . import _core, bodies, contact, drawing, frames, plot, studies, surfaces, systems
from .bvp import ShootingError, vakonomic_bvp
from .discrete import DiscreteModel, DiscreteResult, simulate_discrete
from .errors import IntegrationError, ModelError, NonholoError, SimulationWarning
from .fit import FitResult, fit
from .model import FrameModel, Model, ModelProtocol
from .reduced import ReducedModel
from .result import SimulationResult
from ._simulate import Event, simulate, simulate_many
from ._sweep import SweepResult, sweep
from .stability import (CriticalValue, EigenvaluePath, Linearization, SteadyMotion, SteadyMotionError, critical_values,
                        eigenvalue_path, linearize, steady_motions)
from .system import System

__version__ = getattr(_core, "__version__", "0.0.0")

__all__ = [
    "System", "Model", "SimulationResult", "Event", "simulate", "simulate_many", "systems", "studies", "plot",
    "bodies", "contact", "drawing", "surfaces",
    "ModelError", "IntegrationError", "SimulationWarning", "__version__",
    "DiscreteModel", "DiscreteResult", "simulate_discrete", "sweep", "SweepResult",
    "ModelProtocol", "ReducedModel", "FrameModel", "NonholoError", "frames",
    "fit", "FitResult", "vakonomic_bvp", "ShootingError",
    "linearize", "Linearization", "steady_motions", "SteadyMotion", "SteadyMotionError", "eigenvalue_path",
    "EigenvaluePath", "critical_values", "CriticalValue",
]


def __getattr__(name: str):
    # the sleigh's own modules moved into nonholo.systems.chaplygin_sleigh; the old attributes
    # stay reachable (importing the old module emits the DeprecationWarning)
    if name in ("sleigh_frames", "discrete_sleigh"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
