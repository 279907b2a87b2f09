"""Forward sensitivities of trajectories (CVODES): which derivatives ``simulate`` computes.

``simulate(model, t_span, y0, sensitivities=["mu", "eps", ("y0", 3), "y0"])`` integrates,
next to the state, s_j = dy/dtheta_j with s_j' = (df/dy) s_j + df/dtheta_j, the right-hand side
being one directional derivative of the compiled vector field per sensitivity (dual numbers; no
difference quotients). See ``cpp/include/nonholo/sensitivity.hpp`` for the mathematics,
including the projection onto the linearized constraint and the event-time sensitivities
dt*/dtheta = -(g_y s + g_theta) / (dg/dt). A y0 given in coordinate velocities ([q, q'] for Kane's
speeds, [q, u] for a frame-form reduced model) starts, at parameters p, from its G-orthogonal
projection onto the constraints at p (the identity at the given p, where y0 lies on them), as in
the coordinate form: the parameter sensitivities start at the derivative of that projection mapped
into the model's state (:func:`with_initial_values`), so every form of a model has the same
sensitivities. A y0 given in the model's own state ([q, w], [q, u] of the speeds) is held fixed,
except for a parameter of the holonomic constraints h(q; p) = 0, whose y0 held fixed lies off them at
every other p: its sensitivities start at the derivative of the start ``project_y0`` moves onto them
(Gauss-Newton in the kinetic metric, :func:`_holonomic_start`), with ``project_y0`` or without.
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import SimulationWarning
from ..system.friction_scale import eps_gradient, eps_index, gives_eps, scale_rule
from ..models.reduced import (mapped_initial_derivative, mapped_state_derivative,
                              maps_initial_state, projected_velocity, projects_initial_state)
from ..system.law_relaxation import expand_initial_state
from .holonomic_start import HELD_MIN, holonomic_parameters, holonomic_start_derivative, onto_holonomic_constraints

__all__ = ["sensitivity_spec", "attach_sensitivities", "with_initial_values", "moves_initial_state", "through_eps"]

_METHODS = ("staggered", "simultaneous")


def _one(model, item, names: list) -> list:
    """(parameter index, state index, name) triples for one entry of ``sensitivities``."""
    states = model.state_names
    if isinstance(item, sp.Symbol):  # a parameter's symbol: its name, whatever its assumptions
        item = item.name
    if isinstance(item, str) and item == "y0":
        return [(-1, i, f"y0[{s}]") for i, s in enumerate(states)]
    if isinstance(item, str):
        if item not in names:
            raise ValueError(f"sensitivities: unknown parameter {item!r}; the model's parameters are {names} "
                             f"(or 'y0', ('y0', i))")
        symbol = next((p for p in model.system.parameters if p.name == item), None)
        if symbol is not None and symbol.is_integer:  # cos(n theta) and cos(n (theta + 2 pi)) agree, d/dn not
            raise ValueError(f"sensitivities: parameter {item!r} is declared integer, so it has no derivative (SymPy "
                             "may have simplified its expressions under that, e.g. cos(n (theta + 2 pi)) -> "
                             "cos(n theta)); declare it real to differentiate, or leave it out")
        return [(names.index(item), -1, item)]
    if isinstance(item, tuple) and len(item) == 2 and item[0] == "y0":
        i = item[1]
        if isinstance(i, str):
            if i not in states:
                raise ValueError(f"sensitivities: ('y0', {i!r}) names no state; states are {states}")
            i = states.index(i)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < len(states):
            raise ValueError(f"sensitivities: ('y0', i) needs 0 <= i < {len(states)} or a state name, got {item!r}")
        return [(-1, int(i), f"y0[{states[int(i)]}]")]
    raise TypeError(f"sensitivities entries must be parameter names, 'y0' or ('y0', i), got {item!r}")


def sensitivity_spec(model, sensitivities, method: str = "staggered", error_control: bool = True):
    """The core's sensitivity request and the names of the sensitivities, from simulate's
    arguments (``sensitivities`` None: an empty request)."""
    if sensitivities is None:
        return {}, []
    if isinstance(sensitivities, (str, tuple)):
        sensitivities = [sensitivities]
    if isinstance(sensitivities, Mapping) or isinstance(sensitivities, (set, frozenset)):
        raise TypeError(f"sensitivities must be a list of parameter names, 'y0' or ('y0', i), in order, got "
                        f"{type(sensitivities).__name__} {sensitivities!r:.100}")
    if method not in _METHODS:
        raise ValueError(f"sensitivity_method must be one of {_METHODS}, got {method!r}")
    names = [*model.system.parameter_names, *model._extra]
    triples = [t for item in sensitivities for t in _one(model, item, names)]
    if not triples:
        raise ValueError("sensitivities is empty: name at least one parameter or 'y0'")
    labels = [t[2] for t in triples]
    duplicates = sorted({x for x in labels if labels.count(x) > 1})
    if duplicates:
        raise ValueError(f"sensitivities names {duplicates} more than once")
    spec = dict(parameters=[t[0] for t in triples], states=[t[1] for t in triples],
                staggered=method == "staggered", error_control=bool(error_control))
    return spec, labels


def through_eps(model, spec: dict, labels: list, params) -> tuple:
    """(spec, labels, chain): where the model's eps follows parameters of the system
    (:mod:`nonholo.system.friction_scale`) and the run does not give it, a sensitivity to such a
    parameter is the total derivative, d y / d p + (d eps / d p) d y / d eps: the request gains eps
    (if not asked for) and ``chain`` (None otherwise) is what :func:`attach_sensitivities` combines
    (the sensitivity equations are linear in the direction of the parameters, initial values
    included, so the combined columns are those of that direction)."""
    rule = scale_rule(model)
    if not spec or rule is None or gives_eps(params):
        return spec, labels, None
    hit = [j for j, label in enumerate(labels) if label in rule[1]]
    if not hit:
        return spec, labels, None
    added = "eps" not in labels
    if added:
        spec = {**spec, "parameters": [*spec["parameters"], eps_index(model)], "states": [*spec["states"], -1]}
        if "initial" in spec:
            spec["initial"] = [*spec["initial"], None]
        labels = [*labels, "eps"]
    return spec, labels, (hit, labels.index("eps"), added)


def _chained(result, chain) -> None:
    """The sensitivities of ``result`` to the parameters eps follows made total (:func:`through_eps`),
    and the column of eps dropped where only the chain asked for it."""
    hit, e, added = chain
    system = {name: result.params[name] for name in result.model.system.parameter_names}
    gradient = eps_gradient(result.model, system)
    # the sensitivities' axis last: (n_states, n_t, n_sens) as a view of the samples' (n_states, n_sens, n_t)
    samples = None if result.sensitivities is None else np.moveaxis(result.sensitivities, 1, -1)
    arrays = [samples, result.sensitivities_final, *result.t_events_sensitivities, *result.y_events_sensitivities]
    for array in (a for a in arrays if a is not None and np.size(a)):
        for j in hit:
            array[..., j] += gradient[result.sensitivity_names[j]] * array[..., e]
    if added:
        keep = [j for j in range(len(result.sensitivity_names)) if j != e]

        def drop(a, axis=-1):
            return None if a is None else np.ascontiguousarray(np.take(a, keep, axis=axis))
        result.sensitivities = drop(result.sensitivities, 1)
        result.sensitivities_final = drop(result.sensitivities_final)
        result.t_events_sensitivities = [drop(a) for a in result.t_events_sensitivities]
        result.y_events_sensitivities = [drop(a) for a in result.y_events_sensitivities]
        result.sensitivity_names = [result.sensitivity_names[j] for j in keep]


def attach_sensitivities(result, raw: dict, names: Sequence[str], chain=None):
    """Sets ``sensitivities`` (n_states, n_sens, n_t), ``sensitivity_names`` and, per event,
    ``t_events_sensitivities`` (n_occ, n_sens) and ``y_events_sensitivities``
    (n_occ, n_states, n_sens) on a SimulationResult, and ``sensitivities_final`` (n_states, n_sens)
    at ``y_final`` (also when ``t_eval=[]`` stores no samples; None when the last sample is before
    ``t_last``): after a terminal event those of the state at the stop, whose time moves with theta
    (:func:`_stopped`)."""
    if chain is not None and "sensitivities" not in raw and chain[2]:  # nothing integrated: as asked
        names, chain = [x for j, x in enumerate(names) if j != chain[1]], None
    result.sensitivity_names = list(names)
    result.sensitivities_final = None
    if not names:
        result.sensitivities = None
        result.t_events_sensitivities = result.y_events_sensitivities = None
        return result
    if "sensitivities" not in raw:  # a run that never started (simulate_many: rejected at its start, interrupted)
        # nothing integrated: empty as its samples (n_states, n_sens, 0), its events and its y_final (None)
        result.sensitivities = np.zeros((result.y.shape[0], len(names), result.t.size))
        result.t_events_sensitivities = [np.zeros((len(t), len(names))) for t in result.t_events]
        result.y_events_sensitivities = [np.zeros((len(t), result.y.shape[0], len(names))) for t in result.t_events]
        return result
    result.sensitivities = raw["sensitivities"]
    final = raw.get("sensitivities_final")
    if final is None and result.t.size and result.t[-1] == result.t_last:
        final = result.sensitivities[..., -1].copy()
    result.sensitivities_final = final
    result.t_events_sensitivities = list(raw["t_events_sensitivities"])
    for i, (times, dt) in enumerate(zip(result.t_events, result.t_events_sensitivities)):
        tangent = [t for t, row in zip(times, dt) if np.isnan(row).any()]
        if tangent:
            warnings.warn(f"event {i} is tangent to the trajectory (dg/dt = 0) at t = {tangent[0]:.6g}"
                          f"{f' and {len(tangent) - 1} more' if len(tangent) > 1 else ''}: its time has no "
                          "sensitivity there (NaN in t_events_sensitivities and y_events_sensitivities)",
                          SimulationWarning, stacklevel=3)
    result.y_events_sensitivities = [np.transpose(s, (0, 2, 1)) for s in raw["y_events_sensitivities"]]
    if result.status == 1 and result.sensitivities_final is not None:
        result.sensitivities_final = _stopped(result, result.sensitivities_final)
    if chain is not None:
        _chained(result, chain)
    return result


def _stopped(result, fixed_time: np.ndarray) -> np.ndarray:
    """The sensitivities of the state where a terminal event stopped the run: d/dtheta of y(t*(theta)),
    s(t*) + y'(t*) dt*/dtheta, which the stopping event's ``y_events_sensitivities`` hold (the samples'
    are at fixed times: an event x = 0.5 that stops a sleigh has dx/da = 0 at the stop, 0.11 at the
    fixed time). ``fixed_time`` where no event occurrence at t_last has them (a tangent event: NaN)."""
    for times, values in zip(result.t_events, result.y_events_sensitivities):
        if len(times) and times[-1] == result.t_last and np.isfinite(values[-1]).all():
            return np.array(values[-1])
    return fixed_time


def with_initial_values(spec: dict, model, y0, t0: float, p, project_y0: bool) -> dict:
    """``spec`` (:func:`sensitivity_spec`) with the parameter sensitivities' initial values where
    ``y0`` is given in another form than the model's state ([q, q'] for Kane's speeds, (q, u) for a
    frame-form reduced model: always projected onto the constraints at p, then mapped) or, in the
    model's own form, projected (``project_y0``): the map into the model's state depends on the
    parameters (the frame X(q), the projection in G and A), so d y(t0) / d p is not zero
    (``models.reduced.mapped_state_derivative``); and, whatever ``project_y0``, for a parameter of the
    holonomic constraints h(q; p) = 0, at the derivative of the start moved onto them
    (:func:`_holonomic_start`). ``spec`` unchanged otherwise."""
    if not spec:
        return spec
    y0 = np.asarray(y0, dtype=float)
    if not moves_initial_state(spec, model, y0, project_y0):
        return spec
    moved = holonomic_parameters(model.system)
    initial = [None if j < 0 else _holonomic_start(model, y0, t0, p, project_y0, j) if j in moved
               else mapped_state_derivative(model, y0, t0, p, project_y0, j)
               if maps_initial_state(model, y0) or projects_initial_state(model, project_y0) else None
               for j in spec["parameters"]]
    if projects_initial_state(model, project_y0) and not maps_initial_state(model, y0):
        # a y0 off the constraint set: d(projected y0)/d y0[i] depends on the given v, which the
        # core's projection of the unit vector at the projected start does not see
        initial = [mapped_initial_derivative(model, y0, t0, p, i) if j < 0 else d
                   for j, i, d in zip(spec["parameters"], spec["states"], initial)]
    if all(d is None for d in initial):
        return spec
    return {**spec, "initial": [None if d is None else d.tolist() for d in initial]}


def moves_initial_state(spec: dict, model, y0, project_y0: bool) -> bool:
    """True when :func:`with_initial_values` gives ``spec`` initial values for this ``y0``: each run
    of a batch then starts its sensitivities from its own."""
    y0 = np.asarray(y0, dtype=float)
    return bool(spec) and (maps_initial_state(model, y0) or projects_initial_state(model, project_y0)
                           or bool(holonomic_parameters(model.system).intersection(spec["parameters"])))


def _holonomic_start(model, y0: np.ndarray, t0: float, p, project_y0: bool, index: int) -> np.ndarray:
    """d y(t0) / d p for a parameter p = p[index] of the holonomic constraints h(q; p) = 0: a y0 on them
    at p lies off them at p + dp, where a run starts only with ``project_y0``, from q moved onto them
    by Gauss-Newton steps in the kinetic metric (``holonomic_start.onto_holonomic_constraints``), the
    velocity as ``initial_state`` treats it: mapped at the given q (a y0 in coordinate velocities of a
    frame-form or speeds model), projected at the moved q (``project_y0``), or held (a constrained
    model's rows then met by the core's projection onto the linearized constraint). This is the
    derivative of that start, q's exact from a y0 on them (-G^-1 J^T (J G^-1 J^T)^-1 dh/dp) and by central
    differences of the move from one off them, a projected velocity's by
    central differences along (dq/dp, dp): differences of runs with ``project_y0=True`` agree with it
    (a hitch bar's length L gave dy/dL = 0 from a y0 held fixed, whose runs at L +- dL were refused)."""
    n = model.system.n
    derivative = np.zeros(model.n_states)
    start = onto_holonomic_constraints(model.system, y0, t0, p, HELD_MIN) if project_y0 else y0
    # at the start the run takes, q moved onto h(q; p) = 0 (at y0's own q, off them at the run's p, an outside
    # probe's pendulum run at length l from a y0 on the unit circle had every sensitivity to l times l too large)
    if start is y0:  # on them at p: the first-order Gauss-Newton step is the move's exact derivative
        derivative[:n] = holonomic_start_derivative(model.system, start[:n], t0, p, index)
    else:  # moved: the steps turn with J along the way (their sum is no normal of the set), so the derivative
        # of the move itself, by central differences (an outside probe's ellipse pendulum from 0.1 off: 7% off)
        step = 1e-5 * (1.0 + abs(float(p[index])))
        ends = []
        for sign in (1.0, -1.0):
            shifted = np.array(p, dtype=float)
            shifted[index] += sign * step
            ends.append(onto_holonomic_constraints(model.system, y0, t0, list(shifted), HELD_MIN)[:n])
        derivative[:n] = (ends[0] - ends[1]) / (2.0 * step)
    if maps_initial_state(model, y0):  # mapped at the given q, then q moved, w held (initial_state)
        derivative[n:] = mapped_state_derivative(model, y0, t0, p, True, index)[n:]
        return derivative
    given = expand_initial_state(model, y0)
    if not projects_initial_state(model, project_y0) or given.shape != (model.n_states,):
        return derivative  # v held
    step = 1e-6 * (1.0 + abs(float(p[index])))
    sides = []
    for sign in (1.0, -1.0):  # v projected at the moved q (initial_state), at the parameters moved with it
        shifted = np.array(p, dtype=float)
        shifted[index] += sign * step
        state = np.array(given, dtype=float)
        state[:n] = start[:n] + sign * step * derivative[:n]
        sides.append(projected_velocity(model, t0, state, list(shifted)))
    derivative[n: 2 * n] = (sides[0] - sides[1]) / (2.0 * step)
    return derivative
