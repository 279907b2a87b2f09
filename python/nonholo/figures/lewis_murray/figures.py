"""The figures of ``lewis_murray``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import nonholo as nh
from nonholo.systems import ball_on_turntable_exact as ball_exact
from nonholo.systems.ball_on_turntable import ball_state

from ..registry import figure, save
from .experiments import (
    ATOL, CHOICES, IC, MODE_LABELS, MODES, OMEGA, PLATE, RTOL, TABLE1_CASES, TABLE1_PRINTED, _plate_event, ball,
    circle_oracle, crossings, lemma31_scan, spiral_oracle, table1, vakonomic_family, vakonomic_reference)


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


def _nh_run(mode, params, t_end, n_t=3000):
    system = ball(mode)
    y0 = ball_state(system, *IC, params=params)
    t = np.linspace(0.0, t_end, n_t)
    return nh.simulate(system.nonholonomic(), (0.0, t_end), y0, t_eval=t, params=params, rtol=RTOL, atol=ATOL,
                       events=[_plate_event(system, terminal=False)], raise_on_failure=True)


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

    sols = {mode: _nh_run(mode, params, t_end) for mode in MODES}
    fig, ax = plt.subplots(figsize=(6.2, 6.4))
    _plate(ax)
    sol = sols["paper_compatible"]
    _draw_on_plate(ax, sol, "tab:blue", "nonholonomic orbit")
    if extra:
        extra(ax, sol)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    diff = float(np.abs(sols["paper_compatible"].y[:2] - sols["derived"].y[:2]).max())
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
        times, radii = crossings(ball(mode), params)
        t_end = float(np.nanmax(times))
        sol = _nh_run(mode, params, t_end, n_t=6000)
        _plate(ax, lim=22.0)
        exit_time = _draw_on_plate(ax, sol, color, "nonholonomic orbit")
        ax.plot(radii, np.zeros_like(radii), "s", mfc="none", color="k", ms=5, label="Table 1 crossings")
        ax.set_title(MODE_LABELS[mode], fontsize=9)
        ax.legend(fontsize=8, loc="upper left")
        rho = np.hypot(sol["x"], sol["y"])
        out[mode] = dict(t_end=t_end, exit_time=exit_time, radii=radii.tolist(), max_radius=float(rho.max()))
    fig.suptitle(title, fontsize=10)
    _footer(fig, f"t in [0, t5] (five same-direction returns to the positive x-axis, the Table 1 span); orbits beyond "
                 f"the plate's edge dotted (axes clipped at 22 cm); {CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return out


def _family_figure(path, which, label, paper_caption) -> dict:
    import matplotlib.pyplot as plt
    from matplotlib.colors import Normalize

    runs = vakonomic_family(which)
    values = [v for v, _ in runs]
    cmap, norm = plt.cm.viridis, Normalize(min(values), max(values))
    fig, ax = plt.subplots(figsize=(7.0, 6.6))
    _plate(ax, lim=20.0)
    x_c, y_c = circle_oracle(np.linspace(0, 7 * np.pi / OMEGA, 300))
    ax.plot(x_c, y_c, "k--", lw=0.8, label="nonholonomic orbit")
    exits = {}
    for value, sol in runs:
        c = cmap(norm(value))
        ax.plot(sol["x"], sol["y"], color=c, lw=1.1)
        xe, ye = sol.y_events[0].reshape(-1, sol.y.shape[0])[0, :2]
        ax.plot(xe, ye, "o", color=c, ms=3)
        exits[value] = dict(time=float(sol.t_events[0][0]), point=(float(xe), float(ye)))
    angles = np.array([np.arctan2(exits[v]["point"][1], exits[v]["point"][0]) for v in values])
    arc = np.linspace(angles[0], angles[-1], 30)
    ax.plot(16.2 * np.cos(arc[:-1]), 16.2 * np.sin(arc[:-1]), "k-", lw=1.2)
    _arrow(ax, 16.2 * np.cos(arc), 16.2 * np.sin(arc), len(arc) - 2, "k")
    mid = angles.mean()
    ax.text(17.2 * np.cos(mid), 17.2 * np.sin(mid), f"increasing\n{label.split(' (')[0]}", fontsize=8,
            ha="left" if np.cos(mid) > 0 else "right", va="center")
    ax.plot(*IC[:2], "ko", ms=4)
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.75, label=label)
    ax.set_title(paper_caption, fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    _footer(fig, f"Vakonomic model, r = 1.27 cm (not given in the paper); each run stops at the plate's edge "
                 f"(terminal event x^2 + y^2 = 15^2).\n{CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return dict(values=values, exits=exits)


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
    sol = out["sol"]
    x_c, y_c = circle_oracle(sol.t)
    times, _ = crossings(ball("paper_compatible"), {}, n=1)
    return dict(period=float(times[0]), period_closed_form=T, centre=IC[0] - IC[3] / ball_exact.circle_rate(OMEGA), radius=IC[3] / ball_exact.circle_rate(OMEGA),
                max_error=float(np.hypot(sol["x"] - x_c, sol["y"] - y_c).max()), mode_difference=out["mode_difference"])


@figure("lewis_murray_fig8")
def fig8(path: Path) -> dict:
    """Fig. 8: nu = 5, an inward spiral to z_inf (the corrected closed form, note 3.4 item 2)."""
    t_end, nu = 60.0, 5.0
    _, _, z_inf = spiral_oracle(0.0, nu)

    def limit(ax, sol):
        ax.plot(z_inf.real, z_inf.imag, "k*", ms=9, label=f"z_inf = ({z_inf.real:.4f}, {z_inf.imag:.4f})")

    out = _single_orbit_figure(path, {"nu": nu}, t_end, "Fig. 8: nonholonomic orbit, delta = mu = 0, nu = 5.0", limit)
    sol = out["sol"]
    x_s, y_s, _ = spiral_oracle(sol.t, nu)
    return dict(z_inf=(z_inf.real, z_inf.imag), z_end=(float(sol["x"][-1]), float(sol["y"][-1])), t_end=t_end,
                max_error=float(np.hypot(sol["x"] - x_s, sol["y"] - y_s).max()), mode_difference=out["mode_difference"])


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
    fig, axes = plt.subplots(1, len(TABLE1_CASES), figsize=(15, 3.8), sharey=True)
    i = np.arange(6)
    for ax, k in zip(axes, range(len(TABLE1_CASES))):
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
    _footer(fig, f"rho_0 = 10, rho_i = 10 + d_1 + ... + d_i; derived-mode radii above 25 cm are off the axes. "
                 f"{CHOICES}.")
    save(fig, path, layout=False)  # laid out by _footer
    return {mode: [dict(case=r["case"], period=float(r["period"]), d=r["d"].tolist(), times=r["times"].tolist(),
                        radii=r["radii"].tolist(), leaves_plate=r["leaves_plate"]) for r in rows]
            for mode, rows in tables.items()}


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
