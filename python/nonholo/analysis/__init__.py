"""The analysis layer, built on runs: stability of steady motions, parameter fits, vakonomic
two-point problems, convergence studies of the reduced models and parameter sweeps."""

from . import stability, studies
from .bvp import ShootingError, vakonomic_bvp
from .fitting import FitResult, fit
from .sweeps import SweepResult, sweep

__all__ = ["stability", "studies", "fit", "FitResult", "vakonomic_bvp", "ShootingError", "sweep", "SweepResult"]
