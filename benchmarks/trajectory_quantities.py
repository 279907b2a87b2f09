"""Whole-trajectory quantities: one C++ pass per quantity against one checked point call per sample.

For reduced sleigh models of order 1-3 (eps = 1e-2, 1001 samples of t in [0, 10]) the physical
velocity u + sum_{k<=K} eps^k h^(k) and the energy of a result, computed

- per sample, as results did before: ``System.slip`` (through the core, without the constraint
  check, which interpolated states fail) and ``System.energy`` once per sample;
- in one pass: ``result.velocity`` and ``result.energy()`` (``_core.slow_manifold_velocity`` and
  ``_core.trajectory_energy``),

with the integration time for scale. Agreement is checked before timing; times are medians of
interleaved repeats.

    python benchmarks/trajectory_quantities.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

EPS = 1e-2
START = [0.0, 0.0, 0.4, -1.5 * np.cos(0.4), -1.5 * np.sin(0.4), 1.0]


def per_sample(sol):
    """Velocity and energy one point call per sample (the former SimulationResult code)."""
    system, order, eps = sol.model.system, sol.model.order, sol.params["eps"]
    p = system.param_vector({name: sol.params[name] for name in system.parameter_names})
    V = np.empty_like(sol.v)
    for i, (t, q, u) in enumerate(zip(sol.t, sol.q.T, sol.v.T)):
        H = system.core.slip(t, q, u, p, order)
        V[:, i] = u + sum(eps ** (k + 1) * H[k] for k in range(H.shape[0]))
    E = np.array([system.energy(q, v) for q, v in zip(sol.q.T, V.T)])
    return V, E


def one_pass(sol):
    sol.__dict__.pop("velocity", None)  # the result caches its velocity
    return sol.velocity, sol.energy()


def median_time(f, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> None:
    repeats, markdown = repeats_and_output(__doc__, 7, argv)
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    t_eval = np.linspace(0, 10, 1001)
    rows = ["| order | integration (ms) | per sample (ms) | one pass (ms) | speed-up |", "|---|---|---|---|---|"]
    for order in (1, 2, 3):
        model = sleigh.reduced(EPS, order)
        sol = nh.simulate(model, (0, 10), START, t_eval=t_eval)
        V0, E0 = per_sample(sol)
        V1, E1 = one_pass(sol)
        assert np.abs(V0 - V1).max() < 1e-13 and np.abs(E0 - E1).max() < 1e-13, "the two paths disagree"
        timings = {"integrate": [], "per sample": [], "one pass": []}
        for _ in range(repeats):  # interleaved
            timings["integrate"].append(median_time(lambda: nh.simulate(model, (0, 10), START, t_eval=t_eval), 1))
            timings["per sample"].append(median_time(lambda: per_sample(sol), 1))
            timings["one pass"].append(median_time(lambda: one_pass(sol), 1))
        ms = {k: 1e3 * statistics.median(v) for k, v in timings.items()}
        rows.append(f"| {order} | {ms['integrate']:.1f} | {ms['per sample']:.1f} | {ms['one pass']:.1f} | "
                    f"{ms['per sample'] / ms['one pass']:.2f} |")
    emit("\n".join(rows), markdown)


if __name__ == "__main__":
    main()
