r"""A knife edge (the balanced Chaplygin sleigh, a = 0) on an inclined plane, and its closed form.

Not in the papers: nonholo's long-run test system for the discrete integrator (Fedorov-Zenkov
2005 comparison), chosen because its motion never settles and it is solvable in closed form.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import sympy as sp

from ..system.system import System
from .arguments import real

__all__ = ["inclined_knife_edge", "knife_edge_closed_form", "knife_edge_energy"]


def inclined_knife_edge(m: float = 1.0, J: float = 1.0, g: float = 1.0) -> System:
    r"""L = m/2 (x'^2 + y'^2) + J/2 phi'^2 - m g x, blade constraint -x' sin(phi) + y' cos(phi) = 0.

    ``g`` is gravity along the slope (g sin(incline)), downhill = -x. phi' is constant and the
    motion never settles; the energy is conserved. Parameters m, J, g; state order
    ``[x, y, phi, x_dot, y_dot, phi_dot]`` (that of :func:`chaplygin_sleigh`).
    """
    m, J = real(m, "m", positive=True), real(J, "J", positive=True)
    g = real(g, "g", why="gravity along the slope")
    x, y, phi = sp.symbols("x y phi")
    m_, J_ = sp.symbols("m J", positive=True)
    g_ = sp.Symbol("g", real=True)  # either sign: down or up the slope
    return System([x, y, phi], sp.diag(m_, m_, J_), potential=m_ * g_ * x,
                  constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                  parameters={m_: m, J_: J, g_: g}, name="knife edge on an inclined plane")


def knife_edge_closed_form(t: npt.ArrayLike, u0: float = 1.0, omega: float = 1.0, g: float = 1.0) -> np.ndarray:
    r"""(x, y, phi) at t, shape (3, n), from the origin with phi(0) = 0, forward speed u0 and
    turning rate omega != 0: phi = omega t, u = u0 - (g/omega) sin(omega t), x' = u cos(phi),
    y' = u sin(phi), integrated in closed form."""
    if omega == 0:
        raise ValueError("omega must be nonzero (omega = 0 is the straight slide, not this closed form)")
    t = np.asarray(t, float)
    s = omega * t
    x = u0 / omega * np.sin(s) - g / (2 * omega**2) * np.sin(s) ** 2
    y = u0 / omega * (1 - np.cos(s)) - g / omega * (t / 2 - np.sin(2 * s) / (4 * omega))
    return np.array([x, y, s])


def knife_edge_energy(result, m: float = 1.0, J: float = 1.0, g: float = 1.0) -> np.ndarray:
    """m/2 |(x', y')|^2 + J/2 phi'^2 + m g x along a result (an independent check of ``energy()``)."""
    xd, yd, w = result.v
    return 0.5 * m * (xd**2 + yd**2) + 0.5 * J * w**2 + m * g * result.q[0]
