"""Benchmark: cost of one right-hand side of the reduced models of orders 0 and 1 in the coordinate
form (state (q, u), G and M = A G^-1 A^T factored) and in the Voronets frame form (state (q, w),
no M and no factorization of G: models/reduced.hpp, voronets_reduced_rate).

For the sleigh, the vertical disk and the knife-edge chain with N = 4, 8, 16 links, at the initial
states of benchmarks/reduced_vs_stiff.py: CPU seconds per call (time.process_time around
``_core.diagnostics.seconds_per_rhs``, which loops the calls in C++), the forms measured interleaved in one
process, the median of the rounds; also the core's cost model (``rhs_cost_ns``, which chooses
DOP853 or Adams) and that choice.

With --compiled every model's right-hand-side tapes run as compiled C (``model.compile()``).

Usage: python benchmarks/frame_rhs_cost.py [--quick] [--markdown PATH] [--compiled]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

EPS = 1e-4


def cases():
    rows = [("sleigh", nh.systems.chaplygin_sleigh(), np.array([0.0, 0.0, 0.0]), np.array([-1.5, 0.0, 1.0])),
            ("disk", nh.systems.vertical_rolling_disk(), np.array([0.3, 0.0, 0.0, 0.0]),
             np.array([1.0, np.cos(0.3), np.sin(0.3), 1.0]))]
    for N in (4, 8, 16):
        chain = nh.systems.knife_edge_chain(N)
        rows.append((f"chain N={N}", chain, np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))],
                     np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]))
    return rows


def cpu_per_call(model, y, calls: int) -> float:
    start = time.process_time()
    nh._core.diagnostics.seconds_per_rhs(model.core, 0.0, y, model.param_vector(), calls)
    return (time.process_time() - start) / calls


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    compiled = "--compiled" in argv
    if compiled:
        argv.remove("--compiled")
    repeats, markdown = repeats_and_output(__doc__, 15, argv)
    if compiled:
        markdown.argv.insert(0, "--compiled")  # recorded with the results
    lines = ["| system | n | k | order | coordinates (us) | frame (us) | frame / coordinates "
             "| cost model coord. / frame (us) | method coord. / frame |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, system, q, v in cases():
        u = system.project(q, v)
        for order in (0, 1):
            models = {"coordinates": system.reduced(EPS, order=order),
                      "frame": system.reduced(EPS, order=order, velocities="frame")}
            if compiled:
                for model in models.values():
                    model.compile()
            free = [i for i in range(system.n) if i not in models["frame"].frame.core.solved]
            ys = {"coordinates": np.r_[q, u], "frame": np.r_[q, u[free]]}
            one = nh._core.diagnostics.seconds_per_rhs(models["coordinates"].core, 0.0, ys["coordinates"],
                                           models["coordinates"].param_vector(), 50)
            calls = int(max(100, min(20000, 0.01 / max(one, 1e-9))))
            times = {key: [] for key in models}
            for _ in range(repeats):
                for key, model in models.items():
                    times[key].append(cpu_per_call(model, ys[key], calls))
            c, f = (statistics.median(times[key]) * 1e6 for key in ("coordinates", "frame"))
            cost = " / ".join(f"{models[key].core.rhs_cost_ns / 1e3:.2f}" for key in models)
            method = " / ".join(models[key].method for key in models)
            lines.append(f"| {name} | {system.n} | {system.k} | {order} | {c:.2f} | {f:.2f} | {f / c:.2f} "
                         f"| {cost} | {method} |")
            print(lines[-1], flush=True)
    emit("\n".join(lines), markdown)


if __name__ == "__main__":
    main()
