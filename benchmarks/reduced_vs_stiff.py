"""Benchmark: reduced models of order 0..3 on the slow manifold against the stiff friction model.

For the Chaplygin sleigh and the vertical rolling disk, at eps = 1e-2, 1e-3, 1e-5, each model is
integrated over a fixed interval at the working tolerance (rtol 1e-8, atol 1e-10) and timed
(median of repeated runs, wall time around `nh.simulate` only). The error is the max over the
output times of the max-norm difference of (q, u) from the friction model computed at tight
tolerance (rtol 1e-12, atol 1e-14) and started on the slow manifold (order 6), u = P v + v_b:
it shows what the cheaper, non-stiff reduced model of order K gives up, O(eps^(K+1)), against
the stiff model it replaces.

Usage: python benchmarks/reduced_vs_stiff.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

RTOL, ATOL = 1e-8, 1e-10
REF_RTOL, REF_ATOL = 1e-12, 1e-14
EPS = (1e-2, 1e-3, 1e-5)
ORDERS = (0, 1, 2, 3)


def cases():
    sleigh = nh.systems.chaplygin_sleigh()
    disk = nh.systems.vertical_rolling_disk()
    th = 0.3
    return [
        ("sleigh", sleigh, np.array([0, 0, 0, -1.5, 0, 1.0]), 20.0),
        ("disk", disk, np.array([th, 0, 0, 0, 1.0, np.cos(th), np.sin(th), 1.0]), 20.0),
    ]


def timed(model, t_span, y0, t_eval, repeats, **kw):
    times = []
    for _ in range(repeats + 1):  # the first run warms up and is dropped
        start = time.perf_counter()
        sol = nh.simulate(model, t_span, y0, t_eval=t_eval, raise_on_failure=True, **kw)
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:]), sol


def reference_state(system, full, t_eval):
    u = np.array([system.project(q, v, t) for q, v, t in zip(full.q.T, full.v.T, t_eval)]).T
    return full.q, u


def run(repeats: int) -> list:
    rows = []
    for name, system, y0, T in cases():
        n = system.n
        t_eval = np.linspace(0, T, 41)
        for eps in EPS:
            v0 = system.on_slow_manifold(y0[:n], y0[n:], eps, order=6)
            start = np.r_[y0[:n], v0]
            ref = nh.simulate(system.friction(eps), (0, T), start, t_eval=t_eval, rtol=REF_RTOL, atol=REF_ATOL)
            q_ref, u_ref = reference_state(system, ref, t_eval)
            seconds, full = timed(system.friction(eps), (0, T), start, t_eval, repeats, rtol=RTOL, atol=ATOL)
            q, u = reference_state(system, full, t_eval)
            rows.append(dict(system=name, eps=eps, model="friction (stiff)", time=seconds, steps=full.stats["n_steps"],
                             error=max(np.abs(q - q_ref).max(), np.abs(u - u_ref).max())))
            for K in ORDERS:
                seconds, red = timed(system.reduced(eps, order=K), (0, T), y0, t_eval, repeats, rtol=RTOL, atol=ATOL)
                rows.append(dict(system=name, eps=eps, model=f"reduced, order {K}", time=seconds,
                                 steps=red.stats["n_steps"],
                                 error=max(np.abs(red.q - q_ref).max(), np.abs(red.v - u_ref).max())))
    return rows


def markdown(rows: list, repeats: int) -> str:
    lines = ["## Reduced models against the stiff friction model", "",
             f"Interval [0, 20], rtol {RTOL:g}, atol {ATOL:g}; median of {repeats} runs; error = max over 41 output "
             "times of |(q, u) - friction model at rtol 1e-12| (u = P v + v_b).", "",
             "| system | eps | model | time [ms] | steps | error |", "|---|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['system']} | {r['eps']:.0e} | {r['model']} | {r['time'] * 1e3:.2f} | {r['steps']} "
                     f"| {r['error']:.2e} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    repeats, output = repeats_and_output(__doc__, 7, argv)
    text = markdown(run(repeats), repeats)
    emit(text, output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
