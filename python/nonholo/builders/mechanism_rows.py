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

__all__ = ["IndeterminateNormalForce", "independent_rows", "record_contact_rows", "with_normal_forces"]


def independent_rows(A: sp.Matrix, holonomic: list, coordinates: list, parameters: Mapping,
                     samples: int = 4) -> list:
    """The indices of the rows of A (SymPy, in the ``coordinates`` and the symbols of
    ``parameters`` {symbol or name: value}) that span its row space at random configurations on
    h(q) = 0 (``holonomic``), greedily, in order (module docstring)."""
    values = {(key if isinstance(key, str) else key.name): value for key, value in parameters.items()}
    symbols = sorted(set().union(*(e.free_symbols for e in [*A, *holonomic])) - set(coordinates), key=str)
    check_free_symbols([*A, *holonomic], {*coordinates, *(s for s in symbols if s.name in values)}, "constraints")
    p = [check.finite_float(values[s.name], f"parameter {s.name}") for s in symbols]
    arguments = [*coordinates, *symbols]
    h = sp.lambdify(arguments, list(holonomic), "numpy") if holonomic else None
    rows = sp.lambdify(arguments, A, "numpy")
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


def record_contact_rows(system, sizes: list, keep: list) -> None:
    """The rows of each contact, as a friction law or the stick-slip model takes them: its two
    tangential rows (``friction_contacts``, one group per contact: an isotropic cone) and the normal
    rows dh/dt of the contacts after the first (``normal_rows``: the height of a support point,
    which friction does not realize; it stays a constraint, with h = 0 held at position level).
    Rows dropped as dependent are left out."""
    index = {row: i for i, row in enumerate(keep)}
    groups, normal, row = [], [], 0
    for size in sizes:
        kept = [index[r] for r in range(row, row + size) if r in index]
        if size == 2 and kept:
            groups.append(kept)
        elif size == 1:
            normal += kept
        row += size
    system.friction_contacts, system.normal_rows = groups, normal


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
