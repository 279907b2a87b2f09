r"""Cyclic coordinates that holonomic constraints tie together: a symmetry moves them as one.

A trailer's axle kept as coordinates (x1, y1) beside the car's (x, y) comes with the holonomic
constraints h = (x1 - x + d cos(theta1), y1 - y + d sin(theta1)). No equation but h contains x, y,
x1 or y1, and h is affine in them with constant coefficients, so the translation that shifts x and
x1 (and y and y1) by the same amount maps motions to motions: the car driving straight is a steady
motion that moves all four.

Of such *tied* coordinates C, with the constant H = dh/dq_C, the *followers* F are a basis of H's
columns (taken from the last coordinate backwards: the dependent ones a builder lists last) and the
others lead: shifting a leader c by one moves the followers by s_F = -H_F^+ H_c, so the symmetry
direction of c in coordinate space is s_c = e_c + s_F (e_c for an untied cyclic coordinate).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["tied_coordinates", "leading", "symmetry_directions"]


def tied_coordinates(system, untied_symbols: set, kinked: set) -> list:
    """Indices of the coordinates that only the holonomic constraints contain (none of
    ``untied_symbols``, the symbols of every other part of the equations, nor of ``kinked``), each
    affinely with coefficients free of coordinates."""
    holonomic = list(getattr(system, "holonomic", None) or [])
    if not holonomic:
        return []
    coordinates = set(system.coordinates)
    inside = set().union(*(sp.sympify(h).free_symbols for h in holonomic))
    return [i for i, s in enumerate(system.coordinates)
            if s in inside and s not in untied_symbols and s not in kinked
            and all(not (sp.diff(h, s).free_symbols & coordinates) for h in holonomic)]


def _gradient(system, q, sys_params) -> np.ndarray:
    """dh/dq (n_h x n) at q with the system's parameter vector."""
    dh_fn = system.holonomic_functions()[1]
    return np.asarray(dh_fn(*q, *sys_params), dtype=float).reshape(-1, system.n)


def _basis(H, order) -> list:
    """The columns of H, in ``order``, that raise its rank: a basis of the span of those columns."""
    chosen, rank = [], 0
    tol = 1e-10 * max(1.0, np.abs(H).max(initial=0.0))
    for c in order:
        if np.linalg.matrix_rank(H[:, [*chosen, c]], tol) > rank:
            chosen.append(c)
            rank += 1
    return chosen


def _random_gradient(system) -> np.ndarray:
    """dh/dq at random coordinates and parameter values (the tied columns are constant in q): which of
    them are independent does not depend on the values but at exceptional ones."""
    rng = np.random.default_rng(20261207)
    p = rng.uniform(0.5, 1.5, len(system.parameters))
    return _gradient(system, rng.uniform(0.2, 1.3, system.n), p)


def leading(system, tied: list, cyclic: list) -> list:
    """``cyclic`` without the coordinates that must follow the others: where the tied coordinates
    outside it cannot absorb the constraints' changes (the car's x, y and the trailer's x1, y1
    all named), followers are taken from its own tied members, the last first."""
    if not tied or not set(cyclic) & set(tied):
        return list(cyclic)
    H = _random_gradient(system)
    others = [c for c in reversed(tied) if c not in set(cyclic)]
    inside = [c for c in reversed(tied) if c in set(cyclic)]
    followers = set(_basis(H, others + inside))
    return [c for c in cyclic if c not in followers]


def symmetry_directions(system, tied: list, cyclic: list, q, sys_params) -> tuple:
    """(followers, S): the tied coordinates that follow the cyclic ones (made dependent in the
    tangent basis) and S (n x len(cyclic)) whose columns are the symmetry directions s_c in
    coordinate space. ValueError where the followers cannot absorb a cyclic coordinate's shift."""
    n = system.n
    S = np.zeros((n, len(cyclic)))
    S[cyclic, np.arange(len(cyclic))] = 1.0
    moved = [j for j, c in enumerate(cyclic) if c in set(tied)]
    if not moved:
        return [], S
    H = _gradient(system, q, sys_params)
    followers = _basis(H, [c for c in reversed(tied) if c not in set(cyclic)])
    Hc = H[:, [cyclic[j] for j in moved]]
    shift = np.linalg.lstsq(H[:, followers], -Hc, rcond=None)[0] if followers else np.zeros((0, len(moved)))
    if np.abs(H[:, followers] @ shift + Hc).max() > 1e-9 * max(1.0, np.abs(H).max()):
        names = system.coordinate_names
        raise ValueError(f"the holonomic constraints tie the cyclic coordinates {[names[c] for c in cyclic]} so that "
                         "they cannot all move freely: name only those that lead (a trailer's x1 follows the car's x; "
                         "the default names the leaders), or leave cyclic= out")
    S[np.ix_(followers, moved)] = shift
    return followers, S
