"""Shared machinery of the sympy.physics.mechanics importer: loads, bodies and their kinematics,
the kinetic energy split into metric and gyroscopic parts, numeric checks at random points."""

from __future__ import annotations

import cmath
from typing import Mapping

import numpy as np
import sympy as sp

from ...errors import ModelError


def mechanics_module():
    try:
        from sympy.physics import mechanics as me
    except ImportError as exc:  # pragma: no cover - sympy always ships it
        raise ImportError("sympy.physics.mechanics is needed for the adapters") from exc
    return me


def time_symbol():
    return mechanics_module().dynamicsymbols._t


def carried_holonomic(h: list, what: str, stacklevel: int) -> list | None:
    """The holonomic constraints f_h(q) = 0 of ``h`` that a System carries (``System.holonomic``: a
    start checked against them, plans imposing them at position level), None if none. A constraint
    that depends on time explicitly (a wire that moves) is held through its time derivative among
    the velocity constraints alone, to the integration error: left out, with a warning that says so."""
    t = time_symbol()
    moving = [t in sp.sympify(e).free_symbols for e in h]
    kept = [e for e, m in zip(h, moving) if not m]
    moving = [e for e, m in zip(h, moving) if m]
    if moving:
        import warnings

        many = len(moving) > 1
        warnings.warn(f"{what}: the holonomic constraint{'s' if many else ''} {', '.join(map(str, moving))} = 0 "
                      f"depend{'' if many else 's'} on time explicitly; the system holds {'them' if many else 'it'} "
                      f"through {'their' if many else 'its'} time derivative among the velocity constraints (to the "
                      "integration error), not at position level (System.holonomic has the others)",
                      UserWarning, stacklevel=stacklevel)
    return kept or None


def dynamic_name(f) -> str:
    """'q1' for the dynamicsymbol q1(t)."""
    return f.func.__name__ if isinstance(f, sp.core.function.AppliedUndef) else str(f)


def plain_symbols_for(coordinates, parameters) -> tuple:
    """Plain symbols (q, q_dot) for the dynamicsymbols q(t), checking for name clashes."""
    taken = {str(s) for s in parameters}
    q_syms, qd_syms = [], []
    for q in coordinates:
        name = dynamic_name(q)
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


def check_specified(exprs, allowed_dynamic: set, what: str) -> None:
    me = mechanics_module()
    found = set()
    for e in exprs:
        found |= set(me.find_dynamicsymbols(sp.sympify(e)))
    unknown = sorted((str(s) for s in found - allowed_dynamic), key=str)
    if unknown:
        raise ModelError(
            f"{what} contain the dynamicsymbols {', '.join(unknown)}, which are neither coordinates (q_ind, q_dep) "
            "nor speeds (u_ind, u_dep); give them as expressions in t, the coordinates and their derivatives "
            "with specified={symbol: expression}")


def loads_as_pairs(loads, frame, what: str) -> list:
    """[(kind, object, vector)] from a SymPy forcelist/loads; kind is 'point' or 'frame'."""
    me = mechanics_module()
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


def generalized_force(pairs, frame, velocity_map: dict, qdots) -> sp.Matrix:
    """F_j = sum f . d(v)/d(q'_j) with v (point velocity or frame angular velocity) in q'."""
    me = mechanics_module()
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
    me = mechanics_module()
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


def numeric_values(exprs, symbols, x) -> np.ndarray:
    """The expressions at symbols = x, as complex numbers (nan where undefined)."""
    point, memo = dict(zip(symbols, x)), {}
    values = []
    for e in exprs:
        try:
            values.append(_complex_value(e, point, memo))
        except (ZeroDivisionError, OverflowError, ValueError):
            values.append(complex("nan"))
    return np.array(values, dtype=complex)


def numeric_zero(exprs, symbols, rng, points: int = 4) -> float:
    """Largest |expr| over random points, every symbol uniform in [0.3, 1.3] (so that the terms are
    of order one and round-off is about 1e-15)."""
    exprs = [sp.sympify(e) for e in exprs]
    if not exprs or all(e == 0 for e in exprs):
        return 0.0
    worst = 0.0
    for _ in range(points):
        values = numeric_values(exprs, symbols, rng.uniform(0.3, 1.3, len(symbols)))
        if not np.all(np.isfinite(values)):
            continue
        worst = max(worst, float(np.abs(values).max()))
    return worst


def _angular_velocity_from_dcm(frame, inertial) -> sp.Matrix:
    """The angular velocity of ``frame`` in ``inertial`` from the time derivative of the
    direction cosines (orientation only; ignores a velocity set by ``set_ang_vel``), in
    ``inertial`` components."""
    t = time_symbol()
    M = inertial.dcm(frame)  # columns: frame's basis in inertial components
    W = M.diff(t) * M.T
    return sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])


def _shortest_paths(start) -> dict:
    """{point: the point before it on a shortest path from ``start``} over the position graph
    (breadth first, in the order the points were located)."""
    before, queue, i = {start: None}, [start], 0
    while i < len(queue):
        p, i = queue[i], i + 1
        for other in getattr(p, "_pos_dict", {}):
            if other not in before:
                before[other] = p
                queue.append(other)
    return before


def _has_velocity(point, frame) -> bool:
    """The point's velocity in ``frame`` is set (by set_vel, v2pt_theory, ... or an earlier vel())."""
    return frame in getattr(point, "_vel_dict", {})


def _model_edges(points, frame) -> list:
    """The edges (p, o) to check: consecutive points of the paths in the position graph that connect
    the model's ``points`` (mass centres, particles, points where loads act) to each other and to
    the origin (the points whose velocity in ``frame`` is set to zero), p the one farther from the
    origin. Points located from them that the model does not use (another model's points sharing
    the origin) are left alone. On a path, a point whose velocity was never set nor computed is
    skipped (its velocity would be the derivative of its position from a neighbour, and asking
    SymPy for it warns): its neighbours on the path are compared directly."""
    used = list(dict.fromkeys(points))
    paths = {u: _shortest_paths(u) for u in used}
    component = {p for before in paths.values() for p in before}
    origins = [p for p in sorted(component, key=lambda p: p.name)
               if _has_velocity(p, frame) and p._vel_dict[frame] == 0]
    keep = {*used, *(p for p in component if _has_velocity(p, frame))}
    edges, done = [], set()
    for targets in (origins, used):  # paths to the origin first: they orient the edges
        for u in used:
            for target in targets:
                if target is u or target not in paths[u]:
                    continue
                chain, p = [], target
                while p is not None:
                    if p in keep:
                        chain.append(p)
                    p = paths[u][p]
                chain.reverse()  # from u to target
                for a, b in zip(chain, chain[1:]):
                    if frozenset((a, b)) not in done:
                        done.add(frozenset((a, b)))
                        edges.append((a, b))
    return sorted(edges, key=lambda e: (e[0].name, e[1].name))


class _Kinematics:
    """What :func:`classify_kinematics` found: the edges whose relative velocity is the one of two
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


def classify_kinematics(bodies, load_pairs, frame, to_plain, symbols, what: str, strict: bool) -> _Kinematics:
    r"""Compare each point velocity with its position and each angular velocity with its orientation.

    For every edge (p, o) of the paths that connect the points the model uses to each other and
    to the origin (:func:`_model_edges`; p the point farther from the origin), the relative velocity
    v_p - v_o must be either the time derivative of r_op in the inertial frame, or
    omega_B x r_op for a body frame B: the velocities of two points fixed in B (material points,
    as ``v2pt_theory`` / ``v1pt_theory`` set them), which is how a rolling contact is built into
    the kinematics (the contact point gets the velocity of the wheel's material point there).
    Anything else is a modelling error, raised when ``strict``. Angular velocities set by
    ``set_ang_vel`` must be the ones of the orientation where the orientation is defined.
    """
    t = time_symbol()
    rng = np.random.default_rng(12345)
    found = _Kinematics()
    body_frames = _body_frames(bodies)

    def size(vector_matrix) -> float:
        return numeric_zero([to_plain(e) for e in vector_matrix], symbols, rng)

    points = _body_points(bodies) + [obj for kind, obj, _ in load_pairs if kind == "point"]
    for p, other in _model_edges(points, frame):
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


def body_kinematics(bodies, frame, to_plain, q_syms, qd_syms, t, rng) -> list:
    """[_BodyKinematics] of the bodies, checking that their velocities are linear in q' and that
    nothing depends on time explicitly."""
    me = mechanics_module()
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
        check_specified(entries, set(), "kinetic energy of the bodies")
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
    if numeric_zero(derivatives, symbols, rng) > 1e-9:
        raise ModelError(f"the kinetic energy of the bodies is not quadratic in the velocities (the velocities of "
                         f"{getattr(body, 'name', body)} are not linear in q')")


def kinetic_energy_parts(kinematics: list, n: int):
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


def kane_inertia_correction(kinematics: list, q_syms, qd_syms) -> sp.Matrix:
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


def kane_inertia_forces(kinematics: list, q_syms, qd_syms) -> sp.Matrix:
    r"""Kane's generalized inertia forces at q'' = 0, K = -Q*|_(q''=0) (Kane and Levinson 1985):

        K_j = sum_bodies m a_0 . J_v,j + (dH/dt)_0 . J_w,j,

    with the mass centre's acceleration a_0 = D(v) + Omega x v and the rate of the central
    angular momentum H = I omega, (dH/dt)_0 = D(I) omega + I D(omega) + Omega x H, in the
    components of the frame the body's vectors are resolved in (angular velocity Omega, zero for
    the inertial frame; D the time derivative along q' at q'' = 0, :func:`_directional`). Then
    G q'' + K = -Q*, and Kane's equations G q'' = F_loads - K - dV/dq + A^T lambda are those of
    the system that :func:`kanes_method_arguments` builds (metric, potential - T0 and force
    F_loads + gyroscopic + the inertia correction of :func:`kane_inertia_correction`): the same
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


def split_quadratic(T, q_syms, qd_syms, t, what: str, rng=None):
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
    scale = max(1.0, numeric_zero([T], symbols, rng))
    if numeric_zero([residual], symbols, rng) > 1e-9 * scale:
        raise ModelError(f"the {what} is not of the form 1/2 q'^T G q' + g^T q' + T0 (it is not quadratic in the "
                         "velocities)")
    return G, g, T0


def gyroscopic_force(g, q_syms, qd_syms) -> sp.Matrix:
    """The force ((dg/dq)^T - dg/dq) q' of a Lagrangian term g(q)^T q' (as System.from_lagrangian)."""
    if all(gi == 0 for gi in g):
        return sp.zeros(len(q_syms), 1)
    dg = g.jacobian(q_syms)
    return (dg.T - dg) * sp.Matrix(qd_syms)


def linear_in_velocities(rows: sp.Matrix, qd_syms, what: str):
    """rows = A q' - b: (A, b), checking linearity (structurally, else at random points)."""
    if rows.shape[0] == 0:
        return None, None
    A = rows.jacobian(qd_syms)
    velocities = set(qd_syms)
    suspect = [a for a in A if a.free_symbols & velocities]
    if suspect:
        derivatives = [sp.diff(a, w) for a in suspect for w in qd_syms]
        symbols = sorted({s for e in derivatives for s in e.free_symbols}, key=str)
        if numeric_zero(derivatives, symbols, np.random.default_rng(11)) > 1e-9:
            raise ModelError(f"the {what} are not linear in the velocities q'; nonholo takes constraints "
                             "A(q) q' = b(q, t)")
    b = -rows.xreplace(dict.fromkeys(qd_syms, 0))
    return A, b


def tidy(matrix, simplify: bool):
    if matrix is None:
        return None
    if not simplify:
        return matrix
    return matrix.applyfunc(lambda e: sp.simplify(e)) if isinstance(matrix, sp.MatrixBase) else sp.simplify(matrix)


def parameters_check(exprs, allowed: set, parameters: Mapping, what: str) -> None:
    missing = set()
    for e in exprs:
        missing |= {s for s in sp.sympify(e).free_symbols if s not in allowed}
    names = {str(k) for k in parameters}
    missing = {s for s in missing if s not in parameters and str(s) not in names}
    if missing:
        listed = ", ".join(sorted(map(str, missing)))
        raise ModelError(f"the {what} uses the symbols {listed}; give their values with "
                         f"parameters={{{', '.join(f'{s}: ...' for s in sorted(map(str, missing)))}}}")


def resolve_method(method, cls_name: str):
    """Accept a KanesMethod/LagrangesMethod or a sympy.physics.mechanics.System that formed one."""
    me = mechanics_module()
    target = getattr(me, cls_name)
    if isinstance(method, target):
        return method
    eom = getattr(method, "eom_method", None)
    if isinstance(eom, target):
        return eom
    raise TypeError(f"expected a sympy.physics.mechanics.{cls_name} (or a mechanics System whose form_eoms() "
                    f"used it), got {type(method).__name__}")
