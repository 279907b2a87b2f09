"""LagrangesMethod to System arguments."""

from __future__ import annotations

from typing import Mapping

import sympy as sp

from ...errors import ModelError
from ..parsing import to_sympy

from .kinematics import (
    carried_holonomic, check_specified, classify_kinematics, generalized_force, gyroscopic_force, linear_in_velocities,
    loads_as_pairs, parameters_check, resolve_method, split_quadratic, plain_symbols_for, tidy, time_symbol,
)


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
    lm = resolve_method(lm, "LagrangesMethod")
    t = time_symbol()
    parameters = dict(parameters or {})
    q = list(lm.q)
    qd = [qi.diff(t) for qi in q]
    q_syms, qd_syms = plain_symbols_for(q, parameters)
    spec = {to_sympy(k, "specified"): to_sympy(v, "specified") for k, v in dict(specified or {}).items()}
    plain = {**dict(zip(qd, qd_syms)), **dict(zip(q, q_syms))}

    def to_plain(expr):
        e = sp.sympify(expr)
        if spec:
            e = e.subs(spec)
        return e.xreplace(plain)

    L = to_plain(sp.Matrix(lm._L)[0])
    check_specified([L], set(), "Lagrangian")
    G, g, minus_V = split_quadratic(L, q_syms, qd_syms, t, "Lagrangian")
    V = -minus_V
    frame = lm.inertial
    pairs = loads_as_pairs(lm.forcelist, frame, "forcelist")
    F = generalized_force(pairs, frame, {}, qd).applyfunc(to_plain)
    check_specified(list(F), set(), "forcelist")
    F = F + gyroscopic_force(g, q_syms, qd_syms)

    A = b = None
    if len(lm.coneqs):
        rows = sp.Matrix(lm.coneqs).applyfunc(to_plain)
        check_specified(list(rows), set(), "constraint equations (hol_coneqs, nonhol_coneqs)")
        A, b = linear_in_velocities(rows, qd_syms, "nonholonomic constraints (nonhol_coneqs)")
        if any(t in a.free_symbols for a in A):
            raise ModelError("the coefficients of q' in the constraint equations depend on time explicitly; "
                             "nonholo takes A(q) q' = b(q, t)")

    exprs = [*G, V, *F] + ([*A, *b] if A is not None else [])
    allowed = {*q_syms, *qd_syms, t}
    parameters_check(exprs, allowed, parameters, "LagrangesMethod")
    if check_kinematics and lm.bodies and frame is not None:
        symbols = [*q_syms, *qd_syms, t, *sorted({s for e in exprs for s in sp.sympify(e).free_symbols} - allowed,
                                                 key=str)]
        kinematics = classify_kinematics(lm.bodies, pairs, frame, to_plain, symbols, "LagrangesMethod", True)
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
        coordinates=q_syms, velocities=qd_syms, metric=tidy(G, simplify), potential=tidy(V, simplify),
        constraints=tidy(A, simplify), affine=tidy(b, simplify), friction=friction,
        force=None if all(f == 0 for f in F) else tidy(F, simplify), parameters=parameters, time=t,
        name=name or "from LagrangesMethod", holonomic=_lagrange_holonomic(lm, to_plain),
    )


def _lagrange_holonomic(lm, to_plain):
    """The holonomic constraints f_h(q) = 0 of a LagrangesMethod that the System carries
    (:func:`carried_holonomic`: those without the time), None if none."""
    hol = getattr(lm, "_hol_coneqs", None) or getattr(lm, "hol_coneqs", None)
    if hol is None or len(hol) == 0:
        return None
    return carried_holonomic([to_plain(e) for e in hol], "from_lagranges_method", 5)  # the warning at the user's call
