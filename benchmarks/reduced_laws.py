"""Benchmark: the reduced models of regularized Coulomb friction against its friction model.

The Chaplygin sleigh (m = 1, I = 1, a = 0.2) on a knife edge with regularized Coulomb friction,
``nh.laws.Coulomb(0.5, v_s)``, normal load N = 9.81, from q = 0, u = (1, 0, 1) over t in [0, 5],
rtol 1e-8, atol 1e-10, one output time. The friction model ``sleigh.friction(law=...)`` starts on its
slow manifold (``sleigh.slip(q, u, 3, law=...)``) and runs with ``method="auto"`` (C++, BDF once it
is stiff); the reduced models of orders 1 and 2, ``sleigh.reduced(order=K, law=...)``, run on SciPy's
DOP853 with their slip coefficients in Python series arithmetic (nonholo.system.law_slow_manifold).

Timed: ``nh.simulate`` (time.perf_counter around the call, models built beforehand, one untimed
warm-up run each), the three models interleaved run by run, the median of ``--repeats`` rounds.
Reported per v_s: steps and right-hand sides, the median time, the ratio of each reduced model's
time to the friction model's measured in the same rounds, and the reduced model's error
max |q - q_friction| at t = 5 (the friction model at rtol 1e-12 as reference).

Usage: python benchmarks/reduced_laws.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

Q, U, N, T = np.zeros(3), np.array([1.0, 0.0, 1.0]), 9.81, 5.0
RTOL, ATOL = 1e-8, 1e-10
V_S = (1e-3, 1e-4)


def timed(model, y0, **options):
    start = time.perf_counter()
    run = nh.simulate(model, (0, T), y0, t_eval=[T], **options)
    return time.perf_counter() - start, run


def main(argv=None) -> None:
    repeats, output = repeats_and_output(__doc__, 5, argv)
    sleigh = nh.systems.chaplygin_sleigh()
    rows = []
    for v_s in V_S:
        law = nh.laws.Coulomb(0.5, v_s=v_s)
        H = sleigh.slip(Q, U, 3, law=law, normal=N)
        y_friction = np.r_[Q, U + sum(v_s ** (k + 1) * H[k] for k in range(3))]
        models = {"friction": (sleigh.friction(law=law, normal=N), y_friction)}
        for K in (1, 2):
            models[f"reduced, order {K}"] = (sleigh.reduced(order=K, law=law, normal=N), np.r_[Q, U])
        reference = nh.simulate(models["friction"][0], (0, T), y_friction, t_eval=[T], rtol=1e-12, atol=1e-14)
        times = {name: [] for name in models}
        runs = {}
        for name, (model, y0) in models.items():  # warm-up
            runs[name] = timed(model, y0, rtol=RTOL, atol=ATOL)[1]
        for _ in range(repeats):
            for name, (model, y0) in models.items():
                times[name].append(timed(model, y0, rtol=RTOL, atol=ATOL)[0])
        base = statistics.median(times["friction"])
        for name, run in runs.items():
            seconds = statistics.median(times[name])
            ratios = [a / b for a, b in zip(times[name], times["friction"])]
            error = np.abs(run.y[:3, -1] - reference.y[:3, -1]).max()
            rows.append(f"| {v_s:g} | {name} | {run.method} | {run.stats['n_steps']} | {run.nfev} | "
                        f"{seconds * 1e3:.1f} | {statistics.median(ratios) if name != 'friction' else 1.0:.2f} | "
                        f"{error:.1e} |")
        del base
    text = "\n".join([
        f"Chaplygin sleigh, Coulomb(0.5, v_s), N = 9.81, t in [0, {T:g}], rtol {RTOL:g}, atol {ATOL:g}; "
        f"medians of {repeats} interleaved rounds.",
        "",
        "| v_s | model | method | steps | rhs | ms | time / friction model | error at t = 5 |",
        "|---:|---|---|---:|---:|---:|---:|---:|",
        *rows,
    ])
    emit(text, output)


if __name__ == "__main__":
    main(sys.argv[1:])
