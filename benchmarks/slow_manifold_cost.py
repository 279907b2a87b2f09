"""Benchmark: the cost of the slow-manifold coefficients h^(1..K) against the order K.

For the Chaplygin sleigh (n = 3), the vertical rolling disk (n = 4) and the knife-edge chain with
N = 8 links (n = 10), at K = 1, 2, 4, 8, 16: the time to build the compiled tape of h^(1..K)
(trace + compile, once per system and order), its size, the time of one evaluation of h^(1..K)
at a point from the compiled tape and by Taylor-mode arithmetic (the expansion redone at every
evaluation), and the break-even number of evaluations after which the compiled tape has paid
for its build. Agreement of the two paths is checked before timing. Evaluation times are means
over repeated calls measured in C++ (no Python overhead); one run.

Usage: python benchmarks/slow_manifold_cost.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

ORDERS = (1, 2, 4, 8, 16)


def cases():
    return [
        ("sleigh", nh.systems.chaplygin_sleigh(), [0.1, 0.2, 0.3], [-1.5, 0.0, 1.0]),
        ("disk", nh.systems.vertical_rolling_disk(), [0.3, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0]),
        ("chain N=8", nh.systems.knife_edge_chain(8), [0.0, 0.0, *np.linspace(0.1, 0.4, 8)], [1.0] * 10),
    ]


def evaluations(seconds: float) -> int:
    """Calls that take about `seconds` at least once."""
    return int(max(1, min(20000, 0.05 / max(seconds, 1e-9))))


def run(max_build_seconds: float = 20.0) -> list:
    rows = []
    for name, system, q, v in cases():
        q = np.asarray(q, float)
        u = system.project(q, np.asarray(v, float))
        p = system.param_vector()
        too_big = False
        for K in ORDERS:
            taylor = system.slip(q, u, order=K)
            t1 = nh._core.diagnostics.seconds_per_slip(system.core, K, 0.0, q, u, p, 1)
            taylor_s = nh._core.diagnostics.seconds_per_slip(system.core, K, 0.0, q, u, p, evaluations(t1))
            row = dict(system=name, n=system.n, K=K, taylor=taylor_s)
            if too_big:  # the previous order's build exceeded max_build_seconds: not traced
                rows.append(row)
                continue
            compiled = nh._core.CompiledSlip(system.core, K, 0.0, q + 0.05, system.project(q + 0.05, v), p, 10**9)
            H = compiled.evaluate(0.0, q, u, p)
            scale = np.abs(taylor).max() + 1e-300
            row["agree"] = float(np.abs(H - taylor).max() / scale)
            row.update(build=compiled.build_seconds, nodes=compiled.graph_nodes,
                       instructions=compiled.tape_instructions)
            c1 = nh._core.diagnostics.seconds_per_slip(system.core, K, 0.0, q, u, p, 1, compiled)
            row["compiled"] = nh._core.diagnostics.seconds_per_slip(system.core, K, 0.0, q, u, p, evaluations(c1),
                                                                    compiled)
            gain = row["taylor"] - row["compiled"]
            row["break_even"] = row["build"] / gain if gain > 0 else float("inf")
            rows.append(row)
            too_big = compiled.build_seconds > max_build_seconds
    return rows


def markdown(rows: list) -> str:
    lines = ["## Cost of the slow-manifold coefficients against the order", "",
             "h^(1..K) at one point: compiled tape (built once per system and order) against Taylor mode "
             "(the expansion redone at each evaluation). Break-even: evaluations after which the build has paid "
             "(a reduced-model run at rtol 1e-8 makes a few hundred to a few thousand). One run on a loaded "
             "2-core machine; ratios are meaningful, absolute times are not.", "",
             "| system | n | K | build [s] | graph nodes | tape instr. | compiled [us] | Taylor [us] | speed-up "
             "| break-even | rel. diff. |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "compiled" not in r:
            lines.append(f"| {r['system']} | {r['n']} | {r['K']} | - | - | - | - | {r['taylor'] * 1e6:.1f} "
                         "| - | - | - |")
            continue
        lines.append(f"| {r['system']} | {r['n']} | {r['K']} | {r['build']:.3g} | {r['nodes']} | {r['instructions']} "
                     f"| {r['compiled'] * 1e6:.2f} | {r['taylor'] * 1e6:.1f} | {r['taylor'] / r['compiled']:.0f}x "
                     f"| {r['break_even']:.0f} | {r['agree']:.1e} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    repeats, output = repeats_and_output(__doc__, 1, argv)
    emit(markdown(run(max_build_seconds=2.0 if repeats == 2 else 20.0)), output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
