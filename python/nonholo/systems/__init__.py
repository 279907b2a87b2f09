"""Built-in systems, each an ordinary :class:`~nonholo.System` defined in SymPy.

Every factory takes the physical parameters as defaults of runtime parameters, so the same
compiled system serves a sweep over them (``simulate(..., params={...})``).
"""

from .ball_on_turntable import ball_on_turntable
from .ball_on_turntable_kane import ball_on_turntable_kane
from .chaplygin_ball import chaplygin_ball
from .chaplygin_sleigh import chaplygin_sleigh
from .differential_drive import differential_drive
from .heisenberg import heisenberg
from .inclined_knife_edge import inclined_knife_edge
from .kinematic_car import kinematic_car, kinematic_car_trailers
from .knife_edge_chain import knife_edge_chain
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

__all__ = ["ball_on_turntable", "ball_on_turntable_kane", "chaplygin_ball", "chaplygin_sleigh", "differential_drive",
           "heisenberg", "inclined_knife_edge",
           "kinematic_car", "kinematic_car_trailers", "knife_edge_chain", "nonholonomic_particle", "planar_particle",
           "platoon", "polar_disk", "realized_pendulum", "rattleback", "rolling_disc", "single_track_car", "snakeboard",
           "tippe_top", "vertical_rolling_disk", "whipple_bicycle", "whipple_bicycle_kane",
           "whipple_bicycle_linear"]
