"""Benchmark: the reduced models of regularized Coulomb friction against its friction model.

The Chaplygin sleigh (m = 1, I = 1, a = 0.2) on a knife edge with regularized Coulomb friction,
``nh.laws.Coulomb(0.5, v_s)``, normal load N = 9.81, from q = 0, u = (1, 0, 1) over t in [0, 5],
rtol 1e-8, atol 1e-10, one output time. The models:

* ``friction``: ``sleigh.friction(law=...)`` started on its slow manifold (``sleigh.slip(q, u, 3,
  law=...)``), ``method="auto"`` (C++, BDF once it is stiff);
* ``reduced, order K``: ``sleigh.reduced(order=K, law=...)``, the C++ model of the law's expansion
  (nonholo.models.law_core), as ``nh.simulate`` runs it by default: DOP853 where the model's
  right-hand side is cheap against an Adams step (``core.explicit_rk_pays``), else CVODE's Adams
  method, with the fold margin as a terminal event;
* ``reduced, order K, adams``: the same with ``method="adams"`` (CVODE's root finding for the event);
* ``Python reference, order K``: the expansion in Python series arithmetic at every right-hand side
  on SciPy's DOP853 (nonholo.models.law_reduced.LawReducedModel, what ``sleigh.reduced(law=...)``
  built before the C++ model).

Timed: ``nh.simulate`` (time.perf_counter around the call, models built beforehand, one untimed
warm-up run each), the models interleaved run by run, the median of ``--repeats`` rounds. Reported
per v_s: steps and right-hand sides, the median time, the median of the per-round ratios of each
model's time to the friction model's, and the error max |q - q_friction| at t = 5 (the friction
model at rtol 1e-12 as reference). With ``--instructions``, the instructions (Ir) each C++ run
executes inside ``nonholo::integrate`` (callgrind, one run per case in a fresh interpreter), and
their ratio to the friction model's: deterministic where wall time on a shared machine is not.

Usage: python benchmarks/reduced_laws.py [--quick] [--instructions] [--markdown PATH] [--json PATH];
one case under callgrind: python benchmarks/reduced_laws.py --run V_S NAME
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import nonholo as nh
from cli import add_output_options, emit, output_of

Q, U, N, T = np.zeros(3), np.array([1.0, 0.0, 1.0]), 9.81, 5.0
RTOL, ATOL = 1e-8, 1e-10
V_S = (1e-3, 1e-4)
CPP = ("friction", "reduced, order 1", "reduced, order 2", "reduced, order 1, adams", "reduced, order 2, adams")


def models(v_s: float, only: str | None = None) -> dict:
    """{name: (model, y0, options)} at this v_s (``only``: that case alone)."""
    from nonholo.models.law_reduced import LawReducedModel

    sleigh = nh.systems.chaplygin_sleigh()
    law = nh.laws.Coulomb(0.5, v_s=v_s)
    out = {}
    if only in (None, "friction"):
        H = sleigh.slip(Q, U, 3, law=law, normal=N)
        y_friction = np.r_[Q, U + sum(v_s ** (k + 1) * H[k] for k in range(3))]
        out["friction"] = (sleigh.friction(law=law, normal=N), y_friction, {})
    for K in (1, 2):
        names = [f"reduced, order {K}", f"reduced, order {K}, adams", f"Python reference, order {K}"]
        if only is not None and only not in names:
            continue
        reduced = sleigh.reduced(order=K, law=law, normal=N)
        out[names[0]] = (reduced, np.r_[Q, U], {})
        out[names[1]] = (reduced, np.r_[Q, U], {"method": "adams"})
        if only is None:
            out[names[2]] = (LawReducedModel(sleigh, reduced.expansion, K), np.r_[Q, U], {})
    return out


def timed(model, y0, **options):
    start = time.perf_counter()
    run = nh.simulate(model, (0, T), y0, t_eval=[T], rtol=RTOL, atol=ATOL, **options)
    return time.perf_counter() - start, run


def instructions(v_s: float, name: str) -> int:
    """Ir of one run of the case inside nonholo::integrate (callgrind, a fresh interpreter)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=nonholo::integrate(*",
                        f"--callgrind-out-file={out}", sys.executable, __file__, "--run", repr(v_s), name],
                       capture_output=True, text=True, check=True, env=dict(os.environ))
        return int(re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE).group(1))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="callgrind instruction counts of the C++ runs")
    parser.add_argument("--run", nargs=2, metavar=("V_S", "NAME"), help="run one case once (what callgrind runs)")
    add_output_options(parser)
    args = parser.parse_args(argv)
    if args.run:
        model, y0, options = models(float(args.run[0]), args.run[1])[args.run[1]]
        timed(model, y0, **options)
        return
    repeats, output = (2 if args.quick else args.repeats), output_of(args, argv)
    rows = []
    for v_s in V_S:
        cases = models(v_s)
        friction_model, y_friction, _ = cases["friction"]
        reference = nh.simulate(friction_model, (0, T), y_friction, t_eval=[T], rtol=1e-12, atol=1e-14)
        runs = {name: timed(model, y0, **options)[1] for name, (model, y0, options) in cases.items()}  # warm-up
        times = {name: [] for name in cases}
        for _ in range(repeats):
            for name, (model, y0, options) in cases.items():
                times[name].append(timed(model, y0, **options)[0])
        ir = {name: instructions(v_s, name) for name in CPP} if args.instructions else {}
        for name, run in runs.items():
            ratio = statistics.median(a / b for a, b in zip(times[name], times["friction"]))
            error = np.abs(run.y[:3, -1] - reference.y[:3, -1]).max()
            counts = f" {ir[name]:,} | {ir[name] / ir['friction']:.4f} |" if name in ir else " | |"
            rows.append(f"| {v_s:g} | {name} | {run.method} | {run.stats['n_steps']} | {run.nfev} | "
                        f"{statistics.median(times[name]) * 1e3:.2f} | {ratio:.3g} | {error:.1e} |"
                        + (counts if ir else ""))
    header = "| v_s | model | method | steps | rhs | ms | time / friction model | error at t = 5 |"
    rule = "|---:|---|---|---:|---:|---:|---:|---:|"
    if args.instructions:
        header += " Ir | Ir / friction model |"
        rule += "---:|---:|"
    text = "\n".join([
        f"Chaplygin sleigh, Coulomb(0.5, v_s), N = 9.81, t in [0, {T:g}], rtol {RTOL:g}, atol {ATOL:g}; "
        f"medians of {repeats} interleaved rounds; load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        header,
        rule,
        *rows,
    ])
    emit(text, output)


if __name__ == "__main__":
    main(sys.argv[1:])
