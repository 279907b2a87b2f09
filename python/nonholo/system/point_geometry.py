"""The geometry of a system at one point, evaluated numerically in C++: the metric, the
Christoffel symbols, the constraints, the projectors, the friction operator, the multipliers and
the energy; :class:`System` inherits them."""

from __future__ import annotations

from typing import Mapping

import numpy as np
import numpy.typing as npt
import sympy as sp

from .arguments import point_argument, time_argument

__all__ = ["PointGeometry"]


class PointGeometry:
    """Numeric evaluators of a :class:`System` at a point (a mixin: it reads the system's core,
    sizes and parameters)."""

    def _at(self, q, v=None, t=0.0, params=None, force: bool = True):
        q = point_argument(q, self.n, "q")
        v = None if v is None else point_argument(v, self.n, "v")
        return self._core.at(time_argument(self._core, t, force), q, v, self.param_vector(params))

    def metric_at(self, q: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """G(q), shape (n, n)."""
        return self._at(q, params=params).metric()

    def christoffel(self, q: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """Christoffel symbols Gamma[i, j, k] = Gamma^i_jk of the metric at q, shape (n, n, n)."""
        return self._at(q, params=params).christoffel()

    def holonomic_functions(self):
        """(h, dh/dq) of the ``holonomic`` constraints as NumPy callables of ``(*q, *params)``
        (SymPy's lambdify, built once per system), or None when the system carries none."""
        if not self.holonomic:
            return None
        if self._holonomic_functions is None:
            h = sp.Matrix(list(self.holonomic))
            args = [*self.coordinates, *self.parameters]
            self._holonomic_functions = (sp.lambdify(args, h, "numpy"),
                                         sp.lambdify(args, h.jacobian(self.coordinates), "numpy"))
        return self._holonomic_functions

    def constraint_matrix(self, q: npt.ArrayLike, t: float | None = None, params: Mapping | None = None) -> tuple:
        """(A(q), b(q, t)): shapes (k, n) and (k,). ``t`` is needed where b depends on time."""
        g = self._at(q, t=t, params=params, force=False)
        return g.constraint_matrix(), g.affine()

    def projectors(self, q: npt.ArrayLike, params: Mapping | None = None) -> tuple:
        """(P, P_perp) at q: G-orthogonal projectors onto D = ker A and onto D_perp.

        P_perp = G^-1 A^T M^-1 A with M = A G^-1 A^T, P = Id - P_perp (Gzenda-Chhabra).
        """
        g = self._at(q, params=params)
        return g.p(), g.p_perp()

    def friction_operator(self, q: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """FR# = G^-1 A^T mu A at q, shape (n, n) (Gzenda-Chhabra eq. (38))."""
        return self._at(q, params=params).friction_operator()

    def qmat(self, q: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """Qmat = G^-1 A^T M^-1 mu^-1 M^-1 A: the inverse of FR# on D_perp, zero on D.

        Qmat FR# = FR# Qmat = P_perp (Gzenda-Chhabra Lemma 4).
        """
        return self._at(q, params=params).qmat()

    def multipliers(self, q: npt.ArrayLike, v: npt.ArrayLike, t: float | None = None,
                    params: Mapping | None = None) -> np.ndarray:
        """Lagrange-d'Alembert multipliers lambda (k,): G v' + c + dV = F + A^T lambda. ``t`` is needed
        where the force or b depends on time (a ValueError without it)."""
        return self._at(q, v, t, params).multipliers()

    def project(self, q: npt.ArrayLike, v: npt.ArrayLike, t: float | None = None,
                params: Mapping | None = None) -> np.ndarray:
        """The velocity on the constraint set nearest to v in the metric G.

        v - G^-1 A^T M^-1 (A v - b): for linear constraints this is P v, the base point of the
        fast fibre of the friction model as eps -> 0 (Eldering 2016, section 1.2: Caratheodory's
        mistake was to start the limit at the unprojected velocity).
        """
        return self._at(q, v, t, params, force=False).project()

    def energy(self, q: npt.ArrayLike, v: npt.ArrayLike, params: Mapping | None = None) -> float:
        """1/2 v^T G(q) v + V(q)."""
        g = self._at(q, v, 0.0, params)  # G and V do not depend on t
        return g.kinetic_energy() + g.potential()
