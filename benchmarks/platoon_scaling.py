"""Benchmark: how the platoon's set-up and cost per step grow with its size, sparse and dense paths.

What is run
-----------
``nh.systems.platoon(K)`` (K robots with no-slip axles joined by springs: n = 3K coordinates,
K constraints, block-diagonal G and A, banded force Jacobian) for K in ``--sizes`` (default
10 30 100 300), from ``system.initial_state()`` (driving forward in a line, perturbed by 0.01),
t in [0, 2], default tolerances, in the nonholonomic model (the default method: DOP853 here) and
the friction model (eps = 1e-3; BDF with the automatic Jacobian), each built twice:

* ``sparse="auto"`` (the default): the sparse path (models/sparse_backend.hpp: the nonzeros of G, A and mu,
  a sparse L D L^T, a sparse Newton matrix) from n >= 60 at density <= 0.1, so at K >= 20; the
  dense path at K = 10;
* ``sparse=False``: the dense path (dense L D L^T of G and of A G^-1 A^T, dense Jacobian tapes),
  up to K = ``--dense-max`` (default 100). K = 300 is not run dense: measured on 2026-11-28, the
  dense friction model's first Jacobian (which builds its dense derivative tapes) took 0.36 s at
  K = 30 and 12 s at K = 100 with 1.4 GB resident (about n^3: dG/dq has n^3 entries), which
  extrapolates to about 5 minutes and 35-40 GB at K = 300, past this machine's memory; its runs
  grow like n^2.9 per step (22 s per run at K = 100, about 9 minutes at K = 300).

Measured (2026-11-28, loaded 2-core machine, default sizes): the sparse path's cost per step grows
like n^0.76 (nonholonomic) and n^0.86 (friction) from K = 30 to 300 against n^2.4 and n^2.9 dense
from K = 10 to 100; at K = 100 the sparse runs are 150x (nonholonomic) and 250x (friction) faster,
and the set-up of both models at K = 300 takes 4 s, 3 s of it SymPy building the system.

What is timed
-------------
* set-up, in a fresh interpreter per sample (SymPy's caches empty, nonholo imported before the
  clock starts): ``nh.systems.platoon(K)`` (SymPy to the system's tapes), then the nonholonomic
  model's construction and first right-hand side, then the friction model's construction, first
  right-hand side and first Jacobian (which builds the derivative tapes, lazily built above 40
  coordinates); median of ``--setup-repeats`` samples (default 3), interleaved over the sizes; the
  process's peak resident memory (median);
* per step: ``nh.simulate(model, (0, 2), y0)``, time.perf_counter around the call, divided by
  ``result.stats["n_steps"]`` (and by ``n_rhs``); every run of every (K, path, model) in one round,
  ``--repeats`` rounds (default 5) after one untimed round, medians.

The exponent of each cost against n = 3K is fitted by least squares in log-log
(``nonholo.testing.loglog_slope``) over the sizes run. ``--json PATH`` saves the tables in the
report's format (benchmarks/cli.py).

Run: ``PYTHONPATH=python python3 benchmarks/platoon_scaling.py [--sizes 10 30 100 300] [--repeats 5]
[--dense-max 100] [--json PATH]``.
"""

from __future__ import annotations

import os

# one BLAS thread: on a shared 2-core machine threaded BLAS only oversubscribes it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli import Output, add_output_options, emit, script_options  # noqa: E402

KINDS = ("nonholonomic", "friction")
SETUP_PARTS = ("system", "nonholonomic", "friction", "jacobian")


# ----------------------------------------------------------------------------- workloads

def make_system(family: str, size: int):
    """(system, consistent moving state) of the platoon of ``size`` robots or the chain of ``size`` blades."""
    import nonholo as nh

    if family == "platoon":
        system = nh.systems.platoon(size)
        return system, system.initial_state()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from peers import chain_state

    system = nh.systems.knife_edge_chain(size)
    return system, chain_state(system, size)


def make_model(system, kind: str, eps: float, sparse):
    return system.nonholonomic(sparse=sparse) if kind == "nonholonomic" else system.friction(eps, sparse=sparse)


# ----------------------------------------------------------------------------- set-up, in fresh processes

def setup_sample(family: str, size: int, eps: float, sparse) -> dict:
    """Seconds of each set-up part (SETUP_PARTS) in this process, and which path each model took."""
    import nonholo  # noqa: F401 (imported before the clock starts)

    out = {}
    t0 = time.perf_counter()
    system, y0 = make_system(family, size)
    out["system"] = time.perf_counter() - t0
    for kind in KINDS:
        t0 = time.perf_counter()
        model = make_model(system, kind, eps, sparse)
        p = model.param_vector()
        model.core.rhs(0.0, y0, p)
        out[kind] = time.perf_counter() - t0
        out[f"{kind} sparse"] = bool(model.sparse)
    t0 = time.perf_counter()
    model.core.jacobian(0.0, y0, p)  # the friction model's first Jacobian builds its derivative tapes
    out["jacobian"] = time.perf_counter() - t0
    out["peak MB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB
    return out


def setup_samples(script: str, family: str, sizes: list, dense_max: int, eps: float, repeats: int) -> dict:
    """(size, path) -> median seconds of each part, each sample a fresh interpreter, interleaved rounds."""
    configs = [(s, path) for s in sizes for path in ("auto", "dense") if path == "auto" or s <= dense_max]
    samples = {c: [] for c in configs}
    for _ in range(repeats):
        for size, path in configs:
            sparse = "auto" if path == "auto" else "False"
            cmd = [sys.executable, script, "--setup-sample", family, str(size), repr(eps), sparse]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            samples[(size, path)].append(json.loads(done.stdout.strip().splitlines()[-1]))
    out = {}
    for c, runs in samples.items():
        out[c] = {part: statistics.median(r[part] for r in runs) for part in (*SETUP_PARTS, "peak MB")}
        out[c]["paths"] = {k: runs[0][f"{k} sparse"] for k in KINDS}
    return out


def setup_sample_main(argv: list) -> None:
    """``--setup-sample FAMILY SIZE EPS SPARSE``: print one sample as a JSON line."""
    family, size, eps, sparse = argv
    sparse = "auto" if sparse == "auto" else sparse == "True"
    print(json.dumps(setup_sample(family, int(size), float(eps), sparse)))


# ----------------------------------------------------------------------------- per-step cost

def step_costs(family: str, sizes: list, dense_max: int, eps: float, repeats: int, options=None) -> dict:
    """(size, path, kind) -> median wall, steps, rhs, jac of nh.simulate(model, (0, 2), y0, **options[kind]),
    interleaved rounds."""
    import nonholo as nh

    runs = {}
    for size in sizes:
        system, y0 = make_system(family, size)
        for path in ("auto", "dense"):
            if path == "dense" and size > dense_max:
                continue
            for kind in KINDS:
                model = make_model(system, kind, eps, "auto" if path == "auto" else False)
                runs[(size, path, kind)] = (model, y0)
    options = options or {}
    for (_, _, kind), (model, y0) in runs.items():  # untimed: the first run builds what is lazy (tapes, workspaces)
        nh.simulate(model, (0.0, 2.0), y0, **options.get(kind, {}))
    times, stats = {c: [] for c in runs}, {}
    for _ in range(repeats):
        for c, (model, y0) in runs.items():
            t0 = time.perf_counter()
            res = nh.simulate(model, (0.0, 2.0), y0, **options.get(c[2], {}))
            times[c].append(time.perf_counter() - t0)
            if res.status != 0:
                raise RuntimeError(f"{family} {c}: {res.message}")
            stats[c] = dict(steps=res.stats["n_steps"], rhs=res.stats["n_rhs"], jac=res.stats.get("n_jac", 0),
                            method=res.method, sparse=bool(model.sparse))
    return {c: dict(stats[c], wall=statistics.median(ts)) for c, ts in times.items()}


# ----------------------------------------------------------------------------- tables

def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.3g} us"


def _s(seconds: float) -> str:
    return f"{seconds:.3g} s"


def path_name(path: str, sparse: bool) -> str:
    return ("auto: sparse" if sparse else "auto: dense") if path == "auto" else "sparse=False"


def setup_table(setups: dict, n_of, size_name: str) -> str:
    lines = [f"| {size_name} | n | path | system | nonholonomic model + first rhs | friction model + first rhs "
             "| friction's first Jacobian | total | peak memory |", "|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for (size, path), r in setups.items():
        total = sum(r[p] for p in SETUP_PARTS)
        lines.append(f"| {size} | {n_of(size)} | {path_name(path, r['paths']['friction'])} | "
                     + " | ".join(_s(r[p]) for p in SETUP_PARTS) + f" | {_s(total)} | {r['peak MB']:.0f} MB |")
    return "\n".join(lines)


def step_table(costs: dict, n_of, size_name: str) -> str:
    lines = [f"| {size_name} | n | path | model | method | steps | rhs | Jacobians | run | per step | per rhs |",
             "|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for (size, path, kind), r in sorted(costs.items(), key=lambda item: (item[0][2], item[0][1], item[0][0])):
        lines.append(f"| {size} | {n_of(size)} | {path_name(path, r['sparse'])} | {kind} | {r['method']} | "
                     f"{r['steps']} | {r['rhs']} | {r['jac']} | {r['wall'] * 1e3:.3g} ms | "
                     f"{_us(r['wall'] / r['steps'])} | {_us(r['wall'] / r['rhs'])} |")
    return "\n".join(lines)


def exponent_table(costs: dict, setups: dict, n_of) -> str:
    """Fitted exponents p of cost ~ n^p over the sizes run, per path and model."""
    from nonholo.testing import loglog_slope

    lines = ["| cost | path | sizes n | exponent p (cost ~ n^p) |", "|---|---|---|---:|"]
    for kind in sorted({c[2] for c in costs}):
        for path in ("auto", "dense"):
            pts = sorted((n_of(s), r) for (s, p, k), r in costs.items() if p == path and k == kind)
            if len(pts) < 2:
                continue
            n = [x for x, _ in pts]
            label = "sparse=\"auto\"" if path == "auto" else "sparse=False"
            for what, f in (("per step", lambda r: r["wall"] / r["steps"]),
                            ("per rhs", lambda r: r["wall"] / r["rhs"])):
                p = loglog_slope(np.array(n, float), [f(r) for _, r in pts])
                lines.append(f"| {kind}, {what} | {label} | {', '.join(map(str, n))} | {p:.2f} |")
    for path in ("auto", "dense"):
        pts = sorted((n_of(s), sum(r[p] for p in SETUP_PARTS)) for (s, pa), r in setups.items() if pa == path)
        if len(pts) >= 2:
            n = [x for x, _ in pts]
            p = loglog_slope(np.array(n, float), [t for _, t in pts])
            label = "sparse=\"auto\"" if path == "auto" else "sparse=False"
            lines.append(f"| set-up, total | {label} | {', '.join(map(str, n))} | {p:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--setup-sample"]:
        setup_sample_main(argv[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 30, 100, 300])
    parser.add_argument("--dense-max", type=int, default=100, help="largest K run with sparse=False")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds of the runs")
    parser.add_argument("--setup-repeats", type=int, default=3, help="fresh-process samples of the set-up")
    add_output_options(parser)
    args = parser.parse_args(argv)
    eps = 1e-3
    setups = setup_samples(__file__, "platoon", args.sizes, args.dense_max, eps, args.setup_repeats)
    costs = step_costs("platoon", args.sizes, args.dense_max, eps, args.repeats)
    n_of = lambda K: 3 * K  # noqa: E731
    load = os.getloadavg()[0]
    text = (f"The platoon, t in [0, 2], default tolerances, friction eps = {eps:g}; medians of {args.repeats} "
            f"interleaved rounds (runs) and of {args.setup_repeats} fresh-process samples (set-up); load average "
            f"{load:.1f} at the end.\n\nSet-up:\n\n" + setup_table(setups, n_of, "K")
            + "\n\nRuns:\n\n" + step_table(costs, n_of, "K") + "\n\nFitted exponents:\n\n"
            + exponent_table(costs, setups, n_of) + "\n")
    emit(text, Output(args.markdown, args.json, script_options(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
