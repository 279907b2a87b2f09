"""The integrate layer: running models with CVODES (and DOP853), events, results, dense output,
forward sensitivities, batches of runs and the discrete integrator."""

from .discrete import DiscreteResult, simulate_discrete
from .result import SimulationResult
from .simulation import Event, simulate, simulate_many

__all__ = ["simulate", "simulate_many", "Event", "SimulationResult", "simulate_discrete", "DiscreteResult"]
