"""A differential-drive robot whose centre of mass lies ahead of its wheel axle."""

import sympy as sp

from ..system.system import System
from .arguments import real


def differential_drive(m: float = 4.0, I: float = 0.1, d: float = 0.1, b: float = 0.2, r: float = 0.05,
                       I_w: float = 0.002) -> System:
    r"""A two-wheeled robot coasting on a plane: coordinates (x, y, theta, phi_l, phi_r).

    (x, y) is the midpoint of the wheel axle, theta the heading, phi_l and phi_r the wheel angles.
    The centre of mass lies a distance d ahead of the axle, at (x + d cos theta, y + d sin theta);
    m is the mass, I the moment of inertia about the centre of mass, I_w that of each wheel about
    its axle, b half the track and r the wheel radius. Kinetic energy

        T = m/2 |d/dt (x + d cos theta, y + d sin theta)|^2 + I/2 theta'^2 + I_w/2 (phi_l'^2 + phi_r'^2).

    The axle does not slip sideways and the wheels roll (the left wheel at +b, the right at -b
    across the axle, v = cos(theta) x' + sin(theta) y' the forward speed):

        -sin(theta) x' + cos(theta) y' = 0,   v - b theta' = r phi_l',   v + b theta' = r phi_r'.

    With d != 0 the coasting motion couples the turning and the forward speed (the axle's lateral
    reaction acts off the centre of mass). Parameters: m, I, d, b, r, I_w. Conservative.
    """
    m, I, b, r, I_w = (real(v, name, positive=True) for v, name in  # noqa: E741
                       ((m, "m"), (I, "I"), (b, "b"), (r, "r"), (I_w, "I_w")))
    d = real(d, "d", why="the offset of the centre of mass ahead of the axle")
    x, y, theta, phl, phr = sp.symbols("x y theta phi_l phi_r")
    m_, I_, b_, r_, Iw = sp.symbols("m I b r I_w", positive=True)
    d_ = sp.Symbol("d", real=True)  # either sign
    q = [x, y, theta, phl, phr]
    v = sp.symbols("x_dot y_dot theta_dot phi_l_dot phi_r_dot")
    xc, yc = x + d_ * sp.cos(theta), y + d_ * sp.sin(theta)
    vc = [sum(sp.diff(c, qi) * vi for qi, vi in zip(q, v)) for c in (xc, yc)]
    T = m_ / 2 * (vc[0]**2 + vc[1]**2) + I_ / 2 * v[2]**2 + Iw / 2 * (v[3]**2 + v[4]**2)
    G = sp.hessian(sp.expand(T), v)
    forward = [sp.cos(theta), sp.sin(theta)]
    A = sp.Matrix([
        [-sp.sin(theta), sp.cos(theta), 0, 0, 0],
        [*forward, -b_, -r_, 0],
        [*forward, b_, 0, -r_],
    ])
    return System(q, G, constraints=A, parameters={m_: m, I_: I, d_: d, b_: b, r_: r, Iw: I_w},
                  name="differential-drive robot")
