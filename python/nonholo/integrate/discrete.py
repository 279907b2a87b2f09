"""Running the discrete midpoint Lagrange-d'Alembert integrator (:class:`~nonholo.models.discrete.DiscreteModel`)
and its result: the trajectory at the nodes, the discrete momenta and the multipliers of the steps."""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import sympy as sp

from .. import _core
from .. import options as check
from ..errors import IntegrationError, SimulationWarning
from ..models.discrete import DiscreteModel
from ..progress import current_cancel
from ..system.margins import DOMAIN_FLAG, domain_exit, domain_message
from .result import SimulationResult
from .simulation import initial_state

__all__ = ["DiscreteResult", "simulate_discrete"]


class DiscreteResult(SimulationResult):
    """A :class:`SimulationResult` of a discrete integration, with the discrete momenta
    ``p`` (n, N + 1), the multipliers ``lam`` (k, N) of the steps and
    ``stats["max_constraint_residual"]``, the largest |A(q_m) v_m - b| over the steps taken (with
    ``newton_iterations`` and ``cpu_time``, also over those a stop at a surface's domain dropped:
    :func:`simulate_discrete`). ``lam[:, k]``
    for k >= 1 approximates the continuous multiplier lambda(t_k) to second order in h; ``lam[:, 0]``
    also takes up the part of p_0 = G v_0 normal to the constraints (about half of lambda(0) on a
    sleigh, at every h). The momenta ``p`` tend to G v: their part along D to second order, their
    part normal to D to first order (about h |lambda| / 2)."""

    def __init__(self, raw: dict, model, params: dict, p, lam):
        super().__init__(raw, model, params)
        self.p = p
        self.lam = lam


def simulate_discrete(
    model: DiscreteModel,
    t_span: Sequence[float],
    y0: npt.ArrayLike,
    *,
    params: Mapping | None = None,
    newton_tol: float = 1e-14,
    max_newton_iterations: int = 50,
    max_wall_time: float | None = None,
    max_steps: int = 10_000_000,
    project_y0: bool = False,
    raise_on_failure: bool = False,
) -> DiscreteResult:
    """Run the discrete integrator from continuous data y0 = [q0, v0] over t_span.

    The start uses p_0 = G(q_0) v_0, the continuous momentum (its component on D° is absorbed by
    the first multiplier); with it the scheme converges with order 2 in h. ``t_span`` must be a
    whole number of steps. Newton's method solves each step to ``newton_tol`` (relative), from the
    explicit predictor q_k + h G^-1 p_k; when it fails (no convergence, or a second correction as
    large as the first: the iteration left the predictor's neighbourhood, where a root may lie off the
    branch of the continuous flow) the result has status -1, a message saying where and why, and the
    trajectory up to there. A step so large that the discrete equations have no root near the flow
    can still converge, to a root far from it: status 0 does not say the step resolves the motion
    (compare a run at h / 2). Of a conservative system (no force, no affine part, no time in G, V or A)
    a run whose energy leaves its start by more than ENERGY_DRIFT (10%) of the largest kinetic energy
    along it warns so (a SimulationWarning, kept in ``result.warnings``). Every step
    is stored: more than ``max_steps`` of them is refused before the run (1e11 steps of h = 1e-8
    filled the memory).

    A rolling body whose surface leaves the domain of its support map (``system.contact_domains``: a
    disc that falls flat) ends the run as it ends the continuous models' (status 1, ``flag_name``
    ``"SURFACE_DOMAIN"``, the message saying where, a SimulationWarning kept in ``result.warnings``):
    the result keeps the nodes up to the last one inside the domain, before the first step that
    leaves it (at a node, or between two nodes where the margin's cubic interpolant from its values
    and rates at them falls to zero: :func:`nonholo.system.margins.domain_exit`); the steps after it,
    which the integrator took, are dropped with their momenta and multipliers. A y0 outside the
    domain is refused, as by ``nh.simulate``.

    Examples
    --------
    >>> import nonholo as nh
    >>> sleigh = nh.systems.chaplygin_sleigh()
    >>> run = nh.simulate_discrete(sleigh.discrete(0.1), (0, 10), [0, 0, 0, 1.0, 0, 0.5])
    >>> energy = run.energy()
    >>> run.status, run.t.size, f"{abs(energy[-1] / energy[0] - 1):.1e}"
    (0, 101, '4.3e-05')
    """
    if not isinstance(model, DiscreteModel):
        raise TypeError(f"model must be a nonholo DiscreteModel (system.discrete(h)), got {type(model).__name__}")
    t0, tf = check.t_span(t_span, forward=True)
    newton_tol = check.positive(newton_tol, "newton_tol")
    max_newton_iterations = check.count(max_newton_iterations, "max_newton_iterations")
    max_wall_time = check.wall_time(max_wall_time)
    max_steps = check.count(max_steps, "max_steps")
    steps = (tf - t0) / model.h
    if not steps <= max_steps:
        raise ValueError(f"t_span = ({t0}, {tf}) takes {steps:.3g} steps of h = {model.h}, more than max_steps = "
                         f"{max_steps} (every step is stored): raise max_steps or take a larger h")
    n_steps = int(round(steps))
    if abs(steps - n_steps) > 1e-9 * max(1.0, steps):
        raise ValueError(f"t_span = ({t0}, {tf}) is not a whole number of steps h = {model.h}")
    p = model.param_vector(params)
    y0 = initial_state(model.system.nonholonomic(form="qdot"), y0, t0, p, project_y0)
    n = model.system.n
    raw = _core.integrate_discrete(model.core, p, t0, n_steps, y0[:n], y0[n:], newton_tol, max_newton_iterations,
                                   max_wall_time, current_cancel())
    stats = dict(n_steps=len(raw["t"]) - 1, n_rhs=0, n_jac=0, n_lin_setups=0,
                 newton_iterations=raw["newton_iterations"], cpu_time=raw["cpu_time"],
                 max_constraint_residual=raw["max_constraint_residual"])
    result_raw = dict(t=raw["t"], y=np.vstack([raw["q"], raw["v"]]), status=raw["status"], message=raw["message"],
                      flag=0, flag_name="" if raw["status"] == 0 else "NEWTON_FAILURE", t_last=raw["t_last"],
                      stats=stats, t_events=[], y_events=[], messages=[])
    stop = domain_exit(model.system, raw["t"], result_raw["y"], p)
    if stop is not None:  # a rolling body's surface left its domain: the run ends at the last node inside it
        _truncated(model.system, raw, result_raw, *stop)
    result = DiscreteResult(result_raw, model, dict(zip(model.system.parameter_names, p)), raw["p"], raw["lambda"])
    if stop is not None:
        result.warnings.append(result.message)
        warnings.warn(result.message, SimulationWarning, stacklevel=2)
    drift = energy_drift(result) if result.status >= 0 else None
    if drift is not None:
        result.warnings.append(drift)
        warnings.warn(drift, SimulationWarning, stacklevel=2)
    if result.status < 0:
        if raise_on_failure:
            raise IntegrationError(result.message, result)
        warnings.warn(result.message, SimulationWarning, stacklevel=2)
    return result


#: The largest change of a conservative system's energy along a discrete run, relative to its largest
#: kinetic energy there, that passes without a warning: the scheme keeps the energy within O(h^2) of its
#: start where h resolves the motion (1e-3 on a sleigh at h = 0.1 over t = 1000, 7% at h = 0.5), and a step
#: too large for the motion still converges (a pendulum swung to 2.5 rad: 26% at h = 0.5, six steps a
#: swing; at h = 2 its energy went from 7.86 to 4448, status 0).
ENERGY_DRIFT = 0.1


def conservative(system) -> bool:
    """No force, no affine constraint part and no time in the metric, potential or constraint rows: the
    motion keeps the energy 1/2 v^T G v + V (the constraint forces do no work)."""
    parts = (system.metric, sp.Matrix([system.potential]), system.constraints)
    return (all(sp.sympify(e).is_zero for e in (*system.force, *system.affine))
            and getattr(system, "applied_force", None) is None
            and not any(system.time in part.free_symbols for part in parts))


def energy_drift(result) -> str | None:
    """The warning of a discrete run of a :func:`conservative` system whose energy left its start by more
    than ENERGY_DRIFT of the largest kinetic energy along it (h does not resolve the motion), else None."""
    system = result.model.system
    if result.t.size < 2 or not conservative(system):
        return None
    velocity = result.y[system.n:]
    E = result.model.energy(result.t, result.y, result.params, velocity=velocity)
    kinetic = E - result.model.energy(result.t, result.y, result.params, velocity=np.zeros_like(velocity))
    scale = float(np.max(kinetic))
    change = np.abs(E - E[0])
    k = int(np.argmax(change))
    if not (scale > 0 and change[k] > ENERGY_DRIFT * scale):
        return None
    return (f"the energy, which this system's motion keeps, changed by {change[k]:.3g} (from {E[0]:.6g} to {E[k]:.6g} "
            f"at t = {result.t[k]:.6g}), {change[k] / scale:.2g} times the largest kinetic energy of the run: the step "
            f"h = {result.model.h:g} does not resolve the motion; compare a run at h / 2")


def _truncated(system, raw: dict, result_raw: dict, i: int, c: int) -> None:
    """The run cut after node i - 1, the last inside the domain of contact c's surface (node i, the end
    of the step that left it, is outside): status 1, flag_name DOMAIN_FLAG and the message of the
    continuous runs, which stop where the domain's margin reaches zero. A Newton failure after it (past
    the domain, where the discrete equations have no meaning) is not the run's."""
    i = max(i, 1)  # y0 is inside (initial_state refuses one outside)
    t_stop = float(raw["t"][i - 1])
    raw["p"], raw["lambda"] = raw["p"][:, :i], raw["lambda"][:, : i - 1]
    result_raw.update(t=raw["t"][:i], y=result_raw["y"][:, :i], status=1, flag_name=DOMAIN_FLAG, t_last=t_stop,
                      message=domain_message(system, c, t_stop))
    result_raw["stats"]["n_steps"] = i - 1
