r"""Contact-force margins: how far a rolling motion is from slipping or lifting off.

A constraint row of a contact carries the multiplier lambda of the Lagrange-d'Alembert equations
G v' + c + dV = F + A^T lambda: the force the contact must supply for the motion to roll without
slipping. With the contacts' rows grouped as ``system.contacts`` (or ``contacts=``) and N_c the
normal load of contact c, the margins are

- the friction-cone margin  mu N_c - |lambda_c|, positive while no slip needs less friction than
  there is (``system.friction_margin(mu)``), and
- the lift-off margin  N_c, positive while the body presses on its support
  (``system.liftoff_margin()``),

the smallest over the contacts. The normal load is ``normal=`` (a value or an expression of the
state and parameters, one for all contacts or one per contact), or, for a body built by
:func:`nonholo.contact.roll_on_plane`, its derived normal force N = m (z_G'' - g_z) (the output
``"normal_force"``, from the acceleration). Both margins are usable as :class:`nonholo.Event`
expressions, ``nh.Event(system.friction_margin(mu=0.3), terminal=True)``, located by CVODE's root
finding like any event (the multipliers and the acceleration are evaluated in C++ at each root
evaluation), and along a run by ``margin.of(result)``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import options as check

__all__ = ["Margin"]

KINDS = ("friction", "liftoff")


class Margin:
    """A contact-force margin of a system (module docstring): mu N_c - |lambda_c| or N_c, the
    smallest over the contacts.

    Attributes
    ----------
    system : System
    kind : {"friction", "liftoff"}
    mu : float or None
        The friction coefficient (``kind="friction"``).
    contacts : list of lists of int
        The constraint rows of each contact.
    normal : list of SymPy expressions, or None
        The normal load of each contact; None: the body's derived ``"normal_force"`` output.
    """

    def __init__(self, system, kind: str, mu=None, normal=None, contacts=None):
        from .law_realization import contact_rows, per_contact

        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if system.k == 0:
            raise ValueError(f"{system.name!r} has no constraint rows: no contact force, no margin")
        self.system, self.kind = system, kind
        self.mu = None if kind == "liftoff" else check.positive(mu, "mu")
        self.contacts = contact_rows(system, contacts, None)
        if normal is None:
            derived = system.outputs.get("normal_force")
            if derived is None or not getattr(derived, "needs_acceleration", False):
                raise ValueError(f"{system.name!r} derives no normal force: give normal= (a value or an expression of "
                                 "the state, or one per contact)")
            if len(self.contacts) != 1:
                raise ValueError("the derived normal force is that of one body on one contact: give normal= "
                                 "per contact")
            self.normal = None
        else:
            self.normal = per_contact(normal, len(self.contacts), "normal", system)
            allowed = {*system.coordinates, *system.velocities, system.time, *system.parameters}
            for c, N in enumerate(self.normal):
                extra = N.free_symbols - allowed
                if extra:
                    raise ValueError(f"normal of contact {c} depends on {sorted(map(str, extra))}, which are not "
                                     "coordinates, velocities, the time or parameters of the system")
        self._load = None

    def __repr__(self) -> str:
        what = f"friction margin mu N - |lambda|, mu = {self.mu:g}" if self.kind == "friction" else "lift-off margin N"
        return f"<nonholo.Margin: {what}, {len(self.contacts)} contact(s) of {self.system.name!r}>"

    # ------------------------------------------------------------------ evaluation
    def _tape(self):
        """The loads [N_c] as one tape of the inputs (q, v, t, p, q''), built on first use: the
        derived normal force m (z_G'' - g_z) written out, z_G'' = (d/dq (grad z_G . v)) v + grad z_G . q''."""
        if self._load is None:
            from ..expressions.lowering import lower

            system = self.system
            accel = list(sp.symbols(f"_margin_acc0:{system.n}"))
            if self.normal is None:
                mass, gravity, z = system.outputs["normal_force"].data[:3]
                q, v = sp.Matrix(system.coordinates), sp.Matrix(system.velocities)
                grad = sp.Matrix([z]).jacobian(q)
                z_dot = (grad * v)[0]
                z_ddot = (sp.Matrix([z_dot]).jacobian(q) * v)[0] + (grad * sp.Matrix(accel))[0]
                loads = [system.resolve(mass * (z_ddot - gravity[2]))]
            else:
                loads = list(self.normal)
            self._load = lower(loads, [*system._inputs, *accel]).tape()
        return self._load

    def _value(self, q, v, t: float, p: list, acceleration) -> float:
        """The margin at one state, with the system's parameter vector p (floats)."""
        a = np.zeros(self.system.n) if acceleration is None else acceleration
        N = self._tape()(np.r_[q, v, t, p, a])
        if self.kind == "liftoff":
            return float(N.min())
        lam = self.system._core.at(float(t), q, v, p).multipliers()
        return float(min(self.mu * N[c] - np.linalg.norm(lam[rows]) for c, rows in enumerate(self.contacts)))

    def value(self, q, v, t, params: dict | None = None, acceleration=None) -> float:
        """The margin at one state (q, v) at time t, with the system's parameters ``params`` (by name,
        defaults for those left out) and, for a derived normal force, the acceleration q''."""
        from .arguments import point_argument

        n = self.system.n
        q, v = point_argument(q, n, "q"), point_argument(v, n, "v")
        if self.normal is None and acceleration is None:
            raise ValueError("the derived normal force needs the acceleration: give acceleration= (q'')")
        a = None if acceleration is None else point_argument(acceleration, n, "acceleration")
        return self._value(q, v, check.finite_float(t, "t"), self._parameter_vector(params or {}), a)

    def of(self, result) -> np.ndarray:
        """The margin at every output time of a run (a :class:`~nonholo.SimulationResult` of a model of
        this system), shape (n_t,)."""
        p = self._parameter_vector(result.params)
        q, v = np.asarray(result.q, dtype=float), np.asarray(result.velocity, dtype=float)
        a = result.acceleration() if self.normal is None else np.zeros_like(v)
        return np.array([self._value(q[:, i], v[:, i], float(t), p, a[:, i]) for i, t in enumerate(result.t)])

    def _parameter_vector(self, params: dict) -> list:
        """The system's parameter vector: the values of ``params`` it has, else its defaults."""
        names = self.system.parameter_names
        return [float(x) for x in self.system.param_vector({k: v for k, v in params.items() if k in names})]

    def event_function(self, model, params: dict):
        """g(t, y) on the states of ``model`` (a model of this system) with its parameters ``params``
        (by name): the margin at the state's (q, q'), the acceleration from the model's right-hand
        side when its state is [q, v], else from the nonholonomic model at (q, q')."""
        system, n = self.system, self.system.n
        if model.system.coordinate_names != system.coordinate_names:
            raise ValueError(f"the margin's system {system.name!r} has other coordinates than the model's "
                             f"({model.system.coordinate_names}): build the margin from the system of the model")
        own = model.state_names[: 2 * n] == [*system.coordinate_names, *system.velocity_names] \
            and model.n_states == 2 * n
        p_sys = self._parameter_vector(params)
        derived = self.normal is None
        self._tape()
        if own:
            p = model.param_vector(params)
            core = model.core

            def g(t, y):
                y = np.asarray(y, dtype=float)
                a = core.rhs(float(t), y, p)[n:] if derived else None
                return self._value(y[:n], y[n:], float(t), p_sys, a)
            return g
        nonholonomic = system.nonholonomic(form="qdot")
        p_nh = nonholonomic.param_vector(dict(zip(system.parameter_names, p_sys)))

        def g(t, y):
            y = np.asarray(y, dtype=float)
            v = np.asarray(model.velocity(t, y, params), dtype=float).reshape(n)
            a = nonholonomic.core.rhs(float(t), np.r_[y[:n], v], p_nh)[n:] if derived else None
            return self._value(y[:n], v, float(t), p_sys, a)
        return g
