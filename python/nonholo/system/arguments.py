"""Checks of the arguments of :class:`~nonholo.System` and of its methods (shapes, symbols, orders)."""

from __future__ import annotations

import inspect

import numbers
import sys
import warnings

import numpy as np
import sympy as sp

from collections.abc import Mapping

from .. import _core
from .. import options as check
from ..errors import ModelError
from ..expressions.names import describe
from ..expressions.parsing import CONSTANTS, plain, to_sympy
from .sparsity import SPARSE_MAX_DENSITY
from ..expressions.speed_frame import DependentSpeeds


def time_argument(core, t, force: bool = True) -> float:
    """The time ``t`` of a query at one point (``system.multipliers``, ``project``, ``slip``, ...) as a
    float. None (the methods' default) is t = 0; for a system whose affine constraint part b, or
    (``force``: a query that reads the force) whose force contains t, with a UserWarning that names
    ``t``: t = 0 had been taken silently (a sleigh on a moving belt: multipliers 2.1 off at t = 3)."""
    if t is None:
        if core.affine_depends_on_time or (force and core.force_depends_on_time):
            warnings.warn("t not given: taking t = 0, but the system depends on time explicitly (its "
                          f"{'force or the ' if force else ''}affine part b of its constraints contain"
                          f"{'' if force else 's'} the time); pass t", UserWarning, stacklevel=_caller_level())
        return 0.0
    return check.finite_float(t, "t")


def _caller_level() -> int:
    """The ``stacklevel`` of a warning issued by the caller of this function that names the first
    frame outside the package (the user's line, however deep the query went)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("nonholo."):
        frame, level = frame.f_back, level + 1
    return level


def as_symbols(seq, what: str) -> tuple:
    if isinstance(seq, (sp.Basic, str)):
        raise TypeError(f"{what} must be a sequence of SymPy symbols, got {seq!r}")
    try:
        items = tuple(seq)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of SymPy symbols, got {type(seq).__name__}") from None
    for s in items:
        if not isinstance(s, sp.Symbol):
            raise TypeError(f"{what} must contain SymPy symbols; {s!r} is a {type(s).__name__}")
    if len(set(items)) != len(items):
        raise ValueError(f"{what} contains repeated symbols: {[str(s) for s in items]}")
    return items


def immutable_matrix(obj, what: str = "matrix") -> sp.ImmutableMatrix:
    """``sp.ImmutableMatrix(obj)``, its strings parsed without evaluation (:mod:`..expressions.parsing`);
    a SymPy matrix keeps its (sparse) representation, where the constructor would rebuild it from
    all n^2 entries (a second at n = 900)."""
    if isinstance(obj, sp.ImmutableSparseMatrix):
        return obj
    if isinstance(obj, sp.MutableSparseMatrix):
        return obj.as_immutable()  # a sparse matrix stays sparse: O(nonzeros), where dense holds n^2
    if isinstance(obj, (sp.ImmutableDenseMatrix, sp.MutableDenseMatrix)) and _mostly_zero(obj):
        return sp.ImmutableSparseMatrix(*obj.shape, obj.todok())  # from the nonzeros: O(nonzeros)
    if isinstance(obj, sp.ImmutableDenseMatrix):
        return obj
    if isinstance(obj, sp.MutableDenseMatrix):
        return obj.as_immutable()
    if isinstance(obj, str):
        raise TypeError(f"{what} must be a matrix of SymPy expressions, got the string {obj!r:.200}")
    return sp.ImmutableMatrix(plain(obj, what))


#: A dense SymPy matrix is kept as a sparse one from this many entries, when at most
#: SPARSE_MAX_DENSITY of them are nonzero (the rule of sparse="auto", system/sparsity.py): an
#: immutable dense matrix holds a tuple of all its entries (288 MB at n = 6000).
SPARSE_MIN_ENTRIES = 400


def _mostly_zero(matrix) -> bool:
    rows, cols = matrix.shape
    if rows * cols < SPARSE_MIN_ENTRIES:
        return False
    return len(matrix.todok()) <= SPARSE_MAX_DENSITY * rows * cols


def parsed_matrix(obj, what: str) -> sp.ImmutableMatrix:
    """``obj`` as a SymPy matrix of any shape, its strings parsed without evaluation; TypeError
    naming ``what`` for what is no matrix of expressions (the parser's own refusal passes through)."""
    try:
        return immutable_matrix(obj, what)
    except ValueError as exc:  # a string entry refused by the parser: its message says why
        if "is refused" in str(exc):
            raise
        raise TypeError(f"{what} must be a matrix of SymPy expressions: {exc}") from None
    except Exception as exc:  # SymPy raises several types for malformed input
        raise TypeError(f"{what} must be a matrix of SymPy expressions: {exc}") from None


def as_matrix(obj, shape: tuple, what: str) -> sp.ImmutableMatrix:
    if isinstance(obj, (sp.Expr, numbers.Real)) and not isinstance(obj, (bool, sp.MatrixBase, sp.MatrixExpr)):
        if shape != (1, 1):
            raise ValueError(f"{what} must have shape {shape} (one entry per row), got the single expression "
                             f"{obj!r:.100}")
        obj = [obj]  # one entry given as a scalar (the affine term of a single constraint, b = cos(t))
    m = parsed_matrix(obj, what)
    if shape[1] == 1 and m.shape == (1, shape[0]):
        m = m.T
    if m.shape != shape:
        raise ValueError(f"{what} has shape {m.shape}, expected {shape}")
    return m


def outputs_argument(outputs) -> dict:
    """``outputs`` of a System: a mapping of names (non-empty strings) to callables f(q, v, params);
    TypeError naming it otherwise (an expression or a number there failed only at result[name])."""
    if outputs is None:
        return {}
    if not isinstance(outputs, Mapping):
        raise TypeError(f"outputs must be a mapping {{name: callable f(q, v, params)}}, got {type(outputs).__name__}")
    for name, f in outputs.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"outputs: the names must be non-empty strings, got {name!r}")
        if not callable(f):
            raise TypeError(f"outputs[{name!r}] must be a callable f(q, v, params) returning shape (n_t,), got "
                            f"{type(f).__name__} {f!r:.60} (wrap an expression with sympy.lambdify)")
    return dict(outputs)


def unit_norm_groups(groups, coordinates) -> list:
    """Coordinate indices of each unit-norm group (``System(unit_norm=...)``): each entry a
    coordinate symbol, its name, or its index (as ``System.unit_norm`` holds them)."""
    names = [q.name for q in coordinates]
    result = []
    for group in groups or []:
        if isinstance(group, (str, sp.Basic)) or not hasattr(group, "__iter__"):
            raise TypeError(f"unit_norm must be a sequence of coordinate groups, got the entry {group!r}")
        idx = [_coordinate_index(c, names, group) for c in group]
        if len(idx) < 2 or len(set(idx)) != len(idx):
            raise ValueError(f"unit_norm: a group needs at least two distinct coordinates, got {list(group)}")
        result.append(idx)
    return result


def _coordinate_index(entry, names: list, group) -> int:
    """The index of a unit_norm entry: a symbol, a name or an index into the coordinates."""
    if isinstance(entry, (int, np.integer)) and not isinstance(entry, bool):
        if 0 <= entry < len(names):
            return int(entry)
    elif isinstance(entry, (str, sp.Symbol)):
        name = entry.name if isinstance(entry, sp.Symbol) else entry
        if name in names:
            return names.index(name)
    raise ValueError(f"unit_norm: every entry of {list(group)} must be one of the coordinates {names} (a symbol or "
                     f"name) or an index from 0 to {len(names) - 1}; {entry!r} is neither")


def _row_index(i) -> int:
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
        raise TypeError(f"not an integer: {i!r}")
    return int(i)


def free_of_assumptions(symbols, what: str) -> list:
    """``symbols`` (coordinates or velocities), ModelError where one carries a sign or integer assumption:
    SymPy simplifies under it (sqrt(r**2) -> r for a positive r), and a run takes the states to any value
    (an outside probe's coordinate declared positive crossed zero and ended at -25.98 for -0.292, status 0)."""
    from ..expressions.names import assumed

    for s in symbols:
        facts = assumed(s)
        if facts:
            raise ModelError(f"{what}: {s.name} is declared {', '.join(facts)}, but a run may take it to any real "
                             f"value, where SymPy's simplifications under that no longer hold (sqrt({s.name}**2) -> "
                             f"{s.name}); declare it real: sp.Symbol({s.name!r}, real=True)")
    return symbols


def velocities_argument(velocities: list, coordinates: list) -> list:
    """The velocity symbols, one per coordinate, none named like a coordinate (the default name
    x_dot of coordinate x is that of a coordinate x_dot: the two were one symbol)."""
    free_of_assumptions(velocities, "velocities")
    if len(velocities) != len(coordinates):
        raise ValueError(f"velocities has {len(velocities)} symbols, expected {len(coordinates)} (one per coordinate)")
    clash = sorted({v.name for v in velocities} & {q.name for q in coordinates})
    if clash:
        raise ValueError(f"the velocities {clash} have the names of coordinates (a coordinate named like another's "
                         "velocity, x and x_dot): rename the coordinate, or name the velocities yourself "
                         "(System(..., velocities=[...]))")
    return velocities


def contacts_argument(contacts, k: int, ideal: bool = False):
    """``contacts=`` checked: lists of constraint-row indices, each of the k rows in exactly one
    (with ``ideal``, as ``System(contacts=...)`` takes it: in at most one, the rows in none being
    ideal constraints that no friction realizes); None for one contact per row."""
    if contacts is None:
        return None
    try:
        groups = [[_row_index(i) for i in group] for group in contacts]
    except (TypeError, ValueError):
        raise TypeError(f"contacts must be a list of lists of constraint-row indices, got {contacts!r}") from None
    rows = sorted(i for group in groups for i in group)
    if not all(groups) or (rows != list(range(k)) if not ideal else
                           (len(set(rows)) != len(rows) or not rows or rows[0] < 0 or rows[-1] >= k)):
        which = "at most one contact, at least one row in all" if ideal else "exactly one contact"
        raise ValueError(f"contacts must group each of the {k} constraint rows in {which}, got {groups}")
    return groups


def speeds_argument(speeds, n: int, k: int):
    """``System(speeds=...)`` checked: (names, X as an (n, n) matrix, w0 as (n, 1) or None), or
    (names, DependentSpeeds, None)."""
    if speeds is None:
        return None
    try:
        names, vectors, offset = speeds
    except (TypeError, ValueError):
        raise TypeError("speeds must be (names, vectors, offset)") from None
    names = [str(x) for x in names]
    if len(names) != n - k:
        raise ValueError(f"speeds names {len(names)} quasi-velocities, expected n - k = {n - k}")
    if isinstance(vectors, DependentSpeeds):  # solved numerically (Kane's speeds)
        if vectors.n != n or vectors.k != k:
            raise ValueError(f"speeds: the DependentSpeeds have n = {vectors.n} speeds and k = {vectors.k} "
                             f"constraints, expected n = {n} and k = {k}")
        if offset is not None:
            raise ValueError("speeds: DependentSpeeds carry their own offset; pass None as the offset")
        return names, vectors, None
    return names, as_matrix(vectors, (n, n), "speeds vectors"), \
        None if offset is None else as_matrix(offset, (n, 1), "speeds offset")


def holonomic_argument(holonomic):
    """A tuple of expressions h(q), or None for no holonomic constraints."""
    if holonomic is None:
        return None
    items = [holonomic] if isinstance(holonomic, sp.Basic) and not isinstance(holonomic, sp.MatrixBase) \
        else list(holonomic)
    return tuple(to_sympy(h, "holonomic") for h in items) or None


def order_argument(order, name: str = "order", lowest: int = 0) -> int:
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {order!r}")
    if not lowest <= order <= _core.max_slow_manifold_order:
        raise ValueError(f"{name} must be between {lowest} and {_core.max_slow_manifold_order}, got {order}")
    return int(order)


def point_argument(x, n: int, what: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be numbers, got {x!r:.100}") from None
    if arr.shape != (n,):
        raise ValueError(f"{what} must have shape ({n},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} contains NaN or inf")
    return arr


def check_not_time(symbols, kind: str, time: sp.Symbol) -> None:
    """A coordinate, velocity or parameter named like the time symbol would be taken for the time
    (symbols are matched by name when expressions are lowered): a ModelError naming the remedy."""
    for sym in symbols:
        if sym.name == time.name:
            raise ModelError(f"the {kind} {sym.name!r} has the name of the time symbol {time.name!r}: rename the "
                             f"{kind}, or pass time=sympy.Symbol(...) with another name to the System")


class Parameters(dict):
    """A system's {symbol: value}: read-only, since a System is a value (an edit changed the defaults of
    the models built before it, and an added key broke every later run with 'params has 5 entries');
    ``system.with_parameters(...)`` gives a system with other values."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("system.parameters is read-only: system.with_parameters({name: value}) gives the system "
                        "with other values, and simulate(..., params={name: value}) runs with them")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _refuse

    def __reduce__(self):
        return Parameters, (dict(self),)

    def copy(self) -> dict:
        return dict(self)


def normalize_parameters(parameters, table, coordinates, velocities, time) -> dict:
    """{symbol: float} of System's ``parameters`` ({symbol or name: value}), each name resolved in
    the symbol table ``table``; a name of a coordinate, velocity or the time, or one given twice,
    is refused."""
    result: dict = {}
    if parameters is None:
        return Parameters(result)
    if not isinstance(parameters, Mapping):
        raise TypeError("parameters must be a mapping {symbol or name: value}")
    reserved = {s.name for s in (*coordinates, *velocities, time)}
    for key, value in parameters.items():
        if not isinstance(key, (str, sp.Symbol)):
            raise TypeError(f"parameter keys must be symbols or names, got {key!r}")
        name = key if isinstance(key, str) else key.name
        check_not_time([sp.Symbol(name)], "parameter", time)
        if name in reserved:
            raise ValueError(f"parameter {name} is also a coordinate, velocity or the time")
        sym = table.get(name) or (key if isinstance(key, sp.Symbol) else sp.Symbol(key))
        if sym in result:
            raise ValueError(f"parameters gives {name!r} twice (as {describe(sym)} and by another key)")
        if name in CONSTANTS:
            raise ValueError(f"parameter {name}: a string reads {name!r} as the constant {CONSTANTS[name]}, not as a "
                             "parameter: give the parameter another name")
        result[sym] = parameter_value(sym, value, name)
    return Parameters(result)


def parameter_value(symbol, value, name: str) -> float:
    """``value`` of the parameter ``symbol`` as a finite float, within the symbol's sign and integer
    assumptions: SymPy simplified the expressions under them (Abs(k) -> k for a positive k), so a value
    against them gives other dynamics without a word (an outside probe's damping -Abs(k) x' with k
    positive=True run at k = -0.7 pushed, 1.29 off). A value at the boundary (k = 0 for a positive k, no
    spring) is kept: the simplifications hold there by continuity. A ModelError (a ValueError): a value out of
    the model's range, which a fit's trial point or one run of a batch may reach and fail alone."""
    x = check.finite_float(value, f"parameter {name}")
    whole = float(x).is_integer()
    shown = f"{x:g}" if whole and abs(x) < 1e15 else repr(x)  # to its last digit: 2 + 1e-15 is no integer
    broken = ("nonnegative" if symbol.is_nonnegative and x < 0 else "nonpositive" if symbol.is_nonpositive and x > 0
              else "nonzero" if symbol.is_nonzero and symbol.is_positive is not True and symbol.is_negative is not True
              and x == 0 else "integer" if symbol.is_integer and not whole
              else "even" if symbol.is_even and not (whole and x % 2 == 0)
              else "odd" if symbol.is_odd and not (whole and x % 2 == 1) else None)
    if broken:
        raise ModelError(f"parameter {name} = {shown} contradicts its symbol's assumptions ({describe(symbol)}, so "
                         f"{broken}): SymPy simplified the expressions under them (as Abs({name}) -> {name} for a "
                         f"sign, (-1)**{name} -> 1 for an even one), so the run "
                         f"would not be that of these values; declare {name} without them (sp.Symbol({name!r}, "
                         "real=True)) to run such values")
    return x


def key_name(key):
    """A parameter given by name or by a symbol of that name (whatever its assumptions): its name."""
    return key.name if isinstance(key, sp.Symbol) else key


def parameter_values(system, params, extra: Mapping | None = None) -> list:
    """``System.param_vector``: the values of the system's parameters (symbol -> default) overridden
    by ``params`` (name or symbol -> value), then the model's ``extra`` ones (e.g. eps), each finite
    and within its symbol's sign assumptions (:func:`parameter_value`; k = 0 for a positive spring is a
    valid run, k = -1 is refused). The friction laws with parameters that the system realizes must
    oppose the slip at these values (law_realization.check_laws)."""
    parameters = system.parameters
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping name -> value, got {type(params).__name__} {params!r:.80}")
    values, names, extra = dict(parameters), {s.name: s for s in parameters}, dict(extra or {})
    given = set()
    for key, value in params.items():
        name = key_name(key)
        if name in given:  # {"m": 2.0, m: 3.0}: the last one won, without a word
            raise ValueError(f"params gives parameter {name!r} twice (by its name and by its symbol): give it once")
        given.add(name)
        if name in extra:
            extra[name] = check.finite_float(value, f"parameter {name}")
            continue
        if name not in names:
            known = ", ".join([*names, *extra]) or "none"
            raise ValueError(f"unknown parameter {name!r}; the parameters are: {known}")
        values[names[name]] = parameter_value(names[name], value, name)
    if getattr(system, "friction_laws", None):
        from .law_realization import check_laws

        check_laws(system.friction_laws, {s.name: v for s, v in values.items()})
    return [*values.values(), *extra.values()]


def given_speeds(system) -> tuple:
    """``system.speeds`` (names, X, w0) of a system given a velocity frame; ValueError naming the remedy
    for one without (``speed_frame()`` failed to unpack None)."""
    if system.speeds is None:
        raise ValueError(f"{system.name!r} has no velocity frame of its own (speeds): give System(speeds=...), "
                         "build it from KanesMethod (System.from_kanes_method), or take a frame of D with "
                         "nh.frames.AnholonomicFrame(system) (the Voronets frame)")
    return system.speeds


def known_keywords(kwargs: Mapping, function, method: str) -> None:
    """TypeError naming ``System.<method>`` and its keywords for one it does not take (the message named
    the internal function it passes them to)."""
    known = list(inspect.signature(function).parameters)[2:]  # after the method object and parameters
    unknown = [k for k in kwargs if k not in known]
    if unknown:
        raise TypeError(f"System.{method}() got unexpected keyword arguments {unknown}; it takes {known}")
