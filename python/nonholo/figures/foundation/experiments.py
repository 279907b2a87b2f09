"""Foundation figures: the Chaplygin sleigh, nonholonomic and with friction, and the benchmark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import nonholo as nh

from .registry import figure, report_section, save

SLEIGH = dict(m=1.0, I=1.0, a=0.2)
U0, OMEGA0, T = -1.5, 1.0, 20.0
EPS = [1e-1, 1e-2, 1e-3]
Y0 = [0.0, 0.0, 0.0, U0, 0.0, OMEGA0]


def _body(sol):
    phi = sol["phi"]
    u = sol["x_dot"] * np.cos(phi) + sol["y_dot"] * np.sin(phi)
    return u, sol["phi_dot"]


@figure("sleigh_trajectories")
def fig_sleigh_trajectories(path: Path) -> dict:
    """The sleigh's contact point and (u, omega) orbit: nonholonomic and friction models."""
    import matplotlib.pyplot as plt

    sleigh = nh.systems.chaplygin_sleigh(**SLEIGH)
    t = np.linspace(0, T, 2001)
    ref = nh.simulate(sleigh.nonholonomic(), (0, T), Y0, t_eval=t, rtol=1e-10, atol=1e-12)
    runs = {eps: nh.simulate(sleigh.friction(eps), (0, T), Y0, t_eval=t, rtol=1e-10, atol=1e-12) for eps in EPS}

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    colors = plt.cm.Reds(np.linspace(0.45, 0.95, len(EPS)))
    for (eps, sol), c in zip(runs.items(), colors):
        ax1.plot(sol["x"], sol["y"], color=c, lw=1.2, label=f"friction, eps = {eps:g}")
        ax2.plot(*_body(sol), color=c, lw=1.2)
    ax1.plot(ref["x"], ref["y"], color="tab:blue", lw=1.6, label="nonholonomic")
    ax2.plot(*_body(ref), color="tab:blue", lw=1.6)
    ax1.plot(0, 0, "ko", ms=4)
    ax1.set(xlabel="x", ylabel="y", title="contact point (x, y)", aspect="equal")
    ax1.legend(fontsize=8)
    ax2.set(xlabel="u (forward velocity)", ylabel="omega", title="(u, omega): half-ellipse orbits")
    fig.suptitle(f"Chaplygin sleigh m = I = 1, a = 0.2; u0 = {U0}, omega0 = {OMEGA0}, no slip at t = 0; t in [0, {T:g}]",
                 fontsize=10)
    save(fig, path)

    J = SLEIGH["I"] + SLEIGH["m"] * SLEIGH["a"] ** 2
    u_end = {eps: float(_body(sol)[0][-1]) for eps, sol in runs.items()}
    return {
        "nh_final": ref.y[:3, -1].tolist(),
        "nh_energy_drift": float(np.ptp(ref.energy())),
        "U": float(np.sqrt(U0**2 + J * OMEGA0**2 / SLEIGH["m"])),
        "nh_u_end": float(_body(ref)[0][-1]),
        "friction_u_end": u_end,
        "friction_distance": {eps: float(np.hypot(*(sol.y[:2, -1] - ref.y[:2, -1]))) for eps, sol in runs.items()},
        "friction_steps": {eps: sol.stats["n_steps"] for eps, sol in runs.items()},
    }


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
        "nonholonomic contact point at t = 20 shrinks linearly with eps (non-uniformly in time, Eldering 2016 Fig. 5):\n",
        "| eps | u(20) | distance to NH at t = 20 | CVODE steps |",
        "|---|---|---|---|",
    ]
    for eps in r["friction_u_end"]:
        lines.append(f"| {eps:g} | {r['friction_u_end'][eps]:.6f} | {r['friction_distance'][eps]:.3e} | "
                     f"{r['friction_steps'][eps]} |")
    return "\n".join(lines) + "\n"


def _benchmark_script() -> Path | None:
    root = Path(__file__).resolve().parents[3]
    script = root / "benchmarks" / "friction_sleigh.py"
    return script if script.exists() else None


@report_section("Benchmark: friction sleigh against hand-written CVODE and SciPy")
def report_benchmark(results: dict, output: Path) -> str:
    script = _benchmark_script()
    if script is None:
        return "_benchmarks/ not found (installed without the repository)_\n"
    table = output / "benchmark_friction_sleigh.md"
    proc = subprocess.run([sys.executable, str(script), "--markdown", str(table)], capture_output=True, text=True)
    if proc.returncode != 0 or not table.exists():
        return f"_benchmark failed:_\n\n```\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}\n```\n"
    return table.read_text() + "\n"
