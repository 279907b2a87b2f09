r"""The friction model of laws with a relaxation length: a deflection state per slip component.

A tire law of the slip angle :math:`\arctan(s / V)` divides by the rolling speed :math:`V`, and
builds its force at once. With a relaxation length :math:`\sigma` (``MagicFormula(...,
relaxation_length=sigma)``), Pacejka's first-order transient tire, each slip component :math:`s_i` of a
contact carries a deflection :math:`a_i` (a length) that lags behind it over the rolled distance
:math:`\sigma_i`,

.. math::
    a_i' = s_i - \lvert V \rvert\, a_i / \sigma_i,

and the contact's force is the law's at the slip :math:`V a / \sigma`, that is at the transient slip
angle :math:`\arctan(a_i / \sigma_i)` (:meth:`Law.relaxed_force`), which no longer divides by
:math:`V`. At a steady slip :math:`a_i = \sigma_i s_i / \lvert V \rvert` and the force is the
steady law's; at :math:`V = 0` the tire is a spring that holds a side load.

The deflections are first-order states of the friction model. They enter the unconstrained
:class:`~nonholo.System` of the realization exactly, as the velocities of auxiliary coordinates
``deflection_<row>_integral`` (unit mass, no potential, the generalized force :math:`a_i'` on
each): a coordinate whose velocity is :math:`a_i` and whose acceleration is :math:`a_i'`. The
model's state is ``[q, integrals, v, a]``; a ``y0`` of the original ``[q, v]`` starts every tire
undeflected (``nh.simulate`` fills the zeros). The model's ``energy`` is the mechanical one, the
original system's: the auxiliary kinetic energy :math:`\tfrac12 \lVert a \rVert^2` is left out.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .contact_outputs import law_outputs

__all__ = ["relaxed_system", "lag_states", "expand_initial_state"]


class _Original:
    """An output of the original system (n coordinates), evaluated on the augmented one's (``total``):
    every array argument of ``total`` rows (coordinates, velocities, accelerations) cut to its first
    ``n``; its other attributes forwarded."""

    def __init__(self, output, n: int, total: int):
        self.output, self.n, self.total = output, n, total

    def __getattr__(self, name):
        if name in ("output", "n", "total"):
            raise AttributeError(name)
        return getattr(self.output, name)

    def __call__(self, *args, **kwargs):
        cut = [x[: self.n] if isinstance(x, np.ndarray) and x.ndim and x.shape[0] == self.total else x
               for x in (np.asarray(a) if isinstance(a, (list, tuple, np.ndarray)) else a for a in args)]
        return self.output(*cut, **kwargs)


def _fresh(system, base: str) -> str:
    """``base``, or ``base`` with a numeric suffix, not a name of ``system``."""
    taken = {str(s) for s in (*system.coordinates, *system.velocities, system.time, *system.parameters)}
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    return name


def relaxed_system(system, groups: list, laws: dict, forces: list, loads: list, speeds: list, slip, name: str):
    """The unconstrained system of ``system`` realized by ``laws`` (some with a relaxation length):
    ``forces[c]`` the static force of a contact without relaxation (None for a relaxed one), the
    deflections' coordinates and velocities appended. Returns the system; its attribute
    ``lag_states`` is the number of deflections."""
    from .law_realization import contact_force, normal_rows, replaced_state

    integrals, deflections, rates = [], [], []
    forces = list(forces)
    for c, rows in enumerate(groups):
        law = laws[c]
        if law.relaxation_length is None:
            continue
        a = []
        for i in rows:
            base = _fresh(system, f"deflection_{i}")
            integrals.append(sp.Symbol(f"{base}_integral"))
            a.append(sp.Symbol(base, real=True))
        deflections += a
        forces[c] = list(law.relaxed_force(a, loads[c], speeds[c]))
        rates += law.deflection_rates(a, [slip[i] for i in rows], speeds[c])
    m, n = len(deflections), system.n
    force = contact_force(system, {c: (rows, lambda s, c=c: forces[c]) for c, rows in enumerate(groups)})
    state = replaced_state(system, normal_rows(system), force, name=name)  # as without relaxation
    metric = sp.zeros(n + m, n + m)
    metric[:n, :n] = sp.Matrix(system.metric)
    metric[n:, n:] = sp.eye(m)
    coordinates, velocities = [*system.coordinates, *integrals], [*system.velocities, *deflections]
    state.update(coordinates=coordinates, velocities=velocities, metric=sp.ImmutableMatrix(metric),
                 force=state["force"].col_join(sp.Matrix(rates)))
    if state["constraints"] is not None:  # a mechanism's normal rows, kept: free of the deflections
        A = sp.Matrix(state["constraints"])
        state["constraints"] = sp.ImmutableMatrix(A.row_join(sp.zeros(A.rows, m)))
    if state["applied_force"] is not None:
        state["applied_force"] = state["applied_force"].col_join(sp.Matrix(rates))
    own = {key: _Original(value, n, n + m) for key, value in (state.get("outputs") or {}).items()}
    args = (coordinates, velocities, (system.time,), system.parameters)
    state["outputs"] = {**law_outputs(system, groups, forces, loads, args), **own}
    rebuilt = system._rebuilt(state)
    rebuilt.lag_states = m
    return rebuilt


def lag_states(system) -> int:
    """The number of deflection states of a system realized by relaxed laws (0 for any other)."""
    return int(getattr(system, "lag_states", 0) or 0)


def expand_initial_state(model, y0: np.ndarray) -> np.ndarray:
    """``y0`` of the original system's ``[q, v]`` as the state ``[q, 0, v, 0]`` of a model with
    deflection states (any other ``y0`` unchanged)."""
    m = lag_states(model.system)
    n = model.system.n - m
    if m == 0 or y0.ndim != 1 or y0.shape[0] != 2 * n:
        return y0
    return np.concatenate([y0[:n], np.zeros(m), y0[n:], np.zeros(m)])
