"""Benchmark: instructions of one integration, by callgrind, for two builds of the core side by side.

What is run
-----------
Each case integrates once, in a fresh interpreter under ``valgrind --tool=callgrind``, with the
collection switched on only inside ``nonholo::integrate`` (``--toggle-collect``): building the
System and the model, imports and the interpreter are not counted. The cases:

* ``sleigh``, ``sleigh_1e-6``: the Chaplygin sleigh's friction model (m = I = 1, a = 0.2, mu = 1, eps =
  1e-4, or 1e-6), y0 = [0, 0, 0, -1.5, 0, 1], t in [0, 20], rtol 1e-8, atol 1e-10
  (benchmarks/friction_sleigh.py's two rows);
* ``fric_N_dense``, ``nh_N_dense``, ``fric_N_sparse``, ``nh_N_sparse``: the knife-edge chain of N
  blades (benchmarks/peers.py's state and tolerances, t in [0, 2]), friction (eps 1e-4, BDF) or
  nonholonomic (the default method dense, BDF sparse), ``sparse=`` False or True;
* ``reducedK_N``: the same chain's reduced model of order K (eps 1e-4) by ``nh.simulate``'s default;
* ``coulombK``: the sleigh's reduced model of order K of regularized Coulomb friction (mu 0.5,
  v_s 1e-2, normal load 1), y0 = [0, 0, 0, 1, 0, 0.3] on its constraint, t in [0, 20], DOP853, made
  and run through the core alone (its binding changed with the core's one reduced model).

What is reported
----------------
Instructions (Ir) per case and build, their ratio, and the run's counters (steps, right-hand
sides, Jacobians), which must agree between builds that compute the same thing. Instruction counts
are deterministic up to about 0.1 % (allocation patterns), so they compare builds on a machine
shared with other work, where wall-clock times do not.

A build is a path to a compiled ``_core`` module (copy the installed one aside before rebuilding);
``installed`` is the one the package imports.

Run: ``python benchmarks/core_instructions.py --builds before=/tmp/base/_core...so installed
[--cases sleigh fric_8_dense]``; one case runs as ``python benchmarks/core_instructions.py --run CASE``.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = ["sleigh", "sleigh_1e-6", "fric_8_dense", "nh_8_dense", "fric_24_sparse", "nh_24_sparse", "reduced1_8",
         "reduced2_8", "coulomb1", "coulomb2"]
_CORE = "NONHOLO_CORE_SO"


def _load_core(path: str) -> None:
    """Import the core at `path` as nonholo._core, before the package imports its own."""
    loader = importlib.machinery.ExtensionFileLoader("nonholo._core", path)
    spec = importlib.util.spec_from_file_location("nonholo._core", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["nonholo._core"] = module


def run_case(case: str) -> str:
    """Integrate `case` once; returns its counters as one line."""
    if os.environ.get(_CORE):
        _load_core(os.environ[_CORE])
    import numpy as np

    import nonholo as nh

    options = dict(rtol=1e-8, atol=1e-10)
    if case.startswith("coulomb"):
        return _run_law_case(int(case[len("coulomb"):]), options)
    if case.startswith("sleigh"):
        eps = float(case.split("_")[1]) if "_" in case else 1e-4
        model = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2, mu=1.0).friction(eps)
        y0, span = np.array([0, 0, 0, -1.5, 0, 1.0]), (0.0, 20.0)
    else:
        kind, size, storage = (case + "_dense").split("_")[:3]
        N, sparse = int(size), storage == "sparse"
        system = nh.systems.knife_edge_chain(N)
        if kind.startswith("reduced"):
            model = system.reduced(1e-4, order=int(kind[len("reduced"):]))
        else:
            model = system.friction(1e-4, sparse=sparse) if kind == "fric" else system.nonholonomic(sparse=sparse)
        q = np.concatenate([[0.0, 0.0], 0.1 * np.arange(1, N + 1)])
        v = np.zeros(N + 2)
        v[0], v[2] = 1.0, 0.3
        y0, span = np.concatenate([q, system.project(q, v)]), (0.0, 2.0)
        if kind == "fric" or (sparse and kind == "nh"):
            options["method"] = "bdf"
    result = nh.simulate(model, span, y0, t_eval=[span[1]], **options)
    s = result.stats
    return f"status {result.status} steps {s['n_steps']} rhs {s['n_rhs']} jac {s['n_jac']}"


def _run_law_case(order: int, options: dict) -> str:
    """The ``coulombK`` case through the core alone: the law's tapes, its reduced model (the binding of
    either build) and one run of ``_core.integrate``."""
    import numpy as np

    import nonholo as nh
    from nonholo import _core
    from nonholo.models.law_core import law_expansion_core
    from nonholo.system.law_slow_manifold import LawSlowManifold

    sleigh = nh.systems.chaplygin_sleigh()
    law = law_expansion_core(LawSlowManifold(sleigh, nh.laws.Coulomb(0.5, 1e-2), normal=1.0))
    if hasattr(_core, "law_reduced_model"):  # a build before the one reduced model
        core = _core.law_reduced_model(sleigh.core, order, law)
    else:
        core = _core.reduced_model(sleigh.core, order, law=law)
    q = np.zeros(3)
    y0 = np.r_[q, sleigh.project(q, np.array([1.0, 0.0, 0.3]))]
    raw = _core.integrate(core, list(sleigh.param_vector()), 0.0, 20.0, y0, [20.0], [],
                          _core.RunOptions(method="dop853", **options))
    s = raw["stats"]
    return f"status {raw['status']} steps {s['n_steps']} rhs {s['n_rhs']} jac {s['n_jac']}"


def measure(case: str, core: str | None) -> tuple:
    """(instructions, counters) of `case` with the core at `core` (None: the installed one)."""
    env = dict(os.environ)
    env.pop(_CORE, None)
    if core is not None:
        env[_CORE] = core
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        proc = subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                               "--toggle-collect=nonholo::integrate(*", f"--callgrind-out-file={out}",
                               sys.executable, __file__, "--run", case],
                              env=env, capture_output=True, text=True, check=True)
        totals = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
    counters = proc.stdout.strip().splitlines()[-1]
    return int(totals.group(1)), counters


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", help="integrate this one case (what callgrind runs)")
    parser.add_argument("--builds", nargs="+", default=["installed"],
                        help="NAME=PATH of a compiled _core, or 'installed'; the first is the reference")
    parser.add_argument("--cases", nargs="+", default=CASES)
    args = parser.parse_args(argv)
    if args.run:
        print(run_case(args.run))
        return 0
    builds = [(b, None) if b == "installed" else tuple(b.split("=", 1)) for b in args.builds]
    print("| case | " + " | ".join(f"{name} Ir" for name, _ in builds) + " | ratio to first | counters |")
    print("|---|" + "---|" * (len(builds) + 2))
    for case in args.cases:
        results = [measure(case, path) for _, path in builds]
        ratios = " / ".join(f"{ir / results[0][0]:.4f}" for ir, _ in results)
        same = all(c == results[0][1] for _, c in results)
        counters = results[0][1] if same else "; ".join(c for _, c in results)
        print(f"| {case} | " + " | ".join(f"{ir:,}" for ir, _ in results) + f" | {ratios} | {counters} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
