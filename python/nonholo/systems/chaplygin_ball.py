r"""The Chaplygin ball: a sphere with its centre of mass at the geometric centre and unequal
principal moments, rolling without slipping on a horizontal plane.

S. A. Chaplygin, "On a ball's rolling on a horizontal plane" (1903); Borisov and Mamaev,
"Rolling of a rigid body on plane and sphere. Hierarchy of dynamics", Regul. Chaotic Dyn. 7
(2002) 177-200. First integrals of the nonholonomic model: the energy and the angular momentum
about the contact point, K = I omega + m a x (omega x a) with a = r e_z (from the contact to
the centre), which is constant as a vector in space. The reduced flow on (K, gamma) preserves
the measure rho d^3K d^3gamma with Chaplygin's density
rho = (1 - m r^2 gamma^T (I + m r^2)^-1 gamma)^(-1/2) (omega in body axes, I body inertia)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..builders.bodies import RigidBody, rotation_matrices
from ..builders.contact import Sphere, body_angular_velocity, roll_on_plane
from ..system.system import System

__all__ = ["chaplygin_ball", "contact_angular_momentum", "chaplygin_density"]


def chaplygin_ball(m: float = 1.0, r: float = 1.0, inertia=(0.3, 0.4, 0.5), g: float = 9.81) -> System:
    """The Chaplygin ball as a :func:`~nonholo.contact.roll_on_plane` system; runtime
    parameters m, r, I1, I2, I3, g (principal moments about the centre, body axes)."""
    m_, r_, g_, *I = sp.symbols("m r g I1 I2 I3")
    body = RigidBody(m_, I, com_offset=(0, 0, 0))
    values = {m_: m, r_: r, g_: g, **dict(zip(I, inertia))}
    return roll_on_plane(body, Sphere(r_), gravity=g_, parameters=values, name="Chaplygin ball")


def _values(result, names):
    return [result.params[n] for n in names]


def contact_angular_momentum(result) -> np.ndarray:
    """K = I omega + m a x (omega x a), a = r e_z, in space axes along a result: (3, n_t)."""
    m, r, *I = _values(result, ["m", "r", "I1", "I2", "I3"])
    R = rotation_matrices(result.q[2:6])
    omega = np.einsum("tij,jt->ti", R, body_angular_velocity(result.q, result.velocity))
    I_space = np.einsum("tij,j,tkj->tik", R, np.asarray(I), R)
    a = np.array([0.0, 0.0, r])
    K = np.einsum("tij,tj->ti", I_space, omega) + m * np.cross(a, np.cross(omega, a))
    return K.T


def chaplygin_density(result) -> np.ndarray:
    """rho = (1 - m r^2 gamma^T (I + m r^2)^-1 gamma)^(-1/2) at every output time, (n_t,)."""
    m, r, *I = _values(result, ["m", "r", "I1", "I2", "I3"])
    gamma = -rotation_matrices(result.q[2:6])[:, 2, :]
    return (1.0 - m * r**2 * np.sum(gamma**2 / (np.asarray(I) + m * r**2), axis=1)) ** -0.5
