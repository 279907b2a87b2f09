"""Benchmark: throughput of a parameter study on all cores, in-process and on a local Dask cluster.

2000 trajectories of the friction sleigh (eps = 1e-4, t in [0, 10], rtol 1e-8, atol 1e-10) with
random initial heading rates and speeds, each returning its final state:

- ``simulate_many`` with 1 and with 2 C++ threads (GIL released, one CVODE instance per run);
- ``nh.sweep`` over batches of trajectories with its default thread pool (2 threads), and with
  a local Dask cluster of 2 single-threaded worker processes (``client.get_executor()``).

Each configuration is timed ``--repeats`` times (median wall time of the whole study, after a
warm-up run); speedup = serial time / time (of the medians, and of the minima, which are less
exposed to other load on the machine), parallel efficiency = speedup / workers. All
configurations must give the same final states (they do, bit for bit: same code, same inputs).

Usage: python benchmarks/scaling.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import functools
import os
import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

N_TRAJECTORIES = 2000
EPS = 1e-4
T_SPAN = (0.0, 10.0)
TOLERANCES = dict(rtol=1e-8, atol=1e-10)
N_BATCHES = 20


def initial_states(n: int) -> np.ndarray:
    """Sleigh states [x, y, phi, x', y', phi'] with (x', y') along the blade (the constraint
    -sin(phi) x' + cos(phi) y' = 0), random heading, speed and turn rate."""
    rng = np.random.default_rng(2026)
    speed, turn, phi = rng.uniform(0.5, 2.0, n), rng.uniform(-1.5, 1.5, n), rng.uniform(0, 2 * np.pi, n)
    return np.column_stack([np.zeros(n), np.zeros(n), phi, speed * np.cos(phi), speed * np.sin(phi), turn])


@functools.lru_cache(maxsize=None)
def friction_sleigh():
    """Built once per process: building the system is SymPy work (~30 ms) that holds the GIL."""
    return nh.systems.chaplygin_sleigh().friction(EPS)


def run_batch(batch: int, n_batches: int = N_BATCHES, threads: int = 1) -> np.ndarray:
    """Final states of one batch of the study (module level, so processes and Dask can pickle it)."""
    Y0 = np.array_split(initial_states(N_TRAJECTORIES), n_batches)[batch]
    results = nh.simulate_many(friction_sleigh(), T_SPAN, Y0, threads=threads, t_eval=[T_SPAN[1]],
                               raise_on_failure=True, **TOLERANCES)
    return np.array([r.y[:, -1] for r in results])


def all_at_once(threads: int) -> np.ndarray:
    return run_batch(0, n_batches=1, threads=threads)


def swept(executor=None, n_batches: int = N_BATCHES) -> np.ndarray:
    result = nh.sweep(functools.partial(run_batch, n_batches=n_batches), {"batch": np.arange(n_batches)},
                      executor=executor, progress=False, threads=None if executor is not None else 2)
    return result["value"].reshape(N_TRAJECTORIES, -1)


def timed(fn, repeats: int):
    """(median, min) wall time of fn over ``repeats`` runs after a warm-up, and its output."""
    fn()  # warm-up: imports, tapes, worker start-up
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return (statistics.median(times), min(times)), out


def run(repeats: int) -> tuple:
    rows = []
    serial, reference = timed(lambda: all_at_once(1), repeats)
    rows.append(dict(config="simulate_many, 1 thread", workers=1, time=serial))
    seconds, out = timed(lambda: all_at_once(2), repeats)
    rows.append(dict(config="simulate_many, 2 threads", workers=2, time=seconds, same=np.array_equal(out, reference)))
    seconds, out = timed(swept, repeats)
    rows.append(dict(config=f"sweep, thread pool (2), {N_BATCHES} batches", workers=2, time=seconds,
                     same=np.array_equal(out, reference)))
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        # pure=False: Dask would otherwise hand back the cached results of the previous repeat
        executor = client.get_executor(pure=False)
        for n_batches in (N_BATCHES, 2):
            seconds, out = timed(lambda: swept(executor, n_batches), repeats)
            rows.append(dict(config=f"sweep, Dask LocalCluster (2 workers), {n_batches} batches", workers=2,
                             time=seconds, same=np.array_equal(out, reference)))
    serial_median, serial_min = serial
    for r in rows:
        r["time"], r["min_time"] = r["time"]
        r["speedup"], r["min_speedup"] = serial_median / r["time"], serial_min / r["min_time"]
        r["efficiency"] = r["speedup"] / r["workers"]
    return rows, reference


def markdown(rows: list, repeats: int) -> str:
    lines = ["## Parameter-study throughput on 2 cores", "",
             f"{N_TRAJECTORIES} friction-sleigh trajectories (eps {EPS:g}, t in [0, 10], rtol "
             f"{TOLERANCES['rtol']:g}); median of {repeats} runs on {os.cpu_count()} cores.", "",
             "| configuration | median time [s] | trajectories/s | speedup | efficiency | speedup of min times "
             "| same result |",
             "|---|---:|---:|---:|---:|---:|:---:|"]
    for r in rows:
        same = "reference" if "same" not in r else ("yes" if r["same"] else "NO")
        lines.append(f"| {r['config']} | {r['time']:.2f} | {N_TRAJECTORIES / r['time']:.0f} | {r['speedup']:.2f}x "
                     f"| {r['efficiency']:.0%} | {r['min_speedup']:.2f}x | {same} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    repeats, output = repeats_and_output(__doc__, 9, argv)
    rows, _ = run(repeats)
    emit(markdown(rows, repeats), output)
    return 0 if all(r.get("same", True) for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
