"""Benchmark: the optimal control problems of benchmarks/ocp_mu_strategy.py (29, the parallel park
included) solved with the defaults of this checkout, against the monotone column of a stored run of
that script (a baseline, by default benchmarks/results/ocp_mu_strategy.json): did a change of the
solver's defaults move any problem to a worse local optimum, and what did it do to IPOPT's
iterations (coarse meshes included)? Objectives and iteration counts are deterministic; the CPU
time per problem is shown for orientation only (one run, a loaded machine).

Usage: python benchmarks/ocp_against_baseline.py [--baseline JSON] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cli import add_output_options, emit, output_of  # noqa: E402
from ocp_mu_strategy import problems  # noqa: E402

WORSE = 1e-3  # relative increase of the objective that counts as a worse optimum


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=str(HERE / "results" / "ocp_mu_strategy.json"))
    add_output_options(parser)
    args = parser.parse_args(argv)
    rows = json.loads(Path(args.baseline).read_text())["blocks"][0]["rows"]
    baseline = {r[0]: (float(r[2].split()[0]), int(r[3])) for r in rows}
    lines = ["| problem | objective | baseline | relative | iterations | baseline | CPU (s) |",
             "|:---|---:|---:|---:|---:|---:|---:|"]
    totals, worse, lower = [0, 0], [], []
    for label, _, problem, kw in problems(False):
        cpu = time.process_time()
        sol = problem.solve(**kw)
        cpu = time.process_time() - cpu
        its = sol.stats["iterations"] + sol.stats.get("coarse_iterations", 0)
        if label not in baseline:
            lines.append(f"| {label} | {sol.objective:.6g} | - | - | {its} | - | {cpu:.2f} |")
            continue
        ref, ref_its = baseline[label]
        rel = (sol.objective - ref) / abs(ref)
        totals[0] += its
        totals[1] += ref_its
        (worse if rel > WORSE else lower if rel < -WORSE else []).append(label)
        lines.append(f"| {label} | {sol.objective:.6g}{'' if sol.success else ' (failed)'} | {ref:.6g} | {rel:+.2e} | "
                     f"{its} | {ref_its} | {cpu:.2f} |")
    summary = (f"- worse than the baseline by more than {WORSE:.1%}: {len(worse)} ({', '.join(worse) or 'none'}); "
               f"lower by more than {WORSE:.1%}: {len(lower)} ({', '.join(lower) or 'none'}).\n"
               f"- IPOPT iterations in all: {totals[0]} (baseline {totals[1]}).")
    emit("\n".join(lines) + "\n\n" + summary, output_of(args, argv))


if __name__ == "__main__":
    main()
