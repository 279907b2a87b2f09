"""The slow manifold of a system's friction realization, queried at a point: its slip terms
h^(k), the velocity on it, the base point of a fast fibre and the invariance residual. Each is
computed in C++ by Taylor arithmetic through the system's tape; :class:`System` inherits them."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import numpy.typing as npt

from .. import _core
from .. import options as check
from .arguments import order_argument, point_argument, time_argument

__all__ = ["SlowManifoldQueries"]


class SlowManifoldQueries:
    """Slow-manifold queries of a :class:`System` (a mixin: it reads the system's core, sizes
    and parameters)."""

    def slip(self, q: npt.ArrayLike, u: npt.ArrayLike, order: int = 2, t: float | None = None,
             params: Mapping | None = None, *, law=None, normal=None, speed=None, contacts=None) -> np.ndarray:
        """Slow-manifold coefficients h^(1), ..., h^(K) at (t, q, u), shape (K, n).

        The slow manifold of ``friction(eps)`` is v = u + sum_k eps^k h^(k)(t, q, u) with u on
        the constraint set (A u = b) and h^(k) in D_perp; no factorials (Gzenda-Chhabra
        eq. (66); Eldering's h^(i) is i! times ours). Computed in C++ by Taylor arithmetic in
        (eps, t) through the system's tape, for any metric, potential, affine constraint and
        force F(q, v, t).

        ``law`` (with ``normal``, ``speed``, ``contacts`` as in ``friction(law=...)``): the slow
        manifold of that law's friction model, v = u + sum_k eps^k h^(k), eps the law's scale (v_s
        for Coulomb), h^(k) = W varsigma_(k-1) (:mod:`nonholo.system.law_slow_manifold`);
        ``Viscous(mu, eps)`` gives the coefficients above with friction coefficients mu. FoldError
        (a ValueError) where the constraint force leaves the friction cone.
        """
        order = order_argument(order)
        q, t = point_argument(q, self.n, "q"), time_argument(self._core, t)
        u = self._on_constraint_set(q, u, t, params, "u")
        if law is not None:
            return self._law_slip(law, q, u, order, t, params, normal, speed, contacts)[0]
        return self._core.slip(t, q, u, self.param_vector(params), order)

    def _law_slip(self, law, q, u, order, t, params, normal, speed, contacts) -> tuple:
        """(h^(1..order) of the law's slow manifold, the law's scale eps)."""
        from ..expressions.laws import Viscous, laws_of
        from .law_realization import viscous_coefficients
        from .law_slow_manifold import LawSlowManifold

        law = laws_of(law)
        if isinstance(law, Viscous) and law.eps.is_number and contacts is None and normal is None:
            return viscous_coefficients(self, law).slip(q, u, order=order, t=t, params=params), float(law.eps)
        from ..models.law_core import law_slip_coefficients  # the C++ expansion (its Python reference: .slip)

        H, scale = law_slip_coefficients(LawSlowManifold(self, law, normal, speed, contacts), t, q, u,
                                         self.param_vector(params), order)
        return H, float(scale)

    def on_slow_manifold(self, q: npt.ArrayLike, u: npt.ArrayLike, eps: float | None = None, order: int = 2,
                         t: float | None = None, params: Mapping | None = None, *, law=None, normal=None, speed=None,
                         contacts=None) -> np.ndarray:
        """The velocity v = u + sum_{k<=K} eps^k h^(k)(t, q, u) on the slow manifold, shape (n,).

        Start ``friction(eps)`` from ``[q, v]`` to be on the slow manifold to O(eps^(K+1)).
        ``law`` (instead of ``eps``; with ``normal``, ``speed``, ``contacts`` as in
        ``friction(law=...)``): the slow manifold of that law's friction model, eps the law's scale
        (:meth:`slip`), where ``friction(law=...)`` started from ``[q, v]`` follows
        ``reduced(order=K, law=...)`` started from ``[q, u]`` to O(eps^(K+1)).
        """
        order = order_argument(order)
        if (eps is None) == (law is None):
            raise ValueError("on_slow_manifold needs eps (the linear law's) or law= (a nonholo.laws law), not both")
        q, t = point_argument(q, self.n, "q"), time_argument(self._core, t)
        u = self._on_constraint_set(q, u, t, params, "u")
        if law is not None:
            H, scale = self._law_slip(law, q, u, order, t, params, normal, speed, contacts)
            return u + sum((scale ** (k + 1) * H[k] for k in range(order)), np.zeros(self.n))
        eps = check.positive(eps, "eps")
        return self._core_slow_manifold_velocity(order, eps, t, np.r_[q, u], params)

    def _core_slow_manifold_velocity(self, order: int, eps: float, t, y, params: Mapping | None = None) -> np.ndarray:
        """u + sum_{k<=K} eps^k h^(k)(t, q, u) at one state [q, u] (n,) or time-major samples
        (n_t, 2n) in C++ (the one implementation of the sum; no constraint check)."""
        y = np.asarray(y, dtype=float)
        Y = np.atleast_2d(y)
        times = np.broadcast_to(np.asarray(t, float), (len(Y),)).copy()
        V = _core.slow_manifold_velocity(self._core, order, eps, times, Y, self.param_vector(params))
        return V[0] if y.ndim == 1 else V

    def fibre_base(self, q: npt.ArrayLike, v: npt.ArrayLike, eps: float, order: int = 1, t: float | None = None,
                   params: Mapping | None = None) -> tuple:
        """Base point (q_f, u_f) of the fast fibre through an arbitrary state (q, v).

        The friction model started at (q, v) approaches, after an initial layer of duration
        O(eps), the slow trajectory through (q_f, u_f); start the reduced model there. To
        leading order this is (q, P v + v_b) (``project``; Eldering 2016 section 1.2:
        Caratheodory's mistake was to start the limit at the unprojected velocity). This
        includes the O(eps) correction: q_f = q + z, u_f = u + (du'/ds) z,
        z = eps Qmat (v - u - h_eps) (error O(eps |slip off the manifold|^2 + eps^2)).

        ``order`` is the order K of the slip h_eps on the slow manifold (``slip``) from which the
        slip off it, v - u - h_eps, is measured. A higher order changes z only by O(eps^(K+2)): on
        the Chaplygin sleigh of the README started in D the base point moves by under 1% from
        order 1 to 4, and a reduced model of order 2 or 3 started there is O(eps^3) from the
        friction run after the layer whatever the order (slopes 2.93 to 3.05).
        """
        eps = check.positive(eps, "eps")
        q = point_argument(q, self.n, "q")
        v = point_argument(v, self.n, "v")
        return self._core.fibre_base(time_argument(self._core, t), q, v, self.param_vector(params), eps,
                                     order_argument(order))

    def slow_manifold_residual(self, q, u, eps: float, order=2, t: float | None = None, params=None) -> np.ndarray:
        """Residual of the invariance equation of the slow manifold for the truncation after
        h^(K), shape (n,):

            r = s - eps Qmat (f(t, q, u + s) - u' - s'),   s = sum_{k<=K} eps^k h^(k)(t, q, u),

        with u' the projected acceleration and s' the derivative of s along the reduced flow
        (Gzenda-Chhabra Theorem 1). r = 0 on the exact slow
        manifold; r = O(eps^(K+1)) while the series behaves asymptotically, so |r| shows the
        truncation error a reduced model of order K commits at (q, u).
        """
        eps = check.positive(eps, "eps")
        order = order_argument(order)
        q, t = point_argument(q, self.n, "q"), time_argument(self._core, t)
        u = self._on_constraint_set(q, u, t, params, "u")
        from ..models.reduced import compiled_slip

        return _core.invariance_residual(self._core, order, t, q, u,
                                         [*self.param_vector(params), eps], compiled_slip(self, order))

    def _on_constraint_set(self, q, u, t, params, what: str) -> np.ndarray:
        u = point_argument(u, self.n, what)
        if self.k:
            A, b = self.constraint_matrix(q, t, params)
            scale = np.abs(A).max() * np.abs(u).max() + np.abs(b).max() + 1.0
            if np.abs(A @ u - b).max() > 1e-9 * scale:
                raise ValueError(f"{what} must lie on the constraint set A(q) u = b(q, t) "
                                 f"(|A u - b| = {np.abs(A @ u - b).max():.3g}); use system.project(q, v)")
        return u
