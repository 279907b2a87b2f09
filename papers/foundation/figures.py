"""The figures of ``foundation``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import figure, save
from .experiments import EPS, OMEGA0, U0, T, sleigh_runs


@figure("sleigh_trajectories")
def fig_sleigh_trajectories(path: Path) -> dict:
    """The sleigh's contact point and (u, omega) orbit: nonholonomic and friction models."""
    import matplotlib.pyplot as plt

    data = sleigh_runs()
    ref = data["nonholonomic"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.6))
    colors = plt.cm.Reds(np.linspace(0.45, 0.95, len(EPS)))
    for (eps, run), c in zip(data["friction"].items(), colors):
        ax1.plot(run["x"], run["y"], color=c, lw=1.2, label=f"friction, eps = {eps:g}")
        ax2.plot(run["u"], run["omega"], color=c, lw=1.2)
    ax1.plot(ref["x"], ref["y"], color="tab:blue", lw=1.6, label="nonholonomic")
    ax2.plot(ref["u"], ref["omega"], color="tab:blue", lw=1.6)
    ax1.plot(0, 0, "ko", ms=4)
    ax1.set(xlabel="x", ylabel="y", title="contact point (x, y)", aspect="equal")
    ax1.legend(fontsize=8)
    ax2.set(xlabel="u (forward velocity)", ylabel="omega", title="(u, omega): nonholonomic orbit a half-ellipse;\n"
                                                                 "friction orbits are not")
    fig.suptitle(f"Chaplygin sleigh m = I = 1, a = 0.2; u0 = {U0}, omega0 = {OMEGA0}, no slip at t = 0; "
                 f"t in [0, {T:g}]", fontsize=10)
    save(fig, path)
    return {key: value for key, value in data.items() if key not in ("nonholonomic", "friction")}
