"""The figures of ``fedorov_zenkov``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh

from ..registry import figure, save
from .experiments import (
    BLUE, FIG1_ENERGIES, FIG1_T, FIG2_SEEDS, FIG2_STEPS, FIG3_H, FIG3_T, GREEN, GREY, LIMIT_STEPS, LONG_H, LONG_T,
    OMEGA0, RED, SLEIGH, V0, WP_T, ContinuousSleigh, body_momenta, discrete_map, fig3_start, heteroclinic_limits,
    linearization_table, long_runs, order2_table, regression_values, sleigh, sleigh_start, theorem5_polygon,
    work_precision)


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

    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    I = J + m * a**2
    model = sleigh().nonholonomic()
    t_fwd = np.linspace(0, FIG1_T, 1501)
    fig, ax = plt.subplots(figsize=(9.6, 5.6))
    ax.axvline(0, color=GREY, lw=0.8, zorder=0)
    colors = plt.cm.viridis(np.linspace(0.1, 0.8, len(FIG1_ENERGIES)))
    orbits = {}
    for E, color in zip(FIG1_ENERGIES, colors):
        for sign in (1.0, -1.0):
            y0 = sleigh_start(0.0, sign * math.sqrt(2 * E / I))   # at the cusp: p2 = 0, p1 = +-sqrt(2 I E)
            fwd = nh.simulate(model, (0, FIG1_T), y0, t_eval=t_fwd, rtol=1e-11, atol=1e-13, raise_on_failure=True)
            bwd = nh.simulate(model, (0, -FIG1_T), y0, t_eval=-t_fwd, rtol=1e-11, atol=1e-13, raise_on_failure=True)
            p = np.hstack([body_momenta(bwd, J, m, a)[:, ::-1], body_momenta(fwd, J, m, a)[:, 1:]])
            orbits[(E, sign)] = p
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

    rows = {}
    for (E, sign), p in orbits.items():
        energy = 0.5 * (p[0] ** 2 / I + p[1] ** 2 / m)
        top = math.sqrt(2 * m * E)
        rows[f"{E:g}, {'+' if sign > 0 else '-'}"] = dict(
            E=E, max_energy_error=float(np.abs(energy - E).max() / E),
            p2_start=float(p[1, 0]), p2_end=float(p[1, -1]), limit=top,
            limit_error=float(max(abs(p[1, -1] - top), abs(p[1, 0] + top))),
            p1_ends=float(max(abs(p[0, 0]), abs(p[0, -1]))), min_p2_increment=float(np.diff(p[1]).min()))
    return dict(orbits=rows, I=I)


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
    mirror, monotone = 0.0, np.inf
    angle = np.linspace(-np.pi / 2, np.pi / 2, 200)
    limits = heteroclinic_limits()
    k = np.arange(-FIG2_STEPS, FIG2_STEPS + 1)
    for p, color, row in zip(FIG2_SEEDS, colors, limits):
        orbits = {}
        for sign in (1.0, -1.0):
            fwd = P.orbit([sign * p, 0.0], FIG2_STEPS)
            bwd = P.orbit([sign * p, 0.0], FIG2_STEPS, backward=True)
            orbit = np.vstack([bwd[::-1], fwd[1:]])
            orbits[sign] = orbit
            monotone = min(monotone, float(np.diff(orbit[:, 1]).min()))
            ax.plot(orbit[:, 0], orbit[:, 1], "o", color=color, ms=2.0)
            # the continuous level curve through the seed, p1^2/I + p2^2/m = p^2/I
            ax.plot(sign * p * np.cos(angle), math.sqrt(m / I) * p * np.sin(angle), "--", color="k", lw=0.6,
                    alpha=0.6, zorder=3)
            ax.plot(sign * p, 0.0, "x", color="k", ms=5, zorder=4)
        mirror = max(mirror, float(np.abs(orbits[-1] * [-1, 1] - orbits[1]).max()))
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
    return dict(limits=limits, mirror_deviation=mirror, min_p2_increment=monotone,
                linearization=linearization_table())


# ------------------------------------------------------------------ Fig. 3: contact points
def _distance_to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Distance of each point (n, 2) to the polyline (m, 2)."""
    a, b = line[:-1], line[1:]
    ab = b - a
    out = np.empty(len(points))
    for i, pt in enumerate(points):
        s = np.clip(np.einsum("ij,ij->i", pt - a, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
        out[i] = np.hypot(*(a + s[:, None] * ab - pt).T).min()
    return out


@figure("fedorov_zenkov_fig3")
def fig3(path: Path) -> dict:
    """Fig. 3: the discrete contact points (general integrator ``sleigh.discrete(h)``) on the
    continuous trajectory (CVODE): one cusp, then the approach to a straight line."""
    import matplotlib.pyplot as plt

    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    I = J + m * a**2
    h, T = FIG3_H, FIG3_T
    N = int(round(T / h))
    system = sleigh()
    disc = nh.simulate_discrete(system.discrete(h), (0, T), fig3_start(), raise_on_failure=True)
    t = np.linspace(0, T, 3601)
    cont = nh.simulate(system.nonholonomic(), (0, T), fig3_start(), t_eval=t, rtol=1e-12, atol=1e-14,
                       raise_on_failure=True)
    exact = ContinuousSleigh(J, m, a, OMEGA0, V0)
    q_map, p_map = discrete_map().trajectory((0, 0, 0), (h * I * OMEGA0, h * m * V0), N)
    p_disc = DiscreteSleigh.momenta_from_general(disc, h)
    xd, yd = disc.q[0], disc.q[1]
    chords = np.hypot(np.diff(xd), np.diff(yd))
    # the discrete cusp: the node k where the signed chord s = (Dx, Dy) . (cos phi_m, sin phi_m) of
    # the steps turns from backwards (s_{k-1} < 0) to forwards (s_k > 0); p2 changes sign there too
    phi_m = disc.q[2, :-1] + np.diff(disc.q[2]) / 2
    signed_chord = np.diff(xd) * np.cos(phi_m) + np.diff(yd) * np.sin(phi_m)
    k_cusp = int(np.nonzero((signed_chord[:-1] < 0) & (signed_chord[1:] >= 0))[0][0]) + 1
    k_p2 = int(np.nonzero((p_disc[:-1, 1] < 0) & (p_disc[1:, 1] >= 0))[0][0]) + 1
    cusp_c = exact.contact_point([exact.t_cusp])[:, 0]

    fig, ax = plt.subplots(figsize=(10, 6.4))
    ax.plot(cont["x"], cont["y"], "-", color="k", lw=1.1, label="continuous (CVODE, rtol 1e-12)")
    ax.plot(xd, yd, "o", color=RED, ms=3.5, label=f"discrete contact points (sleigh.discrete({h:g}))")
    # the asymptotic straight line of the continuous motion: heading theta_inf, at the limit of the
    # normal offset n . r(t) (it converges like exp(-k t); t = 80 is past round-off)
    direction = np.array([math.cos(exact.theta_inf), math.sin(exact.theta_inf)])
    normal = np.array([-direction[1], direction[0]])
    offset = float(normal @ exact.contact_point([80.0])[:, 0])
    end = np.array([cont["x"][-1], cont["y"][-1]])
    foot = offset * normal + (direction @ end) * direction
    line = foot[None] + np.outer(np.linspace(-11, 1.0, 2), direction)
    ax.plot(line[:, 0], line[:, 1], ":", color=BLUE, lw=1.2, label=f"asymptote, heading theta_inf = {exact.theta_inf:.4f}")
    ax.plot(*cusp_c, "*", color=BLUE, ms=11, mec="k", mew=0.5, zorder=6, label=f"continuous cusp (t* = {exact.t_cusp:.3f})")
    ax.plot(xd[k_cusp], yd[k_cusp], "s", mfc="none", mec=GREEN, ms=9, mew=1.5, zorder=6,
            label=f"discrete cusp node k = {k_cusp} (t = {k_cusp * h:.1f})")
    ax.plot(0, 0, "k+", ms=10)
    ax.annotate("start", (0, 0), xytext=(4, 6), textcoords="offset points", fontsize=8)
    ax.set(xlabel="x", ylabel="y", aspect="equal", xlim=(xd.min() - 1.0, 6.0), ylim=(yd.min() - 0.8, 3.2),
           title="Fig. 3: discrete and continuous trajectories of the contact point")
    ax.legend(fontsize=7.5, loc="upper left")
    inset = ax.inset_axes([0.6, 0.05, 0.38, 0.4])
    win = (cusp_c[0] - 0.7, cusp_c[0] + 0.7, cusp_c[1] - 0.45, cusp_c[1] + 0.45)
    inset.plot(cont["x"], cont["y"], "-", color="k", lw=1.0)
    inset.plot(xd, yd, "o", color=RED, ms=3.5)
    inset.plot(*cusp_c, "*", color=BLUE, ms=10, mec="k", mew=0.5)
    inset.plot(xd[k_cusp], yd[k_cusp], "s", mfc="none", mec=GREEN, ms=8, mew=1.3)
    inset.set(xlim=win[:2], ylim=win[2:], aspect="equal", title="the cusp", xticks=[], yticks=[])
    inset.title.set_fontsize(8)
    ax.indicate_inset_zoom(inset, edgecolor=GREY)
    fig.text(0.5, 0.01, f"J = m = a = 1; theta = x = y = 0, v0 = {V0:g} (backwards), omega0 = {OMEGA0:g}; "
             f"h = {h:g}, {N} steps, t in [0, {T:g}]; start from continuous data (p_0 = G v_0)", ha="center", fontsize=8)
    save(fig, path, rect=(0, 0.03, 1, 1), tight_bbox=True)

    ref = exact.configuration(disc.t)
    same_time = np.hypot(xd - ref[0], yd - ref[1])
    # distance to the curve, continued 2 time units past T so that no dot is past its end
    longer = exact.contact_point(np.linspace(0, T + 2, 2801))
    to_curve = _distance_to_polyline(np.column_stack([xd, yd]), longer.T)
    V_d = float(p_disc[-1, 1] / (m * h))   # discrete speed along the blade, p2/(m h)
    # the discrete asymptote's heading (closed map run to t = 80, where p1 is below round-off)
    heading_error = {}
    for step in (h, h / 2, h / 4):
        q_long, _ = discrete_map().trajectory((0, 0, 0), (step * I * OMEGA0, step * m * V0), int(round(80 / step)))
        heading_error[step] = float(q_long[-1, 0] - exact.theta_inf)
    return dict(
        h=h, N=N, t_cusp=exact.t_cusp, k_cusp=k_cusp, k_p2_sign_change=k_p2,
        n_chord_reversals=int(np.sum(np.diff(np.sign(signed_chord)) != 0)), t_cusp_discrete=(float((k_cusp - 1) * h), float(k_cusp * h)),
        max_same_time_distance=float(same_time.max()), max_distance_to_curve=float(to_curve.max()),
        t_max_distance_to_curve=float(disc.t[int(np.argmax(to_curve))]),
        general_vs_closed_map=float(max(np.abs(disc.q[[2, 0, 1]].T - q_map).max(), np.abs(p_disc - p_map[:-1]).max())),
        constraint_residual=float(disc.stats["max_constraint_residual"]),
        theta_end_discrete=float(disc.q[2, -1]), theta_end_continuous=float(cont["phi"][-1]),
        theta_inf=exact.theta_inf, asymptote_offset=offset, asymptote_heading_error=heading_error,
        end_offset_continuous=float(normal @ end - offset), end_offset_discrete=float(normal @ [xd[-1], yd[-1]] - offset),
        last_chord_over_h=float(chords[-1] / h), V=exact.V, V_discrete=V_d,
        cvode_vs_closed_form=float(np.abs(cont.q - exact.configuration(t)).max()),
        turning_angle_limit=float(math.pi * math.sqrt(I / (m * a**2))),
        regression=regression_values(), order2=order2_table())


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
    fig.suptitle(f"Long runs, t in [0, {LONG_T:g}]: discrete h = {LONG_H:g} against CVODE (atol = rtol/100)", fontsize=10)
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
