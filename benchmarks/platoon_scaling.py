"""Benchmark: how the platoon's cost grows with its size, dense linear algebra throughout.

What is run
-----------
``nh.systems.platoon(K)`` (K robots with no-slip axles joined by springs: n = 3K coordinates,
K constraints, block-diagonal G and A) for K in ``--sizes`` (default 10 30 100), from
``system.initial_state()`` (driving forward in a line, perturbed by 0.01), t in [0, 2], default
tolerances, in the nonholonomic model and the friction model (eps = 1e-3; BDF with the automatic
Jacobian).

What is timed
-------------
* set-up: ``nh.systems.platoon(K)`` (SymPy to tapes), then each model's construction and first
  right-hand side, time.perf_counter around each;
* per step: ``nh.simulate(model, (0, 2), y0)`` with time.perf_counter around the call, divided by
  ``result.stats["n_steps"]`` (median of ``--repeats`` runs, default 3), and per right-hand side.

The exponent of the per-step cost against n = 3K is fitted by least squares in log-log
(``nonholo.testing.loglog_slope``) over the sizes run.

Run: ``PYTHONPATH=python python3 benchmarks/platoon_scaling.py [--sizes 10 30 100] [--repeats 3]``.

Measured (loaded 2-core machine, K = 10, 30, 100; dense linear algebra): per right-hand side
99 us, 1.2 ms, 11.6 ms in the nonholonomic model (~n^2.1; DOP853, 12-13 steps) and 0.17, 5.8,
45 ms in the friction model with its Jacobians (~n^2.4; BDF, 156-172 steps, 28-30 Jacobians);
building the system 0.8, 3.2, 57 s (~n^1.85, SymPy and the dense System checks of G). perf
(K = 30): the nonholonomic run is 85% dense factorizations (factor_gram_halves: G^-1 A^T and
A G^-1 A^T, 54%; factor_metric: L D L^T of G, 30%); the friction run is dominated by the dense
outputs of the implicit Jacobian's tape (dG/dq, n^3 entries, nearly all zero): gathering them and
zeroing buffers ~40%, friction_sensitivities' dense contractions ~25%, factor_metric 5%. K = 300
is not run: that tape alone would have ~n^3 = 7e8 outputs (6 GB).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import nonholo as nh
from nonholo.testing import loglog_slope


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def run(K: int, repeats: int) -> dict:
    system, build = timed(lambda: nh.systems.platoon(K))
    y0 = system.initial_state()
    row = {"K": K, "n": system.n, "build": build}
    for label, make in (("nonholonomic", system.nonholonomic), ("friction", lambda: system.friction(1e-3))):
        model, seconds = timed(make)
        _, first = timed(lambda: model.core.rhs(0.0, y0, model.param_vector()))
        times, result = [], None
        for _ in range(repeats):
            result, seconds_run = timed(lambda: nh.simulate(model, (0.0, 2.0), y0))
            times.append(seconds_run)
        if result.status != 0:
            raise RuntimeError(f"K = {K}, {label}: {result.message}")
        wall = statistics.median(times)
        row[label] = {"setup": seconds + first, "wall": wall, "steps": result.stats["n_steps"],
                      "rhs": result.stats["n_rhs"], "jac": result.stats["n_jac"],
                      "per_step": wall / result.stats["n_steps"], "per_rhs": wall / result.stats["n_rhs"]}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for K in args.sizes:
        row = run(K, args.repeats)
        rows.append(row)
        print(f"K = {K:4d} (n = {row['n']:4d}): build {row['build']:7.2f} s", flush=True)
        for label in ("nonholonomic", "friction"):
            r = row[label]
            print(f"    {label:<13} model {r['setup']:6.3f} s  run {r['wall']:8.4f} s  {r['steps']:5d} steps "
                  f"{r['rhs']:6d} rhs {r['jac']:4d} jac  {1e6 * r['per_step']:9.1f} us/step "
                  f"{1e6 * r['per_rhs']:8.1f} us/rhs", flush=True)
    if len(rows) > 1:
        n = np.array([row["n"] for row in rows], dtype=float)
        for label in ("nonholonomic", "friction"):
            step = loglog_slope(n, [row[label]["per_step"] for row in rows])
            rhs = loglog_slope(n, [row[label]["per_rhs"] for row in rows])
            print(f"{label}: per-step cost ~ n^{step:.2f}, per-rhs cost ~ n^{rhs:.2f}")
        print(f"build ~ n^{loglog_slope(n, [row['build'] for row in rows]):.2f}")


if __name__ == "__main__":
    main()
