"""Discrete (variational) integration: the midpoint discrete Lagrange-d'Alembert scheme.

``system.discrete(h)`` builds the integrator (C++); :func:`nonholo.integrate.discrete.simulate_discrete`
runs it and returns a result shaped like ``simulate``'s. The scheme (Cortes-Martinez; Fedorov-Zenkov 2005 section 2.2,
eqs. (4)-(6)) uses the discrete Lagrangian
L_d(q_k, q_{k+1}) = h L((q_k + q_{k+1})/2, (q_{k+1} - q_k)/h), the constraint at the midpoint
A(q_m) (q_{k+1} - q_k)/h = b(q_m, t_m), and forces split equally between the two ends
(F_d^+- = h/2 F at the midpoint). It is second order, exactly satisfies the discrete constraint,
and is symmetric (time-reversible) for conservative systems.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import numpy.typing as npt

from .. import _core
from ..numerics import number_text
from .model import remade

__all__ = ["DiscreteModel"]


class DiscreteModel:
    """The midpoint discrete Lagrange-d'Alembert integrator of a system with step ``h``.

    Implements :class:`~nonholo.models.model.ModelProtocol`: its state at the nodes is ``[q, v]`` with
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
        self.recipe = None  # set by System.discrete (nonholo.system.recipes)
        self._core = _core.DiscreteIntegrator(system.core, self.h)
        # the residual |A v - b| of the node velocities is that of the nonholonomic model's states
        self._states = system.nonholonomic(form="qdot")

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
        return f"<nonholo.DiscreteModel midpoint DLA of {self.system.name!r}, h={number_text(self.h)}>"

    def __reduce__(self):
        return remade(self)
