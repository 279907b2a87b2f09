r"""The rattleback (celt): an ellipsoid whose principal axes of inertia are turned about the
vertical against its geometric axes, rolling on a horizontal plane.

T. R. Kane and D. A. Levinson, "Realistic mathematical modeling of the rattleback", Int. J.
Non-Linear Mech. 17 (1982) 175-186. Their parameters (per unit mass, SI): semi-axes a = 0.20,
b = 0.03, c = 0.02 m, centre of mass h = 0.01 m from the centre towards the contact, moments
A = 2e-4, B = 1.6e-3, C = 1.7e-3 m^2 and product of inertia D = -2e-5 m^2 in the a-b plane,
g = 9.81 m/s^2, and the initial data: tilts alpha = beta = 0.5 deg, spin -5 rad/s about their
third axis, no rocking. Their body frame has its third axis pointing down (towards the
contact); ours has it up, turned by pi about the first axis, so that here I_12 = -D = +2e-5,
the centre of mass is at (0, 0, -h) and the initial spin is +5 rad/s about body z
(:func:`kane_levinson_state`).

The rolling model is not stiff (its fastest modes are the rocking ones, |lambda| <= 3e2 s^-1
along Kane and Levinson's run), but the rocking at ~30 and ~100 rad/s makes a 5 s run at
rtol 1e-10 take many steps, each a right-hand side of ~4e3 tape instructions: the default
(``method="auto"``, DOP853 on this non-stiff model, with the drift projected onto the
constraints and |q| = 1 between steps) takes about 4,200, Adams about 19,000 and BDF about
38,000; benchmarks/rolling_bodies.py has the numbers."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..builders.bodies import RigidBody, quaternion_with_down
from ..builders.contact import Ellipsoid, roll_on_plane, rolling_state, spatial_angular_velocity
from ..system.system import System
from .arguments import not_text

__all__ = ["rattleback", "kane_levinson_state", "KANE_LEVINSON", "reversal_time", "vertical_spin"]

KANE_LEVINSON = dict(m=1.0, a=0.20, b=0.03, c=0.02, h=0.01, A=2e-4, B=1.6e-3, C=1.7e-3, D=-2e-5, g=9.81)


def rattleback(friction: str | None = None, eps: float = 1e-3, friction_coefficient: float = 1.0,
               **params) -> System:
    """The Kane-Levinson rattleback (module docstring); keyword arguments override
    :data:`KANE_LEVINSON` (m, a, b, c, h, A, B, C, D, g; A..D per unit mass, as in the paper).
    ``friction``: None (no slip), "viscous" or "coulomb" (see :func:`~nonholo.contact.roll_on_plane`)."""
    eps, friction_coefficient = not_text(eps, "eps", optional=True), not_text(friction_coefficient,
                                                                              "friction_coefficient")
    unknown = set(params) - set(KANE_LEVINSON)
    if unknown:
        raise ValueError(f"unknown rattleback parameters {sorted(unknown)}; known: {sorted(KANE_LEVINSON)}")
    values = {**KANE_LEVINSON, **params}
    m, a, b, c, h, A, B, C, D, g = syms = sp.symbols("m a b c h A B C D g")
    inertia = m * sp.Matrix([[A, -D, 0], [-D, B, 0], [0, 0, C]])
    body = RigidBody(m, inertia, com_offset=(0, 0, -h))
    return roll_on_plane(body, Ellipsoid(a, b, c), gravity=g, friction=friction, eps=eps,
                         friction_coefficient=friction_coefficient,
                         parameters={s: values[s.name] for s in syms}, name="rattleback")


def kane_levinson_state(system: System, alpha: float = np.radians(0.5), beta: float = np.radians(0.5),
                        spin: float = -5.0, params=None) -> np.ndarray:
    """The initial state of Kane and Levinson (1982) in this system's frame: their downward
    vertical (-cos(alpha) sin(beta), sin(alpha), cos(alpha) cos(beta)) and angular velocity
    (0, 0, spin) in their axes, turned by pi about the first axis; rolling without slip."""
    mu = np.array([-np.cos(alpha) * np.sin(beta), np.sin(alpha), np.cos(alpha) * np.cos(beta)])
    flip = np.array([1.0, -1.0, -1.0])
    gamma, omega = flip * mu, flip * np.array([0.0, 0.0, spin])
    return rolling_state(system, quaternion_with_down(gamma), omega, params=params)


def vertical_spin(result) -> np.ndarray:
    """omega . e_z, the spin about the vertical in space axes, along a result: (n_t,)."""
    return spatial_angular_velocity(result.q, result.velocity)[2]


def reversal_time(t, spin, window: float = 0.0) -> float:
    r"""The first time the spin turns from positive to negative (linear interpolation between
    samples), or nan if it does not.

    With ``window`` > 0 the spin is first averaged over that many seconds (a moving average
    over uniformly spaced samples t, centred): the rocking the rattleback picks up while it
    reverses makes the spin itself dip through zero and back several times (Kane and Levinson's
    body spin first touches zero at 2.3527 s, the averaged spin crosses for good near 2.80 s);
    the average removes the rocking and leaves the slow reversal, a smooth function of the
    model's parameters (and of eps for the friction realizations)."""
    t, w = np.asarray(t, dtype=float), np.asarray(spin, dtype=float)
    if t.ndim != 1 or t.shape != w.shape or t.size < 2:
        raise ValueError(f"t and spin must be 1-D arrays of the same length >= 2, got {t.shape} and {w.shape}")
    if window > 0:
        dt = np.diff(t)
        if not np.allclose(dt, dt[0], rtol=1e-9, atol=0):
            raise ValueError("t must be uniformly spaced when window > 0")
        k = int(round(window / dt[0]))
        if not 1 <= k <= t.size:
            raise ValueError(f"window must span between one sample and the whole run, got {window}")
        w = np.convolve(w, np.ones(k) / k, mode="valid")
        t = t[: w.size] + (k - 1) * dt[0] / 2
    i = np.nonzero((w[:-1] > 0) & (w[1:] <= 0))[0]
    if not i.size:
        return float("nan")
    i = i[0]
    return float(t[i] - w[i] * (t[i + 1] - t[i]) / (w[i + 1] - w[i]))
