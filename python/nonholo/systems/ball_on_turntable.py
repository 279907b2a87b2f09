r"""A homogeneous ball rolling without slipping on a uniformly rotating table.

Lewis and Murray (1995), section 3 (3.1-3.4) and appendix D; the paper's misprints that this
model corrects, and the tests that show them, are listed in docs/errata.md.

Configuration
-------------
``(x, y, q0, q1, q2, q3)``: the contact point (= the horizontal position of the centre) in
inertial axes, and a quaternion ``q`` for the attitude R in SO(3) (Lewis-Murray section 3 uses
R^2 x SO(3); S^3 is its double cover and has global coordinates). The spatial angular velocity
is

    xi = 2 E(q) q',    E(q) = [[-q1,  q0, -q3,  q2],
                               [-q2,  q3,  q0, -q1],
                               [-q3, -q2,  q1,  q0]],

i.e. ``q' = 1/2 (0, xi) * q`` (quaternion product; R' R^T = hat(xi)). ``E E^T = |q|^2 Id_3``
and ``E q = 0``.

Kinetic energy and metric
-------------------------
    T = 1/2 m (x'^2 + y'^2) + 1/2 I |xi|^2 + 2 I (q . q')^2
      = 1/2 m (x'^2 + y'^2) + 2 I |q|^2 |q'|^2,

(``4 E^T E = 4 (|q|^2 Id_4 - q q^T)``), so G = diag(m, m, 4 I |q|^2 Id_4), positive definite for
q != 0. The last term of T vanishes on the constraint set (third row below), where T is the
ball's kinetic energy 1/2 m |V|^2 + 1/2 I |xi|^2 (Lewis-Murray section 3); it only makes the metric
of the 6 coordinates regular. I = kappa m r^2 with kappa = 2/5 for a solid ball.

Constraints A(q) v = b(q)
-------------------------
    x' - r xi2 = -Omega y      (rolling, Lewis-Murray section 3)
    y' + r xi1 =  Omega x      (rolling)
    q . q'     =  0            (|q| = 1: integrable, b = 0)

The third row is holonomic in the sense of Lewis-Murray section 2.3 (omega = d(|q|^2/2) is
closed, b = 0): its multiplier only carries the normal force that keeps q on S^3, and it adds
nothing to the curvature or affine terms of the vakonomic equations (2.2), so both the
Lagrange-d'Alembert and the vakonomic model of this system are those of the ball on
R^2 x S^3 (tests/test_lewis_murray.py checks them against the paper's reduced equations and
a 7-state vakonomic system that we reduced from the paper's (3.11)-(3.15)).

The third row is needed. Without it the radial direction of q is a free degree of freedom. The
rotational energy 2 I |q|^2 |q'_tan|^2 then pushes |q| outward, which is a growing moment of
inertia that no ball has. With the row, both models are exact, and they do not depend on the
multiple of (q . q')^2 in T. Measured over 1 s from the paper's initial state: without the row
|q| reaches 7.7 (nonholonomic) and 6.5 (vakonomic), and the contact point ends several cm off.
With the row, changing the multiple from 4 I to I or 40 I changes nothing beyond the integration
error (4e-7 on states of size 1e2).

Forces (Lewis-Murray section 3.2), as generalized forces F(q, v)
----------------------------------------------------------------
- translational viscous: (F_x, F_y) = -nu (x', y') (inertial velocity);
- rolling friction, with the velocity of the ball relative to the table
  v_rel = (x' + Omega y, y' - Omega x) and s = sqrt(|v_rel|^2 + v_reg^2):
  ``"derived"``: (F_x, F_y) = -delta m g v_rel / s, which enters the reduced equation as
  + delta m g r^2 v_rel/|v_rel| (our derivation; see docs/errata.md);
  ``"paper_printed"``: (F_x, F_y) = +delta m g v_rel / (r^2 s), which reproduces the printed
  (3.6) term - delta m g v_rel/|v_rel| (wrong sign, no r^2; Table 1 was computed with it);
- rotational viscous (air): spatial torque tau = (-mu xi1, -mu xi2, 0), generalized force
  F_q = 2 E(q)^T tau (virtual work tau . delta theta with delta theta = 2 E(q) delta q).
  There is no spin friction: xi3 is conserved by the nonholonomic model.

The rolling term is singular at v_rel = 0; v_reg regularizes it. Its default 1e-3 (cm/s in
CGS) changes the force by the relative amount v_reg^2/(2 |v_rel|^2) < 1e-8 on the paper's
runs, where |v_rel| >= 9 cm/s (our computation), and gives the equilibrium at the table
centre a well-defined (zero) force.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..viz import drawing as dr
from ..system.system import System
from .arguments import number_or_symbol

__all__ = ["ball_on_turntable", "quaternion_rate_matrix", "ball_state", "angular_velocity", "spin",
           "rotation_matrices", "ROLLING_FRICTION"]

ROLLING_FRICTION = ("derived", "paper_printed")


def quaternion_rate_matrix(q):
    r"""E(q), 3 x 4, with xi = 2 E(q) q' the spatial angular velocity (rows xi1, xi2, xi3).

    Works on SymPy symbols and on NumPy arrays of shape (4,) or (4, n) (then (3, 4, n)).
    """
    q0, q1, q2, q3 = q
    rows = [[-q1, q0, -q3, q2], [-q2, q3, q0, -q1], [-q3, -q2, q1, q0]]
    if isinstance(q0, sp.Basic):
        return sp.Matrix(rows)
    return np.array(rows, dtype=float)


def _rolling_force(x_dot, y_dot, x, y, Omega, m, g, r, delta, v_reg, mode: str):
    """(F_x, F_y) of rolling friction (Lewis-Murray section 3.2), regularized at v_rel = 0."""
    vx, vy = x_dot + Omega * y, y_dot - Omega * x
    s = sp.sqrt(vx**2 + vy**2 + v_reg**2)
    scale = -delta * m * g if mode == "derived" else delta * m * g / r**2
    return scale * vx / s, scale * vy / s


def ball_on_turntable(m: float = 66.926, r: float = 1.27, Omega: float = 1.5 * np.pi, nu: float = 0.0,
                      mu: float = 0.0, delta: float = 0.0, g: float = 980.0,
                      rolling_friction: str = "derived", v_reg: float = 1e-3,
                      inertia_ratio: float = 0.4) -> System:
    r"""The ball on a rotating table of Lewis and Murray (1995), as an ordinary :class:`System`.

    Parameters
    ----------
    m, r : float
        Mass and radius of the ball (defaults: the paper's 2.54 cm diameter steel ball in CGS,
        m = 66.926 g, r = 1.27 cm; Lewis-Murray section 3.3, density 7.8 g/cm^3).
    Omega : float
        Angular velocity of the table (rad/s; positive = counter-clockwise seen from above; the
        paper's 45 rpm = 1.5 pi).
    nu, mu, delta : float
        Translational viscous, rotational viscous and rolling friction (Lewis-Murray section 3.2;
        CGS units g/s, g cm^2/s and dimensionless, which the paper does not state).
    g : float
        Gravity (980 cm/s^2; it enters the rolling friction only).
    rolling_friction : {"derived", "paper_printed"}
        "derived": -delta m g v_rel/|v_rel| on the ball (dissipative relative to the table);
        "paper_printed": the term of the printed eq. (3.6), which Table 1 used. See the module
        docstring and docs/errata.md.
    v_reg : float
        Regularization speed of the rolling friction, v_rel/sqrt(|v_rel|^2 + v_reg^2).
    inertia_ratio : float
        kappa = I/(m r^2): 2/5 for the paper's solid ball.

    Returns
    -------
    System
        Coordinates ``(x, y, q0, q1, q2, q3)``; states ``[q, v]`` (nonholonomic) and
        ``[q, v, lambda_0, lambda_1, lambda_2]`` (vakonomic; lambda_0, lambda_1 are the paper's
        lambda1, lambda2 of (3.8), lambda_2 the multiplier of |q| = 1). Runtime parameters
        m, r, Omega, nu, mu, delta, g, v_reg, kappa. Build initial states with
        :func:`ball_state`; read xi, xi3 and R with :func:`angular_velocity`, :func:`spin`,
        :func:`rotation_matrices`.

    Notes
    -----
    Nonholonomic reduced form (Lewis-Murray eq. (3.6) with the derived rolling term, see
    docs/errata.md), with J = I + m r^2:

        J x'' + (mu + nu r^2) x' + I Omega y' + mu Omega y + delta m g r^2 v_x/|v| = 0
        J y'' - I Omega x' + (mu + nu r^2) y' - mu Omega x + delta m g r^2 v_y/|v| = 0

    and xi3' = 0. The vakonomic model is the 7-state system to which we reduce the paper's
    (3.11)-(3.15) (section 3.4).
    """
    if rolling_friction not in ROLLING_FRICTION:
        raise ValueError(f"rolling_friction must be one of {ROLLING_FRICTION}, got {rolling_friction!r}")
    m, r, v_reg, inertia_ratio = (number_or_symbol(v, name, positive=True) for v, name in (
        (m, "m"), (r, "r"), (v_reg, "v_reg"), (inertia_ratio, "inertia_ratio")))
    nu, mu, delta = (number_or_symbol(v, name, non_negative=True)
                     for v, name in ((nu, "nu"), (mu, "mu"), (delta, "delta")))
    Omega, g = number_or_symbol(Omega, "Omega"), number_or_symbol(g, "g")
    x, y, q0, q1, q2, q3 = coords = sp.symbols("x y q0 q1 q2 q3")
    vel = sp.symbols("x_dot y_dot q0_dot q1_dot q2_dot q3_dot")
    m_, r_, Om, nu_, mu_, de, g_, vr, ka = sp.symbols("m r Omega nu mu delta g v_reg kappa", real=True)
    q, qd = sp.Matrix([q0, q1, q2, q3]), sp.Matrix(vel[2:])
    E = quaternion_rate_matrix(q)
    xi = 2 * E * qd
    I_ = ka * m_ * r_**2

    V = sp.Matrix(vel[:2])
    T = m_ * (V.T * V)[0] / 2 + I_ * (xi.T * xi)[0] / 2 + 2 * I_ * (q.T * qd)[0] ** 2
    G = sp.simplify(sp.hessian(T, vel))

    A = sp.Matrix([
        [1, 0, *(-2 * r_ * E[1, :])],
        [0, 1, *(2 * r_ * E[0, :])],
        [0, 0, q0, q1, q2, q3],
    ])
    b = sp.Matrix([-Om * y, Om * x, 0])

    Fx, Fy = _rolling_force(vel[0], vel[1], x, y, Om, m_, g_, r_, de, vr, rolling_friction)
    tau = sp.Matrix([-mu_ * xi[0], -mu_ * xi[1], 0])
    F = sp.Matrix([-nu_ * vel[0] + Fx, -nu_ * vel[1] + Fy, *(2 * E.T * tau)])

    params = {m_: m, r_: r, Om: Omega, nu_: nu, mu_: mu, de: delta, g_: g, vr: v_reg, ka: inertia_ratio}
    system = System(list(coords), G, constraints=A, affine=b, force=F, parameters=params, velocities=list(vel),
                    contacts=[[0, 1]],  # the ball's contact; row 2, q . q' = 0, is no contact's (ideal)
                    name=f"ball on a rotating table ({rolling_friction} rolling friction)")
    system.drawing = dr.rigid_body(ball_pose, shape="ball", radius="r", contact=ball_contact, scenery=table_spoke)
    return system


def _param(system: System, params, name: str) -> float:
    return float(dict(zip(system.parameter_names, system.param_vector(params)))[name])


def _quaternion_product(a, b) -> np.ndarray:
    a0, av, b0, bv = a[0], np.asarray(a[1:]), b[0], np.asarray(b[1:])
    return np.array([a0 * b0 - av @ bv, *(a0 * bv + b0 * av + np.cross(av, bv))])


def ball_state(system: System, x: float, y: float, x_dot: float, y_dot: float, xi3: float = 0.0,
               quaternion=(1.0, 0.0, 0.0, 0.0), multipliers=None, params=None) -> np.ndarray:
    r"""An initial state of ``system`` (from :func:`ball_on_turntable`) on the constraint set.

    xi1 = (Omega x - y')/r and xi2 = (x' + Omega y)/r follow from the rolling constraints
    (eq. (3.2)), xi3 is free; q' = 1/2 (0, xi) * q. With ``multipliers = (lambda1, lambda2)``
    (or three values) the state is a vakonomic one, ``[q, v, lambda1, lambda2, 0]``: the
    multiplier of |q| = 1 enters the dynamics only through its derivative (its one-form is
    closed and its b is 0), so its initial value is immaterial.
    """
    r, Omega = _param(system, params, "r"), _param(system, params, "Omega")
    quat = np.asarray(quaternion, dtype=float)
    quat = quat / np.linalg.norm(quat)
    xi = np.array([(Omega * x - y_dot) / r, (x_dot + Omega * y) / r, xi3])
    q_dot = 0.5 * _quaternion_product(np.r_[0.0, xi], quat)
    state = [x, y, *quat, x_dot, y_dot, *q_dot]
    if multipliers is not None:
        lam = list(np.asarray(multipliers, dtype=float).reshape(-1))
        if len(lam) not in (2, 3):
            raise ValueError(f"multipliers must have 2 or 3 values (lambda1, lambda2[, lambda_norm]), got {len(lam)}")
        state += lam + [0.0] * (3 - len(lam))
    return np.array(state, dtype=float)


def angular_velocity(result) -> np.ndarray:
    r"""The spatial angular velocity xi = 2 E(q) q' along a result, shape (3, n_t)."""
    q, q_dot = result.y[2:6], result.y[8:12]
    return 2.0 * np.einsum("ijt,jt->it", quaternion_rate_matrix(q), q_dot)


def spin(result) -> np.ndarray:
    r"""xi3, the spin about the vertical (``omega3`` of the paper's section 3.5), shape (n_t,)."""
    return angular_velocity(result)[2]


def rotation_matrices(result) -> np.ndarray:
    r"""The attitude R(t) in SO(3) from the (normalized) quaternion, shape (n_t, 3, 3).

    R = (q0^2 - |w|^2) Id + 2 w w^T + 2 q0 hat(w) with q = (q0, w); R' R^T = hat(xi).
    """
    return attitude(result.y[2:6])


def attitude(quaternion) -> np.ndarray:
    r"""R in SO(3) from quaternions, shape (4,) -> (3, 3) or (4, n_t) -> (n_t, 3, 3) (normalized first)."""
    single = np.ndim(quaternion) == 1
    q = np.asarray(quaternion, dtype=float).reshape(4, -1)
    q = q / np.linalg.norm(q, axis=0)
    q0, w = q[0], q[1:].T
    R = (q0**2 - np.einsum("ti,ti->t", w, w))[:, None, None] * np.eye(3)
    R = R + 2 * np.einsum("ti,tj->tij", w, w)
    hat = np.zeros_like(R)
    hat[:, 0, 1], hat[:, 0, 2], hat[:, 1, 2] = -w[:, 2], w[:, 1], -w[:, 0]
    hat = hat - hat.transpose(0, 2, 1)
    R = R + 2 * q0[:, None, None] * hat
    return R[0] if single else R


def ball_pose(q, params):
    """Centre (x, y, r) and attitude of the ball."""
    q = np.asarray(q, dtype=float)
    return np.array([q[0], q[1], params["r"]]), attitude(q[2:6])


def ball_contact(q, params):
    """The contact point (x, y, 0) on the table."""
    return np.array([q[0], q[1], 0.0])


def table_spoke(q, t, params) -> list:
    """A radius of the table turning with it (angle Omega t), long enough to reach the ball."""
    reach = 1.2 * max(float(np.hypot(q[0], q[1])), 4 * params["r"])
    angle = params["Omega"] * t
    return [dr.line([[0, 0, 0], [reach * np.cos(angle), reach * np.sin(angle), 0]], color="0.5", linewidth=2)]
