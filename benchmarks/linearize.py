"""Benchmark: nh.linearize on the knife-edge chain (N links, n = N + 2 coordinates) at a straight
steady motion, after the model is built, against what a user would write without it.

- ``nh.linearize``: AD Jacobian of the model, tangent basis of the constraint set from the AD
  constraint Jacobian, zero modes deflated and classified, eigenvectors;
- the alternative: central finite differences of ``model.rhs`` (2 N_state evaluations) and of
  the constraint residual, ``scipy.linalg.null_space`` for the tangent space, ``scipy.linalg.eig``
  of T^+ Df T (no classification; its zero eigenvalues come out at the rounding level of the
  finite differences).

Agreement (largest physical eigenvalue, relative) is checked before timing. Medians of
``--repeats`` interleaved repeats. Usage: python benchmarks/linearize.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import scipy.linalg as sla

import nonholo as nh
from cli import emit, repeats_and_output

LINKS = (1, 4, 8, 18)


def straight(N: int, heading: float = 0.3, speed: float = 1.0) -> np.ndarray:
    """All links aligned, moving along the heading: a steady motion (x, y cyclic)."""
    return np.r_[0.0, 0.0, [heading] * N, speed * np.cos(heading), speed * np.sin(heading), [0.0] * N]


def finite_difference_spectrum(system, model, y: np.ndarray, h: float = 1e-6) -> np.ndarray:
    n = system.n
    E = np.eye(y.size)
    Df = np.column_stack([(model.rhs(0, y + h * e) - model.rhs(0, y - h * e)) / (2 * h) for e in E])

    def residual(z):
        A, b = system.constraint_matrix(z[:n])
        return A @ z[n:] - b

    DPhi = np.column_stack([(residual(y + h * e) - residual(y - h * e)) / (2 * h) for e in E])
    T = sla.null_space(DPhi)
    return sla.eigvals(T.T @ Df @ T)


def run(repeats: int) -> list:
    rows = []
    for N in LINKS:
        system = nh.systems.knife_edge_chain(N)
        model = system.nonholonomic()
        y = straight(N)
        ours = nh.linearize(model, y)
        theirs = finite_difference_spectrum(system, model, y)
        worst = ours.physical_eigenvalues.real.min()
        agree = abs(theirs.real.min() - worst) / abs(worst)
        assert agree < 1e-5, f"N = {N}: spectra disagree ({agree:.2g})"
        times = {"linearize": [], "fd": []}
        for _ in range(repeats):  # interleaved
            start = time.perf_counter()
            nh.linearize(model, y)
            times["linearize"].append(time.perf_counter() - start)
            start = time.perf_counter()
            finite_difference_spectrum(system, model, y)
            times["fd"].append(time.perf_counter() - start)
        rows.append((N + 2, ours.A.shape[0], statistics.median(times["linearize"]) * 1e3,
                     statistics.median(times["fd"]) * 1e3, agree))
    return rows


def table(rows: list) -> str:
    lines = ["| coordinates n | tangent dimension m | nh.linearize (ms) | finite differences + null_space (ms) | "
             "relative difference of the slowest eigenvalue |", "|---|---|---|---|---|"]
    lines += [f"| {n} | {m} | {a:.1f} | {b:.1f} | {d:.1e} |" for n, m, a, b, d in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    repeats, markdown = repeats_and_output(__doc__, 15)
    emit(table(run(repeats)), markdown)
