"""The vertical rolling disk (Gzenda-Chhabra section 5; Mestdag-Crampin 2010)."""

import numpy as np
import sympy as sp

from ..viz import drawing as dr
from ..system.system import System
from .arguments import real


def vertical_rolling_disk(m: float = 1.0, R: float = 1.0, I: float = 0.25, J: float = 0.5,
                          mu: float = 1.0) -> System:
    r"""A disk rolling upright without slipping: coordinates (theta, x, y, phi).

    theta is the heading, (x, y) the contact point, phi the rolling angle; m the mass, R the
    radius, I the moment of inertia about the vertical axis, J about the rolling axis.
    Metric G = diag(I, m, m, J) (Gzenda-Chhabra eq. (72)); rolling constraints
    ``x' - R cos(theta) phi' = 0``, ``y' - R sin(theta) phi' = 0`` (eqs. (73)-(75)); friction
    coefficient ``mu`` on both (eq. (81)). Parameters: m, R, I, J, mu. State order
    ``[theta, x, y, phi, theta_dot, x_dot, y_dot, phi_dot]``.

    Nonholonomic motion: theta' and phi' are constant and the contact point runs on a circle
    of radius R phi'/theta'.
    """
    m, R, I, J = (real(v, name, positive=True) for v, name in ((m, "m"), (R, "R"), (I, "I"), (J, "J")))  # noqa: E741
    mu = real(mu, "mu", non_negative=True)
    theta, x, y, phi = sp.symbols("theta x y phi")
    m_, R_, I_, J_, mu_ = sp.symbols("m R I J mu", positive=True)
    G = sp.diag(I_, m_, m_, J_)
    A = sp.Matrix([
        [0, 1, 0, -R_ * sp.cos(theta)],
        [0, 0, 1, -R_ * sp.sin(theta)],
    ])
    system = System(
        [theta, x, y, phi], G, constraints=A, friction=mu_ * sp.eye(2),
        parameters={m_: m, R_: R, I_: I, J_: J, mu_: mu}, name="vertical rolling disk",
        contacts=[[0, 1]],  # one contact: its cone bounds the friction force's magnitude, whatever the heading
    )
    system.drawing = dr.rigid_body(disk_pose, shape="disc", radius="R", contact=disk_contact)
    return system


def disk_pose(q, params):
    """Centre (x, y, R) and attitude R_z(theta) R_y(phi): the axle is the body y axis, and rolling
    forward (x' = R cos(theta) phi') turns the disc about it by phi."""
    theta, x, y, phi = np.asarray(q, dtype=float)[:4]
    return np.array([x, y, params["R"]]), dr.rotation_z(theta) @ dr.rotation_y(phi)


def disk_contact(q, params):
    """The contact point (x, y, 0)."""
    return np.array([q[1], q[2], 0.0])
