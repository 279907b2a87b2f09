r"""Adapters from :mod:`sympy.physics.mechanics` to :class:`nonholo.System`.

``System.from_kanes_method(km, ...)`` and ``System.from_lagranges_method(lm, ...)`` call the
functions of this module, which return the keyword arguments of :class:`nonholo.System`.

The mapping
-----------
A nonholo system lives in the coordinates q and their velocities q' (one velocity per
coordinate): kinetic energy 1/2 q'^T G(q) q', potential V(q), velocity constraints
A(q) q' = b(q, t) and a generalized force F(q, q', t). SymPy's methods map onto it as follows.

``KanesMethod``
    Kane's method works in generalized speeds u with kinematic differential equations
    (``kd_eqs``; ``kdes`` of a ``sympy.physics.mechanics.System``)
    k_kqdot(q) q' + k_ku(q) u + f_k(q) = 0 and velocity constraints (``velocity_constraints``,
    solved for ``u_dependent``) k_nh(q) u + f_nh(q, t) = 0. The
    adapter solves ``kd_eqs`` for the speeds, u = -k_ku^-1 (k_kqdot q' + f_k), and expresses in
    q' (exactly, symbolically):

    - the kinetic energy of the bodies and particles, T = sum 1/2 m v.v + 1/2 w.I.w, which gives
      G (and, when ``f_k`` != 0, the gyroscopic and potential terms of a Lagrangian linear in q');
    - the velocity constraints: A = -k_nh k_ku^-1 k_kqdot, b = -(f_nh - k_nh k_ku^-1 f_k);
    - the loads: the generalized force F_j = sum_loads f . d(v)/d(q'_j) of each force at a point
      (v its velocity) and each torque on a frame (v its angular velocity).

    Kane's equations with dependent speeds are d'Alembert's principle projected onto the
    constrained partial velocities, which is the Lagrange-d'Alembert principle that
    ``system.nonholonomic()`` integrates. So the two agree exactly when the velocities the
    bodies were given are the time derivatives of their positions (the kinematics of the
    unconstrained system) and every constraint is among the ``velocity_constraints``.

    Rolling contacts built into the kinematics. SymPy's rolling disc "formed from the contact
    point up" and its Whipple bicycle give a contact point the velocity of the wheel's material
    point there (zero, or ``v2pt_theory`` with the wheel's frame): the velocity of two points
    fixed in one body, omega x r, not the time derivative of their relative position. The kinetic
    energy is then right along the rolling motions, but its Euler-Lagrange equations are not the
    motion. The adapter recognizes these material-point velocities (``check_kinematics``) and
    adds to F the difference between those equations and Kane's generalized inertia forces,
    so the system's equations are Kane's. A point velocity that is neither the derivative of its
    position nor a material-point velocity of a body frame is a modelling error: ``ModelError``
    names the point and the fix. Speeds that appear in no kinematic differential equation (the
    wheel spins of the bicycle) become the derivatives of auxiliary coordinates
    ``<speed>_integral``, appended to q_ind + q_dep.

    Gravity and every other load enter as the generalized force F (V = 0), so
    ``SimulationResult.energy()`` is then the kinetic energy only; pass ``potential=V`` and leave
    the corresponding forces out of the loads to have a potential instead.

``LagrangesMethod``
    The Lagrangian L(q, q') must be quadratic in q' (L = 1/2 q'^T G q' + g^T q' - V, as for
    :meth:`System.from_lagrangian`); the nonholonomic constraints (``nonhol_coneqs``) must be
    linear in q' and give A and b; the loads (``forcelist`` with ``frame``) give F.

Holonomic constraints
---------------------
nonholo enforces constraints on the velocities. ``LagrangesMethod`` differentiates its
holonomic constraints (``hol_coneqs``) f_h(q, t) = 0 itself, and the adapter takes the
differentiated rows as constraints (df_h/dq) q' = -df_h/dt, as SymPy does. ``KanesMethod``
expects the time derivatives of its holonomic constraints (``configuration_constraints`` for
``q_dependent``) among its ``velocity_constraints`` (it uses the configuration constraints for
linearization only); the adapter checks that they are there and raises ``ModelError``
otherwise. Either way f_h(q, t) = 0 holds along exact solutions, and along numerical ones up to
the integration error (the drift control of ``simulate`` projects velocities, not positions).

Not supported (``ModelError`` says which): speeds in the kinematic differential equations with
no coordinate of their own (e.g. the velocity of a contact point whose position is not tracked), kinematic
differential equations that do not determine u from q' (k_ku singular), a kinetic energy or
Lagrangian that depends on time explicitly (moving frames, time-varying masses), constraint
coefficients k_nh that depend on time (their affine part f_nh may), dynamicsymbols that are
neither coordinates nor speeds unless ``specified`` gives them as expressions in t, q and q'.
"""

from __future__ import annotations

import cmath
from typing import Mapping

import numpy as np
import sympy as sp

from ..errors import ModelError

__all__ = ["kanes_method_arguments", "lagranges_method_arguments", "kane_qdot", "kane_speeds"]


# --------------------------------------------------------------------------- helpers
def _mechanics():
    try:
        from sympy.physics import mechanics as me
    except ImportError as exc:  # pragma: no cover - sympy always ships it
        raise ImportError("sympy.physics.mechanics is needed for the adapters") from exc
    return me


def _time():
    return _mechanics().dynamicsymbols._t


def _name(f) -> str:
    """'q1' for the dynamicsymbol q1(t)."""
    return f.func.__name__ if isinstance(f, sp.core.function.AppliedUndef) else str(f)


def _symbols_for(coordinates, parameters) -> tuple:
    """Plain symbols (q, q_dot) for the dynamicsymbols q(t), checking for name clashes."""
    taken = {str(s) for s in parameters}
    q_syms, qd_syms = [], []
    for q in coordinates:
        name = _name(q)
        for candidate in (name, f"{name}_dot"):
            if candidate in taken:
                raise ModelError(f"the coordinate {q} becomes the symbol {candidate!r}, which is also a parameter "
                                 "name; rename one of them")
        q_syms.append(sp.Symbol(name))
        qd_syms.append(sp.Symbol(f"{name}_dot"))
    return q_syms, qd_syms


def _to_matrix(vector, frame) -> sp.Matrix:
    if isinstance(vector, (int, float)) or vector == 0:
        return sp.zeros(3, 1)
    return sp.Matrix(vector.to_matrix(frame))


def _check_specified(exprs, allowed_dynamic: set, what: str) -> None:
    me = _mechanics()
    found = set()
    for e in exprs:
        found |= set(me.find_dynamicsymbols(sp.sympify(e)))
    unknown = sorted((str(s) for s in found - allowed_dynamic), key=str)
    if unknown:
        raise ModelError(
            f"{what} contain the dynamicsymbols {', '.join(unknown)}, which are neither coordinates (q_ind, q_dep) "
            "nor speeds (u_ind, u_dep); give them as expressions in t, the coordinates and their derivatives "
            "with specified={symbol: expression}")


def _load_pairs(loads, frame, what: str) -> list:
    """[(kind, object, vector)] from a SymPy forcelist/loads; kind is 'point' or 'frame'."""
    me = _mechanics()
    pairs = []
    for item in loads or []:
        try:
            obj, vec = item
        except (TypeError, ValueError):
            raise TypeError(f"each entry of the {what} must be a (Point, Vector) or (ReferenceFrame, Vector) "
                            f"pair (or a Force/Torque), got {item!r}") from None
        if isinstance(obj, me.Point):
            pairs.append(("point", obj, vec))
        elif isinstance(obj, me.ReferenceFrame):
            pairs.append(("frame", obj, vec))
        else:
            raise TypeError(f"the first entry of each {what} pair must be a Point or a ReferenceFrame, got {obj!r}")
    if pairs and frame is None:
        raise ModelError(f"the {what} need the inertial frame (LagrangesMethod(..., frame=N))")
    return pairs


def _generalized_force(pairs, frame, velocity_map: dict, qdots) -> sp.Matrix:
    """F_j = sum f . d(v)/d(q'_j) with v (point velocity or frame angular velocity) in q'."""
    me = _mechanics()
    F = sp.zeros(len(qdots), 1)
    for kind, obj, vec in pairs:
        vel = obj.vel(frame) if kind == "point" else obj.ang_vel_in(frame)
        vel = me.msubs(vel, velocity_map) if velocity_map else vel
        for j, qd in enumerate(qdots):
            partial = vel.diff(qd, frame)
            if partial != 0:
                F[j] += sp.sympify(vec.dot(partial))
    return F


def _body_points(bodies) -> list:
    points = []
    for body in bodies or []:
        point = getattr(body, "masscenter", None) or getattr(body, "point", None)
        if point is not None:
            points.append(point)
    return points


def _body_frames(bodies) -> list:
    me = _mechanics()
    return [body.frame for body in bodies or [] if isinstance(body, me.RigidBody)]


_COMPLEX_FUNCTIONS = {
    sp.sin: cmath.sin, sp.cos: cmath.cos, sp.tan: cmath.tan, sp.exp: cmath.exp, sp.log: cmath.log,
    sp.asin: cmath.asin, sp.acos: cmath.acos, sp.atan: cmath.atan, sp.sinh: cmath.sinh, sp.cosh: cmath.cosh,
    sp.tanh: cmath.tanh, sp.Abs: abs,
}


def _complex_value(expr, point: dict, memo: dict) -> complex:
    """expr at point ({symbol: float}) in complex floating point, walking the expression tree once
    (shared subexpressions evaluated once). Nodes other than sums, products, powers and the usual
    elementary functions fall back to SymPy's evalf."""
    value = memo.get(expr)
    if value is not None:
        return value
    if expr.is_Symbol:
        value = complex(point[expr])
    elif expr.is_Number or expr.is_NumberSymbol:
        value = complex(expr)
    elif expr.is_Add:
        value = sum((_complex_value(a, point, memo) for a in expr.args), 0j)
    elif expr.is_Mul:
        value = 1 + 0j
        for a in expr.args:
            value *= _complex_value(a, point, memo)
    elif expr.is_Pow:
        base, exponent = expr.args
        b = _complex_value(base, point, memo)
        value = b ** int(exponent) if exponent.is_Integer else b ** _complex_value(exponent, point, memo)
    elif expr.func in _COMPLEX_FUNCTIONS and len(expr.args) == 1:
        value = _COMPLEX_FUNCTIONS[expr.func](_complex_value(expr.args[0], point, memo))
    else:
        value = complex(expr.xreplace({s: sp.Float(point[s]) for s in expr.free_symbols}).evalf())
    memo[expr] = value
    return value


def _numeric_values(exprs, symbols, x) -> np.ndarray:
    """The expressions at symbols = x, as complex numbers (nan where undefined)."""
    point, memo = dict(zip(symbols, x)), {}
    values = []
    for e in exprs:
        try:
            values.append(_complex_value(e, point, memo))
        except (ZeroDivisionError, OverflowError, ValueError):
            values.append(complex("nan"))
    return np.array(values, dtype=complex)


def _numeric_zero(exprs, symbols, rng, points: int = 4) -> float:
    """Largest |expr| over random points, every symbol uniform in [0.3, 1.3] (so that the terms are
    of order one and round-off is about 1e-15)."""
    exprs = [sp.sympify(e) for e in exprs]
    if not exprs or all(e == 0 for e in exprs):
        return 0.0
    worst = 0.0
    for _ in range(points):
        values = _numeric_values(exprs, symbols, rng.uniform(0.3, 1.3, len(symbols)))
        if not np.all(np.isfinite(values)):
            continue
        worst = max(worst, float(np.abs(values).max()))
    return worst


def _angular_velocity_from_dcm(frame, inertial) -> sp.Matrix:
    """The angular velocity of ``frame`` in ``inertial`` from the time derivative of the
    direction cosines (orientation only; ignores a velocity set by ``set_ang_vel``), in
    ``inertial`` components."""
    t = _time()
    M = inertial.dcm(frame)  # columns: frame's basis in inertial components
    W = M.diff(t) * M.T
    return sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])


def _tree_edges(points) -> list:
    """Every edge (p, o) of the position trees through ``points``: o was located from p or p from o."""
    seen, stack, edges, done = set(points), list(points), [], set()
    while stack:
        p = stack.pop()
        for other in getattr(p, "_pos_dict", {}):
            if frozenset((p, other)) not in done:
                done.add(frozenset((p, other)))
                edges.append((p, other))
            if other not in seen:
                seen.add(other)
                stack.append(other)
    return sorted(edges, key=lambda e: (e[0].name, e[1].name))


class _Kinematics:
    """What :func:`_classify_kinematics` found: the edges whose relative velocity is the one of two
    material points of a body frame but not the time derivative of their relative position (a
    rolling contact built into the kinematics), and the body frames whose angular velocity is set
    without an orientation (e.g. wheels whose rotation angle is not a coordinate)."""

    def __init__(self):
        self.material = []  # [(point, other point, body frame)]
        self.unoriented = []  # [frame]

    @property
    def lagrangian(self) -> bool:
        """True when the kinetic energy's Euler-Lagrange equations are the equations of motion."""
        return not (self.material or self.unoriented)


def _classify_kinematics(bodies, load_pairs, frame, to_plain, symbols, what: str, strict: bool) -> _Kinematics:
    r"""Compare each point velocity with its position and each angular velocity with its orientation.

    For every edge (p, o) of the position trees (p located from o), the relative velocity
    v_p - v_o must be either the time derivative of r_op in the inertial frame, or
    omega_B x r_op for a body frame B: the velocities of two points fixed in B (material points,
    as ``v2pt_theory`` / ``v1pt_theory`` set them), which is how a rolling contact is built into
    the kinematics (the contact point gets the velocity of the wheel's material point there).
    Anything else is a modelling error, raised when ``strict``. Angular velocities set by
    ``set_ang_vel`` must be the ones of the orientation where the orientation is defined.
    """
    t = _time()
    rng = np.random.default_rng(12345)
    found = _Kinematics()
    body_frames = _body_frames(bodies)

    def size(vector_matrix) -> float:
        return _numeric_zero([to_plain(e) for e in vector_matrix], symbols, rng)

    points = _body_points(bodies) + [obj for kind, obj, _ in load_pairs if kind == "point"]
    for p, other in _tree_edges(points):
        try:
            relative = _to_matrix(p.vel(frame) - other.vel(frame), frame)
            r = p.pos_from(other)
            derivative_gap = size(relative - _to_matrix(r, frame).diff(t))
        except ValueError:
            continue  # a velocity or an orientation on the way is not defined: nothing to compare
        if derivative_gap <= 1e-9:
            continue
        body = next((B for B in body_frames if _is_material(relative, B, r, frame, size)), None)
        if body is not None:
            found.material.append((p, other, body))
        elif strict:
            raise ModelError(
                f"the velocity of point {p.name} relative to point {other.name} is neither the time derivative of "
                f"their relative position (they differ by up to {derivative_gap:.3g} at random states) nor the "
                "velocity of two points fixed in one body (omega x r for the frame of one of the bodies "
                f"{', '.join(str(B) for B in body_frames) or '(none)'}): the {what} has a velocity that no motion "
                f"gives. Set it from its position ({p.name}.set_vel(N, {p.name}.pos_from(O).dt(N)) for a fixed O), or, "
                f"for points of one rigid body, with {p.name}.v2pt_theory({other.name}, N, body_frame) (a rolling "
                "contact: the contact point gets the velocity of the wheel's material point there). Pass "
                "check_kinematics=False to skip this check.")
        else:
            found.material.append((p, other, None))
    frames = {*body_frames, *(obj for kind, obj, _ in load_pairs if kind == "frame")}
    for body_frame in sorted(frames, key=str):
        try:
            given = _to_matrix(body_frame.ang_vel_in(frame), frame)
        except ValueError:
            continue  # no angular velocity relative to the inertial frame
        try:
            true = _angular_velocity_from_dcm(body_frame, frame)
        except ValueError:
            found.unoriented.append(body_frame)  # angular velocity only: Kane's equations hold it
            continue
        err = size(given - true)
        if err > 1e-9 and strict:
            raise ModelError(
                f"the angular velocity of frame {body_frame} in {frame} is not the one of its orientation (they "
                f"differ by up to {err:.3g} at random states): the {what} sets an angular velocity "
                "(set_ang_vel) that the kinematic differential equations (kd_eqs) do not reproduce. Pass "
                "check_kinematics=False to skip this check.")
    return found


def _is_material(relative, body_frame, r, frame, size) -> bool:
    """v_p - v_o == omega_B x r_op: p and o move as two points fixed in the body frame B."""
    try:
        rigid = _to_matrix(body_frame.ang_vel_in(frame).cross(r), frame)
    except ValueError:
        return False
    return size(relative - rigid) <= 1e-9


class _BodyKinematics:
    r"""One body's velocities in the plain symbols, linear in q': v = J_v q' + v_0 (mass centre)
    and, for a rigid body, omega = J_w q' + omega_0 with the symmetric central inertia I, all in
    components along one frame F (the body's frame where it is oriented) whose angular velocity
    is Omega (None: the inertial frame). Their kinetic energy is T = 1/2 m v.v + 1/2 omega.I.omega."""

    def __init__(self, mass, v, omega, inertia, Omega, qd_syms):
        zero = dict.fromkeys(qd_syms, 0)
        self.mass, self.v, self.omega, self.inertia, self.Omega = mass, v, omega, inertia, Omega
        self.Jv, self.v0 = v.jacobian(qd_syms), v.xreplace(zero)
        self.Jw = omega.jacobian(qd_syms) if omega is not None else None
        self.w0 = omega.xreplace(zero) if omega is not None else None


def _component_frame(body, frame):
    """The frame to resolve a rigid body's vectors in: its own frame if it is oriented relative to
    the inertial frame (compact expressions, constant inertia), else the frame of its inertia dyadic,
    else the inertial frame."""
    candidates = [body.frame]
    for _, *vectors in getattr(body.central_inertia, "args", []):
        candidates += [f for vector in vectors for _, f in vector.args]
    for candidate in candidates:
        try:
            candidate.dcm(frame)
        except ValueError:
            continue
        return candidate
    return frame


def _body_kinematics(bodies, frame, to_plain, q_syms, qd_syms, t, rng) -> list:
    """[_BodyKinematics] of the bodies, checking that their velocities are linear in q' and that
    nothing depends on time explicitly."""
    me = _mechanics()
    found = []
    for body in bodies:
        Omega = None
        if isinstance(body, me.RigidBody):
            F = _component_frame(body, frame)
            v = _to_matrix(body.masscenter.vel(frame), F).applyfunc(to_plain)
            omega = _to_matrix(body.frame.ang_vel_in(frame), F).applyfunc(to_plain)
            inertia = body.central_inertia.to_matrix(F).applyfunc(to_plain)
            inertia = (inertia + inertia.T) / 2
            if F is not frame:
                Omega = omega if F is body.frame else _to_matrix(F.ang_vel_in(frame), F).applyfunc(to_plain)
        else:
            v, omega, inertia = _to_matrix(body.point.vel(frame), frame).applyfunc(to_plain), None, None
        mass = to_plain(body.mass)
        entries = [*v, mass] + ([*omega, *inertia] if omega is not None else [])
        _check_specified(entries, set(), "kinetic energy of the bodies")
        if any(t in sp.sympify(e).free_symbols for e in entries):
            raise ModelError("the kinetic energy of the bodies depends on time explicitly (a moving frame, a "
                             "time-varying mass or kinematic differential equations with explicit time); nonholo's "
                             "metric and potential depend on the coordinates only")
        if Omega is not None:
            entries += [*Omega]
        kin = _BodyKinematics(mass, v, omega, inertia, Omega, qd_syms)
        _check_constant_in(kin, qd_syms, q_syms, rng, body)
        found.append(kin)
    return found


def _check_constant_in(kin: _BodyKinematics, qd_syms, q_syms, rng, body) -> None:
    """The partial velocities J_v, J_w and the mass and inertia must not depend on q' (else T is not
    quadratic in q'). Structurally free of q' is the rule; otherwise checked at random points."""
    velocities = set(qd_syms)
    entries = [*kin.Jv, kin.mass] + ([*kin.Jw, *kin.inertia] if kin.Jw is not None else [])
    suspect = [e for e in entries if sp.sympify(e).free_symbols & velocities]
    if not suspect:
        return
    derivatives = [sp.diff(e, w) for e in suspect for w in qd_syms]
    symbols = sorted({s for e in derivatives for s in sp.sympify(e).free_symbols}, key=str)
    if _numeric_zero(derivatives, symbols, rng) > 1e-9:
        raise ModelError(f"the kinetic energy of the bodies is not quadratic in the velocities (the velocities of "
                         f"{getattr(body, 'name', body)} are not linear in q')")


def _kinetic_energy_parts(kinematics: list, n: int):
    r"""T = 1/2 q'^T G q' + g^T q' + T0 from the bodies' partial velocities:
    G = sum m J_v^T J_v + J_w^T I J_w, g = sum m J_v^T v_0 + J_w^T I omega_0,
    T0 = sum 1/2 m v_0.v_0 + 1/2 omega_0.I.omega_0 (Kane and Levinson 1985, the mass matrix from
    partial velocities), without expanding T."""
    G, g, T0 = sp.zeros(n, n), sp.zeros(n, 1), sp.S.Zero
    for k in kinematics:
        G += k.mass * (k.Jv.T * k.Jv)
        g += k.mass * (k.Jv.T * k.v0)
        T0 += k.mass * (k.v0.T * k.v0)[0] / 2
        if k.Jw is not None:
            IJ, Iw0 = k.inertia * k.Jw, k.inertia * k.w0
            G += k.Jw.T * IJ
            g += k.Jw.T * Iw0
            T0 += (k.w0.T * Iw0)[0] / 2
    return G, g, T0


def _time_derivative(q_syms, qd_syms):
    """M -> dM/dt along q' at q'' = 0, entrywise (:func:`_directional`)."""
    s = sp.Dummy("s")
    return lambda M: M.applyfunc(lambda e: _directional(e, q_syms, qd_syms, s))


def _directional(expr, q_syms, qd_syms, s):
    """sum_k d(expr)/dq_k q'_k, the time derivative of expr(q) along q' (one differentiation, in s, of
    expr(q + s q') at s = 0, instead of n)."""
    expr = sp.sympify(expr)
    if not expr.free_symbols & set(q_syms):
        return sp.S.Zero
    shifted = expr.xreplace({q: q + s * w for q, w in zip(q_syms, qd_syms)})
    return sp.diff(shifted, s).xreplace({s: 0})


def _kane_inertia_correction(kinematics: list, q_syms, qd_syms) -> sp.Matrix:
    r"""The force that turns the Euler-Lagrange equations of T into Kane's equations.

    With kinematics that build a constraint in (material points) or speeds that are not the
    derivatives of coordinates, the kinetic energy T(q, q') is correct along the motions but its
    Euler-Lagrange expression E_j = d/dt dT/dq'_j - dT/dq_j is not the generalized inertia force.
    Kane's is (Kane and Levinson, Dynamics: Theory and Applications, 1985)

        Q*_j = -sum_bodies [ m a . J_v,j + (I alpha + omega x I omega) . J_w,j ],

    with the partial velocities J_v,j = dv/dq'_j, J_w,j = domega/dq'_j (Kane's dv/du_r mapped to
    q' by du_r/dq'_j). Both E and -Q* are G q'' plus terms in (q, q') with the same G, so E + Q*
    has no q'': added to the generalized force, the system's Lagrange-d'Alembert equations
    G q'' + ... = F + A^T lambda become -Q* = F_loads + A^T lambda, Kane's equations projected on
    the velocity constraints. With D the time derivative along q' at q'' = 0 (:func:`_directional`),
    v and omega in body-frame components (a_B = D(v) + omega x v, alpha_B = D(omega)), V_q = dv/dq,
    W_q = domega/dq, h = I omega, the terms in D(v) and D(omega) cancel and

        E_j + Q*_j = sum m [v.(D(J_v,j) - V_q,j) - (omega x v).J_v,j]
                     + (D(J_w,j) - W_q,j).h - (omega x h).J_w,j + J_w,j.D(I) omega - 1/2 omega.(dI/dq_j) omega,

    zero for every body whose velocities are the time derivatives of its position and orientation
    (then D(J_v,j) = V_q,j and D(J_w,j) - W_q,j = J_w,j x omega). A particle's v is in inertial
    components (no omega x v term).
    """
    n = len(q_syms)
    coordinates = set(q_syms)
    D = _time_derivative(q_syms, qd_syms)

    C = sp.zeros(n, 1)
    for k in kinematics:
        gap = D(k.Jv) - k.v.jacobian(q_syms)
        turning = k.Omega.cross(k.v) if k.Omega is not None else None
        for j in range(n):
            term = (k.v.T * gap[:, j])[0]
            if turning is not None:
                term -= (turning.T * k.Jv[:, j])[0]
            C[j] += k.mass * term
        if k.Jw is None:
            continue
        h = k.inertia * k.omega
        gap = D(k.Jw) - k.omega.jacobian(q_syms)
        spin = k.omega.cross(h)
        if k.Omega is not None and k.Omega is not k.omega:  # alpha_F = D(omega) + Omega x omega
            spin += k.inertia * k.Omega.cross(k.omega)
        varying = bool(k.inertia.free_symbols & coordinates)
        DI_omega = D(k.inertia) * k.omega if varying else None
        for j in range(n):
            C[j] += (gap[:, j].T * h)[0] - (spin.T * k.Jw[:, j])[0]
            if varying:
                C[j] += (k.Jw[:, j].T * DI_omega)[0] - (k.omega.T * k.inertia.diff(q_syms[j]) * k.omega)[0] / 2
    return C


def _kane_inertia_forces(kinematics: list, q_syms, qd_syms) -> sp.Matrix:
    r"""Kane's generalized inertia forces at q'' = 0, K = -Q*|_(q''=0) (Kane and Levinson 1985):

        K_j = sum_bodies m a_0 . J_v,j + (dH/dt)_0 . J_w,j,

    with the mass centre's acceleration a_0 = D(v) + Omega x v and the rate of the central
    angular momentum H = I omega, (dH/dt)_0 = D(I) omega + I D(omega) + Omega x H, in the
    components of the frame the body's vectors are resolved in (angular velocity Omega, zero for
    the inertial frame; D the time derivative along q' at q'' = 0, :func:`_directional`). Then
    G q'' + K = -Q*, and Kane's equations G q'' = F_loads - K - dV/dq + A^T lambda are those of
    the system that :func:`kanes_method_arguments` builds (metric, potential - T0 and force
    F_loads + gyroscopic + the inertia correction of :func:`_kane_inertia_correction`): the same
    applied force r = F - c(q, q') - dV, from three directional derivatives per vector instead of
    the metric's derivatives and the correction's n columns of them."""
    n = len(q_syms)
    coordinates = set(q_syms)
    D = _time_derivative(q_syms, qd_syms)

    K = sp.zeros(n, 1)
    for k in kinematics:
        a0 = D(k.v)
        if k.Omega is not None:
            a0 += k.Omega.cross(k.v)
        for j in range(n):
            K[j] += k.mass * (a0.T * k.Jv[:, j])[0]
        if k.Jw is None:
            continue
        h = k.inertia * k.omega
        dh = k.inertia * D(k.omega)
        if k.inertia.free_symbols & coordinates:
            dh += D(k.inertia) * k.omega
        if k.Omega is not None:
            dh += k.Omega.cross(h)
        for j in range(n):
            K[j] += (dh.T * k.Jw[:, j])[0]
    return K


def _split_quadratic(T, q_syms, qd_syms, t, what: str, rng=None):
    """T = 1/2 q'^T G q' + g^T q' + T0: (G, g, T0), checking the form.

    G is the Hessian of T in q' and g its gradient at q' = 0, by differentiation of T as given (no
    expansion); the form is checked at random points (T minus the quadratic form vanishes)."""
    if t in T.free_symbols:
        raise ModelError(f"the {what} depends on time explicitly (a moving frame, a time-varying mass or "
                         "kinematic differential equations with explicit time); nonholo's metric and potential "
                         "depend on the coordinates only")
    n = len(qd_syms)
    zero = dict.fromkeys(qd_syms, 0)
    gradient = [sp.diff(T, w) for w in qd_syms]
    G = sp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            G[i, j] = G[j, i] = sp.diff(gradient[i], qd_syms[j]).xreplace(zero)
    g = sp.Matrix([d.xreplace(zero) for d in gradient])
    T0 = T.xreplace(zero)
    v = sp.Matrix(qd_syms)
    residual = T - ((v.T * G * v)[0] / 2 + (g.T * v)[0] + T0)
    symbols = sorted(T.free_symbols | set(qd_syms), key=str)
    rng = rng if rng is not None else np.random.default_rng(2024)
    scale = max(1.0, _numeric_zero([T], symbols, rng))
    if _numeric_zero([residual], symbols, rng) > 1e-9 * scale:
        raise ModelError(f"the {what} is not of the form 1/2 q'^T G q' + g^T q' + T0 (it is not quadratic in the "
                         "velocities)")
    return G, g, T0


def _gyroscopic(g, q_syms, qd_syms) -> sp.Matrix:
    """The force ((dg/dq)^T - dg/dq) q' of a Lagrangian term g(q)^T q' (as System.from_lagrangian)."""
    if all(gi == 0 for gi in g):
        return sp.zeros(len(q_syms), 1)
    dg = g.jacobian(q_syms)
    return (dg.T - dg) * sp.Matrix(qd_syms)


def _linear_in_velocities(rows: sp.Matrix, qd_syms, what: str):
    """rows = A q' - b: (A, b), checking linearity (structurally, else at random points)."""
    if rows.shape[0] == 0:
        return None, None
    A = rows.jacobian(qd_syms)
    velocities = set(qd_syms)
    suspect = [a for a in A if a.free_symbols & velocities]
    if suspect:
        derivatives = [sp.diff(a, w) for a in suspect for w in qd_syms]
        symbols = sorted({s for e in derivatives for s in e.free_symbols}, key=str)
        if _numeric_zero(derivatives, symbols, np.random.default_rng(11)) > 1e-9:
            raise ModelError(f"the {what} are not linear in the velocities q'; nonholo takes constraints "
                             "A(q) q' = b(q, t)")
    b = -rows.xreplace(dict.fromkeys(qd_syms, 0))
    return A, b


def _tidy(matrix, simplify: bool):
    if matrix is None:
        return None
    if not simplify:
        return matrix
    return matrix.applyfunc(lambda e: sp.simplify(e)) if isinstance(matrix, sp.MatrixBase) else sp.simplify(matrix)


def _parameters_check(exprs, allowed: set, parameters: Mapping, what: str) -> None:
    missing = set()
    for e in exprs:
        missing |= {s for s in sp.sympify(e).free_symbols if s not in allowed}
    names = {str(k) for k in parameters}
    missing = {s for s in missing if s not in parameters and str(s) not in names}
    if missing:
        listed = ", ".join(sorted(map(str, missing)))
        raise ModelError(f"the {what} uses the symbols {listed}; give their values with "
                         f"parameters={{{', '.join(f'{s}: ...' for s in sorted(map(str, missing)))}}}")


def _resolve(method, cls_name: str):
    """Accept a KanesMethod/LagrangesMethod or a sympy.physics.mechanics.System that formed one."""
    me = _mechanics()
    target = getattr(me, cls_name)
    if isinstance(method, target):
        return method
    eom = getattr(method, "eom_method", None)
    if isinstance(eom, target):
        return eom
    raise TypeError(f"expected a sympy.physics.mechanics.{cls_name} (or a mechanics System whose form_eoms() "
                    f"used it), got {type(method).__name__}")


# --------------------------------------------------------------------------- KanesMethod
def _kane_kinematics(km):
    """({u_i: u_i(q, q')}, [q_i'], [auxiliary coordinates]) from the kd_eqs, in dynamicsymbols.

    A speed that appears in no kinematic differential equation (the spin of a wheel whose
    rotation angle is ignorable, as in SymPy's bicycle) is the derivative of an auxiliary
    coordinate ``<speed>_integral`` appended after q_ind + q_dep: nothing depends on it, and
    it gives the speed its place among the velocities q'.
    """
    me = _mechanics()
    t = _time()
    q, u = list(km.q), list(km.u)
    if not getattr(km, "_qdot_u_map", None):
        raise ModelError("the KanesMethod has no kinematic differential equations (kd_eqs); nonholo needs them "
                         "to express the speeds u through q'")
    k_ku = getattr(km, "_k_ku_implicit", None)
    if k_ku is None or k_ku.shape != (len(q), len(u)):  # older SymPy: explicit form only
        k_ku, k_kqdot, f_k = km._k_ku, km._k_kqdot, km._f_k
    else:
        k_kqdot, f_k = km._k_kqdot_implicit, km._f_k_implicit
    uaux_zero = dict.fromkeys(list(km._uaux), 0)
    k_ku, k_kqdot, f_k = (sp.Matrix(M).xreplace(uaux_zero) for M in (k_ku, k_kqdot, f_k))
    free = [j for j in range(len(u)) if all(k_ku[i, j] == 0 for i in range(k_ku.rows))]
    tied = [j for j in range(len(u)) if j not in free]
    if len(tied) != len(q):
        raise ModelError(
            f"nonholo needs one generalized speed per coordinate: this KanesMethod has {len(u)} speeds "
            f"(u_ind + u_dep = {[str(s) for s in u]}) for {len(q)} coordinates (q_ind + q_dep = "
            f"{[str(s) for s in q]}), and the kd_eqs involve {len(tied)} of them. Speeds in the kd_eqs without a "
            "coordinate of their own (e.g. the velocity of a contact point whose position is not tracked) need the "
            "coordinates whose derivatives they are, with their kd_eqs")
    aux = [me.dynamicsymbols(f"{_name(u[j])}_integral") for j in free]
    qd = [qi.diff(t) for qi in q + aux]
    k_tied = k_ku.extract(list(range(k_ku.rows)), tied)
    if k_tied.det() == 0:
        raise ModelError("the kinematic differential equations (kd_eqs) do not determine the speeds u from q' "
                         "(their matrix k_ku is singular); nonholo needs u = u(q, q')")
    u_expr = -k_tied.LUsolve(k_kqdot * sp.Matrix(qd[:len(q)]) + f_k)
    u_of_qdot = {u[j]: e for j, e in zip(tied, u_expr)}
    u_of_qdot.update({u[j]: qd[len(q) + i] for i, j in enumerate(free)})
    return u_of_qdot, qd, aux


def kanes_method_arguments(
    km,
    parameters: Mapping | None = None,
    *,
    potential=0,
    friction=None,
    specified: Mapping | None = None,
    name: str | None = None,
    simplify: bool = False,
    check_kinematics: bool = True,
) -> dict:
    r"""The keyword arguments of :class:`nonholo.System` for a ``KanesMethod``.

    Parameters
    ----------
    km : sympy.physics.mechanics.KanesMethod
        With kinematic differential equations (``kd_eqs``), one speed per coordinate
        (``u_ind`` + ``u_dep`` as many as ``q_ind`` + ``q_dep``), its bodies and loads (given
        to the constructor or to ``kanes_equations``), and optional ``velocity_constraints``
        (nonholonomic constraints for ``u_dependent``) and ``configuration_constraints``
        (holonomic constraints for ``q_dependent``, whose time derivatives must be among the
        velocity constraints, as SymPy expects). Auxiliary speeds (``u_auxiliary``) are set
        to zero. A ``sympy.physics.mechanics.System`` whose ``form_eoms()`` used
        ``KanesMethod`` is accepted too.
    parameters : mapping {symbol or name: value}
        Values of every constant symbol (masses, lengths, gravity, ...).
    potential : SymPy expression, optional
        V(q) in the coordinates' dynamicsymbols (or plain symbols of the same names), added to the
        system. The loads enter as the generalized force; do not include a force here and in the
        loads.
    friction : SymPy matrix or scalar, optional
        mu(q) for the friction model, one row and column per velocity constraint.
    specified : mapping {dynamicsymbol: expression}, optional
        Values of other dynamicsymbols (inputs) as expressions in t, the coordinates and their
        derivatives.
    name : str, optional
    simplify : bool
        Run ``sympy.simplify`` on G, A, b, F (nicer display, slower construction).
    check_kinematics : bool
        Check (numerically at random states) that the velocity of every located point, relative
        to the point it was located from, is the time derivative of their relative position or
        the velocity of two points fixed in one body frame (a rolling contact), and every body's
        angular velocity the one of its orientation; see the module docstring. Without the check
        the kinematics are taken as given (and still classified, so that material-point
        velocities get Kane's inertia forces).

    Returns
    -------
    dict
        ``coordinates`` (the symbols named after q_ind + q_dep, in that order), ``velocities``
        (``<name>_dot``), ``metric`` (n, n), ``potential``, ``constraints`` (k, n) and
        ``affine`` (k,) from the velocity constraints (k = len(u_dep)), ``friction``, ``force``
        (n,), ``applied_force`` (n,: loads minus Kane's inertia forces, minus dV/dq, the same
        function as F - c(q, q') - dV, :func:`_kane_inertia_forces`), ``parameters``, ``time``
        and ``name``. States of the models are
        ``[q, q']`` in this order; convert Kane's speeds with :func:`kane_qdot`.
    """
    km = _resolve(km, "KanesMethod")
    t = _time()
    parameters = dict(parameters or {})
    frame = km._inertial
    bodies = km.bodies
    if not bodies:
        raise ModelError("the KanesMethod has no bodies: pass them to KanesMethod(..., bodies=...) or call "
                         "km.kanes_equations(bodies, loads) first")
    pairs = _load_pairs(km.loads, frame, "loads")
    u_of_qdot, qd, aux = _kane_kinematics(km)
    q = list(km.q) + aux
    uaux_zero = dict.fromkeys(list(km._uaux), 0)
    q_syms, qd_syms = _symbols_for(q, parameters)
    spec = dict(specified or {})
    plain = {**dict(zip(qd, qd_syms)), **dict(zip(q, q_syms))}

    def to_plain(expr):
        e = sp.sympify(expr)
        if spec:
            e = e.subs(spec)
        e = e.xreplace(uaux_zero).xreplace(u_of_qdot)
        return e.xreplace(plain)

    uaux_zero.update({ua.diff(t): 0 for ua in km._uaux})

    velocity_map = {**uaux_zero, **u_of_qdot}

    # kinetic energy of the unconstrained system, in q', from the bodies' partial velocities
    kinematics_q = _body_kinematics(bodies, frame, to_plain, q_syms, qd_syms, t, np.random.default_rng(5))
    G, g, T0 = _kinetic_energy_parts(kinematics_q, len(q_syms))
    V = sp.sympify(potential).xreplace(plain) - T0
    _check_specified([V], set(), "potential")

    # loads -> generalized force
    F = _generalized_force(pairs, frame, velocity_map, qd)
    F = F.applyfunc(to_plain)
    _check_specified(list(F), set(), "loads")
    loads = F
    F = F + _gyroscopic(g, q_syms, qd_syms)

    # velocity constraints k_nh u + f_nh = 0, in q'
    A = b = None
    if len(km._udep):
        k_nh, f_nh = sp.Matrix(km._k_nh), sp.Matrix(km._f_nh)
        rows = (k_nh * sp.Matrix(list(km.u)) + f_nh).applyfunc(to_plain)
        _check_specified(list(rows), set(), "velocity_constraints")
        A, b = _linear_in_velocities(rows, qd_syms, "velocity_constraints")
        if any(t in a.free_symbols for a in A):
            raise ModelError("the coefficients of the speeds in the velocity_constraints depend on time "
                             "explicitly; nonholo takes A(q) q' = b(q, t) (only the affine part f_nh may depend on t)")
    _check_holonomic_kane(km, A, b, q, q_syms, qd_syms, plain)
    holonomic = [sp.sympify(h).xreplace(plain) for h in km._f_h] if len(km._f_h) else None

    exprs = [*G, V, *F] + ([*A, *b] if A is not None else [])
    allowed = {*q_syms, *qd_syms, t}
    _parameters_check(exprs, allowed, parameters, "KanesMethod")
    symbols = [*q_syms, *qd_syms, t, *sorted({s for e in exprs for s in sp.sympify(e).free_symbols} - allowed,
                                             key=str)]
    if check_kinematics:  # raises on a velocity that no motion gives
        _classify_kinematics(bodies, pairs, frame, to_plain, symbols, "KanesMethod", True)
    # Kane's inertia forces where the Euler-Lagrange equations of T differ from them (rolling built
    # into the kinematics, speeds of auxiliary coordinates); the correction is identically zero
    # otherwise, and then left out (checked at random points, relative to the metric's size)
    correction = _kane_inertia_correction(kinematics_q, q_syms, qd_syms)
    rng = np.random.default_rng(3)
    symbols += sorted({s for e in correction for s in e.free_symbols} - set(symbols), key=str)
    if _numeric_zero(list(correction), symbols, rng) > 1e-9 * max(1.0, _numeric_zero(list(G), symbols, rng)):
        F = F + correction
    # the same applied force r = F - c(q, q') - dV in Kane's form, for the compiled right-hand sides
    user_potential = sp.sympify(potential).xreplace(plain)
    applied = loads - _kane_inertia_forces(kinematics_q, q_syms, qd_syms) - \
        sp.Matrix([sp.diff(user_potential, qi) for qi in q_syms])

    return dict(
        coordinates=q_syms, velocities=qd_syms, metric=_tidy(G, simplify), potential=_tidy(V, simplify),
        constraints=_tidy(A, simplify), affine=_tidy(b, simplify), friction=friction,
        force=None if all(f == 0 for f in F) else _tidy(F, simplify), parameters=parameters, time=t,
        name=name or "from KanesMethod", holonomic=holonomic, applied_force=applied,
    )


def _check_holonomic_kane(km, A, b, q, q_syms, qd_syms, plain) -> None:
    """The time derivatives of the configuration_constraints must be among the velocity_constraints."""
    f_h = sp.Matrix(km._f_h) if len(km._f_h) else None
    if f_h is None:
        return
    t = _time()
    rows = f_h.jacobian(q).xreplace(plain)  # (df_h/dq) q' = -df_h/dt
    rhs = -(f_h.xreplace(plain)).diff(t)  # explicit time dependence only
    if A is None:
        raise ModelError("the KanesMethod has configuration_constraints (holonomic constraints for q_dependent) "
                         "but no velocity_constraints; SymPy's KanesMethod, like nonholo, needs their time "
                         "derivatives among the velocity_constraints (with u_dependent)")
    symbols = [*q_syms, *qd_syms, t, *sorted({s for e in [*A, *b, *rows, *rhs] for s in e.free_symbols}
                                             - {*q_syms, *qd_syms, t}, key=str)]
    k, m = A.rows, rows.rows
    exprs = [*sp.Matrix.hstack(A, b), *sp.Matrix.hstack(rows, rhs)]
    rng = np.random.default_rng(7)
    for _ in range(4):
        values = _numeric_values(exprs, symbols, rng.uniform(0.3, 1.3, len(symbols))).real
        base = values[:k * (A.cols + 1)].reshape(k, -1)
        both = np.vstack([base, values[k * (A.cols + 1):].reshape(m, -1)])
        tol = 1e-9 * max(1.0, np.abs(both).max())
        if np.linalg.matrix_rank(both, tol) > np.linalg.matrix_rank(base, tol):
            raise ModelError(
                "the time derivatives of the configuration_constraints (holonomic constraints for q_dependent) "
                "are not among the velocity_constraints; SymPy's KanesMethod uses configuration constraints for "
                "linearization only and needs their derivatives as velocity_constraints (with u_dependent). "
                "Add them (nonholo enforces holonomic constraints at the velocity level)")


def kane_qdot(km, q, u, parameters: Mapping | None = None) -> np.ndarray:
    r"""q' from Kane's speeds with the kinematic differential equations (``kd_eqs``).

    Parameters
    ----------
    km : KanesMethod
    q : array_like, shape (n,) or (n + n_aux,)
        Coordinates in the order q_ind + q_dep (the auxiliary coordinates ``<speed>_integral`` of
        speeds that appear in no kd_eq may follow; nothing depends on them).
    u : array_like, shape (n_u,)
        Speeds in the order u_ind + u_dep.
    parameters : mapping {symbol or name: value}

    Returns
    -------
    ndarray, shape (n + n_aux,)
        q' of every coordinate of the system, so that ``np.r_[q, kane_qdot(km, q, u, p)]`` (with
        q of shape (n + n_aux,)) is a state ``[q, q']`` of the system.
    """
    km = _resolve(km, "KanesMethod")
    t = _time()
    u_of_qdot, _, aux = _kane_kinematics(km)
    qs, us = list(km.q), list(km.u)
    qdot_of_u = km.kindiffdict()
    uaux_zero = dict.fromkeys(list(km._uaux), 0)
    exprs = [sp.sympify(qdot_of_u[qi.diff(t)]).xreplace(uaux_zero) for qi in qs]
    exprs += [next(ui for ui, e in u_of_qdot.items() if e == a.diff(t)) for a in aux]
    return _evaluate(exprs, qs, us, _leading(q, len(qs), len(aux), "q"), u, parameters, "u")


def kane_speeds(km, q, qdot, parameters: Mapping | None = None) -> np.ndarray:
    r"""Kane's speeds u (order u_ind + u_dep), shape (n_u,), from q (n or n + n_aux,) and q'
    (n + n_aux,): the inverse of :func:`kane_qdot`. Apply it to each column of a result
    (``sol.q``, ``sol.v``) to compare with Kane's states."""
    km = _resolve(km, "KanesMethod")
    u_of_qdot, qd, aux = _kane_kinematics(km)
    exprs = [u_of_qdot[ui] for ui in km.u]
    return _evaluate(exprs, list(km.q), qd, _leading(q, len(km.q), len(aux), "q"), qdot, parameters, "qdot")


def _leading(q, n: int, n_aux: int, what: str) -> np.ndarray:
    """The first n entries of q, which may also carry the n_aux auxiliary coordinates."""
    q = np.asarray(q, dtype=float).reshape(-1)
    if q.size not in (n, n + n_aux):
        raise ValueError(f"{what} must have shape ({n},) or ({n + n_aux},), got {q.shape}")
    return q[:n]


def _evaluate(exprs, qs, second, q, x, parameters, what: str) -> np.ndarray:
    q = np.asarray(q, dtype=float).reshape(-1)
    x = np.asarray(x, dtype=float).reshape(-1)
    if q.size != len(qs) or x.size != len(second):
        raise ValueError(f"q must have shape ({len(qs)},) and {what} shape ({len(second)},), "
                         f"got {q.shape} and {x.shape}")
    params = dict(parameters or {})
    values = {}
    for key, val in params.items():
        values[sp.Symbol(key) if isinstance(key, str) else key] = float(val)
    dummies_q = [sp.Dummy() for _ in qs]
    dummies_x = [sp.Dummy() for _ in second]
    rule = {**dict(zip(second, dummies_x)), **dict(zip(qs, dummies_q))}
    plain = [sp.sympify(e).xreplace(rule) for e in exprs]
    names = {str(k): v for k, v in values.items()}
    free = sorted({s for e in plain for s in e.free_symbols} - set(dummies_q) - set(dummies_x), key=str)
    missing = [str(s) for s in free if s not in values and str(s) not in names]
    if missing:
        raise ValueError(f"parameters is missing values for {', '.join(missing)}")
    fixed = [values.get(s, names.get(str(s))) for s in free]
    f = sp.lambdify([*dummies_q, *dummies_x, *free], plain, "numpy")
    return np.asarray(f(*q, *x, *fixed), dtype=float).reshape(-1)


# --------------------------------------------------------------------------- LagrangesMethod
def lagranges_method_arguments(
    lm,
    parameters: Mapping | None = None,
    *,
    friction=None,
    specified: Mapping | None = None,
    name: str | None = None,
    simplify: bool = False,
    check_kinematics: bool = True,
) -> dict:
    r"""The keyword arguments of :class:`nonholo.System` for a ``LagrangesMethod``.

    Parameters
    ----------
    lm : sympy.physics.mechanics.LagrangesMethod
        Its Lagrangian must be quadratic in the q' (L = 1/2 q'^T G q' + g^T q' - V) and not
        depend on time explicitly. Nonholonomic constraints (``nonhol_coneqs``) must be linear
        in q'; holonomic constraints (``hol_coneqs``) enter through their time derivatives, as
        in SymPy. Loads (``forcelist``) need the inertial ``frame``. A
        ``sympy.physics.mechanics.System`` whose ``form_eoms()`` used ``LagrangesMethod`` is
        accepted too.
    parameters : mapping {symbol or name: value}
        Values of every constant symbol.
    friction, specified, name, simplify
        As for :func:`kanes_method_arguments`.
    check_kinematics : bool
        When ``lm`` was given its ``bodies``: check that their velocities are the time
        derivatives of their positions (the Lagrangian must be the one of the unconstrained
        system; substituting a constraint into L gives wrong equations).

    Returns
    -------
    dict
        The keyword arguments of :class:`nonholo.System`: ``coordinates`` (symbols named after
        ``lm.q``, in order), ``velocities`` (``<name>_dot``), ``metric`` (n, n), ``potential``,
        ``constraints`` (k, n), ``affine`` (k,), ``friction``, ``force`` (n,), ``parameters``,
        ``time``, ``name``. Model states are ``[q, q']``.
    """
    lm = _resolve(lm, "LagrangesMethod")
    t = _time()
    parameters = dict(parameters or {})
    q = list(lm.q)
    qd = [qi.diff(t) for qi in q]
    q_syms, qd_syms = _symbols_for(q, parameters)
    spec = dict(specified or {})
    plain = {**dict(zip(qd, qd_syms)), **dict(zip(q, q_syms))}

    def to_plain(expr):
        e = sp.sympify(expr)
        if spec:
            e = e.subs(spec)
        return e.xreplace(plain)

    L = to_plain(sp.Matrix(lm._L)[0])
    _check_specified([L], set(), "Lagrangian")
    G, g, minus_V = _split_quadratic(L, q_syms, qd_syms, t, "Lagrangian")
    V = -minus_V
    frame = lm.inertial
    pairs = _load_pairs(lm.forcelist, frame, "forcelist")
    F = _generalized_force(pairs, frame, {}, qd).applyfunc(to_plain)
    _check_specified(list(F), set(), "forcelist")
    F = F + _gyroscopic(g, q_syms, qd_syms)

    A = b = None
    if len(lm.coneqs):
        rows = sp.Matrix(lm.coneqs).applyfunc(to_plain)
        _check_specified(list(rows), set(), "constraint equations (hol_coneqs, nonhol_coneqs)")
        A, b = _linear_in_velocities(rows, qd_syms, "nonholonomic constraints (nonhol_coneqs)")
        if any(t in a.free_symbols for a in A):
            raise ModelError("the coefficients of q' in the constraint equations depend on time explicitly; "
                             "nonholo takes A(q) q' = b(q, t)")

    exprs = [*G, V, *F] + ([*A, *b] if A is not None else [])
    allowed = {*q_syms, *qd_syms, t}
    _parameters_check(exprs, allowed, parameters, "LagrangesMethod")
    if check_kinematics and lm.bodies and frame is not None:
        symbols = [*q_syms, *qd_syms, t, *sorted({s for e in exprs for s in sp.sympify(e).free_symbols} - allowed,
                                                 key=str)]
        kinematics = _classify_kinematics(lm.bodies, pairs, frame, to_plain, symbols, "LagrangesMethod", True)
        if kinematics.material:
            p, other, body = kinematics.material[0]
            raise ModelError(
                f"the velocity of point {p.name} relative to point {other.name} is the one of two points fixed in "
                f"{body}, not the time derivative of their relative position: a constraint (a rolling contact) is "
                "built into the kinematics, and the Euler-Lagrange equations of such a Lagrangian are not the "
                "motion. Build the same model with KanesMethod (System.from_kanes_method accepts it), or give the "
                "contact point coordinates and the no-slip conditions as nonhol_coneqs. Pass check_kinematics=False "
                "to skip this check.")

    return dict(
        coordinates=q_syms, velocities=qd_syms, metric=_tidy(G, simplify), potential=_tidy(V, simplify),
        constraints=_tidy(A, simplify), affine=_tidy(b, simplify), friction=friction,
        force=None if all(f == 0 for f in F) else _tidy(F, simplify), parameters=parameters, time=t,
        name=name or "from LagrangesMethod", holonomic=_lagrange_holonomic(lm, to_plain),
    )


def _lagrange_holonomic(lm, to_plain):
    """The holonomic constraints f_h(q, t) = 0 of a LagrangesMethod (None if there are none or
    they depend on time: nonholo's h depends on q only)."""
    hol = getattr(lm, "_hol_coneqs", None) or getattr(lm, "hol_coneqs", None)
    if hol is None or len(hol) == 0:
        return None
    h = [to_plain(e) for e in hol]
    return None if any(_time() in e.free_symbols for e in h) else h
