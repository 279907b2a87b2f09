"""Benchmark: reduced models of order 0..3 and "auto" on the slow manifold against the stiff
friction model.

For the Chaplygin sleigh, the vertical rolling disk and the knife-edge chain with N = 4, 8, 16
links, at eps = 1e-2, 1e-3, 1e-4, 1e-6, each model is integrated over a fixed interval at the
working tolerance (rtol 1e-8, atol 1e-10) and timed (median of interleaved repeated runs, wall
time around `nh.simulate` only; the reduced models' compiled coefficients are built before
timing, once per system and order, and their build time is reported separately). The reduced
models run with their default method (Adams), the friction model with BDF. The error is the max
over the output times of the max-norm difference of (q, u) from the friction model computed at
tight tolerance (rtol 1e-12, atol 1e-14) and started on the slow manifold (order 6),
u = P v + v_b: it shows what the cheaper, non-stiff reduced model of order K gives up,
O(eps^(K+1)), against the stiff model it replaces. Also reported: the cost of one right-hand
side (measured in C++) relative to the order-0 model.

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
EPS = (1e-2, 1e-3, 1e-4, 1e-6)
ORDERS = (0, 1, 2, 3, "auto")


def cases():
    sleigh = nh.systems.chaplygin_sleigh()
    disk = nh.systems.vertical_rolling_disk()
    th = 0.3
    rows = [
        ("sleigh", sleigh, np.array([0, 0, 0, -1.5, 0, 1.0]), 20.0),
        ("disk", disk, np.array([th, 0, 0, 0, 1.0, np.cos(th), np.sin(th), 1.0]), 20.0),
    ]
    for N in (4, 8, 16):
        chain = nh.systems.knife_edge_chain(N)
        q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
        v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]  # pulled forward, the front link turning
        rows.append((f"chain N={N}", chain, np.r_[q0, chain.project(q0, v)], 5.0))
    return rows


def timed(models: dict, t_span, starts: dict, t_eval, repeats, **kw) -> dict:
    """name -> (median seconds, last result), the models' runs interleaved."""
    times = {name: [] for name in models}
    sols = {}
    for r in range(repeats + 1):  # the first round warms up and is dropped
        for name, model in models.items():
            start = time.perf_counter()
            sols[name] = nh.simulate(model, t_span, starts[name], t_eval=t_eval, raise_on_failure=True, **kw)
            if r:
                times[name].append(time.perf_counter() - start)
    return {name: (statistics.median(times[name]), sols[name]) for name in models}


def reference_state(system, full, t_eval):
    u = np.array([system.project(q, v, t) for q, v, t in zip(full.q.T, full.v.T, t_eval)]).T
    return full.q, u


def rhs_cost(model, y0) -> float:
    """Seconds per right-hand side, measured in C++ (the least of 5 means of 400 calls: the
    machine is shared)."""
    return min(nh._core.seconds_per_rhs(model.core, 0.0, y0, model.param_vector(), 400) for _ in range(5))


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
            models = {"friction (stiff)": system.friction(eps)}
            models.update({f"reduced, order {K}": system.reduced(eps, order=K) for K in ORDERS})
            starts = {key: (start if key.startswith("friction") else y0) for key in models}
            results = timed(models, (0, T), starts, t_eval, repeats, rtol=RTOL, atol=ATOL)
            base_rhs = rhs_cost(models["reduced, order 0"], y0)
            for key, (seconds, sol) in results.items():
                if key.startswith("friction"):
                    q, u = reference_state(system, sol, t_eval)
                    cost = rhs_cost(sol.model, start) / base_rhs
                else:
                    q, u = sol.q, sol.v
                    cost = rhs_cost(sol.model, y0) / base_rhs
                label = key if sol.truncation is None else f"reduced, auto (order {sol.model.order})"
                rows.append(dict(system=name, eps=eps, model=label, time=seconds, steps=sol.stats["n_steps"],
                                 method=sol.method, rhs=cost,
                                 error=max(np.abs(q - q_ref).max(), np.abs(u - u_ref).max())))
    return rows


def markdown(rows: list, repeats: int) -> str:
    lines = ["## Reduced models against the stiff friction model", "",
             f"Sleigh and disk on [0, 20], chains on [0, 5]; rtol {RTOL:g}, atol {ATOL:g}; median of {repeats} "
             "interleaved runs; error = max over 41 output times of |(q, u) - friction model at rtol 1e-12| "
             "(u = P v + v_b); rhs = cost of one right-hand side relative to the order-0 model. One run on a loaded "
             "2-core machine.", "",
             "| system | eps | model | method | time [ms] | steps | rhs | error |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['system']} | {r['eps']:.0e} | {r['model']} | {r['method']} | {r['time'] * 1e3:.2f} "
                     f"| {r['steps']} | {r['rhs']:.1f} | {r['error']:.2e} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    repeats, output = repeats_and_output(__doc__, 3, argv)
    text = markdown(run(repeats), repeats)
    emit(text, output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
