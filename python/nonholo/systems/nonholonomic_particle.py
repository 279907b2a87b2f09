r"""The nonholonomic particle z' = y x' (Bloch's example, in his Nonholonomic Mechanics and Control)."""

from __future__ import annotations

import sympy as sp

from ..system.frames import AnholonomicFrame
from ..system.system import System

__all__ = ["nonholonomic_particle"]


def nonholonomic_particle() -> tuple[System, AnholonomicFrame]:
    r"""A unit mass in R^3, L = (x'^2 + y'^2 + z'^2)/2, constraint z' - y x' = 0; returned with the
    frame X1 = d/dx + y d/dz, X2 = d/dy adapted to D (complement X3 = d/dz)."""
    x, y, z = sp.symbols("x y z")
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot")
    system = System([x, y, z], sp.eye(3), constraints=[[-y, 0, 1]], velocities=[xd, yd, zd],
                    name="nonholonomic particle")
    return system, AnholonomicFrame(system, sp.Matrix([[1, 0, 0], [0, 1, 0], [y, 0, 1]]))
