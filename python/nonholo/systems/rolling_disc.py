r"""A thin disc (or hoop) rolling without slipping on a horizontal plane, free to lean and
turn: the rolling disc in 3-D.

Built on :func:`~nonholo.contact.roll_on_plane` with a :class:`~nonholo.surfaces.Disc` whose
axis is the body y axis. Closed form (linearization about upright rolling at spin omega about
the axis; e.g. Neimark and Fufaev, "Dynamics of Nonholonomic Systems", ch. II; O'Reilly,
Nonlinear Dyn. 10 (1996) 287): with A the diametral and C the polar moment about the centre,
the lean theta obeys

    (A + m r^2) theta'' = -[C (C + m r^2) omega^2 / A - m g r] theta,

so upright rolling is stable iff omega^2 > m g r A / (C (C + m r^2)) (g/(3 r) for a uniform
disc, g/(4 r) for a hoop), and the lean then oscillates at the angular frequency
sqrt([C (C + m r^2) omega^2 / A - m g r] / (A + m r^2))."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..builders.bodies import RigidBody, rotation_matrices
from ..builders.contact import Disc, roll_on_plane
from ..viz.drawing import rigid_body
from ..system.system import System
from .arguments import finite_product, number_or_symbol

__all__ = ["rolling_disc", "upright_critical_spin", "lean_frequency", "Lean"]


def rolling_disc(m: float = 1.0, r: float = 1.0, A: float | None = None, C: float | None = None,
                 g: float = 9.81) -> System:
    """The rolling disc; A, C default to the uniform thin disc's m r^2 / 4 and m r^2 / 2 at the
    m and r given here. Runtime parameters m, r, A, C, g (A and C are numbers of their own: a run
    with params={"r": 2} keeps the inertias of the r built with, not a uniform disc of radius 2;
    build rolling_disc(r=2) for that, or pass A and C too); outputs ``lean`` (the axis' elevation, the tilt of the
    disc's plane from the vertical, radians) and ``heading`` (the direction of the rolling path,
    unwrapped), as :func:`~nonholo.contact.roll_on_plane` gives them for a disc."""
    m, r = number_or_symbol(m, "m", positive=True), number_or_symbol(r, "r", positive=True, why="the disc's radius")
    A, C = (None if v is None else number_or_symbol(v, name, positive=True) for v, name in ((A, "A"), (C, "C")))
    g = number_or_symbol(g, "g")
    m_, r_, A_, C_, g_ = sp.symbols("m r A C g")
    body = RigidBody(m_, (A_, C_, A_))
    A = finite_product(m * r * r / 4, "m and r", "A = m r^2 / 4") if A is None else A
    C = finite_product(m * r * r / 2, "m and r", "C = m r^2 / 2") if C is None else C
    values = {m_: m, r_: r, A_: A, C_: C, g_: g}
    system = roll_on_plane(body, Disc(r_, axis=(0, 1, 0)), gravity=g_, parameters=values, name="rolling disc")
    system.drawing = rigid_body(system.pose, shape="disc", radius="r")  # the disc's axle is the body y axis
    return system


class Lean:
    """The lean angle asin((R e_y)_z): the elevation of the disc's axis (0 when upright); the
    ``lean`` output of :func:`~nonholo.contact.roll_on_plane` for a disc gives the same."""

    def __call__(self, q, v, params) -> np.ndarray:
        return np.arcsin(np.clip(rotation_matrices(q[2:6])[:, 2, 1], -1.0, 1.0))


def upright_critical_spin(m: float, r: float, A: float, C: float, g: float) -> float:
    """omega_c = sqrt(m g r A / (C (C + m r^2))): upright rolling is stable above it."""
    return float(np.sqrt(m * g * r * A / (C * (C + m * r**2))))


def lean_frequency(omega: float, m: float, r: float, A: float, C: float, g: float) -> float:
    """Angular frequency of small lean oscillations about upright rolling at spin omega > omega_c."""
    return float(np.sqrt((C * (C + m * r**2) * omega**2 / A - m * g * r) / (A + m * r**2)))
