"""The figures of ``rolling_bodies``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import figure, save
from .experiments import (
    BICYCLE_KICK,
    BICYCLE_STOPS,
    RATTLEBACK_EPS,
    TIPPE,
    TIPPE_LATE,
    ball_integral_deviations,
    bicycle_eigenvalues,
    bicycle_runs,
    disc_leans,
    rattleback_sliding_runs,
    tippe_top_runs,
)


def _plt():
    import matplotlib.pyplot as plt

    return plt


@figure("rolling_ball_integrals")
def ball_integrals(path: Path) -> dict:
    """Relative deviation of the energy and of the contact angular momentum (a vector in space)
    of the Chaplygin ball along a run from random initial data (rtol 1e-12)."""
    d = ball_integral_deviations()
    t, dE, dK = d["t"], d["energy"], d["momentum"]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.semilogy(t[1:], np.maximum(dE[1:], 1e-17), label="energy")
    ax.semilogy(t[1:], np.maximum(dK[1:], 1e-17), label="angular momentum about the contact point")
    ax.axhline(1e-10, color="k", lw=0.8, ls=":")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("relative deviation")
    ax.set_ylim(top=1e-6)  # room above the curves for the legend
    ax.set_title("Chaplygin ball: first integrals of the rolling model")
    ax.legend(loc="upper left", fontsize=8)
    save(fig, path)
    return {"energy": float(dE.max()), "momentum": float(dK.max())}


@figure("rolling_rattleback")
def rattleback_reversal(path: Path) -> dict:
    """Left: the spin about the vertical of the Kane-Levinson rattleback rolling without slip
    and with viscous sliding f = -s/eps. Right: the reversal time (zero of the spin averaged
    over 0.3 s) against eps, converging to the rolling one at O(eps)."""
    d = rattleback_sliding_runs()
    t, T, T0 = d["t"], d["T"], d["T_rolling"]
    plt = _plt()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.6, 1]})
    ax.plot(t, d["rolling"], "k", lw=0.8, label="rolling without slip")
    for eps, color in zip((1e-2, 1e-3, 1e-5), ("tab:blue", "tab:orange", "tab:green")):
        ax.plot(t, d["sliding"][eps], lw=0.7, color=color, label=f"sliding, eps = {eps:g}")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("spin about the vertical (rad/s)")
    ax.set_title("Rattleback (Kane and Levinson 1982): spin reversal")
    ax.legend(fontsize=8)
    reverses = [e for e in RATTLEBACK_EPS if np.isfinite(T[e])]
    bx.loglog(reverses, [abs(T[e] - T0) for e in reverses], "o-", label="|sliding - rolling| reversal time")
    e = np.array([min(reverses), max(reverses)])
    bx.loglog(e, abs(T[min(reverses)] - T0) * e / min(reverses), "k:", label="slope 1")
    bx.set_xlabel("eps")
    bx.set_ylabel("difference (s)")
    bx.set_title(f"Reversal time against eps (fitted order {d['order']:.2f})")
    bx.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path)
    return {"rolling": T0, **{f"eps = {eps:g}": T[eps] for eps in RATTLEBACK_EPS}, "order": d["order"]}


@figure("rolling_tippe_top")
def tippe_top_inversion(path: Path) -> dict:
    """Height of the symmetry axis e3_z for I1/I3 below, inside and above 1 -+ alpha with
    viscous sliding, and inside the window without slip; Jellett's integral's drift."""
    d = tippe_top_runs()
    t = d["t"]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    out = {}
    for ratio, run in d["sliding"].items():
        holds = "holds" if run["inverts"] else "fails"
        ax.plot(t, run["e3z"], label=f"sliding, I1/I3 = {ratio:g} (1 - alpha < I1/I3 < 1 + alpha {holds})")
        late = run["e3z"][t >= TIPPE_LATE]
        out[ratio] = {"final e3z": float(run["e3z"][-1]), "late mean e3z": float(late.mean()),
                      "late spread e3z": float(np.ptp(late) / 2), "jellett drift": run["jellett drift"]}
    ax.plot(t, d["no slip"], "k--", label="rolling without slip, I1/I3 = 0.95")
    out["no slip"] = float(d["no slip"].min())
    ax.set_xlabel("t (s)")
    ax.set_ylabel("vertical component of the symmetry axis")
    ax.set_title(f"Tippe top (alpha = {TIPPE['alpha']}, I3 = 2/5 m R^2, tilt 0.1 rad, spin 150 rad/s): inversion\n"
                 "needs sliding friction; above the window (I1/I3 = 1.4) it settles at an intermediate tilt",
                 fontsize=9)
    ax.legend(fontsize=7, loc="center right")
    ax.set_ylim(-1.1, 1.25)
    save(fig, path)
    return out


@figure("rolling_disc_stability")
def disc_stability(path: Path) -> dict:
    """Lean of the rolling disc started upright with a small lean, above and below the critical
    spin sqrt(m g r A / (C (C + m r^2))); the lean frequency against its closed form."""
    d = disc_leans()
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    out = {"critical spin": d["critical spin"]}
    for factor, lean in d["lean"].items():
        ax.semilogy(d["t"], np.maximum(np.abs(lean), 1e-12), label=f"spin = {factor:g} x critical")
        out[factor] = float(np.abs(lean).max())
    ax.set_xlabel("t (s)")
    ax.set_ylabel("|lean| (rad)")
    ax.set_title("Rolling disc: upright rolling is stable above the critical spin")
    ax.legend()
    save(fig, path)
    return out


@figure("rolling_bicycle_eigenvalues")
def fig_bicycle_eigenvalues(path: Path) -> dict:
    """Real parts (solid) and imaginary parts (dashed) of the benchmark bicycle's eigenvalues
    against the forward speed, the self-stable range between the weave and capsize speeds shaded
    (the look of Meijaard et al. 2007, Fig. 3)."""
    d = bicycle_eigenvalues()
    v, lam = d["speed"], d["eigenvalues"]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for j in range(lam.shape[1]):
        im = np.abs(lam[:, j].imag)
        ax.plot(v, lam[:, j].real, "k-", lw=1.2, label="real part" if j == 0 else None)
        ax.plot(v, np.where(im > 1e-9, im, np.nan), "k--", lw=0.9, label="imaginary part" if j == 0 else None)
    hopf = [c[0] for c in d["critical"] if c[1] == "hopf"]
    divergence = [c[0] for c in d["critical"] if c[1] == "divergence"]
    out = {"weave speed": hopf[0], "capsize speed": divergence[0]}
    ax.axvspan(out["weave speed"], out["capsize speed"], color="0.88", zorder=0, label="self-stable")
    for name, x in out.items():
        ax.axvline(x, color="0.4", lw=0.8, ls=":")
        ax.text(x, 9.6, f" {name}\n {x:.4f} m/s", fontsize=7, va="top")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlim(v[0], v[-1])
    ax.set_ylim(-10, 10)
    ax.set_xlabel("forward speed v (m/s)")
    ax.set_ylabel("eigenvalue (1/s)")
    ax.set_title("Benchmark bicycle: eigenvalues of upright straight running", fontsize=11)
    ax.legend(fontsize=8, loc="lower left")
    save(fig, path)
    return out


@figure("rolling_bicycle_runs")
def fig_bicycle_runs(path: Path) -> dict:
    """Roll and steer angles of the nonlinear bicycle after a roll-rate kick, inside (4.6 m/s)
    and below (2 m/s) the self-stable range."""
    runs = bicycle_runs()
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    out = {}
    for (v, run), color in zip(runs.items(), ("C0", "C3")):
        ax.plot(run["t"], run["roll"], color=color, label=f"roll, v = {v:g} m/s")
        ax.plot(run["t"], run["steer"], color=color, ls="--", lw=0.9, label=f"steer, v = {v:g} m/s")
        stop = run["stop"]
        if stop:
            ax.plot([stop["t"]] * 2, [stop["roll"], stop["steer"]], "o", color=color, ms=4)
        out[v] = {"end": float(run["t"][-1]), "final |roll|": float(abs(run["roll"][-1])), "stop": stop}
    ax.axhline(0, color="k", lw=0.6)
    for limit, ls in zip(BICYCLE_STOPS.values(), (":", "-.")):
        for sign in (-1, 1):
            ax.axhline(sign * limit, color="0.6", lw=0.7, ls=ls)
    ax.set_ylim(-1.75, 1.75)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("angle (rad)")
    ax.set_title(f"Benchmark bicycle after a roll-rate kick of {BICYCLE_KICK} rad/s; a run stops (dots) at\n"
                 "|roll| = 1 rad (dotted) or |steer| = pi/2 (dash-dotted)", fontsize=9.5)
    ax.legend(fontsize=8, loc="upper right")
    save(fig, path)
    return out
