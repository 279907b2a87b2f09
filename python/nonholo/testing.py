"""Helpers for checking numerical results: tolerances, convergence slopes, finite differences
and random test systems.

Used by the test suite, the figures and the benchmarks, and by users validating their own
systems the way the project validates its own. Each tolerance carries its reason.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .system import System

__all__ = [
    "TIGHT_RTOL", "TIGHT_ATOL", "ANALYTIC_TOL", "IDENTITY_TOL", "FD_STEP", "FD_TOL",
    "loglog_slope", "central_difference", "random_system",
]

# Integrations run at TIGHT_RTOL/TIGHT_ATOL and are compared with analytic solutions at
# ANALYTIC_TOL: CVODE's global error is a modest multiple of its local tolerance over the
# O(10) time units of such comparisons (the tolerance hierarchy of AMICI's tests).
TIGHT_RTOL = 1e-11
TIGHT_ATOL = 1e-13
ANALYTIC_TOL = 1e-7

# Pointwise identities of linear algebra at random points: round-off of O(n) Cholesky solves on
# well-conditioned matrices (condition numbers below 1e3).
IDENTITY_TOL = 1e-11

# Central finite differences with step h have error O(h^2 f''') + O(eps_mach / h): with
# h = 1e-6 both are below 1e-8 for O(1) functions.
FD_STEP = 1e-6
FD_TOL = 1e-7


def central_difference(f, x, h: float = FD_STEP) -> np.ndarray:
    """d f / d x by central differences, shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    cols = [(np.asarray(f(x + h * e)) - np.asarray(f(x - h * e))) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def loglog_slope(x, y) -> float:
    """Slope of the least-squares line through (log x, log |y|): the measured order of a
    convergence study (error ~ C x^slope)."""
    x, y = np.asarray(x, dtype=float), np.abs(np.asarray(y, dtype=float))
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"x and y must have the same shape with at least 2 points, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y == 0) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x must be positive and y non-zero and finite to fit a log-log slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def random_system(seed: int, n: int = 4, k: int = 2, potential: bool = True, affine: bool = False,
                  force: bool = False) -> System:
    """A random system: q-dependent SPD metric, full-rank q-dependent constraint rows, SPD
    friction coefficients depending on q, a potential, optional affine part and force.

    The metric is B(q) B(q)^T + n I with B built from trigonometric terms, so it is SPD at every
    q with eigenvalues in [n, n + |B|^2]; the constraint rows are a fixed full-rank matrix plus
    a bounded q-dependent perturbation, full rank on the sampled region.
    """
    rng = np.random.default_rng(seed)
    q = sp.symbols(f"q0:{n}")
    t = sp.Symbol("t")
    funcs = [sp.sin, sp.cos, lambda x: x, lambda x: x**2 / 4]

    def term(scale):
        i, j = rng.integers(0, n, 2)
        f = funcs[rng.integers(0, len(funcs))]
        return sp.Float(rng.uniform(-scale, scale)) * f(q[i]) * (1 + sp.Float(rng.uniform(-0.2, 0.2)) * q[j])

    B = sp.Matrix(n, n, lambda i, j: term(0.5) + sp.Float(rng.uniform(-0.5, 0.5)))
    G = B * B.T + n * sp.eye(n)
    base = rng.normal(size=(k, n))
    A = sp.Matrix(k, n, lambda i, j: sp.Float(base[i, j]) + term(0.15))
    C = sp.Matrix(k, k, lambda i, j: sp.Float(rng.uniform(-0.3, 0.3)) * sp.cos(q[(i + j) % n]))
    mu = C * C.T + sp.eye(k)
    V = sum(term(1.0) for _ in range(3)) if potential else 0
    b = sp.Matrix(k, 1, lambda i, j: term(0.5) * sp.cos(t)) if affine else None
    v = sp.symbols(f"v0:{n}")
    F = sp.Matrix(n, 1, lambda i, j: -sp.Float(rng.uniform(0, 0.3)) * v[i] + term(0.2)) if force else None
    return System(q, G, V, A, b, mu, F, velocities=v, time=t, name=f"random({seed})")
