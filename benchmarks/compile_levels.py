"""Benchmark: what model.compile() costs to set up and what it gains, at the optimization levels
-O1 and -O2, per model kind.

For the Chaplygin sleigh, the knife-edge chain (N = 8, 16) and the Whipple bicycle (SymPy's
KanesMethod, as benchmarks/peers.py builds it): the nonholonomic, friction and reduced models
(order 1; order 2 with its compiled slow manifold h^(1..2) where the graph is built), each
compiled with ``model.compile()`` (the tapes its own right-hand side evaluates,
``core.rhs_tapes``) at each level into an empty cache: the build's wall time and the compiler's
CPU time (the tapes of one model build side by side, one compiler process each), then the cost
of one right-hand side interpreted and compiled at each level (CPU time of calls looped in C++,
``_core.diagnostics.seconds_per_rhs``; and the wall time of the Jacobian where the friction model compiles
its implicit-Jacobian tape, ``_core.diagnostics.time_evaluations``), median of interleaved batches.
-march=native is not measured: the cache may be shared between machines of different CPUs,
where such a kernel can fault.

Usage: python benchmarks/compile_levels.py [--quick] [--markdown PATH] [--only sleigh,chain8,chain16,bicycle]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from cli import add_output_options, emit, output_of  # noqa: E402
from nonholo import _core
from nonholo.expressions import compiled  # noqa: E402

LEVELS = {"-O1": "-O1", "-O2": "-O2"}


def _flags(level: str) -> tuple:
    return (level, *[f for f in compiled.FLAGS if not f.startswith("-O")])


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _build(model, level: str, directory: Path) -> tuple:
    """(wall seconds, compiler CPU seconds) of compiling the model's default tapes uncached."""
    saved = compiled.FLAGS
    compiled.FLAGS = _flags(level)
    try:
        compiled.detach(model.core)
        wall, cpu = time.perf_counter(), _children_cpu()
        reason = compiled.compile_model(model.core, None, directory)
        if reason is not None:
            raise SystemExit(reason)
        return time.perf_counter() - wall, _children_cpu() - cpu
    finally:
        compiled.FLAGS = saved


def _attach(model, level: str | None, directories: dict) -> None:
    compiled.detach(model.core)
    if level is None:
        return
    saved = compiled.FLAGS
    compiled.FLAGS = _flags(level)
    try:
        compiled.compile_model(model.core, None, directories[level])  # cache hits
    finally:
        compiled.FLAGS = saved


def _calls(model, y) -> int:
    one = _core.diagnostics.time_evaluations(model.core, 0.0, y, model.param_vector(), 5)[0]
    return int(max(20, min(20000, 0.03 / max(one, 1e-9))))


def _cpu_per_rhs(model, y, p, calls) -> float:
    """CPU seconds per right-hand side, the calls looped in C++ (process time: the other jobs of a
    shared machine disturb it less than wall time)."""
    start = time.process_time()
    _core.diagnostics.seconds_per_rhs(model.core, 0.0, y, p, calls)
    return (time.process_time() - start) / calls


def measure(system_name, label, model, y, batches) -> dict:
    tapes = model.core.rhs_tapes
    size = sum(_core.diagnostics.tape_size(model.core, t)[0] for t in tapes)
    with tempfile.TemporaryDirectory() as tmp:
        directories = {level: Path(tmp) / level.strip("-") for level in LEVELS}
        builds = {level: _build(model, level, directories[level]) for level in LEVELS}
        calls = _calls(model, y)
        p = model.param_vector()
        rhs = {None: [], **{level: [] for level in LEVELS}}
        jac = {None: [], **{level: [] for level in LEVELS}}
        for _ in range(batches):
            for level in rhs:
                _attach(model, level, directories)
                rhs[level].append(_cpu_per_rhs(model, y, p, calls))
                if "jacobian" in tapes:
                    jac[level].append(_core.diagnostics.time_evaluations(model.core, 0.0, y, p, max(1, calls // 10))[1])
        compiled.detach(model.core)
    return dict(system=system_name, model=label, tapes=", ".join(tapes), size=size, builds=builds,
                rhs={k: statistics.median(v) for k, v in rhs.items()},
                jac={k: statistics.median(v) for k, v in jac.items()} if "jacobian" in tapes else None)


def sleigh_cases():
    system = nh.systems.chaplygin_sleigh()
    y = np.array([0.0, 0.0, 0.3, -1.5, 0.2, 1.0])
    y[3:] = system.project(y[:3], y[3:])
    return "sleigh", system, y, 1e-3


def chain_cases(N):
    from peers import chain_state

    system = nh.systems.knife_edge_chain(N)
    return f"chain N = {N}", system, chain_state(system, N), 1e-4


def bicycle_case(batches):
    from peers import bicycle_state

    from nonholo.expressions.mechanics import kane_qdot

    km, values = nh.systems.whipple_bicycle_kane()
    x0 = bicycle_state(km, values)
    nq = len(km.q)
    model = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot").nonholonomic()
    y = np.concatenate([x0[:nq], kane_qdot(km, x0[:nq], x0[nq:], values)])
    return [measure("bicycle (KanesMethod)", "nonholonomic", model, y, batches)]


def system_rows(name, system, y, eps, batches, orders=(1, 2)) -> list:
    rows = [measure(name, "nonholonomic", system.nonholonomic(), y, batches),
            measure(name, f"friction {eps:g}", system.friction(eps), y, batches)]
    for K in orders:
        model = system.reduced(eps, order=K)
        label = f"reduced {eps:g}, order {K}" + (", compiled slip" if K >= 2 and model.compiled_slip is not None
                                                 else ", Taylor mode" if K >= 2 else "")
        rows.append(measure(name, label, model, y, batches))
    return rows


def markdown(rows, batches) -> str:
    head = " | ".join(f"build {lv} wall / CPU [s] | RHS {lv} [us]" for lv in LEVELS)
    lines = ["## Compiled evaluation: set-up against gain, -O1 and -O2", "",
             "`model.compile()` of each model into an empty cache (its default tapes, `core.rhs_tapes`; "
             "build: wall time and the compiler's CPU time), then the CPU time of one right-hand side, "
             f"calls looped in C++ (`_core.diagnostics.seconds_per_rhs`), median of {batches} interleaved batches; "
             "break-even = build CPU time / RHS time saved, in right-hand sides. "
             "One run on a loaded 2-core machine.", "",
             f"| system | model | tapes (instructions) | RHS interpreted [us] | {head} | break-even at -O1 [RHS] |",
             "|---|---|---|---:|" + "---:|---:|" * len(LEVELS) + "---:|"]
    for r in rows:
        cells = []
        for lv in LEVELS:
            wall, cpu = r["builds"][lv]
            cells.append(f"{wall:.2f} / {cpu:.2f} | {r['rhs'][lv] * 1e6:.2f}")
        saved = r["rhs"][None] - r["rhs"]["-O1"]
        even = f"{r['builds']['-O1'][1] / saved:.1e}" if saved > 0 else "never"
        lines.append(f"| {r['system']} | {r['model']} | {r['tapes']} ({r['size']}) | {r['rhs'][None] * 1e6:.2f} | "
                     + " | ".join(cells) + f" | {even} |")
    jac = [r for r in rows if r["jac"]]
    if jac:
        lines += ["", "Jacobian (implicit differentiation, its tape compiled) [us]: "
                  + "; ".join(f"{r['system']} {r['model']}: interpreted {r['jac'][None] * 1e6:.1f}, "
                              + ", ".join(f"{lv} {r['jac'][lv] * 1e6:.1f}" for lv in LEVELS) for r in jac)]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 batches instead of 9")
    add_output_options(parser)
    parser.add_argument("--only", default="sleigh,chain8,chain16,bicycle", help="comma-separated workloads")
    args = parser.parse_args(argv)
    batches = 3 if args.quick else 9
    only = args.only.split(",")
    rows = []
    if "sleigh" in only:
        rows += system_rows(*sleigh_cases(), batches)
    for N in (8, 16):
        if f"chain{N}" in only:
            rows += system_rows(*chain_cases(N), batches, orders=(1, 2) if N <= 8 else (1,))
    if "bicycle" in only:
        rows += bicycle_case(batches)
    emit(markdown(rows, batches), output_of(args, argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
