r"""The Chaplygin sleigh in Eldering's frame variables: views of ``nh.systems.chaplygin_sleigh``.

The sleigh's models (nonholonomic, friction, reduced) are those of the ordinary
:class:`~nonholo.System` built by :func:`nonholo.systems.chaplygin_sleigh`, in the coordinates
(x, y, phi) of the skate's contact point and the heading. Eldering (2016) writes them in two
sets of quasi-velocities; this module maps states, results and vector fields to and from those
variables and implements no physics of its own.

Body frame, eq. (12) (not G-orthogonal)::

    u = x' cos(phi) + y' sin(phi),   v = -x' sin(phi) + y' cos(phi),   omega = phi',

with the friction model (16): u' = v omega + a omega^2, v' = -u omega - rho v,
omega' = a mu v / (I eps), rho = mu (I + m a^2) / (I m eps).

G-orthogonal frame, section 7.1, eq. (37): psi = omega + k v with k = m a / (I + m a^2);
q' = u f_1 + v f_2 + psi f_3 with f_1 = (cos phi, sin phi, 0), f_2 = (-sin phi, cos phi, -k),
f_3 = (0, 0, 1); D = span{f_1, f_3} (v = 0), D_perp = span{f_2}; frame metric
diag(m, I m / (I + m a^2), I + m a^2); psi' = -k u omega exactly (eq. (38)), untouched by
friction (Eldering 2016 section 7.1: the friction force appears only in the equation for v).

A reduced model's state is [q, u_D] with u_D = (u cos phi, u sin phi, psi) on D; its velocity
is u_D + sum_{j<=K} eps^j h^(j)(q, u_D), and h^(j) is along f_2, so its v is the slip
sum_j eps^j h_v^(j)(u, psi) and its omega is psi - k v (Fig. 7 of the paper plots this omega).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, NamedTuple

import numpy as np
import sympy as sp

__all__ = [
    "SleighConstants", "SleighView", "sleigh_constants", "body_velocities", "coordinate_velocities",
    "sleigh_state", "reduced_state", "view", "body_rhs", "frame_rhs", "slip_velocity",
    "body_frame", "orthogonal_frame",
]


@dataclass(frozen=True)
class SleighConstants:
    """Mass m, moment of inertia I about the centre of mass, offset a, friction coefficient mu.

    Derived (from Eldering 2016 eqs. (13) and (18)): J = I + m a^2, k = m a / J, alpha = J / (I m)
    (the normal contraction rate of the friction model is mu alpha / eps).
    """

    m: float
    I: float  # noqa: E741
    a: float
    mu: float = 1.0

    @property
    def J(self) -> float:
        return self.I + self.m * self.a**2

    @property
    def k(self) -> float:
        return self.m * self.a / self.J

    @property
    def alpha(self) -> float:
        return self.J / (self.I * self.m)


def sleigh_constants(source, params: Mapping | None = None) -> SleighConstants:
    """The constants of a sleigh System, Model or SimulationResult (with ``params`` overriding)."""
    values = _parameter_values(source)
    values.update(params or {})
    try:
        return SleighConstants(float(values["m"]), float(values["I"]), float(values["a"]),
                               float(values.get("mu", 1.0)))
    except KeyError as exc:
        raise TypeError(f"{source!r} is not a Chaplygin sleigh (no parameter {exc})") from None


def _parameter_values(source) -> dict:
    if hasattr(source, "params") and hasattr(source, "state_names") and hasattr(source, "t"):  # a result
        return dict(source.params)
    if hasattr(source, "system") and hasattr(source, "kind"):  # a model
        return dict(source.params)
    if hasattr(source, "parameters") and hasattr(source, "coordinates"):  # a system
        return {s.name: v for s, v in source.parameters.items()}
    raise TypeError(f"expected a sleigh System, Model or SimulationResult, got {type(source).__name__}")


def _frame(system, columns, name: str):
    from ...system.frames import AnholonomicFrame

    return AnholonomicFrame(system, sp.Matrix(columns).T, name=name)


def _symbols(system) -> tuple:
    """(phi, m, I, a) as the sleigh System's own symbols."""
    by_name = {s.name: s for s in system.parameters}
    try:
        return system.coordinates[2], by_name["m"], by_name["I"], by_name["a"]
    except (KeyError, IndexError):
        raise TypeError(f"{system!r} is not a Chaplygin sleigh (coordinates x, y, phi; parameters m, I, a)") from None


def body_frame(system):
    """Eldering's body frame (eq. (12)) as an :class:`~nonholo.frames.AnholonomicFrame` of the
    sleigh: columns e_1 = (cos phi, sin phi, 0), e_3 = (0, 0, 1) spanning D, then e_2 =
    (-sin phi, cos phi, 0). Its quasi-velocities are (u, omega, v); :func:`body_velocities` is
    their closed form."""
    phi = _symbols(system)[0]
    c, s = sp.cos(phi), sp.sin(phi)
    return _frame(system, [[c, s, 0], [0, 0, 1], [-s, c, 0]], "Eldering's body frame")


def orthogonal_frame(system):
    """Eldering's G-orthogonal frame (section 7.1, eq. (37)) as an
    :class:`~nonholo.frames.AnholonomicFrame`: f_1 = (cos phi, sin phi, 0), f_3 = (0, 0, 1)
    spanning D, then f_2 = (-sin phi, cos phi, -k), k = m a / J. Its quasi-velocities are
    (u, psi, v) with psi = omega + k v; ``orthogonal_frame(s).hamel()`` integrates the
    nonholonomic sleigh in (u, psi)."""
    phi, m, I, a = _symbols(system)  # noqa: E741
    c, s = sp.cos(phi), sp.sin(phi)
    k = m * a / (I + m * a**2)
    return _frame(system, [[c, s, 0], [0, 0, 1], [-s, c, -k]], "Eldering's G-orthogonal frame")


def body_velocities(q, qdot):
    """(u, v, omega) of eq. (12) from coordinates q = (x, y, phi) and velocities (x', y', phi').

    Arrays of shape (3,) or (3, n_t); returns three scalars or three (n_t,) arrays.
    """
    phi = np.asarray(q)[2]
    xd, yd, phid = np.asarray(qdot)
    c, s = np.cos(phi), np.sin(phi)
    return xd * c + yd * s, -xd * s + yd * c, phid


def coordinate_velocities(phi, u, v, omega):
    """(x', y', phi') from the body velocities: x' = u cos phi - v sin phi,
    y' = u sin phi + v cos phi, phi' = omega (inverse of eq. (12))."""
    c, s = np.cos(phi), np.sin(phi)
    return u * c - v * s, u * s + v * c, omega * np.ones_like(np.asarray(u, dtype=float))


def sleigh_state(x, y, phi, u, v=0.0, omega=None, *, psi=None, k: float | None = None) -> np.ndarray:
    """The state [x, y, phi, x', y', phi'] of a nonholonomic or friction model.

    Give the angular velocity either as ``omega`` or as ``psi = omega + k v`` (then ``k`` is
    needed: ``sleigh_constants(system).k``).
    """
    if (omega is None) == (psi is None):
        raise ValueError("give exactly one of omega and psi")
    if psi is not None:
        if k is None:
            raise ValueError("psi needs k = m a / (I + m a^2): pass k=sleigh_constants(system).k")
        omega = psi - k * v
    return np.array([x, y, phi, *coordinate_velocities(phi, u, v, omega)], dtype=float)


def reduced_state(x, y, phi, u, psi) -> np.ndarray:
    """The state [q, u_D] of a reduced model, u_D = u f_1 + psi f_3 = (u cos phi, u sin phi, psi)."""
    return np.array([x, y, phi, u * np.cos(phi), u * np.sin(phi), psi], dtype=float)


class SleighView(NamedTuple):
    """A sleigh trajectory in Eldering's variables; each field has shape (n_t,)."""

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    phi: np.ndarray
    u: np.ndarray
    v: np.ndarray
    omega: np.ndarray
    psi: np.ndarray


def slip_velocity(system, q, u_D, eps: float, order: int, params: Mapping | None = None) -> np.ndarray:
    """The full velocity u_D + sum_{j<=K} eps^j h^(j)(q, u_D) of a reduced state, shape (3, n_t).

    ``q`` and ``u_D`` have shape (3, n_t); ``order`` K = 0 returns u_D. The reduced model's own
    :meth:`~nonholo.models.reduced.ReducedModel.velocity` (one pass in C++).
    """
    q, u_D = np.atleast_2d(np.asarray(q, dtype=float).T).T, np.atleast_2d(np.asarray(u_D, dtype=float).T).T
    if order == 0:
        return u_D.copy()
    return system.reduced(eps, order).velocity(0.0, np.vstack([q, u_D]), params)


def view(result) -> SleighView:
    """A sleigh SimulationResult (nonholonomic, friction or reduced model) in (u, v, omega, psi).

    For a reduced model of order K the sideways velocity is the slip on the truncated slow
    manifold, v = sum_{j<=K} eps^j h_v^(j)(u, psi), and omega = psi - k v; psi is the model's
    own state u_D[phi]. The coordinate velocity is the model's physical velocity
    (``result.velocity``), so any model with coordinates (x, y, phi) has a view.
    """
    c = sleigh_constants(result)
    u, v, omega = body_velocities(result.q, result.velocity)
    return SleighView(result.t, *result.q, u, v, omega, omega + c.k * v)


def body_rhs(model, t: float, x, y, phi, u, v, omega, params: Mapping | None = None) -> np.ndarray:
    """The model's vector field in (x, y, phi, u, v, omega), pulled back from ``model.rhs``.

    u' = x'' cos phi + y'' sin phi + omega v, v' = -x'' sin phi + y'' cos phi - omega u,
    omega' = phi''. For nonholonomic and friction models (state [q, q']).
    """
    if model.state_names != [*model.system.coordinate_names, *model.system.velocity_names]:
        raise ValueError(f"body_rhs needs a model with state [q, q'] (nonholonomic or friction), got {model!r}")
    f = model.rhs(t, sleigh_state(x, y, phi, u, v, omega), params)
    c, s = np.cos(phi), np.sin(phi)
    u_dot = f[3] * c + f[4] * s + omega * v
    v_dot = -f[3] * s + f[4] * c - omega * u
    return np.array([*f[:3], u_dot, v_dot, f[5]])


def frame_rhs(model, t: float, x, y, phi, u, v, psi, params: Mapping | None = None) -> np.ndarray:
    """The model's vector field in the G-orthogonal variables (x, y, phi, u, v, psi), eq. (38).

    psi' = omega' + k v' with omega = psi - k v; pulled back from ``model.rhs``.
    """
    k = sleigh_constants(model, params).k
    d = body_rhs(model, t, x, y, phi, u, v, psi - k * v, params)
    return np.array([*d[:5], d[5] + k * d[4]])
