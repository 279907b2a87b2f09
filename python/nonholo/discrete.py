"""Discrete (variational) integration: the midpoint discrete Lagrange-d'Alembert scheme.

``system.discrete(h)`` builds the integrator (C++), ``simulate_discrete`` runs it and returns a
result shaped like ``simulate``'s. The scheme (Cortes-Martinez; Fedorov-Zenkov 2005 section 2.2;
notes/002_discrete_sleigh.md section 3.1) uses the discrete Lagrangian
L_d(q_k, q_{k+1}) = h L((q_k + q_{k+1})/2, (q_{k+1} - q_k)/h), the constraint at the midpoint
A(q_m) (q_{k+1} - q_k)/h = b(q_m, t_m), and forces split equally between the two ends
(F_d^+- = h/2 F at the midpoint). It is second order, exactly satisfies the discrete constraint,
and is symmetric (time-reversible) for conservative systems.
"""

from __future__ import annotations

import warnings
from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from . import _core
from . import _options as check
from .errors import IntegrationError, SimulationWarning
from .result import SimulationResult

__all__ = ["DiscreteModel", "DiscreteResult", "simulate_discrete"]


class DiscreteModel:
    """The midpoint discrete Lagrange-d'Alembert integrator of a system with step ``h``.

    Implements :class:`~nonholo.model.ModelProtocol`: its state at the nodes is ``[q, v]`` with
    v_k on the constraint set (the velocity whose momentum is the discrete momentum p_k), so the
    physical velocity is v, the energy 1/2 v^T G v + V, the constraint residual |A v - b|.

    Attributes
    ----------
    system : System
    h : float
        The time step.
    state_names : list of str
        ``[q, v]`` as for the nonholonomic model.
    """

    kind = "discrete"

    def __init__(self, system, h: float):
        self.system = system
        self.h = float(h)
        self._core = _core.DiscreteIntegrator(system.core, self.h)
        # the residual |A v - b| of the node velocities is that of the nonholonomic model's states
        self._states = system.nonholonomic()

    @property
    def core(self):
        return self._core

    @property
    def state_names(self) -> list:
        return self._states.state_names

    @property
    def n_states(self) -> int:
        return 2 * self.system.n

    @property
    def n_velocities(self) -> int:
        return self.system.n

    @property
    def param_names(self) -> list:
        return list(self.system.parameter_names)

    @property
    def params(self) -> dict:
        return dict(zip(self.param_names, self.param_vector()))

    def param_vector(self, params: Mapping | None = None) -> list:
        return self.system.param_vector(params)

    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """v at the nodes: shape (n,) for one state, (n, n_t) for a trajectory."""
        return self._states.velocity(t, y, params)

    def energy(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None, *,
               velocity: npt.ArrayLike | None = None) -> np.ndarray | float:
        """1/2 v^T G(q) v + V(q) at the nodes (C++, one pass)."""
        return self._states.energy(t, y, params, velocity=velocity)

    def constraint_residual(self, t: npt.ArrayLike, y: npt.ArrayLike,
                            params: Mapping | None = None) -> np.ndarray | float:
        """|A v - b| / (|A| |v| + |b|) at the nodes (C++, one pass)."""
        return self._states.constraint_residual(t, y, params)

    def step(self, t: float, q, p, params: Mapping | None = None, lambda0=None):
        """One step from (t, q_k, p_k): returns (q_{k+1}, p_{k+1}, lambda_k, Newton iterations)."""
        return self._core.step(float(t), np.asarray(q, float), np.asarray(p, float), self.param_vector(params),
                               None if lambda0 is None else np.asarray(lambda0, float))

    def __repr__(self) -> str:
        return f"<nonholo.DiscreteModel midpoint DLA of {self.system.name!r}, h={self.h:g}>"

    def __reduce__(self):
        return (DiscreteModel, (self.system, self.h))


class DiscreteResult(SimulationResult):
    """A :class:`SimulationResult` of a discrete integration, with the discrete momenta
    ``p`` (n, N + 1), the multipliers ``lam`` (k, N) of the steps and
    ``stats["max_constraint_residual"]``, the largest |A(q_m) v_m - b| over the steps."""

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
    project_y0: bool = False,
    raise_on_failure: bool = False,
) -> DiscreteResult:
    """Run the discrete integrator from continuous data y0 = [q0, v0] over t_span.

    The start uses p_0 = G(q_0) v_0, the continuous momentum (its component on D° is absorbed by
    the first multiplier); with it the scheme converges with order 2 in h. ``t_span`` must be a
    whole number of steps. Newton's method solves each step to ``newton_tol`` (relative); when it
    fails (step too large, or the branch of the continuous flow lost) the result has status -1,
    a message saying where and why, and the trajectory up to there.
    """
    from ._simulate import _initial_state  # the same checks of y0 as simulate

    if not isinstance(model, DiscreteModel):
        raise TypeError(f"model must be a nonholo DiscreteModel (system.discrete(h)), got {type(model).__name__}")
    t0, tf = check.t_span(t_span, forward=True)
    newton_tol = check.positive(newton_tol, "newton_tol")
    max_newton_iterations = check.count(max_newton_iterations, "max_newton_iterations")
    max_wall_time = check.wall_time(max_wall_time)
    steps = (tf - t0) / model.h
    n_steps = int(round(steps))
    if abs(steps - n_steps) > 1e-9 * max(1.0, steps):
        raise ValueError(f"t_span = ({t0}, {tf}) is not a whole number of steps h = {model.h}")
    p = model.param_vector(params)
    y0 = _initial_state(model.system.nonholonomic(), y0, t0, p, project_y0)
    n = model.system.n
    raw = _core.integrate_discrete(model.core, p, t0, n_steps, y0[:n], y0[n:], newton_tol, max_newton_iterations,
                                   max_wall_time)
    stats = dict(n_steps=len(raw["t"]) - 1, n_rhs=0, n_jac=0, n_lin_setups=0,
                 newton_iterations=raw["newton_iterations"], cpu_time=raw["cpu_time"],
                 max_constraint_residual=raw["max_constraint_residual"])
    result_raw = dict(t=raw["t"], y=np.vstack([raw["q"], raw["v"]]), status=raw["status"], message=raw["message"],
                      flag=0, flag_name="" if raw["status"] == 0 else "NEWTON_FAILURE", t_last=raw["t_last"],
                      stats=stats, t_events=[], y_events=[], messages=[])
    result = DiscreteResult(result_raw, model, dict(zip(model.system.parameter_names, p)), raw["p"], raw["lambda"])
    if result.status < 0:
        if raise_on_failure:
            raise IntegrationError(result.message, result)
        warnings.warn(result.message, SimulationWarning, stacklevel=2)
    return result
