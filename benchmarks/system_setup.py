"""Benchmark: the Python set-up of a large sparse System, nh.systems.platoon(K), against K.

What is run
-----------
``nh.systems.platoon(K)`` (3K coordinates, K constraints, 3 x 3 blocks on the diagonal of G) for
K in ``--sizes`` (default 30 100 300), each sample in a fresh Python process (SymPy's caches would
make a second build in one process cheaper than a user's first), rounds of all sizes interleaved,
``--repeats`` rounds (default 3; ``--quick`` 2), medians reported.

What is timed
-------------
time.perf_counter around:

* builder: ``platoon(K)`` minus ``System.__init__`` (SymPy: the symbols, G, A and the springs' V);
* System: ``System.__init__`` minus the C++ ``_core.MechanicalSystem`` constructor (symbol names and
  checks, lowering to the expression graph, the metric's symmetry check);
* Python = builder + System, which must grow about linearly in K (fitted exponent printed).

By default the C++ constructor is replaced by a placeholder that raises on any use, so the Python
set-up is measured alone and a Python step that needed the C++ system would fail loudly: today's
dense constructor needs more than 13 GB at K = 300. ``--with-core`` runs and times it too.

Run: ``PYTHONPATH=python python3 benchmarks/system_setup.py [--sizes 30 100 300] [--repeats 3]``.

Measured (2-core machine under a load average of 4-8 from other jobs; Python = builder + System).
Before the O(nonzeros) set-up (medians of 3 rounds interleaved with the after rows; the old
numerical symmetry check, which needs the C++ system, skipped, so a lower bound): K = 30, 100,
300 took 1.0, 13.3, 68 s (System 0.37, 9.3, 63 s: walks over the n^2 entries of G; builder
0.75, 4.0, 8.0 s: SymPy's assumptions about each spring's square root). After it (medians of 5
rounds): 0.29, 0.54, 1.81 s (System 0.04, 0.15, 0.86 s; builder 0.25, 0.39, 0.95 s), ~K^0.8.
What still grows like n^2 at K = 300 (~0.4 s): SymPy's dense immutable matrices hold all n^2
entries as arguments, and the graph's outputs are dense G, A and mu (what the C++ core reads).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

PARTS = ("builder", "system", "python", "core")


def sample(K: int, with_core: bool) -> dict:
    """One build of platoon(K) in this process: the seconds of each part."""
    import nonholo as nh
    from nonholo import _core

    seconds = {"core": 0.0}
    constructor = _core.MechanicalSystem

    def core(*args, **kwargs):
        if not with_core:
            return _Placeholder()
        start = time.perf_counter()
        try:
            return constructor(*args, **kwargs)
        finally:
            seconds["core"] += time.perf_counter() - start

    init = nh.System.__init__

    def timed_init(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            init(self, *args, **kwargs)
        finally:
            seconds["init"] = time.perf_counter() - start

    _core.MechanicalSystem, nh.System.__init__ = core, timed_init
    start = time.perf_counter()
    nh.systems.platoon(K)
    total = time.perf_counter() - start
    system = seconds["init"] - seconds["core"]
    return {"builder": total - seconds["init"], "system": system, "python": total - seconds["core"],
            "core": seconds["core"]}


class _Placeholder:
    """Stands for the C++ system when it is not built: any use is an error."""

    def __getattr__(self, name):
        raise RuntimeError(f"the Python set-up used the C++ system ({name}); run with --with-core")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 100, 300])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="2 rounds")
    parser.add_argument("--with-core", action="store_true", help="also build and time the C++ system")
    parser.add_argument("--sample", type=int, help=argparse.SUPPRESS)  # one build, in a child process
    args = parser.parse_args()
    if args.sample is not None:
        print(json.dumps(sample(args.sample, args.with_core)))
        return
    rounds = 2 if args.quick else args.repeats
    runs: dict = {K: [] for K in args.sizes}
    for _ in range(rounds):
        for K in args.sizes:
            command = [sys.executable, __file__, "--sample", str(K)] + (["--with-core"] if args.with_core else [])
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            runs[K].append(json.loads(out.splitlines()[-1]))
    print(f"platoon(K) set-up, medians of {rounds} rounds (seconds)")
    print(f"{'K':>5} {'n':>5} " + " ".join(f"{p:>8}" for p in PARTS))
    medians = {K: {p: statistics.median(r[p] for r in runs[K]) for p in PARTS} for K in args.sizes}
    for K, m in medians.items():
        print(f"{K:5d} {3 * K:5d} " + " ".join(f"{m[p]:8.3f}" for p in PARTS))
    if len(args.sizes) > 1:
        from nonholo.testing import loglog_slope

        slope = loglog_slope(args.sizes, [medians[K]["python"] for K in args.sizes])
        print(f"Python set-up ~ K^{slope:.2f}")


if __name__ == "__main__":
    main()
