"""Benchmark: ``simulate_many(compile="auto")`` against ``compile=False`` on the Whipple bicycle.

What is run
-----------
200 runs of the Whipple bicycle's nonholonomic model (``nh.systems.whipple_bicycle()``), each
from ``upright_state(system, speed, roll, steer_rate)`` with speed 4 + 0.1 N(0, 1) m/s, roll and
steer rate 0.01 N(0, 1) (seed 0), over t in [0, T] for T = 5 and T = 60, default tolerances,
threads = all cores.

What is timed
-------------
``nh.simulate_many(model, (0, T), Y0, compile=...)`` with time.perf_counter around that call only,
on a freshly built model (so no tape is attached before the call), for

* ``compile=False``: the interpreter;
* ``compile="auto"``, empty cache: ``NONHOLO_CACHE`` pointed at a new temporary directory, so the
  compile (if auto decides for it) is inside the timing;
* ``compile="auto"``, warm cache: the tapes built into the cache beforehand (untimed).

The three variants are interleaved in every round; the medians of ``--rounds`` rounds (default 5)
are printed with the ratios and whether auto compiled. Every round also checks that the results of
auto equal those of False bit for bit (np.array_equal on every run's y).

Run: ``PYTHONPATH=python python3 benchmarks/compile_auto.py [--rounds 5] [--spans 5 60] [--markdown PATH]
[--json PATH]``.

Stored results: benchmarks/results/compile_auto.json, shown in benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import nonholo as nh
from cli import add_output_options, emit, output_of  # the script's directory is on sys.path
from nonholo.systems.whipple_bicycle import upright_state


def initial_states(system, n_runs: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.array([upright_state(system, 4.0 + 0.1 * rng.standard_normal(), roll=0.01 * rng.standard_normal(),
                                   steer_rate=0.01 * rng.standard_normal()) for _ in range(n_runs)])


def timed(T: float, Y0: np.ndarray, compile, cache: str) -> tuple:
    """(seconds, compiled afterwards, results) of one batch on a fresh model, with NONHOLO_CACHE=cache."""
    os.environ["NONHOLO_CACHE"] = cache
    model = nh.systems.whipple_bicycle().nonholonomic()
    start = time.perf_counter()
    results = nh.simulate_many(model, (0.0, T), Y0, compile=compile)
    return time.perf_counter() - start, model.compiled, results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--spans", type=float, nargs="+", default=[5.0, 60.0])
    add_output_options(parser)
    args = parser.parse_args(argv)
    rows = []
    Y0 = initial_states(nh.systems.whipple_bicycle(), args.runs)
    warm = tempfile.mkdtemp(prefix="nonholo-warm-")
    os.environ["NONHOLO_CACHE"] = warm
    nh.systems.whipple_bicycle().nonholonomic().compile(fuse=False)  # the warm cache, untimed
    for T in args.spans:
        times = {"False": [], "auto, empty cache": [], "auto, warm cache": []}
        compiled = {}
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory(prefix="nonholo-empty-") as empty:
                for label, compile, cache in (("False", False, warm), ("auto, empty cache", "auto", empty),
                                              ("auto, warm cache", "auto", warm)):
                    seconds, compiled[label], results = timed(T, Y0, compile, cache)
                    times[label].append(seconds)
                    if label == "False":
                        reference = results
                    elif not all(np.array_equal(a.y, b.y) for a, b in zip(reference, results)):
                        raise AssertionError(f"compile='auto' ({label}) changed the results at T = {T}")
        base = statistics.median(times["False"])
        for label, values in times.items():
            median = statistics.median(values)
            done = "yes" if compiled[label] else "no"
            rows.append(f"| {T:g} | {label} | {median:.3f} | {base / median:.2f} | {done} |")
    head = ("| T | compile= | time [s] | speed-up over False | compiled |\n"
            "|---:|---|---:|---:|---|")
    note = (f"{args.runs} runs of the Whipple bicycle per batch, medians of {args.rounds} interleaved rounds; "
            "the results of every batch with compile=\"auto\" equal those with compile=False bit for bit.")
    emit(head + "\n" + "\n".join(rows) + "\n\n" + note + "\n", output_of(args, argv))


if __name__ == "__main__":
    main()
