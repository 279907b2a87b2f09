r"""The run of a stick-slip model (:class:`nonholo.models.stick_slip.StickSlipModel`): one phase per
mode, each an ordinary run with terminal events, the switches located to the integrator's tolerance.

A stuck contact leaves the friction cone where g = mu_s N - |lambda_c| falls through zero; a sliding
contact stops where its slip, measured along the direction d it started to slide in, s_c . d falls
through zero. At a stop the contact sticks if the force it then needs is inside the cone
(|lambda_c| <= mu_s N), and slides on, in the direction that force sets, if not. The state is
continuous across every switch (at a stop, the slip left over, below the tolerance, is projected out).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..system.contact_outputs import CONTACT_QUANTITIES
from ..system.law_realization import slip_expressions
from ..system.margins import Margin
from .events import Event

__all__ = ["StickSlipResult", "run_stick_slip"]


@dataclass
class StickSlipResult:
    """A stick-slip run: the joined trajectory, its switches and the runs of its phases.

    Attributes
    ----------
    t : ndarray (n_t,)
    y : ndarray (n_states, n_t)
    state_names : list of str
    switches : list of (t, from, to)
        Each switch: its time and the modes before and after ("stick" or "slip" for one contact;
        one word per contact, joined by commas, for several).
    phases : list of SimulationResult
        The run of each phase.
    modes : list of str
        The mode of each phase ("stick" or "slip" per contact).
    status : int
        0 the end was reached, -1 a phase failed (its message says why).
    message : str
    """

    t: np.ndarray
    y: np.ndarray
    state_names: list
    switches: list = field(default_factory=list)
    phases: list = field(default_factory=list)
    modes: list = field(default_factory=list)
    status: int = 0
    message: str = "The end of the interval was reached."
    model: object = None
    params: dict = field(default_factory=dict)
    stuck: list = field(default_factory=list)  # per phase: a tuple, True for each stuck contact

    @property
    def success(self) -> bool:
        return self.status >= 0

    @property
    def y_final(self) -> np.ndarray:
        """The state at the last output time."""
        return self.y[:, -1].copy() if self.y.shape[1] else np.zeros(self.y.shape[0])

    @property
    def n(self) -> int:
        return self.y.shape[0] // 2

    @property
    def q(self) -> np.ndarray:
        return self.y[: self.n]

    @property
    def v(self) -> np.ndarray:
        return self.y[self.n:]

    def __getitem__(self, name: str) -> np.ndarray:
        """A state by name, or an output of the system (``"slip"``, ``"normal_force"``, ...), each
        phase's from its own model (the slip of a sliding phase, the forces of its motion)."""
        if name in self.state_names:
            return self.y[self.state_names.index(name)]
        if self.phases and name in self.phases[0].model.system.outputs:
            return np.concatenate([phase[name] for phase in self.phases])
        if name in CONTACT_QUANTITIES and self.model is not None:
            return self._contact_quantity(name)
        outputs = list(self.phases[0].model.system.outputs) if self.phases else []
        raise KeyError(f"{name!r} is neither a state nor an output; the states are {self.state_names}"
                       + (f", the outputs {outputs}" if outputs else ""))


    def _contact_quantity(self, name: str) -> np.ndarray:
        """Per contact at every output time (:mod:`nonholo.system.contact_outputs`): the slip speed
        |s_c|, the normal load N_c, and the friction force: |lambda_c| of a stuck contact (the force
        its rolling needs), mu_k N_c of a sliding one."""
        model = self.model
        loads = model.loads(self.params)
        columns = []
        for phase, stuck in zip(self.phases, self.stuck):
            for i, t in enumerate(phase.t):
                y = phase.y[:, i]
                if name == "slip":
                    columns.append([np.linalg.norm(s) for s in model.slips(t, y)])
                elif name == "normal_force":
                    columns.append(list(loads(t, y)))
                else:
                    lam = model.multipliers(stuck, t, y, phase.params)
                    N = loads(t, y)
                    columns.append([model.mu_k * N[c] if lam[c] is None else np.linalg.norm(lam[c])
                                    for c in range(len(stuck))])
        values = np.array(columns, dtype=float).reshape(-1, len(model.contacts)).T
        return values[0] if len(model.contacts) == 1 else values


def _label(stuck) -> str:
    return ",".join("stick" if s else "slip" for s in stuck)


def _switch_events(model, stuck: tuple, cone_bias: float) -> list:
    """The terminal events of a phase in mode ``stuck``, one per contact, falling through zero and
    evaluated in C++ (their tapes kept by the mode's system, lowered once per mode): a stuck contact's
    friction margin mu_s (1 + cone_bias) N_c - |lambda_c| with the multipliers of its rows in the
    mode; a sliding contact's slip along the direction d it started to slide in, s_c . d, with d the
    mode's parameters slide_<c>_<i>."""
    mode = model.mode(stuck).system
    slip = slip_expressions(model.system)
    events, at = [], 0
    for c, group in enumerate(model.contacts):
        if stuck[c]:
            rows = list(range(at, at + len(group)))  # contact c's rows among the mode's constraints
            at += len(group)
            events.append(Event(Margin(mode, "friction", model.mu_s * (1 + cone_bias), [model.normal[c]], [rows]),
                                terminal=True, direction=-1))
        else:
            along = sum((sp.Symbol(f"slide_{c}_{i}") * slip[r] for i, r in enumerate(group)), sp.S.Zero)
            events.append(Event(along, terminal=True, direction=-1))
    return events


def run_stick_slip(model, t_span, y0, *, t_eval=None, rtol: float = 1e-8, atol: float = 1e-10, params=None,
                   max_switches: int = 1000, events=None, sensitivities=None, dense_output: bool = False,
                   project_y0: bool = False, raise_on_failure: bool = False, **options) -> StickSlipResult:
    """Run a stick-slip model (module docstring); the arguments are :func:`nonholo.simulate`'s
    (``raise_on_failure``: IntegrationError when a phase fails)."""
    if events is not None or sensitivities or dense_output:
        raise ValueError("a stick-slip model runs without events, sensitivities or dense output (not supported)")
    if project_y0:
        raise ValueError("project_y0: a stick-slip model starts from any [q, v] (off the constraints it slides); "
                         "project y0 yourself with system.project to start rolling")
    result = _run(model, t_span, y0, t_eval, rtol, atol, params, max_switches, options)
    if raise_on_failure and result.status < 0:
        from ..errors import IntegrationError

        raise IntegrationError(result.message, result)
    return result


def _run(model, t_span, y0, t_eval, rtol, atol, params, max_switches, options) -> StickSlipResult:
    from .. import options as check
    from .simulation import simulate

    n = model.system.n
    t0, tf = check.t_span(t_span)
    check.tolerances(rtol, atol, 2 * n)
    try:
        y = np.asarray(y0, dtype=float).copy()
    except (TypeError, ValueError):
        raise TypeError(f"y0 must be [q, v] (numbers), got {y0!r:.100}") from None
    if y.shape != (2 * n,):
        raise ValueError(f"y0 must be [q, v] of length {2 * n}, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("y0 contains NaN or inf")
    params = dict(params or {})
    model.system.param_vector(params)  # unknown names and bad values refused, as by nh.simulate
    loads = model.loads(params)

    def cone(c, tt, yy):  # mu_s N_c at a state: a load may depend on it (load transfer)
        return model.mu_s * loads(tt, yy)[c]

    scale = max(1.0, float(np.abs(y[n:]).max()))
    eta = 1e-14 * scale  # far below any slip the tolerances resolve (module docstring of the model)
    slip_tol = 10 * (rtol * scale + float(np.max(atol)))
    # A phase may start on its switching surface: a contact rolling at the cone's edge with a growing
    # force, which counts as inside the cone by the bias 1e-12 relative (far below the tolerances), so
    # that its leaving is a root after t0; a slide starting from zero slip, on its stop surface
    # s . d = 0, which the root finding does not report at t0: it ends where s . d next falls through
    # zero (short of s = -eta d, where the regularized sliding force turns).
    cone_bias = 1e-12
    times = None if t_eval is None else np.asarray(t_eval, dtype=float)

    directions = {}
    stuck = []
    for c, s in enumerate(model.slips(t0, y)):
        sliding = np.linalg.norm(s) > slip_tol
        stuck.append(not sliding)
        if sliding:
            directions[c] = s / np.linalg.norm(s)
    stuck = _settle(model, tuple(stuck), t0, y, params, cone, directions, eta)

    result = StickSlipResult(np.zeros(0), np.zeros((2 * n, 0)), list(model.state_names), model=model, params=params)
    t = t0
    while True:
        mode = model.mode(stuck)
        run_params = model.mode_params(stuck, params, directions, eta)
        events, owners = _switch_events(model, stuck, cone_bias), list(range(len(model.contacts)))
        # a phase stores the requested times after its start (the first phase also its start)
        phase_eval = None if times is None else times[((times > t) | (t == t0) & (times == t)) & (times <= tf)]
        run = simulate(mode, (t, tf), y, t_eval=phase_eval, events=events, rtol=rtol, atol=atol, params=run_params,
                       **options)
        result.phases.append(run)
        result.modes.append(_label(stuck))
        result.stuck.append(stuck)
        result.t = np.concatenate([result.t, run.t])
        result.y = np.concatenate([result.y, run.y], axis=1)
        if run.status < 0:
            result.status, result.message = -1, f"the phase from t = {t:g} in mode {_label(stuck)} failed: " \
                                                f"{run.message}"
            return result
        fired = [i for i, te in enumerate(run.t_events) if len(te)]
        if run.status == 0 or not fired:
            return result
        if len(result.switches) >= max_switches:
            result.status, result.message = -1, f"more than max_switches = {max_switches} switches by t = {t:g}"
            return result
        i = fired[0]
        t, y = float(run.t_events[i][-1]), np.asarray(run.y_events[i][-1], dtype=float).copy()
        c = owners[i]
        before = stuck
        new = list(stuck)
        if stuck[c]:  # left the cone: slides in the direction opposite to the force it needed
            lam = model.multipliers(stuck, t, y, run_params)[c]
            directions[c] = -lam / np.linalg.norm(lam)
            new[c] = False
            stuck = tuple(new)
        else:  # the slip stopped: sticks if the force it now needs is inside the cone
            directions.pop(c)
            new[c] = True
            stuck = _settle(model, tuple(new), t, y, params, cone, directions, eta)
            if stuck[c]:
                y[n:] = model.mode(stuck).system.project(y[:n], y[n:], t)  # the slip left below tolerance
        result.switches.append((t, _label(before), _label(stuck)))


def _settle(model, stuck: tuple, t: float, y, params, cone, directions, eta: float) -> tuple:
    """The mode in which every stuck contact's needed force is inside its cone: a contact that
    would need more slides, in the direction opposite to that force."""
    stuck = list(stuck)
    for _ in range(len(stuck) + 1):
        if not any(stuck):
            break
        lams = model.multipliers(tuple(stuck), t, y, model.mode_params(tuple(stuck), params, directions, eta))
        outside = [c for c, lam in enumerate(lams) if lam is not None and np.linalg.norm(lam) > cone(c, t, y)]
        if not outside:
            break
        c = max(outside, key=lambda c: np.linalg.norm(lams[c]) / cone(c, t, y))
        directions[c] = -lams[c] / np.linalg.norm(lams[c])
        stuck[c] = False
    return tuple(stuck)

