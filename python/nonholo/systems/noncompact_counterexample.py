r"""Eldering (2016), section 6 after Theorem 3: a noncompact example where friction does not
realize the constraint uniformly.

Q = R^2, unit mass, V = -x^2 (not bounded below), and a distribution that turns from d/dx to
d/dy across the band 0 <= x - y <= 1:

    D = span{ (1 - chi(x - y)) d/dx + chi(x - y) d/dy },   chi = 0 for s <= 0, 1 for s >= 1.

The paper prints chi and 1 - chi the other way round, which contradicts its own narrative (the
particle first accelerates along x); ``printed=True`` builds the printed version (docs/errata.md).
"""

from __future__ import annotations

import sympy as sp

from ..system.system import System

__all__ = ["noncompact_counterexample"]


def noncompact_counterexample(printed: bool = False, steepness: float = 12.0, mu: float = 1.0) -> System:
    r"""The plane with V = -x^2 and the turning distribution above, friction ``mu`` on its
    annihilator A = (-chi, 1 - chi) (corrected) or (chi - 1, chi) (printed).

    chi(s) = (1 + tanh(steepness (s - 1/2)))/2, a smooth stand-in for the paper's step (within
    exp(-steepness) of 0 and 1 outside [0, 1]). State order ``[x, y, x_dot, y_dot]``.
    """
    x, y = sp.symbols("x y")
    chi = (1 + sp.tanh(sp.nsimplify(steepness) * (x - y - sp.Rational(1, 2)))) / 2
    along_x, along_y = (chi, 1 - chi) if printed else (1 - chi, chi)      # D = span{(along_x, along_y)}
    A = sp.Matrix([[-along_y, along_x]])
    return System([x, y], sp.eye(2), -x**2, A, friction=mu,
                  name="noncompact counterexample" + (" (printed chi)" if printed else ""))
