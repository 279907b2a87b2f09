"""The analysis layer, built on runs: stability of steady motions, parameter fits, vakonomic
two-point problems, convergence studies of the reduced models, parameter sweeps and the car's
shortest paths (Reeds-Shepp, Dubins)."""

from . import stability, studies
from .car_paths import CarPath, dubins_length, dubins_path, reeds_shepp_length, reeds_shepp_path
from .bvp import ShootingError, vakonomic_bvp
from .fitting import FitResult, fit
from .sweeps import SweepResult, sweep

__all__ = ["stability", "studies", "fit", "FitResult", "vakonomic_bvp", "ShootingError", "sweep", "SweepResult",
           "CarPath", "reeds_shepp_length", "reeds_shepp_path", "dubins_length", "dubins_path"]
