"""The figures of ``eldering``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh import frames as sf

from ..registry import figure, save
from .experiments import (
    BLUE, CARATHEODORY_EPS, ERRATA_MODELS, FIG6_EPS, FIG6_ORDER, FOOTNOTE6_L, GREEN, LAYER_END, OMEGA0, ORANGE,
    PAPER_EPS, PENDULUM_EPS, PENDULUM_START, REALIZATIONS, RED, SLEIGH_T, U0, appendix_a_errata, caratheodory_runs,
    caratheodory_table, constants, errata_slopes, errata_table, fast_fibres, fibre_decay_rates, fig4_orbit,
    first_order_distances, footnote6_phase_drift, noncompact_counterexample_runs, pendulum_convergence,
    pendulum_extent, pendulum_runs, phase_plot, reduced_field, sleigh_convergence, sleigh_runs, slow_manifold_slip,
    theorem3_pseudo_solution)


def _label_2x2(axes, xlabel: str, ylabel: str) -> None:
    """Axis labels on the outer edges of a 2 x 2 grid of panels (flattened ``axes``)."""
    for ax in axes[2:]:
        ax.set_xlabel(xlabel)
    for ax in axes[::2]:
        ax.set_ylabel(ylabel)


@figure("eldering_fig1")
def fig1(path: Path) -> dict:
    """Fig. 1: the particle under gravity held near S^1 by a stiff potential, radial friction and
    radial inertia; trajectories in the (x, y) plane, eps = 0.01 (blue) and 0.001 (red)."""
    import matplotlib.pyplot as plt

    runs = pendulum_runs()
    fig, axes = plt.subplots(1, 3, figsize=(14, 5.2))
    titles = {"potential": "(a) potential V = (r - 1)^2/(2 eps)", "friction": "(b) friction R = r'^2/(2 eps)",
              "inertia": "(c) inertia I = r'^2/(2 eps)"}
    circle = np.linspace(0, 2 * np.pi, 400)
    for ax, name in zip(axes, REALIZATIONS):
        ax.plot(np.cos(circle), np.sin(circle), color="0.75", lw=0.8, ls="--", label="S^1")
        for eps, color in zip(PENDULUM_EPS, (BLUE, RED)):
            sol = runs[(name, eps)]
            ax.plot(sol["x"], sol["y"], color=color, lw=0.7, label=f"eps = {eps:g}")
        ax.plot(*PENDULUM_START[:2], "ko", ms=4)
        ax.set(title=titles[name], xlabel="x", ylabel="y", xlim=(-1.3, 1.3))
        low = min(runs[(name, eps)]["y"].min() for eps in PENDULUM_EPS)
        ax.set_ylim(low - 0.1, 0.15)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=9)
    fig.suptitle("Eldering Fig. 1: unit mass, g = 9.81, from rest on S^1 at 45 deg below the horizontal (x0 > 0, "
                 "our choice of side), t in [0, 10]", fontsize=10)
    save(fig, path, rect=(0, 0.06, 1, 1))
    return {"extent": {f"{name}, {eps:g}": pendulum_extent(sol) for (name, eps), sol in runs.items()}}


def _start_markers(ax, x, y, t):
    """The same markers in Figs. 3 and 4: an open blue circle where the drawn orbit begins
    (t = -6), a black dot at t = 0 (u0, omega0) = (-1.5, 1)."""
    i0 = int(np.argmin(np.abs(t)))
    ax.plot(x[0], y[0], "o", mfc="white", mec=BLUE, ms=6, mew=1.5, zorder=5, label=f"t = {t[0]:g}")
    ax.plot(x[i0], y[i0], "ko", ms=5, zorder=5, label="t = 0: (u, omega) = (-1.5, 1)")


@figure("eldering_fig3")
def fig3(path: Path) -> dict:
    """Fig. 3: the (u, omega) phase plot of the nonholonomic sleigh: half-ellipses
    m u^2 + (I + m a^2) omega^2 = 2E from the negative to the positive u axis."""
    import matplotlib.pyplot as plt

    c = constants()
    d = phase_plot()
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    Uu, W = np.meshgrid(d["grid"], d["grid"])
    field = d["field"]
    ax.streamplot(Uu, W, field[..., 0], field[..., 1], color="0.8", density=1.1, linewidth=0.6, arrowsize=0.8)
    for u, omega in d["orbits"].values():
        ax.plot(u, omega, color="0.35", lw=0.9)
    orbit = fig4_orbit()
    ax.plot(orbit["u"], orbit["omega"], color=BLUE, lw=2.2, label="orbit of Fig. 4, t in [-6, 14]")
    _start_markers(ax, orbit["u"], orbit["omega"], orbit["t"])
    ax.axhline(0, color="k", lw=1.6, label="u axis: equilibria (stable for u > 0)")
    ax.set(xlabel="u", ylabel="omega", xlim=(-2.2, 2.2), ylim=(-2.2, 2.2), xticks=[-2, -1, 0, 1, 2],
           yticks=[-2, -1, 0, 1, 2],
           title="Eldering Fig. 3: nonholonomic sleigh, m = I = 1, a = 1/5\n"
                 "half-ellipses m u^2 + (I + m a^2) omega^2 = m U^2, U = 0.5, 1, 1.5, 2 (grey)")
    ax.title.set_fontsize(10)
    ax.legend(fontsize=8, loc="lower left")
    save(fig, path)
    return {"ellipse_error": d["ellipse_error"], "U": float(np.sqrt(U0**2 + c.J * OMEGA0**2 / c.m))}


@figure("eldering_fig4")
def fig4(path: Path) -> dict:
    """Fig. 4: the contact point (x, y) along the highlighted orbit of Fig. 3."""
    import matplotlib.pyplot as plt

    c = constants()
    o = fig4_orbit()
    fig, ax = plt.subplots(figsize=(6.4, 6.0))
    ax.plot(o["x"], o["y"], color=BLUE, lw=1.6)
    _start_markers(ax, o["x"], o["y"], o["t"])
    ax.annotate("t = 0: u = -1.5, omega = 1, phi = pi", (0, 0), (-5.5, 1.0), fontsize=8,
                arrowprops=dict(arrowstyle="->"))
    for i in (0, len(o["t"]) - 1):
        ax.annotate(f"t = {o['t'][i]:g}", (o["x"][i], o["y"][i]), (4, -12), textcoords="offset points", fontsize=8)
    step = len(o["t"]) // 12
    for i in range(step, len(o["t"]) - 1, step):  # heading arrows along the path
        ax.annotate("", (o["x"][i] + 0.5 * np.cos(o["phi"][i]), o["y"][i] + 0.5 * np.sin(o["phi"][i])),
                    (o["x"][i], o["y"][i]), arrowprops=dict(arrowstyle="->", color="0.4", lw=0.8))
    ax.set(xlabel="x", ylabel="y", aspect="equal",
           title="Eldering Fig. 4: skate contact point along the blue orbit of Fig. 3, t in [-6, 14]\n"
                 "(grey arrows: heading phi; the sleigh approaches from the right moving backwards)")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3)
    save(fig, path)
    # heading change over the run and over the whole heteroclinic orbit (note section 5 item 3)
    U = np.sqrt(U0**2 + c.J * OMEGA0**2 / c.m)
    s = c.k * U * (o["t"][[0, -1]] + np.arctanh(U0 / U) / (c.k * U))  # s = k U (t - t0)
    gd = lambda z: np.arctan(np.sinh(z))  # noqa: E731
    predicted = np.sqrt(c.J / c.m) / c.a * (gd(s[1]) - gd(s[0]))
    return {"heading_change": float(o["phi"][-1] - o["phi"][0]), "heading_change_closed_form": float(predicted),
            "heading_change_full_orbit": float(np.pi * np.sqrt(c.J / c.m) / c.a),
            "x": (float(o["x"].min()), float(o["x"].max())), "y": (float(o["y"].min()), float(o["y"].max()))}


def _panel_grid(plt, title: str):
    fig, axes = plt.subplots(2, 2, figsize=(10, 9), sharex=True, sharey=True)
    fig.suptitle(title, fontsize=10)
    return fig, axes.ravel()


@figure("eldering_fig5")
def fig5(path: Path) -> dict:
    """Fig. 5: contact-point trajectories of the friction sleigh (red) and the nonholonomic
    sleigh (blue) for eps = 0.2, 0.1, 0.05, 0.02."""
    import matplotlib.pyplot as plt

    runs = sleigh_runs()
    ref = runs["nh"]
    fig, axes = _panel_grid(plt, "Eldering Fig. 5: friction sleigh (red) and nonholonomic sleigh (blue); m = I = 1, "
                                 "a = 1/5;\nstart at the origin, phi0 = pi, u0 = -1.5, omega0 = 1, v0 = 0; "
                                 f"t in [0, {SLEIGH_T:g}]")
    distance = {}
    for ax, eps in zip(axes, PAPER_EPS):
        sol = runs["friction"][eps]
        ax.plot(ref["x"], ref["y"], color=BLUE, lw=1.6, label="nonholonomic")
        ax.plot(sol["x"], sol["y"], color=RED, lw=1.2, label="friction")
        ax.plot(0, 0, "ko", ms=3)
        d = np.hypot(sol["x"] - ref["x"], sol["y"] - ref["y"])
        distance[eps] = {f"t={t:g}": float(np.interp(t, sol.t, d)) for t in (2.0, 5.0, 10.0, SLEIGH_T)}
        ax.set_title(f"eps = {eps:g}: distance at t = {SLEIGH_T:g}: {d[-1]:.2f}", fontsize=9)
        ax.set_aspect("equal")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    _label_2x2(axes, "x", "y")
    save(fig, path)
    return {"distance": distance}


@figure("eldering_fig7")
def fig7(path: Path) -> dict:
    """Fig. 7: (u, omega) of the nonholonomic (blue), friction (red) sleigh, the paper's first-order
    model X_NH + eps X^(1) (green) and nonholo's ``reduced(eps, order=1)`` (orange). Both first-order
    models start at the fibre base of the friction start and show omega = psi - k v with their
    first-order slip v."""
    import matplotlib.pyplot as plt

    runs, numbers = sleigh_runs(), first_order_distances()["u_omega"]
    ref = sf.view(runs["nh"])
    fig, axes = _panel_grid(plt, "Eldering Fig. 7: (u, omega); nonholonomic (blue), friction (red), the paper's "
                                 "first-order model X_NH + eps X^(1) (green),\nnonholo's first-order reduced model "
                                 "(orange, dashed); same start and time span as Fig. 5;\nboth first-order models "
                                 "start at the fibre base of the friction start")
    for ax, eps in zip(axes, PAPER_EPS):
        fr, red, pap = sf.view(runs["friction"][eps]), sf.view(runs["reduced"][eps]), runs["paper"][eps]
        _first_order_panel(ax, (ref.u, ref.omega), (fr.u, fr.omega), (pap.u, pap.omega), (red.u, red.omega))
        d = numbers[eps]
        ax.set_title(f"eps = {eps:g}; max distance to friction for t >= {LAYER_END:g}:\n"
                     f"nonholonomic {d['max_dist_nh']:.3f}, paper's model {d['max_dist_paper']:.4f}, "
                     f"nonholo's {d['max_dist_first_order']:.4f}", fontsize=9)
        ax.set(xlim=(-2.2, 2.2), ylim=(-0.1, 2.2), xticks=[-2, -1, 0, 1, 2], yticks=[0, 1, 2])
    axes[0].legend(fontsize=7.5, loc="upper left")
    _label_2x2(axes, "u", "omega")
    save(fig, path)
    return dict(numbers, colors=curve_colors(FIRST_ORDER_CURVES))


@figure("eldering_fig8")
def fig8(path: Path) -> dict:
    """Fig. 8: the contact-point trajectories of the Fig. 7 orbits."""
    import matplotlib.pyplot as plt

    runs, numbers = sleigh_runs(), first_order_distances()["xy"]
    ref = runs["nh"]
    fig, axes = _panel_grid(plt, "Eldering Fig. 8: contact point of the Fig. 7 orbits: nonholonomic (blue), friction "
                                 "(red),\nX_NH + eps X^(1) (green, the paper's model), nonholo's first-order reduced "
                                 "model (orange, dashed)")
    for ax, eps in zip(axes, PAPER_EPS):
        fr, red, pap = runs["friction"][eps], runs["reduced"][eps], runs["paper"][eps]
        _first_order_panel(ax, (ref["x"], ref["y"]), (fr["x"], fr["y"]), (pap.x, pap.y), (red["x"], red["y"]))
        d = numbers[eps]
        ax.set_title(f"eps = {eps:g}; max distance to friction:\nnonholonomic {d['max_dist_nh']:.2f}, paper's model "
                     f"{d['max_dist_paper']:.3f}, nonholo's {d['max_dist_first_order']:.3f}", fontsize=9)
        ax.set_aspect("equal")
    axes[0].legend(fontsize=7.5)
    _label_2x2(axes, "x", "y")
    save(fig, path)
    return dict(numbers, colors=curve_colors(FIRST_ORDER_CURVES))


# The curves of Figs. 7 and 8: key -> (colour, line width, line style, legend label).
FIRST_ORDER_CURVES = {"nonholonomic": (BLUE, 1.6, "-", "nonholonomic"),
                      "friction": (RED, 1.4, "-", "friction"),
                      "paper": (GREEN, 1.2, "-", "X_NH + eps X^(1) (paper's first-order model)"),
                      "reduced": (ORANGE, 1.0, "--", "reduced, order 1 (nonholo's first-order model)")}


def curve_colors(curves: dict) -> dict:
    """Colour name (as a reader says it: 'tab:green' -> 'green') -> legend label of each curve."""
    return {color.split(":")[-1]: label for color, *_, label in curves.values()}


def _first_order_panel(ax, nonholonomic, friction, paper, reduced) -> None:
    """One panel of Figs. 7 and 8: four curves, each an (abscissa, ordinate) pair."""
    for key, xy in zip(FIRST_ORDER_CURVES, (nonholonomic, friction, paper, reduced)):
        color, lw, ls, label = FIRST_ORDER_CURVES[key]
        ax.plot(*xy, color=color, lw=lw, ls=ls, label=label)
    ax.grid(alpha=0.3)


@figure("eldering_fig6")
def fig6(path: Path) -> dict:
    """Fig. 6, from computed data: the sleigh's slow manifold D_eps as the surface
    v = h_eps(u, psi) over D = {v = 0}, the reduced vector field on it, fast fibres of the
    friction model, and their exponential approach at the rate alpha/eps."""
    import matplotlib.pyplot as plt

    c = constants()
    eps, order = FIG6_EPS, FIG6_ORDER
    grid = np.linspace(-2, 2, 31)
    Uu, Psi = np.meshgrid(grid, grid)
    H = slow_manifold_slip(Uu, Psi, eps, order)
    fibres = fast_fibres(eps)

    fig = plt.figure(figsize=(14, 6.2))
    ax = fig.add_subplot(1, 2, 1, projection="3d")
    ax.plot_surface(Uu, Psi, H, cmap="viridis", alpha=0.45, linewidth=0, antialiased=True)
    ax.plot_wireframe(Uu, Psi, 0 * H, rstride=5, cstride=5, color="0.45", lw=0.5)
    arrows = np.linspace(-1.6, 1.6, 7)
    for u in arrows:
        for psi in arrows:
            f = reduced_field(u, psi, eps, order)
            ax.quiver(u, psi, float(slow_manifold_slip(u, psi, eps, order)), *f, length=0.35, normalize=True,
                      color="k", lw=0.7, arrow_length_ratio=0.35)
    for fb in fibres:
        v = fb["view"]
        ax.plot(v.u, v.psi, v.v, color=RED, lw=1.6)
        ax.plot([v.u[0]], [v.psi[0]], [v.v[0]], "o", color=RED, ms=4)
        (u0, psi0, v0), (ub, pb, hb) = fb["start"], fb["base"]
        ax.plot([u0, ub], [psi0, pb], [v0, hb], color="k", ls="--", lw=1.0)   # fibre (to first order)
        ax.plot([ub, ub], [pb, pb], [hb, 0.0], color="tab:orange", ls="-", lw=2.6)  # pr: D_eps -> D
        ax.plot([ub], [pb], [0.0], "s", color="tab:orange", ms=5)
    ax.set(xlabel="u", ylabel="psi", zlabel="v (slip)", xticks=[-2, -1, 0, 1, 2], yticks=[-2, -1, 0, 1, 2],
           zticks=[-1, 0, 1])
    ax.tick_params(labelsize=8, pad=1)
    ax.view_init(elev=22, azim=-58)
    ax.set_title(f"D_eps: v = h_eps(u, psi) (order {order}, eps = {eps:g}) over D = {{v = 0}} (grey);\n"
                 "arrows: reduced field; red: friction runs from off D_eps; dashed: fast fibres to their base "
                 "points\non D_eps; orange (thick, square at the foot): the projection pr onto D", fontsize=9)

    ax2 = fig.add_subplot(1, 2, 2)
    for fb in fibres:
        v = fb["view"]
        ax2.semilogy(v.t[1:] / eps, fb["distance"][1:], color=RED, lw=1.0)
    d0 = max(abs(fb["start"][2] - slow_manifold_slip(*fb["start"][:2], eps, order)) for fb in fibres)
    tt = np.linspace(0, 15, 50)
    ax2.semilogy(tt, d0 * np.exp(-c.mu * c.alpha * tt), "k--", lw=1.0,
                 label=f"exp(-alpha t/eps), alpha = (I + m a^2)/(I m) = {c.alpha:.2f}")
    floor = max(fb["distance"][fb["view"].t >= 10 * eps].max() for fb in fibres)
    ax2.axhline(floor, color="0.5", lw=0.8, ls=":", label=f"largest value for t >= 10 eps: {floor:.1e}")
    ax2.set(xlabel="t / eps", ylabel="|v - h_eps(u, psi)|", xlim=(0, 15),
            title="distance to D_eps along the friction runs: attraction at the rate alpha/eps,\n"
                  f"until it reaches the size of the truncated series' error, O(eps^{order + 1})")
    ax2.title.set_fontsize(9)
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3, which="both")
    save(fig, path)
    rates = fibre_decay_rates(fibres, eps)
    return {"decay_rates_times_eps": rates, "alpha": c.alpha, "floor": float(floor),
            "base_shift": [float(np.hypot(fb["start"][0] - fb["base"][0], fb["start"][1] - fb["base"][1]))
                           for fb in fibres]}


@figure("eldering_errata")
def fig_errata(path: Path) -> dict:
    """Why the printed (19) and the printed phi component of X^(1) fail: their error against the
    friction sleigh does not fall like eps^2."""
    import matplotlib.pyplot as plt

    rows = errata_table()
    eps = np.array(sorted(rows))
    fig, ax = plt.subplots(figsize=(7.5, 5.5))
    styles = {"nonholonomic": (BLUE, "o-"), "first order, corrected": (GREEN, "s-"),
              "first order, printed phi sign": (GREEN, "s:"), "(19) printed": ("tab:purple", "^:"),
              "(19) corrected": ("tab:purple", "^-")}
    slopes = errata_slopes(rows)
    for name in ERRATA_MODELS:
        e = np.array([rows[x][name] for x in eps])
        finite = np.isfinite(e)
        color, style = styles[name]
        ax.loglog(eps[finite], e[finite], style, color=color, label=f"{name}: slope {slopes[name]:.2f}")
    ax.set(xlabel="eps", ylabel="error at t = 10 (max over x, y, phi, u, psi)",
           title="Eldering's printed signs against the friction sleigh (slopes fitted over eps <= 0.02)\n"
                 "(19) with the printed '+' and X^(1) with the printed phi sign converge only like eps")
    ax.title.set_fontsize(9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    save(fig, path)
    return {"rows": rows, "slopes": slopes, "appendix_a": appendix_a_errata()}


@figure("eldering_convergence")
def fig_convergence(path: Path) -> dict:
    """Errors of the reduced models of order K against the friction model: slopes K + 1."""
    import matplotlib.pyplot as plt

    studies = {"sleigh": sleigh_convergence(), "pendulum": pendulum_convergence()}
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    nh.plot.convergence(studies["sleigh"], ax=axes[0])
    axes[0].set_title("sleigh: u0 = -1.5, psi0 = 1, t in [0, 10], friction started on D_eps", fontsize=9)
    nh.plot.convergence(studies["pendulum"], ax=axes[1])
    axes[1].set_title("friction pendulum: rest at theta = -pi/4, t in [0, 3], started on D_eps", fontsize=9)
    fig.suptitle("Reduced models of order K (0 = nonholonomic) against the friction model: max error of (q, u) "
                 "over 11 times; dashed: slope K + 1", fontsize=10)
    save(fig, path)
    return {name: {"eps": s.eps.tolist(), "errors": {K: v.tolist() for K, v in s.errors.items()},
                   "slopes": s.slopes, "slip_slopes": s.slip_slopes} for name, s in studies.items()}


@figure("eldering_caratheodory")
def fig_caratheodory(path: Path) -> dict:
    """Carathéodory's start: the friction sleigh from v0 = 0.5 follows the nonholonomic motion
    from psi0 = omega0 + k v0, not from omega0."""
    import matplotlib.pyplot as plt

    c = constants()
    runs = caratheodory_runs()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    t, naive, proj = runs["t"], runs["naive"], runs["projected"]
    ax1.plot(t, naive.omega, color=BLUE, ls=":", lw=1.6, label="nonholonomic from omega0 = 1 (naive)")
    ax1.plot(t, proj.omega, color="lightsteelblue", lw=4,
             label=f"nonholonomic from psi0 = omega0 + k v0 = {1 + c.k * 0.5:.4f}")
    for (eps, v), color in zip(runs["friction"].items(), (RED, "darkred")):
        ax1.plot(v.t, v.omega, color=color, lw=1.3, label=f"friction omega, eps = {eps:g}")
        ax1.plot(v.t, v.psi, color=color, lw=1.0, ls="--", label=f"friction psi = omega + k v, eps = {eps:g}")
    ax1.set(xlabel="t", ylabel="omega", title="initial layer: v0 = 0.5 relaxes in time ~eps/alpha; psi is "
                                              "untouched by friction")
    ax1.title.set_fontsize(9)
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    rows = caratheodory_table(CARATHEODORY_EPS)
    eps = np.array(sorted(rows))
    labels = {"naive": "nonholonomic from (u0, omega0): naive",
              "projected": "nonholonomic from the projection onto D (psi0 = omega0 + k v0)",
              "fibre_base_nh": "nonholonomic from the base point of the fast fibre (first order)",
              "fibre_base_order1": "first-order reduced model from that base point"}
    for key, style in (("naive", "o:"), ("projected", "o-"), ("fibre_base_nh", "s-"), ("fibre_base_order1", "d-")):
        ax2.loglog(eps, [rows[e][key] for e in eps], style, label=labels[key])
    ax2.set(xlabel="eps", ylabel="error at t = 5 (max over x, y, phi, u, omega)",
            title="Caratheodory's initial data: naive start O(1) wrong, projected start O(eps)")
    ax2.title.set_fontsize(9)
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3, which="both")
    save(fig, path)
    return {"rows": rows, "labels": labels}


FOOTNOTE6_COLORS = ("tab:purple", "tab:brown", "tab:cyan")


@figure("eldering_section6")
def fig_section6(path: Path) -> dict:
    """Section 6: Theorem 3(iii) measured on the sleigh (velocities and positions on separate axes),
    footnote 6 (the potential realization is not uniform in time either) and the noncompact
    counterexample with the corrected chi."""
    import matplotlib.pyplot as plt

    th3, fn6, ce = theorem3_pseudo_solution(), footnote6_phase_drift(), noncompact_counterexample_runs()
    fig, axes = plt.subplots(2, 2, figsize=(13.5, 10.5))
    eps = np.array(sorted(th3["rows"]))
    rows = th3["rows"]
    window = f"[{th3['t0']:g}, {th3['t_end']:g}]"
    panels = {
        (0, 0): ("velocity off D; pseudo-solution defect",
                 (("off_D", f"max over {window} of |v - P v| (velocity off D)", "o-"),
                  ("defect", f"max over {window} of |dxbar/dt - X_NH(xbar)| (pseudo-solution defect)", "s-"))),
        (0, 1): ("distance of the contact point (x, y)",
                 (("gap_t0", f"to the nonholonomic solution at t = {th3['t0']:g}", "^-"),
                  ("gap_end", f"to the nonholonomic solution at t = {th3['t_end']:g}", "v-")))}
    labels = {}
    for (i, j), (ylabel, curves) in panels.items():
        ax = axes[i, j]
        for key, label, style in curves:
            ax.loglog(eps, [rows[e][key] for e in eps], style, label=label)
            labels[key] = label
        ax.set(xlabel="eps", ylabel=ylabel, xticks=list(eps))
        ax.set_xticklabels([f"{e:g}" for e in eps])
        ax.minorticks_off()
        ax.legend(fontsize=7.5)
        ax.grid(alpha=0.3, which="both")
    axes[0, 0].set_title(f"Theorem 3(iii), sleigh: the friction solution stays uniformly O(eps) near\nits "
                         f"projection xbar = (q, P v) onto D (slopes {th3['slopes']['off_D']:.2f}, "
                         f"{th3['slopes']['defect']:.2f})", fontsize=9)
    axes[0, 1].set_title("the same runs: the distance to the nonholonomic solution\nis O(eps) at each t but grows "
                         "with t", fontsize=9)
    ax = axes[1, 0]
    t = fn6["t"]
    lag = fn6["rate_over_eps_l3"]
    for e, color in zip(sorted(lag, reverse=True), FOOTNOTE6_COLORS):
        ax.plot(t, -fn6["phase_error"][e] / (e * FOOTNOTE6_L**3), lw=1.2, color=color,
                label=f"eps = {e:g}: lag grows at {lag[e]:.3f} eps l^3 per unit time")
    ax.plot(t, 2 * t, "k--", lw=1.0, label="2 t: the estimate 2 eps l^3 t (from r ~ 1 + eps l^2; not in the paper)")
    ax.set(xlabel="t", ylabel="phase lag (l t - theta) / (eps l^3)")
    ax.set_title(f"footnote 6: potential realization, no gravity, tangential speed l = {FOOTNOTE6_L:g};\n"
                 "the phase lag behind the constrained motion theta = l t grows with t (the paper gives no rate)",
                 fontsize=9)
    ax.legend(fontsize=7.5)
    ax.grid(alpha=0.3)
    ax = axes[1, 1]
    y0s = sorted(ce["nh"])
    for e in sorted({e for _, e in ce["friction"]}, reverse=True):
        ax.semilogy(y0s, [ce["off_D"][(y0, e)] for y0 in y0s], "o-", label=f"friction, eps = {e:g}")
    moved = max(float(np.abs(q[:, -1] - q[:, 0]).max()) for q in ce["printed_nh"].values())
    ax.set(xlabel="y(0)  (x(0) = 0.1, at rest)",
           ylabel=f"max over t in [0, {ce['t'][-1]:g}] of |A(q) v| (constraint violation)", xticks=y0s)
    ax.set_title("noncompact counterexample: V = -x^2, D turns from d/dx to d/dy across 0 <= x - y <= 1;\n"
                 "the constraint violation has no bound uniform in the start (|A v| is between\n"
                 "1/sqrt(2) and 1 times the distance of v to D); with the printed chi the\n"
                 f"nonholonomic particle never moves (by {moved:.0e})", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    fig.suptitle("Eldering section 6: what Theorem 3 promises, and where uniformity fails", fontsize=10.5)
    save(fig, path, rect=(0, 0, 1, 0.97))
    return dict(theorem3={e: {k: v for k, v in r.items() if k != "gap"} for e, r in rows.items()},
                theorem3_slopes=th3["slopes"], theorem3_window=(th3["t0"], th3["t_end"]),
                footnote6=fn6["rate_over_eps_l3"], counterexample=ce["off_D"],
                printed_moves=moved, labels=labels, colors=list(FOOTNOTE6_COLORS))
