"""nonholo: nonholonomic, vakonomic and friction-realized mechanics.

Define a system in SymPy (or take a built-in one), build a model, simulate it with CVODE::

    import nonholo as nh
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    sol = nh.simulate(sleigh.nonholonomic(), (0, 20), [0, 0, 0, -1.5, 0, 1])

The numerics run in C++ (expression tapes with automatic differentiation, SUNDIALS CVODES).
The package's folders are its layers, each importing only those before it:
``errors`` -> ``expressions`` -> ``system`` -> ``models`` -> ``integrate`` -> ``analysis``, with
``builders`` (bodies, contact, multibody) and ``viz`` (drawing, animation, plot) beside them,
``systems`` (the built-in systems) on top and ``testing`` apart.
"""

import sys as _sys
from functools import partial as _partial

from . import _core, systems
from .analysis import stability, studies
from .analysis.bvp import ShootingError, vakonomic_bvp
from .analysis.fitting import FitResult, fit
from .analysis.stability import (CriticalValue, EigenvaluePath, Linearization, SteadyMotion, SteadyMotionError,
                                 critical_values, eigenvalue_path, linearize, steady_motions)
from .analysis.sweeps import SweepResult, sweep
from .control import KinematicSystem, OptimalControlProblem, OptimalControlSolution, TrackingResult
from .builders import bodies, contact, multibody, surfaces
from .expressions import laws
from .errors import (IntegrationError, ModelError, NonholoError, OptimalControlError, SimulationWarning, SweepError,
                     SweepWarning)
from .integrate import DiscreteResult, Event, SimulationResult, simulate, simulate_discrete, simulate_many
from .models import DiscreteModel, FrameModel, Model, ModelProtocol, ReducedModel
from .system import System, frames
from .system.margins import Margin
from .viz import drawing, plot

__version__ = getattr(_core, "__version__", "0.0.0")

# The public namespaces keep their short import paths (``from nonholo.contact import roll_on_plane``)
# whichever layer holds them.
# Completion in IPython and Jupyter (dir) lists their public names, not their imports (np, annotations).
for _name in ("bodies", "contact", "drawing", "frames", "laws", "multibody", "plot", "stability", "studies",
              "surfaces", "systems"):
    _sys.modules[f"{__name__}.{_name}"] = globals()[_name]
    if hasattr(globals()[_name], "__all__"):
        globals()[_name].__dir__ = _partial(sorted, globals()[_name].__all__)
del _name

__all__ = [
    "System", "Model", "SimulationResult", "Event", "simulate", "simulate_many", "systems", "studies", "plot",
    "bodies", "contact", "drawing", "surfaces", "multibody", "stability",
    "ModelError", "IntegrationError", "SimulationWarning", "__version__",
    "DiscreteModel", "DiscreteResult", "simulate_discrete", "sweep", "SweepResult", "SweepError",
    "SweepWarning",
    "ModelProtocol", "ReducedModel", "FrameModel", "NonholoError", "frames",
    "fit", "FitResult", "vakonomic_bvp", "ShootingError",
    "linearize", "Linearization", "steady_motions", "SteadyMotion", "SteadyMotionError", "eigenvalue_path",
    "EigenvaluePath", "critical_values", "CriticalValue", "laws", "Margin",
    "OptimalControlProblem", "OptimalControlSolution", "OptimalControlError", "KinematicSystem", "TrackingResult",
]
