r"""Exact solutions of the vertical rolling disk: the stiff friction model, its exact slow
manifold, and the closed forms of the reduced models of order 0 and 1.

Our derivation, not in Gzenda-Chhabra (whose disk example is section 5). With the
heading rate Omega = v_theta constant (theta = theta0 + Omega t, exactly, for every eps), the
forward and lateral velocities u = cos(theta) v_x + sin(theta) v_y, w = -sin(theta) v_x +
cos(theta) v_y and the rolling rate v_phi of the friction model obey a constant-coefficient
linear system, k = mu/eps:

    d/dt (u, w, v_phi) = Amat (u, w, v_phi),   Amat = [[-k/m,    Omega, k R/m   ],
                                                        [-Omega,  -k/m,  0       ],
                                                        [ k R/J,  0,     -k R^2/J]].

The contact point, written in the turning frame, X + i Y = e^{-i theta} (x + i y), obeys
X' = Omega Y + u, Y' = -Omega X + w: also constant coefficients. So the whole state of the stiff
model at any time is one matrix exponential of a 6 x 6 matrix (:func:`stiff_solution`), an
oracle for the stiff integrator that involves no time stepping.

The slow manifold is the eigenvector of Amat of the eigenvalue of smallest modulus
(:func:`slow_manifold`); its series in eps reproduces h^(1), h^(2), h^(3) of nonholo's general
engine (tests/test_slow_manifold.py). State order everywhere is nonholo's:
``[theta, x, y, phi, v_theta, v_x, v_y, v_phi]``; parameters as in
:func:`nonholo.systems.vertical_rolling_disk` (m, R, I, J, mu).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import expm

__all__ = [
    "DEFAULTS", "disk_parameters", "rotating_frame_matrix", "stiff_solution", "slow_rate", "slow_rate_series",
    "SlowSection", "slow_section", "slow_manifold", "reduced_closed_form", "slips", "rolling_speed", "rolling_circle",
    "slip_coefficients",
]

DEFAULTS = dict(m=1.0, R=1.0, I=0.25, J=0.5, mu=1.0)


def disk_parameters(system=None, **overrides) -> dict:
    """{m, R, I, J, mu}: the defaults of :func:`vertical_rolling_disk`, those of ``system`` (a
    disk built by it) if given, then ``overrides``."""
    values = dict(DEFAULTS)
    if system is not None:
        values.update({s.name: float(v) for s, v in system.parameters.items() if s.name in DEFAULTS})
    unknown = set(overrides) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown disk parameters {sorted(unknown)}; the parameters are {sorted(DEFAULTS)}")
    values.update({k: float(v) for k, v in overrides.items()})
    for name, value in values.items():
        if name != "I" and not value > 0:
            raise ValueError(f"{name} must be positive, got {value}")
    return values


def _params(params) -> dict:
    return disk_parameters(**(params or {}))


def rotating_frame_matrix(eps: float, omega: float, params=None) -> np.ndarray:
    """Amat (3 x 3): d/dt (u, w, v_phi) = Amat (u, w, v_phi) for the friction model."""
    p = _params(params)
    if not eps > 0:
        raise ValueError(f"eps must be positive, got {eps}")
    k, m, R, J = p["mu"] / eps, p["m"], p["R"], p["J"]
    return np.array([[-k / m, omega, k * R / m], [-omega, -k / m, 0.0], [k * R / J, 0.0, -k * R**2 / J]])


def _generator(eps: float, omega: float, params) -> np.ndarray:
    """6 x 6 matrix of (u, w, v_phi, X, Y, phi), X + i Y = e^{-i theta} (x + i y)."""
    B = np.zeros((6, 6))
    B[:3, :3] = rotating_frame_matrix(eps, omega, params)
    B[3, 4], B[3, 0] = omega, 1.0     # X' = Omega Y + u
    B[4, 3], B[4, 1] = -omega, 1.0    # Y' = -Omega X + w
    B[5, 2] = 1.0                     # phi' = v_phi
    return B


def _to_turning(y0) -> tuple:
    y0 = np.asarray(y0, dtype=float)
    if y0.shape != (8,) or not np.all(np.isfinite(y0)):
        raise ValueError(f"y0 must be 8 finite numbers [theta, x, y, phi, v_theta, v_x, v_y, v_phi], got {y0!r}")
    theta0, x0, y0_, phi0, omega, vx, vy, vphi = y0
    c, s = np.cos(theta0), np.sin(theta0)
    z = np.array([c * vx + s * vy, -s * vx + c * vy, vphi, c * x0 + s * y0_, -s * x0 + c * y0_, phi0])
    return theta0, omega, z


def stiff_solution(t, y0, eps: float, params=None, t0: float = 0.0, precision: str = "auto") -> np.ndarray:
    """The friction model ``vertical_rolling_disk().friction(eps)`` at times ``t``, exactly.

    Parameters
    ----------
    t : array_like, shape (n_t,)
    y0 : array_like, shape (8,)
        ``[theta, x, y, phi, v_theta, v_x, v_y, v_phi]`` at ``t0``; any velocity (on or off the
        slow manifold: the initial layer is part of the solution).
    eps : float
    params : mapping, optional
        m, R, J, mu (I does not enter the motion).
    precision : {"auto", "double", "high"}
        ``"double"``: ``scipy.linalg.expm`` of the 6 x 6 generator B (t - t0). Its error grows
        like 1e-16 |B (t - t0)|: 2e-11 at eps = 1e-4 and 2e-9 at eps = 1e-6 over t = 4 (measured
        against 40 digits). ``"high"``: ``mpmath.expm`` at 30 significant digits (about 15 ms per
        time). ``"auto"`` (default) takes "high" where |B (t - t0)|_1 > 1e3, so that the
        result is correct to about 1e-13 relative for every eps.

    Returns
    -------
    ndarray, shape (8, n_t)
        One matrix exponential per output time (no propagation of errors from one output
        time to the next).
    """
    if precision not in ("auto", "double", "high"):
        raise ValueError(f"precision must be 'auto', 'double' or 'high', got {precision!r}")
    t = np.atleast_1d(np.asarray(t, dtype=float))
    theta0, omega, z0 = _to_turning(y0)
    B = _generator(eps, omega, params)
    out = np.empty((8, t.size))
    for i, ti in enumerate(t):
        tau = ti - t0
        high = precision == "high" or (precision == "auto" and np.abs(B * tau).sum(axis=0).max() > 1e3)
        u, w, vphi, X, Y, phi = _expm_high(B, tau, z0) if high else expm(B * tau) @ z0
        theta = theta0 + omega * tau
        c, s = np.cos(theta), np.sin(theta)
        out[:, i] = [theta, c * X - s * Y, s * X + c * Y, phi, omega, c * u - s * w, s * u + c * w, vphi]
    return out


def _expm_high(B: np.ndarray, tau: float, z0: np.ndarray, digits: int = 30) -> np.ndarray:
    """expm(B tau) z0 with mpmath at ``digits`` significant digits (B, tau, z0 taken as exact)."""
    import mpmath

    with mpmath.workdps(digits):
        E = mpmath.expm(mpmath.matrix(B.tolist()) * mpmath.mpf(tau))
        return np.array([float(x) for x in E * mpmath.matrix(z0.tolist())])


def slips(y, params=None) -> tuple:
    """(lateral slip w, forward slip u - R v_phi) of the contact point, for states y of shape
    (8,) or (8, n_t)."""
    R = _params(params)["R"]
    y = np.asarray(y, dtype=float)
    theta, vx, vy, vphi = y[0], y[5], y[6], y[7]
    c, s = np.cos(theta), np.sin(theta)
    return -s * vx + c * vy, c * vx + s * vy - R * vphi


def rolling_speed(y, params=None):
    """(P v)_phi = (J v_phi + m R u)/(J + m R^2): the rolling rate of the G-orthogonal projection
    onto D (the "rolling momentum" divided by J + m R^2), of states y (8,) or (8, n_t)."""
    p = _params(params)
    y = np.asarray(y, dtype=float)
    u = np.cos(y[0]) * y[5] + np.sin(y[0]) * y[6]
    return (p["J"] * y[7] + p["m"] * p["R"] * u) / (p["J"] + p["m"] * p["R"] ** 2)


def slow_rate(eps: float, omega: float, params=None) -> float:
    """The exact slow eigenvalue lambda(eps) of Amat: on the slow manifold the rolling rate
    decays as exp(lambda t)."""
    return _slow_eig(eps, omega, params)[0]


def slow_rate_series(eps: float, omega: float, params=None) -> float:
    """eps l1 + eps^3 l3 (our derivation): the first two nonzero terms of lambda(eps)."""
    p = _params(params)
    m, R, J, mu = p["m"], p["R"], p["J"], p["mu"]
    S = J + m * R**2
    l1 = -(m**2) * R**2 * omega**2 / (mu * S)
    l3 = -(m**4) * R**2 * omega**4 * (m**2 * R**4 + m * J * R**2 - J**2) / (mu**3 * S**3)
    return eps * l1 + eps**3 * l3


def _slow_eig(eps, omega, params):
    """The slow eigenvalue of Amat and the section coefficients (beta, gamma) of its eigenvector,
    computed at 30 digits (mpmath): in double precision the slow eigenvalue eps l1 + ... carries
    an absolute error ~1e-16 |Amat| ~ 1e-16 mu/eps (a relative error of 1e-4 at eps = 1e-6), and
    the forward slip u - R v_phi = O(eps^2) of the eigenvector cancels digits."""
    import mpmath

    p = _params(params)
    A = rotating_frame_matrix(eps, omega, params)
    with mpmath.workdps(30):
        values, vectors = mpmath.eig(mpmath.matrix(A.tolist()))
        i = min(range(3), key=lambda j: abs(values[j]))
        lam = values[i]
        if abs(mpmath.im(lam)) > 1e-20 * max(1, abs(lam)):
            raise ValueError(f"no real slow eigenvalue at eps = {eps}, Omega = {omega} (lambda = {complex(lam)}): "
                             "the time scales are not separated")
        u, w, vphi = (mpmath.re(vectors[j, i]) for j in range(3))
        m, R, J = (mpmath.mpf(p[name]) for name in ("m", "R", "J"))
        S = J + m * R**2
        s_f = u - R * vphi
        alpha = vphi + m * R * s_f / S          # (P v)_phi of the eigenvector
        return float(mpmath.re(lam)), float(m * J * s_f / S / alpha), float(w / alpha)


@dataclass
class SlowSection:
    """The exact slow manifold of the disk as a section over D, per unit rolling rate alpha:
    h_eps(v_D) = alpha [beta (0, cos/m, sin/m, -R/J) + gamma (0, -sin, cos, 0)].

    ``beta`` is the forward-slip coefficient (eps^2 b2 + eps^4 b4 + ...), ``gamma`` the lateral
    one (eps g1 + eps^3 g3 + ...), ``rate`` the slow eigenvalue lambda(eps);
    ``lateral_slip`` = gamma and ``forward_slip`` = beta (J + m R^2)/(m J) are the slips of the
    contact point per unit alpha."""

    eps: float
    omega: float
    rate: float
    beta: float
    gamma: float
    lateral_slip: float
    forward_slip: float


def slow_section(eps: float, omega: float, params=None) -> SlowSection:
    """The exact slow manifold's coefficients (beta, gamma) and slow rate at (eps, Omega)."""
    p = _params(params)
    m, R, J = p["m"], p["R"], p["J"]
    S = J + m * R**2
    lam, beta, gamma = _slow_eig(eps, omega, params)
    return SlowSection(eps, omega, lam, beta, gamma, lateral_slip=gamma, forward_slip=beta * S / (m * J))


def slow_manifold(q, u, eps: float, params=None) -> np.ndarray:
    """The velocity on the exact slow manifold above u in D at q, shape (4,).

    u must satisfy the rolling constraints (u_x = R cos(theta) u_phi, u_y = R sin(theta) u_phi).
    Start the friction model at ``[q, slow_manifold(q, u, eps)]`` to have no initial layer at all.
    """
    p = _params(params)
    q, u = np.asarray(q, dtype=float), np.asarray(u, dtype=float)
    theta, alpha = q[0], u[3]
    c, s = np.cos(theta), np.sin(theta)
    if abs(u[1] - p["R"] * c * alpha) + abs(u[2] - p["R"] * s * alpha) > 1e-9 * (1 + np.abs(u).max()):
        raise ValueError("u must lie on D: u_x = R cos(theta) u_phi and u_y = R sin(theta) u_phi")
    sec = slow_section(eps, u[0], params)
    return u + alpha * (sec.beta * np.array([0, c / p["m"], s / p["m"], -p["R"] / p["J"]])
                        + sec.gamma * np.array([0, -s, c, 0]))


def slip_coefficients(theta: float, w_theta: float, w_phi: float, params=None) -> np.ndarray:
    r"""h^(1), h^(2), h^(3), h^(4) of the slow manifold above u in D with heading rate w_theta and
    rolling rate w_phi at heading theta, shape (4, 4) (our derivation; h^(1) and h^(2) are
    Gzenda-Chhabra eqs. (85)-(86), section 5.1, h^(2) with the corrected sign: eq. (86) prints the
    opposite one, see docs/errata.md). With S = J + m R^2:

        h^(1) = (m R / mu) w_theta w_phi (0, sin, -cos, 0),
        h^(2) = -(m^2 R J^2 / (mu^2 S^2)) w_theta^2 w_phi (0, cos, sin, -m R / J),
        h^(3) = R m^3 w_theta^3 w_phi (m^2 R^4 + m J R^2 - J^2) / (mu^3 S^2) (0, sin, -cos, 0),
        h^(4) = w_phi b4 (0, cos/m, sin/m, -R/J),
        b4 = -J^2 R m^5 w_theta^4 (m^2 R^4 + 2 m J R^2 - J^2) / (mu^4 S^4).
    """
    p = _params(params)
    m, R, J, mu = p["m"], p["R"], p["J"], p["mu"]
    c, s = np.cos(theta), np.sin(theta)
    S = J + m * R**2
    lateral, forward = np.array([0, s, -c, 0]), np.array([0, c / m, s / m, -R / J])
    h1 = (m * R / mu) * w_theta * w_phi * lateral
    h2 = -(m**2 * R * J**2 / (mu**2 * S**2)) * w_theta**2 * w_phi * m * forward
    h3 = (R * m**3 * w_theta**3 * w_phi * (m**2 * R**4 + m * J * R**2 - J**2) / (mu**3 * S**2)) * lateral
    b4 = -J**2 * R * m**5 * w_theta**4 * (m**2 * R**4 + 2 * m * J * R**2 - J**2) / (mu**4 * S**4)
    return np.array([h1, h2, h3, w_phi * b4 * forward])


def _phi1(c: complex, t: np.ndarray) -> np.ndarray:
    """(exp(c t) - 1)/c, also for c t -> 0."""
    if c == 0:
        return t.astype(complex)
    ct = c * t
    return np.where(np.abs(ct) < 1e-8, t * (1 + ct / 2), np.expm1(ct) / c)


def reduced_closed_form(t, y0, eps: float = 0.0, order: int = 0, printed: bool = False, params=None) -> np.ndarray:
    """The reduced models of the disk in closed form (our derivation).

    Order 0 (nonholonomic): v_phi constant, the contact point on a circle of radius
    R v_phi/Omega. Order 1, corrected (89)/(90): v_phi = v_phi0 e^{-kappa t},
    kappa = eps m^2 R^2 Omega^2/(mu (J + m R^2)), and z = x + i y follows
    z' = R v_phi (1 - i eps m Omega/mu) e^{i theta}, an inward spiral. ``printed=True`` takes the
    sign of the eps-term of the printed eq. (89) instead: kappa -> -kappa, |v_phi| grows.

    ``y0`` = ``[theta, x, y, phi, u_theta, u_x, u_y, u_phi]`` with u on D. Returns (8, n_t) in
    the layout of ``nh.simulate(disk.reduced(eps, order), ...)``: coordinates and u = v_D = P v.
    """
    if order not in (0, 1):
        raise ValueError(f"order must be 0 or 1, got {order}")
    p = _params(params)
    m, R, J, mu = p["m"], p["R"], p["J"], p["mu"]
    t = np.atleast_1d(np.asarray(t, dtype=float))
    theta0, x0, y0_, phi0, omega, _, _, a0 = np.asarray(y0, dtype=float)
    e = eps if order == 1 else 0.0
    kappa = e * m**2 * R**2 * omega**2 / (mu * (J + m * R**2))
    if printed:
        kappa = -kappa
    theta = theta0 + omega * t
    a = a0 * np.exp(-kappa * t)
    phi = phi0 + a0 * np.real(_phi1(complex(-kappa), t))
    z = (x0 + 1j * y0_) + R * a0 * (1 - 1j * e * m * omega / mu) * np.exp(1j * theta0) * _phi1(1j * omega - kappa, t)
    return np.array([theta, z.real, z.imag, phi, np.full_like(t, omega), R * np.cos(theta) * a,
                     R * np.sin(theta) * a, a])


def rolling_circle(t, heading: float, rolling: float, w_heading: float, w_rolling: float, centre,
                   R: float) -> np.ndarray:
    r"""The nonholonomic disk's motion (theta, x, y, phi) at t, shape (4, n_t): theta and phi turn
    at the constant rates w_heading != 0 and w_rolling, the contact point runs on the circle of
    radius R w_rolling/w_heading about ``centre`` (x = c_x + k R sin theta, y = c_y - k R cos theta,
    k = w_rolling/w_heading)."""
    if w_heading == 0:
        raise ValueError("w_heading must be nonzero (w_heading = 0 is a straight line, not a circle)")
    t = np.asarray(t, dtype=float)
    theta = heading + w_heading * t
    k = w_rolling / w_heading
    return np.array([theta, centre[0] + k * R * np.sin(theta), centre[1] - k * R * np.cos(theta),
                     rolling + w_rolling * t])
