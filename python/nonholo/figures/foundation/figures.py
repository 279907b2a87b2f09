"""The figures of ``foundation``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import nonholo as nh

from ..registry import figure, save
from .experiments import EPS, OMEGA0, SLEIGH, U0, Y0, T


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
    ax2.set(xlabel="u (forward velocity)", ylabel="omega", title="(u, omega): nonholonomic orbit a half-ellipse; friction orbits are not")
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
