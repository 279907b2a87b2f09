"""Built-in systems, each an ordinary :class:`~nonholo.System` defined in SymPy.

Every factory takes the physical parameters as defaults of runtime parameters, so the same
compiled system serves a sweep over them (``simulate(..., params={...})``).

A factory defined in a module of its own name hides that module: ``nh.systems.polar_disk`` is the
function. Import a module's other names from the module itself, as in
``from nonholo.systems.whipple_bicycle import upright_state``. The closed forms used as test
references are modules, imported when first named: ``nh.systems.disk_exact`` (it needs SciPy) and
``nh.systems.ball_on_turntable_exact``.
"""

import importlib as _importlib

from .ball_on_turntable import ball_on_turntable
from .ball_on_turntable_kane import ball_on_turntable_kane
from .chaplygin_ball import chaplygin_ball
from .chaplygin_sleigh import chaplygin_sleigh
from .damped_mass_pair import damped_mass_pair
from .differential_drive import differential_drive
from .heisenberg import heisenberg
from .inclined_knife_edge import inclined_knife_edge
from .kinematic_car import kinematic_car, kinematic_car_trailers
from .knife_edge_chain import knife_edge_chain
from .noncompact_counterexample import noncompact_counterexample
from .nonholonomic_particle import nonholonomic_particle
from .platoon import platoon
from .planar_particle import planar_particle, realized_pendulum
from .polar_disk import polar_disk
from .rattleback import rattleback
from .rolling_disc import rolling_disc
from .single_track_car import single_track_car
from .snakeboard import snakeboard
from .tippe_top import tippe_top
from .vertical_rolling_disk import vertical_rolling_disk
from .whipple_bicycle import whipple_bicycle, whipple_bicycle_kane
from .whipple_bicycle_linear import whipple_bicycle_linear

__all__ = ["ball_on_turntable", "ball_on_turntable_kane", "chaplygin_ball", "chaplygin_sleigh", "damped_mass_pair",
           "differential_drive", "heisenberg", "inclined_knife_edge",
           "kinematic_car", "kinematic_car_trailers", "knife_edge_chain", "noncompact_counterexample",
           "nonholonomic_particle", "planar_particle",
           "platoon", "polar_disk", "realized_pendulum", "rattleback", "rolling_disc", "single_track_car", "snakeboard",
           "tippe_top", "vertical_rolling_disk", "whipple_bicycle", "whipple_bicycle_kane",
           "whipple_bicycle_linear"]

# closed-form references (modules, not factories): imported on first use, so that ``import nonholo``
# needs no SciPy (disk_exact uses scipy.linalg.expm)
_REFERENCE_MODULES = ("ball_on_turntable_exact", "disk_exact")


def __getattr__(name: str):
    if name in _REFERENCE_MODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
