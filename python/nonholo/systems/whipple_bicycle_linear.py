r"""The Whipple bicycle linearized about straight upright running, with a steer torque as control.

Meijaard, Papadopoulos, Ruina and Schwab (2007), with the benchmark's coefficients (given there
to 14 digits): roll phi and steer delta obey

    M [phi'', delta'']^T + v C1 [phi', delta']^T + (g K0 + v^2 K2) [phi, delta]^T = [0, T_delta]^T,

T_delta the steer torque (the rider's, on the handlebar), v the forward speed. The heading psi and
the lateral position y of the rear contact follow to first order from the front wheel's rolling
(the paper's linearized kinematics): psi' = (v delta + c delta') cos(lam) / w, y' = v psi. The matrices are the
linearization of :func:`nonholo.systems.whipple_bicycle` (its eigenvalues agree to 1e-7 at 2, 5
and 8 m/s: ``tests/test_ocp_bicycle.py``), so this is the nonlinear bicycle's dynamics for small roll,
steer and heading, in a form the optimal control problems take.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp

from ..control.kinematic import KinematicSystem
from .arguments import finite_product, real

__all__ = ["whipple_bicycle_linear", "BENCHMARK_MATRICES"]

#: M, C1, K0, K2 of the benchmark bicycle (Meijaard et al. 2007); rows and columns (roll, steer);
#: SI units.
BENCHMARK_MATRICES = {
    "M": ((80.81722, 2.31941332208709), (2.31941332208709, 0.29784188199686)),
    "C1": ((0.0, 33.86641391492494), (-0.85035641456978, 1.68540397397560)),
    "K0": ((-80.95, -2.59951685249872), (-2.59951685249872, -0.80329488458618)),
    "K2": ((0.0, 76.59734589573222), (0.0, 2.65431523794604)),
}


def whipple_bicycle_linear(speed: float = 5.0, max_torque: float = math.inf, g: float = 9.81, w: float = 1.02,
                           c: float = 0.08, lam: float = math.pi / 10) -> KinematicSystem:
    """The benchmark bicycle, linearized at forward speed ``speed``, as a control system.

    States ``phi, delta, phi_dot, delta_dot`` (roll and steer angles and rates), ``psi`` (heading)
    and ``y`` (lateral position of the rear contact), in the paper's axes: x forward, y to the
    right, z down (roll, steer and heading positive to the right); control ``T_delta``, the steer torque [N m], in
    [-max_torque, max_torque]. ``w, c, lam``: wheelbase, trail and head angle of the lateral
    kinematics (the benchmark's by default; M, C1, K0, K2 are the benchmark's). Self-stable
    between the weave and capsize speeds, 4.29 and 6.02 m/s. ``cost="energy"`` is the kinetic
    energy of the roll and steer motion, 1/2 q'^T M q'.

    ``speed``, ``c``: finite real numbers; ``g``, ``w``: positive; ``lam`` in (-pi/2, pi/2);
    ``max_torque`` positive (inf: unbounded). A bad one raises ValueError or TypeError naming it.
    """
    speed = real(speed, "speed")
    finite_product(speed * speed, "speed", "v^2 in the stiffness g K0 + v^2 K2")
    if isinstance(max_torque, (bool, np.bool_)) or not isinstance(max_torque, numbers.Real):
        raise TypeError(f"max_torque must be a real number, got {max_torque!r:.100}")
    if not float(max_torque) > 0:  # inf (the default): no bound
        raise ValueError(f"max_torque must be positive, got {max_torque}")
    g = real(g, "g", positive=True, why="gravity's acceleration, pulling the bicycle down")
    w = real(w, "w", positive=True, why="the wheelbase: psi' = (v delta + c delta') cos(lam) / w")
    c = real(c, "c", why="the trail")
    lam = real(lam, "lam")
    if not abs(lam) < math.pi / 2:
        raise ValueError(f"lam must lie in (-pi/2, pi/2), got {lam:g} (the head angle, the steering axis from the "
                         "vertical: at |lam| >= pi/2 the axis is horizontal or upside down)")
    phi, delta, phid, deltad, psi, y, T = sp.symbols("phi delta phi_dot delta_dot psi y T_delta")
    M, C1, K0, K2 = (sp.Matrix(BENCHMARK_MATRICES[k]) for k in ("M", "C1", "K0", "K2"))
    q, qd = sp.Matrix([phi, delta]), sp.Matrix([phid, deltad])
    qdd = M.LUsolve(sp.Matrix([0, T]) - speed * C1 * qd - (g * K0 + speed**2 * K2) * q)
    rhs = [phid, deltad, *qdd, (speed * delta + c * deltad) * math.cos(lam) / w, speed * psi]
    energy = (qd.T * M * qd)[0, 0] / 2
    bound = float(max_torque)
    return KinematicSystem([phi, delta, phid, deltad, psi, y], [T], rhs, control_bounds={"T_delta": (-bound, bound)},
                           name=f"linear Whipple bicycle (v = {speed:g} m/s)", energy=energy)
