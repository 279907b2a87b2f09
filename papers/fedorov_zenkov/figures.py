"""The figures of ``fedorov_zenkov``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..registry import figure, save
from .experiments import (
    BLUE, FIG1_ENERGIES, FIG1_T, FIG2_SEEDS, FIG2_STEPS, FIG3_T, GREEN, GREY, LIMIT_STEPS, LONG_H, LONG_T, OMEGA0, RED,
    SLEIGH, V0, WP_T, contact_points, discrete_map, discrete_orbits, heteroclinic_limits, linearization_table,
    long_runs, momentum_orbits, theorem5_polygon, work_precision)


# ------------------------------------------------------------------ Fig. 1: continuous momentum dynamics
def _arrow(ax, pts, i, color):
    ax.annotate("", xy=pts[i + 1], xytext=pts[i - 1],
                arrowprops=dict(arrowstyle="-|>", color=color, lw=1.2, mutation_scale=14))


@figure("fedorov_zenkov_fig1")
def fig1(path: Path) -> dict:
    """Fig. 1: the momentum dynamics (10) of the unbalanced sleigh: half-ellipses (level sets of
    the energy (11)) run from the unstable equilibria (0, -sqrt(2mE)) (empty dots) to the stable
    ones (0, +sqrt(2mE)) (filled dots); computed by CVODE on ``sleigh.nonholonomic()``."""
    import matplotlib.pyplot as plt

    data = momentum_orbits()
    m = SLEIGH["m"]
    fig, ax = plt.subplots(figsize=(9.6, 5.6))
    ax.axvline(0, color=GREY, lw=0.8, zorder=0)
    colors = plt.cm.viridis(np.linspace(0.1, 0.8, len(FIG1_ENERGIES)))
    for E, color in zip(FIG1_ENERGIES, colors):
        for sign in (1.0, -1.0):
            p = data["orbits"][(E, sign)]
            ax.plot(p[0], p[1], color=color, lw=1.5, label=f"E = {E:g}" if sign > 0 else None)
            pts = p.T
            top = math.sqrt(2 * m * E)
            for level in (-0.6, 0.0, 0.6):
                _arrow(ax, pts, int(np.argmin(np.abs(pts[:, 1] - level * top))), color)
        top = math.sqrt(2 * m * E)
        ax.plot(0, top, "o", color="k", ms=7, zorder=5)
        ax.plot(0, -top, "o", mfc="white", mec="k", ms=7, zorder=5)
    ax.plot([], [], "o", color="k", label="stable equilibria (p2 > 0)")
    ax.plot([], [], "o", mfc="white", mec="k", label="unstable equilibria (p2 < 0)")
    ax.set(xlabel="p1 = (J + m a^2) theta'", ylabel="p2 = m (x' cos theta + y' sin theta)", aspect="equal",
           title="Fig. 1: momentum dynamics of the unbalanced sleigh\n(eq. (10); CVODE on sleigh.nonholonomic())")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.text(0.5, 0.01, "J = m = a = 1 (I = 2); orbits from p2 = 0 at E = " + ", ".join(f"{E:g}" for E in FIG1_ENERGIES)
             + f", t in [-{FIG1_T:g}, {FIG1_T:g}]; line p1 = 0: equilibria", ha="center", fontsize=8)
    save(fig, path, rect=(0, 0.03, 1, 1), tight_bbox=True)
    return dict(orbits=data["rows"], I=data["I"])


# ------------------------------------------------------------------ Fig. 2: the discrete momentum map
@figure("fedorov_zenkov_fig2")
def fig2(path: Path) -> dict:
    """Fig. 2: the discrete momentum dynamics near the origin: orbits of P (22)-(23) forward and
    of P^-1 backward from seeds on p2 = 0, accumulating at (0, +beta) and (0, -beta); beside it,
    |p1^k| against k, the geometric approach at the rate lambda1(beta) of Theorem 6."""
    import matplotlib.pyplot as plt

    P = discrete_map()
    I, m = P.J, P.m
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13, 6.4), gridspec_kw=dict(width_ratios=[1.25, 1]))
    ax.axvline(0, color=GREY, lw=0.8, zorder=0)
    colors = plt.cm.viridis(np.linspace(0.1, 0.8, len(FIG2_SEEDS)))
    angle = np.linspace(-np.pi / 2, np.pi / 2, 200)
    limits = heteroclinic_limits()
    k = np.arange(-FIG2_STEPS, FIG2_STEPS + 1)
    data = discrete_orbits()
    for p, color, row in zip(FIG2_SEEDS, colors, limits):
        orbits = data["orbits"][p]
        for sign in (1.0, -1.0):
            orbit = orbits[sign]
            ax.plot(orbit[:, 0], orbit[:, 1], "o", color=color, ms=2.0)
            # the continuous level curve through the seed, p1^2/I + p2^2/m = p^2/I
            ax.plot(sign * p * np.cos(angle), math.sqrt(m / I) * p * np.sin(angle), "--", color="k", lw=0.6,
                    alpha=0.6, zorder=3)
            ax.plot(sign * p, 0.0, "x", color="k", ms=5, zorder=4)
        ax.plot(0, row["beta_forward"], "o", color="k", ms=6, zorder=5)
        ax.plot(0, row["beta_backward"], "o", mfc="white", mec="k", ms=6, zorder=5)
        ax2.semilogy(k, np.abs(orbits[1][:, 0]), "o", color=color, ms=2.0,
                     label=f"seed p1 = +-{p:g}: beta = {row['beta_forward']:.5f}")
        anchor = abs(orbits[1][-1, 0])   # the rate line through the last iterate
        ax2.semilogy(k, anchor * row["lambda1"] ** (np.abs(k) - FIG2_STEPS), "-", color=color, lw=0.7, alpha=0.8)
    ax.plot([], [], "--", color="k", lw=0.6, label="continuous level curve of E\nthrough the seed")
    ax.plot([], [], "o", color="k", label="(0, beta): forward limit (stable)")
    ax.plot([], [], "o", mfc="white", mec="k", label="(0, -beta): backward limit (unstable)")
    ax.set(xlabel="p1^k", ylabel="p2^k", aspect="equal",
           title="Fig. 2: discrete momentum dynamics near the origin\n(closed map P; P^-1 for k < 0)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    ax2.plot([], [], "-", color="k", lw=0.7, label="rate lambda1(beta) per step (Theorem 6)")
    ax2.set(xlabel="k (k < 0: iterates of P^-1)", ylabel="|p1^k|", title="geometric approach to (0, +-beta)")
    ax2.grid(True, which="both", alpha=0.3)
    ax2.legend(fontsize=7, loc="lower center")
    fig.text(0.5, 0.01, f"J = m = a = 1 (I = 2; Theorem 6 window |p2| < 2I/a = 4); seeds x on p2 = 0; "
             f"{FIG2_STEPS} steps of P and {FIG2_STEPS} of P^-1 from each; p^k ~ h p(t_k); beta from {LIMIT_STEPS} "
             "steps each way", ha="center", fontsize=8)
    save(fig, path, rect=(0, 0.06, 1, 1), tight_bbox=True)
    return dict(limits=limits, mirror_deviation=data["mirror_deviation"], min_p2_increment=data["min_p2_increment"],
                linearization=linearization_table())


# ------------------------------------------------------------------ Fig. 3: contact points
@figure("fedorov_zenkov_fig3")
def fig3(path: Path) -> dict:
    """Fig. 3: the discrete contact points (general integrator ``sleigh.discrete(h)``) on the
    continuous trajectory (CVODE): one cusp, then the approach to a straight line."""
    import matplotlib.pyplot as plt

    d = contact_points()
    h, T, N = d["h"], FIG3_T, d["N"]
    (xc, yc), (xd, yd) = d["continuous"], d["discrete"]
    k_cusp, cusp_c, line = d["k_cusp"], d["cusp_continuous"], d["asymptote"]

    fig, ax = plt.subplots(figsize=(10, 6.4))
    ax.plot(xc, yc, "-", color="k", lw=1.1, label="continuous (CVODE, rtol 1e-12)")
    ax.plot(xd, yd, "o", color=RED, ms=3.5, label=f"discrete contact points (sleigh.discrete({h:g}))")
    ax.plot(line[:, 0], line[:, 1], ":", color=BLUE, lw=1.2, label=f"asymptote, heading theta_inf = "
                                                                   f"{d['theta_inf']:.4f}")
    ax.plot(*cusp_c, "*", color=BLUE, ms=11, mec="k", mew=0.5, zorder=6, label=f"continuous cusp (t* = "
                                                                               f"{d['t_cusp']:.3f})")
    ax.plot(xd[k_cusp], yd[k_cusp], "s", mfc="none", mec=GREEN, ms=9, mew=1.5, zorder=6,
            label=f"discrete cusp node k = {k_cusp} (t = {k_cusp * h:.1f})")
    ax.plot(0, 0, "k+", ms=10)
    ax.annotate("start", (0, 0), xytext=(4, 6), textcoords="offset points", fontsize=8)
    ax.set(xlabel="x", ylabel="y", aspect="equal", xlim=(xd.min() - 1.0, 6.0), ylim=(yd.min() - 0.8, 3.2),
           title="Fig. 3: discrete and continuous trajectories of the contact point")
    ax.legend(fontsize=7.5, loc="upper left")
    inset = ax.inset_axes([0.6, 0.05, 0.38, 0.4])
    win = (cusp_c[0] - 0.7, cusp_c[0] + 0.7, cusp_c[1] - 0.45, cusp_c[1] + 0.45)
    inset.plot(xc, yc, "-", color="k", lw=1.0)
    inset.plot(xd, yd, "o", color=RED, ms=3.5)
    inset.plot(*cusp_c, "*", color=BLUE, ms=10, mec="k", mew=0.5)
    inset.plot(xd[k_cusp], yd[k_cusp], "s", mfc="none", mec=GREEN, ms=8, mew=1.3)
    inset.set(xlim=win[:2], ylim=win[2:], aspect="equal", title="the cusp", xticks=[], yticks=[])
    inset.title.set_fontsize(8)
    ax.indicate_inset_zoom(inset, edgecolor=GREY)
    fig.text(0.5, 0.01, f"J = m = a = 1; theta = x = y = 0, v0 = {V0:g} (backwards), omega0 = {OMEGA0:g}; "
             f"h = {h:g}, {N} steps, t in [0, {T:g}]; start from continuous data (p_0 = G v_0)", ha="center",
             fontsize=8)
    save(fig, path, rect=(0, 0.03, 1, 1), tight_bbox=True)

    return d["numbers"]


@figure("fedorov_zenkov_work_precision")
def fig_work_precision(path: Path) -> dict:
    """Error against work for the discrete integrator and CVODE (BDF with projection; Adams)."""
    import matplotlib.pyplot as plt

    wp = work_precision()
    fig, axes = plt.subplots(1, 2, figsize=(12.5, 5.2))
    styles = {"discrete": (RED, "o-"), "CVODE BDF": (BLUE, "s-"), "CVODE Adams": (GREEN, "^-")}
    labels = {"discrete": "discrete (midpoint DLA), h = 0.2 ... 0.003125",
              "CVODE BDF": "CVODE BDF + projection, rtol 1e-3 ... 1e-12",
              "CVODE Adams": "CVODE Adams (no projection), rtol 1e-3 ... 1e-12"}
    for method, (color, style) in styles.items():
        rows = [r for r in wp["rows"] if r["method"] == method]
        err = [r["error"] for r in rows]
        axes[0].loglog([r["steps"] for r in rows], err, style, color=color, ms=5, label=labels[method])
        axes[1].loglog([r["evaluations"] for r in rows], err, style, color=color, ms=5, label=labels[method])
        # settings labelled on the evaluations panel, where the curves are apart: Adams to the left,
        # BDF to the right, the discrete steps above
        offset, align = {"discrete": ((2, 5), "left"), "CVODE BDF": ((6, -2), "left"),
                         "CVODE Adams": ((-6, -2), "right")}[method]
        for r in rows[:: 3 if method != "discrete" else 1]:
            text = f"h = {r['setting']:g}" if method == "discrete" else f"rtol {r['setting']:.0e}"
            axes[1].annotate(text, (r["evaluations"], r["error"]), fontsize=6.5, color=color, xytext=offset,
                             textcoords="offset points", ha=align)
    axes[0].set(xlabel="steps", ylabel="max error of (x, y, theta) on [0, 12]",
                title="error against steps")
    axes[1].set(xlabel="RHS evaluations (CVODE) / Newton iterations (discrete: residual + AD Jacobian)",
                ylabel="max error of (x, y, theta) on [0, 12]", title="error against evaluations")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylim(top=1.0)
        ax.legend(fontsize=7.5, loc="upper right")
    axes[0].set_xlim(right=axes[0].get_xlim()[1] * 2.5)
    axes[1].set_xlim(left=axes[1].get_xlim()[0] / 1.6)
    fig.suptitle(f"Sleigh J = m = a = 1, v0 = {V0:g}, omega0 = {OMEGA0:g}, t in [0, {WP_T:g}]; reference: closed form "
                 f"(theta) and its quadrature (x, y); discrete error slope {wp['discrete_slope']:.2f} in h",
                 fontsize=9.5)
    save(fig, path, tight_bbox=True)
    return wp


@figure("fedorov_zenkov_long_time")
def fig_long_time(path: Path) -> dict:
    """Relative energy error over t in [0, 1000]: the symmetric discrete scheme against CVODE."""
    import matplotlib.pyplot as plt

    runs = long_runs()
    fig, axes = plt.subplots(1, 2, figsize=(12.5, 4.8), sharey=True)
    colors = {"discrete": RED, "CVODE BDF": BLUE, "CVODE Adams": GREEN}
    for ax, (name, rows) in zip(axes, runs.items()):
        for label, r in rows.items():
            family = next(k for k in colors if label.startswith(k))
            ls = "--" if "1e-08" in label else "-"
            # the envelope: max over windows of 5 time units (the discrete error oscillates every step)
            edges = np.arange(0.0, LONG_T + 5.0, 5.0)
            which = np.clip(np.digitize(r["t"], edges) - 1, 0, len(edges) - 2)
            envelope = np.full(len(edges) - 1, np.nan)
            np.fmax.at(envelope, which, r["energy_error"])
            ax.semilogy(edges[1:], np.maximum(envelope, 1e-17), ls, color=colors[family], lw=1.1, label=label)
        ax.set(xlabel="t", title=name + (f" (Fig. 3 data: v0 = {V0:g}, omega0 = {OMEGA0:g})" if name == "sleigh"
                                          else ": a = 0, V = m g x, g = 1; u0 = 1, omega = 1"))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7.5, loc="lower right")
    axes[0].set_ylabel("max |E - E(0)| / E(0) over windows of 5 time units")
    fig.suptitle(f"Long runs, t in [0, {LONG_T:g}]: discrete h = {LONG_H:g} against CVODE (atol = rtol/100)",
                 fontsize=10)
    save(fig, path, tight_bbox=True)
    return {name: {label: {k: v for k, v in r.items() if k not in ("t", "energy_error")} for label, r in rows.items()}
            for name, rows in runs.items()}


@figure("fedorov_zenkov_theorem5")
def fig_theorem5(path: Path) -> dict:
    """Theorem 5: the balanced discrete sleigh runs on a regular polygon."""
    import matplotlib.pyplot as plt

    r = theorem5_polygon()
    fig, ax = plt.subplots(figsize=(6.6, 7.4))
    s = np.linspace(0, 2 * np.pi, 400)
    cx, cy = r["centre"]
    ax.plot(cx + r["radius"] * np.cos(s), cy + r["radius"] * np.sin(s), color=GREY, lw=1.0,
            label=f"circumcircle, radius {r['radius']:.6f} = |u|/|sin D|")
    ccx, ccy = r["continuous_centre"]
    ax.plot(ccx + r["continuous_radius"] * np.cos(s), ccy + r["continuous_radius"] * np.sin(s), color=BLUE, lw=1.0,
            ls="--", label=f"continuous motion: circle of radius |v0/omega0| = {r['continuous_radius']:.4f}")
    ax.plot(r["x"], r["y"], "o-", color=RED, ms=4, lw=1.2,
            label=f"discrete contact points, h = {r['h']:g}, from the origin heading along +x, moving backwards")
    ax.set(xlabel="x", ylabel="y", aspect="equal")
    ax.set_title(f"Theorem 5, balanced sleigh (a = 0): a regular polygon, turn D = {r['turn']:.3f} per step;\n"
                 f"chord {r['chord']:.6f} = |u|/cos(D/2), not |u| = {r['u']:.6f} as the proof prints",
                 fontsize=9)
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    ax.grid(alpha=0.3)
    save(fig, path)
    return {k: v for k, v in r.items() if k not in ("x", "y")}
