r"""The contact rows of a mechanism (:mod:`nonholo.multibody`): which of them the System keeps,
which contact each belongs to, and the normal forces they carry.

Every contact gives the rows v_c = 0 of its material point (the first contact two, the others
three with dh/dt, the vertical one, and the holonomic constraint h = 0 of its support point).
Contacts can repeat one another on the ground h(q) = 0: two wheels on one axle both forbid the
axle's sideways motion, a third wheel on it or a fourth wheel under a rigid frame repeats the
others' heights. The models need independent rows (the multipliers of repeated rows are not
determined: the nonholonomic acceleration solves A G^-1 A^T lambda = ..., singular), so the rows
are sorted before the System is built: greedily, in order, a row that lies in the span of the
kept ones at every sample configuration on h(q) = 0 is dropped (and with a vertical row its
holonomic constraint, which the others then imply). The System never sees more rows than the
mechanism has independent constraints (a four-wheeled cart's 11 rows for 10 coordinates).

Each contact still carries friction on its own rows, the dropped ones included: the system records
them (``system.contact_slip_rows``, :class:`nonholo.system.contact_outputs.ContactRows`) with the
combination T of the kept rows A that gives every row on h(q) = 0, A_f = T A (:func:`row_combination`:
constants, exact rationals, when the rows repeat others by a fixed combination, as parallel wheels on
a rigid axle do; else solved symbolically), and the friction coefficients of ``friction(eps)`` are
T^T diag(mu) T, the linear law of every row. A friction law, the stick-slip model and the margins
act on each contact's own rows (:mod:`nonholo.system.law_realization`).

A dropped vertical row makes the normal loads statically indeterminate: the rigid bodies fix only
their resultant (the total load and its moments), not each contact's share, which depends on the
compliance the rigid model leaves out. The output ``"normal_force"`` then refuses, naming the
contacts, instead of a number the data do not determine (:class:`IndeterminateNormalForce`).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import sympy as sp

from .. import options as check
from ..expressions.lowering import check_free_symbols
from ..system.normal_forces import Lift, normal_force_output

__all__ = ["IndeterminateNormalForce", "independent_rows", "record_contact_rows", "row_combination",
           "with_normal_forces"]


def _sampled(A: sp.Matrix, holonomic: list, coordinates: list, parameters: Mapping) -> tuple:
    """(symbols, their values, h, rows): the parameters' symbols of A and h, and both lambdified."""
    values = {(key if isinstance(key, str) else key.name): value for key, value in parameters.items()}
    symbols = sorted(set().union(*(e.free_symbols for e in [*A, *holonomic])) - set(coordinates), key=str)
    check_free_symbols([*A, *holonomic], {*coordinates, *(s for s in symbols if s.name in values)}, "constraints")
    p = [check.finite_float(values[s.name], f"parameter {s.name}") for s in symbols]
    arguments = [*coordinates, *symbols]
    h = sp.lambdify(arguments, list(holonomic), "numpy") if holonomic else None
    return symbols, p, h, sp.lambdify(arguments, A, "numpy")


def independent_rows(A: sp.Matrix, holonomic: list, coordinates: list, parameters: Mapping,
                     samples: int = 4) -> list:
    """The indices of the rows of A (SymPy, in the ``coordinates`` and the symbols of
    ``parameters`` {symbol or name: value}) that span its row space at random configurations on
    h(q) = 0 (``holonomic``), greedily, in order (module docstring)."""
    symbols, p, h, rows = _sampled(A, holonomic, coordinates, parameters)
    rng = np.random.default_rng(2007)
    points = [_onto_holonomic(h, rng.uniform(-0.4, 0.4, len(coordinates)), p) for _ in range(samples)]
    with np.errstate(all="ignore"):
        mats = [np.asarray(rows(*q, *p), dtype=float).reshape(A.shape) for q in points]
    mats = [M for M in mats if np.all(np.isfinite(M))] or mats
    keep: list = []
    for i in range(A.rows):
        trial = keep + [i]
        if any(np.linalg.matrix_rank(M[trial], 1e-10 * max(1.0, np.abs(M).max())) == len(trial) for M in mats):
            keep = trial
    return keep


def row_combination(A: sp.Matrix, keep: list, holonomic: list, coordinates: list, parameters: Mapping,
                    samples: int = 6) -> tuple:
    """(T, [T at the sample configurations]): every row of A (m x n) as a combination of the rows
    ``keep`` on h(q) = 0, A = T A[keep] (module docstring). T is constant (exact rationals where the
    values are) when it is the same at random configurations on h = 0 and at parameter values 10 %
    apart; else each dropped row's coefficients are solved symbolically from as many columns of the
    kept rows it combines (checked at the samples). T is None where neither holds."""
    symbols, p, h, rows = _sampled(A, holonomic, coordinates, parameters)
    rng = np.random.default_rng(2008)
    found, own = [], []
    for i in range(samples):
        values = p if i < samples // 2 else [x * (1 + 0.1 * rng.uniform(-1, 1)) for x in p]
        q = _onto_holonomic(h, rng.uniform(-0.4, 0.4, len(coordinates)), values)
        with np.errstate(all="ignore"):
            M = np.asarray(rows(*q, *values), dtype=float).reshape(A.shape)
        if not np.all(np.isfinite(M)):
            continue
        T = np.linalg.lstsq(M[keep].T, M.T, rcond=None)[0].T
        if np.abs(T @ M[keep] - M).max() <= 1e-9 * max(1.0, np.abs(M).max()):  # on h = 0: every row in the span
            found.append((q, values, T, M))
            if i < samples // 2:
                own.append(T)
    if not own:
        return None, [np.eye(A.rows)[:, :len(keep)]]
    first = own[0]
    scale = max(1.0, np.abs(first).max())
    constant = [all(np.abs(T[r] - first[r]).max() <= 1e-9 * scale for _, _, T, _ in found) for r in range(A.rows)]
    exact = sp.Matrix(*first.shape, lambda i, j: _number(first[i, j], scale) if constant[i] else sp.S.Zero)
    if not all(np.abs(np.asarray(exact, dtype=float)[constant] - T[constant]).max(initial=0) <= 1e-9 * scale
               for _, _, T, _ in found):
        constant = [r in keep for r in range(A.rows)]
    T = sp.Matrix(exact)
    arguments = [*coordinates, *symbols]
    # configurations on h = 0 where a coordinate that h leaves free (a heading) is 0 or pi/2, put in exactly:
    # a combination solved from a few columns may divide by a coefficient that vanishes there (sin(yaw))
    free = set(coordinates) - set().union(*(e.free_symbols for e in holonomic))
    special = []
    for x in [np.zeros(len(coordinates)), *(np.pi / 2 * e for e in np.eye(len(coordinates)))]:
        q = _onto_holonomic(h, x, p)
        with np.errstate(all="ignore"):
            M = np.asarray(rows(*q, *p), dtype=float).reshape(A.shape)
        special.append((M, {c: (sp.pi / 2 if x[i] else sp.S.Zero) if c in free else sp.Float(q[i])
                            for i, c in enumerate(coordinates)} | dict(zip(symbols, map(sp.Float, p)))))
    for r in (r for r in range(A.rows) if not constant[r]):
        support = [keep[j] for j in range(len(keep)) if max(abs(S[r, j]) for _, _, S, _ in found) > 1e-10 * scale]
        # where the rows it combines lose rank, it has no combination of them (a steered axle across the car)
        regular = [at for M, at in special if np.all(np.isfinite(M)) and np.linalg.matrix_rank(
            M[support], 1e-9 * max(1.0, np.abs(M).max())) == len(support)]
        values = None
        shortest = sorted((x for x in (_solved(A, r, support, order, found) for order in (free, set())) if x),
                          key=lambda x: sum(map(sp.count_ops, x)))
        for trial in (*shortest, None):  # the short combinations, then the least-squares one
            trial = trial or _projected(A, r, support)
            check = sp.lambdify(arguments, trial, "numpy")
            with np.errstate(all="ignore"):
                columns = [keep.index(i) for i in support]
                if all(np.abs(np.asarray(check(*q, *v), dtype=float) - S[r, columns]).max() <= 1e-8 * scale
                       for q, v, S, _ in found) and all(not sp.sympify(e).xreplace(at).has(sp.zoo, sp.nan, sp.oo)
                                                         for e in trial for at in regular):
                    values = trial
                    break
        if values is None:
            return None, own
        for i, value in zip(support, values):
            T[r, keep.index(i)] = value
    return sp.ImmutableMatrix(T), own


def _solved(A: sp.Matrix, r: int, support: list, free: set, found: list):
    """The coefficients of row r in the rows ``support`` from as many columns (invertible at every
    sample; with ``free`` the coordinates h(q) = 0 leaves free, such as a heading, those whose entries
    depend on the fewest of them first: a column of x' in heading axes, cos(yaw), could divide by one
    that vanishes): short expressions; None where no such columns are found."""

    def cost(j):
        return len(set().union(*(sp.sympify(A[i, j]).free_symbols for i in [*support, r])) & free)

    columns: list = []
    for j in sorted((j for j in range(A.cols) if any(A[i, j] != 0 for i in support)), key=cost):
        trial = columns + [j]
        if all(np.linalg.matrix_rank(M[np.ix_(support, trial)], 1e-9) == len(trial) for _, _, _, M in found):
            columns = trial
        if len(columns) == len(support):
            B = A.extract(support, columns)
            return list(B.T.LUsolve(A.extract([r], columns).T))
    return None


def _projected(A: sp.Matrix, r: int, support: list) -> list:
    """The coefficients of row r in the rows ``support`` by least squares, (A_S A_S^T)^-1 A_S a_r:
    finite wherever those rows are independent, and longer."""
    def dot(a, b):
        return sp.Add(*[x * y for x, y in zip(a, b) if x != 0 and y != 0])

    rows = [A.row(i) for i in support]
    gram = sp.Matrix(len(rows), len(rows), lambda i, j: dot(rows[i], rows[j]))
    return list(gram.LUsolve(sp.Matrix([dot(a, A.row(r)) for a in rows])))


def _number(x: float, scale: float):
    """x as an exact rational where one with a small denominator is within 1e-12 of it, else a Float."""
    if abs(x) <= 1e-12 * scale:
        return sp.S.Zero
    exact = sp.nsimplify(x, rational=True, tolerance=1e-12 * scale)
    return exact if sp.denom(exact) <= 10**6 else sp.Float(x)


def _onto_holonomic(h, q: np.ndarray, p: list, tol: float = 1e-12) -> np.ndarray:
    """q moved onto h(q) = 0 by Gauss-Newton steps with the least change (finite-difference dh/dq);
    q itself when that does not converge."""
    if h is None:
        return q
    start = q
    with np.errstate(all="ignore"):
        for _ in range(30):
            r = np.asarray(h(*q, *p), dtype=float).reshape(-1)
            if not np.all(np.isfinite(r)):
                break
            if np.abs(r).max() < tol:
                return q
            step = 1e-7
            J = np.column_stack([(np.asarray(h(*(q + step * e), *p), dtype=float).reshape(-1) - r) / step
                                 for e in np.eye(q.size)])
            if not np.all(np.isfinite(J)):
                break
            q = q - np.linalg.lstsq(J, r, rcond=None)[0]
    return start  # no nearby point on h = 0: the rank is taken off it


def record_contact_rows(system, sizes: list, keep: list, A: sp.Matrix, combination, samples: list, mu: list,
                        names: list) -> None:
    """The rows of each contact, as a friction law or the stick-slip model takes them: its two
    tangential rows (``friction_contacts``, one group per contact: an isotropic cone) and the normal
    rows dh/dt of the contacts after the first (``normal_rows``: the height of a support point,
    which friction does not realize; it stays a constraint, with h = 0 held at position level).
    Rows dropped as dependent are left out of both; where some were, every row with the combination
    T (:func:`row_combination`), mu per row and the contacts' names are ``contact_slip_rows``."""
    index = {row: i for i, row in enumerate(keep)}
    groups, normal, row = [], [], 0
    own, vertical = [], []  # every contact's own tangential rows, and every normal row (full indices)
    for size in sizes:
        kept = [index[r] for r in range(row, row + size) if r in index]
        if size == 2 and kept:
            groups.append(kept)
        elif size == 1:
            normal += kept
        if size == 2:
            own.append([row, row + 1])
        else:
            vertical.append(row)
        row += size
    system.friction_contacts, system.normal_rows = groups, normal
    if len(keep) < A.rows:
        from ..system.contact_outputs import ContactRows

        system.contact_slip_rows = ContactRows(A, sp.zeros(A.rows, 1), keep, combination, samples, own, vertical, mu,
                                               names)


def with_normal_forces(system, contacts: list, keep: list, bodies: list, g):
    """The system with its output ``"normal_force"`` (:mod:`nonholo.system.normal_forces`): the first
    contact's vertical constraint, which the root's height eliminates, lifts every body (``bodies``:
    (mass, height of its centre of mass) pairs) and carries the other contacts' normal rows; each
    other contact keeps its own (row dh/dt). Where a normal row was dropped as dependent, the loads
    are statically indeterminate: :class:`IndeterminateNormalForce`. ``contacts``: the contacts'
    names, in order."""
    index = {row: i for i, row in enumerate(keep)}
    tangential, normal_rows, repeated, row = [], [], [], 0
    for i, name in enumerate(contacts):
        tangential.append([index[r] for r in (row, row + 1) if r in index])
        if i:
            if row + 2 in index:
                normal_rows.append(index[row + 2])
            else:
                repeated.append(name)
        row += 2 if i == 0 else 3
    if repeated:
        system.outputs["normal_force"] = IndeterminateNormalForce(contacts, repeated, system.name, tangential)
    else:
        system.outputs["normal_force"] = normal_force_output(system, [Lift(bodies, normal_rows), *normal_rows], g,
                                                             tangential)
    return system


class IndeterminateNormalForce:
    """The output ``"normal_force"`` of a mechanism whose normal loads are statically indeterminate (a
    contact's height repeats the others': module docstring). Asked for (``result["normal_force"]``,
    ``system.friction_margin(mu)`` without ``normal=``), it raises ValueError naming the contacts.
    ``tangential`` (the kept no-slip rows of each contact) groups the rows for ``result["slip"]``."""

    needs_multipliers = True  # result["normal_force"] asks check_system first

    def __init__(self, contacts, repeated, system_name, tangential):
        self.contacts, self.repeated = list(contacts), list(repeated)
        self.system_name, self.tangential = system_name, [list(g) for g in tangential]

    def _refuse(self):
        raise ValueError(
            f"the normal loads of the contacts {self.contacts} of {self.system_name!r} are statically indeterminate: "
            f"the height of {', '.join(map(repr, self.repeated))} repeats the other contacts' (its support point is on "
            "the plane wherever theirs are), so the rigid bodies determine only the loads' resultant (the total "
            "load and its moments), not each contact's share, which depends on compliance the model leaves out. "
            "Give the loads where they are needed (normal= to friction(law=...), stick_slip or friction_margin)")

    def check_system(self, system) -> None:
        self._refuse()

    def expressions(self, acceleration, multipliers):
        self._refuse()

    def __call__(self, *args, **kwargs):
        self._refuse()
