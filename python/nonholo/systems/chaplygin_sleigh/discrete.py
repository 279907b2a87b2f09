"""The discrete Chaplygin sleigh's closed momentum map (Fedorov-Zenkov 2005, Theorem 4).

The fast special case of the general midpoint integrator (``System.discrete``) for the sleigh:
the discrete momentum p^k = (p1, p2) (the angular component and the component along the blade
at theta_k of -D1 L_d; Fedorov-Zenkov 2005 section 4.2, eqs. (19)-(20)) evolves by

    p1' = p1 - (a D/cos(D/2)) p2 - m a^2 D^2 tan(D/2),   p2' = p2 + 2 m a D sin(D/2)      (22)

where the rotation increment D solves

    F(D) = J D + (a D/(2 cos(D/2))) (p2 + m a D sin(D/2)) - p1 = 0,   J = I + m a^2      (23)

on the branch through D = 0 at p1 = 0 (footnote 4; see docs/errata.md). The names are those
of ``nh.systems.chaplygin_sleigh``: I the moment of inertia about the centre of mass, J = I + m a^2
about the contact point (the paper writes J for the first and I for the second). The
momenta carry the paper's scaling: p^k ~ h p(t_k) (the paper's L_d omits the factor h of
``System.discrete``, whose momenta are therefore p^k / h).
"""

from __future__ import annotations

from dataclasses import dataclass


import numpy as np

__all__ = ["DiscreteSleigh"]


@dataclass(frozen=True, init=False)
class DiscreteSleigh:
    """The map P of the discrete sleigh with mass ``m``, moment of inertia ``I`` about the
    centre of mass and offset ``a`` of the centre of mass ahead of the blade (the parameters of
    ``nh.systems.chaplygin_sleigh``). The paper's J is I here; the attribute :attr:`J` is the
    inertia about the contact point, I + m a^2.
    """

    m: float
    I: float  # noqa: E741
    a: float

    def __init__(self, m: float = 1.0, I: float = 1.0, a: float = 1.0):  # noqa: E741
        object.__setattr__(self, "m", float(m))
        object.__setattr__(self, "I", float(I))
        object.__setattr__(self, "a", float(a))

    @property
    def J(self) -> float:
        """J = I + m a^2, the moment of inertia about the contact point."""
        return self.I + self.m * self.a**2

    def residual(self, D: float, p1: float, p2: float) -> tuple:
        """F(D) of (23) and dF/dD."""
        m, a, J = self.m, self.a, self.J
        c, s = np.cos(D / 2), np.sin(D / 2)
        F = J * D + a * D / (2 * c) * (p2 + m * a * D * s) - p1
        dF = (J + a * p2 * (2 * c + D * s) / (4 * c**2) + m * a**2 * (D * s / c + D**2 / (4 * c**2)))
        return F, dF

    def rotation(self, p1: float, p2: float, guess: float | None = None, tol: float = 1e-15,
                 max_iterations: int = 60) -> float:
        """The rotation increment D of the step from (p1, p2): Newton on (23), seeded on the
        branch through the origin (D0 = p1/(J + a p2/2)) or with ``guess``.

        Raises ValueError when Newton leaves |D| < pi (no admissible root near the branch)."""
        if p1 == 0.0:
            return 0.0
        D = p1 / (self.J + self.a * p2 / 2) if guess is None else float(guess)
        for _ in range(max_iterations):
            F, dF = self.residual(D, p1, p2)
            step = F / dF
            D -= step
            if not abs(D) < np.pi:
                raise ValueError(f"Newton left the branch of (23) through D = 0 for p = ({p1}, {p2}) (|D| >= pi): "
                                 "the step is too large (other roots of (23) are not on the continuous branch)")
            if abs(step) <= tol * abs(D) + 1e-17:
                return D
        raise ValueError(f"Newton's method for the rotation increment did not converge at p = ({p1}, {p2})")

    def __call__(self, p) -> np.ndarray:
        """P(p): the momentum of the next step."""
        p1, p2 = float(p[0]), float(p[1])
        D = self.rotation(p1, p2)
        m, a = self.m, self.a
        return np.array([p1 - a * D / np.cos(D / 2) * p2 - m * a**2 * D**2 * np.tan(D / 2),
                         p2 + 2 * m * a * D * np.sin(D / 2)])

    def inverse(self, p) -> np.ndarray:
        """P^-1(p) = P with a replaced by -a (the scheme is self-adjoint)."""
        return DiscreteSleigh(self.m, self.I, -self.a)(p)

    def orbit(self, p0, n: int, backward: bool = False) -> np.ndarray:
        """p^0, ..., p^n (P iterated, or P^-1 when ``backward``), shape (n + 1, 2)."""
        step = self.inverse if backward else self
        out = [np.asarray(p0, dtype=float)]
        for _ in range(n):
            out.append(step(out[-1]))
        return np.array(out)

    def trajectory(self, q0, p0, n: int) -> tuple:
        """Configurations (theta, x, y) and momenta over n steps from q0 = (theta0, x0, y0)
        (our step, from eqs. (13) and (19)-(23) of the paper): shapes (n + 1, 3) and (n + 1, 2)."""
        theta, x, y = (float(v) for v in q0)
        p = np.asarray(p0, dtype=float)
        qs, ps = [(theta, x, y)], [p]
        m, a = self.m, self.a
        for _ in range(n):
            D = self.rotation(*p)
            s = (p[1] + m * a * D * np.sin(D / 2)) / (m * np.cos(D / 2))  # signed chord
            phi = theta + D / 2
            theta, x, y = theta + D, x + s * np.cos(phi), y + s * np.sin(phi)
            p = np.array([self.J * D - m * a / 2 * D * s, m * s * np.cos(D / 2) + m * a * D * np.sin(D / 2)])
            qs.append((theta, x, y))
            ps.append(p)
        return np.array(qs), np.array(ps)

    def linearization(self, p2: float) -> np.ndarray:
        """The Jacobian of P at the equilibrium (0, p2) (Theorem 6):
        diag(lambda1, 1), lambda1 = (2 J - a p2)/(2 J + a p2), J = I + m a^2 (the paper's J + m a^2)."""
        J = self.J
        return np.diag([(2 * J - self.a * p2) / (2 * J + self.a * p2), 1.0])

    @staticmethod
    def momenta_from_general(result, h: float) -> np.ndarray:
        """The paper's (p1, p2) at each node from a ``simulate_discrete`` run of
        ``nh.systems.chaplygin_sleigh`` (coordinates x, y, phi): p^- = -D1 L_d, scaled by h, in the
        body frame at theta_k; shape (N, 2) for the nodes k = 0..N-1 that start a step."""
        phi = result.q[2, :-1]
        lam = result.lam[0]
        # p^-_k = -D1 L_d = p_k + h A(q_k)^T lambda_k with A = (-sin phi, cos phi, 0) (the step
        # equation of System.discrete); the blade projection below removes the A^T term anyway
        px = result.p[0, :-1] - h * np.sin(phi) * lam
        py = result.p[1, :-1] + h * np.cos(phi) * lam
        p_theta = result.p[2, :-1]
        return h * np.column_stack([p_theta, px * np.cos(phi) + py * np.sin(phi)])
