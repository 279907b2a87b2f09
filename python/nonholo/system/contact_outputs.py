r"""Contact quantities of any system with constraint rows: ``result["slip"]``,
``result["friction_force"]`` and ``result["normal_force"]``.

The rows A(q) v = b(q, t) of a system group into contacts (``system.contacts``, else the no-slip rows
of each contact of a derived normal force, :meth:`System.with_normal_force`, else one per row). Of
a run of any model of such a system, per contact c and at every output time,

- ``"slip"``: the slip speed |s_c|, s_c = (A q' - b)_c with the run's physical velocity q' (zero to
  the drift on the nonholonomic model, O(eps) on a friction or reduced model: the slip that the
  no-slip model leaves out);
- ``"friction_force"``: the magnitude of the tangential force the contact applies: the friction
  model's own force (1/eps) |(mu s)_c| for the linear law, the law's |z_c(s_c, N_c)| for a system
  realized by a law (``system.friction(law=...)``); on a reduced model of order K >= 1 the same
  (1/eps) |(mu s)_c| of its own slip, which is the friction model's force to O(eps^K) (its slip is
  to O(eps^(K+1))); and on the nonholonomic, Hamel and order-0 reduced models the multipliers'
  |lambda_c| of the no-slip motion through the run's states (the force that rolling without
  slipping needs, G q'' + c + dV = F + A^T lambda; the friction model's force to O(eps));
- ``"normal_force"``: the normal load N_c given to ``system.friction(law=..., normal=...)``.

Each is an array of shape (n_t,) for a system of one contact and (contacts, n_t) otherwise. A
builder's own outputs of the same names take precedence (a body from
:func:`nonholo.contact.roll_on_plane` derives its normal force from its motion).

Contacts whose rows repeat one another (two wheels on one axle both forbid its sideways motion) keep
only independent rows in the System, whose models need them; a mechanism records every contact's own
rows as ``system.contact_slip_rows`` (:class:`ContactRows`), and each contact slips, and carries its
friction force, on its own rows. Where the model's multipliers carry a direction that several
contacts share, the rigid bodies do not determine each one's part: :class:`SharedRows` splits it by
the rule that minimizes sum_c |f_c|^2 / (mu N_c), which for contacts sharing one direction gives each
the share mu N_c / sum mu N of it, the split that keeps them inside their cones together the longest
(a contact that also carries a large force of its own, braking, may leave its cone under this rule
where another split would hold).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["CONTACT_QUANTITIES", "LOAD_QUANTITIES", "ContactOutput", "ContactRows", "SharedRows", "contact_quantity",
           "full_slips", "law_outputs", "missing_load_quantity", "slip_rows"]

CONTACT_QUANTITIES = ("slip", "friction_force", "normal_force")
# outputs of the bodies of roll_on_plane and of mechanisms only, which divide by their normal force: another
# system's result names the load they need (missing_load_quantity)
LOAD_QUANTITIES = ("friction_ratio",)


class ContactRows:
    """Every no-slip row of a system's contacts, repeated ones included (module docstring): the m
    rows A_f(q) v = b_f, of which the System keeps the k rows ``kept`` (their full indices, in order),
    and A_f = T A on h(q) = 0 with T = ``combination`` (m x k: constants, or expressions of the
    coordinates and parameters; None where it could not be built). ``samples``: T at configurations
    on h = 0 (arrays), for the rank of a set of rows; ``contacts``: the full rows of each contact's
    slip; ``normal``: the normal rows (a support point's height: friction does not realize them);
    ``coefficients``: mu of each row (``friction(eps)``); ``names``: the contacts'."""

    def __init__(self, rows, affine, kept, combination, samples, contacts=None, normal=(), coefficients=None,
                 names=None):
        self.rows, self.affine = sp.ImmutableMatrix(rows), sp.ImmutableMatrix(affine)
        self.kept = [int(r) for r in kept]
        self.combination = None if combination is None else sp.ImmutableMatrix(combination)
        self.samples = [np.asarray(T, dtype=float) for T in samples]
        self.contacts = None if contacts is None else [list(map(int, g)) for g in contacts]
        self.normal = [int(r) for r in normal]
        self.coefficients = None if coefficients is None else [sp.sympify(c) for c in coefficients]
        self.names = None if names is None else [str(x) for x in names]

    @property
    def repeated(self) -> list:
        """The contacts (indices) with a row the System does not keep (it repeats others)."""
        return [c for c, g in enumerate(self.contacts or ()) if any(r not in self.kept for r in g)]

    def name(self, c: int) -> str:
        return repr(self.names[c]) if self.names else str(c)

    def independent(self, candidates: list) -> list:
        """The rows of ``candidates`` (full indices) that span them, greedily in order (a row in the
        span of those kept before it at every sample configuration is left out)."""
        keep: list = []
        for r in candidates:
            trial = keep + [r]
            if any(np.linalg.matrix_rank(T[trial], 1e-9 * max(1.0, np.abs(T[trial]).max())) == len(trial)
                   for T in self.samples):
                keep = trial
        return keep

    def combination_of(self, dropped: list, rows: list) -> sp.Matrix:
        """X with A_f[dropped] = X A_f[rows] on h(q) = 0 (``rows`` independent, spanning ``dropped``)."""
        if self.combination is None:
            owners = sorted({c for c, g in enumerate(self.contacts or ()) for r in g if r in dropped})
            raise ValueError(f"the rows of contact {', '.join(self.name(c) for c in owners)} repeat other contacts' "
                             "and their combination of the kept rows could not be built: the split of the force "
                             "they share (stick_slip, friction_margin) is not supported here; use friction(law=...)")
        T = sp.Matrix(self.combination)
        every = list(range(T.cols))
        TD, TM = T.extract(dropped, every), T.extract(rows, every)
        if rows == self.kept:
            return TD
        columns: list = []  # columns of T[rows] that make it invertible at the samples
        for j in range(T.cols):
            trial = columns + [j]
            if all(np.linalg.matrix_rank(S[np.ix_(rows, trial)], 1e-9) == len(trial) for S in self.samples):
                columns = trial
            if len(columns) == len(rows):
                break
        B = TM.extract(list(range(len(rows))), columns)
        return B.T.LUsolve(TD.extract(list(range(len(dropped))), columns).T).T

    def linear_law(self) -> None:
        """ValueError where the System's friction coefficients leave out a repeated row (T not built):
        the linear law of ``friction(eps)`` and its reduced model would miss that contact's friction."""
        if self.combination is None and self.repeated:
            names = ", ".join(self.name(c) for c in self.repeated)
            raise ValueError(f"the no-slip rows of contact {names} repeat other contacts', and their combination of "
                             "the kept rows could not be built: friction(eps) and reduced(eps) would give that contact "
                             "no friction, which is not supported here; use friction(law=...), which acts on every "
                             "contact's own rows")

    def friction_matrix(self, mu: list) -> sp.ImmutableMatrix:
        """T^T diag(mu) T: the friction coefficients of the System's rows whose linear law
        -(1/eps) A^T (T^T diag(mu) T) A v = -(1/eps) sum_r mu_r a_r a_r^T v is that of every row r, mu_r
        its coefficient, on h(q) = 0 (where A_f = T A)."""
        self.linear_law()
        T = sp.Matrix(self.combination)
        k = T.cols
        out = sp.zeros(k, k)
        for r in range(T.rows):
            nonzero = [j for j in range(k) if T[r, j] != 0]
            for i in nonzero:
                for j in nonzero:
                    out[i, j] += mu[r] * T[r, i] * T[r, j]
        return sp.ImmutableMatrix(out)

    def with_coefficients(self, mu: list) -> ContactRows:
        """The record with the coefficients ``mu`` of its rows (a viscous law's)."""
        return ContactRows(self.rows, self.affine, self.kept, self.combination, self.samples, self.contacts,
                           self.normal, mu, self.names)

    def slips(self, velocities) -> sp.Matrix:
        return self.rows * sp.Matrix(velocities) - self.affine


def slip_rows(system) -> ContactRows:
    """A mechanism's record of its contacts' rows (``system.contact_slip_rows``), else the system's own
    rows as the full rows (T the identity; ``contacts`` None)."""
    from .law_realization import normal_rows

    record = getattr(system, "contact_slip_rows", None)
    if record is not None:
        return record
    k = system.k
    return ContactRows(system.constraints, system.affine, range(k), sp.eye(k), [np.eye(k)], None, normal_rows(system))


def full_slips(system) -> sp.Matrix:
    """The slip of every contact row, s_f = A_f(q) v - b_f (the system's k rows s = A v - b, or a
    mechanism's rows with the repeated ones)."""
    return slip_rows(system).slips(system.velocities)


class SharedRows:
    r"""The force f_c of each contact (on its own rows, ``contacts``: full indices) from the multipliers
    lambda of the independent rows ``rows`` that a model keeps (full indices; normal rows among them
    carry normal loads, no contact's friction). A contact row not among them, d, repeats them,
    a_d = X_d A_rows on h(q) = 0: the forces give the multipliers lambda = f_rows + X^T f_d, and of the
    forces that do (the rigid bodies fix no more) the split is the one that minimizes
    sum_r f_r^2 / N_c(r) over the contacts' rows (module docstring):

        f_D = (W_D^-1 + X W^-1 X^T)^-1 X W^-1 lambda,   f_rows = lambda - X^T f_D,   W = diag(N_c + delta),

    delta = 1e-12 (1 + sum |N|) (a split of zero loads in equal parts). Without a repeated row,
    f_c = lambda_c."""

    def __init__(self, record: ContactRows, rows: list, contacts: list):
        self.rows, self.contacts = [int(r) for r in rows], [list(map(int, g)) for g in contacts]
        position = {r: i for i, r in enumerate(self.rows)}
        self.dropped = [r for g in self.contacts for r in g if r not in position]
        self.X = record.combination_of(self.dropped, self.rows) if self.dropped else None
        self.key = (tuple(self.rows), tuple(tuple(g) for g in self.contacts),
                    None if self.X is None else tuple(self.X))

    def forces(self, lam, loads) -> list:
        """Per contact the list of its force components (expressions or numbers) from the multipliers
        ``lam`` of ``rows`` and the contacts' normal loads ``loads``."""
        position = {r: i for i, r in enumerate(self.rows)}
        if not self.dropped:
            return [[lam[position[r]] for r in g] for g in self.contacts]
        owner = {r: c for c, g in enumerate(self.contacts) for r in g}
        delta = sp.Float(1e-12) * (1 + sum((sp.Abs(N, evaluate=sp.sympify(N).is_number) for N in loads), sp.S.Zero))
        P = [r for g in self.contacts for r in g if r in position]
        X = self.X.extract(list(range(len(self.dropped))), [position[r] for r in P])
        inverse = sp.diag(*[1 / (loads[owner[r]] + delta) for r in P])
        K = sp.diag(*[1 / (loads[owner[d]] + delta) for d in self.dropped]) + X * inverse * X.T
        rhs = X * inverse * sp.Matrix([lam[position[r]] for r in P])
        f_d = rhs / K[0, 0] if K.rows == 1 else K.LUsolve(rhs)
        f_p = sp.Matrix([lam[position[r]] for r in P]) - X.T * f_d
        force = {**dict(zip(P, f_p)), **dict(zip(self.dropped, f_d))}
        return [[force[r] for r in g] for g in self.contacts]


class ContactOutput:
    """One contact quantity as SymPy expressions of (q, v, t, p), one list per contact: the value of a
    contact is the norm of its list (the signed value for a list of one entry is not kept: all
    three quantities are magnitudes). Picklable; lambdified on first use."""

    needs_time = True

    def __init__(self, name: str, exprs, args):
        self.name, self.exprs, self.args = name, [list(e) for e in exprs], tuple(tuple(a) for a in args)
        self._f = None

    def __getstate__(self):
        return {"name": self.name, "exprs": self.exprs, "args": self.args}

    def __setstate__(self, state):
        self.__init__(**state)

    def __call__(self, q, v, params, t=0.0) -> np.ndarray:
        coords, vel, time, parameters = self.args
        if self._f is None:
            flat = [e for contact in self.exprs for e in contact]
            self._f = sp.lambdify([list(coords), list(vel), time[0], list(parameters)], flat, "numpy")
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        p = [params[s.name] for s in parameters]
        values = self._f(list(q), list(v), np.asarray(t, dtype=float), p)
        values = np.array([np.broadcast_to(np.asarray(c, dtype=float), q.shape[1:]) for c in values])
        return _per_contact(values, [len(c) for c in self.exprs])


def _per_contact(rows: np.ndarray, sizes: list) -> np.ndarray:
    """The norm of each contact's consecutive rows; shape (n_t,) for one contact."""
    out, start = [], 0
    for size in sizes:
        out.append(np.linalg.norm(rows[start:start + size], axis=0))
        start += size
    out = np.array(out)
    return out[0] if len(sizes) == 1 else out


def _groups(system) -> list:
    """system.contacts, else the no-slip rows of each contact of a derived normal force
    (:meth:`System.with_normal_force`), else one contact per row."""
    if system.contacts is not None:
        return system.contacts
    derived = system.outputs.get("normal_force")
    if getattr(derived, "tangential", None) and all(derived.tangential):
        return derived.tangential
    return [[i] for i in range(system.k)]


def law_outputs(system, groups: list, forces: list, loads: list, args=None) -> dict:
    """The contact outputs of ``system`` realized by friction laws: per contact c (rows ``groups[c]``)
    its slip, its law force ``forces[c]`` (expressions, one per row) and, where given, its normal
    load ``loads[c]``; evaluated on (q, v, t, p) = ``args`` (default the system's own)."""
    slip = full_slips(system)  # groups index the full rows (a mechanism's repeated rows included)
    if args is None:
        args = (system.coordinates, system.velocities, (system.time,), system.parameters)
    outputs = {"slip": ContactOutput("slip", [[slip[i] for i in rows] for rows in groups], args),
               "friction_force": ContactOutput("friction_force", forces, args)}
    if all(N is not None for N in loads):
        outputs["normal_force"] = ContactOutput("normal_force", [[N] for N in loads], args)
    return outputs


def contact_quantity(result, name: str) -> np.ndarray:
    """``result[name]`` for a contact quantity (module docstring) of a run of a model of a system with
    constraint rows."""
    model, system = result.model, result.model.system
    groups = _groups(system)
    sizes = [len(g) for g in groups]
    order = [i for g in groups for i in g]
    p = system.param_vector(result._system_params())
    q, v, t = result.q, result.velocity, result.t
    if name == "normal_force":
        loads = getattr(model, "contact_loads", None)  # a reduced model of a law: the loads it was given
        if loads is None or any(N is None for N in loads):
            raise KeyError(f"{system.name!r} has no normal load: give normal= to system.friction(law=..., normal=...) "
                           "(result['normal_force'] of that model) or to system.friction_margin")
        args = [list(system.coordinates), list(system.velocities), system.time, list(system.parameters)]
        f = sp.lambdify(args, [sp.sympify(N) for N in loads], "numpy")
        values = np.array([np.broadcast_to(np.asarray(c, dtype=float), t.shape) for c in f(list(q), list(v), t, p)])
        return values[0] if len(loads) == 1 else values
    if name == "friction_force" and getattr(model, "kind", None) == "vakonomic":
        raise KeyError("the vakonomic model has no friction force: its multipliers are not a contact force")
    record = getattr(system, "contact_slip_rows", None)
    if t.size == 0:  # no samples (t_eval=[]): per contact, none
        count = len(record.contacts) if record is not None and record.repeated else len(groups)
        return np.zeros(0) if count == 1 else np.zeros((count, 0))
    points = [system._core.at(float(t[i]), q[:, i], v[:, i], p) for i in range(t.size)]
    if record is not None and record.repeated:  # every contact on its own rows
        return _own_rows_quantity(result, name, record, points, p)
    if name == "slip" or _force_of_its_slip(result):
        slip = np.array([at.constraint_matrix() @ v[:, i] - at.affine() for i, at in enumerate(points)]).T
        if name == "slip":
            return _per_contact(slip[order], sizes)
        eps = float(result.params["eps"])
        force = np.array([np.asarray(at.friction_coefficients()).reshape(system.k, system.k) @ slip[:, i]
                          for i, at in enumerate(points)]).T / eps
        return _per_contact(force[order], sizes)
    lam = np.array([at.multipliers() for at in points]).T.reshape(system.k, -1)
    return _per_contact(lam[order], sizes)


def missing_load_quantity(system, name: str, load: str | None) -> str:
    """The KeyError message of ``result[name]``, ``name`` in LOAD_QUANTITIES, where ``system`` has no such
    output (a System written in SymPy): the quantity divides by a contact's normal load, and ``load`` says
    which the run has (``"given"`` as normal=, ``"derived"`` by with_normal_force, None: none; its
    ``result["normal_force"]`` then raises alike)."""
    what = (f"{system.name!r} has no output {name!r}: the ratio |f| / N of each contact's friction force to its "
            "normal load (the friction coefficient the motion needs) is an output of the bodies of "
            "nh.contact.roll_on_plane and of mechanisms (nh.multibody.Mechanism) only")
    if load is not None:
        how = "the load given as normal=" if load == "given" else "the load of system.with_normal_force"
        return f"{what}. Divide result['friction_force'] by result['normal_force'] ({how})"
    return (f"{what}, and {system.name!r} has no normal load: give normal= to system.friction(law=..., normal=...) "
            "(result['normal_force'] of that model, by which divide result['friction_force']) or to "
            "system.friction_margin (system.friction_margin(mu, normal=N).of(result) is mu N - |f| per contact)")


def _force_of_its_slip(result) -> bool:
    """Whether the run's friction force is (1/eps) mu s of its own slip s: the friction model's, and
    a reduced model's of order >= 1 (of the linear law: eps among its parameters), whose slip is
    the friction model's to O(eps^(K+1)); otherwise the multipliers of the no-slip motion."""
    model = result.model
    kind = getattr(model, "kind", None)
    return kind == "friction" or (kind == "reduced" and bool(getattr(model, "order", 0)) and "eps" in result.params)


def _own_rows_quantity(result, name: str, record: ContactRows, points: list, p) -> np.ndarray:
    """:func:`contact_quantity` of a mechanism whose contacts repeat rows: the slip s_r = a_r q' on each
    contact's own rows r; the force mu_r s_r / eps of the linear law on them on a friction model, else
    the multipliers split among the contacts that share a row (:class:`SharedRows`, weighted by the
    derived normal loads ``result["normal_force"]``, refused where they are statically indeterminate)."""
    system = result.model.system
    groups = record.contacts
    sizes, order = [len(g) for g in groups], [r for g in groups for r in g]
    inputs = [*system.coordinates, *system.parameters]
    rows = sp.lambdify(inputs, record.rows.extract(order, list(range(system.n))), "numpy")
    q, v = result.q, result.velocity
    slip = np.array([np.asarray(rows(*q[:, i], *p), dtype=float) @ v[:, i] for i in range(q.shape[1])]).T
    if name == "slip":
        return _per_contact(slip.reshape(len(order), -1), sizes)
    if _force_of_its_slip(result):
        mu = sp.lambdify(inputs, [record.coefficients[r] for r in order], "numpy")
        scale = np.array([np.broadcast_to(np.asarray(mu(*q[:, i], *p), dtype=float), len(order))
                          for i in range(q.shape[1])]).T
        return _per_contact(scale * slip.reshape(len(order), -1) / float(result.params["eps"]), sizes)
    loads = np.asarray(result["normal_force"], dtype=float).reshape(len(groups), -1)
    shared = SharedRows(record, record.kept, groups)
    lam = sp.symbols(f"_lambda0:{system.k}")
    N = sp.symbols(f"_load0:{len(groups)}")
    split = sp.lambdify([inputs, lam, N], [f for g in shared.forces(lam, N) for f in g], "numpy")
    values = np.array([np.broadcast_to(np.asarray(split([*q[:, i], *p], list(at.multipliers()), list(loads[:, i])),
                                                  dtype=float), len(order)) for i, at in enumerate(points)]).T
    return _per_contact(values, sizes)
