r"""The nonholonomic Chaplygin sleigh in closed form: the reference for tests and studies.

In the body velocities u (along the blade) and omega = phi' the nonholonomic sleigh obeys
u' = a omega^2, omega' = -(m a / J) u omega with J = I + m a^2 (Eldering 2016 eq. (13) with
v = 0; Fedorov-Zenkov 2005 section 3, eq. (10)). The energy m U^2 / 2 = (m u^2 + J omega^2) / 2 is
conserved (Fedorov-Zenkov Theorem 1) and, by our derivation,

    u = U tanh s,   omega = sign(omega0) sqrt(m/J) U sech s,   s = k U (t - t0),
    phi = phi0 + sign(omega0) sqrt(J/m)/a [gd(s) - gd(s(0))],   gd(z) = arctan(sinh z),

with k = m a / J and t0 = -artanh(u0/U)/(k U) the time of the cusp (u = 0). Over the whole
heteroclinic orbit phi turns by pi sqrt(J/m)/a. The contact point follows from x' = u cos phi,
y' = u sin phi (no closed form; Gauss-Legendre quadrature to round-off). Names as in
:func:`chaplygin_sleigh`: m the mass, I the moment of inertia about the centre of mass
(Fedorov-Zenkov's J), a the offset of the centre of mass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .frames import SleighConstants

__all__ = ["SleighMotion"]


@dataclass(frozen=True)
class SleighMotion:
    """The nonholonomic motion from u(0) = u0, omega(0) = omega0, phi(0) = phi0 (omega0 != 0)."""

    m: float
    I: float  # noqa: E741
    a: float
    u0: float
    omega0: float
    phi0: float = 0.0
    x0: float = 0.0
    y0: float = 0.0

    def __post_init__(self):
        if self.omega0 == 0 or self.a == 0:
            raise ValueError("the closed form needs omega0 != 0 and a != 0 (otherwise the motion is uniform)")

    @property
    def J(self) -> float:
        """I + m a^2, the moment of inertia about the contact point."""
        return SleighConstants(self.m, self.I, self.a).J

    @property
    def k(self) -> float:
        """m a / J."""
        return SleighConstants(self.m, self.I, self.a).k

    @property
    def U(self) -> float:
        """The terminal speed: m U^2 / 2 is the energy."""
        return math.sqrt(self.u0**2 + self.J * self.omega0**2 / self.m)

    @property
    def t_cusp(self) -> float:
        """t0, where u = 0 and omega is extremal."""
        return -math.atanh(self.u0 / self.U) / (self.k * self.U)

    @property
    def heading_change(self) -> float:
        """The turn of phi over the whole orbit (t from -inf to inf): pi sqrt(J/m)/a, signed."""
        return math.copysign(math.pi * math.sqrt(self.J / self.m) / self.a, self.omega0)

    @property
    def phi_inf(self) -> float:
        """The heading of the asymptotic straight line, t -> +inf: phi0 + c (pi/2 - gd(s(0)))."""
        c = math.copysign(math.sqrt(self.J / self.m) / self.a, self.omega0)
        return self.phi0 + c * (math.pi / 2 - math.atan(math.sinh(float(self._s(0.0)))))

    @property
    def energy(self) -> float:
        return 0.5 * self.m * self.U**2

    def _s(self, t) -> np.ndarray:
        return self.k * self.U * (np.asarray(t, dtype=float) - self.t_cusp)

    def u(self, t: npt.ArrayLike) -> np.ndarray:
        """The velocity along the blade."""
        return self.U * np.tanh(self._s(t))

    def omega(self, t: npt.ArrayLike) -> np.ndarray:
        """The angular velocity phi'."""
        return math.copysign(math.sqrt(self.m / self.J) * self.U, self.omega0) / np.cosh(self._s(t))

    def phi(self, t: npt.ArrayLike) -> np.ndarray:
        """The heading."""
        c = math.copysign(math.sqrt(self.J / self.m) / self.a, self.omega0)
        return self.phi0 + c * (np.arctan(np.sinh(self._s(t))) - math.atan(math.sinh(float(self._s(0.0)))))

    def momenta(self, t: npt.ArrayLike) -> np.ndarray:
        """(J omega, m u): the angular momentum about the contact point and the momentum along the
        blade (Fedorov-Zenkov's (p1, p2)), shape (2,) + shape(t)."""
        return np.array([self.J * self.omega(t), self.m * self.u(t)])

    def contact_point(self, t: npt.ArrayLike, max_interval: float = 0.1) -> np.ndarray:
        """(x, y) at the times t >= 0 (any order), shape (2,) + shape(t): x' = u cos phi,
        y' = u sin phi integrated from (x0, y0) at t = 0 by 20-node Gauss-Legendre quadrature on
        every interval of length <= ``max_interval`` (round-off accurate at 0.1)."""
        t = np.asarray(t, dtype=float)
        if t.size == 0:
            return np.zeros((2,) + t.shape)
        if t.min() < 0:
            raise ValueError(f"t: contact_point integrates forward from t = 0, got t = {t.min():g}")
        grid = np.union1d(np.concatenate([[0.0], t.ravel()]), np.arange(0.0, t.max(), max_interval))
        nodes, weights = np.polynomial.legendre.leggauss(20)
        left, right = grid[:-1, None], grid[1:, None]
        tt = (left + right) / 2 + (right - left) / 2 * nodes
        ww = (right - left) / 2 * weights
        phi, u = self.phi(tt), self.u(tt)
        x = self.x0 + np.concatenate([[0.0], np.cumsum(np.sum(ww * u * np.cos(phi), axis=1))])
        y = self.y0 + np.concatenate([[0.0], np.cumsum(np.sum(ww * u * np.sin(phi), axis=1))])
        idx = np.searchsorted(grid, t.ravel())
        return np.array([x[idx], y[idx]]).reshape((2,) + t.shape)

    def configuration(self, t: npt.ArrayLike) -> np.ndarray:
        """(x, y, phi) at t >= 0, shape (3, n): the coordinates of :func:`chaplygin_sleigh`."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        return np.vstack([self.contact_point(t), self.phi(t)[None]])

    def __call__(self, t: npt.ArrayLike) -> tuple:
        """(u, omega, phi) at t."""
        return self.u(t), self.omega(t), self.phi(t)
