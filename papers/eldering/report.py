"""The ``figures/REPORT.md`` section of ``eldering``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import (
    ERRATA_MODELS, FIG6_EPS, FIG6_ORDER, NOTE_CARATHEODORY, NOTE_ENERGY_TABLE, NOTE_FIG1_TABLE, NOTE_PENDULUM_TABLE,
    NOTE_SLEIGH_TABLE, PAPER_EPS, PENDULUM_CONVERGENCE_EPS, energy_loss_table, pendulum_reduced_table, slope)


# ------------------------------------------------------------------ REPORT.md section
def _fmt(x, digits=4) -> str:
    return "blows up" if not np.isfinite(x) else f"{x:.{digits}g}"


def _report_fig1(r) -> list:
    lines = ["### Fig. 1: the pendulum realized three ways\n", "![Fig. 1](eldering_fig1.png)\n",
             "Paper: potential (top) keeps the particle near S^1; friction (middle) lets the 'leaf swirl down' "
             "with r' = O(eps); inertia (bottom) lets r' grow. Recomputed from rest at 45 deg below the horizontal "
             "(x0 > 0), t in [0, 10]; beside the note's RK4 runs:\n",
             "| realization | eps | x range | y range | r(10) | note: y range, r(10) | max abs(r - 1) | max abs(r') |",
             "|---|---|---|---|---|---|---|---|"]
    for (name, eps), (xr, yr, r10) in NOTE_FIG1_TABLE.items():
        e = r["extent"][f"{name}, {eps:g}"]
        lines.append(f"| {name} | {eps:g} | [{e['x'][0]:.2f}, {e['x'][1]:.2f}] | [{e['y'][0]:.2f}, {e['y'][1]:.2f}] "
                     f"| {e['r_end']:.3f} | [{yr[0]:.2f}, {yr[1]:.2f}], {r10:.2f} | {e['max_r_dev']:.3g} | "
                     f"{e['max_r_dot']:.3g} |")
    lines.append("\nThe paper's tick ranges for panels (b) and (c) stop at y = -1.6 and -2.0; the eps = 0.01 curves "
                 "reach y = -1.98 and -6.22 (as in the note's independent RK4 runs, and in "
                 "`tests/test_eldering.py::test_fig1_extents_are_the_notes_and_exceed_the_printed_ticks`). The "
                 "mismatch is unexplained: the paper's stated models, start and time span give the longer curves, "
                 "and its text gives no other settings. The qualitative claims hold: max abs(r - 1)/eps is "
                 "the same for both eps with the potential (O(eps) for all time), r' stays O(eps) with friction "
                 "while r drifts, and with inertia r' grows.\n")
    return lines


def _report_sleigh_figs(results) -> list:
    lines = ["### Figs. 3 and 4: the nonholonomic sleigh\n", "![Fig. 3](eldering_fig3.png) ![Fig. "
                                                             "4](eldering_fig4.png)\n"]
    r3, r4 = results.get("eldering_fig3"), results.get("eldering_fig4")
    if r3:
        lines.append("Paper: orbits are half-ellipses from the negative to the positive u axis (m = I = 1, a = 1/5). "
                     f"Largest deviation of m u^2 + (I + m a^2) omega^2 from its initial value over the eight plotted "
                     f"orbits: {r3['ellipse_error']:.1e}.\n")
    if r4:
        lines.append("Paper: 'the sleigh approaches from the right'. Our orbit (blue in Fig. 3) does; its heading "
                     f"turns by {r4['heading_change']:.4f} rad over t in [-6, 14] (closed form: "
                     f"{r4['heading_change_closed_form']:.4f}); over the whole orbit the turn is "
                     f"pi sqrt((I + m a^2)/m)/a = {r4['heading_change_full_orbit']:.4f} rad (note: 16.02).\n")
    lines += ["### Fig. 5: friction converges to the nonholonomic sleigh, not uniformly in time\n",
              "![Fig. 5](eldering_fig5.png)\n"]
    r5 = results.get("eldering_fig5")
    if r5:
        lines += ["Distance of the friction sleigh's contact point from the nonholonomic one (start on D, v0 = 0):\n",
                  "| eps | t = 2 | t = 5 | t = 10 | t = 14 |", "|---|---|---|---|---|"]
        for eps, d in r5["distance"].items():
            lines.append(f"| {eps:g} | " + " | ".join(f"{d[k]:.3f}" for k in d) + " |")
        at5 = [r5["distance"][eps]["t=5"] for eps in PAPER_EPS]
        lines.append(f"\nAt fixed t the distance falls with eps (fitted slope at t = 5: {slope(PAPER_EPS, at5):.2f}); "
                     "at fixed eps it grows with t: the friction sleigh loses energy and ends slower, so the "
                     "convergence is not uniform in time.\n")
    lines += ["### Fig. 6: the slow manifold D_eps, computed\n", "![Fig. 6](eldering_fig6.png)\n"]
    r6 = results.get("eldering_fig6")
    if r6:
        lines.append("Paper: a schematic. Here D_eps is the computed surface v = h_eps(u, psi) (nonholo's expansion "
                     f"to order {FIG6_ORDER}, eps = {FIG6_EPS}), the reduced field on it, and friction runs from off "
                     "D_eps with their fibre bases. Fitted decay rates of abs(v - h_eps), times eps: "
                     + ", ".join(f"{x:.3f}" for x in r6["decay_rates_times_eps"])
                     + f" (theory: alpha = {r6['alpha']:.3f} to leading order); after the layer the distance "
                     f"is at most {r6['floor']:.1e} for t >= 10 eps, the size O(eps^{FIG6_ORDER + 1}) of the "
                     "truncation error of "
                     "the series; it is a value, not a floor: the curves keep changing (two dip through zero).\n")
    lines += ["### Figs. 7 and 8: the first-order models follow the friction sleigh\n",
              "![Fig. 7](eldering_fig7.png)\n", "![Fig. 8](eldering_fig8.png)\n"]
    r7, r8 = results.get("eldering_fig7"), results.get("eldering_fig8")
    if r7 and r8:
        lines += ["Paper: the green curves, the Taylor-truncated field X_NH + eps X^(1) (text before Fig. 7), converge "
                  "to the red (friction) 'more than linearly'. The green curves here are that field (corrected sign of "
                  "the phi component, see the errata below); nonholo's first-order reduced model "
                  "`reduced(eps, order=1)` (the P-projected dynamics at v = u + eps h^(1)) is drawn beside it in "
                  "orange. The two first-order models differ by O(eps^2) terms of the field and start at the same "
                  "fibre base. Fig. 7 plots omega for all curves (omega = psi - k v with each model's first-order "
                  "slip v = eps h_v^(1)(u, psi)). Max distances to the friction run, in (u, omega) for t >= 1 (after "
                  "the friction run's initial layer, where the friction omega jumps by O(eps) while psi is "
                  "continuous) and in (x, y) over t in [0, 14]:\n",
                  "| eps | (u, omega): NH | (u, omega): paper's X_NH + eps X^(1) | (u, omega): nonholo order 1 | "
                  "(x, y): NH | (x, y): paper's | (x, y): nonholo's | (x, y): paper's vs nonholo's | u(14) friction |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for eps in PAPER_EPS:
            a, b = r7[eps], r8[eps]
            lines.append(f"| {eps:g} | {a['max_dist_nh']:.3g} | {a['max_dist_paper']:.3g} | "
                         f"{a['max_dist_first_order']:.3g} | {b['max_dist_nh']:.3g} | {b['max_dist_paper']:.3g} | "
                         f"{b['max_dist_first_order']:.3g} | {b['paper_vs_nonholo']:.3g} | {a['u_end_friction']:.4f} |")
        s7, s8 = r7["slopes"], r8["slopes"]
        lines.append(f"\nFitted slopes over these four (large) eps, (u, omega) / (x, y): nonholonomic "
                     f"{s7['max_dist_nh']:.2f} / {s8['max_dist_nh']:.2f}, the paper's X_NH + eps X^(1) "
                     f"{s7['max_dist_paper']:.2f} / {s8['max_dist_paper']:.2f}, nonholo's order 1 "
                     f"{s7['max_dist_first_order']:.2f} / {s8['max_dist_first_order']:.2f} (figures above; "
                     "`tests/test_eldering.py::test_fig7_fig8_plot_the_papers_model_beside_nonholos`). Both "
                     "first-order "
                     "models converge 'more than linearly', and their local slopes grow towards 2 as eps decreases "
                     "(the convergence orders below). Over these eps the paper's model is the closer of the two; "
                     "their mutual distance is as large as either model's error, so the figure can only be compared "
                     "with the paper's through the green curve.\n")
    return lines


def _report_section6(results) -> list:
    r = results.get("eldering_section6")
    if not r:
        return []
    th, sl = r["theorem3"], r["theorem3_slopes"]
    t0, t_end = r["theorem3_window"]
    eps = sorted(th)
    ce = r["counterexample"]
    y0s = sorted({y for y, _ in ce})
    ce_eps = sorted({e for _, e in ce})
    return ["### Section 6: Theorem 3(iii), footnote 6 and the noncompact counterexample\n",
            "![section 6](eldering_section6.png)\n",
            "**Theorem 3(iii)** (on [t0, infinity) the friction solution converges uniformly to a curve in D that is "
            "a uniformly O(eps)-pseudo-solution of X_NH), measured on the sleigh from the Fig. 5 start over "
            f"[{t0:g}, {t_end:g}]: the curve is xbar = (q, P v), the projection of the friction solution onto D:\n\n"
            "| eps | " + " | ".join(f"{e:g}" for e in eps) + " |\n|---" * 1 + "|---" * len(eps) + "|\n"
            "| max abs(v - P v) | " + " | ".join(f"{th[e]['off_D']:.3g}" for e in eps) + " |\n"
            "| max pseudo-solution defect abs(dxbar/dt - X_NH(xbar)) | "
            + " | ".join(f"{th[e]['defect']:.3g}" for e in eps) + " |\n"
            f"| distance to the NH solution at t = {t0:g} | " + " | ".join(f"{th[e]['gap_t0']:.3g}" for e in eps)
            + " |\n"
            f"| distance to the NH solution at t = {t_end:g} | "
            + " | ".join(f"{th[e]['gap_end']:.3g}" for e in eps) + " |\n",
            f"Fitted slopes in eps: {sl['off_D']:.2f} (distance to xbar) and {sl['defect']:.2f} (defect), uniform over "
            "the whole window; the distance to the nonholonomic solution from the projected start is O(eps) at "
            f"each fixed t but grows with t (about {th[eps[0]]['gap_end'] / th[eps[0]]['gap_t0']:.0f} times from "
            f"t = {t0:g} to {t_end:g}): the theorem's curve is not the nonholonomic solution. Test: "
            "`tests/test_eldering.py::test_theorem_3_iii_uniform_pseudo_solution`.\n",
            "**Footnote 6** (the paper: with the potential realization the convergence is not uniform in time "
            "either; it gives no rate): the pendulum without gravity in the potential realization (6), started on "
            "S^1 with tangential speed l = 1, turns slower than the constrained motion theta = l t, and its phase "
            "lag l t - theta grows linearly in t. Fitted growth rates of the lag, divided by eps l^3: "
            + ", ".join(f"{v:.3f} (eps = {e:g})" for e, v in sorted(r["footnote6"].items(), reverse=True))
            + ". They tend to 2, the rate of our estimate 2 eps l^3 t (project note, section 2: r ~ 1 + eps l^2, "
            "mean angular velocity l (1 - 2 eps l^2)); the estimate is ours, not the paper's. Test: "
            "`test_footnote_6_phase_error_grows_like_2_eps_l3_t`.\n",
            "**The noncompact counterexample** (V = -x^2 on R^2, D turning from d/dx to d/dy across the band "
            "0 <= x - y <= 1, `nonholo.systems.noncompact_counterexample`, the step chi smoothed by a tanh): from "
            "x(0) = 0.1, y(0) = y0 at rest, the friction model's largest constraint violation max abs(A(q) v), "
            "A = (-chi, 1 - chi) (with abs(A) between 1/sqrt(2) and 1, it lies between 1/sqrt(2) times the distance "
            "of v to D and that distance), is "
            + "; ".join(f"eps = {e:g}: " + ", ".join(f"{ce[(y, e)]:.2f}" for y in y0s) for e in ce_eps)
            + f" for y0 = {', '.join(f'{y:g}' for y in y0s)}: it falls with eps at each start but grows with y0, so "
            "no eps makes it small for every start. With chi and 1 - chi as printed, D = span d/dy where the "
            "narrative needs d/dx and the nonholonomic particle never moves (largest displacement "
            f"{r['printed_moves']:.0e}); docs/errata.md. Test: `test_noncompact_counterexample_and_the_chi_erratum`.\n"]


def _report_tables(results) -> list:
    lines = ["### Convergence orders (note section 6, T1)\n", "![convergence](eldering_convergence.png)\n"]
    rc = results.get("eldering_convergence")
    if rc:
        lines += ["`nh.studies.convergence`: max error of (q, u) over 11 times, friction model started on D_eps; "
                  "least-squares slopes over four eps (expected K + 1):\n",
                  "| system | eps | order 0 (NH) | order 1 | order 2 | order 3 |", "|---|---|---|---|---|---|"]
        for name, s in rc.items():
            slopes = " | ".join(f"{s['slopes'][K]:.2f}" for K in sorted(s["slopes"]))
            pad = " | -" * (4 - len(s["slopes"]))
            lines.append(f"| {name} | {min(s['eps']):g} .. {max(s['eps']):g} | {slopes}{pad} |")
        lines.append("")
    lines += ["### The note's section 6 table and the errata of (19) and X^(1)\n", "![errata](eldering_errata.png)\n"]
    re = results.get("eldering_errata")
    if re:
        lines += ["Errors at t = 10 against the friction sleigh (ours / the note's RK4):\n",
                  "| eps | " + " | ".join(ERRATA_MODELS) + " |", "|---" * (len(ERRATA_MODELS) + 1) + "|"]
        for eps, row in sorted(re["rows"].items(), reverse=True):
            note = NOTE_SLEIGH_TABLE.get(eps)
            cells = [f"{_fmt(row[name])} / {_fmt(note[i]) if note else '-'}" for i, name in enumerate(ERRATA_MODELS)]
            lines.append(f"| {eps:g} | " + " | ".join(cells) + " |")
        lines.append("| slope (eps <= 0.02) | " + " | ".join(f"{re['slopes'][n]:.2f}" for n in ERRATA_MODELS) + " |")
        r = re["rows"]
        lines.append("\nWith the printed '+' in (19) the first-order term adds energy instead of removing it: the "
                     "model blows up at eps = 0.2 and at small eps its error is O(eps) and "
                     f"{r[0.01]['(19) printed'] / r[0.01]['nonholonomic']:.1f} times that of the uncorrected "
                     "nonholonomic model (eps = 0.01). With the printed '-' in the phi component of X^(1) the error "
                     "is O(eps), "
                     f"{r[0.0025]['first order, printed phi sign'] / r[0.0025]['first order, corrected']:.0f}"
                     " times the corrected model's at eps = 0.0025. The corrected forms converge like eps^2. "
                     "Formulas and tests: docs/errata.md.\n")
        ap = re.get("appendix_a")
        if ap:
            lines.append("Appendix A, eqs. (41) and (44), evaluated in the sleigh's G-orthogonal frame at 8 random "
                         "states against (43) with nonholo's Christoffel symbols and against the geodesic equation: "
                         f"corrected signs, largest residuals {ap['41_corrected']:.0e} and {ap['44_corrected']:.0e}; "
                         f"printed signs, {ap['41_printed']:.2f} for the connection (41) and {ap['44_printed']:.2f} "
                         f"for the acceleration (44), twice the largest acceleration {ap['44_scale']:.2f} (the printed "
                         "(44) is the negated acceleration here, since the frame metric is constant). Test: "
                         "`tests/test_eldering.py::test_appendix_a_41_44_printed_and_corrected`.\n")
    lines += ["### Energy lost to friction (note section 5 item 10)\n"]
    rows = energy_loss_table()
    lines += ["From (u0, omega0, v0) = (-1.5, 1, 0) to t = 80 (ours / the note's):\n",
              "| eps | simulated Delta E | predicted | ratio | u_inf simulated | u_inf predicted |",
              "|---|---|---|---|---|---|"]
    for eps, row in rows.items():
        n = NOTE_ENERGY_TABLE[eps]
        lines.append(f"| {eps:g} | {row['simulated']:.4f} / {n[0]:.4f} | {row['predicted']:.4f} / {n[1]:.4f} | "
                     f"{row['ratio']:.3f} / {n[2]:.3f} | {row['u_inf']:.4f} / {n[3]:.4f} | "
                     f"{row['u_inf_predicted']:.4f} / {n[4]:.4f} |")
    lines += ["\nThe ratio tends to 1 with an O(eps) relative error.\n",
              "### Carathéodory's initial data (note T7)\n", "![Caratheodory](eldering_caratheodory.png)\n"]
    rk = results.get("eldering_caratheodory")
    if rk:
        lines += ["Friction sleigh from v0 = 0.5 (u0 = -1.5, omega0 = 1); error at t = 5 (ours / the note's):\n",
                  "| eps | nonholonomic from omega0 (naive) | nonholonomic from psi0 = omega0 + k v0 (projection onto "
                  "D) | nonholonomic from the fast fibre's base point (`fibre_base`) | first-order reduced model from "
                  "that base point | omega at t = 20 eps |", "|---|---|---|---|---|---|"]
        for eps, row in rk["rows"].items():
            n = NOTE_CARATHEODORY.get(eps, ("-", "-"))
            lines.append(f"| {eps:g} | {row['naive']:.4f} / {n[0]} | {row['projected']:.4f} / {n[1]} | "
                         f"{row['fibre_base_nh']:.4f} | {row['fibre_base_order1']:.2e} | "
                         f"{row['omega_after_20eps']:.4f} (psi0 = {row['psi0']:.4f}) |")
        lines.append("\nThe note gives omega(20 eps) = 1.1022 at eps = 0.001.\n")
    lines += ["### The first-order reduced friction pendulum (note section 6 table)\n"]
    table = pendulum_reduced_table()
    lines += ["Errors at t = 3, max over (r, theta, theta'), start at rest on r = 1, theta = -pi/4 (ours / the "
              "note's):\n", "| eps | nonholonomic | first order |", "|---|---|---|"]
    for eps, (e0, e1) in table.items():
        n = NOTE_PENDULUM_TABLE[eps]
        lines.append(f"| {eps:g} | {e0:.3f} / {n[0]} | {e1:.2e} / {n[1]:.1e} |")
    lines.append("\nOver this range the pendulum is not yet asymptotic (local slopes grow towards 1 and 2); the "
                 f"fitted slopes of the convergence figure use eps = {PENDULUM_CONVERGENCE_EPS}.\n")
    return lines


@report_section("Eldering (2016): friction realizes nonholonomic dynamics")
def report(results: dict, output: Path) -> str:
    """Each figure beside what the paper says it shows, and the note's numbers recomputed."""
    lines = ["Every figure of the paper recomputed (`papers.eldering`, `notebooks/eldering_2016.ipynb`). "
             "Initial conditions and time spans the paper does not give are our choices, stated on each figure: "
             "the sleigh (m = I = 1, a = 1/5) starts at the origin with heading pi, u0 = -1.5, omega0 = 1, v0 = 0.\n"]
    if "eldering_fig1" in results:
        lines += _report_fig1(results["eldering_fig1"])
    lines += _report_sleigh_figs(results)
    lines += _report_section6(results)
    lines += _report_tables(results)
    return "\n".join(lines) + "\n"
