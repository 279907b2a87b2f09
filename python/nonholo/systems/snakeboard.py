"""The snakeboard (Lewis, Ostrowski, Murray and Burdick 1994; Bloch, Krishnaprasad, Marsden and
Murray 1996, section 8): a board on two wheel sets steered by equal and opposite angles, with a
rotor at its centre."""

import sympy as sp

from ..system.system import System
from .arguments import real


def snakeboard(m: float = 1.0, l: float = 1.0, J: float = 1.0, J_r: float = 0.2, J_w: float = 0.05,
               k: float = 1.0) -> System:
    r"""The snakeboard with a steering spring: coordinates (x, y, theta, psi, phi).

    (x, y) is the board's centre, theta its heading, psi the rotor angle and phi the steering
    angle (the wheels at distance l behind the centre at phi, those l ahead at -phi: the rows
    below; forward at phi > 0 the board turns right, theta' = -u tan(phi) / l).
    Lagrangian (Bloch et al. 1996, eq. (8.1), with a spring k on the steering):

        L = m/2 (x'^2 + y'^2) + J/2 theta'^2 + J_r theta' psi' + J_r/2 psi'^2 + J_w phi'^2 - k/2 phi^2

    (J the board's moment of inertia with the rotor's and the wheels', J_r the rotor's, J_w that of
    each wheel set about its steering axis). The wheels do not slip sideways:

        -sin(theta + phi) x' + cos(theta + phi) y' - l cos(phi) theta' = 0,
        -sin(theta - phi) x' + cos(theta - phi) y' + l cos(phi) theta' = 0.

    The rows turn dependent at phi = +-pi/2 (both wheel sets across the board): the constraint
    distribution drops rank there. Parameters: m, l, J, J_r, J_w, k. Conservative: the energy
    and, as the rotor's coordinate psi is cyclic, J_r (theta' + psi') are constants of the motion.
    """
    m, l, J, J_r, J_w = (real(v, name, positive=True) for v, name in  # noqa: E741
                         ((m, "m"), (l, "l"), (J, "J"), (J_r, "J_r"), (J_w, "J_w")))
    k = real(k, "k", non_negative=True, why="the steering spring")
    x, y, theta, psi, phi = sp.symbols("x y theta psi phi")
    m_, l_, J_, Jr, Jw, k_ = sp.symbols("m l J J_r J_w k", positive=True)
    G = sp.Matrix([
        [m_, 0, 0, 0, 0],
        [0, m_, 0, 0, 0],
        [0, 0, J_, Jr, 0],
        [0, 0, Jr, Jr, 0],
        [0, 0, 0, 0, 2 * Jw],
    ])
    A = sp.Matrix([
        [-sp.sin(theta + phi), sp.cos(theta + phi), -l_ * sp.cos(phi), 0, 0],
        [-sp.sin(theta - phi), sp.cos(theta - phi), l_ * sp.cos(phi), 0, 0],
    ])
    return System([x, y, theta, psi, phi], G, potential=k_ * phi**2 / 2, constraints=A,
                  parameters={m_: m, l_: l, J_: J, Jr: J_r, Jw: J_w, k_: k}, name="snakeboard")
