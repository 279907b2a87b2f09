r"""The run of a stick-slip model (:class:`nonholo.models.stick_slip.StickSlipModel`): one phase per
mode, each an ordinary run with terminal events, the switches located to the integrator's tolerance.

A stuck contact leaves the friction cone where g = mu_s N - |lambda_c| falls through zero (one event
for the stuck contacts, the smallest of their margins; the one that left is the one whose force
|lambda_c| / (mu_s N_c) is largest there).

A sliding contact stops where its slip s_c itself vanishes. Under the Coulomb force -mu_k N s/|s| the
slip's direction may turn while it slides (a point mass set down on a turning table, a ball launched
up an incline a little sideways), and |s| falls to zero in finite time, linearly, from the direction
it then has. The run watches s_c . d, d a unit vector it keeps within 60 degrees of s_c: d is the
slip's direction where the phase started, and the event s_c . d - |s_c| / 2 falling through zero
(the slip has turned 60 degrees from d) restarts the phase in the same mode with d the slip's
direction there (a turn, not a switch: ``result.modes`` lists the restarted phase again). Where the
slip vanishes it therefore approaches zero from within 60 degrees of d, and s_c . d falls through
zero there and nowhere else. The force turns over at s = 0 (a kink, which an implicit step cannot
cross: the slip would chatter about zero), so the stop event fires a little short of it, where
s_c . d falls to STOP max(rtol, atol) (1 + |v|), a few times the slip the integration resolves; there
the slip falls linearly, and one step of the slide, tau = -(s . s') / |s'|^2, carries the state to
where it vanishes (error O(tau^2)), the phase's samples extended to that instant (unless tau exceeds
the steps the phase took: there the slip hovers about the tolerance rather than falls, a slide from
the cone's edge, and the state is kept as the event found it). Where an event
finds a slip above the tolerance, the slip has turned (at a start from zero slip, by up to 90
degrees before the 60-degree event can see it) and d follows it. At a stop the contact sticks if
the force it then needs is inside the cone (|lambda_c| <= mu_s N), and slides on, in the direction
that force sets, if not: a switch where that direction reverses the slip's (a block pushed back and
forth: ``slip -> slip``), a turn where it is within 60 degrees of it (a slide from the cone's edge
with mu_k = mu_s, whose slip grows more slowly than the tolerance resolves, touched zero).

A contact that leaves the cone, or whose slip stopped and slides on, starts to slide from zero slip,
in the direction d opposite to the force it needed: the consistent one there, where the slip's rate
vanishes (it grows like (t - t*)^2). Its leftover slip, below the tolerance but in any direction, is
replaced by a slip the integration resolves, SEED slide_stop (1 + |v|) along d, the velocity changed least in the metric
with the mode's constraints kept (where a contact's rows repeat a stuck one's, the leftover stays):
started from the leftover, the slip turned and stopped at once, and a leaning disc, whose slip rows
see different inertias, chattered at t* (999 switches within 1e-8 s). The other contacts' forces are
judged at the seeded state: the leftover turned the kinetic force of the new slide against d, and a
second contact well inside its cone seemed to need twice its cone and slid too. A slide's stiffness, about
mu N / |s|, falls by decades as the slip grows from there, so its phases take a new Jacobian
whenever BDF's step has grown tenfold (``solver_options={"jacobian_step_growth": 10}``): a
Jacobian kept from where the slip was 1e-6 let Newton's corrections pass too small.

A contact whose normal load depends on the state or the time ends the run where that load reaches
zero (status 1, a SimulationWarning: the contact lifts off and the model no longer holds;
:mod:`nonholo.system.margins`); a run that starts with a negative load is refused. A phase whose own
model stops it early (a rolling body's surface leaving its domain, a disc lying flat: flag_name
``"SURFACE_DOMAIN"``) ends the run with that phase's status, flag_name and message.

The state is continuous across every switch, to the integration tolerance: at a stop and at the
start, the slip of the contacts that stick, below the tolerance 10 (rtol |v|max + atol), is
projected out (G-orthogonally onto their rows), so that a run starts from any [q, v] (a contact
whose slip is below that tolerance starts stuck, its slip removed; one above it starts sliding).
"""

from __future__ import annotations

import warnings as _warnings
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..errors import SimulationWarning
from ..numerics import number_text
from ..system.contact_outputs import CONTACT_QUANTITIES, LOAD_QUANTITIES, full_slips, missing_load_quantity
from ..system.margins import LOAD_FLAG, Margin, negative_load_message, varying_loads
from .events import Event
from .result import result_metadata, rows_residual, to_dataframe, to_xarray, warnings_html, warnings_line

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
        one word per contact, joined by commas, for several). A contact that starts without slip
        but needs a force outside its cone slides from the start: a switch at t0.
    phases : list of SimulationResult
        The run of each phase.
    modes : list of str
        The mode of each phase ("stick" or "slip" per contact).
    status : int
        0 the end was reached, 1 the run stopped early: a contact's normal load reached zero (the
        contact lifts off), or a phase stopped where its model ends (a rolling body's surface left its
        domain, a disc lying flat), with a SimulationWarning, ``warnings`` and the message saying which and
        when; -1 a phase failed (its message says why).
    message : str
    warnings : list of str
        The warnings of the run (a stop where a normal load reached zero, or the stopping phase's).
    t_last : float
        The last time reached (the end, the stop where a load reached zero or a phase stopped, where a
        phase failed, or the switch where max_switches ran out).
    flag, flag_name : int, str
        As for a SimulationResult: the failed phase's CVODE flag and its name, ``"MAX_SWITCHES"``
        (flag 0) where max_switches ran out, ``"NORMAL_LOAD_NEGATIVE"`` (flag 0) where a normal load
        reached zero (as a friction law's run), the stopping phase's (``"SURFACE_DOMAIN"``) where a
        phase stopped the run, 0 and ``""`` otherwise.
    method : str
        The methods the phases ran, each once (``"dop853, bdf"``).
    stats : dict
        The counters of the phases' ``stats`` summed (n_steps, n_rhs, ..., cpu_time), last_order
        and last_step the last phase's, and n_phases; each phase's own in ``phases[i].stats``.
    messages : list of str
        The messages SUNDIALS emitted, of every phase in order.
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
    warnings: list = field(default_factory=list)
    t_last: float = float("nan")
    flag: int = 0
    flag_name: str = ""

    @property
    def success(self) -> bool:
        return self.status >= 0

    @property
    def stats(self) -> dict:
        """The phases' counters summed; last_order and last_step the last phase's (class docstring)."""
        total: dict = {}
        for phase in self.phases:
            for key, value in phase.stats.items():
                if key in _LAST_STATS:
                    total[key] = value
                elif key != "t_switch":  # a method switch within one phase
                    total[key] = total.get(key, 0) + value
        total["n_phases"] = len(self.phases)
        return total

    @property
    def method(self) -> str:
        """The methods the phases ran, each once in the order first used (``"dop853, bdf"``: stuck phases
        on DOP853, slides on BDF); ``phases[i].method`` for each."""
        return ", ".join(dict.fromkeys(str(phase.method) for phase in self.phases))

    @property
    def messages(self) -> list:
        return [message for phase in self.phases for message in phase.messages]

    def _metadata(self) -> dict:
        """Scalar metadata (strings and numbers only), SimulationResult's and n_switches."""
        return {**result_metadata(self), "n_switches": len(self.switches)}

    def to_dataframe(self):
        """The joined trajectory as a time-major ``pandas.DataFrame`` (n_t, n_states), as
        :meth:`SimulationResult.to_dataframe`; ``df.attrs`` also holds n_switches."""
        return to_dataframe(self.t, self.y, self.state_names, self._metadata())

    def to_xarray(self):
        """The joined trajectory as a time-major ``xarray.DataArray`` (dims ``("t", "state")``), as
        :meth:`SimulationResult.to_xarray`; ``attrs`` also holds n_switches."""
        return to_xarray(self.t, self.y, self.state_names, self._metadata())

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

    @property
    def velocity(self) -> np.ndarray:
        """The physical velocity q' (the state's v), shape (n, n_t), as for a SimulationResult."""
        return self.v

    def energy(self) -> np.ndarray:
        """1/2 q'^T G q' + V at every output time, shape (n_t,), phase by phase."""
        return np.concatenate([phase.energy() for phase in self.phases]) if self.phases else np.zeros(0)

    def constraint_residual(self) -> np.ndarray:
        """|A v - b| / (|A| |v| + |b|) of the system's constraints at every output time, shape (n_t,), as
        for a friction model's run: rounding where every contact sticks, the relative slip where one
        slides (each phase's own model releases the rows of a sliding contact, so its residual is not the
        slip)."""
        system = self.model.system
        if not system.k or not self.t.size:
            return np.zeros(self.t.size)
        return rows_residual(system, self.t, self.q, self.v, self.params)

    def animate(self, drawing=None, *, frames: int = 60, fps: float = 20.0, trace: bool = True, ax=None,
                figsize=(5.0, 5.0)):
        """The motion as a matplotlib animation, as :meth:`SimulationResult.animate` (the system's own
        drawing by default; frames at the nearest output times; a failed run says so in the title)."""
        from ..viz.animation import animate

        return animate(self, drawing, frames=frames, fps=fps, trace=trace, ax=ax, figsize=figsize)

    def __getitem__(self, name: str) -> np.ndarray:
        """A state by name, or an output of the system (``"slip"``, ``"normal_force"``, ...), each
        phase's from its own model (the slip of a sliding phase, the forces of its motion)."""
        if name in self.state_names:
            return self.y[self.state_names.index(name)]
        if self.phases and name in self.phases[0].model.system.outputs:
            if getattr(self.phases[0].model.system.outputs[name], "unwrapped", False) and self.model is not None:
                # the heading: unwrapped along the whole run (phase by phase, each restarted in (-pi, pi])
                system = self.model.system
                params = system.param_vector({k: v for k, v in self.params.items() if k in system.parameter_names})
                return np.asarray(system.outputs[name](self.q, self.v, dict(zip(system.parameter_names, params)),
                                                       t=self.t), dtype=float)
            if getattr(self.phases[0].model.system.outputs[name], "stick_slip_quantity", False) and \
                    self.model is not None:
                # a rolling body's friction force (or ratio): the stuck contact's multipliers, mu_k N sliding
                force = self._contact_quantity("friction_force")
                if name == "friction_force":
                    return force
                N = self["normal_force"]
                with np.errstate(divide="ignore", invalid="ignore"):
                    return np.where(N > 0, force / N, np.nan)
            return np.concatenate([phase[name] for phase in self.phases], axis=-1)  # per contact: (contacts, n_t)
        if name in CONTACT_QUANTITIES and self.model is not None:
            return self._contact_quantity(name)
        if name in LOAD_QUANTITIES and self.model is not None:  # a rolling body's, not this system's
            raise KeyError(missing_load_quantity(self.model.system, name, "given"))
        outputs = list(self.phases[0].model.system.outputs) if self.phases else []
        raise KeyError(f"{name!r} is neither a state nor an output; the states are {self.state_names}"
                       + (f", the outputs {outputs}" if outputs else ""))


    # ------------------------------------------------------------------ display
    def _mode_sequence(self, limit: int = 6) -> str:
        """The modes of the phases in order, repeats (a slide that turned) shown once."""
        seq = [m for i, m in enumerate(self.modes) if i == 0 or m != self.modes[i - 1]]
        text = " -> ".join(seq[:limit]) + (f" -> ... ({len(seq) - limit} more)" if len(seq) > limit else "")
        return f"{text} ({len(self.phases)} phase{'s' if len(self.phases) != 1 else ''})"

    def _switch_lines(self, limit: int = 5) -> list:
        lines = [f"{before} -> {after} at t = {t:.6g}" for t, before, after in self.switches[:limit]]
        if len(self.switches) > limit:
            lines.append(f"... {len(self.switches) - limit} more (result.switches)")
        return lines

    def __repr__(self) -> str:
        t = (f"array of {self.t.size} times in [{self.t[0]:g}, {self.t[-1]:g}]" if self.t.size else "empty")
        lines = [f"  message: {self.message}", f"  success: {self.success}", f"   status: {self.status}",
                 f"        t: {t}", f"        y: array of shape {self.y.shape}, states {self.state_names}",
                 f"    modes: {self._mode_sequence()}"]
        switches = self._switch_lines()
        lines.append(f" switches: {len(self.switches)}" + (": " + switches[0] if switches else ""))
        lines += [" " * 11 + line for line in switches[1:]]
        if self.warnings:
            lines.append(warnings_line(self.warnings))
        return "StickSlipResult(\n" + "\n".join(lines) + "\n)"

    def _repr_html_(self) -> str:
        import html

        ok = self.success
        colour = "#1a7f37" if ok else "#b00000"
        head = (f"<p><b>StickSlipResult</b>: <b style='color:{colour}'>{'success' if ok else 'failure'}</b> "
                f"(status {self.status})<br>{html.escape(str(self.message))}</p>")
        rows = []
        if self.t.size:
            rows.append(("t", f"{self.t.size} times in [{self.t[0]:g}, {self.t[-1]:g}]"))
        rows.append(("y", f"shape {self.y.shape}: {', '.join(self.state_names)}"))
        model = self.model
        if model is not None and hasattr(model, "mu_s"):
            rows.append(("model", f"stick-slip, mu_s={number_text(model.mu_s)}, mu_k={number_text(model.mu_k)}"))
        rows.append(("modes", self._mode_sequence()))
        rows.append(("switches", f"{len(self.switches)}" + ("".join(f"<br>{html.escape(line)}"
                                                                    for line in self._switch_lines()))))
        if self.params:
            rows.append(("params", ", ".join(f"{k}={number_text(v)}" for k, v in self.params.items()
                                             if np.ndim(v) == 0 and not str(k).startswith("slide_"))))
        for warning in warnings_html(self.warnings):
            rows.append(("warning", warning))
        table = "".join(f"<tr><td style='text-align:left'>{html.escape(k)}</td><td style='text-align:left'>"
                        f"{v if k in ('switches', 'warning') else html.escape(v)}</td></tr>" for k, v in rows)
        return f"<div>{head}<table>{table}</table></div>"

    def plot(self, names=None, ax=None, **kwargs):
        """Plot states (or outputs, ``"slip"``, ``"normal_force"``: one line per contact) against time,
        as :meth:`SimulationResult.plot` (default: a panel for q, one for v), with every switch of
        mode marked by a vertical line (its modes in the legend and the title); a failed run is
        marked where it stopped. Returns the axes (a list for the default panels)."""
        from ..viz.plot import result_panels

        out = result_panels(self, names, ax, kind="stick-slip", **kwargs)
        axes = out if isinstance(out, list) else [out]
        colours = {}
        for axis in axes:
            for t, before, after in self.switches:
                key = f"{before} -> {after}"
                first = key not in colours.setdefault(id(axis), set())
                colours[id(axis)].add(key)
                axis.axvline(t, color="tab:red", ls="--", lw=0.8,
                             label=f"switch {key}" if first else None)
            if self.switches:
                axis.legend(loc="best", fontsize=8, ncol=max(1, len(axis.lines) // 4))
        if self.switches:
            title = axes[0].get_title()
            first = self._switch_lines(2)
            axes[0].set_title(title + f"\n{len(self.switches)} switch{'es' if len(self.switches) > 1 else ''} "
                              f"(dashed): " + "; ".join(first), fontsize=10,
                              color="black" if self.success else "#b00000")
        return out

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
                    columns.append([np.linalg.norm(s) for s in model.slips(t, y, self.params)])
                elif name == "normal_force":
                    columns.append(list(loads(t, y)))
                else:
                    lam = model.multipliers(stuck, t, y, phase.params)
                    N = loads(t, y)
                    columns.append([model.mu_k * N[c] if lam[c] is None else np.linalg.norm(lam[c])
                                    for c in range(len(stuck))])
        values = np.array(columns, dtype=float).reshape(-1, len(model.contacts)).T
        return values[0] if len(model.contacts) == 1 else values


_LAST_STATS = ("last_order", "last_step")  # stats of the last phase, not summed


def _label(stuck) -> str:
    return ",".join("stick" if s else "slip" for s in stuck)


TURN = 0.5  # cos of the largest angle between a sliding contact's slip and its reference direction d
STOP = 2.0  # a slide's stop event fires where s . d falls to STOP max(rtol, atol) (1 + |v|) (module docstring)


# added to the normal loads of the cone event: a contact with no load (N = 0: a cone of zero width)
# starts inside it by mu_s LOAD_FLOOR, far below any force, so that its leaving, as the force it needs
# grows from zero, is a root after t0 (not a zero at t0, which the event does not report: a block
# with N = 0 pushed by 8 sin 2t, or with N = 9.81 t, stayed stuck)
LOAD_FLOOR = 1e-300


def _switch_events(model, stuck: tuple, cone_bias: float) -> tuple:
    """(events, owners): the terminal events of a phase in mode ``stuck``, falling through zero and
    evaluated in C++ (their tapes kept by the mode's system, lowered once per mode), and what each
    watches, (kind, contact):

    - ("cone", None): the smallest friction margin of the stuck contacts, mu_s (1 + cone_bias) (N_c +
      LOAD_FLOOR) - |lambda_c| with the multipliers of their rows in the mode (one Margin over all the mode's rows);
    - ("stop", c): a sliding contact's slip along its reference direction d (the mode's parameters
      slide_<c>_<i>), less the slip the integration resolves: s_c . d - slide_stop (1 + |v|);
    - ("turn", c): s_c . d - TURN |s_c|, where the slip has turned 60 degrees away from d (a contact of
      two or more rows; one row's slip cannot turn);
    - ("load", c): the normal load N_c of a contact whose load changes along a run."""
    mode = model.mode(stuck).system
    system = model.system
    slip = full_slips(system)  # the contacts' own rows (a mechanism's repeated ones included)
    resolved = sp.Symbol("slide_stop") * (1 + sp.sqrt(sum((v**2 for v in system.velocities), sp.S.Zero)))
    events, owners = [], []
    held = [c for c in range(len(stuck)) if stuck[c]]
    if held:  # the stuck contacts' forces from the multipliers of the mode's rows (split where they share one)
        margin = Margin(mode, "friction", model.mu_s * (1 + cone_bias), [model.normal[c] + LOAD_FLOOR for c in held],
                        shares=model.shares(stuck))
        events.append(Event(margin, terminal=True, direction=-1))
        owners.append(("cone", None))
    for c, group in enumerate(model.contacts):
        if stuck[c]:
            continue
        along = sum((sp.Symbol(f"slide_{c}_{i}") * slip[r] for i, r in enumerate(group)), sp.S.Zero)
        events.append(Event(along - resolved, terminal=True, direction=-1))
        owners.append(("stop", c))
        if len(group) > 1:
            size = sp.sqrt(sum((slip[r] ** 2 for r in group), sp.S.Zero))
            events.append(Event(along - TURN * size, terminal=True, direction=-1))
            owners.append(("turn", c))
    for c in varying_loads(system, model.normal):
        events.append(Event(model.normal[c], terminal=True, direction=-1))
        owners.append(("load", c))
    return events, owners


def run_stick_slip(model, t_span, y0, *, t_eval=None, rtol: float = 1e-8, atol: float = 1e-10, params=None,
                   max_switches: int = 1000, events=None, sensitivities=None, dense_output: bool = False,
                   project_y0: bool = False, raise_on_failure: bool = False, **options) -> StickSlipResult:
    """Run a stick-slip model (module docstring); the arguments are :func:`nonholo.simulate`'s
    (``raise_on_failure``: IntegrationError when a phase fails), its options passed to every phase's run.
    ``max_switches`` (``solver_options={"max_switches": n}`` through simulate) bounds the switches, and
    separately the turns of the slips (restarts of a sliding phase); a run that reaches it stops with
    status -1 and a SimulationWarning."""
    from .. import options as check

    solver_options = options.get("solver_options")
    if solver_options is not None and not isinstance(solver_options, dict):
        raise TypeError(f"solver_options must be a dict, got {type(solver_options).__name__}")
    if solver_options and "max_switches" in solver_options:
        solver_options = dict(solver_options)
        max_switches = check.count(solver_options.pop("max_switches"), 'solver_options["max_switches"]', 0)
        options = {**options, "solver_options": solver_options or None}
    check.cvode_knobs(solver_options, also=("max_switches",))  # the rest, as every phase's run checks them
    if events is not None or sensitivities or dense_output:
        raise ValueError("a stick-slip model runs without events, sensitivities or dense output (not supported)")
    if project_y0:
        raise ValueError("project_y0: a stick-slip model starts from any [q, v] (off the constraints it slides; a "
                         "slip below its tolerance is projected out); project y0 yourself with system.project to "
                         "remove a larger one")
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
    if tf < t0:
        raise ValueError(f"t_span = ({t0:g}, {tf:g}) runs backward: a stick-slip model runs forward in time only "
                         "(its past is not unique: a contact stuck at the end may have stuck all along or slid "
                         "until any earlier time)")
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
    times = check.t_eval(t_eval, t0, tf)  # inside t_span and sorted, as nh.simulate's
    loads = model.loads(params)
    for c, N in enumerate(loads(t0, y)):
        if N < 0:
            raise ValueError(f"y0: the normal load of contact {c} is N = {N:.6g} < 0 at the start (t = {t0:g}): the "
                             "contact is lifted off, where the stick-slip model does not hold")

    def cone(c, tt, yy):  # mu_s N_c at a state: a load may depend on it (load transfer)
        return model.mu_s * loads(tt, yy)[c]

    atol_max = float(np.max(atol))
    stop = STOP * max(rtol, atol_max)  # slide_stop: s . d - stop (1 + |v|) falls through zero short of the kink

    def slip_tol(yy) -> float:  # below it a slip counts as zero (at the start and where a slip stops)
        speed = float(np.abs(yy[n:]).max())
        return max(10 * (rtol * max(1.0, speed) + atol_max), 2 * stop * (1 + float(np.linalg.norm(yy[n:]))) / TURN)

    eta = 1e-14 * max(1.0, float(np.abs(y[n:]).max()))  # far below any slip the tolerances resolve
    # A phase may start on its switching surface: a contact rolling at the cone's edge with a growing
    # force, which counts as inside the cone by the bias 1e-12 relative (far below the tolerances), so
    # that its leaving is a root after t0; a slide starting from zero slip, below its stop surface
    # s . d = stop (1 + |v|), which it crosses upwards (not a root: the events fall through zero).
    cone_bias = 1e-12

    directions = {}
    stuck = []
    for c, s in enumerate(model.slips(t0, y, params)):
        sliding = np.linalg.norm(s) > 10 * (rtol * max(1.0, float(np.abs(y[n:]).max())) + atol_max)
        stuck.append(not sliding)
        if sliding:
            directions[c] = s / np.linalg.norm(s)
    classified = tuple(stuck)
    seed_size = SEED * stop * (1 + np.linalg.norm(y[n:]))
    seeding = _seeding(model, classified, t0, y, params, directions, eta, seed_size)
    stuck = _settle(model, classified, t0, y, params, cone, directions, eta, seeding)
    seeded = seeding(stuck)
    if seeded is not None:  # a contact that cannot start stuck slides from a slip along d (module docstring)
        y[n:] = seeded
    elif any(stuck):  # the slip below the tolerance of the contacts that start stuck, projected out
        y[n:] = _projected(model, stuck, t0, y, params, directions, eta)

    result = StickSlipResult(np.zeros(0), np.zeros((2 * n, 0)), list(model.state_names), model=model, params=params)
    if stuck != classified:  # a contact rolling at t0 whose needed force is outside its cone slides from t0 on
        result.switches.append((t0, _label(classified), _label(stuck)))
    t, turns = t0, 0
    while True:
        mode, start = model.mode(stuck), t
        run_params = model.mode_params(stuck, params, directions, eta, stop)
        events, owners = _switch_events(model, stuck, cone_bias)
        # a phase stores the requested times after its start (the first phase also its start)
        phase_eval = None if times is None else times[((times > t) | (t == t0) & (times == t)) & (times <= tf)]
        phase_options = options
        if not all(stuck):  # a slide, perhaps from zero slip: a stiffness ~ 1 / |s| that falls by decades
            phase_options = {**options, "solver_options": {"jacobian_step_growth": SLIDE_JACOBIAN_GROWTH,
                                                           **(options.get("solver_options") or {})}}
        run = simulate(mode, (t, tf), y, t_eval=phase_eval, events=events, rtol=rtol, atol=atol, params=run_params,
                       **phase_options)
        result.phases.append(run)
        result.modes.append(_label(stuck))
        result.stuck.append(stuck)
        # a phase that stopped where its own model ends (its flag_name says why: a surface's domain) ends the run
        fired = [i for i, te in enumerate(run.t_events) if len(te)] if run.status == 0 or \
            run.status > 0 and not run.flag_name else []
        if run.status < 0 or run.status == 0 or not fired:
            _joined(result, run)
            result.t_last = run.t_last
            if run.status < 0:
                result.status, result.message = -1, f"the phase from t = {t:g} in mode {_label(stuck)} failed: " \
                                                    f"{run.message}"
                result.flag, result.flag_name = run.flag, run.flag_name
            elif run.status > 0:  # stopped by an event of the phase's own model (a surface's domain, a law's load)
                result.status, result.message, result.flag, result.flag_name = 1, run.message, run.flag, run.flag_name
                result.warnings += [w for w in run.warnings if w not in result.warnings]  # simulate warned
            return result
        t, y = float(run.t_events[fired[0]][-1]), np.asarray(run.y_events[fired[0]][-1], dtype=float).copy()
        lifted = [c for kind, c in (owners[i] for i in fired) if kind == "load"]
        if lifted:  # the contact lifts off: the model holds no longer
            run.y_final = y  # the state there, also when t_eval stored none
            _joined(result, run)
            result.t_last = t
            result.status, result.message = 1, negative_load_message(lifted[0], t)
            result.flag_name = LOAD_FLAG  # as a friction law's run stopped there
            result.warnings.append(result.message)
            _warnings.warn(result.message, SimulationWarning, stacklevel=4)
            return result
        before, new, stopped, heading = stuck, list(stuck), [], {}
        slips = model.slips(t, y, params)
        # the contacts whose events fired, and every other sliding contact whose slip stops at the same
        # instant (two axles of a car sliding sideways on static loads stop together: one event fires)
        ended = {c for kind, c in (owners[i] for i in fired) if kind in ("stop", "turn")}
        if ended:
            ended |= {c for c in range(len(stuck)) if not stuck[c] and np.linalg.norm(slips[c]) <= slip_tol(y)}
        for c in sorted(ended):
            size = float(np.linalg.norm(slips[c]))
            if size <= slip_tol(y):  # the slip stops: sticks if the force it then needs is inside the cone
                heading[c] = directions.pop(c)
                new[c] = True
                stopped.append(c)
            else:  # the slip turned away from d (60 degrees, or 90 at a start from zero slip): d follows it
                directions[c] = slips[c] / size
        if stopped:  # the last stretch, where the slip falls linearly to zero, in one step of the slide
            t, y = _to_the_stop(model, mode, run, start, t, y, run_params, stopped, times, tf)
        _joined(result, run)
        result.t_last = t
        if t >= tf:
            return result
        if any(owners[i][0] == "cone" for i in fired):  # left the cone: slides opposite to the force it needed
            lams = model.multipliers(stuck, t, y, run_params)
            c = max((c for c in range(len(stuck)) if stuck[c]),
                    key=lambda c: np.linalg.norm(lams[c]) / max(cone(c, t, y), np.finfo(float).tiny))
            if np.linalg.norm(lams[c]) > 0:
                directions[c] = -lams[c] / np.linalg.norm(lams[c])
                new[c] = False
        # the slides that start from zero slip (a contact that left its cone, one whose slip stopped and
        # slides on) start from a seeded slip along d, and the other contacts' forces are judged there:
        # the leftover slip (1e-12, in any direction) turned the kinetic force of such a slide against d,
        # and a second contact, well inside its cone, was set sliding too
        from_rest = tuple(before[c] or c in stopped for c in range(len(stuck)))
        seeding = _seeding(model, from_rest, t, y, params, directions, eta, SEED * stop * (1 + np.linalg.norm(y[n:])))
        stuck = _settle(model, tuple(new), t, y, params, cone, directions, eta, seeding)
        seeded = seeding(stuck)
        if seeded is not None:  # the slides start from a slip the integration resolves, along d (module docstring)
            y[n:] = seeded
        elif any(stuck[c] and not before[c] for c in range(len(stuck))):  # the slip left below tolerance
            y[n:] = _projected(model, stuck, t, y, params, directions, eta)
        # a slip that touched zero and slides on within 60 degrees of its old direction (a slide from the
        # cone's edge where mu_k = mu_s, whose slip grows slower than the tolerance resolves) turned
        onward = stuck == before and all(heading[c] @ directions[c] >= TURN for c in stopped)
        if stuck == before and (not stopped or onward):  # a turn: the same mode again, d following the slip
            turns += 1
            if turns > max_switches:
                result.status, result.message = -1, (f"more than max_switches = {max_switches} turns of a sliding "
                                                     f"contact's slip by t = {t:g}")
                return _ran_out(result)
            continue
        if len(result.switches) >= max_switches:
            result.status, result.message = -1, f"more than max_switches = {max_switches} switches by t = {t:g}"
            return _ran_out(result)
        result.switches.append((float(t), _label(before), _label(stuck)))


def _ran_out(result: StickSlipResult) -> StickSlipResult:
    """The run stopped where max_switches ran out: flag_name MAX_SWITCHES and a SimulationWarning (as
    every failed run warns), saying how to allow more, and whether the last switches crowd together
    (chatter) or are phases of their own (an outside probe's disc pushed by 8 sin(100 t) switched
    four times a period, each slide 28 ms long, and was told it chattered)."""
    result.flag_name = "MAX_SWITCHES"
    times = [s[0] for s in result.switches[-10:]]
    mean = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else None
    if mean is None:
        why = ""
    elif mean < 1e-6 * max(1.0, abs(times[-1])):
        why = f": the last {len(times)} switches came within {times[-1] - times[0]:.3g} s, a contact chattering " \
              "between the modes (a force that reverses faster than it can follow)"
    else:
        why = f": its last phases lasted {mean:.3g} s on average, switches of their own (a force reversing each " \
              "period), which a longer run needs more of"
    result.message += f' (solver_options={{"max_switches": n}} allows more{why})'
    result.warnings.append(result.message)
    _warnings.warn(result.message, SimulationWarning, stacklevel=5)
    return result


def _joined(result: StickSlipResult, run) -> None:
    """The samples of the phase ``run`` appended to the run's."""
    result.t = np.concatenate([result.t, run.t])
    result.y = np.concatenate([result.y, run.y], axis=1)


def _to_the_stop(model, mode, run, start: float, t: float, y, params: dict, stopped: list, times, tf: float) -> tuple:
    """(t*, y*): where the slips of the contacts ``stopped`` reach zero, from the stop event at (t, y),
    where s . d fell to the slip the integration resolves (a few times its tolerance): there the slip
    falls linearly, s(t + tau) = s + tau s', so the slide ends tau = -(s . s') / |s'|^2 later, which
    one step y + tau f(t, y) of the slide reaches with an error O(tau^2). The slip's rate s' is the
    derivative along f, by central differences of s(t, y) (linear in v). The phase's samples are
    extended to the stop (its end, or the requested times up to it), so that the state is continuous
    across the switch; tau is capped at tf. Where tau exceeds both the phase's last step and its mean
    step (the phase started at ``start``), the slip is not falling linearly but hovering about the
    tolerance, and the state stays (t, y)."""
    f = mode.rhs(t, y, params)
    h = 1e-6 * max(1.0, abs(t))
    ahead, behind = model.slips(t + h, y + h * f, params), model.slips(t - h, y - h * f, params)
    here = model.slips(t, y, params)
    taus = []
    for c in stopped:
        rate = (ahead[c] - behind[c]) / (2 * h)
        if here[c] @ rate < 0:
            taus.append(-(here[c] @ rate) / (rate @ rate))
    tau = min(max(taus, default=0.0), tf - t)
    mean_step = (t - start) / max(run.stats.get("n_steps", 1), 1)
    if tau <= 0 or tau > max(run.stats.get("last_step", 0.0), mean_step):
        # longer than the steps the phase took, the slip does not fall linearly to zero: it hovers about
        # the tolerance (a slide at the cone's edge, mu_k = mu_s, whose slip neither grows nor stops), and
        # an Euler step that long moved the whole state by its O(tau^2) error (a ball's speed by 8e-5)
        return t, y
    if times is None:
        extra = np.array([t + tau])
    else:
        extra = times[(times > t) & (times <= t + tau)]
    if extra.size:
        run.t = np.concatenate([run.t, extra])
        run.y = np.concatenate([run.y, y[:, None] + np.outer(f, extra - t)], axis=1)
    run.t_last, run.y_final = t + tau, y + tau * f
    return t + tau, y + tau * f


SEED = 2.0  # a slide from the cone's edge starts with the slip SEED slide_stop (1 + |v|) along d
# solver_options["jacobian_step_growth"] of a phase with a sliding contact (module docstring)
SLIDE_JACOBIAN_GROWTH = 10.0


def _seeded(model, stuck: tuple, t: float, y, params, breaking: list, directions: dict, eta: float, size: float):
    """The velocity of y changed least (in the metric G) so that each contact c of ``breaking`` (stuck
    before, sliding in mode ``stuck``) slips by ``size`` d_c and the constraints of mode ``stuck`` hold
    (A v = b: the stuck contacts' rows, normal rows); None where these cannot all hold (a contact whose
    rows repeat a stuck one's: two wheels on one axle slide sideways together)."""
    n = model.system.n
    q, v = y[:n], np.asarray(y[n:], dtype=float)
    mode = model.mode(stuck).system
    A, b = mode.constraint_matrix(q, t, model.mode_params(stuck, params, directions, eta))

    def rows(velocity):
        slips = model.slips(t, np.r_[q, velocity], params)
        return np.concatenate([A @ velocity - b, *(slips[c] for c in breaking)])

    base = rows(v)
    S = np.column_stack([rows(v + e) - base for e in np.eye(n)])  # exact: the rows are linear in v
    target = np.concatenate([np.zeros(len(b)), *(size * directions[c] for c in breaking)])
    Ginv_St = np.linalg.solve(model.system.metric_at(q, params), S.T)
    seeded = v + Ginv_St @ np.linalg.lstsq(S @ Ginv_St, target - base, rcond=None)[0]
    return seeded if np.abs(rows(seeded) - target).max() <= 1e-3 * size else None


def _seeding(model, from_rest: tuple, t: float, y, params, directions: dict, eta: float, size: float):
    """mode -> the velocity of y seeded (:func:`_seeded`) for the contacts of ``from_rest`` (their slip
    zero to the tolerance) that slide in that mode, or None (none does, or the seed cannot hold); each
    mode's once (:func:`_settle` judges the mode it returns at the same seed, with the same directions)."""
    done: dict = {}

    def seeded(stuck: tuple):
        if stuck not in done:
            breaking = [c for c in range(len(stuck)) if from_rest[c] and not stuck[c]]
            done[stuck] = _seeded(model, stuck, t, y, params, breaking, directions, eta, size) if breaking else None
        return done[stuck]
    return seeded


def _projected(model, stuck: tuple, t: float, y, params, directions, eta: float) -> np.ndarray:
    """The velocity of y projected (G-orthogonally) onto the rows of the contacts stuck in mode ``stuck``."""
    n = model.system.n
    return model.mode(stuck).system.project(y[:n], y[n:], t, model.mode_params(stuck, params, directions, eta))


def _settle(model, stuck: tuple, t: float, y, params, cone, directions, eta: float, seeding=None) -> tuple:
    """The mode in which every stuck contact's needed force is inside its cone: a contact that
    would need more slides, in the direction opposite to that force. ``seeding``: mode -> the
    velocity its slides start from (:func:`_seeding`), at which the forces are judged."""
    stuck = list(stuck)
    n = model.system.n
    for _ in range(len(stuck) + 1):
        if not any(stuck):
            break
        velocity = seeding(tuple(stuck)) if seeding is not None else None
        at = y if velocity is None else np.r_[y[:n], velocity]
        lams = model.multipliers(tuple(stuck), t, at, model.mode_params(tuple(stuck), params, directions, eta))
        outside = [c for c, lam in enumerate(lams) if lam is not None and np.linalg.norm(lam) > cone(c, t, at)]
        if not outside:
            break
        # the contact furthest outside its cone (a cone of zero width, no load, before any other)
        c = max(outside, key=lambda c: (cone(c, t, at) <= 0, np.linalg.norm(lams[c]) / max(cone(c, t, at), 1e-300)))
        directions[c] = -lams[c] / np.linalg.norm(lams[c])
        stuck[c] = False
    return tuple(stuck)
