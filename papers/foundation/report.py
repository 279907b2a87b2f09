"""The ``figures/REPORT.md`` section of ``foundation``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

from ..registry import report_section, run_benchmark


@report_section("Foundation: the Chaplygin sleigh")
def report_sleigh(results: dict, output: Path) -> str:
    r = results.get("sleigh_trajectories")
    if not r:
        return "_not generated in this run_\n"
    lines = [
        "![sleigh](sleigh_trajectories.png)\n",
        "Nonholonomic sleigh (m = I = 1, a = 0.2) from u0 = -1.5, omega0 = 1: the orbit in (u, omega) is the half "
        "ellipse m u^2 + (I + m a^2) omega^2 = 2E, ending at u = U = sqrt(u0^2 + (I + m a^2) omega0^2/m) "
        f"= {r['U']:.6f}; at t = 20 the simulated u is {r['nh_u_end']:.6f}. Energy drift over the run: "
        f"{r['nh_energy_drift']:.1e}.\n",
        "With sideways friction -(1/eps) A^T mu A v the sleigh loses energy and ends slower; the distance to the "
        "nonholonomic contact point at t = 20 shrinks linearly with eps (non-uniformly in time, Eldering 2016 Fig. "
        "5):\n",
        "| eps | u(20) | distance to NH at t = 20 | CVODE steps |",
        "|---|---|---|---|",
    ]
    for eps in r["friction_u_end"]:
        lines.append(f"| {eps:g} | {r['friction_u_end'][eps]:.6f} | {r['friction_distance'][eps]:.3e} | "
                     f"{r['friction_steps'][eps]} |")
    return "\n".join(lines) + "\n"


@report_section("Benchmark: friction sleigh against hand-written CVODE and SciPy")
def report_benchmark(results: dict, output: Path) -> str:
    if "sleigh_trajectories" not in results:  # the benchmark runs with its figure (not in --only runs of others)
        return "_not generated in this run_\n"
    table = run_benchmark("friction_sleigh.py", output / "benchmark_friction_sleigh.md")
    first, _, rest = table.partition("\n")
    # the script's own title repeats this section's heading: keep one heading, its title as a sentence
    return (f"{first.lstrip('#').strip()}.\n{rest}" if first.startswith("#") else table) + "\n"
