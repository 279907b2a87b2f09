"""KanesMethod to System arguments, and the maps between Kane's speeds u and q'."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import sympy as sp

from ...errors import ModelError
from ..parsing import to_sympy
from ..speed_frame import DependentSpeeds

from .load_potentials import load_potentials
from .kinematics import (
    body_kinematics, carried_holonomic, check_specified, classify_kinematics, generalized_force, gyroscopic_force,
    kane_inertia_correction, kane_inertia_forces, kinetic_energy_parts, linear_in_velocities, loads_as_pairs,
    mechanics_module, dynamic_name, numeric_values, numeric_zero, parameters_check, resolve_method, plain_symbols_for,
    tidy, time_symbol,
)


def _solve_exactly(K, rhs) -> sp.Matrix:
    """K^-1 rhs with no division but by det K (simplified): adj(K) rhs / det K, or rhs_i / K_ii for a
    diagonal K. An LU solve without pivoting (``LUsolve``) divides by pivots that can vanish where K
    is regular (the leading entry cos(th) of a rotation), and the result is then 0/0 there, or
    garbage over cos(pi/2) = 6e-17 in floating point; det K vanishes only where K is singular."""
    K, rhs = sp.Matrix(K), sp.Matrix(rhs)
    if K.is_diagonal():
        return sp.Matrix(rhs.rows, rhs.cols, lambda i, j: rhs[i, j] / K[i, i])
    det = sp.simplify(K.det(method="berkowitz"))
    return (K.adjugate(method="berkowitz") * rhs) / det


def _constraint_matrices(km):
    """(k_nh, f_nh) of the velocity constraints k_nh u + f_nh = 0, auxiliary speeds set to zero, with
    the removable 0/0 of SymPy's kinematics taken out (:func:`_regular`): SymPy substitutes into
    constraints written in q' its q'(u), solved by an LU without pivoting, so a disc whose angular
    speeds are taken in the wheel's frame had NaN coefficients wherever the lean or the spin is 0."""
    uaux_zero = dict.fromkeys(list(km._uaux), sp.S.Zero)
    q = list(km.q)
    return tuple(_regular(sp.Matrix(M).xreplace(uaux_zero), q) for M in (km._k_nh, km._f_nh))


TINY = 1e-12  # _regular: a denominator this small at a special configuration counts as zero
MAX_TIDY_OPS = 5000  # _regular: a larger entry is not simplified (the entries of the tests' systems: 246 at most)


def _regular(M: sp.Matrix, q: list) -> sp.Matrix:
    """``M`` with each entry that is not finite at a special configuration (all coordinates 0, pi/2
    or pi; one coordinate at 0, +-pi/2 or pi, the others random), or divides by zero there on the way
    (r / (-sin q - cos(q)^2 / sin q) is 0 at q = 0 in floating point, its derivative NaN),
    cancelled (common factors of its numerator and denominator), or simplified where that is not
    enough; the other entries are left as they are (simplifying a large system's entries costs
    minutes)."""
    if not M:
        return M
    t = time_symbol()
    dummies = sp.symbols(f"_q0:{len(q)}")
    plain = {qi: d for qi, d in zip(q, dummies)}
    others = sorted({s for e in M for s in sp.sympify(e).xreplace(plain).free_symbols} - set(dummies) - {t}, key=str)
    rng = np.random.default_rng(7)
    params, at_t = rng.uniform(0.5, 1.5, len(others)), 0.3
    points = [np.full(len(q), v) for v in (0.0, np.pi / 2, np.pi)]
    for i in range(len(q)):
        for v in (0.0, np.pi / 2, -np.pi / 2, np.pi):
            x = rng.uniform(-1, 1, len(q))
            x[i] = v
            points.append(x)

    def finite(e) -> bool:
        e = sp.sympify(e).xreplace(plain)
        denominators = [b.base for b in e.atoms(sp.Pow) if b.exp.is_negative]
        f = sp.lambdify([dummies, others, t], [e, *denominators], "numpy")
        with np.errstate(all="ignore"):
            try:
                for x in points:
                    value, *under = (np.asarray(v, dtype=complex) for v in f(x, params, at_t))
                    # a denominator within rounding of 0 is 0 (cos q at q = pi/2 is 6e-17, not 0: a
                    # wheel-frame disc kept 1 / cos(q3) in A(q), 1.4e16 in its right-hand side there)
                    if not np.all(np.isfinite(value)) or any(not np.all(np.isfinite(d) & (np.abs(d) > TINY))
                                                             for d in under):
                        return False
            except (ZeroDivisionError, TypeError, ValueError):
                return False
        return True

    out = M.copy()
    for idx, e in enumerate(M):
        if finite(e):
            continue
        size = sp.count_ops(e)
        if size > MAX_TIDY_OPS:  # sp.cancel ran for 15 minutes on one such entry and did not return
            raise ModelError(
                f"a coefficient of the velocity constraints (entry {divmod(idx, M.cols)}) is not finite at special "
                f"configurations (coordinates 0, pi/2 or pi) and too large to simplify ({size} operations): SymPy "
                "solved the kinematic equations for q' without pivoting and put the result into constraints written "
                "in q'. Write the velocity constraints in the speeds u (e.g. the contact point's velocity from "
                "v2pt_theory and the speeds), or choose speeds whose kinematic equations SymPy solves regularly")
        for tidy_up in (sp.cancel, sp.simplify):
            e = tidy_up(e)
            if finite(e):
                out[idx] = e
                break
    return out


def _kinematic_matrices(km):
    """(k_ku, k_kqdot, f_k) of k_kqdot q' + k_ku u + f_k = 0 (the implicit form where SymPy has it),
    auxiliary speeds set to zero."""
    q, u = list(km.q), list(km.u)
    k_ku = getattr(km, "_k_ku_implicit", None)
    if k_ku is None or k_ku.shape != (len(q), len(u)):  # older SymPy: explicit form only
        k_ku, k_kqdot, f_k = km._k_ku, km._k_kqdot, km._f_k
    else:
        k_kqdot, f_k = km._k_kqdot_implicit, km._f_k_implicit
    uaux_zero = dict.fromkeys(list(km._uaux), sp.S.Zero)
    return tuple(sp.Matrix(M).xreplace(uaux_zero) for M in (k_ku, k_kqdot, f_k))


def _kane_kinematics(km):
    """({u_i: u_i(q, q')}, [q_i'], [auxiliary coordinates]) from the kd_eqs, in dynamicsymbols.

    A speed that appears in no kinematic differential equation (the spin of a wheel whose
    rotation angle is ignorable, as in SymPy's bicycle) is the derivative of an auxiliary
    coordinate ``<speed>_integral`` appended after q_ind + q_dep: nothing depends on it, and
    it gives the speed its place among the velocities q'.
    """
    me = mechanics_module()
    t = time_symbol()
    q, u = list(km.q), list(km.u)
    if not getattr(km, "_qdot_u_map", None):
        raise ModelError("the KanesMethod has no kinematic differential equations (kd_eqs); nonholo needs them "
                         "to express the speeds u through q'")
    k_ku, k_kqdot, f_k = _kinematic_matrices(km)
    free = [j for j in range(len(u)) if all(k_ku[i, j] == 0 for i in range(k_ku.rows))]
    tied = [j for j in range(len(u)) if j not in free]
    if len(tied) != len(q):
        raise ModelError(
            f"nonholo needs one generalized speed per coordinate: this KanesMethod has {len(u)} speeds "
            f"(u_ind + u_dep = {[str(s) for s in u]}) for {len(q)} coordinates (q_ind + q_dep = "
            f"{[str(s) for s in q]}), and the kd_eqs involve {len(tied)} of them. Speeds in the kd_eqs without a "
            "coordinate of their own (e.g. the velocity of a contact point whose position is not tracked) need the "
            "coordinates whose derivatives they are, with their kd_eqs")
    aux = [me.dynamicsymbols(f"{dynamic_name(u[j])}_integral") for j in free]
    qd = [qi.diff(t) for qi in q + aux]
    k_tied = k_ku.extract(list(range(k_ku.rows)), tied)
    if k_tied.det() == 0:
        raise ModelError("the kinematic differential equations (kd_eqs) do not determine the speeds u from q' "
                         "(their matrix k_ku is singular); nonholo needs u = u(q, q')")
    u_expr = -_solve_exactly(k_tied, k_kqdot * sp.Matrix(qd[:len(q)]) + f_k)
    u_of_qdot = {u[j]: e for j, e in zip(tied, u_expr)}
    u_of_qdot.update({u[j]: qd[len(q) + i] for i, j in enumerate(free)})
    return u_of_qdot, qd, aux


class SpeedOutput:
    """One of Kane's speeds u_i(q, q') as a derived quantity of the system (``result["u3"]``):
    ``f(q, v, params)`` with q, v of shape (n, n_t), evaluated by NumPy (SymPy's lambdify, built
    on first use and not pickled: the expression is)."""

    is_speed = True  # System.resolve turns the speed's name in an event into ``expr``

    def __init__(self, expr, coordinates, velocities, parameters):
        self.expr, self.coordinates, self.velocities = expr, tuple(coordinates), tuple(velocities)
        self.parameters = tuple(parameters)
        self._f = None

    def __call__(self, q, v, params):
        if self._f is None:
            self._f = sp.lambdify([*self.coordinates, *self.velocities, *self.parameters], self.expr, "numpy")
        q, v = np.asarray(q, float), np.asarray(v, float)
        p = [params[s.name] for s in self.parameters]
        return np.broadcast_to(np.asarray(self._f(*q, *v, *p), float), q.shape[1:]).copy()

    def __getstate__(self):
        return {**self.__dict__, "_f": None}


def _kane_speed_frame(km, aux, u_of_qdot, plain, q_syms, qd_syms, constraints):
    """Kane's independent speeds as quasi-velocities: (names, DependentSpeeds, None) or the reason
    they cannot be.

    The kinematic differential equations give q' = J(q) u + q0(q) (``kindiffdict``; the
    auxiliary coordinates' derivatives are their speeds) and the velocity constraints
    C(q) u + f(q) = 0 (``k_nh``, ``f_nh``), which the frame solves numerically for u_dep at each
    evaluation (:class:`~nonholo.expressions.speed_frame.DependentSpeeds`: X = J [[I, 0], [Bk, I]],
    w0 = J [0; e] + q0, Bk = -C_dep^-1 C_ind, e = -C_dep^-1 f, by a pivoted LU), never
    symbolically. J, q0, C and f must be functions of q: time-dependent kinematics or constraint
    coefficients are refused. ``constraints``: (C, f) as :func:`_constraint_matrices` gives them."""
    t = time_symbol()
    us = list(km.u)
    k = len(km._udep)
    m = len(us) - k
    k_ku, k_kqdot, f_k = _kinematic_matrices(km)  # q' = -k_kqdot^-1 (k_ku u + f_k), solved exactly
    qdot = list(-_solve_exactly(k_kqdot, k_ku * sp.Matrix(us) + f_k))
    qdot += [next(ui for ui, e in u_of_qdot.items() if e == a.diff(t)) for a in aux]
    qdot = sp.Matrix(qdot)
    J = qdot.jacobian(us)
    q0 = qdot.xreplace(dict.fromkeys(us, 0))
    C, f = sp.zeros(0, len(us)), sp.zeros(0, 1)
    if k:
        C, f = constraints
    parts = [M.xreplace(plain) for M in (J, q0, C, f)]
    entries = [x for M in parts for x in M]
    me = mechanics_module()
    if any(me.find_dynamicsymbols(x) for x in entries):
        return "the kinematic differential equations or velocity constraints involve other dynamicsymbols"
    if any(t in x.free_symbols for x in entries):
        return ("the kinematic differential equations or the velocity constraints (their coefficients or their "
                "affine part f_nh) depend on time explicitly (the quasi-velocity frame must be a function of q)")
    names = [dynamic_name(u) for u in us[:m]]
    clash = set(names) & {str(s) for s in (*q_syms, *qd_syms)}
    if clash:
        return f"the speeds {sorted(clash)} have the names of coordinates or their velocities"
    return names, DependentSpeeds(*parts), None


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
    state: str | None = None,
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
        system. A load of constant components in the inertial frame at a point located from a fixed
        point (gravity) enters as its potential -f . r_P (:mod:`.load_potentials`), every other load as
        the generalized force; do not include a force here and in the loads.
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
    state : {None, "speeds", "qdot"}
        The state of ``system.nonholonomic()``. ``"speeds"``: Kane's independent speeds u_ind
        as quasi-velocities (``speeds`` below; state ``[q, u_ind]``). ``"qdot"``: ``[q, q']``.
        None (default): ``"speeds"`` where the kinematics allow it, else ``"qdot"`` with a
        warning that says why. That is where the kinematic differential equations (q' in the
        speeds: J(q, t), q0(q, t)) or the velocity constraints, their coefficients C of the speeds
        or their affine part f_nh (a constraint such as ``... - sin(t)``, a table turning at a
        given rate), depend on time explicitly; where any of these involves dynamicsymbols other
        than the coordinates and speeds; and where a speed has the name of a coordinate or of a
        velocity (``<name>_dot``). The model's state is then ``[q, q']``, 2n long, and a y0 of the
        speeds' length is refused; ``state="speeds"`` raises ModelError in these cases.

    Returns
    -------
    dict
        ``coordinates`` (the symbols named after q_ind + q_dep, in that order), ``velocities``
        (``<name>_dot``), ``metric`` (n, n), ``potential``, ``constraints`` (k, n) and
        ``affine`` (k,) from the velocity constraints (k = len(u_dep)), ``friction``, ``force``
        (n,), ``applied_force`` (n,: loads minus Kane's inertia forces, minus dV/dq, the same
        function as F - c(q, q') - dV, :func:`kane_inertia_forces`), ``parameters``, ``time``
        and ``name``; ``speeds`` (names, DependentSpeeds, None) of the quasi-velocity frame of Kane's
        independent speeds (:func:`_kane_speed_frame`: q' = X_D(q) u_ind + w0(q), u_dep solved
        numerically at each evaluation) or None, and
        ``outputs`` with every speed u_i(q, q') by name (``result["u3"]`` of a dependent speed);
        ``load_potential``, the part of ``potential`` the loads gave (:mod:`.load_potentials`; None when
        none did), which the System carries (``System.CARRIED``): its parameters are the loads' (a push F,
        gravity g), the inputs of :func:`~nonholo.linearize` by default as those of the force.
        Convert between [q, u] and [q, q'] with :func:`kane_qdot` and :func:`kane_speeds`.
    """
    if state not in (None, "speeds", "qdot"):
        raise ValueError(f"state must be None, 'speeds' or 'qdot', got {state!r}")
    km = resolve_method(km, "KanesMethod")
    t = time_symbol()
    parameters = dict(parameters or {})
    frame = km._inertial
    bodies = km.bodies
    if not bodies:
        raise ModelError("the KanesMethod has no bodies: pass them to KanesMethod(..., bodies=...) or call "
                         "km.kanes_equations(bodies, loads) first")
    pairs = loads_as_pairs(km.loads, frame, "loads")
    u_of_qdot, qd, aux = _kane_kinematics(km)
    q = list(km.q) + aux
    uaux_zero = dict.fromkeys(list(km._uaux), sp.S.Zero)
    q_syms, qd_syms = plain_symbols_for(q, parameters)
    spec = {to_sympy(k, "specified"): to_sympy(v, "specified") for k, v in dict(specified or {}).items()}
    plain = {**dict(zip(qd, qd_syms)), **dict(zip(q, q_syms))}

    def to_plain(expr):
        e = sp.sympify(expr)
        if spec:
            e = e.subs(spec)
        e = e.xreplace(uaux_zero).xreplace(u_of_qdot)
        return e.xreplace(plain)

    uaux_zero.update({ua.diff(t): sp.S.Zero for ua in km._uaux})

    velocity_map = {**uaux_zero, **u_of_qdot}

    # kinetic energy of the unconstrained system, in q', from the bodies' partial velocities
    kinematics_q = body_kinematics(bodies, frame, to_plain, q_syms, qd_syms, t, np.random.default_rng(5))
    G, g, T0 = kinetic_energy_parts(kinematics_q, len(q_syms))
    V = to_sympy(potential, "potential").xreplace(plain) - T0
    check_specified([V], set(), "potential")

    # loads -> a potential where they have one (gravity: load_potentials), else the generalized force
    V_loads, pairs = load_potentials(pairs, frame, velocity_map, to_plain, q_syms, qd_syms, t)
    V = V + V_loads
    F = generalized_force(pairs, frame, velocity_map, qd)
    F = F.applyfunc(to_plain)
    check_specified(list(F), set(), "loads")
    loads = F
    F = F + gyroscopic_force(g, q_syms, qd_syms)

    # velocity constraints k_nh u + f_nh = 0, in q'
    A = b = None
    k_nh, f_nh = _constraint_matrices(km) if len(km._udep) else (None, None)  # once: the speeds' frame too
    if len(km._udep):
        rows = (k_nh * sp.Matrix(list(km.u)) + f_nh).applyfunc(to_plain)
        check_specified(list(rows), set(), "velocity_constraints")
        A, b = linear_in_velocities(rows, qd_syms, "velocity_constraints")
        if any(t in a.free_symbols for a in A):
            raise ModelError("the coefficients of the speeds in the velocity_constraints depend on time "
                             "explicitly; nonholo takes A(q) q' = b(q, t) (only the affine part f_nh may depend on t)")
    _check_holonomic_kane(km, A, b, q, q_syms, qd_syms, plain)
    holonomic = carried_holonomic([sp.sympify(h).xreplace(plain) for h in km._f_h],
                                  "from_kanes_method", 4) if len(km._f_h) else None

    exprs = [*G, V, *F] + ([*A, *b] if A is not None else [])
    allowed = {*q_syms, *qd_syms, t}
    parameters_check(exprs, allowed, parameters, "KanesMethod")
    symbols = [*q_syms, *qd_syms, t, *sorted({s for e in exprs for s in sp.sympify(e).free_symbols} - allowed,
                                             key=str)]
    if check_kinematics:  # raises on a velocity that no motion gives
        classify_kinematics(bodies, pairs, frame, to_plain, symbols, "KanesMethod", True)
    # Kane's inertia forces where the Euler-Lagrange equations of T differ from them (rolling built
    # into the kinematics, speeds of auxiliary coordinates); the correction is identically zero
    # otherwise, and then left out (checked at random points, relative to the metric's size)
    correction = kane_inertia_correction(kinematics_q, q_syms, qd_syms)
    rng = np.random.default_rng(3)
    symbols += sorted({s for e in correction for s in e.free_symbols} - set(symbols), key=str)
    if numeric_zero(list(correction), symbols, rng) > 1e-9 * max(1.0, numeric_zero(list(G), symbols, rng)):
        F = F + correction
    # the same applied force r = F - c(q, q') - dV in Kane's form, for the compiled right-hand sides
    user_potential = to_sympy(potential, "potential").xreplace(plain) + V_loads
    applied = loads - kane_inertia_forces(kinematics_q, q_syms, qd_syms) - \
        sp.Matrix([sp.diff(user_potential, qi) for qi in q_syms])

    speeds = None
    if state != "qdot":
        speeds = _kane_speed_frame(km, aux, u_of_qdot, plain, q_syms, qd_syms, (k_nh, f_nh))
        if isinstance(speeds, str):
            if state == "speeds":
                raise ModelError(f"state='speeds' is not available: {speeds}; use state='qdot'")
            import warnings

            warnings.warn(f"from_kanes_method: the model integrates q' (state='qdot'), not Kane's speeds: {speeds}",
                          UserWarning, stacklevel=3)
            speeds = None
        elif simplify:
            names, frame, _ = speeds
            speeds = names, frame.applyfunc(sp.simplify), None
    outputs = {}
    for ui in km.u:
        expr = sp.sympify(u_of_qdot[ui]).xreplace(plain)
        if t not in expr.free_symbols and dynamic_name(ui) not in {str(s) for s in (*q_syms, *qd_syms)}:
            outputs[dynamic_name(ui)] = SpeedOutput(expr, q_syms, qd_syms, sorted(expr.free_symbols - allowed, key=str))

    return dict(
        coordinates=q_syms, velocities=qd_syms, metric=tidy(G, simplify), potential=tidy(V, simplify),
        constraints=tidy(A, simplify), affine=tidy(b, simplify), friction=friction,
        force=None if all(f == 0 for f in F) else tidy(F, simplify), parameters=parameters, time=t,
        name=name or "from KanesMethod", holonomic=holonomic, applied_force=applied, speeds=speeds,
        outputs=outputs, load_potential=None if V_loads == 0 else V_loads,
    )


def _check_holonomic_kane(km, A, b, q, q_syms, qd_syms, plain) -> None:
    """The time derivatives of the configuration_constraints must be among the velocity_constraints."""
    f_h = sp.Matrix(km._f_h) if len(km._f_h) else None
    if f_h is None:
        return
    t = time_symbol()
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
        values = numeric_values(exprs, symbols, rng.uniform(0.3, 1.3, len(symbols))).real
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
    km = resolve_method(km, "KanesMethod")
    t = time_symbol()
    u_of_qdot, _, aux = _kane_kinematics(km)
    qs, us = list(km.q), list(km.u)
    # k_kqdot q' = -(k_ku u + f_k), solved in numbers with pivoting: SymPy's kindiffdict() solves it
    # symbolically by an LU without pivoting, 0/0 where a pivot vanishes identically (a body
    # turned by XYZ angles with its speeds in N: q1' = -6.1 for 0.465)
    k_ku, k_kqdot, f_k = _kinematic_matrices(km)
    n = len(qs)
    exprs = [*k_kqdot, *(k_ku * sp.Matrix(us) + f_k)]
    exprs += [next(ui for ui, e in u_of_qdot.items() if e == a.diff(t)) for a in aux]
    values = _evaluate(exprs, qs, us, _leading(q, len(qs), len(aux), "q"), u, parameters, "u")
    qdot = np.linalg.solve(values[: n * n].reshape(n, n), -values[n * n: n * n + n])
    return np.concatenate([qdot, values[n * n + n:]])


def kane_speeds(km, q, qdot, parameters: Mapping | None = None) -> np.ndarray:
    r"""Kane's speeds u (order u_ind + u_dep), shape (n_u,), from q (n or n + n_aux,) and q'
    (n + n_aux,): the inverse of :func:`kane_qdot`. Apply it to each column of a result
    (``sol.q``, ``sol.v``) to compare with Kane's states."""
    km = resolve_method(km, "KanesMethod")
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
