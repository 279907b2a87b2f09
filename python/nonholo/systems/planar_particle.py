"""A particle in the plane under gravity, held near the unit circle three ways (Eldering 2016,
section 3, eqs. (5)-(8), Fig. 1)."""

from __future__ import annotations

import sympy as sp

from ..system.system import System
from .arguments import real

REALIZATIONS = ("potential", "friction", "inertia")


def planar_particle(g: float = 9.81, realization: str = "friction", eps: float | None = None) -> System:
    r"""A unit mass in the (x, y) plane under gravity -g e_y, realizing the circle r = 1.

    Eldering's eq. (5), L = 1/2 (x'^2 + y'^2) - g y, with the constraint to the unit circle
    S^1 realized in one of three ways (r = sqrt(x^2 + y^2), n = (x, y)/r):

    ``"potential"`` (eq. (6), holonomic realization, a stiff rod)
        V = g y + (r - 1)^2 / (2 eps); no constraint rows. Simulate ``system.nonholonomic()``,
        which with k = 0 constraints is plain Euler-Lagrange.
    ``"friction"`` (eq. (7), nonholonomic realization, the leaf swirling down)
        V = g y and the constraint row A = n^T (r' = 0, D = ker A, integrable: its leaves are the
        circles r = const) with friction coefficient mu = 1, so that ``system.friction(eps)``
        adds the force -(1/eps) n (n . v), the Rayleigh force of R = r'^2/(2 eps).
        ``system.nonholonomic()`` is the pendulum on the leaf through the initial point and
        ``system.reduced(eps, order=K)`` the slow dynamics on D_eps.
    ``"inertia"`` (eq. (8), vakonomic realization, radial inertia)
        metric G = Id + (1/eps) n n^T, i.e. the extra kinetic term I = r'^2/(2 eps), V = g y; no
        constraint rows. Simulate ``system.nonholonomic()`` (plain Euler-Lagrange).

    Parameters
    ----------
    g : float
        Gravitational acceleration (runtime parameter ``g``); 9.81 in the paper.
    realization : {"potential", "friction", "inertia"}
    eps : float, optional
        For ``"potential"`` and ``"inertia"``, where eps is part of the system, the default of the
        runtime parameter ``eps`` (0.01 if not given; override with
        ``simulate(..., params={"eps": ...})``). For ``"friction"`` eps belongs to the friction
        model, ``system.friction(eps)``, and passing it here is an error.

    Returns
    -------
    System
        Coordinates (x, y); state order ``[x, y, x_dot, y_dot]``. In every realization the
        runtime parameter that scales the realization is called ``eps``, so
        ``simulate(model, ..., params={"eps": e})`` works alike for the three (see
        :func:`realized_pendulum`).

    Notes
    -----
    The common limit eps -> 0 is the pendulum r = 1, theta'' = -g cos(theta), with
    x = r cos(theta), y = r sin(theta) (Eldering 2016, section 3). For finite eps the
    three differ qualitatively (Fig. 1): the potential keeps |r - 1| = O(eps) for all time, the
    friction keeps r' = O(eps) while r drifts (terminal velocity y' = -eps g on the leaf x = 0),
    and the radial inertia lets r' grow (y(t) = y0 - g eps t^2 / (2 (1 + eps)) on x = 0).
    """
    if realization not in REALIZATIONS:
        raise ValueError(f"realization must be one of {REALIZATIONS}, got {realization!r}")
    if realization == "friction" and eps is not None:
        raise ValueError("eps of the friction realization is the friction model's: use "
                         "planar_particle(realization='friction').friction(eps)")
    x, y = sp.symbols("x y")
    g_, eps_ = sp.symbols("g eps", positive=True)
    r = sp.sqrt(x**2 + y**2)
    n = sp.Matrix([x, y]) / r
    parameters = {g_: g}
    if realization != "friction":
        parameters[eps_] = 0.01 if eps is None else real(eps, "eps", positive=True,
                                                          why="the realization's scale (the circle as eps -> 0)")
    name = f"planar particle ({realization} realization of the circle)"
    if realization == "potential":
        V = g_ * y + (r - 1) ** 2 / (2 * eps_)
        return System([x, y], sp.eye(2), V, parameters=parameters, name=name)
    if realization == "friction":
        return System([x, y], sp.eye(2), g_ * y, constraints=n.T, friction=sp.Matrix([[1]]),
                      parameters=parameters, name=name)
    G = sp.eye(2) + sp.Matrix([[x**2, x * y], [x * y, y**2]]) / (eps_ * (x**2 + y**2))
    return System([x, y], G, g_ * y, parameters=parameters, name=name)


def realized_pendulum(realization: str, eps: float, g: float = 9.81):
    """The model to simulate for one realization of the circle at a given eps.

    ``"potential"`` and ``"inertia"``: ``planar_particle(g, realization, eps).nonholonomic()``
    (Euler-Lagrange of the unconstrained system, eps a system parameter); ``"friction"``:
    ``planar_particle(g, "friction").friction(eps)``. State ``[x, y, x_dot, y_dot]``; in all
    three ``params={"eps": ...}`` overrides eps at simulation time.
    """
    if realization == "friction":
        return planar_particle(g, "friction").friction(eps)
    return planar_particle(g, realization, eps).nonholonomic()
