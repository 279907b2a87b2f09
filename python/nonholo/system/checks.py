"""Checks of a :class:`~nonholo.System` once its C++ system is built: the metric's symmetry and the
applied force against the one the metric, potential and force define."""

from __future__ import annotations

import numpy as np

from ..errors import ModelError


def check_metric_symmetric(system) -> None:
    """G = G^T: at once where each G_ij is the expression G_ji (O(nonzeros)), else at 3 random points."""
    if all(G.get((j, i)) == e for G in [system.metric.todok()] for (i, j), e in G.items()):
        return
    rng = np.random.default_rng(0)
    p = system.param_vector()
    for _ in range(3):
        q = rng.uniform(-1.0, 1.0, system.n)
        try:
            G = system._core.at(0.0, q, None, p).metric()
        except (ValueError, RuntimeError):
            continue  # not positive definite here; checked where it is used
        if not np.allclose(G, G.T, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(G).max())):
            raise ModelError("the metric is not symmetric")


def check_applied_force(system) -> None:
    """applied_force against F - c(q, v) - dV/dq at three random states (c_i = G_il Gamma^l_jk
    v^j v^k from the metric's Christoffel symbols, dV by central differences, hence the loose
    relative tolerance 1e-6: a check for a different function, not for rounding)."""
    if system.applied_force is None:
        return
    rng = np.random.default_rng(1)
    p = system.param_vector()
    n, h = system.n, 1e-5
    for _ in range(3):
        q, v = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
        try:
            at = system._core.at(0.0, q, v, p)
            G, vdot = at.metric(), at.nonholonomic_acceleration()
            given = G @ vdot - at.constraint_matrix().T @ at.multipliers()
            c = G @ np.einsum("ljk,j,k->l", np.asarray(at.christoffel()).reshape(n, n, n), v, v)
            dV = np.array([(system._core.at(0.0, q + h * e, None, p).potential()
                            - system._core.at(0.0, q - h * e, None, p).potential()) / (2 * h) for e in np.eye(n)])
        except (ValueError, RuntimeError):
            continue  # singular here; checked where it is used
        expected = at.force() - c - dV
        if not np.allclose(given, expected, rtol=0, atol=1e-6 * max(1.0, np.abs(expected).max())):
            raise ModelError("applied_force is not F - c(q, v) - dV/dq of the metric, potential and force "
                             f"(at q = {np.round(q, 3).tolist()}, v = {np.round(v, 3).tolist()}: "
                             f"{given} against {expected})")
