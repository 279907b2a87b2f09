r"""Contact-force margins: how far a rolling motion is from slipping or lifting off.

A constraint row of a contact carries the multiplier lambda of the Lagrange-d'Alembert equations
G v' + c + dV = F + A^T lambda: the force the contact must supply for the motion to roll without
slipping. With the contacts' rows grouped as ``system.contacts`` (or ``contacts=``) and N_c the
normal load of contact c, the margins are

- the friction-cone margin  mu N_c - |lambda_c|, positive while no slip needs less friction than
  there is (``system.friction_margin(mu)``), and
- the lift-off margin  N_c, positive while the body presses on its support
  (``system.liftoff_margin()``),

the smallest over the contacts (lambda_c the contact's force on its own rows: where contacts share a
row, a mechanism's two wheels on one axle, the multiplier of that row split among them in proportion
to mu N_c, :class:`nonholo.system.contact_outputs.SharedRows`). The normal load is ``normal=`` (a
value or an expression of the state and parameters, one for all contacts or one per contact), or,
for a body built by :func:`nonholo.contact.roll_on_plane` or a system from
:meth:`System.with_normal_force`, the
derived normal force of each contact (the output ``"normal_force"``, from the acceleration and the
multipliers: :mod:`nonholo.system.normal_forces`). Both margins are usable as :class:`nonholo.Event`
expressions, ``nh.Event(system.friction_margin(mu=0.3), terminal=True)``, located by CVODE's root
finding like any event, and along a run by ``margin.of(result)``.

The margin is that of the no-slip motion through the state (q, v): lambda and the acceleration
q'' (for the derived normal force) are those of the nonholonomic model at (q, v), whatever model
runs. On the nonholonomic model that is the run's own contact force; on a friction model (or a
reduced one) the force that rolling without slipping would need at the run's states. Written as
one tape of [q, v, t, p, q'', lambda], the event is evaluated in C++ on every model of the system
(``EventSpec.dynamics``); on a model of the system realized by a friction law (which has no rows),
by a callback that evaluates the same tape.

A normal load given as an expression of the state or the time (load transfer, lift: N = m g cos(a)
- c x'^2) may reach zero along a run: the contact lifts off, and a friction model, which presses it
on its support, no longer holds (beyond it the force -mu N s/|s| would push along the slip). Every
model whose contacts carry such a load stops there: the stick-slip model
(:mod:`nonholo.integrate.stick_slip`) and a system realized by friction laws,
``system.friction(law=..., normal=...)``, whose loads :func:`nonholo.system.law_realization.realized_by`
records as ``system.contact_loads``. ``nh.simulate`` adds one terminal event per such load,
N_c falling through zero (:func:`load_specs`), and where one fires the run ends there with status 1,
``flag_name`` ``"NORMAL_LOAD_NEGATIVE"``, the message "the normal load of contact c reached zero at
t = ..." and a SimulationWarning (:func:`stopped_by_load`), as a reduced law model stops at the fold
of its slow manifold; a run that starts with a negative load is refused (:func:`loads_at_start`).

A rolling body's surface whose support map holds on a domain d(q) > 0 only (``system.contact_domains``:
a disc lying flat, a paraboloid's bowl tilted 90 degrees) ends every run the same way where d(q)
falls to DOMAIN_TOL, flag_name ``"SURFACE_DOMAIN"`` (:func:`domain_message`); a run known at its
nodes only (``nh.simulate_discrete``) stops at the last node inside (:func:`domain_exit`). The loads,
speeds and domains are expressions of [q, q', t, p], evaluated at the state's physical velocity on a
model whose state holds another (``frame.hamel()``'s [q, w]: :func:`state_velocity`; the core's events
map it alike).
"""

from __future__ import annotations

import warnings

import numpy as np
import sympy as sp

from .. import options as check
from ..errors import SimulationWarning
from ..expressions.lowering import check_free_symbols, kept_tape, lower

__all__ = ["Margin", "warn_at_start", "varying_loads", "load_specs", "loads_at_start", "stopped_by_load",
           "batch_stopped_by_load", "negative_load_message", "negative_speed_message", "domain_exit", "domain_message",
           "state_velocity", "LOAD_FLAG", "SPEED_FLAG", "DOMAIN_FLAG", "DOMAIN_TOL"]

LOAD_FLAG = "NORMAL_LOAD_NEGATIVE"  # the flag_name of a run stopped where a normal load reached zero
SPEED_FLAG = "ROLLING_SPEED_NEGATIVE"  # ... where a tire law's rolling speed reached zero
DOMAIN_FLAG = "SURFACE_DOMAIN"  # ... where a rolling body's surface left its support map's domain
DOMAIN_TOL = 1e-6  # the domain's edge: a disc 1e-3 rad from flat, a bowl tilted to within 1e-6 of 90 degrees

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
        The constraint rows of each contact (a mechanism's own rows of each, repeated ones included,
        where its contacts repeat rows: ``system.contact_slip_rows``).
    shares : SharedRows or None
        Each contact's force from the multipliers (``None`` for the lift-off margin).
    normal : list of SymPy expressions, or None
        The normal load of each contact; None: the body's derived ``"normal_force"`` output.
    """

    def __init__(self, system, kind: str, mu=None, normal=None, contacts=None, shares=None):
        from .contact_outputs import SharedRows, slip_rows
        from .law_realization import contact_groups, per_contact

        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        if not (hasattr(system, "k") and hasattr(system, "constraints")):
            raise TypeError(f"system must be a nonholo.System, got {type(system).__name__}")
        if system.k == 0:
            raise ValueError(f"{system.name!r} has no constraint rows: no contact force, no margin")
        self.system, self.kind = system, kind
        self.mu = None if kind == "liftoff" else check.positive(mu, "mu")
        record = getattr(system, "contact_slip_rows", None)
        if normal is None:
            derived = system.outputs.get("normal_force")
            if derived is None or not hasattr(derived, "expressions"):
                raise ValueError(f"{system.name!r} derives no normal force: give normal= (a value or an expression of "
                                 "the state, or one per contact), or build it with system.with_normal_force")
            derived.check_system(system)
            getattr(derived, "warn_unknown_vertical", lambda: None)()  # a force added after it was derived
            own = contacts is not None or record is not None  # a mechanism's contacts: every one on its own rows
            self.contacts = contact_groups(system, contacts, None) if own else derived.tangential
            if len(self.contacts) != len(derived.loads):
                raise ValueError(f"contacts has {len(self.contacts)} contacts, the derived normal force "
                                 f"{len(derived.loads)}: give one contact per normal force, or normal=")
            self.normal = None
        else:
            self.contacts = contact_groups(system, contacts, None) if shares is None else shares.contacts
            self.normal = per_contact(normal, len(self.contacts), "normal", system)
            allowed = {*system.coordinates, *system.velocities, system.time, *system.parameters}
            for c, N in enumerate(self.normal):
                check_free_symbols([N], allowed, f"normal of contact {c}")
        # each contact's force on its own rows from the system's multipliers (shared rows split: contact_outputs)
        self.shares = shares if shares is not None or kind == "liftoff" else \
            SharedRows(slip_rows(system), slip_rows(system).kept, self.contacts)
        self._tape = None

    def __getstate__(self) -> dict:
        """Its state without the built tape (a C++ object, rebuilt on first use): a margin, or an Event of
        one, pickled after a run (to a process pool's workers) raised "cannot pickle 'nonholo._core.Tape'"."""
        return {**self.__dict__, "_tape": None}

    def __repr__(self) -> str:
        what = f"friction margin mu N - |lambda|, mu = {self.mu:g}" if self.kind == "friction" else "lift-off margin N"
        return f"<nonholo.Margin: {what}, {len(self.contacts)} contact(s) of {self.system.name!r}>"

    # ------------------------------------------------------------------ evaluation
    def expression(self) -> tuple:
        """(g, inputs): the margin as a SymPy expression of the inputs [q, v, t, p, q'', lambda], the
        acceleration and the multipliers of the no-slip motion; the smallest of the contacts' terms
        as min(a, b) = (a + b - |a - b|) / 2."""
        system = self.system
        accel = list(sp.symbols(f"_margin_acceleration0:{system.n}"))
        lam = list(sp.symbols(f"_margin_lambda0:{system.k}"))
        if self.normal is None:  # the multipliers of the vertical constraints (nonholo.system.normal_forces)
            loads = [system.resolve(N) for N in system.outputs["normal_force"].expressions(accel, lam)]
        else:
            loads = list(self.normal)
        if self.kind == "liftoff":
            terms = loads
        else:
            terms = [self.mu * N - sp.sqrt(sum(f**2 for f in force)) for N, force in zip(loads, self.shares.forces(
                lam, loads))]
        g = terms[0]
        evaluate = self.shares is None or not self.shares.dropped  # a split's long terms: |.| left unexpanded
        for term in terms[1:]:
            g = (g + term - sp.Abs(g - term, evaluate=evaluate)) / 2
        return g, [*system._inputs, *accel, *lam]

    def tape(self):
        """The margin as a tape of [q, v, t, p, q'', lambda] (:meth:`expression`), built on first use:
        the event that ``nh.simulate`` evaluates in C++ (``EventSpec.dynamics``). The system keeps the
        tapes of its margins by kind, mu, normal loads and contacts (``kept_tape``): a margin made again
        in every run of a sweep is lowered once."""
        if self._tape is None:
            from ..expressions.lowering import kept_tape, lower

            def build():
                g, inputs = self.expression()
                return lower([g], inputs).tape()

            key = (self.kind, self.mu, None if self.normal is None else tuple(self.normal),
                   tuple(tuple(rows) for rows in self.contacts), None if self.shares is None else self.shares.key)
            self._tape = kept_tape(self.system, "margin", key, build)
        return self._tape

    def _value(self, q, v, t: float, p: list) -> float:
        """The margin at one state, with the system's parameter vector p (floats)."""
        at = self.system._core.at(t, q, v, p)
        a, lam = at.nonholonomic_acceleration(), at.multipliers()
        return float(self.tape()(np.r_[q, v, t, p, a, lam])[0])

    def value(self, q, v, t: float | None = None, params: dict | None = None) -> float:
        """The margin at one state (q, v) at time t, with the system's parameters ``params`` (by name,
        defaults for those left out)."""
        from .arguments import point_argument, time_argument

        n = self.system.n
        q, v = point_argument(q, n, "q"), point_argument(v, n, "v")
        self.system.param_vector(params or {})  # unknown names and bad values refused
        return self._value(q, v, time_argument(self.system._core, t), self._parameter_vector(params or {}))

    def of(self, result) -> np.ndarray:
        """The margin at every output time of a run (a :class:`~nonholo.SimulationResult` of a model of
        this system, or of the same coordinates), shape (n_t,)."""
        if not all(hasattr(result, a) for a in ("t", "q", "velocity", "params")):
            raise TypeError(f"result must be a SimulationResult of a model of {self.system.name!r}, got "
                            f"{type(result).__name__}")
        p = self._parameter_vector(result.params)
        q, v = np.asarray(result.q, dtype=float), np.asarray(result.velocity, dtype=float)
        return np.array([self._value(q[:, i], v[:, i], float(t), p) for i, t in enumerate(result.t)])

    def _parameter_vector(self, params: dict) -> list:
        """The system's parameter vector: the values of ``params`` it has, else its defaults."""
        names = self.system.parameter_names
        return [float(x) for x in self.system.param_vector({k: v for k, v in params.items() if k in names})]

    def at_start(self, model, t0: float, y0, params: dict) -> str | None:
        """A warning when the margin is not positive at the start of a run of ``model`` (its event
        reports only later crossings of zero: a run that starts outside the cone would say nothing),
        else None."""
        n = self.system.n
        y0 = np.asarray(y0, dtype=float)
        own = model.state_names[: 2 * n] == [*self.system.coordinate_names, *self.system.velocity_names]
        v = y0[n: 2 * n] if own else np.asarray(model.velocity(t0, y0, params), dtype=float).reshape(n)
        g = self._value(y0[:n], v, float(t0), self._parameter_vector(params))
        if g > 0:
            return None
        what = ("rolling without slipping needs more friction than mu N" if self.kind == "friction" and g < 0
                else "the contact is on the edge of its cone (rolling needs exactly mu N, none without a load)"
                if self.kind == "friction" else "the normal force is not positive (the body would lift off)")
        return (f"the {'friction-cone' if self.kind == 'friction' else 'lift-off'} margin is {g:.6g} <= 0 at the "
                f"start (t = {t0:g}): {what} from the start; its event reports only later crossings of zero")

    def event(self, model, params: dict, direction: int, terminal: int) -> tuple:
        """The event spec of ``nh.simulate`` on ``model`` with its parameters ``params`` (by name): the
        tape of [q, v, t, p, q'', lambda] evaluated in C++ when the model is one of this system (its
        no-slip acceleration and multipliers at each state); else (a model of the system realized by
        a friction law, without the rows) a callback g(t, y) that evaluates them here at the
        state's (q, q')."""
        system, n = self.system, self.system.n
        if model.system is system:
            return (self.tape(), direction, terminal, True)
        if model.system.coordinate_names != system.coordinate_names:
            raise ValueError(f"the margin's system {system.name!r} has other coordinates than the model's "
                             f"({model.system.coordinate_names}): build the margin from the system of the model")
        own = model.state_names[: 2 * n] == [*system.coordinate_names, *system.velocity_names] \
            and model.n_states == 2 * n
        p = self._parameter_vector(params)
        self.tape()

        def g(t, y):
            y = np.asarray(y, dtype=float)
            v = y[n: 2 * n] if own else np.asarray(model.velocity(t, y, params), dtype=float).reshape(n)
            return self._value(y[:n], v, float(t), p)
        return (g, direction, terminal)


def warn_at_start(result, events, t0: float, y0) -> None:
    """A margin event whose margin is not positive at t0 never fires there: a warning says so (and
    ``result.warnings`` holds it)."""
    for ev in events if isinstance(events, (list, tuple)) else [] if events is None else [events]:
        margin = getattr(ev, "expr", ev)
        if isinstance(margin, Margin) and (message := margin.at_start(result.model, t0, y0, result.params)):
            result.warnings.append(message)
            warnings.warn(message, SimulationWarning, stacklevel=3)


# ------------------------------------------------------------------ normal loads that reach zero
def varying_loads(system, loads) -> list:
    """The contacts whose normal load ``loads[c]`` (expressions, None for a contact without one)
    changes along a run: an expression of the coordinates, the velocities or the time."""
    moving = {*system.coordinates, *system.velocities, system.time}
    return [c for c, N in enumerate(loads or ()) if N is not None and sp.sympify(N).free_symbols & moving]


def negative_load_message(c: int, t: float) -> str:
    """The message of a run stopped where the normal load of contact ``c`` reached zero at ``t``."""
    return (f"the normal load of contact {c} reached zero at t = {t:.6g} (negative after it), where the run stopped: "
            "the contact lifts off its support and the friction model no longer holds (beyond it the friction force "
            "-mu N s/|s| would push along the slip); model the flight, or give a load that stays positive")


def _load_tape(system, loads: list):
    """The loads as one tape of the system's inputs [q, v, t, p] (kept by the system)."""
    def build():
        return lower([sp.sympify(N) for N in loads], system._inputs).tape()
    return kept_tape(system, "normal loads", tuple(loads), build)


def _recorded(model, attribute: str):
    """The contacts' loads or speeds a model's law uses: the model's own (a reduced model of a law
    records those of its law, its system none), else its system's (a system realized by a law)."""
    own = getattr(model, attribute, None)
    return own if own is not None else getattr(model.system, attribute, None)


def _limits(model) -> list:
    """(kind, contact, expression) of every quantity of a law's contact that must stay positive and
    changes along a run: the normal loads (``contact_loads``), then the rolling speeds of tire laws
    (``contact_speeds``: their slip angle atan(s / V) holds for V > 0), the model's or its system's."""
    system = model.system
    out = []
    for kind, attribute in (("load", "contact_loads"), ("speed", "contact_speeds")):
        values = _recorded(model, attribute)
        out += [(kind, c, sp.sympify(values[c])) for c in varying_loads(system, values)]
    # a rolling body's surface: its support map holds while d(q) > 0; the run stops at DOMAIN_TOL
    out += [("domain", c, sp.sympify(d) - DOMAIN_TOL) for c, (d, _) in enumerate(getattr(system, "contact_domains",
                                                                                        None) or ())]
    return out


def domain_message(system, c: int, t: float) -> str:
    """The message of a run stopped where a rolling body's surface left the domain of its support map."""
    what = system.contact_domains[c][1]
    return (f"the run stopped at t = {t:.6g}: {what}, where the contact with the plane is no longer defined by "
            "the body's surface (the rolling model ends there)")


def domain_exit(system, t, y, p) -> tuple | None:
    """(i, c): where a trajectory of ``system`` known at samples only (times ``t`` (N,), states ``y`` whose
    rows start [q, q'], the parameter vector ``p``; the nodes of ``nh.simulate_discrete``) leaves the
    domain of a rolling body's surface (``system.contact_domains``): i the first sample not inside, or the
    end of the first step that left it between its samples; c the contact whose margin d_c(q) - DOMAIN_TOL
    is not positive there. None where the whole trajectory stays inside, or the system records no domain.

    Between two samples the margin is the cubic Hermite interpolant of its values and rates
    d' = grad_q d . q' + d_t at them: a disc that passes through lying flat between two nodes touches
    d = 0 there (d = cos(lean)^2, about c (t - t*)^2, which the cubic reproduces) while d stays positive at
    both nodes. A continuous run's event stops it where the margin reaches zero (:func:`load_specs`)."""
    domains = getattr(system, "contact_domains", None) or ()
    t = np.asarray(t, dtype=float).reshape(-1)
    if not domains or not t.size:
        return None
    n = system.n
    exprs = tuple(sp.sympify(d) for d, _ in domains)
    rates = [sum((sp.diff(d, x) * v for x, v in zip(system.coordinates, system.velocities)), sp.diff(d, system.time))
             for d in exprs]
    inputs = [*system.coordinates, *system.velocities, system.time, *system.parameters]
    f = kept_tape(system, "domain functions", exprs, lambda: sp.lambdify(inputs, [*exprs, *rates], "numpy"))
    y = np.asarray(y, dtype=float)
    values = f(*y[: 2 * n], t, *np.asarray(p, dtype=float)[: len(system.parameters)])
    values = np.array([np.broadcast_to(np.asarray(x, dtype=float), t.shape) for x in values])
    d, rate = values[: len(exprs)] - DOMAIN_TOL, values[len(exprs):]
    outside = ~(d > 0)  # NaN (a support map undefined there) is outside too
    outside[:, 1:] |= _dips_between(d, rate, np.diff(t))
    hit = np.flatnonzero(outside.any(axis=0))
    if not hit.size:
        return None
    i = int(hit[0])
    return i, int(np.flatnonzero(outside[:, i])[0])


def _dips_between(d, rate, h) -> np.ndarray:
    """(contacts, N - 1): True where the cubic Hermite interpolant of the margins d (contacts, N) with
    rates ``rate`` over the steps ``h`` (N - 1,) falls to zero or below inside a step."""
    d0, d1, m0, m1 = d[:, :-1], d[:, 1:], rate[:, :-1] * h, rate[:, 1:] * h
    # p(s) = d0 + m0 s + b s^2 + c s^3 on s in [0, 1]; p'(s) = m0 + 2 b s + 3 c s^2
    b, c = 3 * (d1 - d0) - 2 * m0 - m1, 2 * (d0 - d1) + m0 + m1
    dips = np.zeros(d0.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.maximum(b * b - 3 * c * m0, 0.0))
        for s in ((-b + root) / (3 * c), (-b - root) / (3 * c), -m0 / (2 * b)):  # -m0 / 2b: c = 0
            inside = np.isfinite(s) & (s > 0) & (s < 1)
            value = d0 + s * (m0 + s * (b + s * c))
            dips |= inside & ~(value > 0)
    return dips


def negative_speed_message(c: int, t: float) -> str:
    """The message of a run stopped where the rolling speed of contact ``c`` reached zero at ``t``."""
    return (f"the rolling speed of contact {c} reached zero at t = {t:.6g}, where the run stopped: the tire law's "
            "slip angle atan(s / V) holds for a tire rolling forward, V > 0 (beyond it the law's force would push "
            "along the slip); for a vehicle that reverses give the speed's magnitude, e.g. speed=-u backwards")


def load_specs(model, backward: bool = False) -> list:
    """The core's event specs of ``model``: one terminal event per contact whose normal load or
    rolling speed, as its system records them (``system.contact_loads``, ``system.contact_speeds``,
    of a system realized by friction laws), changes along a run, falling through zero in the run's
    direction (module docstring; ``backward``: a run to an earlier time, where falling is rising in
    t); [] for any other model."""
    system = model.system
    specs = []
    for _, _, expr in _limits(model):
        tape = kept_tape(system, "event", expr, lambda e=expr: lower([e], system._inputs).tape())
        specs.append((tape, 1 if backward else -1, 1, False, True))  # watched: "auto" stays with DOP853 where it would
    return specs


def state_velocity(model, t: float, y, p) -> np.ndarray:
    """The physical velocity q' of the state ``y`` of ``model`` (``p`` its parameter vector): the state's
    velocity block where the state is [q, q', ...], else the model's map (a model in quasi-velocities,
    ``frame.hamel()``, whose state [q, w] is shorter than [q, q']; Kane's speeds)."""
    system, n = model.system, model.system.n
    y = np.asarray(y, dtype=float)
    if list(model.state_names[: 2 * n]) == [*system.coordinate_names, *system.velocity_names]:
        return y[n: 2 * n]
    params = dict(zip(model.param_names, np.asarray(p, dtype=float).tolist()))
    return np.asarray(model.velocity(float(t), y, params), dtype=float).reshape(n)


def loads_at_start(model, t0: float, y0, p) -> None:
    """ValueError when a normal load that ``model``'s system records (``system.contact_loads``) is
    negative at the start, a tire law's rolling speed not positive, or a rolling body's attitude outside
    its surface's domain (their events report only later crossings of zero); ``p`` the model's
    parameter vector (the system's first). The loads and speeds are evaluated at the state's physical
    velocity (:func:`state_velocity`: also for a model in quasi-velocities, as the core's events)."""
    system = model.system
    limits = [(kind, c, expr) for kind, attribute in (("load", "contact_loads"), ("speed", "contact_speeds"))
              for c, expr in enumerate(_recorded(model, attribute) or ()) if expr is not None]
    limits += [("domain", c, d) for c, (d, _) in enumerate(getattr(system, "contact_domains", None) or ())]
    if not limits:
        return
    n = system.n
    y0 = np.asarray(y0, dtype=float)
    with np.errstate(all="ignore"):
        velocity = state_velocity(model, t0, y0, p)
    if not np.all(np.isfinite(velocity)) and y0.size == 2 * n:
        # a law's reduced model: its velocity u + s needs the law's slip, which a negative load leaves undefined
        velocity = y0[n:]
    inputs = np.r_[y0[:n], velocity, float(t0),
                   np.asarray(p, dtype=float)[: len(system.parameters)]]
    values = _load_tape(system, [expr for _, _, expr in limits])(inputs)
    for (kind, c, _), x in zip(limits, np.atleast_1d(values)):
        if kind == "load" and x < 0:
            raise ValueError(f"y0: the normal load of contact {c} is N = {x:.6g} < 0 at the start (t = {t0:g}): the "
                             "contact is lifted off, where the friction model does not hold (-mu N s/|s| would push "
                             "along the slip)")
        if kind == "domain" and not x > DOMAIN_TOL:
            raise ValueError(f"y0: the body's attitude is outside its surface's domain at the start (t = {t0:g}): "
                             f"{system.contact_domains[c][1]}, where the contact with the plane is not defined")
        if kind == "speed" and not x > 0:
            raise ValueError(f"y0: the rolling speed of contact {c} is V = {x:.6g} <= 0 at the start (t = {t0:g}): the "
                             "tire law's slip angle atan(s / V) holds for V > 0; for a vehicle that reverses give the "
                             "speed's magnitude, e.g. speed=-u backwards")


def stopped_by_load(result, count: int, stacklevel: int = 3, warn: bool = True) -> bool:
    """Take the first ``count`` events of ``result`` (those of :func:`load_specs`) out of its
    ``t_events`` and ``y_events``; where one of them stopped the run, say so: flag_name
    LOAD_FLAG, the message, ``y_final`` the state there, and a SimulationWarning (kept in
    ``result.warnings``; ``warn=False``: kept only). True when it stopped the run."""
    if not count or not len(result.t_events):  # a run rejected at its start has no events
        return False
    times, states = result.t_events[:count], result.y_events[:count]
    del result.t_events[:count], result.y_events[:count]
    fired = [i for i, te in enumerate(times) if len(te)]
    if result.status != 1 or not fired:
        return False
    i = min(fired, key=lambda i: times[i][-1])
    system = result.model.system
    kind, c, _ = _limits(result.model)[i]
    result.flag_name = {"load": LOAD_FLAG, "speed": SPEED_FLAG, "domain": DOMAIN_FLAG}[kind]
    t = float(times[i][-1])
    result.message = {"load": negative_load_message, "speed": negative_speed_message}[kind](c, t) if kind != "domain" \
        else domain_message(system, c, t)
    result.y_final = np.asarray(states[i][-1], dtype=float)
    result.warnings.append(result.message)
    if warn:
        warnings.warn(result.message, SimulationWarning, stacklevel=stacklevel)
    return True


def batch_stopped_by_load(results: list, started: list, count: int) -> None:
    """:func:`stopped_by_load` for each started run of a batch (``nh.simulate_many``), with one
    SimulationWarning for the batch."""
    stopped = [i for i in started if stopped_by_load(results[i], count, warn=False)]
    if stopped:
        listed = f"{stopped[:10]}{'...' if len(stopped) > 10 else ''}"
        warnings.warn(f"{len(stopped)} of {len(results)} runs (runs {listed}): {results[stopped[0]].message}",
                      SimulationWarning, stacklevel=3)
