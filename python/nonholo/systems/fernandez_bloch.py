r"""The Fernandez-Bloch Lagrangian of the vertical rolling disk (Mestdag-Crampin 2010, Prop. 2).

The criterion of Mestdag-Crampin applied in the disk's Voronets frame with the section
phi = m (x', y') (= dL/ds'^a, extended off the constraint set) gives a Lagrangian Ltilde whose
unconstrained Euler-Lagrange equations contain the nonholonomic motions. Ltilde is regular but
indefinite.
"""

from __future__ import annotations

from ..system.frames import AnholonomicFrame
from ..system.system import System

__all__ = ["fernandez_bloch"]


def fernandez_bloch(frame: AnholonomicFrame):
    """(criterion result, Ltilde as a System) for a vertical rolling disk's frame (state order
    of :func:`vertical_rolling_disk`, parameter ``m``)."""
    system = frame.system
    m = next((s for s in system.parameters if s.name == "m"), None)
    if m is None or system.n != 4:
        raise ValueError("frame must belong to a vertical rolling disk (4 coordinates, a parameter 'm')")
    result = frame.criterion([m * system.velocities[1], m * system.velocities[2]])
    lagrangian = System.from_lagrangian(result.lagrangian, system.coordinates, system.velocities,
                                        parameters=system.parameters, indefinite_metric=True,
                                        name="Fernandez-Bloch")
    return result, lagrangian
