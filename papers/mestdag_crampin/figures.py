"""The figures of ``mestdag_crampin``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import figure, save
from .experiments import (
    CIRCLE_T, ITEM14, OFF_C, VAK_T, criterion_cases, fernandez_bloch_flows, frame_runs, vakonomic_motions)


# ------------------------------------------------------------------ figures
ZERO_AT = 1e-18   # where exact zeros are drawn on the log axes (log scales cannot show 0)


def _log_visible(values) -> np.ndarray:
    """Values for a log axis: unchanged, except exact zeros, which are drawn at ZERO_AT."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, ZERO_AT)


@figure("mestdag_crampin_vakonomic")
def fig_vakonomic(path: Path) -> dict:
    """Nonholonomic and vakonomic disk: with mu(0) on the section mu = M (x', y') the vakonomic
    motion is the nonholonomic one (the Theorem); off the section it is another motion."""
    import matplotlib.pyplot as plt

    d = vakonomic_motions()
    fig, axes = plt.subplots(1, 3, figsize=(16, 6.6))
    nh_line = d["nh_line"]
    ax = axes[0]
    ax.plot(nh_line["x"], nh_line["y"], color="tab:blue", lw=5, alpha=0.35, label="nonholonomic (Hamel)")
    on = d["line_on_section"]
    for (mu0, sol), color in zip(d["line"].items(), ("black", "tab:red", "tab:orange", "tab:green", "tab:purple")):
        label = f"vakonomic, mu(0) = ({mu0[0]:g}, {mu0[1]:g})" + (
            " = M (x', y'): on the section" if mu0 == on else
            ": c = M (x', y') - mu parallel to the motion" if mu0[1] == 0 else "")
        ax.plot(sol["x"], sol["y"], color=color, ls="-", lw=1.2, label=label)
    r14 = d["item14"]
    ax.plot(ITEM14["x"], ITEM14["y"], "kx", ms=9, mew=2, label="note item 14 at t = 2 (RK4)")
    ax.plot(r14["ours"]["x"], r14["ours"]["y"], "o", mfc="none", mec="tab:red", ms=10, label="nonholo at t = 2")
    ax.set(xlabel="x", ylabel="y", title=f"rolling straight (heading rate 0, rolling rate 1), t in [0, {VAK_T:g}]",
           aspect="equal")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    ax.grid(alpha=0.3)

    t, nh_circle = d["t"], d["nh_circle"]
    circle_colors = ("black", "tab:red", "tab:orange", "tab:green")
    ax = axes[1]
    ax.plot(nh_circle["x"], nh_circle["y"], color="tab:blue", lw=5, alpha=0.35, label="nonholonomic: the circle")
    for (label, sol), color in zip(d["circle"].items(), circle_colors):
        ax.plot(sol["x"], sol["y"], color=color, lw=1.2, label=f"vakonomic, mu(0) {label}")
    ax.set(xlabel="x", ylabel="y", title=f"the circle of note item 2, t in [0, {CIRCLE_T:g}]", aspect="equal")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    ax.grid(alpha=0.3)

    ax = axes[2]
    exact = d["exact"]
    ax.semilogy(t[1:], np.hypot(*(nh_circle.q[1:3] - exact[1:3]))[1:], color="tab:blue",
                label="nonholonomic (Hamel) vs closed form")
    for (label, sol), color in zip(d["circle"].items(), circle_colors):
        ax.semilogy(t[1:], np.hypot(*(sol.q[1:3] - exact[1:3]))[1:], color=color, label=f"vakonomic, {label}")
    ax.set(xlabel="t", ylabel="|(x, y)(t) - (x, y)_circle(t)| (contact point)",
           title="distance of the contact point from its place on the circle of item 2")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    ax.grid(True, which="both", alpha=0.3)
    fig.suptitle("Vertical disk M = 2, R = 0.5 (rolling inertia 0.25, heading inertia 0.125): vakonomic motions "
                 "(L - mu_a v^a) against the nonholonomic one", fontsize=10)
    save(fig, path)
    return d["numbers"]


@figure("mestdag_crampin_fernandez_bloch")
def fig_fernandez_bloch(path: Path) -> dict:
    """The Fernandez-Bloch Lagrangian's Euler-Lagrange flow: from data on C it stays on C and is
    the nonholonomic circle; off C the constraint velocities stay constant (first integrals), and
    its angles follow the vakonomic disk with mu(0) = M (x'(0), y'(0))."""
    import matplotlib.pyplot as plt

    d = fernandez_bloch_flows()
    t, on, off, nh_circle, vak = d["t"], d["on"], d["off"], d["nh_circle"], d["vakonomic"]
    va_on, va_off = d["va_on"], d["va_off"]

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    ax = axes[0]
    ax.plot(nh_circle["x"], nh_circle["y"], color="tab:blue", lw=5, alpha=0.35, label="nonholonomic (Hamel)")
    ax.plot(on["x"], on["y"], color="black", lw=1.2, label="Ltilde's flow from data on C")
    ax.plot(off["x"], off["y"], color="tab:red", lw=1.2, label=f"Ltilde's flow from (v^x, v^y)(0) = {OFF_C}")
    ax.set(xlabel="x", ylabel="y", aspect="equal", title=f"contact point, t in [0, {CIRCLE_T:g}]")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    ax = axes[1]
    ax.semilogy(t, _log_visible(np.abs(va_on).max(axis=0)), color="black", label="on C: max |v^x|, |v^y|")
    ax.semilogy(t, _log_visible(np.abs(va_off - va_off[:, :1]).max(axis=0)), color="tab:red",
                label="off C: max |v^a(t) - v^a(0)|")
    ax.semilogy(t, _log_visible(np.abs(on.q - nh_circle.q).max(axis=0)), color="tab:gray", ls="--",
                label="on C: max |q - q_nonholonomic|")
    ax.set(xlabel="t", ylabel="max abs value (exact zeros drawn at 1e-18)", title="C is invariant: dLtilde/dx' + M v^x "
                                                                                  "= 0 identically")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    ax = axes[2]
    ax.plot(t, off["theta"], color="tab:red", lw=3, alpha=0.4, label="heading, Ltilde off C")
    ax.plot(t, vak["theta"], color="black", lw=1, ls="--", label="heading, vakonomic, mu(0) = M (x', y')(0)")
    ax.plot(t, off["phi"], color="tab:orange", lw=3, alpha=0.4, label="rolling angle, Ltilde off C")
    ax.plot(t, vak["phi"], color="black", lw=1, ls=":", label="rolling angle, vakonomic")
    ax.plot(t, nh_circle["theta"], color="tab:blue", lw=1, label="heading, nonholonomic")
    angle_diff = d["numbers"]["off_C_angles_vs_vakonomic"]
    ax.set(xlabel="t", ylabel="angle",
           title=f"off C: the angles are the vakonomic ones (max difference {angle_diff:.1e})")
    ax.title.set_fontsize(9)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.suptitle("Fernandez-Bloch: Ltilde = -M (x'^2 + y'^2)/2 + I th'^2/2 + J ph'^2/2 "
                 "+ M R th' (cos ph x' + sin ph y') (paper's names), a regular indefinite Lagrangian", fontsize=10)
    save(fig, path)
    return d["numbers"]


@figure("mestdag_crampin_criterion")
def fig_criterion(path: Path) -> dict:
    """The residuals of Proposition 2 at random points on C: zero for the disk with phi = M (x', y'),
    nonzero for the nonholonomic particle (no Lagrangian L - Phi v^3 exists)."""
    import matplotlib.pyplot as plt

    d = criterion_cases()
    cases = d["cases"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw=dict(width_ratios=(1.3, 1)))
    for i, (name, res) in enumerate(cases.items()):
        for j, (r, marker, color) in enumerate(((res.residual_1, "o", "tab:blue"), (res.residual_2, "s", "tab:red"))):
            vals = _log_visible(np.abs(r).max(axis=1))
            xpos = 3 * i + j + np.linspace(-0.3, 0.3, len(vals))
            label = ("condition 1: phi_a R^a_(alpha beta) v^beta" if j == 0 else
                     "condition 2: Gamma(phi_a) + phi_b R^b_(a alpha) v^alpha - lambda_a")
            ax1.semilogy(xpos, vals, marker, color=color, ms=5, label=label if i == 0 else None)
    ax1.axhline(1e-9, color="0.5", ls="--", lw=0.8, label="tolerance 1e-9")
    ax1.set_xticks([3 * i + 0.5 for i in range(len(cases))],
                   [f"{name}\n({'holds' if r.holds else 'fails'})" for name, r in cases.items()], fontsize=8)
    ax1.set(ylabel="max |residual| at 12 random points on C\n(exact zeros drawn at 1e-18)",
            title="Proposition 2 (criterion) at random points on C")
    ax1.title.set_fontsize(9)
    ax1.legend(fontsize=7, loc="center")
    ax1.grid(True, axis="y", which="both", alpha=0.3)
    scales, off, off_slope = d["scales"], d["off"], d["off_slope"]
    ax2.loglog(scales, off, "o-", color="tab:blue", label=f"disk: slope {off_slope:.3f}")
    ax2.set(xlabel="distance from C: |(v^x, v^y)|", ylabel="max |phi_a R^a_(alpha beta) v^beta|",
            title="disk: condition 1 with phi = M (x', y') off C\n"
                  "= M R (x' sin - y' cos)(-rolling', heading'): zero on C only")
    ax2.title.set_fontsize(9)
    ax2.legend(fontsize=8)
    ax2.grid(True, which="both", alpha=0.3)
    save(fig, path)
    return d["numbers"]


@figure("mestdag_crampin_frames")
def fig_frames(path: Path) -> dict:
    """Frame independence: Hamel's equations in two different frames adapted to D and the
    coordinate Lagrange-d'Alembert equations give the same q(t)."""
    import matplotlib.pyplot as plt

    d = frame_runs()
    t, a, b, c, exact = d["t"], d["a"], d["b"], d["c"], d["exact"]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for sol, label, color in ((b, "mixed frame vs paper's frame", "tab:red"),
                              (c, "coordinates (Lagrange-d'Alembert) vs paper's frame", "tab:green")):
        ax.semilogy(t, _log_visible(np.abs(sol.q - a.q).max(axis=0)), color=color, label=label)
    ax.semilogy(t, _log_visible(np.abs(a.q - exact).max(axis=0)), color="black", ls="--",
                label="paper's frame vs closed form")
    ax.axhline(1e-10, color="0.5", lw=0.8, ls=":", label="1e-10: the agreement the formulations must reach")
    ax.set(xlabel="t", ylabel="max |q difference| (exact zeros drawn at 1e-18)",
           title="frame independence: the disk rolling on a circle, rtol 1e-13")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    save(fig, path)
    return d["numbers"]
