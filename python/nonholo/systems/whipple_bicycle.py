r"""The Whipple bicycle of Meijaard, Papadopoulos, Ruina and Schwab (2007).

:func:`whipple_bicycle` builds it from bodies and contacts (:mod:`nonholo.multibody`): the rear
frame B as the root (attitude yaw psi, roll phi, pitch theta_B about z, x, y; Meijaard's axes x
forward, y right, z down), the rear wheel R on a revolute joint about B's y axis (angle
theta_R), the front frame H (fork and handlebar) on the steering axis, tilted back by the head
angle lambda from the vertical (steer angle delta, positive turning right), the front wheel F on
H's y axis (theta_F); both wheels thin discs rolling without slip. The front wheel's contact
fixes the pitch: the holonomic constraint h(q) = 0 and its derivative are among the five
constraint rows, and the system has three degrees of freedom of velocity (roll and steer rates,
forward speed). Parameters default to the benchmark bicycle of the paper's Table 1.

Meijaard, J. P., Papadopoulos, J. M., Ruina, A. and Schwab, A. L., "Linearized dynamics equations
for the balance and steer of a bicycle: a benchmark and review", Proc. R. Soc. A 463 (2007)
1955-1982.

:func:`whipple_bicycle_kane` is the independent build of SymPy's test of the same model (its
KanesMethod, for :meth:`System.from_kanes_method`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import sympy as sp

from ..builders.bodies import RigidBody
from ..builders.multibody import Mechanism, Revolute, assemble
from ..builders.surfaces import Disc
from ..system.system import System
from .arguments import not_text, real

__all__ = ["whipple_bicycle", "whipple_bicycle_kane", "upright_state", "BENCHMARK"]


def _benchmark_values(sym: dict) -> dict:
    """The benchmark bicycle's numbers (Meijaard et al. 2007, Table 1) in the model's frames.

    The frame and fork centres of mass and the fork length are transformed from the paper's
    coordinates (wheelbase, trail, head angle) to distances along the rotated body frames, and
    the products of inertia change sign with the frames' orientation, as in SymPy's own test of
    this model (sympy/physics/mechanics/tests/test_kane3.py).
    """
    rad_rear, rad_front, trail, wheelbase = 0.3, 0.35, 0.08, 1.02
    frame_cg_x, frame_cg_z, fork_cg_x, fork_cg_z = 0.3, 0.9, 0.9, 0.7
    hta = math.pi / 2 - math.pi / 10
    rake = -(trail * math.sin(hta) - rad_front * math.cos(hta))
    frame_length = wheelbase * math.sin(hta) - (rake - (rad_front - rad_rear) * math.cos(hta))
    frame_cg_norm = (frame_cg_z - rad_rear - (frame_cg_x / math.sin(hta)) * math.cos(hta)) * math.sin(hta)
    frame_cg_par = (frame_cg_x / math.sin(hta)
                    + (frame_cg_z - rad_rear - frame_cg_x / math.sin(hta) * math.cos(hta)) * math.cos(hta))
    ta, tb = fork_cg_z - rad_front, wheelbase - fork_cg_x
    tc = math.hypot(ta, tb)
    fork_length = wheelbase * math.cos(hta) - (rad_front - rad_rear) * math.sin(hta)
    fork_cg_norm = rake + tc * math.sin(math.pi / 2 - hta - math.acos(ta / tc))
    fork_cg_par = tc * math.cos((math.pi / 2 - hta) - math.acos(ta / tc)) - fork_length
    values = dict(
        WFrad=rad_front, WRrad=rad_rear, htangle=hta, forkoffset=rake, forklength=fork_length,
        framelength=frame_length, forkcg1=fork_cg_par, forkcg3=fork_cg_norm, framecg1=frame_cg_norm,
        framecg3=frame_cg_par, Iwr11=0.0603, Iwr22=0.12, Iwf11=0.1405, Iwf22=0.28, Ifork11=0.05892,
        Ifork22=0.06, Ifork33=0.00708, Ifork31=0.00756, Iframe11=9.2, Iframe22=11.0, Iframe33=2.8,
        Iframe31=-2.4, mfork=4.0, mframe=85.0, mwf=3.0, mwr=2.0, g=9.81,
    )
    return {sym[name]: value for name, value in values.items()}


def whipple_bicycle_kane(wheel_angles: bool = True, steer_torque: bool = False):
    r"""(KanesMethod, parameter values) of the Whipple bicycle, built as in SymPy's own test.

    The model of SymPy's ``test_bicycle`` (sympy/physics/mechanics/tests/test_kane3.py, after
    Meijaard et al., Proc. R. Soc. A 463 (2007) 1955-1982): yaw q1, roll q2, pitch q4 (dependent,
    through the holonomic contact of the front wheel), steer q5; rear and front wheel spin rates
    u3, u6; the front contact point's velocity is zero (three velocity constraints for u1, u4,
    u6), gravity on the four bodies. nonholo needs one speed per coordinate, so the wheel angles
    q3 and q6 are introduced with q3' = u3, q6' = u6 and orient the wheels; they are ignorable
    and change nothing else. With ``wheel_angles=False`` the model is SymPy's exactly (the wheel
    frames carry only their spin rates; :meth:`System.from_kanes_method` then adds the wheel
    angles as auxiliary coordinates). The parameter values are the benchmark bicycle's.

    ``steer_torque=True`` adds a torque ``T_delta`` (a parameter, 0 by default; a control for
    :class:`~nonholo.OptimalControlProblem`) of the rear frame on the fork about the steering axis,
    positive in the steer angle's sense. ``km.rear_contact_velocity`` is the rear contact point's
    velocity in the ground plane, [x', y'] along N.x, N.y (z up, the yaw q1 from N.x), in the
    coordinates and speeds: r_R (u3 + u4) (cos q1, sin q1), for a position the equations of motion
    ignore (``ConstrainedControlSystem.with_states``: the lateral offset of a lane change).
    """
    import sympy.physics.mechanics as me

    q1, q2, q3, q4, q5, q6 = me.dynamicsymbols("q1:7")
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    t = me.dynamicsymbols._t
    names = ("WFrad WRrad htangle forkoffset forklength framelength forkcg1 forkcg3 framecg1 framecg3 Iwr11 "
             "Iwr22 Iwf11 Iwf22 Iframe11 Iframe22 Iframe33 Iframe31 Ifork11 Ifork22 Ifork33 Ifork31 g mframe "
             "mfork mwf mwr").split()
    sym = dict(zip(names, sp.symbols(names)))
    WFrad, WRrad, htangle, forkoffset = (sym[k] for k in ("WFrad", "WRrad", "htangle", "forkoffset"))
    forklength, framelength, forkcg1, forkcg3 = (sym[k] for k in ("forklength", "framelength", "forkcg1", "forkcg3"))
    framecg1, framecg3 = sym["framecg1"], sym["framecg3"]
    g = sym["g"]
    mframe, mfork, mwf, mwr = (sym[k] for k in ("mframe", "mfork", "mwf", "mwr"))

    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + htangle, R.y])
    WR = Frame.orientnew("WR", "Axis", [q3, Frame.y]) if wheel_angles else me.ReferenceFrame("WR")
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-htangle, Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-htangle, Fork.y])
    WF = Fork.orientnew("WF", "Axis", [q6, Fork.y]) if wheel_angles else me.ReferenceFrame("WF")

    WR_cont = me.Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", WRrad * R.z)
    Steer = WR_mc.locatenew("Steer", framelength * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew("WF_cont", WFrad * (me.dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())

    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)

    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)

    Frame_I = (me.inertia(TempFrame, sym["Iframe11"], sym["Iframe22"], sym["Iframe33"], 0, 0, sym["Iframe31"]),
               Frame_mc)
    Fork_I = (me.inertia(TempFork, sym["Ifork11"], sym["Ifork22"], sym["Ifork33"], 0, 0, sym["Ifork31"]), Fork_mc)
    WR_I = (me.inertia(Frame, sym["Iwr11"], sym["Iwr22"], sym["Iwr11"]), WR_mc)
    WF_I = (me.inertia(Fork, sym["Iwf11"], sym["Iwf22"], sym["Iwf11"]), WF_mc)
    bodies = [me.RigidBody("BodyFrame", Frame_mc, Frame, mframe, Frame_I),
              me.RigidBody("BodyFork", Fork_mc, Fork, mfork, Fork_I),
              me.RigidBody("BodyWR", WR_mc, WR, mwr, WR_I),
              me.RigidBody("BodyWF", WF_mc, WF, mwf, WF_I)]
    loads = [(Frame_mc, -mframe * g * Y.z), (Fork_mc, -mfork * g * Y.z), (WF_mc, -mwf * g * Y.z),
             (WR_mc, -mwr * g * Y.z)]
    torque = sp.Symbol("T_delta")
    if steer_torque:  # about the steering axis Frame.x (Fork turns about it by q5)
        loads += [(Fork, torque * Frame.x), (Frame, -torque * Frame.x)]

    if wheel_angles:
        qs, us = (q1, q2, q3, q4, q5, q6), (u1, u2, u3, u4, u5, u6)
    else:
        qs, us = (q1, q2, q4, q5), (u1, u2, u4, u5)
    kd = [qi.diff(t) - ui for qi, ui in zip(qs, us)]
    velocity_constraints = [WF_cont.vel(N) & Y.x, WF_cont.vel(N) & Y.y, WF_cont.vel(N) & Y.z]
    configuration_constraints = [WF_cont.pos_from(WR_cont) & Y.z]
    km = me.KanesMethod(N, q_ind=[q1, q2, q3, q5, q6] if wheel_angles else [q1, q2, q5], q_dependent=[q4],
                        configuration_constraints=configuration_constraints, u_ind=[u2, u3, u5],
                        u_dependent=[u1, u4, u6], velocity_constraints=velocity_constraints, kd_eqs=kd,
                        constraint_solver="CRAMER")
    km.kanes_equations(bodies, loads)
    values = _benchmark_values(sym)
    if steer_torque:
        values[torque] = 0.0
    # the geometric rear contact P = WR_mc - WRrad R.z moves in the ground plane
    km.rear_contact_velocity = [(WR_mc.vel(N) - WRrad * R.z.dt(N)) & axis for axis in (N.x, N.y)]
    return km, values


#: Meijaard et al. 2007, Table 1 (SI units; axes x forward, y right, z down, origin at the
#: rear contact point in the upright reference configuration; inertia about the centre of mass).
BENCHMARK = dict(
    w=1.02, c=0.08, lam=math.pi / 10, g=9.81,
    rR=0.3, mR=2.0, IRxx=0.0603, IRyy=0.12,
    xB=0.3, zB=-0.9, mB=85.0, IB=((9.2, 0.0, 2.4), (0.0, 11.0, 0.0), (2.4, 0.0, 2.8)),
    xH=0.9, zH=-0.7, mH=4.0, IH=((0.05892, 0.0, -0.00756), (0.0, 0.06, 0.0), (-0.00756, 0.0, 0.00708)),
    rF=0.35, mF=3.0, IFxx=0.1405, IFyy=0.28,
)


def whipple_bicycle(*, friction_coefficient=1.0, normal_coefficient=None, **values) -> System:
    r"""The Whipple bicycle from bodies and contacts (module docstring), benchmark values by default.

    Keyword arguments override entries of :data:`BENCHMARK` (Meijaard et al. 2007, Table 1):
    wheelbase ``w``, trail ``c``, head angle ``lam`` (steering axis from the vertical), ``g``;
    rear wheel ``rR, mR, IRxx, IRyy``; rear frame centre of mass ``xB, zB``, ``mB``, inertia
    ``IB`` (3 x 3); front frame ``xH, zH, mH, IH``; front wheel ``rF, mF, IFxx, IFyy``.

    Coordinates ``x, y`` (the rear contact point P), ``yaw, roll, pitch`` (of the rear frame),
    ``steer``, ``theta_R``, ``theta_F`` (wheel angles relative to their frames), as in the paper;
    five constraint rows (no slip at both wheels, the front contact's normal velocity), the front
    contact's height as ``system.holonomic``. :func:`upright_state` gives the straight upright run.
    ``friction_coefficient`` and ``normal_coefficient``: the coefficients of the sliding and of the
    front wheel's normal rows in ``system.friction(eps)`` (:meth:`Mechanism.system`).

    Every value is a finite real number (not a bool): ``w``, ``g``, the radii and the masses
    positive, ``lam`` in (-pi/2, pi/2), the inertias as :class:`~nonholo.bodies.RigidBody` takes
    them; a bad one raises ValueError or TypeError naming it.
    """
    friction_coefficient = not_text(friction_coefficient, "friction_coefficient")
    normal_coefficient = not_text(normal_coefficient, "normal_coefficient", optional=True)
    unknown = sorted(set(values) - set(BENCHMARK))
    if unknown:
        raise ValueError(f"unknown bicycle parameters {unknown}; the parameters are {sorted(BENCHMARK)}")
    p = {**BENCHMARK, **values}
    for key, value in p.items():
        if key in ("IB", "IH"):
            continue  # RigidBody checks them (_body names the parameter)
        positive = key in ("w", "rR", "rF", "mR", "mB", "mH", "mF", "g")
        kind = "a positive number" if positive else "a finite real number"
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"bicycle parameter {key} must be {kind}, got {value!r:.100}")
        if not (math.isfinite(value) and (value > 0 or not positive)):
            raise ValueError(f"bicycle parameter {key} must be {kind}, got {value!r}")
    w, c, lam, rR, rF = p["w"], p["c"], p["lam"], p["rR"], p["rF"]
    if not abs(lam) < math.pi / 2:
        raise ValueError(f"bicycle parameter lam must lie in (-pi/2, pi/2), got {lam!r} (the head angle, the "
                         "steering axis from the vertical)")
    # the rear frame's reference point is the rear wheel centre, (0, 0, -rR) from the rear contact;
    # (x, y) locate the rear contact point P, as in the paper
    bike = Mechanism(_body("mB, IB, xB, zB", p["mB"], p["IB"], (p["xB"], 0, p["zB"] + rR)), "rear frame",
                     attitude=(("yaw", "z"), ("roll", "x"), ("pitch", "y")), down="z", origin="contact")
    # the steering axis meets the ground the trail c ahead of the front contact (w, 0, 0)
    bike.add("front frame", _body("mH, IH, xH, zH", p["mH"], p["IH"], (p["xH"] - w - c, 0, p["zH"])), "rear frame",
             Revolute((math.sin(lam), 0, math.cos(lam)), (w + c, 0, rR), "steer"))
    bike.add("rear wheel", _body("mR, IRxx, IRyy", p["mR"], (p["IRxx"], p["IRyy"], p["IRxx"])), "rear frame",
             Revolute("y", (0, 0, 0), "theta_R"))
    bike.add("front wheel", _body("mF, IFxx, IFyy", p["mF"], (p["IFxx"], p["IFyy"], p["IFxx"])), "front frame",
             Revolute("y", (-c, 0, -rF), "theta_F"))
    bike.roll_on_plane("rear wheel", Disc(rR, axis=(0, 1, 0)))
    bike.roll_on_plane("front wheel", Disc(rF, axis=(0, 1, 0)))
    system = bike.system(gravity=p["g"], friction_coefficient=friction_coefficient,
                         normal_coefficient=normal_coefficient, name="Whipple bicycle")
    return system


def _body(keys: str, mass, inertia, com=(0, 0, 0)) -> RigidBody:
    """RigidBody(mass, inertia, com), a refusal naming the bicycle parameters ``keys`` it came from."""
    try:
        return RigidBody(mass, inertia, com)
    except (TypeError, ValueError) as error:
        raise type(error)(f"bicycle parameters {keys}: {error}") from None


def _rear_radius(system: System) -> float:
    """r_R read from the rear wheel's rolling row at the upright reference configuration,
    x' + r_R theta_R' = 0 (so that a pickled or re-parametrized system needs no side data)."""
    names = system.coordinate_names
    A, _ = system.constraint_matrix(np.zeros(system.n))
    row = A[0] / A[0, names.index("x")]
    return float(row[names.index("theta_R")])


def upright_state(system: System, speed: float, roll: float = 0.0, roll_rate: float = 0.0, steer: float = 0.0,
                  steer_rate: float = 0.0) -> np.ndarray:
    """A state of :func:`whipple_bicycle` at forward speed ``speed`` (rear wheel: theta_R' = -v / rR)
    with the given roll, steer and their rates: the pitch solved from the front contact, the other
    velocities from the constraints. ``speed``, ``roll`` ... = 0 but the speed: the straight upright run.
    Each a finite real number (ValueError or TypeError naming it otherwise)."""
    speed, roll, roll_rate = real(speed, "speed"), real(roll, "roll"), real(roll_rate, "roll_rate")
    steer, steer_rate = real(steer, "steer"), real(steer_rate, "steer_rate")
    names = system.coordinate_names
    q = np.zeros(system.n)
    q[names.index("roll")], q[names.index("steer")] = roll, steer
    v = np.zeros(system.n)
    v[names.index("roll")], v[names.index("steer")] = roll_rate, steer_rate
    v[names.index("theta_R")] = -speed / _rear_radius(system)
    return assemble(system, q, v, dependent=["pitch"], free=["roll_dot", "steer_dot", "theta_R_dot"])
