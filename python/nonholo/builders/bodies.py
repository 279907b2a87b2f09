r"""Rigid bodies with a singularity-free attitude: a quaternion and the body angular velocity.

The attitude is a quaternion q = (q0, q1, q2, q3) != 0 read through u = q / |q|, so that every
expression built here is invariant under q -> s q, q' -> s q' (s > 0):

    R(q) = [[q0^2+q1^2-q2^2-q3^2, 2(q1 q2 - q0 q3),     2(q1 q3 + q0 q2)],
            [2(q1 q2 + q0 q3),     q0^2-q1^2+q2^2-q3^2, 2(q2 q3 - q0 q1)],
            [2(q1 q3 - q0 q2),     2(q2 q3 + q0 q1),     q0^2-q1^2-q2^2+q3^2]] / |q|^2,

    Omega = 2 E(q) q' / |q|^2,   E(q) = [[-q1,  q0,  q3, -q2],
                                         [-q2, -q3,  q0,  q1],
                                         [-q3,  q2, -q1,  q0]],

Omega the angular velocity in body axes (R' = R hat(Omega); q' = 1/2 q * (0, Omega) on |q| = 1;
E q = 0, E E^T = |q|^2 Id). The body's kinetic energy 1/2 m |v_G|^2 + 1/2 Omega^T I Omega does
not see the radial rate (q . q') / |q|^2 = d log|q| / dt; the metric is made regular by the
term 1/2 I_r ((q . q') / |q|^2)^2, whose momentum I_r (q . q') / |q|^2 is conserved by every
model of a system built from these expressions (the scaling is a symmetry of the Lagrangian
and of the constraints and forces, which all annihilate the radial direction). So |q| stays
where it starts, up to integration error, with no constraint row; the integrator then holds
|q| = 1 by projection after each step (``System(unit_norm=...)``), and the quaternion never
meets the coordinate singularities of Euler angles, which serve for display only.
"""

from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from ..expressions.parsing import to_sympy
from ..numerics import number_text

__all__ = ["RigidBody", "body_rate_matrix", "rotation_matrix", "quaternion_rates", "quaternion_from_euler",
           "euler_from_quaternion", "rotation_matrices", "quaternion_with_down",
           "quaternion_from_matrix"]


def body_rate_matrix(q) -> sp.Matrix:
    """E(q), 3 x 4: Omega = 2 E(q) q' / |q|^2 is the angular velocity in body axes."""
    q0, q1, q2, q3 = q
    return sp.Matrix([[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]])


def rotation_matrix(q) -> sp.Matrix:
    """R(q / |q|), body axes to space axes, as a SymPy matrix."""
    q0, q1, q2, q3 = q
    n2 = q0**2 + q1**2 + q2**2 + q3**2
    return sp.Matrix([
        [q0**2 + q1**2 - q2**2 - q3**2, 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), q0**2 - q1**2 + q2**2 - q3**2, 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), q0**2 - q1**2 - q2**2 + q3**2],
    ]) / n2


def rotation_matrices(q) -> np.ndarray:
    """R(q / |q|) for quaternions of shape (4,) or (4, n_t): shape (3, 3) or (n_t, 3, 3)."""
    q = np.asarray(q, dtype=float)
    single = q.ndim == 1
    u = q / np.abs(q).max(axis=0)  # scaled first: the norm of a quaternion of entries 1e200 overflows
    u = (u / np.linalg.norm(u, axis=0)).reshape(4, -1)
    q0, q1, q2, q3 = u
    R = np.array([
        [q0**2 + q1**2 - q2**2 - q3**2, 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), q0**2 - q1**2 + q2**2 - q3**2, 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), q0**2 - q1**2 - q2**2 + q3**2],
    ]).transpose(2, 0, 1)
    return R[0] if single else R


def quaternion_rates(q, omega) -> np.ndarray:
    """q' = 1/2 q * (0, Omega) for a unit quaternion q and the body angular velocity Omega."""
    q0, w = float(q[0]), np.asarray(q[1:], dtype=float)
    omega = np.asarray(omega, dtype=float)
    return 0.5 * np.r_[-w @ omega, q0 * omega + np.cross(w, omega)]


def quaternion_from_euler(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """The unit quaternion of R = Rz(yaw) Ry(pitch) Rx(roll) (z-y-x, intrinsic)."""
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    cp, sp_ = np.cos(pitch / 2), np.sin(pitch / 2)
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    return np.array([cr * cp * cy + sr * sp_ * sy, sr * cp * cy - cr * sp_ * sy,
                     cr * sp_ * cy + sr * cp * sy, cr * cp * sy - sr * sp_ * cy])


def euler_from_quaternion(q) -> dict:
    """Yaw, pitch and roll (z-y-x) of q / |q|, for display: arrays of q's trailing shape.

    Pitch is in [-pi/2, pi/2]; at pitch = +-pi/2 yaw and roll are not separate (the
    singularity the quaternion state avoids)."""
    R = rotation_matrices(np.asarray(q, dtype=float).reshape(4, -1))
    shape = np.shape(q)[1:]
    return {"yaw": np.arctan2(R[:, 1, 0], R[:, 0, 0]).reshape(shape),
            "pitch": np.arcsin(np.clip(-R[:, 2, 0], -1.0, 1.0)).reshape(shape),
            "roll": np.arctan2(R[:, 2, 1], R[:, 2, 2]).reshape(shape)}


def quaternion_from_matrix(R) -> np.ndarray:
    """The unit quaternion (q0 >= 0) of a rotation matrix R (Shepperd's method: the largest of
    the four squared components is taken first, so the result is accurate for every R)."""
    R = np.asarray(R, dtype=float)
    if R.shape != (3, 3):
        raise ValueError(f"R must have shape (3, 3), got {R.shape}")
    tr = np.trace(R)
    squares = np.array([1 + tr, 1 + 2 * R[0, 0] - tr, 1 + 2 * R[1, 1] - tr, 1 + 2 * R[2, 2] - tr]) / 4
    i = int(np.argmax(squares))
    qi = np.sqrt(squares[i])
    pairs = {  # 4 q_i q_j from R's entries
        (0, 1): R[2, 1] - R[1, 2], (0, 2): R[0, 2] - R[2, 0], (0, 3): R[1, 0] - R[0, 1],
        (1, 2): R[0, 1] + R[1, 0], (1, 3): R[0, 2] + R[2, 0], (2, 3): R[1, 2] + R[2, 1]}
    q = np.array([qi if j == i else pairs[tuple(sorted((i, j)))] / (4 * qi) for j in range(4)])
    return q if q[0] >= 0 else -q


def quaternion_with_down(gamma) -> np.ndarray:
    """The unit quaternion of the shortest rotation R with R gamma = (0, 0, -1): the body whose
    downward vertical in body axes, R^T (0, 0, -1), is the unit vector gamma."""
    g = np.asarray(gamma, dtype=float)
    g = g / np.abs(g).max()  # scaled first: the norm of (1e200, 1e200, 0) overflows
    g = g / np.linalg.norm(g)
    down = np.array([0.0, 0.0, -1.0])
    axis = np.cross(g, down)
    s, c = np.linalg.norm(axis), float(g @ down)
    if s < 1e-15:
        return np.array([1.0, 0.0, 0.0, 0.0]) if c > 0 else np.array([0.0, 1.0, 0.0, 0.0])
    angle = np.arctan2(s, c)
    return np.r_[np.cos(angle / 2), np.sin(angle / 2) * axis / s]


def _non_finite(expr) -> bool:
    return expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan)


def scalar(x, what: str, positive: bool = False) -> sp.Expr:
    """``x`` as a real scalar SymPy expression named ``what`` in every refusal: a bool, a string of no
    plain arithmetic, a matrix, a complex number, NaN and inf refused (a NumPy NaN too, which SymPy
    cannot convert), a number > 0 when ``positive``; an expression of symbols (runtime parameters)
    passes, its value checked where the parameters are given."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} must be a number or a SymPy expression, got the bool {x!r}")
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.generic) and x.dtype.kind in "fc" and not np.isfinite(x):
        raise ValueError(f"{what} must be finite, got {x!r}")
    expr = to_sympy(x, what)
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        raise TypeError(f"{what} must be a number or a scalar SymPy expression, got {x!r:.100}")
    if _non_finite(expr):
        raise ValueError(f"{what} must be finite, got {x!r:.100}")
    if expr.is_number:
        if expr.is_real is False:
            raise TypeError(f"{what} must be real, got {x!r:.100}")
        if positive and not float(expr) > 0:
            raise ValueError(f"{what} must be positive, got {x!r:.100}")
    return expr


def _array(x, what: str, expected: str) -> np.ndarray:
    """The entries of a sequence, nested list or matrix ``x`` as an object array."""
    if isinstance(x, sp.MatrixBase):
        return np.array(x.tolist(), dtype=object)
    if isinstance(x, (str, bytes, sp.Basic, numbers.Number, np.generic)) or not np.iterable(x):
        raise ValueError(f"{what} must be {expected}, got {x!r:.100}")
    return np.asarray(x, dtype=object)


def vector(x, what: str) -> sp.Matrix:
    """``x`` as a 3 x 1 SymPy matrix of finite real entries (numbers or expressions), named ``what``."""
    entries = _array(x, what, "three numbers or expressions")
    if entries.shape not in ((3,), (3, 1), (1, 3)):
        raise ValueError(f"{what} must have three components, got shape {entries.shape}")
    return sp.Matrix([scalar(c, f"{what}[{i}]") for i, c in enumerate(entries.reshape(-1))])


def _inertia_matrix(inertia) -> sp.Matrix:
    rows = _array(inertia, "inertia", "3 principal moments or a 3 x 3 matrix")
    if rows.shape in ((3,), (3, 1), (1, 3)):
        I = sp.diag(*[scalar(c, f"inertia[{i}]") for i, c in enumerate(rows.reshape(-1))])
    elif rows.shape == (3, 3):
        I = sp.Matrix(3, 3, [scalar(rows[i, j], f"inertia[{i}, {j}]") for i in range(3) for j in range(3)])
    else:
        raise ValueError(f"inertia must be 3 principal moments or a 3 x 3 matrix, got shape {rows.shape}")
    if I == I.T:
        return I
    if not I.free_symbols:  # numbers symmetric to rounding (a rotated tensor Q diag(...) Q^T): symmetrized
        M = np.array(I, dtype=float)
        if np.abs(M - M.T).max() <= SYMMETRY_RTOL * np.abs(M).max():
            return sp.Matrix((M + M.T) / 2)
    elif sp.simplify(I - I.T) == sp.zeros(3, 3):
        return I
    raise ValueError(f"inertia must be a symmetric matrix, got {I.tolist()}")


SYMMETRY_RTOL = 1e-12  # the asymmetry of a numeric inertia accepted as rounding, relative to its largest entry


def inertia_eigenvalues(inertia) -> np.ndarray:
    """The principal moments (ascending) of a numeric symmetric 3 x 3 inertia."""
    return np.linalg.eigvalsh(np.array(inertia, dtype=float))


class RigidBody:
    r"""A rigid body: its mass, inertia about the centre of mass and where that centre lies.

    Parameters
    ----------
    mass : number or SymPy expression
        m > 0, finite.
    inertia : three numbers/expressions, or a 3 x 3 symmetric matrix
        The inertia tensor about the centre of mass, in body axes (three values: principal
        moments along the body axes); finite and positive semi-definite (a point mass has
        zero inertia, a thin rod a zero moment about its axis; a body rolling on a plane,
        :func:`nonholo.contact.roll_on_plane`, needs a positive definite one).
    com_offset : three numbers/expressions
        The centre of mass in body axes, measured from the body's reference point (the origin
        in which its surface is given, e.g. the centre of a sphere or ellipsoid).

    Notes
    -----
    Numbers are used as they are; symbols become runtime parameters of the system built from
    the body (their values are given to :func:`nonholo.contact.roll_on_plane`). A bad value
    (a mass that is not positive, a NaN or inf, an inertia that is not symmetric positive
    semi-definite or whose principal moments break the triangle inequality I_3 <= I_1 + I_2)
    raises ValueError or TypeError naming the argument.
    """

    def __init__(self, mass, inertia, com_offset=(0, 0, 0)):
        self.mass = scalar(mass, "mass", positive=True)
        self.inertia = _inertia_matrix(inertia)
        if not self.inertia.free_symbols:
            eig = inertia_eigenvalues(self.inertia)
            if eig.min() < -1e-12 * max(1.0, np.abs(eig).max()):
                raise ValueError(f"inertia must have no negative principal moment (be positive definite, or "
                                 f"semi-definite: a point mass, a thin rod), its eigenvalues are {eig}")
            if eig[2] > (eig[0] + eig[1]) * (1 + 1e-9) + 1e-12 * max(1.0, eig[2]):
                raise ValueError(f"inertia: the principal moments {eig} break the triangle inequality "
                                 f"I_3 <= I_1 + I_2, which every mass distribution meets (equality for a flat body)")
        self.com_offset = vector(com_offset, "com_offset")

    def __repr__(self) -> str:
        def text(value):  # a number as displays show it (1, 0.4: not SymPy's 1.00000000000000), else its expression
            value = sp.sympify(value)
            return number_text(float(value)) if value.is_number else str(value)

        inertia = "[" + ", ".join("[" + ", ".join(text(v) for v in row) + "]" for row in self.inertia.tolist()) + "]"
        return (f"RigidBody(mass={text(self.mass)}, inertia={inertia}, "
                f"com_offset=[{', '.join(text(v) for v in self.com_offset)}])")
