"""Events of a run: ``nh.Event`` (a symbolic g(t, q, v) = 0 or a contact-force margin) and the
event specs ``nh.simulate`` hands to the core (tapes evaluated in C++, or callables g(t, y))."""

from __future__ import annotations

import numpy as np
import sympy as sp

from .. import options as check
from ..expressions.lowering import check_free_symbols, kept_tape, lower
from ..expressions.parsing import to_sympy
from ..models.model import Model
from ..system.margins import Margin

__all__ = ["Event", "event_specs"]


class Event:
    """A symbolic event g(t, q, v) = 0, located by CVODE's root finding and evaluated in C++.

    Parameters
    ----------
    expr : SymPy expression or Margin
        In the system's coordinates, velocities, time and parameters, matched by name whatever
        their assumptions (``Event(sp.Symbol("phi"))`` for a coordinate declared ``real=True``),
        and in Kane's speeds by name for a system from ``from_kanes_method``. Or a contact-force
        margin, ``system.friction_margin(mu)`` (mu N - |lambda|) or ``system.liftoff_margin()``
        (N) (:mod:`nonholo.system.margins`): the run stops, or reports, where rolling without
        slipping would need more friction than there is, or where the body would lift off.
        The velocities are the physical q' on every model: X_D w of a model in quasi-velocities,
        u + sum eps^k h^(k) of a reduced model (its ``result.velocity``), not the state's u. A
        margin is that of the no-slip motion through the state (q, u).
    terminal : bool or int
        Stop the integration at the first (True) or the n-th occurrence.
    direction : {-1, 0, 1}
        Only zero crossings where g decreases (-1), increases (1), or both (0) in time: the sign
        of dg/dt, whichever way the run goes. A backward run (t_span (0, -10)) meets a g that
        increases in t going from positive to negative: direction 1 catches it, where SciPy's
        ``solve_ivp`` (which follows the integration) would need -1.

    Notes
    -----
    An event whose g is zero at the start, g(t0) = 0, is not reported at t0 (and a terminal one
    does not stop the run there): a run may start on the event's surface, a Poincare section or
    a contact, and its later crossings are reported as usual. This is CVODE's rule; SciPy's
    ``solve_ivp`` reports such an event at t0. An event that stays identically zero is never
    reported.

    Examples
    --------
    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> run = nh.simulate(model, (0, 10), [0, 0, 0, 0, 0, 1.0], events=[nh.Event("phi - 1", terminal=True)])
    >>> run.status, round(float(run.t_events[0][0]), 6)  # stopped where the heading reaches 1
    (1, 1.006473)
    """

    def __init__(self, expr, terminal: bool | int = False, direction: int = 0):
        if isinstance(expr, (list, tuple, sp.MatrixBase, np.ndarray)):  # hashed per expression later: "unhashable"
            raise TypeError(f"Event expression must be one scalar expression, got a {type(expr).__name__} "
                            f"{expr!r:.80}: give one Event per expression, events=[nh.Event(g1), nh.Event(g2)]")
        self.expr = expr if isinstance(expr, Margin) else to_sympy(expr, "Event expression")
        self.terminal = terminal
        self.direction = direction
        _terminal_count(terminal)  # checked now: the error points at the Event, not at simulate
        _direction(direction)

    def __repr__(self) -> str:
        return f"Event({self.expr}, terminal={self.terminal}, direction={self.direction})"


def _terminal_count(terminal) -> int:
    if isinstance(terminal, (bool, np.bool_)):
        return 1 if terminal else 0
    try:
        return check.count(terminal, "event terminal", minimum=0)
    except TypeError:
        raise ValueError(f"event terminal must be a bool or a non-negative int, got {terminal!r}") from None


def _direction(direction) -> int:
    """-1, 0 or 1 (integral floats too, as solve_ivp's); anything else names ``direction``."""
    if isinstance(direction, (bool, np.bool_)) or not isinstance(direction, (int, float, np.integer, np.floating)) \
            or direction not in (-1, 0, 1):
        raise ValueError(f"event direction must be -1 (g decreasing), 0 (both) or 1 (g increasing), got {direction!r}")
    return int(direction)


def event_specs(model: Model, events, params=None) -> list:
    """The core's event specs of ``events`` (None, one event or a list) on ``model`` with ``params``."""
    if events is None:
        return []
    if callable(events) or isinstance(events, (sp.Basic, Event, Margin)):
        events = [events]
    elif not isinstance(events, (list, tuple)):
        raise TypeError(f"events must be an event (a callable g(t, y), a SymPy expression, nonholo.Event or a "
                        f"margin) or a list of them, got {type(events).__name__} {events!r:.60}")
    system = model.system
    allowed = {*system.coordinates, *system.velocities, system.time, *system.parameters}
    specs = []
    for i, ev in enumerate(events):
        if isinstance(ev, (sp.Basic, Margin)):
            ev = Event(ev)
        if isinstance(ev, Event) and isinstance(ev.expr, Margin):  # a tape of [q, v, t, p, q'', lambda]
            specs.append(ev.expr.event(model, dict(zip(model.param_names, model.param_vector(params))),
                                       _direction(ev.direction), _terminal_count(ev.terminal)))
        elif isinstance(ev, Event):
            specs.append((_event_tape(system, ev.expr, allowed, i), _direction(ev.direction),
                          _terminal_count(ev.terminal)))
        elif callable(ev):
            specs.append((ev, _direction(getattr(ev, "direction", 0)), _terminal_count(getattr(ev, "terminal", False))))
        else:
            raise TypeError(f"events[{i}] must be a callable g(t, y), a SymPy expression or nonholo.Event")
    return specs


def _event_tape(system, expr, allowed: set, i: int):
    """The tape of the symbolic event g = ``expr`` on the system's inputs [q, v, t, p], kept by the
    system per expression (``kept_tape``): a sweep whose function builds the same Event in every run
    lowers it once (about 0.3 ms, more than a short run takes)."""

    def build():
        resolved = system.resolve(expr)  # names match the system's symbols whatever their assumptions
        check_free_symbols([resolved], allowed, f"event {i}")
        return lower([resolved], system._inputs).tape()

    return kept_tape(system, "event", expr, build)
