"""The models layer: the vector fields a System defines (nonholonomic, vakonomic, friction, Hamel
and frame-vakonomic in a frame of D, the reduced slow-manifold models) and the discrete midpoint
integrator. Each is a compiled C++ model that the integrate layer runs."""

from .discrete import DiscreteModel
from .model import FrameModel, Model, ModelProtocol
from .reduced import ReducedModel

__all__ = ["Model", "FrameModel", "ModelProtocol", "ReducedModel", "DiscreteModel"]
