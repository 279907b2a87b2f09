"""The ``figures/REPORT.md`` section of ``lewis_murray``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import (
    DELTA_ROW, FIT_BOUNDS, MODE_LABELS, MODES, OMEGA, TABLE1_CASES, TABLE1_PRINTED, VAK_EXIT_NOTE, VAK_REFERENCE_NOTE)


# ----------------------------------------------------------------------------------- report
def _period_remark(tab: dict, fit: dict | None) -> str:
    spread = {mode: max(abs(r["period"] - 7 * np.pi / OMEGA) for r in rows) for mode, rows in tab.items()}
    text = ("The experiment's period, 4.38 s, is 6% shorter than the period of every row of Table 1 we computed. Over "
            f"those five rows the period stays within {spread['paper_compatible']:.3f} s of 7 pi/Omega = "
            f"{7 * np.pi / OMEGA:.4f} s in the paper-compatible mode (derived mode: {spread['derived']:.3f} s, with "
            "the ball far off the plate). That is a statement about these five settings, not about every friction "
            "setting")
    if fit:
        periods = ", ".join(f"{fit['fits'][m]['predicted'][0]:.3f} s ({m.replace('_', '-')})" for m in fit["modes"])
        text += (f": the fits of the next section have periods t_5/5 = {periods}; the paper-compatible one is "
                 "inflated by an anomalous fifth loop (per-loop times in the next section)")
    return text + ". We do not tune the period (note section 6 item 6).\n"


def _loops_remark(fits: dict, modes) -> str:
    """Per-loop return times of each fit, the mean of loops 1-4 beside t_5/5, and what the count of
    returns within 60 s says (a fit without loop times: nothing)."""
    parts = []
    for mode in modes:
        loops = fits[mode].get("loops")
        if not loops:
            continue
        first5 = np.asarray(loops[:5], float)
        regular = np.ptp(first5) < 0.05
        more = int(np.isfinite(loops).sum()) > 5
        parts.append(
            f"{MODE_LABELS[mode]}: loop times " + ", ".join(f"{v:.3f}" for v in first5) + " s"
            + (f" (regular; t_5/5 = {first5.mean():.3f} s)" if regular else
               f"; the first four average {first5[:4].mean():.3f} s, the fifth takes {first5[4]:.3f} s, so t_5/5 = "
               f"{first5.mean():.3f} s is inflated by one anomalous loop"
               + ("" if more else "; it is the last: the orbit does not return to the ray a sixth time within 60 s")))
    return ("Per-loop return times at the optima: " + "; ".join(parts) + ".\n") if parts else ""


def table1_agreement(rows) -> dict:
    """The largest differences between computed and printed Table 1 entries over ``rows``: period (s)
    and d_i (cm)."""
    return dict(period=max(abs(r["period"] - TABLE1_PRINTED[r["case"]][0]) for r in rows),
                d=max(float(np.abs(np.subtract(r["d"], TABLE1_PRINTED[r["case"]][1])).max()) for r in rows))


def _agreement(rows) -> str:
    a = table1_agreement(rows)
    up = {key: np.ceil(value * 1000) / 1000 for key, value in a.items()}  # a bound: rounded up
    return (f"every printed period within {up['period']:.3f} s of ours and every printed d_i within {up['d']:.3f} cm "
            f"(largest differences {a['period']:.4f} s and {a['d']:.4f} cm; the printed entries have two decimals)")


def _fmt_d(d):
    return " | ".join("-" if not np.isfinite(v) else f"{round(v, 3) + 0.0:.3f}" for v in d)


def _table1_markdown(tables: dict) -> list:
    lines = ["| case | source | period (s) | d1 | d2 | d3 | d4 | d5 |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    period, d = TABLE1_PRINTED["Experiment"]
    lines.append(f"| Experiment | paper | {period} | " + " | ".join(f"{v}" for v in d) + " |")
    for k, (case, _) in enumerate(TABLE1_CASES):
        period, d = TABLE1_PRINTED[case]
        lines.append(f"| {case} | paper | {period} | " + " | ".join(f"{v}" for v in d) + " |")
        for mode in MODES:
            row = tables[mode][k]
            note = f" (beyond the plate from crossing {row['leaves_plate']})" if row["leaves_plate"] else ""
            lines.append(f"| | ours, {mode.replace('_', '-')}{note} | {row['period']:.4f} | {_fmt_d(row['d'])} |")
    return lines


def _table1_scope(scope, scan) -> list:
    if not scope:
        return []
    rows = scope["rows"]
    worst_t = max(r["time_difference"] for r in rows)
    worst_r = max(r["radius_difference"] for r in rows)
    delta = next(r for r in rows if r["case"] == DELTA_ROW)
    derived = ", ".join(f"r = {r:g}: " + ", ".join(f"{v:.1f}" for v in radii)
                        for r, radii in delta["radii_derived_term"].items())
    lines = ["**What Table 1 establishes, and what it does not.** Divided by J = I + m r^2 = (7/5) m r^2, the "
             "printed (3.6) carries mu/J and the printed rolling term delta m g/J, both proportional to 1/r^2 (the "
             "nu term nu r^2/J does not depend on r). So r = 2.54 cm with (mu, delta) is the same motion as r = 1.27 "
             f"cm with (mu/4, delta/4): computed for all five rows, the crossing times agree to {worst_t:.0e} s and "
             f"the radii to {worst_r:.0e} cm (`tests/test_lewis_murray.py::test_table1_fixes_the_sign_not_the_radius`"
             "). The table fixes mu/r^2 and delta/r^2, so it is reproduced by r = 2.54 cm with the printed mu = 6, "
             "delta = 0.005, or equally by the true radius 1.27 cm with mu = 1.5, delta = 0.00125; it does not show "
             "which radius the authors used. The derived (dissipative) rolling term enters as delta m g r^2/J, "
             f"independent of r; at the printed delta = 0.005 it gives crossing radii {derived} cm in the delta row, "
             "against the printed 11.48 .. 18.22 cm."]
    if scan:
        d, p = scan["derived"], scan["paper_compatible"]
        lines[0] += (f" Nor does another delta help (figure below): over {len(d['delta'])} values of delta from "
                     f"{d['delta'][0]:g} to {d['delta'][-1]:g}, the derived term's d_i never come within "
                     f"{np.floor(d['min_distance'] * 10) / 10:.1f} cm of the printed row (smallest max_i |d_i - "
                     f"printed d_i| {d['min_distance']:.3f} cm, at delta = {d['delta_at_min']:.2g}, the lower end of "
                     "the scan; as delta -> 0 the d_i tend to 0, 1.75 cm from the row), while the printed term comes "
                     f"within {p['min_distance']:.3f} cm at delta = {p['delta_at_min']:.2g}. With mu = nu = 0 the "
                     "derived motion does not depend on r, so this holds at every radius: the table fixes the sign "
                     "of the rolling term.")
        lines += ["![delta row scan](lewis_murray_delta_scan.png)"]
    return [line + "\n" for line in lines]


def _realizing(f) -> list:
    if not f:
        return []
    vak = max(f["vakonomic"].values())
    return ["### Section 2.4 (Fig. 3): realizing a constraint by inertia and by damping\n",
            "![realizing constraints](lewis_murray_fig3_realizing.png)\n",
            "Paper: x = 0 in the mechanism of Fig. 3 is imposed by letting the mass M grow (the vakonomic limit) or "
            "the "
            "damping c grow (the nonholonomic limit); both limits give the same motion since the constraint is "
            "holonomic (Prop. 2.8), and neither converges uniformly in time. The paper gives no equations; ours "
            "(`nonholo.systems.damped_mass_pair`, our reading of the figure): masses M at x and m at y joined by a "
            "spring k, a dashpot c on M, m = k = 1, from x = 0, y = 1 at rest; the limit motion is x = 0, y = cos t "
            f"(the nonholonomic model's distance to it: {f['limit_error']:.0e}). Measured over t in [0, "
            f"{f['t_end']:g}]: the largest |y - cos t| falls like 1/M (fitted slope {f['mass_slope']:.2f} over M/m = "
            f"{', '.join(f'{v:g}' for v in f['mass_max'])}) and like 1/c (slope {f['damping_slope']:.2f} over "
            f"c = {', '.join(f'{v:g}' for v in f['damping_max'])}); at M/m = 1000 it is "
            f"{f['mass_max'][1000.0]:.1e} over [0, {f['t_end']:g}] but {f['mass_early'][1000.0]:.1e} over the "
            f"first tenth, and at c = 1000 {f['damping_max'][1000.0]:.1e} against "
            f"{f['damping_early'][1000.0]:.1e}: the deviation grows with t (a phase drift for large M, a slow "
            "energy loss for large c), so neither limit is uniform in time. **Prop. 2.8** (holonomic constraints: "
            "nonholonomic and vakonomic motions coincide): the vakonomic model of x' = 0 from lambda(0) = "
            f"{', '.join(f'{v:g}' for v in f['vakonomic'])} stays within {vak:.0e} of the nonholonomic motion. "
            "Tests: `tests/test_lewis_murray.py::test_realizing_constraints_limits_and_prop_2_8`, "
            "`tests/test_vakonomic.py` (Prop. 2.8 on an integrable distribution).\n"]


def _case3(f) -> list:
    if not f:
        return []
    small, wide = f[min(f)], f[max(f)]
    return ["### Section 3.3, case 3: the eigenvalues the paper calls complicated\n",
            "![case 3](lewis_murray_case3_eigenvalues.png)\n",
            "Paper: with delta = 0 and mu, nu > 0 the eigenvalues are alpha1 +- i beta1, alpha2 +- i beta2 with "
            "alpha1 < 0 and the sign of alpha2 undetermined; with nu = 0 alpha2 > 0 was always observed; the study is "
            "called inconclusive. In closed form (roots of J s^2 + (mu + nu r^2 - i I Omega) s - i mu Omega = 0): "
            "alpha2 = 0 exactly when nu I = mu m, i.e. nu* = 5 mu/(2 r^2), and alpha2 > 0 iff nu < nu*, so nu = 0 "
            f"always gives a growing orbit, as observed. At mu = 6: nu* = {small['boundary']:.2f} g/s (r = 1.27 cm) "
            f"and {wide['boundary']:.2f} g/s (r = 2.54 cm); at nu = 0 alpha2 = {small['alpha2_nu0']:.5f} and "
            f"{wide['alpha2_nu0']:.5f} 1/s, alpha1 = {small['alpha1_nu0']:.5f} and {wide['alpha1_nu0']:.5f} 1/s. "
            "nonholo's AD linearization has exactly these eigenvalues "
            "(`tests/test_lewis_murray.py::test_linearization_eigenvalues`, "
            "`test_linearization_eigenvalues_note_values`, "
            "`test_stability_boundary_nu_I_equals_mu_m`, `test_case3_study_crosses_zero_at_the_boundary`).\n"]


@report_section("Lewis and Murray (1995): the ball on a rotating table")
def report(results: dict, output: Path) -> str:
    parts = _realizing(results.get("lewis_murray_fig3_realizing"))
    f5 = results.get("lewis_murray_fig5")
    if f5:
        parts += ["![Fig. 5](lewis_murray_fig5.png)\n",
                  "**Fig. 5** (paper: \"An orbit for the nonholonomic equations of motion with no external forces\"; a "
                  f"circle). Ours: centre ({f5['centre']:.6f}, 0) cm, radius {f5['radius']:.6f} cm, period "
                  f"{f5['period']:.6f} s from the first return (closed form 7 pi/Omega = "
                  f"{f5['period_closed_form']:.6f} "
                  f"s); max distance to the closed form {f5['max_error']:.1e} cm.\n"]
    f8 = results.get("lewis_murray_fig8")
    if f8:
        parts += ["![Fig. 8](lewis_murray_fig8.png)\n",
                  "**Fig. 8** (paper: \"An orbit when delta = mu = 0 and nu = 5.0\"; a stable spiral to a point that "
                  "depends on the initial conditions). Ours: the spiral converges to z_inf = "
                  f"({f8['z_inf'][0]:.4f}, {f8['z_inf'][1]:.4f}) cm of the corrected closed form (the paper's printed "
                  f"solution is wrong, see docs/errata.md); at t = {f8['t_end']:g} s the ball is at "
                  f"({f8['z_end'][0]:.4f}, {f8['z_end'][1]:.4f}); max distance to the closed form "
                  f"{f8['max_error']:.1e} cm.\n"]
    for number, caption, says in [
        (9, "An orbit when delta = nu = 0 and mu = 6.0",
         "a typical orbit with rotational friction only; for nu = 0 the paper always observed alpha2 > 0, a "
         "growing oscillation"),
        (10, "An orbit when mu = nu = 0 and delta = 0.005",
         "a typical orbit of the nonlinear equations with rolling friction")]:
        name = f"lewis_murray_fig{number}"
        f = results.get(name)
        if not f:
            continue
        pc, dv = f["paper_compatible"], f["derived"]

        def leaves(x):
            return f"leaves the plate at t = {x['exit_time']:.2f} s" if x["exit_time"] else "stays on the plate"

        parts += [f"![{name}]({name}.png)\n",
                  f"**Fig. {number}** (paper: \"{caption}\"; {says}). Paper-compatible mode: crossing "
                  f"radii {', '.join(f'{v:.3f}' for v in pc['radii'])} cm, {leaves(pc)}. Derived mode: crossing "
                  f"radii {', '.join(f'{v:.2f}' for v in dv['radii'])} cm, {leaves(dv)}, largest radius "
                  f"{dv['max_radius']:.1f} cm by t = {dv['t_end']:.1f} s.\n"]
    parts += _case3(results.get("lewis_murray_case3_eigenvalues"))
    tab = results.get("lewis_murray_table1")
    if tab:
        parts += ["### Table 1\n", "![Table 1](lewis_murray_table1.png)\n",
                  "Period = t_5/5 and d_i = rho_i - rho_(i-1) (rho_0 = 10 cm) from the first five crossings of the "
                  "positive x-axis in the direction of the orbit at t = 0 (CVODE root finding on the event y = 0, "
                  "direction +1, x > 0). Paper-compatible mode: the rolling term of the printed eq. (3.6) and r = "
                  "2.54 cm (the diameter) in I and every r^2; derived mode: r = 1.27 cm and the rolling term derived "
                  "from the paper's force law (+delta m g r^2 v/|v|). m = 66.926 g, g = 980, Omega = 1.5 pi in both. "
                  "The frictionless and nu rows do not depend on r or on the rolling term, so both modes agree there; "
                  "the mu and delta rows are reproduced only by the paper-compatible mode: "
                  f"{_agreement(tab['paper_compatible'])}. The derived rows leave the 15 cm "
                  "plate; like the paper's own delta row (crossings 4 and 5 at 16.5 and 18.2 cm) they are listed "
                  "anyway. The top-left panel of the figure is the paper's measured row.\n",
                  *_table1_scope(tab.get("scope"), results.get("lewis_murray_delta_scan")),
                  *_table1_markdown({m: [dict(r, d=np.asarray(r["d"])) for r in tab[m]] for m in MODES}),
                  "", _period_remark({m: tab[m] for m in MODES}, results.get("lewis_murray_fit"))]
    fam = {k: results.get(f"lewis_murray_fig{k}") for k in (11, 12, 13)}
    if all(fam.values()):
        parts += ["### Vakonomic motion\n"]
        for k, which, caption in [(11, "lambda1", "lambda2(0) = omega3(0) = 0 and lambda1(0) varying"),
                                  (12, "lambda2", "lambda1(0) = omega3(0) = 0 and lambda2(0) varying"),
                                  (13, "xi3", "lambda1(0) = lambda2(0) = 0 and omega3(0) varying")]:
            ex = fam[k]["exits"]
            note = VAK_EXIT_NOTE[which]
            cells = ", ".join(f"{v:g}: {ex[float(v)]['time']:.3f} s (note {note[v]:.3f})" for v in note)
            wide = fam[k]["exits_by_radius"][max(fam[k]["exits_by_radius"])]
            wide_times = ", ".join(f"{v:g}: {e['time']:.2f} s" for v, e in wide.items())
            parts += [f"![Fig. {k}](lewis_murray_fig{k}.png)\n",
                      f"**Fig. {k}** (paper: \"Vakonomic trajectories with {caption}\"; no numbers given). Drawn for "
                      "both readings of the radius (the paper states a 2.54 cm diameter and not which r these runs "
                      f"used). r = 1.27 cm (left): every run reaches the plate's edge, between "
                      f"{min(e['time'] for e in ex.values()):.3f} and {max(e['time'] for e in ex.values()):.3f} s; "
                      f"exit times {cells}. r = 2.54 cm (right): exit times {wide_times}.\n"]
        wide13 = fam[13]["exits_by_radius"][max(fam[13]["exits_by_radius"])]
        parts.append("**Fig. 13 depends on the radius** (figure above): at r = 2.54 cm the runs with omega3(0) = 9 and "
                     f"10 stay on the plate for {wide13[9.0]['time']:.1f} s and {wide13[10.0]['time']:.1f} s and "
                     "cross the table, while at r = 1.27 cm every run leaves near the start within "
                     f"{max(e['time'] for e in fam[13]['exits'].values()):.2f} s. Figs. 11 and 12 change only "
                     "quantitatively. Which of the two pictures is the paper's cannot be decided from its text.\n")
        ref = fam[13]["reference"]
        rows = "\n".join(f"| {key} | {VAK_REFERENCE_NOTE[key]} | {ref[key]:.6g} |" for key in VAK_REFERENCE_NOTE)
        parts += ["Reference state at t = 1 s (r = 1.27 cm, lambda(0) = 0, xi3(0) = 0; note section 5 item 9), "
                  f"computed by the general vakonomic model (rtol = {ref['rtol']:g}):\n",
                  "| quantity | note | ours |", "|---|---:|---:|", rows, "",
                  f"First exit time {ref['exit_time']:.4f} s (note: 1.025 s). Invariants (note section 5 item 7): "
                  f"E_vak(0) = {ref['E0']:.4f} (note 24587.54), |P|(0) = {ref['P0']:.4f} (note 1432.144); relative "
                  f"drift over [0, 1] s {ref['E_drift']:.1e} and {ref['P_drift']:.1e}; constraint residual "
                  f"{ref['constraint_residual']:.1e}. At t = 0 both invariants have a closed form (lambda(0) = 0, "
                  "xi1(0) = (10 Omega - 5)/r, xi2(0) = xi3(0) = 0): E_vak(0) = m |V0|^2/2 + I xi1(0)^2/2 = "
                  f"{ref['E0_closed_form']:.4f} and |P|(0) = I xi1(0) = {ref['P0_closed_form']:.4f} (the simulated "
                  f"values differ from these by {_relative(ref['E0'], ref['E0_closed_form'])} and "
                  f"{_relative(ref['P0'], ref['P0_closed_form'])}). So the note's E_vak = 24587.54 is "
                  f"{ref['E0_closed_form'] - 24587.54:.3f} low ({(ref['E0_closed_form'] - 24587.54) / 24587.54:.1e} "
                  "relative), beyond its rounding; the note verified the invariants to 6 significant digits only.\n"]
    lem = results.get("lewis_murray_lemma31")
    if lem:
        parts += ["### Lemma 3.1\n", "![Lemma 3.1](lewis_murray_lemma31.png)\n",
                  "Paper: for xi3(0) != Omega and V(0) != 0 no lambda(0) makes the vakonomic motion the nonholonomic "
                  "one. Ours, for the paper's initial state with xi3(0) = 0: the smallest max_t |z_vak - z_nh| over "
                  f"t in [0, {lem['horizon']:g}] s found by a grid over [-{lem['span']:g}, {lem['span']:g}]^2 g cm/s "
                  f"and Nelder-Mead ({lem['nfev']} runs) is {lem['min_deviation']:.4f} cm, at lambda(0) = "
                  f"({lem['lambda_min'][0]:.2f}, {lem['lambda_min'][1]:.2f}) g cm/s ({lem['deviation_at_zero']:.2f} "
                  f"cm at lambda(0) = 0); the same minimum computed with 100 times tighter tolerances differs by "
                  f"{lem['integration_error']:.0e} cm. The spin of that closest motion reaches "
                  f"{lem['spin_deviation']:.1f} rad/s while the nonholonomic spin stays 0. The horizon is our choice "
                  "(about the time the lambda(0) = 0 motion needs to reach the plate's edge); over a longer horizon "
                  "the minimum can only be larger (the maximum over a longer interval is larger for every "
                  "lambda(0)).\n"]
    return "\n".join(parts) + "\n" if parts else "_not generated in this run_\n"


def _relative(value: float, exact: float) -> str:
    """The relative difference of ``value`` from ``exact`` in words, round-off named as such."""
    rel = abs(value / exact - 1)
    return "less than 1e-15 relative (round-off)" if rel < 1e-15 else f"{rel:.0e} relative"


def _rss(d) -> float:
    """Sum of squared differences of drifts ``d`` from the experiment row (cm^2)."""
    return float(np.sum((np.asarray(d) - TABLE1_PRINTED["Experiment"][1]) ** 2))


@report_section("Lewis and Murray (1995): friction fitted to the experiment")
def report_fit(results: dict, output: Path) -> str:
    f = results.get("lewis_murray_fit")
    if not f:
        return "_not generated in this run_\n"
    fits, head = f["fits"], f["headline"]
    period, d = TABLE1_PRINTED["Experiment"]
    rows = [f"| experiment (Table 1) | - | - | {period} | " + " | ".join(f"{v}" for v in d) + " | 0 |"]
    for mode in f["modes"]:
        x = fits[mode]
        rows.append(f"| least squares, {MODE_LABELS[mode]} | {x['x'][0]:.3g} ± {x['stderr'][0]:.2g} | "
                    f"{x['x'][1]:.3g} ± {x['stderr'][1]:.2g} | {x['predicted'][0]:.3f} | "
                    + " | ".join(f"{v:.2f}" for v in x["predicted"][1:]) + f" | {x['rss']:.3g} |")
    for case in ("delta = mu = 0, nu = 5.0", "mu = nu = 0, delta = 0.005"):
        p, dd = TABLE1_PRINTED[case]
        nu = "5.0" if "nu = 5.0" in case else "0"
        delta = "0.005" if "delta = 0.005" in case else "0"
        rows.append(f"| paper's choice, printed row | {nu} | {delta} | {p} | " + " | ".join(f"{v}" for v in dd)
                    + f" | {_rss(dd):.3g} |")
    h, other = fits[head], fits[next(m for m in f["modes"] if m != head)]
    undetermined = [name for name, v, e in zip(("nu", "delta"), h["x"], h["stderr"]) if e >= abs(v)]
    on_bound = [f"{name} at its upper bound {b:g}" for name, hit, b in zip(("nu", "delta"), other["at_bound"],
                                                                          FIT_BOUNDS[1]) if hit]
    return "\n".join([
        "![fit](lewis_murray_fit.png)\n",
        "The paper picks friction coefficients by hand. Here nu and delta (mu = 0) are fitted by least squares to "
        "the measured drifts d_1..d_5, with the Jacobian from the event-time sensitivities of the five returns "
        f"(nonholo.fit), once in each model: the derived one (the rolling term from the paper's force law, r = 1.27 "
        f"cm; docs/errata.md), which is the headline, in {h['nfev']} model runs, and the paper-compatible one (the "
        f"term as printed in (3.6), r = 2.54 cm) in {other['nfev']}. The period is not fitted (see Table 1 above). "
        "Standard errors from the Jacobian at the optimum, scaled by the residual variance. The last column is "
        "the sum of squared differences from the experiment's d_i.\n",
        "| | nu (g/s) | delta | period (s) | d1 | d2 | d3 | d4 | d5 | residual (cm^2) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows, "",
        f"**Derived model (headline):** nu = {h['x'][0]:.3g} g/s, delta = {h['x'][1]:.3g}, residual "
        f"{h['rss']:.3g} cm^2"
        + (f"; the standard error of {' and '.join(undetermined)} is as large as the value, so the five drifts do "
           "not determine it" if undetermined else "")
        + f". **Paper-compatible model:** residual {other['rss']:.3g} cm^2"
        + (f", with {' and '.join(on_bound)}, so its standard error is not a confidence interval" if on_bound else "")
        + f". The measured drifts spread over {np.ptp(d):.2f} cm, the fitted ones over "
        f"{np.ptp(h['predicted'][1:]):.2f} cm (derived) and {np.ptp(other['predicted'][1:]):.2f} cm "
        "(paper-compatible). The periods t_5/5 of the fits are "
        f"{h['predicted'][0]:.3f} s and {other['predicted'][0]:.3f} s against the measured {period} s.\n",
        _loops_remark(fits, f["modes"])])
