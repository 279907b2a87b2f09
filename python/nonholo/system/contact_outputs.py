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
  realized by a law (``system.friction(law=...)``), and on the nonholonomic, Hamel and reduced
  models the multipliers' |lambda_c| of the no-slip motion through the run's states (the force that
  rolling without slipping needs, G q'' + c + dV = F + A^T lambda);
- ``"normal_force"``: the normal load N_c given to ``system.friction(law=..., normal=...)``.

Each is an array of shape (n_t,) for a system of one contact and (contacts, n_t) otherwise. A
builder's own outputs of the same names take precedence (a body from
:func:`nonholo.contact.roll_on_plane` derives its normal force from its motion).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["CONTACT_QUANTITIES", "ContactOutput", "contact_quantity", "law_outputs"]

CONTACT_QUANTITIES = ("slip", "friction_force", "normal_force")


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
    A = sp.Matrix(system.constraints)
    slip = A * sp.Matrix(system.velocities) - sp.Matrix(system.affine)
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
        raise KeyError(f"{system.name!r} has no normal load: give normal= to system.friction(law=..., normal=...) "
                       "(result['normal_force'] of that model) or to system.friction_margin")
    if name == "friction_force" and getattr(model, "kind", None) == "vakonomic":
        raise KeyError("the vakonomic model has no friction force: its multipliers are not a contact force")
    points = [system._core.at(float(t[i]), q[:, i], v[:, i], p) for i in range(t.size)]
    if name == "slip" or getattr(model, "kind", None) == "friction":
        slip = np.array([at.constraint_matrix() @ v[:, i] - at.affine() for i, at in enumerate(points)]).T
        if name == "slip":
            return _per_contact(slip[order], sizes)
        eps = float(result.params["eps"])
        force = np.array([np.asarray(at.friction_coefficients()).reshape(system.k, system.k) @ slip[:, i]
                          for i, at in enumerate(points)]).T / eps
        return _per_contact(force[order], sizes)
    lam = np.array([at.multipliers() for at in points]).T.reshape(system.k, -1)
    return _per_contact(lam[order], sizes)

