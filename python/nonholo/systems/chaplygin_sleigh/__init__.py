"""The Chaplygin sleigh (Eldering 2016, section 4; Fedorov-Zenkov 2005).

The package holds everything specific to the sleigh, imported on demand:

- :func:`chaplygin_sleigh` (here): the System;
- :mod:`.exact`: the closed form of its nonholonomic motion (test reference);
- :mod:`.frames`: Eldering's body and G-orthogonal variables, views of results;
- :mod:`.discrete`: the closed momentum map of the discrete sleigh (Fedorov-Zenkov).

One naming throughout: ``m`` the mass, ``I`` the moment of inertia about the centre of mass,
``a`` the offset of the centre of mass ahead of the contact point, and ``J = I + m a^2`` the
moment of inertia about the contact point (Eldering's J).
"""

import sympy as sp

from ...viz import drawing as dr
from ...system.system import System
from ..arguments import real
from ..knife_edge_chain import knife_edge_shapes, knife_edge_trace


def chaplygin_sleigh(m: float = 1.0, I: float = 1.0, a: float = 0.2, mu: float = 1.0) -> System:  # noqa: E741
    r"""A rigid body on a blade: coordinates (x, y, phi) of the contact point and the heading.

    The centre of mass lies a distance ``a`` ahead of the contact point on the blade; ``m`` is
    the mass, ``I`` the moment of inertia about the centre of mass. Lagrangian (Eldering eq. (9))

        L = 1/2 m (x'^2 + y'^2) + 1/2 (I + m a^2) phi'^2 + m a phi' (-x' sin phi + y' cos phi),

    constraint (no sideways slip of the contact point) ``-sin(phi) x' + cos(phi) y' = 0``, and
    sideways friction coefficient ``mu`` (Eldering's nubar, 1 in the paper) for the friction
    model. Parameters: m, I, a, mu. State order ``[x, y, phi, x_dot, y_dot, phi_dot]``.

    In the body frame u = x' cos phi + y' sin phi, v = -x' sin phi + y' cos phi, omega = phi',
    the nonholonomic motion is u' = a omega^2, omega' = -m a u omega/(I + m a^2).

    Examples
    --------
    >>> import nonholo as nh
    >>> sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    >>> sleigh
    <nonholo.System 'Chaplygin sleigh': n=3 coordinates (x, y, phi), k=1 constraints, params: m=1, I=1, a=0.2, mu=1>
    >>> result = nh.simulate(sleigh.nonholonomic(), (0, 30), [0, 0, 0, 1, 0, 1], t_eval=[30])
    >>> print(result["phi_dot"].round(4), result.energy().round(7))  # the turning dies out, energy stays
    [0.0003] [1.02]
    """
    m, I = real(m, "m", positive=True), real(I, "I", positive=True)  # noqa: E741
    a, mu = real(a, "a", why="the offset of the centre of mass ahead of the blade"), real(mu, "mu", non_negative=True)
    x, y, phi = sp.symbols("x y phi")
    m_, I_, mu_ = sp.symbols("m I mu", positive=True)
    a_ = sp.Symbol("a", real=True)  # either sign: a positive symbol run at a < 0 would be other dynamics
    s, c = sp.sin(phi), sp.cos(phi)
    G = sp.Matrix([
        [m_, 0, -m_ * a_ * s],
        [0, m_, m_ * a_ * c],
        [-m_ * a_ * s, m_ * a_ * c, I_ + m_ * a_**2],
    ])
    A = sp.Matrix([[-s, c, 0]])
    system = System(
        [x, y, phi], G, constraints=A, friction=sp.Matrix([[mu_]]),
        parameters={m_: m, I_: I, a_: a, mu_: mu}, name="Chaplygin sleigh",
    )
    system.drawing = dr.Drawing(knife_edge_shapes, trace=knife_edge_trace)  # the one-link knife-edge chain
    return system
