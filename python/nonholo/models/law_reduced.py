r"""The reduced model of order K on the slow manifold of a nonlinear friction law.

``system.reduced(order=K, law=..., normal=...)`` for a law other than the linear one: state
``[q, u]`` (u on the constraint set A u = b), velocity v = u + s with the slip truncated after
the law's scale to the K-th power, s = W sum_{k<=K} eps^k varsigma_(k-1)(t, q, u), and u' the
exact projected acceleration at v (:mod:`nonholo.system.law_slow_manifold`). Not stiff; error
O(eps^(K+1)) against ``system.friction(law=...)`` started on its slow manifold (``system.slip(q, u,
order, law=...)``), while the constraint force stays inside the friction cone.

The slip coefficients are evaluated in Python series arithmetic at every right-hand side, and the
model is integrated by SciPy's DOP853 (``nonholo.integrate.law_reduced``), not by the C++ core. It is
the reference of the tests: ``system.reduced(order=K, law=...)`` builds the C++ model of the same
expansion (:class:`nonholo.models.law_core.CoreLawReducedModel`).

The friction ratio rho_c of each contact, |lambda_c| (lambda the nonholonomic constraint force) over
the law's largest force in its direction (mu N_c, the cone's edge, for Coulomb friction; along the law
itself for a law whose range is not a disc), measures how close the run is to the fold of the slow
manifold at rho_c = 1, where the leading slip varsigma_0 (the creep, v_s rho / sqrt(1 - rho^2) for
Coulomb) and every higher term blow up. A run reports it (``result.friction_ratio``, one row per
contact) and warns (SimulationWarning) where it exceeds ``RATIO_THRESHOLD``; it stops where it reaches
``RATIO_STOP``: beyond, no slip of the law carries the force and the reduced model does not exist.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import numpy.typing as npt

from .. import _core
from ..numerics import number_text
from .model import real_time, samples_of

__all__ = ["LawReducedModel", "LawReducedParameters", "RATIO_THRESHOLD", "RATIO_STOP"]

RATIO_THRESHOLD = 0.9  # warn beyond: the creep is 2.3 times its linear value, the terms grow like (1 - rho^2)^-j
RATIO_STOP = 0.999  # the run stops: the slow manifold folds at 1


class LawReducedParameters:
    """What the reduced models of a law (this Python reference and the C++ one,
    :class:`nonholo.models.law_core.CoreLawReducedModel`) share: the state [q, u] and the system's
    parameters, without eps (the law's scale is the small parameter)."""

    @property
    def n_states(self) -> int:
        return 2 * self.system.n

    @property
    def param_names(self) -> list:
        return list(self.system.parameter_names)

    @property
    def params(self) -> dict:
        return {s.name: v for s, v in self.system.parameters.items()}

    def param_vector(self, params: Mapping | None = None) -> list:
        if params and "eps" in params:
            raise ValueError("params: the reduced model of a law takes its scale from the law (eps is not a parameter "
                             "of it); give another law")
        return [float(x) for x in self.system.param_vector(params)]


class LawReducedModel(LawReducedParameters):
    """``system.reduced(order=K, law=...)`` for a nonlinear law (module docstring): ``order`` K,
    ``law``, ``eps`` the law's scale, ``expansion`` the :class:`~nonholo.system.law_slow_manifold.
    LawSlowManifold`. ``nh.simulate`` runs it."""

    kind = "reduced"
    frame = None
    recipe = None  # the factory call that made it (nonholo.system.recipes), set by system.reduced
    method = "dop853"

    def __init__(self, system, expansion, order: int):
        self.system, self.expansion, self.order = system, expansion, order
        self.law = expansion.law
        self.state_names = [*system.coordinate_names, *(f"u_{q}" for q in system.coordinate_names)]

    @property
    def eps(self) -> float:
        """The law's scale at the system's parameters (the small parameter of the expansion)."""
        return self.expansion.scale(self.system.param_vector())

    def rhs(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """(q', u') at (t, y), shape (2n,)."""
        return self._rhs(real_time(t), np.asarray(y, dtype=float), self.param_vector(params))

    def _rhs(self, t: float, y: np.ndarray, p: list) -> np.ndarray:
        n = self.system.n
        v, udot = self.expansion.reduced_rhs(t, y[:n], y[n:], p, self.order, self.expansion.scale(p))
        return np.concatenate([v, udot])

    def slip(self, t: float, q, u, params: Mapping | None = None) -> np.ndarray:
        """The truncated slip s = sum_{k<=K} eps^k h^(k)(t, q, u), shape (n,)."""
        p = self.param_vector(params)
        if not self.order:
            return np.zeros(self.system.n)
        H = self.expansion.slip(real_time(t), q, u, p, self.order)
        eps = self.expansion.scale(p)
        return sum(eps ** (k + 1) * H[k] for k in range(self.order))

    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None, **_) -> np.ndarray:
        """The physical velocity v = u + s of a state (n,) or a trajectory (n, n_t)."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        n = self.system.n
        V = np.array([self._rhs(ti, yi, self.param_vector(params))[:n] for ti, yi in zip(t, Y)]).reshape(-1, n)
        return V[0] if scalar else V.T

    def friction_ratio(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """The friction ratio per contact (|lambda_c| over the law's largest force in its direction) at a
        state (n_contacts,) or a trajectory (n_contacts, n_t)."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        n, p = self.system.n, self.param_vector(params)
        R = np.array([self.expansion.friction_ratio(ti, yi[:n], yi[n:], p) for ti, yi in zip(t, Y)])
        R = R.reshape(len(t), -1)
        return R[0] if scalar else R.T

    def energy(self, t, y, params: Mapping | None = None, *, velocity=None):
        """1/2 v^T G v + V(q) at the physical velocity."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        V = self.velocity(t, Y.T, params) if velocity is None else np.asarray(velocity, dtype=float)
        V = np.ascontiguousarray(np.asarray(V).reshape(self.system.n, -1).T)
        E = _core.trajectory_energy(self.system.core, t, np.ascontiguousarray(Y[:, : self.system.n]), V,
                                    self.param_vector(params))
        return float(E[0]) if scalar else E

    def __repr__(self) -> str:
        return (f"<nonholo.Model reduced of order {self.order} of {self.system.name!r} on the slow manifold of the "
                f"{self.law.name} law, scale {number_text(self.eps)}: states {self.state_names}>")

    def __reduce__(self):  # as every model: the call that made it
        from .model import remade

        return remade(self)
