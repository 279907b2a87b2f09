r"""Two masses on a line joined by a spring, the first one damped: a model of Lewis-Murray's
Fig. 3 (section 2.4, "realising constraints").

The paper draws masses M (coordinate x) and m (coordinate y) and the damping coefficient c, and
imposes the holonomic constraint x = 0 two ways: M -> infinity (the vakonomic limit) and
c -> infinity (the nonholonomic limit). It gives no equations; the spring k (y - x) and the
dashpot c x' to the ground are the project's reading, labelled as such wherever they are used.
"""

from __future__ import annotations

import sympy as sp

from ..system.system import System

__all__ = ["damped_mass_pair"]


def damped_mass_pair(M: float = 1.0, m: float = 1.0, k: float = 1.0, c: float = 1.0,
                     constrained: bool = True) -> System:
    r"""L = M/2 x'^2 + m/2 y'^2 - k/2 (y - x)^2, constraint row x' = 0 (D = span{d/dy}).

    The constraint's friction coefficient is the dashpot ``c``: ``friction(eps)`` is Lagrange's
    equations with the force -(c/eps) x' on the first mass (damping c/eps, the nonholonomic
    limit as eps -> 0). ``nonholonomic()`` and ``vakonomic()`` impose x' = 0 exactly. With
    ``constrained=False`` there is no constraint row (and no dashpot): ``nonholonomic()`` is then
    the free, undamped pair, whose M -> infinity limit realizes x = 0 by inertia. Parameters M, m,
    k (and c when constrained); state order ``[x, y, x_dot, y_dot]``.
    """
    x, y = sp.symbols("x y")
    M_, m_, k_, c_ = sp.symbols("M m k c", positive=True)
    if not constrained:
        return System([x, y], sp.diag(M_, m_), k_ / 2 * (y - x) ** 2, parameters={M_: M, m_: m, k_: k},
                      name="mass pair")
    return System([x, y], sp.diag(M_, m_), k_ / 2 * (y - x) ** 2, sp.Matrix([[1, 0]]), friction=sp.Matrix([[c_]]),
                  parameters={M_: M, m_: m, k_: k, c_: c}, name="damped mass pair")
