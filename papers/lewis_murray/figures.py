"""The figures of ``lewis_murray``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nonholo.systems import ball_on_turntable_exact as ball_exact

from ..registry import figure, save
from .experiments import (
    CASE3_MU, CHOICES, DELTA_ROW, FIT_MODES, IC, MODE_LABELS, MODES, OMEGA, PLATE, R_BALL, TABLE1_CASES, TABLE1_PRINTED,
    VAK_RADII, both_modes, case3_eigenvalues, circle_check, circle_oracle, delta_row_scan, experiment_fit, fit_summary,
    lemma31_scan, plate_exits, realizing_constraints, spiral_check, spiral_oracle, table1, table1_radius_equivalence,
    table1_span_run, vakonomic_family, vakonomic_reference, loop_times)


# ----------------------------------------------------------------------------------- drawing
def _plate(ax, lim=None):
    theta = np.linspace(0, 2 * np.pi, 400)
    ax.fill(PLATE * np.cos(theta), PLATE * np.sin(theta), color="0.95", zorder=0)
    ax.plot(PLATE * np.cos(theta), PLATE * np.sin(theta), color="0.4", lw=1.0, zorder=1)
    ax.plot(0, 0, "k+", ms=8)
    lim = lim or PLATE * 1.1
    ax.set(xlim=(-lim, lim), ylim=(-lim, lim), aspect="equal", xlabel="x (cm)", ylabel="y (cm)")


def _arrow(ax, x, y, i, color):
    i = int(min(max(i, 0), len(x) - 2))
    ax.annotate("", xy=(x[i + 1], y[i + 1]), xytext=(x[i], y[i]),
                arrowprops=dict(arrowstyle="-|>", color=color, lw=1.5, mutation_scale=14))


def _footer(fig, text, bottom=0.09):
    """The choices the paper does not state, under the axes (wrapped to the figure's width)."""
    import textwrap

    width = int(fig.get_figwidth() * 72 / (7 * 0.62))
    lines = [textwrap.fill(part, width) for part in text.split("\n")]
    fig.text(0.5, 0.01, "\n".join(lines), ha="center", va="bottom", fontsize=7, color="0.3")
    fig.tight_layout(rect=(0, bottom, 1, 0.97))


def _draw_on_plate(ax, sol, color, label):
    """The orbit: solid while on the plate, dotted beyond its edge (first exit marked)."""
    rho = np.hypot(sol["x"], sol["y"])
    out = np.flatnonzero(rho > PLATE)
    cut = out[0] if out.size else len(rho)
    ax.plot(sol["x"][:cut + 1], sol["y"][:cut + 1], color=color, lw=1.3, label=label)
    _arrow(ax, sol["x"], sol["y"], min(cut, len(rho)) // 7, color)
    exit_time = None
    if out.size:
        ax.plot(sol["x"][cut:], sol["y"][cut:], color=color, lw=0.7, ls=":", alpha=0.7)
        exit_time = float(sol.t_events[0][0])
        xe, ye = sol.y_events[0].reshape(-1, sol.y.shape[0])[0, :2]
        ax.plot(xe, ye, "x", color=color, ms=8, mew=2)
        ax.annotate(f"leaves the plate\nt = {exit_time:.2f} s", (xe, ye), textcoords="offset points",
                    xytext=(6, -22), fontsize=7, color=color)
    ax.plot(*IC[:2], "o", color="k", ms=4)
    return exit_time


def _single_orbit_figure(path, params, t_end, title, extra=None) -> dict:
    """One panel: the orbit of both modes (they coincide when r does not enter)."""
    import matplotlib.pyplot as plt

    runs = both_modes(params, t_end)
    sols, diff = runs["runs"], runs["mode_difference"]
    fig, ax = plt.subplots(figsize=(6.2, 6.4))
    _plate(ax)
    sol = sols["paper_compatible"]
    _draw_on_plate(ax, sol, "tab:blue", "nonholonomic orbit")
    if extra:
        extra(ax, sol)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    _footer(fig, f"t in [0, {t_end:.3g}] s (not given in the paper); {CHOICES}.\nBoth modes (r = 2.54 and 1.27 cm) "
                 f"give the same orbit: max difference {diff:.1e} cm.")
    save(fig, path, layout=False)  # laid out by _footer
    return dict(sol=sol, mode_difference=diff)


def _two_mode_figure(path, params, title) -> dict:
    """Two panels: paper-compatible and derived mode, over the Table 1 span (five returns)."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11.5, 6.2))
    out = {}
    for ax, (mode, color) in zip(axes, [("paper_compatible", "tab:blue"), ("derived", "tab:red")]):
        run = table1_span_run(mode, params)
        sol, radii = run["run"], run["radii"]
        _plate(ax, lim=22.0)
        exit_time = _draw_on_plate(ax, sol, color, "nonholonomic orbit")
        ax.plot(radii, np.zeros_like(radii), "s", mfc="none", color="k", ms=5, label="Table 1 crossings")
        ax.set_title(MODE_LABELS[mode], fontsize=9)
        ax.legend(fontsize=8, loc="upper left")
        out[mode] = dict(t_end=run["t_end"], exit_time=exit_time, radii=radii.tolist(), max_radius=run["max_radius"])
    fig.suptitle(title, fontsize=10)
    _footer(fig, f"t in [0, t5] (five same-direction returns to the positive x-axis, the Table 1 span); orbits beyond "
                 f"the plate's edge dotted (axes clipped at 22 cm); {CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return out


def _family_panel(ax, runs, label, cmap, norm) -> dict:
    """One radius of Figs. 11-13: the runs to the plate's edge, exit points, an arrow along the exits."""
    _plate(ax, lim=20.0)
    x_c, y_c = circle_oracle(np.linspace(0, 7 * np.pi / OMEGA, 300))
    ax.plot(x_c, y_c, "k--", lw=0.8, label="nonholonomic orbit")
    exits = plate_exits(runs)
    for value, sol in runs:
        c = cmap(norm(value))
        ax.plot(sol["x"], sol["y"], color=c, lw=1.1)
        ax.plot(*exits[value]["point"], "o", color=c, ms=3)
    values = [v for v, _ in runs]
    angles = np.unwrap([np.arctan2(exits[v]["point"][1], exits[v]["point"][0]) for v in values])
    if abs(angles[-1] - angles[0]) < np.pi:  # an arrow only where the exits sweep a short arc
        arc = np.linspace(angles[0], angles[-1], 30)
        ax.plot(16.2 * np.cos(arc[:-1]), 16.2 * np.sin(arc[:-1]), "k-", lw=1.2)
        _arrow(ax, 16.2 * np.cos(arc), 16.2 * np.sin(arc), len(arc) - 2, "k")
        mid = angles.mean()
        ax.text(17.2 * np.cos(mid), 17.2 * np.sin(mid), f"increasing\n{label.split(' (')[0]}", fontsize=8,
                ha="left" if np.cos(mid) > 0 else "right", va="center")
    ax.plot(*IC[:2], "ko", ms=4)
    ax.legend(fontsize=8, loc="upper left")
    return exits


def _family_figure(path, which, label, paper_caption) -> dict:
    """Figs. 11-13 for both readings of the ball's radius (the paper states a 2.54 cm diameter and
    does not say which r its vakonomic runs used)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    fig, axes = plt.subplots(1, len(VAK_RADII), figsize=(13.5, 6.6))
    by_radius = {}
    for ax, r in zip(axes, VAK_RADII):
        runs = vakonomic_family(which, r=r)
        values = [v for v, _ in runs]
        cmap, norm = plt.cm.viridis, Normalize(min(values), max(values))
        by_radius[r] = _family_panel(ax, runs, label, cmap, norm)
        times = [e["time"] for e in by_radius[r].values()]
        ax.set_title(f"r = {r:g} cm: exits at t = {min(times):.2f} .. {max(times):.2f} s", fontsize=9.5)
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=axes[-1], shrink=0.75, label=label)
    fig.suptitle(paper_caption + "; left: the ball's true radius, right: its diameter", fontsize=10)
    _footer(fig, "Vakonomic model; the radius is not given for these runs in the paper. Each run stops at the plate's "
                 f"edge (terminal event x^2 + y^2 = 15^2).\n{CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return dict(values=[float(v) for v in by_radius[R_BALL]], exits=by_radius[R_BALL],
                exits_by_radius={r: ex for r, ex in by_radius.items()}, radii=list(VAK_RADII))


# ----------------------------------------------------------------------------------- figures
@figure("lewis_murray_fig5")
def fig5(path: Path) -> dict:
    """Fig. 5: the frictionless nonholonomic orbit, a circle traversed at k = 2 Omega/7."""
    T = 7 * np.pi / OMEGA

    def analytic(ax, sol):
        x_c, y_c = circle_oracle(np.linspace(0, T, 400))
        ax.plot(x_c, y_c, "k--", lw=0.8, label="closed form (note 3.2)")
        ax.plot(IC[0] - IC[3] / ball_exact.circle_rate(OMEGA), 0, "k.", ms=4)

    out = _single_orbit_figure(path, {}, T, "Fig. 5: nonholonomic orbit, no external forces", analytic)
    return dict(circle_check(out["sol"]), mode_difference=out["mode_difference"])


@figure("lewis_murray_fig8")
def fig8(path: Path) -> dict:
    """Fig. 8: nu = 5, an inward spiral to z_inf (the corrected closed form, note 3.4 item 2)."""
    t_end, nu = 60.0, 5.0
    _, _, z_inf = spiral_oracle(0.0, nu)

    def limit(ax, sol):
        ax.plot(z_inf.real, z_inf.imag, "k*", ms=9, label=f"z_inf = ({z_inf.real:.4f}, {z_inf.imag:.4f})")

    out = _single_orbit_figure(path, {"nu": nu}, t_end, "Fig. 8: nonholonomic orbit, delta = mu = 0, nu = 5.0", limit)
    check = spiral_check(out["sol"], nu)
    return dict(z_inf=check["z_inf"], z_end=check["z_end"], t_end=t_end, max_error=check["max_error"],
                mode_difference=out["mode_difference"])


@figure("lewis_murray_fig9")
def fig9(path: Path) -> dict:
    """Fig. 9: mu = 6 (rotational viscous friction only): a slowly growing orbit."""
    return _two_mode_figure(path, {"mu": 6.0}, "Fig. 9: nonholonomic orbit, delta = nu = 0, mu = 6.0")


@figure("lewis_murray_fig10")
def fig10(path: Path) -> dict:
    """Fig. 10: delta = 0.005 (rolling friction only)."""
    return _two_mode_figure(path, {"delta": 0.005}, "Fig. 10: nonholonomic orbit, mu = nu = 0, delta = 0.005")


@figure("lewis_murray_fig11")
def fig11(path: Path) -> dict:
    """Fig. 11: vakonomic runs, lambda2(0) = xi3(0) = 0, lambda1(0) = 0, 10, ..., 100."""
    return _family_figure(path, "lambda1", "lambda1(0) (g cm/s)",
                          "Fig. 11: vakonomic, lambda2(0) = omega3(0) = 0, lambda1(0) = 0..100")


@figure("lewis_murray_fig12")
def fig12(path: Path) -> dict:
    """Fig. 12: vakonomic runs, lambda1(0) = xi3(0) = 0, lambda2(0) = 0, 10, ..., 100."""
    return _family_figure(path, "lambda2", "lambda2(0) (g cm/s)",
                          "Fig. 12: vakonomic, lambda1(0) = omega3(0) = 0, lambda2(0) = 0..100")


@figure("lewis_murray_fig13")
def fig13(path: Path) -> dict:
    """Fig. 13: vakonomic runs, lambda(0) = 0, xi3(0) = omega3(0) = 0, 1, ..., 10 rad/s."""
    out = _family_figure(path, "xi3", "omega3(0) = xi3(0) (rad/s)",
                         "Fig. 13: vakonomic, lambda1(0) = lambda2(0) = 0, omega3(0) = 0..10")
    out["reference"] = vakonomic_reference()
    return out


@figure("lewis_murray_table1")
def fig_table1(path: Path) -> dict:
    """Table 1 as a figure: the crossing radii rho_i, paper vs both modes, per case."""
    import matplotlib.pyplot as plt

    tables = {mode: table1(mode) for mode in MODES}
    scope = table1_radius_equivalence()
    fig, axes = plt.subplots(1, len(TABLE1_CASES) + 1, figsize=(17, 3.9), sharey=True)
    i = np.arange(6)
    period, d = TABLE1_PRINTED["Experiment"]
    axes[0].plot(i, IC[0] + np.r_[0, np.cumsum(d)], "ks-", mfc="none", lw=0.8,
                 label=f"paper (printed d_i), T = {period} s")
    axes[0].axhline(PLATE, color="0.5", lw=0.8, ls="--")
    axes[0].set_title("Experiment (measured)", fontsize=9)
    axes[0].set(xlabel="crossing i", ylim=(0, 25))
    axes[0].legend(fontsize=6, loc="lower left")
    for ax, k in zip(axes[1:], range(len(TABLE1_CASES))):
        case = TABLE1_CASES[k][0]
        printed = IC[0] + np.r_[0, np.cumsum(TABLE1_PRINTED[case][1])]
        ax.plot(i, printed, "ks", mfc="none", label="paper (printed d_i)")
        for mode, style in [("paper_compatible", "o-"), ("derived", "^-")]:
            row = tables[mode][k]
            ax.plot(i, np.r_[IC[0], row["radii"]], style, ms=4, lw=0.8,
                    label=f"ours, {mode.replace('_', '-')}: T = {row['period']:.4f} s")
        ax.axhline(PLATE, color="0.5", lw=0.8, ls="--")
        ax.set_title(case, fontsize=9)
        ax.set(xlabel="crossing i", ylim=(0, 25))
        ax.legend(fontsize=6, loc="lower left")
    axes[0].set_ylabel("rho_i (cm); dashed: plate edge")
    _footer(fig, "rho_0 = 10, rho_i = 10 + d_1 + ... + d_i; derived-mode radii above 25 cm are off the axes. The "
                 "printed (3.6) with r = 2.54 cm and (mu, delta) is the same motion as with r = 1.27 cm and "
                 f"(mu/4, delta/4): the rows fix the sign of the rolling term, not the radius. {CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    out = {mode: [dict(case=r["case"], period=float(r["period"]), d=r["d"].tolist(), times=r["times"].tolist(),
                       radii=r["radii"].tolist(), leaves_plate=r["leaves_plate"]) for r in rows]
           for mode, rows in tables.items()}
    out["scope"] = scope
    return out


@figure("lewis_murray_lemma31")
def fig_lemma31(path: Path) -> dict:
    """Lemma 3.1: the deviation landscape over lambda(0) and the closest vakonomic motion."""
    import matplotlib.pyplot as plt

    scan = lemma31_scan()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5.4))
    g = scan["grid"]
    im = ax1.pcolormesh(g, g, np.log10(scan["deviation"].T), shading="nearest", cmap="magma")
    fig.colorbar(im, ax=ax1, label="log10 max_t |z_vak - z_nh| (cm)")
    ax1.plot(*scan["lambda_min"], "c*", ms=12, label=f"minimum {scan['min_deviation']:.4f} cm")
    ax1.plot(0, 0, "wo", ms=5, label=f"lambda(0) = 0: {scan['deviation_at_zero']:.2f} cm")
    ax1.set(xlabel="lambda1(0) (g cm/s)", ylabel="lambda2(0) (g cm/s)",
            title=f"deviation over t in [0, {scan['horizon']:g}] s, xi3(0) = 0")
    ax1.legend(fontsize=8)
    ax2.plot(scan["z_nh"].real, scan["z_nh"].imag, "k-", lw=2, label="nonholonomic")
    ax2.plot(scan["z_vak"].real, scan["z_vak"].imag, "c--", lw=1.5,
             label=f"closest vakonomic, lambda(0) = ({scan['lambda_min'][0]:.1f}, {scan['lambda_min'][1]:.1f})")
    ax2.set(aspect="equal", xlabel="x (cm)", ylabel="y (cm)",
            title=f"its spin xi3 reaches {scan['spin_deviation']:.1f} rad/s (nonholonomic: 0)")
    ax2.legend(fontsize=8)
    _footer(fig, f"Grid {len(g)}x{len(g)} over [-{g[-1]:g}, {g[-1]:g}]^2 plus Nelder-Mead ({scan['nfev']} runs), "
                 f"r = 1.27 cm. {CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return dict(lambda_min=scan["lambda_min"].tolist(), min_deviation=scan["min_deviation"],
                integration_error=scan["integration_error"],
                deviation_at_zero=scan["deviation_at_zero"], spin_deviation=scan["spin_deviation"],
                horizon=scan["horizon"], nfev=scan["nfev"], span=float(g[-1]))


@figure("lewis_murray_fig3_realizing")
def fig_realizing(path: Path) -> dict:
    """Section 2.4 / Fig. 3: x = 0 realized by a large mass (vakonomic limit) and by strong
    damping (nonholonomic limit); both reach the one motion of Prop. 2.8, not uniformly in time."""
    import matplotlib.pyplot as plt

    r = realizing_constraints()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    t = r["t"]
    for ax, fam, label, cmap in ((axes[0], r["mass"], "M/m", plt.cm.Purples),
                                 (axes[1], r["damping"], "c/sqrt(k m)", plt.cm.Oranges)):
        keys = list(fam["deviation"])
        for key, col in zip(keys, cmap(np.linspace(0.45, 0.95, len(keys)))):
            ax.semilogy(t[1:], fam["deviation"][key][1:], color=col, lw=1.1, label=f"{label} = {key:g}")
        ax.set(xlabel="t", ylabel="|y - y_lim| (y_lim = cos t)", ylim=(1e-7, 3))
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8, loc="lower right")
    axes[0].set_title("large mass M (vakonomic limit):\ndeviation grows with t", fontsize=10)
    axes[1].set_title("strong damping c (nonholonomic limit):\ndeviation grows with t", fontsize=10)
    ax = axes[2]
    for fam, label, color, marker in ((r["mass"], "1/M (mass)", "tab:purple", "o"),
                                      (r["damping"], "1/c (damping)", "tab:orange", "s")):
        keys = np.array(list(fam["max"]))
        ax.loglog(1 / keys, [fam["max"][k] for k in keys], marker + "-", color=color,
                  label=f"{label}: max over [0, {r['t_end']:g}], slope {fam['slope']:.2f}")
        ax.loglog(1 / keys, [fam["early"][k] for k in keys], marker + ":", color=color, mfc="none",
                  label=f"{label}: max over [0, {r['t_end'] / 10:g}]")
    ax.set(xlabel="1/M or 1/c", ylabel="max |y - y_lim|")
    ax.set_title("both limits converge like 1/M, 1/c", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7.5)
    vak = max(r["vakonomic"].values())
    fig.suptitle("Lewis-Murray section 2.4 / Fig. 3: imposing x = 0 on masses M (x) and m (y) joined by a spring, "
                 "M damped by c (our reading of the figure; m = k = 1, x(0) = 0, y(0) = 1, at rest).\n"
                 f"Limit: x = 0, y = cos t. Vakonomic model (x' = 0) from lambda(0) in "
                 f"{{{', '.join(f'{v:g}' for v in r['vakonomic'])}}}: max distance to the nonholonomic motion "
                 f"{vak:.1e} (Prop. 2.8)", fontsize=9.5)
    save(fig, path, rect=(0, 0, 1, 0.92))
    return dict(mass_slope=r["mass"]["slope"], damping_slope=r["damping"]["slope"], mass_max=r["mass"]["max"],
                damping_max=r["damping"]["max"], mass_early=r["mass"]["early"], damping_early=r["damping"]["early"],
                mass_x_max=r["mass"]["x_max"], damping_x_max=r["damping"]["x_max"], vakonomic=r["vakonomic"],
                limit_error=r["limit_error"], t_end=r["t_end"])


@figure("lewis_murray_case3_eigenvalues")
def fig_case3(path: Path) -> dict:
    """Section 3.3, case 3: the eigenvalues the paper calls complicated, in closed form."""
    import matplotlib.pyplot as plt

    study = case3_eigenvalues()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13.5, 5.0))
    colors = dict(zip(study, ("tab:blue", "tab:red")))
    numbers = {}
    for r, s in study.items():
        ax.plot(s["nu"], s["alpha2"], color=colors[r], lw=1.6, label=f"alpha2, r = {r:g} cm")
        ax.plot(s["nu"], s["alpha1"], color=colors[r], lw=1.0, ls="--", label=f"alpha1, r = {r:g} cm")
        ax.axvline(s["boundary"], color=colors[r], lw=0.8, ls=":")
        ax.text(s["boundary"], 0.07, f" nu* = {s['boundary']:.2f}", color=colors[r], fontsize=8)
        numbers[r] = dict(boundary=float(s["boundary"]), alpha2_nu0=float(s["alpha2"][0]),
                          alpha1_nu0=float(s["alpha1"][0]), roots_nu0=[complex(z) for z in s["at_nu0"][:2]])
    ax.axhline(0, color="0.4", lw=0.8)
    ax.set(xlabel="nu (g/s)", ylabel="real part (1/s)", ylim=(-0.3, 0.12),
           title=f"mu = {CASE3_MU:g}: alpha2 > 0 (growing orbit) iff nu < nu* = 5 mu/(2 r^2)")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8, loc="lower left")
    mu = np.linspace(0, 12, 200)
    for r in study:
        ax2.plot(mu, 2.5 * mu / r**2, color=colors[r], lw=1.4, label=f"nu = 5 mu/(2 r^2), r = {r:g} cm")
        ax2.fill_between(mu, 0, 2.5 * mu / r**2, color=colors[r], alpha=0.07)
    ax2.text(9.5, 8.5, "growing below\nthe line of its r\n(nu = 0: always)", fontsize=9, ha="center")
    ax2.text(3, 14, "decaying above", fontsize=9, ha="center")
    ax2.set(xlabel="mu (g cm^2/s)", ylabel="nu (g/s)", xlim=(0, 12), ylim=(0, 20),
            title="stability boundary nu I = mu m (exact)")
    ax2.title.set_fontsize(10)
    ax2.legend(fontsize=8, loc="upper left")
    fig.suptitle("Lewis-Murray section 3.3, case 3 (delta = 0): real parts alpha1 <= alpha2 of the eigenvalues of "
                 "the linear ball,\nthe roots of J s^2 + (mu + nu r^2 - i I Omega) s - i mu Omega = 0 and their "
                 "conjugates (closed "
                 "form; equal to the eigenvalues of nonholo's linearization)", fontsize=10)
    save(fig, path, rect=(0, 0, 1, 0.92))
    return numbers


FIT_COLORS = {"derived": "tab:red", "paper_compatible": "tab:blue"}
FIT_MARKERS = {"derived": "s-", "paper_compatible": "o--"}


@figure("lewis_murray_fit")
def fig_fit(path: Path, starts: dict | None = None) -> dict:
    """Measured d_i (experiment row) against nu and delta fitted in both modes (the derived one
    first, the headline) and the paper's hand-picked rows. ``starts``: mode -> (nu, delta) where
    each fit starts (default (1, 0.002) for both; the notebook starts near the optima)."""
    import matplotlib.pyplot as plt

    starts = starts or {}
    fits = {mode: fit_summary(experiment_fit(mode, start=starts.get(mode, (1.0, 0.002)))) for mode in FIT_MODES}
    for mode, f in fits.items():
        f["loops"] = loop_times(mode, f["x"])
    fig, ax = plt.subplots(figsize=(8.2, 5.0))
    i = np.arange(1, 6)
    period, d = TABLE1_PRINTED["Experiment"]
    ax.plot(i, d, "ko", ms=7, label=f"experiment (Table 1), period {period} s")
    labels = {}
    for mode, f in fits.items():
        nu, delta = f["x"]
        bound = " (nu at its upper bound)" if f["at_bound"][0] else ""
        labels[mode] = (f"fit, {MODE_LABELS[mode]}:\nnu = {nu:.3g}{bound}, delta = {delta:.3g}; "
                        f"residual {f['rss']:.3g} cm^2, period t_5/5 = {f['predicted'][0]:.3f} s")
        ax.plot(i, f["predicted"][1:], FIT_MARKERS[mode], color=FIT_COLORS[mode], label=labels[mode])
    for case, style in (("delta = mu = 0, nu = 5.0", ":"), ("mu = nu = 0, delta = 0.005", "-.")):
        ax.plot(i, TABLE1_PRINTED[case][1], style, color="0.55", label=f"paper's choice ({case}), printed")
    ax.axhline(0, color="0.8", lw=0.8)
    ax.set(xlabel="return i to the positive x-axis", ylabel="d_i = rho_i - rho_(i-1) (cm)", xticks=i)
    ax.set_title("Table 1's experiment row fitted by nu and delta (mu = 0), least squares over d_1..d_5,\n"
                 "in both models of the rolling friction; the period is not fitted", fontsize=9.5)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    save(fig, path)
    return dict(fits=fits, headline=FIT_MODES[0], modes=list(FIT_MODES), colors=dict(FIT_COLORS), labels=labels)


DELTA_SCAN_COLORS = {"paper_compatible": "tab:blue", "derived": "tab:red"}


@figure("lewis_murray_delta_scan")
def fig_delta_scan(path: Path) -> dict:
    """Table 1's delta row against delta, for both signs of the rolling term: only the printed
    sign comes close."""
    import matplotlib.pyplot as plt

    scan = delta_row_scan()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(13.5, 5.0))
    labels = {}
    for mode, s in scan.items():
        labels[mode] = f"{MODE_LABELS[mode]}:\nsmallest {s['min_distance']:.3f} cm at delta = {s['delta_at_min']:.2g}"
        ax.loglog(s["delta"], s["distance"], "o-", ms=3.5, color=DELTA_SCAN_COLORS[mode], label=labels[mode])
    ax.axvline(0.005, color="0.5", lw=0.8, ls=":")
    ax.set(xlabel="delta (mu = nu = 0); dotted line: the printed delta = 0.005",
           ylabel="max_i |d_i - d_i printed| (cm)",
           title="distance to Table 1's delta row (d_i = 1.48 .. 1.75 cm)")
    ax.title.set_fontsize(10)
    ax.set_ylim(top=ax.get_ylim()[1] * 30)  # room for the legend above the curves, inside the axes
    ax.legend(fontsize=7.5, loc="upper left")
    ax.grid(alpha=0.3, which="both")
    printed = TABLE1_PRINTED[DELTA_ROW][1]
    ax2.plot(np.arange(1, 6), printed, "ks", mfc="none", ms=8, label="printed delta row")
    der = scan["derived"]
    cmap = plt.cm.Reds
    for k in range(0, len(der["delta"]), 4):
        ax2.plot(np.arange(1, 6), der["d"][k], "^-", ms=3.5, lw=0.8, color=cmap(0.35 + 0.6 * k / len(der["delta"])),
                 label=f"derived sign, delta = {der['delta'][k]:.2g}")
    ax2.set(xlabel="return i", ylabel="d_i (cm)", xticks=np.arange(1, 6),
            title="d_i with the derived (dissipative) sign, every fourth delta of the scan")
    ax2.title.set_fontsize(10)
    ax2.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the axes: no curve covered
    ax2.grid(alpha=0.3)
    fig.suptitle(f"Lewis-Murray Table 1, delta row: {len(der['delta'])} values of delta from {der['delta'][0]:g} to "
                 f"{der['delta'][-1]:g} with each sign of the rolling term\n(with mu = nu = 0 the motion with the "
                 "derived term does not depend on r; as delta -> 0 its d_i tend to 0, 1.75 cm from the row)",
                 fontsize=10)
    save(fig, path, rect=(0, 0, 1, 0.92))
    return dict({mode: dict(min_distance=s["min_distance"], delta_at_min=s["delta_at_min"],
                            distance=s["distance"].tolist(), delta=s["delta"].tolist()) for mode, s in scan.items()},
                colors=dict(DELTA_SCAN_COLORS), labels=labels)
