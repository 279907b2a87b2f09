r"""The single-track (bicycle-model) car: its linear tires are the friction realization of the kinematic car.

Coordinates (x, y, psi): the centre of mass and the heading. The axles lie a distance l_f ahead of
and l_r behind the centre of mass (wheelbase L = l_f + l_r); the front wheel is steered by a fixed
angle delta. The kinematic car rolls without sideways slip at either axle, A(q) q' = 0 with rows

    rear:   -sin(psi) x' + cos(psi) y' - l_r psi'                    (lateral velocity of the rear axle)
    front:  -sin(psi + delta) x' + cos(psi + delta) y' + l_f cos(delta) psi'   (of the front wheel).

A linear tire turns the slip angle alpha = s / |U| (s the lateral velocity of the wheel, U the
speed, negative reversing) into the lateral force -C alpha, C its cornering stiffness. On both axles that is the
viscous friction of the friction model

    G q'' = F - (1/eps) A^T mu A q',   mu = diag(C_r, C_f) / C (rows of A),   eps = |U| / C,   C = (C_f + C_r) / 2,

so the single-track car of vehicle dynamics is the friction realization of the kinematic car with
eps of order 1/C (:func:`tire_eps`). A drive force k_d (U - u) along the heading (u the forward
speed of the centre of mass) holds the speed near U.

Steady cornering (the classical result, e.g. Gillespie, *Fundamentals of Vehicle Dynamics*, ch. 6):
the tires carry the centripetal force m U r (r = psi') without a moment, F_f = m U r l_r / L and
F_r = m U r l_f / L; their slips s = -|U| F / C make L r - U delta = s_f - s_r = -K_us U |U| r, so
the yaw-rate gain at small delta is

    r / delta = (U / L) / (1 + x),   x = K_us U |U| / L,   K_us = (m / L) (l_r / C_f - l_f / C_r),

K_us the understeer gradient. The slow manifold of order k computes the slip from the motion of
order k - 1 (order 0: no slip, the kinematic car's r_0 = U delta / L), so r_k = r_0 (1 - x + x^2
- ... + (-x)^k): the slow-manifold series is the geometric series in x, with relative error
x^(k+1) at order k (``tests/test_single_track.py`` checks the slopes). It converges below the
characteristic speed sqrt(L / K_us) (:func:`characteristic_speed`) and diverges above; for an
oversteering car (K_us < 0) the divergence sets in at the critical speed sqrt(L / -K_us), where the
straight run turns unstable. Reversing (U < 0) turns the sign of x: an understeering car reverses
like an oversteering one, unstable beyond the reversing speed sqrt(L / K_us). A stiff speed
controller (k_d / m of tens per second) adds a second fast time scale besides the tires', and the
higher orders stop gaining from it.
"""

import math

import numpy as np
import sympy as sp

from ..system.system import System
from .arguments import real, reals

_STIFFNESS = "C_f and C_r are the cornering stiffnesses [N/rad]: a tire pushes against its slip"


def single_track_car(m: float = 1500.0, I_z: float = 2500.0, l_f: float = 1.2, l_r: float = 1.4,
                     C_f: float = 8.0e4, C_r: float = 8.0e4, delta: float = 0.01, U: float = 10.0,
                     k_d: float = 1500.0) -> System:
    """The single-track car with a fixed steering angle: coordinates (x, y, psi).

    Parameters (SI units; all runtime parameters): mass m, yaw moment of inertia I_z about the
    centre of mass, distances l_f and l_r of the front and rear axles from it, cornering
    stiffnesses C_f and C_r [N/rad], steering angle delta [rad], target speed U [m/s] and the
    gain k_d [N s/m] of the drive force k_d (U - u) that holds it (default k_d / m = 1 1/s, slow
    against the tires). ``nonholonomic()`` is the kinematic car; ``friction(tire_eps(U, C_f,
    C_r))`` (or ``friction()``) the car on linear tires; ``reduced(eps, order=k)`` its slow-manifold
    models; built at the car's own eps, they follow C_f, C_r and U when a run changes them
    (``friction_scale``; a run that gives ``eps`` in ``params`` keeps it as given).
    ``friction(law=[rear, front], normal=[N_r, N_f])`` puts it on nonlinear tires (nonholo.laws), their
    slip angles taken against the wheels' rolling speeds ``car.rolling_speeds`` (the default speed=). The
    docstring of the module ``nonholo.systems.single_track_car``
    (``help(sys.modules[single_track_car.__module__])``) derives the steady-state yaw-rate gain
    and its series in x = K_us U |U| / L.

    Every value must be a finite real number: m, I_z, C_f, C_r positive; l_f, l_r non-negative
    (distances) with a positive wheelbase l_f + l_r; k_d non-negative (a negative gain pushes the
    speed away from U); delta and U of either sign (U < 0: reversing). A bad one raises
    ValueError or TypeError naming it.
    """
    m, I_z = real(m, "m", positive=True, why="the mass"), real(I_z, "I_z", positive=True, why="the yaw inertia")
    l_f, l_r = _wheelbase(l_f, l_r)
    C_f, C_r = (real(v, name, positive=True, why=_STIFFNESS) for v, name in ((C_f, "C_f"), (C_r, "C_r")))
    delta, U = real(delta, "delta", why="the steering angle [rad]"), real(U, "U", why="the target speed [m/s]")
    k_d = real(k_d, "k_d", non_negative=True, why="the gain of the drive force k_d (U - u): a negative one drives the "
               "speed away from U")
    x, y, psi = sp.symbols("x y psi")
    xd, yd, psid = sp.symbols("x_dot y_dot psi_dot")
    m_, Iz, lf, lr, Cf, Cr, dl, U_, kd = sp.symbols("m I_z l_f l_r C_f C_r delta U k_d", real=True)
    G = sp.diag(m_, m_, Iz)
    A = sp.Matrix([[-sp.sin(psi), sp.cos(psi), -lr],
                   [-sp.sin(psi + dl), sp.cos(psi + dl), lf * sp.cos(dl)]])
    mean_C = (Cf + Cr) / 2
    mu = sp.diag(Cr / mean_C, Cf / mean_C)  # rows of A: rear, then front
    u = sp.cos(psi) * xd + sp.sin(psi) * yd
    drive = kd * (U_ - u)
    F = sp.Matrix([sp.cos(psi) * drive, sp.sin(psi) * drive, 0])
    params = {m_: m, Iz: I_z, lf: l_f, lr: l_r, Cf: C_f, Cr: C_r, dl: delta, U_: U, kd: k_d}
    car = System([x, y, psi], G, constraints=A, friction=mu, force=F, parameters=params,
                 velocities=[xd, yd, psid], name="single-track car")
    car.friction_scale = sp.Abs(U_) / mean_C  # tire_eps: a run at other C_f, C_r or U moves eps with them
    # the wheels' speeds along their rolling directions (rows of A: rear, front): a tire law's speed= by default
    car.rolling_speeds = [u, sp.cos(psi + dl) * xd + sp.sin(psi + dl) * yd + lf * sp.sin(dl) * psid]
    return car


def _wheelbase(l_f, l_r) -> tuple:
    """(l_f, l_r) as floats: distances (>= 0) with a positive sum, the wheelbase L."""
    l_f = real(l_f, "l_f", non_negative=True, why="the distance of the front axle from the centre of mass")
    l_r = real(l_r, "l_r", non_negative=True, why="the distance of the rear axle from the centre of mass")
    if not l_f + l_r > 0:
        raise ValueError(f"the wheelbase l_f + l_r must be positive, got l_f = {l_f:g} and l_r = {l_r:g}")
    return l_f, l_r


def _car(m, l_f, l_r, C_f, C_r) -> tuple:
    """The linear model's parameters checked (m, C_f, C_r > 0, l_f, l_r >= 0, L > 0), as floats."""
    m = real(m, "m", positive=True, why="the mass")
    l_f, l_r = _wheelbase(l_f, l_r)
    C_f, C_r = (real(v, name, positive=True, why=_STIFFNESS) for v, name in ((C_f, "C_f"), (C_r, "C_r")))
    return m, l_f, l_r, C_f, C_r


def tire_eps(U: float, C_f: float, C_r: float) -> float:
    """eps = U / C, C = (C_f + C_r) / 2: the friction parameter of linear tires at speed U.

    U is the speed, positive and finite (for a car reversing at U < 0 give its speed -U: eps
    must be positive); C_f and C_r positive. A bad value raises ValueError or TypeError naming it.
    """
    C_f, C_r = (real(v, name, positive=True, why=_STIFFNESS) for v, name in ((C_f, "C_f"), (C_r, "C_r")))
    U = reals(U, "U", positive=True, why="the speed: eps = U / C must be positive; for a car reversing at U < 0 "
              "give its speed -U")
    return 2.0 * U / (C_f + C_r)


def understeer_gradient(m: float, l_f: float, l_r: float, C_f: float, C_r: float) -> float:
    """K_us = (m / L) (l_r / C_f - l_f / C_r) [s^2/m]; positive: understeer.

    m, C_f, C_r positive, l_f, l_r non-negative with L = l_f + l_r positive, all finite; a bad
    value raises ValueError or TypeError naming it."""
    m, l_f, l_r, C_f, C_r = _car(m, l_f, l_r, C_f, C_r)
    L = l_f + l_r
    return m / L * (l_r / C_f - l_f / C_r)


def yaw_rate_gain(U, m: float, l_f: float, l_r: float, C_f: float, C_r: float):
    """The steady-state yaw-rate gain r / delta = (U / L) / (1 + K_us U |U| / L) of the linear model.

    U: a finite speed or an array of them (a float or an array back; U < 0 reversing); the car's
    parameters as in :func:`understeer_gradient`. The tires' forces oppose their slip over the
    rolling speed |U|, so reversing turns the sign of the term in K_us: an understeering car
    reverses like an oversteering one. At the critical speed (1 + K_us U |U| / L = 0: an
    oversteering car going forward, an understeering one reversing, at :func:`characteristic_speed`)
    the gain diverges: inf there (with U's sign), of the opposite sign beyond it (the straight run
    unstable).
    """
    K = understeer_gradient(m, l_f, l_r, C_f, C_r)
    U = reals(U, "U")
    L = l_f + l_r
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.float64(U) / L / (1.0 + K * np.float64(U) * np.abs(np.float64(U)) / L)
    return float(gain) if np.ndim(gain) == 0 else gain


def reduced_yaw_rate_gain(U, order: int, m: float, l_f: float, l_r: float, C_f: float, C_r: float):
    """The gain of the slow-manifold model of order k: (U / L) (1 - x + ... + (-x)^k), x = K_us U |U| / L.

    ``order`` a non-negative integer; U and the car's parameters as in :func:`yaw_rate_gain`."""
    if isinstance(order, (bool, np.bool_)) or not isinstance(order, (int, np.integer)) or order < 0:
        raise ValueError(f"order must be a non-negative integer (the slow manifold's order k), got {order!r:.100}")
    K = understeer_gradient(m, l_f, l_r, C_f, C_r)
    U, L = reals(U, "U"), float(l_f) + float(l_r)
    x = K * U * np.abs(U) / L
    return U / L * sum((-x) ** j for j in range(order + 1))


def characteristic_speed(m: float, l_f: float, l_r: float, C_f: float, C_r: float) -> float:
    """sqrt(L / |K_us|): where |x| = 1 and the slow-manifold series stops converging, and the critical
    speed where the straight run turns unstable (:func:`yaw_rate_gain`): going forward for an
    oversteering car (K_us < 0), reversing for an understeering one (K_us > 0); inf for a
    neutral-steering car (K_us = 0).
    The parameters as in :func:`understeer_gradient`."""
    K = understeer_gradient(m, l_f, l_r, C_f, C_r)
    if K == 0:
        return math.inf
    return math.sqrt((float(l_f) + float(l_r)) / abs(K))
