r"""The tippe top: a sphere of radius R whose centre of mass lies alpha R below its centre
(0 < alpha < 1), axisymmetric about the body z axis, on a horizontal plane.

Spun fast enough on its round end with sliding friction at the contact, it turns over onto its
stem when 1 - alpha < I1/I3 < 1 + alpha (I1 transverse, I3 axial moments about the centre of
mass): C. M. Braams, Physica 18 (1952) 503; N. M. Hugenholtz, Physica 18 (1952) 515; S. Ebenfeld
and F. Scheck, Ann. Phys. 243 (1995) 195; N. M. Bou-Rabee, J. E. Marsden and L. A. Romero,
SIAM J. Appl. Dyn. Syst. 3 (2004) 352. Rolling without slipping conserves the energy and
cannot invert it: inversion needs the friction realization (``friction(eps)`` of this system,
or ``tippe_top(friction="viscous" | "coulomb")``). Jellett's integral

    lambda = L_G . (alpha e3 - e_z) R,      L_G = I omega about the centre of mass,

(e3 the symmetry axis in space) is conserved by every contact force at the contact point,
sliding or not (:func:`jellett`)."""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from ..builders.bodies import RigidBody, rotation_matrices
from ..builders.contact import Sphere, body_angular_velocity, roll_on_plane
from ..system.system import System
from .arguments import finite_product, not_text, number_or_symbol

__all__ = ["tippe_top", "jellett", "inverts"]


def tippe_top(m: float = 0.015, R: float = 0.02, alpha: float = 0.3, I1: float | None = None,
              I3: float | None = None, g: float = 9.81, friction: str | None = None, eps: float = 1e-3,
              friction_coefficient: float = 1.0) -> System:
    """The tippe top (module docstring). Defaults I3 = 2/5 m R^2 and I1 = 0.95 I3 (inside the
    inversion window for alpha = 0.3), at the m and R given here. Runtime parameters m, R, alpha,
    I1, I3, g (and eps); I1 and I3 are numbers of their own: params={"R": 0.04} keeps the
    inertias of the R built with (pass I1 and I3 too, or build tippe_top(R=0.04))."""
    m, R = number_or_symbol(m, "m", positive=True), number_or_symbol(R, "R", positive=True, why="the sphere's radius")
    alpha, g = not_text(alpha, "alpha"), number_or_symbol(g, "g")
    I1, I3 = (None if v is None else number_or_symbol(v, name, positive=True) for v, name in ((I1, "I1"), (I3, "I3")))
    eps, friction_coefficient = not_text(eps, "eps", optional=True), not_text(friction_coefficient,
                                                                              "friction_coefficient")
    if isinstance(alpha, numbers.Real) or isinstance(alpha, sp.Expr) and alpha.is_number and alpha.is_real:
        if not 0 < float(alpha) < 1:  # NaN too
            raise ValueError(f"alpha must be in (0, 1): the centre of mass lies alpha R below the sphere's centre, "
                             f"inside the sphere on the side of the round end, got {alpha!r}")
    m_, R_, al, I1_, I3_, g_ = syms = sp.symbols("m R alpha I1 I3 g")
    I3 = finite_product(0.4 * m * R * R, "m and R", "I3 = 2/5 m R^2") if I3 is None else I3
    I1 = 0.95 * I3 if I1 is None else I1
    values = dict(zip(syms, (m, R, alpha, I1, I3, g)))
    body = RigidBody(m_, (I1_, I1_, I3_), com_offset=(0, 0, -al * R_))
    return roll_on_plane(body, Sphere(R_), gravity=g_, friction=friction, eps=eps,
                         friction_coefficient=friction_coefficient, parameters=values, name="tippe top")


def jellett(result) -> np.ndarray:
    """Jellett's integral L_G . (alpha e3 - e_z) R along a result, shape (n_t,)."""
    p = result.params
    Rm = rotation_matrices(result.q[2:6])
    omega = body_angular_velocity(result.q, result.velocity)
    L_body = np.array([p["I1"], p["I1"], p["I3"]])[:, None] * omega
    L = np.einsum("tij,jt->ti", Rm, L_body)
    e3 = Rm[:, :, 2]
    a = p["R"] * (p["alpha"] * e3 - np.array([0.0, 0.0, 1.0]))
    return np.sum(L * a, axis=1)


def inverts(I1: float, I3: float, alpha: float) -> bool:
    """The inversion condition 1 - alpha < I1/I3 < 1 + alpha."""
    return bool(1 - alpha < I1 / I3 < 1 + alpha)
