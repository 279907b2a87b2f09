r"""The friction model of a system realized by a friction law (:mod:`nonholo.laws`).

The constraint rows A(q) v = b(q, t) of a system group into contacts (``contacts``: lists of row
indices; default one contact per row, or the grouping a builder records, such as the two rows of a
body rolling on a plane). Realized by a law, the rows are dropped and each contact c carries the
force of its slip s_c = (A v - b)_c,

    G v' + c + dV = F + sum_c A_c^T z(s_c, N_c, V_c),

with N_c the contact's normal load (``normal``) and V_c its rolling speed (``speed``, tire laws
only). A mechanism whose contacts repeat rows (two wheels on one axle; the System keeps one of the
repeated rows) records every contact's own rows, ``system.contact_slip_rows``: each contact slips
and carries its force on them (:func:`contact_groups`, :func:`contact_force`). The result is an
ordinary unconstrained :class:`~nonholo.System`: its force is lowered to tapes, differentiated by AD
and compiled like every other expression.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..expressions.laws import Law, Viscous
from ..expressions.parsing import to_sympy
from .arguments import contacts_argument
from .contact_outputs import full_slips, law_outputs, slip_rows
from .law_relaxation import relaxed_system

__all__ = ["contact_force", "contact_groups", "contact_rows", "realized_by", "rows_replaced", "slip_expressions"]


def contact_rows(system, contacts, law: Law | None) -> list:
    """The contacts as lists of the system's row indices: ``contacts``, else the system's (``contacts``,
    or a mechanism's tangential rows per contact, ``friction_contacts``), else one per row (a law of
    r > 1 components is then refused: which rows make a contact is the user's to say). A mechanism's
    normal rows (``normal_rows``: the height of a support point) are no contact's: they stay constraints
    (:func:`normal_rows`). A mechanism whose contacts repeat rows (``system.contact_slip_rows``) is
    refused: a realization on the System's rows alone would leave out the friction of a repeated row
    (:func:`contact_groups`)."""
    record = getattr(system, "contact_slip_rows", None)
    if record is not None and record.repeated:
        names = ", ".join(record.name(c) for c in record.repeated)
        raise ValueError(f"the no-slip rows of contact {names} of {system.name!r} repeat other contacts' (wheels on "
                         "one axle), and the System keeps only independent rows: this model (or grouping) takes the "
                         "System's rows alone and would give the repeated contact no friction force, which is not "
                         "supported (friction(law=...), friction(eps), stick_slip and friction_margin carry every "
                         "contact's own rows)")
    return _kept_groups(system, contacts, law)


def contact_groups(system, contacts, law: Law | None) -> list:
    """The contacts as lists of full row indices (:func:`~nonholo.system.contact_outputs.slip_rows`):
    a mechanism's own rows of each contact, repeated ones included, or ``contacts`` (the system's rows)
    mapped to them; for any other system :func:`contact_rows`."""
    record = getattr(system, "contact_slip_rows", None)
    if record is None:
        return _kept_groups(system, contacts, law)
    if contacts is None:
        return [list(g) for g in record.contacts]
    if record.repeated:
        names = ", ".join(record.name(c) for c in record.repeated)
        raise ValueError(f"contacts= groups the System's rows of {system.name!r}, which leave out the rows of contact "
                         f"{names} that repeat other contacts': leave contacts out (each contact then acts on its own "
                         "rows)")
    return [[record.kept[i] for i in g] for g in _kept_groups(system, contacts, law)]


def _kept_groups(system, contacts, law: Law | None) -> list:
    normal = normal_rows(system)
    if contacts is not None:
        if not normal:
            return contacts_argument(contacts, system.k)
        groups = contacts_argument([*contacts, *([r] for r in normal)], system.k)
        return groups[: len(groups) - len(normal)]
    if system.contacts is not None:
        return [g for g in ([r for r in group if r not in normal] for group in system.contacts) if g]
    if getattr(system, "friction_contacts", None):
        return [list(g) for g in system.friction_contacts]
    rows = [i for i in range(system.k) if i not in normal]
    if law is None or law.rows == 1:
        return [[i] for i in rows]
    # each row a contact of its own (the documented default), which a law of r > 1 components does not
    # fit: pairing rows in order made an outside probe's single-track car, a lateral row per axle, one
    # contact sharing one friction disc (its combined Magic Formula read the rear's lateral slip as the
    # longitudinal one), silently
    name = type(law).__name__
    raise ValueError(f"law: a {name} law of {law.rows} components acts on contacts of {law.rows} rows each, and "
                     f"{system.name!r} declares no contacts (each of its {len(rows)} rows is a contact of its own): "
                     f"give contacts=, the rows of each contact (e.g. contacts=[[0, 1]] for one contact of rows 0 "
                     f"and 1), or a law of one component (rows=1) for one-row contacts")


def normal_rows(system) -> list:
    """The rows of ``system`` that hold the height of a contact's support point (a mechanism's, from
    :mod:`nonholo.multibody`): kept as constraints where friction realizes the others, their
    holonomic constraints h = 0 with them (a law on such a row let the Whipple bicycle's front wheel
    sink 0.98 m in 1 s, its Coulomb force unable to carry the load), and the ideal rows of a system
    whose ``contacts`` leave them out (``System(contacts=...)``)."""
    rows = set(getattr(system, "normal_rows", None) or [])
    if system.contacts is not None:
        grouped = {r for group in system.contacts for r in group}
        rows |= {r for r in range(system.k) if r not in grouped}
    return sorted(rows)


def per_contact(value, count: int, what: str, system) -> list:
    """``normal`` or ``speed``: one value or expression for every contact, or one per contact; a
    number must be finite, a normal load non-negative (a negative one would push along the slip)
    and a rolling speed positive; an expression may hold only the system's coordinates,
    velocities, time and parameters. A 0-d array is one value (a NumPy scalar)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.ndarray) and value.ndim != 1:
        raise ValueError(f"{what} must be one value or one per contact (a 1-d sequence), got an array of shape "
                         f"{value.shape}")
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) != count:
            raise ValueError(f"{what} has {len(value)} entries for {count} contacts")
        items = list(value)
    else:
        items = [value] * count
    allowed = {str(s) for s in (*system.coordinates, *system.velocities, system.time, *system.parameters)}
    out = []
    for c, v in enumerate(items):
        where = what if count == 1 else f"{what}[{c}]"
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v[()]
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{where} must be a number or a SymPy expression, got the bool {v!r}")
        expr = to_sympy(v, where)
        if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
            raise TypeError(f"{where} must be a number or a scalar SymPy expression, got {v!r:.100}")
        if expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or expr.is_number and not (expr.is_real and expr.is_finite):
            raise ValueError(f"{where} must be finite and real, got {v!r}")
        if expr.is_number and (float(expr) < 0 if what == "normal" else float(expr) <= 0):
            raise ValueError(f"{where} must be {'non-negative (a normal load)' if what == 'normal' else 'positive'}, "
                             f"got {v!r}")
        unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in allowed)
        if unknown:
            load = f" (the normal load of contact {c})" if what == "normal" else ""
            raise ValueError(f"{where}{load} contains symbols that are neither coordinates, velocities, the time nor "
                             f"parameters of {system.name!r}: {', '.join(unknown)}")
        out.append(system.resolve(expr))
    return out


def realized_by(system, law, normal=None, speed=None, contacts=None):
    """The unconstrained :class:`~nonholo.System` of ``system`` with its constraint rows realized by
    ``law`` (module docstring), or by a list of laws, one per contact. With ``normal``, the system
    records the contacts' loads as ``contact_loads``: a run of its model stops where one reaches zero
    (the contact lifts off; :mod:`nonholo.system.margins`)."""
    if system.k == 0:
        raise ValueError(f"{system.name!r} has no constraint rows to realize by a friction law")
    given = list(law) if isinstance(law, (list, tuple)) else [law]
    for one in given:
        if one.set_valued:
            raise ValueError(f"the {one.name} law is set-valued (v_s=None): it realizes no smooth friction model; "
                             "give v_s, or use the stick-slip model (system.stick_slip)")
    groups = contact_groups(system, contacts, given[0])  # full rows: a repeated row is its contact's too
    if len(given) == 1:
        given = given * len(groups)
    elif len(given) != len(groups):
        raise ValueError(f"law has {len(given)} laws for {len(groups)} contacts: give one law, or one per contact")
    if any(one.normal is not None for one in given) and normal is None:
        raise ValueError(f"the {given[0].name} law depends on the normal load: give normal= (a value or expression, "
                         "or one per contact)")
    speed = own_speeds(system, given, speed, len(groups))
    if any(one.speed is not None for one in given) and speed is None:
        raise ValueError(f"the {given[0].name} law depends on the rolling speed: give speed= (an expression of the "
                         "coordinates and velocities, or one per contact)")
    check_speed_used(given, speed)
    _law_parameters(system, given)
    check_laws(given, {str(s): v for s, v in system.parameters.items()})
    loads, speeds = _loads_and_speeds(system, len(groups), normal, speed)
    laws = {c: given[c].for_rows(len(group)) for c, group in enumerate(groups)}
    slip = full_slips(system)
    names = sorted({one.name for one in given})
    name = f"{system.name} ({', '.join(names)} friction)"
    forces = [None if laws[c].relaxation_length is not None else
              list(laws[c].force([slip[i] for i in rows], loads[c], speeds[c])) for c, rows in enumerate(groups)]
    if any(law.relaxation_length is not None for law in laws.values()):  # deflection states (law_relaxation.py)
        realized = relaxed_system(system, groups, laws, forces, loads, speeds, slip, name)
    else:
        force = contact_force(system, {c: (rows, lambda s, c=c: forces[c]) for c, rows in enumerate(groups)})
        realized = rows_replaced(system, normal_rows(system), force, name=name,
                                 outputs=law_outputs(system, groups, forces, loads))
    realized.realizes = system  # the constrained system: a run's slip (constraint_residual) is against its rows
    if any(N is not None for N in loads):
        # the normal load of each contact (None without one): a run stops where one that changes along it
        # reaches zero, the contact lifting off (nonholo.system.margins.load_specs)
        realized.contact_loads = loads
    with_parameters = [one for one in given if law_parameter_names(one)]
    if with_parameters:  # checked at each run's values (arguments.parameter_values)
        realized.friction_laws = with_parameters
    watched = _watched_speeds([laws[c] for c in range(len(speeds))], speeds)
    if any(V is not None for V in watched):
        realized.contact_speeds = watched
    return realized


def own_speeds(system, laws: list, speed, count: int):
    """``speed``, or where it is None and a law needs one, the rolling speeds the system knows of its ``count``
    contacts (``system.rolling_speeds``: the single-track car's wheels, which a user wrote by hand before, the
    front wheel's l_f sin(delta) psi' an easy term to drop); ValueError naming them where they are not one per
    contact (carried from a system with other contacts, e.g. by with_constraints)."""
    if speed is not None or all(one.speed is None for one in laws):
        return speed
    own = getattr(system, "rolling_speeds", None)
    if own is None:
        return None
    own = list(own)
    if len(own) != count:
        raise ValueError(f"speed: {system.name!r}'s rolling_speeds give {len(own)} speed(s) for {count} contacts "
                         "(carried from a system with other contacts?): set system.rolling_speeds, one per contact, "
                         "or give speed=")
    return own


def check_speed_used(laws: list, speed) -> None:
    """A ValueError for a rolling speed given to laws none of which depends on one."""
    if speed is not None and all(one.speed is None for one in laws):
        raise ValueError(f"speed: the {laws[0].name} law does not depend on a rolling speed (its force is one of the "
                         "slip alone): leave speed= out (a run would stop where the speed reaches zero, for nothing)")


def law_limits(system, expansion) -> tuple:
    """(loads, speeds) per contact of a law's slow-manifold expansion (``LawSlowManifold``), as
    :func:`realized_by` records them on its friction model (``contact_loads``, ``contact_speeds``;
    None where none is given): the reduced model of the law stops and starts where they do."""
    law, normal, speed, _ = expansion.realization
    count = len(expansion.groups)
    loads, speeds = _loads_and_speeds(system, count, normal, speed)
    speeds = _watched_speeds(list(law) if isinstance(law, (list, tuple)) else [law] * count, speeds)
    return (loads if any(N is not None for N in loads) else None,
            speeds if any(V is not None for V in speeds) else None)


def _watched_speeds(laws: list, speeds: list) -> list:
    """The rolling speeds a run stops at where they reach zero, per contact: a tire law's, whose
    atan(s / V) holds for V > 0 (margins); None for a law without a speed, and for a relaxed law,
    whose force is one of its deflection, free of V (a reversing or standing tire is in its range)."""
    return [None if law.speed is None or law.relaxation_length is not None else V for law, V in zip(laws, speeds)]


def _loads_and_speeds(system, count: int, normal, speed) -> tuple:
    """The normal load and the rolling speed of each of ``count`` contacts (None where not given)."""
    loads = per_contact(normal, count, "normal", system) if normal is not None else [None] * count
    speeds = per_contact(speed, count, "speed", system) if speed is not None else [None] * count
    return loads, speeds


def check_laws(laws, values: dict) -> None:
    """A ValueError where a law with parameters does not oppose the slip at their ``values`` (name ->
    value): a friction coefficient made negative by a run's params pumped energy in, without a word
    (the law checks itself when built only where its expression is numeric). Each law is checked once
    per distinct set of values."""
    for law in laws:
        own = [name for name in law_parameter_names(law) if name in values]
        key = tuple(values[name] for name in own)
        checked = law.__dict__.setdefault("_checked_values", set())
        if key in checked:
            continue
        try:
            arguments = getattr(law, "_arguments", None)  # a built-in law: its constructor's checks at the values
            if arguments is not None:
                at_values = {name: _at(value, values) for name, value in arguments.items()}
                if all(not isinstance(x, sp.Basic) or x.is_number
                       for v in at_values.values() for x in (v if isinstance(v, (tuple, list)) else (v,))):
                    type(law)(**at_values)
            law._check_opposes_slip(values)
        except ValueError as exc:
            at = ", ".join(f"{name} = {values[name]:.6g}" for name in own)
            raise ValueError(f"law: the {law.name} law at the parameters {at}: {exc}") from None
        if len(checked) < 1000:
            checked.add(key)


def _at(value, values: dict):
    """A law's argument at the parameter ``values`` (name -> value): a number where it becomes one (each
    entry of a tuple: the magic formula's longitudinal and combined factors)."""
    if isinstance(value, (tuple, list)):
        return type(value)(_at(x, values) for x in value)
    if not isinstance(value, sp.Basic):
        return value
    value = sp.sympify(value.xreplace({x: values[x.name] for x in value.free_symbols if x.name in values}))
    return float(value) if value.is_number and value.is_extended_real else value


def law_parameter_names(law) -> list:
    """The names of a law's symbols other than its slip, normal and speed (the system's parameters it
    uses), sorted; cached on the law (each run's parameter check reads them)."""
    if "_parameter_names" not in law.__dict__:
        own = {*law.slip, law.normal, law.speed}
        free = set().union(*(e.free_symbols for e in (*law.expr, *(law.relaxation_length or ())))) - own
        law._parameter_names = sorted(str(x) for x in free)
    return law._parameter_names


def _law_parameters(system, laws) -> None:
    """Each law's symbols other than its slip, normal and speed must be parameters of the system."""
    known = {str(s) for s in system.parameters}
    for law in laws:
        unknown = [name for name in law_parameter_names(law) if name not in known]
        if unknown:
            raise ValueError(f"law: the {law.name} law's symbols {unknown} are not parameters of {system.name!r}: "
                             f"give the law numbers, or declare them with values: system.with_parameters("
                             f"{{{', '.join(repr(n) + ': ...' for n in unknown)}}}, new=True)")


def slip_expressions(system) -> sp.Matrix:
    """The slip velocities of the constraint rows, s = A(q) v - b(q, t), as expressions (k x 1)."""
    return sp.Matrix(system.constraints) * sp.Matrix(system.velocities) - sp.Matrix(system.affine)


def contact_force(system, contacts: dict) -> sp.Matrix:
    """The generalized force sum_c A_c^T z_c(s_c) of the contacts {c: (rows, z)}, with z a function
    of the contact's slip s_c = (A v - b)_c (a list of expressions) giving its force; ``rows`` index
    the full rows (:func:`~nonholo.system.contact_outputs.full_slips`: a mechanism's repeated rows
    included, else the system's)."""
    record = slip_rows(system)
    slip = record.slips(system.velocities)
    force = sp.zeros(system.n, 1)
    for rows, z in contacts.values():
        force += record.rows.extract(rows, list(range(system.n))).T * sp.Matrix(z([slip[i] for i in rows]))
    return force


def rows_replaced(system, keep: list, force, parameters=None, name: str | None = None, outputs=None):
    """``system`` with only the constraint rows ``keep`` and the generalized force ``force`` added
    (the force that realizes the other rows), ``parameters`` added to its defaults, and ``outputs``
    added to its outputs (the system's own of the same names kept)."""
    return system._rebuilt(replaced_state(system, keep, force, parameters, name, outputs))


def full_rows_replaced(system, rows: list, force, parameters=None, name: str | None = None):
    """:func:`rows_replaced` with the constraint rows ``rows`` given as full rows (:func:`contact_groups`):
    a mechanism's row that the System dropped as a repeat among them (a stick-slip mode in which only
    the second wheel on an axle sticks keeps that wheel's sideways row); each its coefficient mu."""
    record = slip_rows(system)
    if all(r in record.kept for r in rows):
        return rows_replaced(system, [record.kept.index(r) for r in rows], force, parameters, name)
    state = replaced_state(system, [], force, parameters, name)
    normal = [record.kept[i] for i in normal_rows(system)]
    mu = record.coefficients or [sp.S.One] * record.rows.rows
    state.update(constraints=sp.ImmutableMatrix(record.rows.extract(rows, list(range(system.n)))),
                 affine=sp.ImmutableMatrix(record.affine.extract(rows, [0])),
                 friction=sp.ImmutableMatrix(sp.diag(*[mu[r] for r in rows])),
                 normal_rows=[rows.index(r) for r in normal if r in rows] or None)
    if normal and set(normal) <= set(rows):  # the support points' heights, held with their rows
        state["holonomic"] = system.holonomic
    return system._rebuilt(state)


def replaced_state(system, keep: list, force, parameters=None, name: str | None = None, outputs=None) -> dict:
    """The constructor arguments of :func:`rows_replaced`'s system (for a caller that extends them)."""
    state = system._state_with(parameters, name)
    if outputs:
        state["outputs"] = {**outputs, **(state.get("outputs") or {})}
    A, b, mu = (sp.Matrix(m) for m in (system.constraints, system.affine, system.friction_coefficients))
    every = list(range(system.n))
    if keep:
        state.update(constraints=sp.ImmutableMatrix(A.extract(keep, every)),
                     affine=sp.ImmutableMatrix(b.extract(keep, [0])),
                     friction=sp.ImmutableMatrix(mu.extract(keep, keep)))
    else:
        state.update(constraints=None, affine=None, friction=None)
    # the rows (holonomic ones included, as in friction(eps)) are realized: their frame and contacts go; a
    # mechanism's normal rows, kept, keep their holonomic constraints (the support points' heights)
    normal = normal_rows(system)
    held = len(keep) == system.k or (normal and set(normal) <= set(keep))
    state.update(speeds=None, holonomic=state["holonomic"] if held else None, contacts=None, friction_contacts=None,
                 normal_rows=[keep.index(r) for r in normal if r in keep] or None, contact_slip_rows=None)
    state["force"] = sp.ImmutableMatrix(sp.Matrix(system.force) + force)
    if system.applied_force is not None:  # a Kane system's r = F - c - dV gains the force too
        state["applied_force"] = sp.ImmutableMatrix(sp.Matrix(system.applied_force) + force)
    return state


def viscous_coefficients(system, law: Viscous):
    """``system`` with the friction coefficient mu of the law on its contacts' rows, so that
    ``friction(law.eps)`` is the law's model. A mechanism's normal rows (:func:`normal_rows`: the
    height of a support point, which no contact's friction realizes) keep their own coefficient
    (``normal_coefficient``, large to keep the wheel on the ground): with the law's mu the loaded
    front wheel of the Whipple bicycle sank 0.375 m in 1 s at mu = 1, eps = 1e-3."""
    state = system._state_with(None, None)
    record = getattr(system, "contact_slip_rows", None)
    if record is not None:  # mu on every contact's own rows, repeated ones included: T^T diag(mu_f) T
        tangential = {r for g in record.contacts for r in g}
        mu = [law.mu if r in tangential else c for r, c in enumerate(record.coefficients)]
        state.update(friction=record.friction_matrix(mu), contact_slip_rows=record.with_coefficients(mu))
        return system._rebuilt(state)
    normal = normal_rows(system)
    mu = sp.Matrix(system.friction_coefficients) if normal else sp.zeros(system.k, system.k)
    for i in (i for i in range(system.k) if i not in normal):
        mu[i, :], mu[:, i] = sp.zeros(1, system.k), sp.zeros(system.k, 1)
        mu[i, i] = law.mu
    state["friction"] = mu
    return system._rebuilt(state)
