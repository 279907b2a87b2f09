"""Benchmark: the reduced model of order 1 against the friction model as the system grows.

What is run
-----------
``nh.systems.platoon(K)`` (K robots with no-slip axles joined by springs: n = 3K coordinates, K
constraints, block-diagonal G and A) for K in ``--sizes`` (default 10 20 40 80), from
``system.initial_state()``, t in [0, 2], eps = 1e-3, default tolerances and methods:

* ``friction``: ``system.friction(1e-3)``: the sparse path from K = 20 (``sparse="auto"``), BDF;
* ``reduced``: ``system.reduced(1e-3, order=1)``: DOP853 or Adams (``model.method``), then the
  validity check of the run (the gap bound, the eigenvalues where it cannot decide, and the first
  term the truncation drops, eps^2 h^(2), from the compiled series of order 2).

What is timed
-------------
* the first run: in a fresh interpreter (nonholo imported before the clock starts), the system's
  construction and one ``nh.simulate`` of the reduced model, which builds its tapes and, for the check,
  traces the series of order 2 (``_core.CompiledSlip``); median of ``--first-repeats`` samples;
* later runs: ``nh.simulate`` of each model, time.perf_counter around the call, the models interleaved,
  the median of ``--repeats`` rounds after one untimed round; for the reduced model also the integration
  alone (``result.stats["cpu_time"]``) and the check (``result.validity``'s share, the rest of the call).

The reduced model's right-hand side factors G and A G^-1 A^T densely (O(n^3) per evaluation) and its
series is traced densely; the friction model's sparse path factors only the nonzeros. The table shows
where the reduced model stops being the cheaper one.

Usage: python benchmarks/reduced_at_scale.py [--quick] [--sizes K ...] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import nonholo as nh
from cli import add_output_options, emit, output_of

EPS, T = 1e-3, 2.0

FIRST_RUN = """
import time, nonholo as nh
t0 = time.perf_counter()
platoon = nh.systems.platoon({K})
nh.simulate(platoon.reduced({eps}, order=1), (0, {T}), platoon.initial_state())
print(time.perf_counter() - t0)
"""


def first_run(K: int) -> float:
    """Seconds from the system's construction to the end of the reduced model's first run, fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", FIRST_RUN.format(K=K, eps=EPS, T=T)], capture_output=True,
                         text=True, check=True)
    return float(out.stdout.split()[-1])


def timed(model, y0) -> tuple:
    t0 = time.perf_counter()
    result = nh.simulate(model, (0, T), y0)
    return time.perf_counter() - t0, result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes 10 20, 2 rounds, 1 first-run sample")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40, 80])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--first-repeats", type=int, default=3)
    add_output_options(parser)
    args = parser.parse_args(argv)
    sizes = [10, 20] if args.quick else args.sizes
    repeats, first_repeats = (2, 1) if args.quick else (args.repeats, args.first_repeats)
    output = output_of(args, argv)
    rows = []
    for K in sizes:
        first = statistics.median(first_run(K) for _ in range(first_repeats))
        platoon = nh.systems.platoon(K)
        y0 = platoon.initial_state()
        models = {"friction": platoon.friction(EPS), "reduced": platoon.reduced(EPS, order=1)}
        runs = {name: timed(model, y0)[1] for name, model in models.items()}  # warm-up: tapes, traces
        times = {name: [] for name in models}
        integration = []
        for _ in range(repeats):
            for name, model in models.items():
                seconds, result = timed(model, y0)
                times[name].append(seconds)
                if name == "reduced":
                    integration.append(result.stats["cpu_time"])
        friction, reduced = statistics.median(times["friction"]), statistics.median(times["reduced"])
        solve = statistics.median(integration)
        ratio = statistics.median(r / f for r, f in zip(times["reduced"], times["friction"]))
        rows.append(f"| {K} | {3 * K} | {runs['friction'].method} | {friction * 1e3:.1f} | {runs['reduced'].method} | "
                    f"{reduced * 1e3:.1f} | {solve * 1e3:.1f} | {(reduced - solve) * 1e3:.1f} | {ratio:.3g} | "
                    f"{first:.2f} | {'yes' if runs['reduced'].validity.bounded.all() else 'no'} |")
    text = "\n".join([
        f"Platoon of K robots, eps = {EPS:g}, t in [0, {T:g}], default tolerances; medians of {repeats} interleaved "
        f"rounds (first runs: {first_repeats} fresh interpreters); load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| K | n | friction: method | friction (ms) | reduced: method | reduced (ms) | of it integration (ms) "
        "| of it the rest: check, set-up (ms) | reduced / friction | reduced's first run (s) "
        "| check decided by the bound |",
        "|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---|",
        *rows,
    ])
    emit(text, output)


if __name__ == "__main__":
    main(sys.argv[1:])
