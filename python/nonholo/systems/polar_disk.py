r"""The vertical rolling disk with its contact point in polar coordinates and a potential.

Gzenda-Chhabra's disk example (section 5) has a flat metric and no potential; this variant
(ours, not in the paper) exercises the terms the example never does: a curved metric
(Christoffel symbols) and a potential.
"""

from __future__ import annotations

import sympy as sp

from ..system.system import System
from .arguments import number_or_symbol, real

__all__ = ["polar_disk"]


def polar_disk(m: float = 1.0, R: float = 1.0, I: float = 0.25, J: float = 0.5, mu: float = 1.0,
               spring: float = 0.35, tilt: float = 0.3) -> System:
    r"""Coordinates (theta, r, psi, phi): heading, polar radius and angle of the contact point,
    rolling angle. G = diag(I, m, m r^2, J), V = spring r^2 + tilt cos(theta), rolling
    constraints (x', y') = R phi' (cos theta, sin theta) written in (r, psi), friction ``mu`` on
    both. The numbers are baked into the expressions (no runtime parameters)."""
    m, R, I, J = (real(v, name, positive=True) for v, name in ((m, "m"), (R, "R"), (I, "I"), (J, "J")))  # noqa: E741
    spring, tilt = real(spring, "spring"), real(tilt, "tilt")
    mu = number_or_symbol(mu, "mu", non_negative=True)
    theta, r, psi, phi = sp.symbols("theta r psi phi")
    G = sp.diag(sp.nsimplify(I), sp.nsimplify(m), sp.nsimplify(m) * r**2, sp.nsimplify(J))
    R_ = sp.nsimplify(R)
    A = sp.Matrix([[0, sp.cos(psi), -r * sp.sin(psi), -R_ * sp.cos(theta)],
                   [0, sp.sin(psi), r * sp.cos(psi), -R_ * sp.sin(theta)]])
    V = sp.nsimplify(spring) * r**2 + sp.nsimplify(tilt) * sp.cos(theta)
    return System([theta, r, psi, phi], G, V, A, friction=mu, name="polar disk", contacts=[[0, 1]])  # one contact
