r"""Closed forms of the ball on a rotating table (Lewis-Murray 1995, sections 3.1 and 3.3, as
corrected in docs/errata.md), the references for the general engine.

With kappa = I/(m r^2) (2/5 for a solid ball), the frictionless nonholonomic contact point
z = x + i y obeys z'' = i k z', k = kappa Omega/(1 + kappa): a circle run at the speed |z'(0)|.
With the viscous term nu (a force -nu (x', y') on the ball's velocity in the inertial frame, as in
the paper's section 3.2 and ``ball_on_turntable``),
z'' = (-a + i k) z', a = nu r^2/J, J = I + m r^2: a spiral to the point z_inf.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["circle_rate", "circle", "spiral", "linearization_roots"]


def circle_rate(Omega: float, kappa: float = 0.4) -> float:
    """k = I Omega/(I + m r^2) = kappa Omega/(1 + kappa), the turning rate of the contact velocity."""
    return kappa * Omega / (kappa + 1.0)


def circle(t: npt.ArrayLike, x0: float, y0: float, xd0: float, yd0: float, Omega: float,
           kappa: float = 0.4) -> tuple[np.ndarray, np.ndarray]:
    r"""Frictionless orbit: z(t) = z0 + V0 (e^{ikt} - 1)/(ik). Returns (x, y)."""
    k = circle_rate(Omega, kappa)
    z = complex(x0, y0) + complex(xd0, yd0) * (np.exp(1j * k * np.asarray(t)) - 1) / (1j * k)
    return z.real, z.imag


def spiral(t: npt.ArrayLike, nu: float, m: float, r: float, x0: float, y0: float, xd0: float, yd0: float,
           Omega: float, kappa: float = 0.4):
    r"""The nu-spiral (corrected; Lewis-Murray section 3.3 item 2, see docs/errata.md), a = nu r^2/J, k = I Omega/J:

    z(t) = z0 + V0 (1 - e^{(-a+ik)t})/(a - ik),  z_inf = z0 + V0 (a + ik)/(a^2 + k^2).
    Returns (x, y, z_inf).
    """
    I = kappa * m * r**2  # noqa: E741
    J = I + m * r**2
    a, k = nu * r**2 / J, I * Omega / J
    V0, z0 = complex(xd0, yd0), complex(x0, y0)
    z = z0 + V0 * (1 - np.exp((-a + 1j * k) * np.asarray(t))) / (a - 1j * k)
    return z.real, z.imag, z0 + V0 * (a + 1j * k) / (a**2 + k**2)


def linearization_roots(m: float, r: float, Omega: float, mu: float, nu: float, kappa: float = 0.4) -> np.ndarray:
    r"""The four eigenvalues of the linear ball (delta = 0) in (x, y, x', y') (our closed form;
    Lewis-Murray section 3.3 item 3 calls them "complicated" and studies them numerically): the roots of

        J s^2 + (c - i I Omega) s - i mu Omega = 0,   J = I + m r^2,  c = mu + nu r^2,  I = kappa m r^2,

    and their conjugates. A root is on the imaginary axis iff nu I = mu m (then s = i I Omega/J):
    for mu > 0 the orbit grows (largest real part alpha2 > 0) iff nu I < mu m.
    """
    I = kappa * m * r**2  # noqa: E741
    J, c = I + m * r**2, mu + nu * r**2
    b = c - 1j * I * Omega
    disc = np.sqrt(b**2 + 4j * J * mu * Omega)
    s = np.array([(-b + disc) / (2 * J), (-b - disc) / (2 * J)])
    return np.r_[s, s.conj()]
