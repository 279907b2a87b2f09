r"""Normal forces of contacts with a plane, derived from the vertical constraints: the output
``result["normal_force"]`` of :meth:`System.with_normal_force` (and of the builders'
bodies and mechanisms).

A contact with a plane holds its support point on the plane: a holonomic constraint h_c(q) = 0, the
height of the point. Its multiplier is the normal force N_c. A system either keeps that constraint
(its derivative dh_c/dt = 0 is one of the constraint rows, ``System(holonomic=...)``), or its
coordinates eliminate it (the height of a body is a function of the other coordinates).

- **Kept** (``normal=r``, an int): N_c = lambda_r, the multiplier of row r, when row r is dh_c/dt
  (the vertical velocity of the support point, up positive): a force A^T lambda with
  lambda_r = N_c is the upward force N_c at the support point.
- **Eliminated** (``normal=Lift(bodies, rows)``): restore the eliminated coordinate as a rigid
  vertical translation delta of the bodies the constraint carries, z_b -> z_b(q) + delta. Then
  delta = 0 is the constraint, and its multiplier is the Lagrange equation of delta at delta = 0,

      N_c = d/dt dL/d delta' - dL/d delta - F_z - sum_(r in rows) lambda_r
          = sum_b m_b (z_b'' + g) - F_z - sum_(r in rows) lambda_r,

  with z_b the height of body b's centre of mass, g the gravity pressing on the plane, F_z the
  vertical (up) component of the other forces applied to the lifted bodies (``applied``: a
  downforce is negative; it is the generalized force of delta, which the system's own force,
  written in the coordinates that eliminate delta, does not hold, so it must be given), and
  ``rows`` the kept normal rows of other contacts on the lifted bodies (each of them moves by
  delta, so its constraint enters the delta equation with coefficient 1). This is Newton's law
  for the vertical motion of the lifted bodies. One body: N = m (z_G'' + g) - F_z.

Both are expressions of [q, v, t, p, q'', lambda]; on a run they take the run's own acceleration
and constraint force, lambda = lambda_nh + (A A^T)^(-1) A G (q'' - q''_nh) (G q'' + h = A^T lambda:
the multipliers on the nonholonomic model, the friction force -(1/eps) mu (A v - b) on the friction
model, the no-slip multipliers on reduced models, whose acceleration is the nonholonomic one).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import sympy as sp

from ..errors import SimulationWarning
from ..expressions.parsing import to_sympy

__all__ = ["Lift", "NormalForce", "normal_force_output", "gravity_into_plane", "outputs_with_normal",
           "outputs_with_unknown_vertical"]


class Lift:
    """The vertical constraint that a contact's coordinates eliminate (module docstring).

    Parameters
    ----------
    bodies : (mass, height) or a list of them
        The bodies that the eliminated constraint carries: their masses and the heights of their
        centres of mass above the plane as expressions of the coordinates and parameters.
    rows : sequence of int
        The constraint rows that are the normal rows (dh/dt, kept holonomic constraints) of other
        contacts on those bodies; their multipliers carry part of the load.
    applied : number or SymPy expression, optional
        F_z, the vertical (up) component of the forces other than gravity and the contacts'
        applied to those bodies, an expression of the state, time and parameters: a downforce D
        is ``applied=-D`` (module docstring; default 0, gravity the only applied vertical force).
    """

    def __init__(self, bodies, rows=(), applied=0):
        if isinstance(bodies, tuple) and len(bodies) == 2 and not isinstance(bodies[0], (tuple, list)):
            bodies = [bodies]
        try:
            pairs = [(to_sympy(m, "bodies (mass)"), to_sympy(z, "bodies (height)")) for m, z in bodies]
        except (TypeError, ValueError) as exc:
            raise TypeError(f"bodies must be (mass, height) or a list of (mass, height) pairs: {exc}") from None
        if not pairs:
            raise ValueError("bodies must name at least one (mass, height)")
        self.bodies = pairs
        try:
            self.rows = [int(r) for r in rows]
        except (TypeError, ValueError):
            raise TypeError(f"rows must be a sequence of constraint-row indices, got {rows!r}") from None
        self.applied = to_sympy(applied, "applied")

    def __repr__(self) -> str:
        applied = "" if self.applied == 0 else f", applied={self.applied}"
        return f"Lift({len(self.bodies)} bodies, rows={self.rows}{applied})"


def gravity_into_plane(gravity) -> sp.Expr:
    """g pressing on the plane z = 0: ``gravity`` itself for a number or expression (along -z), -g_z
    for a 3-vector (g_x, g_y, g_z) in the plane's axes (an incline)."""
    if isinstance(gravity, (list, tuple, np.ndarray, sp.MatrixBase)):
        components = list(np.asarray(gravity, dtype=object).reshape(-1))
        if len(components) != 3:
            raise ValueError(f"gravity as a vector must have 3 components, got {len(components)}")
        return -to_sympy(components[2], "gravity")
    return to_sympy(gravity, "gravity")


class NormalForce:
    r"""The output ``"normal_force"``: N_c per contact from its vertical constraint (module docstring),
    shape (n_t,) for one contact, (contacts, n_t) for several. Picklable; compiled on first use.

    Attributes
    ----------
    loads : list
        Per contact ("row", r) or ("lift", [(m_b, z_b)], rows, F_z).
    tangential : list of lists of int
        The no-slip rows of each contact (for its friction force and the friction margin).
    gravity : SymPy expression
        g pressing on the plane.
    unknown_vertical : str or None
        What was added to the system after its lifted loads were derived (``"with_force"``,
        ``"with_potential"``): a force whose vertical part those loads do not count, as the system's
        coordinates eliminate the height. Each evaluation then warns (:func:`outputs_with_unknown_vertical`).
    """

    needs_acceleration = True
    needs_time = True
    needs_multipliers = True

    def __init__(self, loads, tangential, gravity, args, rows, unknown_vertical=None):
        self.loads, self.tangential, self.gravity = loads, tangential, gravity
        self.args = tuple(tuple(a) for a in args)  # (coordinates, velocities, (time,), parameters)
        self.rows = rows  # the constraint matrix's rows (SymPy), to recognize the system it belongs to
        self.unknown_vertical = unknown_vertical
        self._f = None

    def __getstate__(self):
        return {k: getattr(self, k) for k in ("loads", "tangential", "gravity", "args", "rows", "unknown_vertical")}

    @property
    def lifted(self) -> bool:
        """Whether a load is derived from the motion of lifted bodies (a Lift), not a kept row's multiplier."""
        return any(load[0] == "lift" for load in self.loads)

    def warn_unknown_vertical(self) -> None:
        """A SimulationWarning where a force added after the loads were derived is not in them."""
        if self.unknown_vertical:
            warnings.warn(
                f"the normal force is derived from the motion with gravity as the only vertical force on the lifted "
                f"bodies: the force added by {self.unknown_vertical} is not in it (its vertical part cannot be read "
                "from a force written in coordinates that eliminate the height). For a slope, build the body with "
                "gravity= as a vector; otherwise give the vertical force: system.with_normal_force(Lift(bodies, "
                "applied=F_z))", SimulationWarning, stacklevel=5)

    def __setstate__(self, state):
        self.__init__(**state)

    def expressions(self, acceleration, multipliers) -> list:
        """N_c as SymPy expressions of [q, v, t, p] and the symbols ``acceleration`` (q'') and
        ``multipliers`` (lambda), one per contact."""
        coords, vel = sp.Matrix(self.args[0]), sp.Matrix(self.args[1])
        a = sp.Matrix(list(acceleration))
        out = []
        for load in self.loads:
            if load[0] == "row":
                out.append(multipliers[load[1]])
                continue
            _, bodies, rows, *applied = load  # (a load pickled before ``applied`` has none)
            total = -applied[0] if applied else sp.S.Zero
            for m, z in bodies:  # z'' = grad z . q'' + q'^T (Hessian z) q'
                grad = sp.Matrix([z]).jacobian(coords)
                z_ddot = (sp.Matrix([(grad * vel)[0]]).jacobian(coords) * vel)[0] + (grad * a)[0]
                total += m * (z_ddot + self.gravity)
            out.append(total - sum((multipliers[r] for r in rows), sp.S.Zero))
        return out

    def row_map(self, system) -> dict:
        """{row r this normal force reads the multiplier of: its index among ``system``'s constraint
        rows}: the same rows, where a realization by a friction law (its slip rows no longer
        constraints) keeps the normal rows at other indices; KeyError where one is missing."""
        used = sorted({r for load in self.loads for r in ([load[1]] if load[0] == "row" else load[2])})
        A = sp.Matrix(system.constraints)
        found = {}
        for r in used:
            target = sp.Matrix([self.rows[r]])
            if r < A.rows and sp.Matrix(A.row(r)) == target:
                found[r] = r
                continue
            match = next((i for i in range(A.rows) if sp.Matrix(A.row(i)) == target), None)
            if match is None:
                raise KeyError(f"the normal force of {system.name!r} is the multiplier of constraint rows {used} that "
                               "this model's system does not have (a realization by a friction law): read it from a "
                               "model of the system with the rows, or give normal= to the law")
            found[r] = match
        return found

    def check_system(self, system) -> None:
        """A KeyError unless ``system`` has the rows this normal force reads the multipliers of."""
        self.row_map(system)

    def __call__(self, q, v, params, acceleration, t=0.0, multipliers=None, system=None) -> np.ndarray:
        self.warn_unknown_vertical()
        coords, vel, time, parameters = self.args
        if self._f is None:
            a = sp.symbols(f"_nf_a0:{len(coords)}")
            lam = sp.symbols(f"_nf_lambda0:{max(len(self.rows), 1)}")
            self._f = sp.lambdify([list(coords), list(vel), time[0], list(parameters), list(a), list(lam)],
                                  self.expressions(a, lam), "numpy")
        q, v, a = (np.asarray(x, dtype=float) for x in (q, v, acceleration))
        shape = q.shape[1:]
        size = max(len(self.rows), 1)
        lam = None if multipliers is None else np.asarray(multipliers, dtype=float)
        if lam is not None and system is not None:  # ``system``'s multipliers: the rows this force reads
            full = np.zeros((size, *lam.shape[1:]))
            for r, i in self.row_map(system).items():
                full[r] = lam[i]
            lam = full
        if lam is None or lam.shape[0] != size:  # a system without the rows (check_system: none is read)
            lam = np.zeros((size, *shape))
        p = [params[s.name] for s in parameters]
        t = np.broadcast_to(np.asarray(t, dtype=float), shape)
        values = np.array([np.broadcast_to(np.asarray(c, dtype=float), shape)
                           for c in self._f(list(q), list(v), t, p, list(a), list(lam))])
        self._warn_negative(values, t)
        return values[0] if len(self.loads) == 1 else values

    def _warn_negative(self, values: np.ndarray, t) -> None:
        """A SimulationWarning where a load is negative: the contact would pull the body down, the
        model's constraint holds it on a plane it would leave (a one-sided contact lifts off)."""
        loads = values.reshape(len(values), -1)  # (contacts, samples)
        negative = loads < -1e-9 * max(1.0, float(np.max(np.abs(loads), initial=0.0, where=np.isfinite(loads))))
        if not negative.any():
            return
        first = int(np.flatnonzero(negative.any(axis=0))[0])
        contact = int(np.flatnonzero(negative[:, first])[0])
        times = np.broadcast_to(np.asarray(t, dtype=float), values.shape[1:]).reshape(-1)
        where = f" of contact {contact}" if len(values) > 1 else ""
        warnings.warn(f"the normal force{where} is negative from t = {times[first]:.6g} "
                      f"(N = {loads[contact, first]:.4g}): the body would lift off there, and the model's constraint "
                      "holds it on the plane instead, so the motion after it is not the body's. Stop the run there "
                      "with nh.Event(system.liftoff_margin(), terminal=True)", SimulationWarning, stacklevel=5)


def outputs_with_normal(outputs: dict, normal) -> dict:
    """``outputs`` with ``normal`` as ``"normal_force"`` and as the load of each output that divides by
    the normal force (a rolling body's ``"friction_ratio"``: a copy, the original unchanged)."""
    new = {**outputs, "normal_force": normal}
    for name, out in outputs.items():
        if isinstance(getattr(out, "normal", None), NormalForce):
            new[name] = copy.copy(out)
            new[name].normal = normal
    return new


def outputs_with_unknown_vertical(outputs: dict, how: str) -> dict:
    """``outputs`` of a system to which ``how`` (``"with_force"``, ``"with_potential"``) adds a force: a
    normal force derived from lifted bodies then warns at each evaluation that the added force's vertical
    part is not in it (a slope as an added potential gave m g, not m g cos(alpha), and a friction margin
    on the unsafe side); a normal force of kept rows only (multipliers, which count every force) is kept."""
    normal = outputs.get("normal_force")
    if not isinstance(normal, NormalForce) or not normal.lifted:
        return outputs
    flagged = copy.copy(normal)
    flagged.unknown_vertical = " and ".join(filter(None, [normal.unknown_vertical, how]))
    return outputs_with_normal(outputs, flagged)


def normal_force_output(system, normal, gravity=9.81, contacts=None) -> NormalForce:
    """The :class:`NormalForce` of ``system`` (:meth:`System.with_normal_force`), checked."""
    from .law_realization import contact_rows

    k = system.k
    if isinstance(normal, (int, np.integer, Lift)):
        normal = [normal]
    if not isinstance(normal, (list, tuple)):
        raise TypeError(f"normal must be a row index, a nonholo.contact.Lift or a list of them (one per contact), "
                        f"got {normal!r}")
    normal_rows = {int(x) for x in normal if isinstance(x, (int, np.integer))}
    if k == 0:
        tangential = [[] for _ in normal]
    elif contacts is None and system.contacts is None and len(normal) == 1:
        tangential = [[i for i in range(k) if i not in normal_rows]]  # one contact: every other row is its slip
    elif contacts is None and system.contacts is None and len(normal) != k:
        raise ValueError(f"normal has {len(normal)} entries for {k} constraint rows: give contacts= (the no-slip "
                         "rows of each contact)")
    else:
        tangential = [list(g) for g in (contact_rows(system, None, None) if contacts is None else contacts)]
    if len(tangential) != len(normal):
        raise ValueError(f"normal has {len(normal)} entries for {len(tangential)} contacts (contacts=)")
    for group in tangential:
        for r in group:
            if not 0 <= int(r) < k:
                raise ValueError(f"contacts: row {r} is not a constraint row of {system.name!r} (it has {k})")
    allowed = {*system.coordinates, *system.parameters}
    loads = []
    for c, item in enumerate(normal):
        if isinstance(item, Lift):
            bodies = [(system.resolve(m), system.resolve(z)) for m, z in item.bodies]
            for m, z in bodies:
                extra = (m.free_symbols | z.free_symbols) - allowed
                if extra:
                    raise ValueError(f"normal of contact {c}: a lifted body's mass or height uses "
                                     f"{sorted(map(str, extra))}, which are neither coordinates nor parameters")
            rows = item.rows
            applied = system.resolve(item.applied)
            extra = applied.free_symbols - {*allowed, *system.velocities, system.time}
            if extra:
                raise ValueError(f"normal of contact {c}: the applied force uses {sorted(map(str, extra))}, which are "
                                 "neither coordinates, velocities, time nor parameters")
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            rows = [int(item)]
        else:
            raise TypeError(f"normal of contact {c} must be a constraint-row index or a Lift, got {item!r}")
        for r in rows:
            if not 0 <= r < k:
                raise ValueError(f"normal of contact {c}: row {r} is not a constraint row of {system.name!r} "
                                 f"(it has {k})")
        loads.append(("lift", bodies, rows, applied) if isinstance(item, Lift) else ("row", int(item)))
    g = system.resolve(gravity_into_plane(gravity))
    if g.free_symbols - set(system.parameters):
        raise ValueError(f"gravity uses {sorted(map(str, g.free_symbols - set(system.parameters)))}, "
                         "which are not parameters of the system")
    A = sp.Matrix(system.constraints)
    return NormalForce(loads, tangential, g, (system.coordinates, system.velocities, (system.time,), system.parameters),
                       [list(A.row(i)) for i in range(k)])


def constraint_forces(system, q, v, t, p, acceleration) -> np.ndarray:
    """lambda at every sample (module docstring), shape (k, n_t), from the run's acceleration."""
    out = np.zeros((max(system.k, 1), np.asarray(t).size))
    if system.k == 0:
        return out
    for i, ti in enumerate(np.asarray(t, dtype=float)):
        at = system._core.at(float(ti), q[:, i], v[:, i], p)
        A, G = at.constraint_matrix(), at.metric()
        lam = np.asarray(at.multipliers(), dtype=float).reshape(-1)
        da = np.asarray(acceleration[:, i], dtype=float) - np.asarray(at.nonholonomic_acceleration()).reshape(-1)
        out[:, i] = lam + np.linalg.solve(A @ A.T, A @ (G @ da))
    return out
