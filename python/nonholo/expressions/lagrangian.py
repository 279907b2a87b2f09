"""A Lagrangian quadratic in the velocities split into metric, gyroscopic force and potential
(``System.from_lagrangian``)."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..errors import ModelError
from .names import expression_symbols
from .parsing import to_sympy

__all__ = ["lagrangian_parts"]


def lagrangian_parts(lagrangian, coordinates, velocities, force=None, simplify: bool = False,
                     time: sp.Symbol | None = None) -> tuple:
    r"""(G, V, F) of L = 1/2 v^T G(q) v + g(q, t)^T v - V(q).

    G is the Hessian of L in v, V = -L at v = 0, and a linear term g^T v becomes the gyroscopic
    force ((dg/dq)^T - dg/dq) v - dg/dt added to ``force`` (None when F is zero): d/dt of the
    momentum G v + g holds dg/dt = (dg/dq) v + partial g / partial t, the second term with the
    ``time`` symbol (a charge in a field B(t): the induced electric field; a frame moving with a
    prescribed acceleration: the fictitious force). L must be quadratic
    in v: its velocity Hessian must not depend on v (checked symbolically), and L must equal
    the quadratic form at random points (a numerical check, which catches non-smooth terms).
    ``simplify=True`` runs ``sympy.simplify`` on G (for display; it can take seconds per entry
    on large systems and changes no trajectory).
    """
    L = to_sympy(lagrangian, "lagrangian")
    vels = list(velocities)
    v = sp.Matrix(vels)
    G = sp.hessian(L, vels)
    if any(G[i, j].has(w) and sp.diff(G[i, j], w) != 0 for i in range(len(vels)) for j in range(i + 1)
           for w in vels):
        raise ModelError("the Lagrangian is not quadratic in the velocities (its velocity Hessian depends on them)")
    zero = dict.fromkeys(vels, 0)
    g = sp.Matrix([sp.diff(L, w).xreplace(zero) for w in vels])
    V = -L.xreplace(zero)
    _check_quadratic(L, G, g, V, v)
    F = sp.zeros(len(vels), 1) if force is None else sp.Matrix(force)
    if any(gi != 0 for gi in g):
        dg = g.jacobian(list(coordinates))  # dg_i/dq_j
        F = F + (dg.T - dg) * v
        if time is not None:
            F = F - g.diff(time)
    if simplify:
        G = sp.simplify(G)
    return G, V, (None if all(f == 0 for f in F) else F)


def _check_quadratic(L, G, g, V, v, points: int = 3) -> None:
    """L = 1/2 v^T G v + g^T v - V at random real points (the symbolic check above compares
    Hessians only)."""
    symbols = sorted(expression_symbols([L]), key=str)
    rng = np.random.default_rng(11)
    n = len(v)
    for _ in range(points):
        values = {s: sp.Float(x) for s, x in zip(symbols, rng.uniform(0.3, 1.3, len(symbols)))}
        vv = np.array([float(values.get(w, 0.0)) for w in v])
        try:
            lhs = complex(L.xreplace(values).evalf())
            Gn = np.array(G.xreplace(values).evalf(), dtype=complex).reshape(n, n)
            gn = np.array(g.xreplace(values).evalf(), dtype=complex).reshape(n)
            rhs = 0.5 * vv @ Gn @ vv + gn @ vv - complex(V.xreplace(values).evalf())
        except (TypeError, ValueError):
            continue  # not a number here (a branch cut); the symbolic check stands
        if abs(lhs - rhs) > 1e-9 * max(1.0, abs(lhs), np.abs(Gn).max()):
            raise ModelError("the Lagrangian is not of the form 1/2 v^T G v + g^T v - V")
