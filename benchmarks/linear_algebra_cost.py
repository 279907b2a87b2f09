"""Benchmark: cost of one right-hand side (and Jacobian) of the coordinate models, whose dense linear
algebra (LDL^T of G and of M = A G^-1 A^T, the triangular sweeps) runs at every evaluation.

Systems: the Chaplygin sleigh (n 3, k 1), the vertical rolling disk (n 4, k 2), the knife-edge chain
with N = 4, 8, 16, 32 links (n N + 2, k N). Models: nonholonomic, friction(eps), reduced(eps, order=1),
eps = 1e-4. Each cost is measured in C++ (the calls looped with one workspace, about 2 ms per
measurement), the least of ``--repeats`` measurements. Also the whole run of the
chain N = 8 at eps = 1e-4 (friction, BDF; reduced order 1, its default method), CPU time of the process
(``time.process_time``) around ``nh.simulate``, median of interleaved runs.

``--core PATH`` loads another build of the extension (``nonholo._core``) before importing nonholo, so
that two builds can be compared by alternating processes (``--compare PATH``: this script runs itself
alternately with the given build and with the installed one and prints the medians side by side).

Usage: python benchmarks/linear_algebra_cost.py [--repeats R] [--runs K] [--compare PATH --rounds R]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time

EPS = 1e-4


def load_core(path: str) -> None:
    """Import the extension at ``path`` as ``nonholo._core`` (before nonholo itself)."""
    spec = importlib.util.spec_from_file_location("nonholo._core", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["nonholo._core"] = module
    spec.loader.exec_module(module)


def cases(nh, np):
    """(name, system, state (q, v) on the constraint set)."""
    th = 0.3
    rows = [("sleigh", nh.systems.chaplygin_sleigh(), np.array([0, 0, 0, -1.5, 0, 1.0])),
            ("disk", nh.systems.vertical_rolling_disk(), np.array([th, 0, 0, 0, 1.0, np.cos(th), np.sin(th), 1.0]))]
    for N in (4, 8, 16, 32):
        chain = nh.systems.knife_edge_chain(N)
        q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
        v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]
        rows.append((f"chain N={N}", chain, np.r_[q0, chain.project(q0, v)]))
    return rows


def cost(nh, model, y0, repeats: int) -> tuple:
    """Seconds per rhs and per Jacobian: the least of `repeats` means over calls of about 2 ms each
    (short windows, most of them not interrupted by the other jobs of a loaded machine; the rhs in
    CPU time of the process, the Jacobian in the wall time that ``time_evaluations`` measures)."""
    p = model.param_vector()
    rhs, jac, *_ = nh._core.diagnostics.time_evaluations(model.core, 0.0, y0, p, 10)
    calls_r = int(max(10, min(100000, 0.002 / max(rhs, 1e-9))))
    calls_j = int(max(3, min(100000, 0.002 / max(jac, 1e-9))))
    best_r = best_j = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        nh._core.diagnostics.seconds_per_rhs(model.core, 0.0, y0, p, calls_r)
        best_r = min(best_r, (time.process_time() - start) / (calls_r + 1))
        best_j = min(best_j, nh._core.diagnostics.time_evaluations(model.core, 0.0, y0, p, calls_j)[1])
    return best_r, best_j


def measure(repeats: int, runs: int) -> dict:
    import numpy as np

    import nonholo as nh

    out = {}
    for name, system, y0 in cases(nh, np):
        models = {"nonholonomic": system.nonholonomic(), "friction": system.friction(EPS),
                  "reduced 1": system.reduced(EPS, order=1)}
        for key, model in models.items():
            out[f"{name} | {key}"] = cost(nh, model, y0, repeats)
    if runs:
        chain = nh.systems.knife_edge_chain(8)
        _, _, y0 = cases(nh, np)[3]
        n = chain.n
        start = np.r_[y0[:n], chain.on_slow_manifold(y0[:n], y0[n:], EPS, order=6)]
        models = {"friction": chain.friction(EPS), "reduced 1": chain.reduced(EPS, order=1)}
        times = {k: [] for k in models}
        for r in range(runs + 1):
            for key, model in models.items():
                t0 = time.process_time()
                nh.simulate(model, (0, 5.0), start if key == "friction" else y0, t_eval=np.linspace(0, 5, 41),
                            rtol=1e-8, atol=1e-10, raise_on_failure=True)
                if r:
                    times[key].append(time.process_time() - t0)
        for key in models:
            out[f"run chain N=8 | {key}"] = (statistics.median(times[key]), float("nan"))
    return out


def compare(base: str, rounds: int, repeats: int, runs: int) -> None:
    """Alternate processes with the build at `base` and the installed one; medians per entry."""
    results = {"base": [], "new": []}
    for _ in range(rounds):
        for label in ("base", "new"):
            cmd = [sys.executable, __file__, "--json", "--repeats", str(repeats), "--runs", str(runs)]
            if label == "base":
                cmd += ["--core", base]
            results[label].append(json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout))
    keys = results["new"][0].keys()
    print("| case | rhs base [us] | rhs new [us] | ratio | jac base [us] | jac new [us] | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        med = {lab: [statistics.median(r[key][i] for r in results[lab]) for i in (0, 1)] for lab in results}
        (rb, jb), (rn, jn) = med["base"], med["new"]
        scale = 1e3 if key.startswith("run") else 1e6
        unit_note = " [ms]" if key.startswith("run") else ""
        print(f"| {key}{unit_note} | {rb * scale:.3f} | {rn * scale:.3f} | {rn / rb:.2f} | {jb * scale:.3f} | "
              f"{jn * scale:.3f} | {jn / jb:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", help="path of another build of nonholo._core to load")
    parser.add_argument("--compare", help="path of the baseline build of nonholo._core: compare with the installed one")
    parser.add_argument("--rounds", type=int, default=5, help="alternating processes per build (--compare)")
    parser.add_argument("--repeats", type=int, default=20, help="measurements per cost (the least is kept)")
    parser.add_argument("--runs", type=int, default=9, help="timed whole runs of the chain N = 8 (0: none)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare, args.rounds, args.repeats, args.runs)
        return
    if args.core:
        load_core(args.core)
    out = measure(args.repeats, args.runs)
    if args.json:
        print(json.dumps(out))
        return
    for key, (rhs, jac) in out.items():
        scale = 1e3 if key.startswith("run") else 1e6
        print(f"{key:40s} {rhs * scale:10.3f} {jac * scale:10.3f}")


if __name__ == "__main__":
    main()
