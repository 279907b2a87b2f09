r"""The Heisenberg particle: the simplest sub-Riemannian geometry (Montgomery, *A Tour of
Subriemannian Geometries*, 2002, section 1.2; Brockett 1981).

A point (x, y, z) moves with z' = (x y' - y x') / 2: z is the signed area swept by the segment
from the origin to (x, y). The metric is

    g = dx^2 + dy^2 + theta^2,      theta = dz - (x dy - y dx) / 2,

so on the constraint distribution D = ker theta the kinetic energy is 1/2 (x'^2 + y'^2) and the
vakonomic trajectories are the sub-Riemannian geodesics; theta^2 only makes the metric of the
three coordinates regular (it vanishes on D).

Closed forms (Montgomery section 1.4): the geodesics project to circles (or lines) in the
plane and z grows by the area the circle encloses. From (0, 0, 0) to (0, 0, z1) the projection
is a full circle of area |z1|, so the length is ``2 sqrt(pi |z1|)`` (:func:`heisenberg_length`).
"""

from __future__ import annotations

import math

import sympy as sp

from ..system.system import System
from .arguments import real

__all__ = ["heisenberg", "heisenberg_length", "heisenberg_geodesic"]


def heisenberg(mass: float = 1.0) -> System:
    """The Heisenberg particle, coordinates (x, y, z), constraint z' = (x y' - y x') / 2.

    Parameter: ``mass`` (a scale of the kinetic energy; the geodesics do not depend on it).
    State order ``[x, y, z, x_dot, y_dot, z_dot]``.
    """
    mass = real(mass, "mass", positive=True)
    x, y, z = sp.symbols("x y z")
    m = sp.Symbol("mass", positive=True)
    theta = sp.Matrix([[y / 2, -x / 2, 1]])  # theta(q') = z' - (x y' - y x')/2
    planar = sp.diag(1, 1, 0)
    G = m * (planar + theta.T * theta)
    return System([x, y, z], G, constraints=theta, parameters={m: mass}, name="Heisenberg particle")


def heisenberg_length(z1: float) -> float:
    """Length of the sub-Riemannian geodesic from (0, 0, 0) to (0, 0, z1): a full circle of
    area |z1| in the plane, ``2 sqrt(pi |z1|)``."""
    return 2.0 * math.sqrt(math.pi * abs(z1))


def heisenberg_geodesic(z1: float, T: float, t, phase: float = 0.0):
    """The geodesic from (0, 0, 0) to (0, 0, z1) in time T at constant speed, as (x, y, z) at
    the times ``t``: the circle of radius R = sqrt(|z1| / pi) through the origin, traversed once
    (counterclockwise for z1 > 0), ``phase`` rotating it about the z axis."""
    import numpy as np

    t = np.asarray(t, dtype=float)
    R = math.sqrt(abs(z1) / math.pi)
    w = 2.0 * math.pi / T * (1.0 if z1 >= 0 else -1.0)
    x = R * (np.cos(w * t - math.pi) + 1.0)
    y = R * np.sin(w * t - math.pi)
    c, s = math.cos(phase), math.sin(phase)
    z = 0.5 * R**2 * (w * t - np.sin(w * t))
    return np.array([c * x - s * y, s * x + c * y, z])
