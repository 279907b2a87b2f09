r"""The reduced model of order K on the slow manifold of a nonlinear friction law, run in C++.

``system.reduced(order=K, law=..., normal=...)`` for a law other than the linear one (the linear
law keeps the model of ``system.reduced(eps)``): state ``[q, u]`` (u on the constraint set
A u = b), velocity v = u + s with s = W sum_{k<=K} eps^k varsigma_(k-1)(t, q, u), and u' the exact
projected acceleration at v. The expansion is that of :mod:`nonholo.system.law_slow_manifold` (its
Python implementation is the reference of the tests), carried out in C++
(``cpp/include/nonholo/law_slow_manifold.hpp``, the slip of the core's one reduced model,
``models/reduced.hpp``, whose right-hand side is the linear law's): the law of each contact is lowered to a tape
of [varsigma_c, q, v, t, p], the leading slip varsigma_0 solves Phi_c(varsigma_0) = -lambda_c by
Newton's method with the tape's Jacobian by forward AD, and the higher orders come from the
chord iteration in bivariate Taylor arithmetic on the same tape. ``nh.simulate`` integrates it
with the core's DOP853 or CVODE (no Python per step).

The friction ratio rho_c of each contact, |lambda_c| over the law's largest force in the direction of
lambda_c (saturation N_c for a law whose range is a disc; found along the law itself for any other:
an elliptic law, a law with a local peak), measures how close the run is to the fold of the slow
manifold at rho_c = 1. A run reports it at its output times (``result.friction_ratio``), warns where
it exceeds ``RATIO_THRESHOLD`` and stops where it reaches ``RATIO_STOP``: the event RATIO_STOP - max_c
rho_c = 0 (:class:`FoldMargin`, evaluated in C++ and located on DOP853's dense output or by CVODE's
root finding), for every law. ``method="auto"`` runs DOP853 when the model's
right-hand side is cheap against Adams' per-step overhead (``core.explicit_rk_pays``, as for the
linear law's reduced models), with the caller's events too, else Adams. A run with
sensitivities has no fold event and stops at the fold itself (a ModelError of the right-hand side).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import numpy.typing as npt
import sympy as sp

from .. import _core
from ..numerics import number_text
from ..errors import ModelError
from ..expressions.lowering import lower
from .law_reduced import LawReducedModel, LawReducedParameters
from ..system.law_realization import law_limits
from ..system.margins import Margin
from .model import Model, real_time, samples_of

__all__ = ["CoreLawReducedModel", "LAW_REDUCED_MODELS", "law_expansion_core", "law_slip_coefficients"]


def law_expansion_core(expansion):
    """The law of a :class:`~nonholo.system.law_slow_manifold.LawSlowManifold` as the tapes of the
    C++ model (``_core.LawExpansion``): per contact Phi_c of [varsigma_c, q, v, t, p], the scale of
    the parameters, the cone's edge per contact of [q, v, t, p] (None when no contact has one)."""
    system = expansion.system
    inputs = list(system._inputs)
    found = expansion.expressions
    laws = [lower(z, [*zeta, *inputs]).tape() for zeta, z in found["laws"]]
    scale = lower([found["scale"]], list(system.parameters)).tape()
    has_limit = [limit is not None for limit in found["limits"]]
    limits = None
    if any(has_limit):
        limits = lower([sp.S.Zero if limit is None else limit for limit in found["limits"]], inputs).tape()
    disc = [d and h for d, h in zip(expansion.disc, has_limit)]
    return _core.LawExpansion(expansion.law.name, laws, [list(rows) for rows in expansion.groups], scale, limits,
                              has_limit, disc)


def law_slip_coefficients(expansion, t: float, q, u, p: list, order: int) -> tuple:
    """(h^(1..order) (order, n) of the slow manifold of ``expansion``'s law at (t, q, u), the law's
    scale eps at the parameters p), by the C++ expansion (``system.slip(q, u, order, law=...)``; the
    reference is ``expansion.slip``); the scale is the one the law's reduced model sums with."""
    system, law = expansion.system.core, law_expansion_core(expansion)
    return _core.law_slip(system, law, float(t), q, u, p, order), _core.law_scale(system, law, p)


class LawVectorField(Model):
    """The right-hand side of a :class:`CoreLawReducedModel` as a :class:`Model` (what ``nh.simulate``
    integrates in C++); its physical velocity is v = u + s, the first n components of the
    right-hand side: NaN at a stored state where it does not exist (a failed run's last, where no
    slip carries the constraint force)."""

    def _velocity(self, t: np.ndarray, Y: np.ndarray, p: list) -> np.ndarray:
        n = self.system.n

        def at(ti, yi):
            try:
                return self._core.rhs(float(ti), np.ascontiguousarray(yi), p)[:n]
            except ModelError:
                return np.full(n, np.nan)

        return np.asarray([at(ti, yi) for ti, yi in zip(t, Y)], dtype=float).reshape(-1, n)


class CoreLawReducedModel(LawReducedParameters):
    """``system.reduced(order=K, law=...)`` for a nonlinear law (module docstring): ``order`` K,
    ``law``, ``eps`` the law's scale, ``expansion`` the
    :class:`~nonholo.system.law_slow_manifold.LawSlowManifold` (the law's expressions, and the
    Python reference), ``field`` the C++ vector field. ``nh.simulate`` runs it."""

    kind = "reduced"
    frame = None
    recipe = None  # the factory call that made it (nonholo.system.recipes), set by system.reduced

    @property
    def n_velocities(self) -> int:
        """Number of velocity states after q: n, the u of the state [q, u] (as the linear law's
        reduced model in coordinates)."""
        return self.system.n

    @property
    def label(self) -> str:
        """What the model is, for display (results' titles, summaries and exports): the reduced
        model and its law; ``kind`` stays "reduced"."""
        return f"reduced ({self.law.name} law)"

    def __init__(self, system, expansion, order: int):
        self.system, self.expansion, self.order = system, expansion, order
        self.law = expansion.law
        self.law_core = law_expansion_core(expansion)
        self.state_names = [*system.coordinate_names, *(f"u_{q}" for q in system.coordinate_names)]
        core = _core.reduced_model(system.core, order, law=self.law_core)
        self.field = LawVectorField(system, "reduced", core, order=order, state_names=self.state_names)
        # the loads and rolling speeds its law uses, as the law's friction model records them: a run of
        # the field stops where one reaches zero and starts only where they are positive (system.margins)
        self.contact_loads, self.contact_speeds = self.field.contact_loads, self.field.contact_speeds = \
            law_limits(system, expansion)

    @property
    def core(self):
        return self.field.core

    @property
    def constrained(self) -> bool:
        """True: the state's u lives on A(q) u = b(q, t) (as the linear law's reduced models)."""
        return self.field.constrained

    @property
    def eps(self) -> float:
        """The law's scale at the system's parameters (the small parameter of the expansion)."""
        return _core.law_scale(self.system.core, self.law_core, self.param_vector())

    def rhs(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """(q', u') at (t, y), shape (2n,)."""
        self.param_vector(params)
        return self.field.rhs(t, y, params)

    def jacobian(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """d(q', u')/dy at (t, y) by forward AD through the expansion, shape (2n, 2n)."""
        self.param_vector(params)
        return self.field.jacobian(t, y, params)

    def slip(self, t: float, q, u, params: Mapping | None = None) -> np.ndarray:
        """The truncated slip s = sum_{k<=K} eps^k h^(k)(t, q, u), shape (n,)."""
        p = self.param_vector(params)
        H = _core.law_slip(self.system.core, self.law_core, real_time(t), q, u, p, self.order)
        eps = _core.law_scale(self.system.core, self.law_core, p)
        return sum((eps ** (k + 1) * H[k] for k in range(self.order)), np.zeros(self.system.n))

    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None, **_) -> np.ndarray:
        """The physical velocity v = u + s of a state (n,) or a trajectory (n, n_t)."""
        self.param_vector(params)
        return self.field.velocity(t, y, params)

    def friction_ratio(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """The friction ratio per contact at a state (n_contacts,) or a trajectory (n_contacts, n_t): |lambda_c|
        over the law's largest force in the direction of lambda_c (found on the ray of slips through the slip
        that carries it, up to the first peak of the law's force along it), so 1 at the fold of the slow
        manifold for any law, whether its range is a disc (mu N for Coulomb), an ellipse (an anisotropic
        law) or bounded by a local peak (Stribeck's with a viscous term, which has no ``saturation``); at
        least 1 where no slip of the law carries the force, NaN where the law gives no force. In C++, one
        call for all samples; the Python reference is ``expansion.friction_ratio``."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        R = _core.law_friction_ratio(self.system.core, self.law_core, t, Y, self.param_vector(params))
        return R[0] if scalar else R.T

    def spectral_gap(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """delta = |lambda_(k+1)| / |lambda_k| of the law's friction model at the physical state (q, u + s)
        (|lambda_1| >= ... the moduli of the eigenvalues of its Jacobian, k the constraint rows): the
        ratio of the slowest fast rate to the fastest slow one, as the linear law's reduced models
        measure it (:mod:`nonholo.models.validity`); the expansion needs delta <= 0.1 (NaN where no slip
        carries the force). A float for one state, shape (n_t,) for a trajectory (n_states, n_t)."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        n, k = self.system.n, self.system.k
        friction = self.expansion.friction_model
        V = self.velocity(t, Y.T, params).reshape(n, -1).T
        out = []
        for ti, yi, vi in zip(t, Y, V):
            if not np.all(np.isfinite(vi)):  # no physical velocity there (a failed run's last state)
                out.append(np.nan)
                continue
            moduli = np.sort(np.abs(np.linalg.eigvals(friction.jacobian(float(ti), np.r_[yi[:n], vi], params))))[::-1]
            out.append(moduli[k] / moduli[k - 1] if moduli[k - 1] > 0 else np.inf)
        return out[0] if scalar else np.array(out)

    def energy(self, t, y, params: Mapping | None = None, *, velocity=None):
        """1/2 v^T G v + V(q) at the physical velocity."""
        self.param_vector(params)
        return self.field.energy(t, y, params, velocity=velocity)

    def constraint_residual(self, t, y, params: Mapping | None = None):
        """|A u - b| / (|A| |u| + |b|) of the state's u."""
        self.param_vector(params)
        return self.field.constraint_residual(t, y, params)

    def compile(self, tapes=None, cache_dir=None, fuse: bool = True) -> "CoreLawReducedModel":
        """Evaluate the system's tapes of this model's right-hand side in compiled C from now on
        (:meth:`nonholo.models.model.Model.compile`, on :attr:`field`); returns the model. The law's own
        tapes (one per contact, with the expansion's Newton and Taylor iterations around them) stay
        interpreted, so a run's values are bit for bit those before; ``compiled`` then says whether the
        system's tapes are."""
        self.field.compile(tapes, cache_dir, fuse)
        return self

    @property
    def compiled(self) -> bool:
        """True when the system's tapes of the right-hand side run compiled C (:meth:`compile`); the law's
        own tapes are interpreted."""
        return self.field.compiled

    def fold_margin(self):
        """The run's stop before the fold: a :class:`FoldMargin`, whose event is RATIO_STOP minus the largest
        friction ratio over the contacts (:meth:`friction_ratio`, in C++), for every law (one whose range is
        not a disc, one without a saturation but with a local peak, such as Stribeck's with a viscous
        term). Built once per model."""
        from .law_reduced import RATIO_STOP

        if "_fold_margin" not in self.__dict__:
            self.__dict__["_fold_margin"] = FoldMargin(self, RATIO_STOP)
        return self.__dict__["_fold_margin"]

    def __repr__(self) -> str:
        return (f"<nonholo.Model reduced of order {self.order} of {self.system.name!r} on the slow manifold of the "
                f"{self.law.name} law, scale {number_text(self.eps)}: states {self.state_names}>")

    def __reduce__(self):  # as every model: the call system.reduced(order=K, law=...) that made it
        from .model import remade

        return remade(self)


class FoldMargin(Margin):
    """The fold margin of a law's reduced model (:meth:`CoreLawReducedModel.fold_margin`): ``threshold``
    minus the largest friction ratio of the contacts at the state [q, u], an event the core evaluates
    in C++ with each run's parameters (``_core.LawFoldEvent``; ``nh.simulate_many`` runs it too). Its
    start the run checks itself (``integrate/law_reduced.py`` refuses a y0 whose friction ratio reaches
    RATIO_STOP, with FoldError), so ``nh.simulate`` does not evaluate it again at t0."""

    kind = "fold"

    def __init__(self, model, threshold: float):  # not a margin of the contact forces: no Margin.__init__
        self.system, self.mu, self.threshold = model.system, None, threshold
        self.contacts = [list(rows) for rows in model.expansion.groups]
        self.event_function = _core.LawFoldEvent(model.system.core, model.law_core, threshold)

    def __repr__(self) -> str:
        return (f"<nonholo.Margin: fold margin {self.threshold:g} - the friction ratio, {len(self.contacts)} "
                f"contact(s) of {self.system.name!r}>")

    def event(self, model, params: dict, direction: int, terminal: int) -> tuple:
        """The event spec of ``nh.simulate``: the C++ fold event, with the run's parameters."""
        return (self.event_function, direction, terminal)

    def at_start(self, model, t0: float, y0, params: dict) -> None:
        return None


# the reduced models of nonlinear laws, which nh.simulate runs with their fold check (integrate/law_reduced.py)
LAW_REDUCED_MODELS = (CoreLawReducedModel, LawReducedModel)
