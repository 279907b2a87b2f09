r"""Stick-slip with the set-valued Coulomb law: a hybrid model (``system.stick_slip(mu_s, mu_k, normal)``).

Each contact c of the system (its constraint rows grouped as ``system.contacts``, or one per row)
is in one of two modes:

- **stuck**: its rows hold as nonholonomic constraints and carry the multipliers lambda_c, while
  the needed force stays inside the friction cone, |lambda_c| <= mu_s N_c;
- **sliding**: its rows are dropped and the contact carries the kinetic Coulomb force
  z_c = -mu_k N_c s_c / |s_c| of its slip s_c = (A v - b)_c.

A mode is the tuple of the contacts' states; its vector field is an ordinary model (the system with
the stuck rows kept and the sliding ones realized by the law). The run (``nh.simulate``,
:mod:`nonholo.integrate.stick_slip`) switches a contact from stuck to sliding where |lambda_c| reaches
mu_s N_c, and from sliding to stuck where its slip s_c itself reaches zero (|s_c| -> 0, also when its
direction turns while it slides) with the needed force inside the cone; the state is continuous
across each switch. A run starts from any [q, v]: a contact whose slip is below the run's tolerance
starts stuck, that slip projected out by the model (G-orthogonally onto its rows), one with a larger
slip starts sliding. The model holds while every contact is pressed on its support: a run stops,
with status 1 and a SimulationWarning, where a normal load given as an expression of the state or
the time reaches zero (the contact lifts off), and one that starts with a negative load is refused.
Runs go forward in time only: a stick-slip motion has no unique past (a contact stuck at the end may
have stuck all along or slid until any earlier time).
A sliding contact's force is written -mu_k N (s + eta d) / |s + eta d| with d the direction in which
it started to slide and eta far below any slip the tolerances resolve (1e-14 of the velocity scale),
so that the force is defined at the instant sliding starts, where s = 0.

Contacts whose rows repeat one another (a mechanism's two wheels on one axle: both forbid its
sideways motion; ``system.contact_slip_rows``) each slip and slide on their own rows. A mode keeps,
of the stuck contacts' rows, an independent set (the second wheel's sideways row while both stick,
that wheel's own while only it sticks), and the force the stuck contacts share is split among them by
the rule of :class:`nonholo.system.contact_outputs.SharedRows`, in proportion to mu N_c along a
direction they share, for the cone test |f_c| <= mu_s N_c and the direction of a slide.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import options as check
from ..numerics import number_text

__all__ = ["StickSlipModel"]



def _coefficient_of(mu_s):
    """``mu_s``, or the mu of the set-valued Coulomb law given in its place (what that law is for);
    a law of another kind, or a regularized Coulomb law, is refused naming the argument."""
    from ..expressions.laws import Coulomb, Law

    if not isinstance(mu_s, Law):
        return mu_s
    if isinstance(mu_s, Coulomb) and mu_s.v_s is None:
        return float(mu_s.mu)
    raise ValueError(f"mu_s: stick_slip runs the set-valued Coulomb law, nh.laws.Coulomb(mu) with v_s=None, or takes "
                     f"the coefficients mu_s, mu_k; got the law {mu_s.name!r} (a law with a slip scale is "
                     "system.friction(law=...))")

class StickSlipModel:
    """The hybrid stick-slip model of a system (module docstring); run it with :func:`nonholo.simulate`.

    Attributes
    ----------
    system : System
    contacts : list of lists of int
        The constraint rows of each contact.
    mu_s, mu_k : float
        The static and kinetic friction coefficients (``mu_s`` may be the set-valued law
        ``nh.laws.Coulomb(mu)``, ``v_s=None``: its mu).
    normal : list
        The normal load of each contact (values or SymPy expressions, of the parameters or of the
        state: load transfer); a run stops where one reaches zero (the contact lifts off).
    state_names : list of str
        ``[q, v]``: every mode has the state of the unconstrained system.
    """

    def __init__(self, system, mu_s, mu_k=None, normal=None, contacts=None):
        from ..system.contact_outputs import slip_rows
        from ..system.law_realization import contact_groups, per_contact

        if system.k == 0:
            raise ValueError(f"{system.name!r} has no constraint rows: nothing sticks or slips")
        self.system = system
        mu_s = _coefficient_of(mu_s)
        if check.real_number(mu_s, "mu_s") == 0:  # the textbook limit, a model of its own
            raise ValueError("mu_s must be positive, got 0: a frictionless contact exerts no force along its rows, so "
                             "its motion is that of the system without them (build it with the other rows only, or "
                             "simulate the unconstrained system)")
        self.mu_s = check.positive(mu_s, "mu_s")
        self.mu_k = self.mu_s if mu_k is None else check.positive(mu_k, "mu_k")
        if self.mu_k > self.mu_s:
            raise ValueError(f"mu_k = {self.mu_k:g} must not exceed mu_s = {self.mu_s:g}")
        if normal is None:
            raise ValueError("stick_slip needs the normal load: give normal= (a value or expression, or one per "
                             "contact)")
        self.contacts = contact_groups(system, contacts, None)  # full rows (a mechanism's repeated ones included)
        self.record = slip_rows(system)
        self.normal = per_contact(normal, len(self.contacts), "normal", system)
        self.state_names = [*system.coordinate_names, *system.velocity_names]
        self.n_states = 2 * system.n
        self._modes = {}
        self._cache = {}  # the split of shared rows per mode and the slips of a mechanism's own rows, lambdified
        self.recipe = None

    def mode(self, stuck: tuple):
        """The model of one mode (``stuck[c]``: contact c sticks) and its parameters' names: the
        sliding directions ``slide_<c>_<i>``, the scale ``slide_eta`` and ``slide_stop``, the relative
        slip at which the run's stop events fire (:mod:`nonholo.integrate.stick_slip`)."""
        stuck = tuple(bool(x) for x in stuck)
        if stuck not in self._modes:
            self._modes[stuck] = self._build(stuck)
        return self._modes[stuck][0]

    def rows(self, stuck: tuple) -> list:
        """The constraint rows of mode ``stuck`` (full indices): an independent set of the stuck
        contacts' rows, then a mechanism's normal rows (constraints in every mode)."""
        from ..system.law_realization import normal_rows

        normal = [self.record.kept[i] for i in normal_rows(self.system)]
        held = [i for c, group in enumerate(self.contacts) if stuck[c] for i in group]
        if all(i in self.record.kept for i in held):
            return held + normal
        kept = self.record.independent(normal + held)
        return [i for i in kept if i not in normal] + normal

    def shares(self, stuck: tuple):
        """The :class:`~nonholo.system.contact_outputs.SharedRows` of the stuck contacts in mode ``stuck``."""
        self.mode(stuck)
        return self._modes[tuple(bool(x) for x in stuck)][1]

    def _build(self, stuck: tuple):
        from ..system.contact_outputs import SharedRows
        from ..system.law_realization import contact_force, full_rows_replaced

        system = self.system
        keep = self.rows(stuck)
        shares = SharedRows(self.record, keep, [g for c, g in enumerate(self.contacts) if stuck[c]])
        eta = sp.Symbol("slide_eta")
        parameters = {eta: 0.0, sp.Symbol("slide_stop"): 0.0}  # slide_stop: the run's stop events only
        sliding = {}
        for c, group in enumerate(self.contacts):
            if stuck[c]:
                continue
            d = [sp.Symbol(f"slide_{c}_{i}") for i in range(len(group))]
            parameters.update({x: 0.0 for x in d})

            def kinetic(s, c=c, d=d):  # -mu_k N (s + eta d) / |s + eta d|
                shifted = [x + eta * dx for x, dx in zip(s, d)]
                norm = sp.sqrt(sum(x**2 for x in shifted))
                return [-self.mu_k * self.normal[c] * x / norm for x in shifted]

            sliding[c] = (group, kinetic)
        force = contact_force(system, sliding)
        label = "".join("S" if s else "L" for s in stuck)  # stuck / sliding (loose) per contact
        model_system = full_rows_replaced(system, keep, force, parameters=parameters,
                                          name=f"{system.name} (stick-slip mode {label})")
        return model_system.nonholonomic(form="qdot"), shares

    def mode_params(self, stuck: tuple, params: dict, directions: dict, eta: float, stop: float = 0.0) -> dict:
        """The parameters of mode ``stuck``: ``params`` (those the mode's system has), the sliding
        directions ``directions`` {contact: unit vector}, the scale eta and ``slide_stop``."""
        names = set(self.mode(stuck).system.parameter_names)
        out = {k: v for k, v in params.items() if k in names}
        out["slide_eta"], out["slide_stop"] = eta, stop
        for c, d in directions.items():
            if not stuck[c]:
                out.update({f"slide_{c}_{i}": float(x) for i, x in enumerate(d)})
        return out

    def multipliers(self, stuck: tuple, t: float, y, params: dict) -> list:
        """The force of each stuck contact on its rows in mode ``stuck`` at state y (None for a sliding
        one): the multipliers of its rows, split among contacts that share a row (module docstring)."""
        model = self.mode(stuck)
        n = self.system.n
        lam = np.asarray(model.system.multipliers(y[:n], y[n:], t, params), dtype=float)
        shares = self.shares(stuck)
        if shares.dropped:
            forces = iter(self._split(stuck)(np.r_[np.asarray(y, dtype=float)[:2 * n], float(t),
                                                   self._parameters(params)], lam))
        else:
            position = {r: i for i, r in enumerate(shares.rows)}
            forces = iter([lam[[position[r] for r in g]] for g in shares.contacts])
        return [np.asarray(next(forces), dtype=float) if stuck[c] else None for c in range(len(self.contacts))]

    def _parameters(self, params: dict) -> list:
        names = self.system.parameter_names
        return [float(x) for x in self.system.param_vector({k: v for k, v in (params or {}).items() if k in names})]

    def _split(self, stuck: tuple):
        """(inputs [q, v, t, p], lambda) -> the stuck contacts' forces, lambdified once per mode."""
        key = ("split", tuple(bool(x) for x in stuck))
        if key not in self._cache:
            shares, system = self.shares(stuck), self.system
            lam = sp.symbols(f"_lambda0:{len(shares.rows)}")
            loads = [N for c, N in enumerate(self.normal) if stuck[c]]
            f = sp.lambdify([system._inputs, lam], shares.forces(lam, loads), "numpy")
            self._cache[key] = lambda x, m: [np.asarray(g, dtype=float) for g in f(list(x), list(m))]
        return self._cache[key]

    def slips(self, t: float, y, params: dict | None = None) -> list:
        """The slip s_c = (A v - b)_c of every contact at state y, with the system's parameters
        ``params`` (by name, defaults for the others; names the system does not have ignored)."""
        n = self.system.n
        if self.record is getattr(self.system, "contact_slip_rows", None):  # every contact on its own rows
            if "slips" not in self._cache:
                rows = self.record.slips(self.system.velocities)
                self._cache["slips"] = sp.lambdify(self.system._inputs, list(rows), "numpy")
            s = np.array(self._cache["slips"](*np.asarray(y, dtype=float)[:2 * n], float(t),
                                                 *self._parameters(params)), dtype=float)
            return [s[group] for group in self.contacts]
        names = set(self.system.parameter_names)
        A, b = self.system.constraint_matrix(y[:n], t, {k: v for k, v in (params or {}).items() if k in names})
        s = A @ np.asarray(y[n:]) - b
        return [s[group] for group in self.contacts]

    def loads(self, params: dict | None = None):
        """The normal loads as a function N(t, y) -> (n_contacts,) at the system's parameter values
        (``params`` by name, defaults for the others): values, parameters or expressions of the state
        (load transfer), one tape evaluated in C++."""
        from ..expressions.lowering import check_free_symbols, kept_tape, lower

        system = self.system

        def build():
            allowed = {*system.coordinates, *system.velocities, system.time, *system.parameters}
            for c, N in enumerate(self.normal):
                check_free_symbols([N], allowed, f"the normal load of contact {c}")
            return lower(list(self.normal), system._inputs).tape()

        tape = kept_tape(system, "normal loads", tuple(self.normal), build)
        names = system.parameter_names
        p = [float(x) for x in system.param_vector({k: v for k, v in (params or {}).items() if k in names})]

        def load(t, y):
            return tape(np.r_[np.asarray(y, dtype=float), float(t), p])
        return load

    def __repr__(self) -> str:
        return (f"<nonholo.StickSlipModel of {self.system.name!r}: mu_s={number_text(self.mu_s)}, "
                f"mu_k={number_text(self.mu_k)}, {len(self.contacts)} contact(s)>")

    def __reduce__(self):
        from .model import remade

        return remade(self)
