"""The ``figures/REPORT.md`` section of ``fedorov_zenkov``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

from ..registry import report_section, run_benchmark
from .experiments import FIG1_ENERGIES, FIG2_STEPS, FIG3_T, LIMIT_STEPS, LONG_H, LONG_T, NOTE_ORDER2, OMEGA0, V0, WP_T


# ------------------------------------------------------------------ REPORT.md
def _g(x, digits=3) -> str:
    return f"{x:.{digits}g}" if x is not None else "-"


def _e(x, digits=2) -> str:
    return f"{x:.{digits}e}"


def _report_fig1(r) -> list:
    rows = r["orbits"]
    worst = max(v["max_energy_error"] for v in rows.values())
    lim = max(v["limit_error"] for v in rows.values())
    inc = min(v["min_p2_increment"] for v in rows.values())
    return [
        "### Fig. 1: momentum dynamics of the unbalanced sleigh (continuous)\n",
        "![Fig. 1](fedorov_zenkov_fig1.png)\n",
        "Paper: the line p1 = 0 is a line of equilibria, stable (filled dots) for p2 > 0 and unstable (empty dots) "
        "for p2 < 0 (Theorem 3). The heteroclinic trajectories are the level curves of the energy (11), "
        "half-ellipses from (0, -p2) to (0, p2). No parameters are given.\n",
        f"Ours: CVODE on `sleigh.nonholonomic()` (J = m = a = 1) from the cusp p2 = 0 at E = "
        f"{', '.join(f'{E:g}' for E in FIG1_ENERGIES)}, forward and backward 30 time units. On all eight orbits the "
        f"energy (11) holds to {_e(worst)} (relative). The orbits end within {_e(lim)} of (0, +-sqrt(2mE)). p2 is "
        f"non-decreasing up to round-off: the smallest increment between output times is {_e(inc)}.\n",
    ]


def _report_fig2(r) -> list:
    lines = [
        "### Fig. 2: the discrete momentum dynamics near the origin\n",
        "![Fig. 2](fedorov_zenkov_fig2.png)\n",
        "Paper: the picture \"clearly resembles the continuous momentum dynamics\", with \"numerical evidence\" of "
        "discrete heteroclinic trajectories from (0, -p2) to (0, p2). This is not proved.\n",
        "Ours: the closed map P (`nonholo.systems.chaplygin_sleigh.discrete.DiscreteSleigh`), J = m = a = 1. Seeds "
        "(+-p, 0) are "
        f"iterated {FIG2_STEPS} times by P and by P^-1. p2 increases along every orbit (smallest increment "
        f"{_e(r['min_p2_increment'])}). The orbits of the seeds +-p are exact mirror images (largest deviation "
        f"{_g(r['mirror_deviation'])}). The limits come from {LIMIT_STEPS} steps each way:\n",
        "| seed p1 | beta (forward) | backward limit | beta + backward | p1 at the ends | continuous sqrt(m/I) p1 "
        "| beta / continuous - 1 | last ratio p1'/p1 | lambda1(beta) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in r["limits"]:
        lines.append(f"| {row['seed']:g} | {row['beta_forward']:.12f} | {row['beta_backward']:.12f} | "
                     f"{_e(row['beta_forward'] + row['beta_backward'])} | "
                     f"{_e(max(abs(row['p1_forward']), abs(row['p1_backward'])))} | {row['continuous']:.6f} | "
                     f"{_e(row['beta_forward'] / row['continuous'] - 1)} | {row['ratio']:.10f} | "
                     f"{row['lambda1']:.10f} |")
    lines += [
        "",
        "The forward and backward limits agree to round-off, so every orbit is a discrete heteroclinic "
        "connection from (0, -beta) to (0, beta), as the note found. beta is slightly smaller than the "
        "continuous limit, with the relative difference growing like p1^2 (like h^2). The tail contracts at "
        "exactly lambda1(beta).\n",
        "**Theorem 6 recomputed.** Below, the Jacobian of P at (0, p2) is taken by central differences "
        "(step 1e-6). The paper predicts diag(lambda1, 1) with lambda1 = 1 - 2 a p2/(2(J + m a^2) + a p2):\n",
        "| (J, m, a) | p2 | lambda1 (finite differences) | lambda2 | lambda1 (formula) | note | off-diagonal | det | "
        "stable |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in r["linearization"]:
        lines.append(f"| ({row['J']:g}, {row['m']:g}, {row['a']:g}) | {row['p2']:g} | {row['lambda1_fd']:.10f} | "
                     f"{row['lambda2_fd']:.10f} | {row['lambda1_formula']:.10f} | {row['lambda1_note']} | "
                     f"{_e(row['off_diagonal'], 1)} | {row['det']:.7f} | {'yes' if row['stable'] else 'no'} |")
    worst = max(abs(row["lambda1_fd"] - row["lambda1_note"]) for row in r["linearization"])
    worst_formula = max(abs(row["lambda1_fd"] - row["lambda1_formula"]) for row in r["linearization"])
    lines += ["", f"Largest difference of the finite-difference lambda1 from the note's 7-digit values: "
                  f"{_e(worst, 1)}; "
              f"from the formula: {_e(worst_formula, 1)}. For p2 > 2I/a (here p2 = 6 > 4) lambda1 is negative: the "
              "orbit is still stable but p1 alternates in sign, which is non-physical. The Theorem 6 window "
              "|p2| < 2I/a is therefore a step-size restriction, h < 2I/(a m |v|). det DP != 1: P does not preserve "
              "area (Corollary 2).\n"]
    return lines


def _report_fig3(r) -> list:
    lines = [
        "### Fig. 3: discrete and continuous trajectories of the contact point\n",
        "![Fig. 3](fedorov_zenkov_fig3.png)\n",
        "Paper: the dots (a generic discrete trajectory) follow the solid continuous curve. \"The discrete "
        "trajectory has a cusp and asymptotically approaches the straight line motions as k -> +inf.\" No "
        "parameters, step or initial data are given.\n",
        f"Ours: the general integrator `sleigh.discrete({r['h']:g})` ({r['N']} steps) against CVODE at rtol 1e-12. "
        f"The CVODE curve matches the closed form to {_e(r['cvode_vs_closed_form'])}.\n",
        f"- The cusp: the continuous one is at t* = {r['t_cusp']:.4f}. The discrete chord reverses direction "
        f"once, at node {r['k_cusp']} (t = {r['k_cusp'] * r['h']:.1f}), and the discrete p2 changes sign between "
        f"nodes {r['k_p2_sign_change'] - 1} and {r['k_p2_sign_change']}.",
        f"- The dots follow the curve: the largest distance of a dot from the continuous curve is "
        f"{_e(r['max_distance_to_curve'])}, about the same as the largest distance at equal times "
        f"({_e(r['max_same_time_distance'])}), reached at t = {r['t_max_distance_to_curve']:g} on the straight part: "
        "not a lag along the curve but a turned asymptote. The closed map run to t = 80 gives a discrete "
        "terminal heading minus theta_inf of "
        + ", ".join(f"{_e(v)} (h = {k:g})" for k, v in r["asymptote_heading_error"].items())
        + ": O(h^2).",
        f"- The asymptote: at t = {FIG3_T:g} the heading is {r['theta_end_discrete']:.5f} (discrete) and "
        f"{r['theta_end_continuous']:.5f} (continuous), against the continuous limit theta_inf = {r['theta_inf']:.5f}. "
        f"The continuous curve is then {_e(r['end_offset_continuous'])} from its asymptote. The last chord divided "
        f"by h is {r['last_chord_over_h']:.5f}, and p2/(m h) tends to {r['V_discrete']:.5f}; the continuous "
        f"terminal speed is V = {r['V']:.5f}.",
        f"- The general integrator equals the closed map (eqs. (22)-(23), section 3.6) to "
        f"{_e(r['general_vs_closed_map'])} in (theta, x, y, p1, p2) over the run. Its discrete constraint residual "
        f"is {_e(r['constraint_residual'])}.\n",
        "**Regression values** (note section 6 item 13). The largest deviation from the note's printed values "
        "(15 digits) is given for each method:\n",
        "| (J, m, a) | h | N | q_N = (theta, x, y) (closed map) | p_N (closed map) | closed map vs note | general vs "
        "note | general vs closed map (whole run) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in r["regression"]:
        lines.append(f"| ({row['J']:g}, {row['m']:g}, {row['a']:g}) | {row['h']:g} | {row['N']} | "
                     f"({', '.join(f'{v:.14g}' for v in row['q_map'])}) | "
                     f"({', '.join(f'{v:.14g}' for v in row['p_map'])}) | "
                     f"{_e(row['map_vs_note'], 1)} | {_e(row['general_vs_note'], 1)} | "
                     f"{_e(row['general_vs_map'], 1)} |")
    o2 = r["order2"]
    lines += ["", "**Order 2** (note section 6 item 11: J = 0.7, m = 1.3, a = 0.4, omega0 = 1, v0 = -1, T = 10). Our "
              "errors are from the general integrator against the closed form and its quadrature; the note's are "
              "from its RK4 reference:\n",
              "| N | q error (ours) | q error (note) | p error (ours) | p error (note) |", "|---|---|---|---|---|"]
    for N, (qe, pe) in o2["table"].items():
        nq, np_ = NOTE_ORDER2[int(N)]
        lines.append(f"| {N} | {_e(qe, 3)} | {_e(nq, 3)} | {_e(pe, 3)} | {_e(np_, 3)} |")
    lines.append(f"\nThe fitted orders are {o2['q_slope']:.3f} (q) and {o2['p_slope']:.3f} (p).\n")
    return lines


def _report_work_precision(wp) -> list:
    ref = wp["reference"]
    lines = [
        "### The discrete integrator against CVODE: work and precision\n",
        "![work-precision](fedorov_zenkov_work_precision.png)\n",
        f"The problem is the Fig. 3 motion on [0, {WP_T:g}] (J = m = a = 1, v0 = {V0:g}, omega0 = {OMEGA0:g}). The "
        "error is the max over [0, 12] of |(x, y, theta) - reference|_inf: at every node of the discrete run, and at "
        "1201 output times (every 0.01, CVODE's interpolation) for CVODE. The reference is the closed form for theta "
        "and its Gauss-Legendre quadrature for (x, y), which changes by "
        f"{_e(ref['quadrature_refined'], 1)} under 4x refinement. CVODE BDF at rtol 1e-13 is "
        f"{_e(ref['cvode_1e13'], 1)} "
        f"off in (x, y) and {_e(ref['cvode_1e13_theta'], 1)} in theta, so it could not have served as the reference "
        "for the tightest runs. Work is counted, not timed: steps, RHS evaluations and Jacobians (CVODE) and Newton "
        "iterations (discrete: each one residual, one AD Jacobian and a 4x4 solve); wall times are measured side "
        "by side in `benchmarks/discrete_sleigh_work_precision.py` (next section). atol = rtol/100.\n",
        "| method | h or rtol | max error | steps | RHS evals | Jacobians | Newton iterations | constraint residual |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in wp["rows"]:
        setting = f"h = {r['setting']:g}" if r["method"] == "discrete" else f"{r['setting']:.0e}"
        lines.append(f"| {r['method']} | {setting} | {_e(r['error'])} | {r['steps']} | {r['rhs'] or '-'} | "
                     f"{r['jac'] or '-'} | {r['newton'] or '-'} | {_e(r['constraint'], 1)} |")
    lines += ["", "The constraint residual column is the discrete constraint |A(q_m) v_m| at the midpoints for the "
              "discrete runs, and the relative |A(q) v| at the output times for CVODE. BDF projects onto the "
              "constraint at every step, but the output times are CVODE's interpolation between projected "
              "steps, so the residual there is at the level of the local error; Adams runs without "
              "projection, so the constraint drifts at the level of rtol.\n",
              "Cheapest run reaching each accuracy (fewest evaluations: RHS evaluations for CVODE, Newton iterations "
              "for the discrete scheme):\n",
              "| target error | discrete | CVODE BDF | CVODE Adams | discrete / best CVODE |", "|---|---|---|---|---|"]
    for target, entry in wp["cheapest"].items():
        cells = []
        for method in ("discrete", "CVODE BDF", "CVODE Adams"):
            r = entry[method]
            cells.append("not reached" if r is None else
                         f"{r['evaluations']} "
                         f"({'h = %g' % r['setting'] if method == 'discrete' else '%.0e' % r['setting']})")
        best = [entry[m_]["evaluations"] for m_ in ("CVODE BDF", "CVODE Adams") if entry[m_] is not None]
        ratio = f"{entry['discrete']['evaluations'] / min(best):.1f}" if entry["discrete"] and best else "-"
        lines.append(f"| {target:g} | " + " | ".join(cells) + f" | {ratio} |")
    disc = [r for r in wp["rows"] if r["method"] == "discrete"]
    at_1e4 = wp["cheapest"][1e-4]
    cvode = [at_1e4[k] for k in ("CVODE BDF", "CVODE Adams") if at_1e4[k] is not None]
    lines += ["", f"Findings. The discrete scheme converges with order {wp['discrete_slope']:.2f} in h ("
              f"{disc[0]['newton'] / disc[0]['steps']:.1f} Newton iterations per step at h = {disc[0]['setting']:g}, "
              f"{disc[-1]['newton'] / disc[-1]['steps']:.1f} at h = {disc[-1]['setting']:g}). CVODE is high order and "
              "adapts "
              "its step: at 1e-4 it needs "
              + (f"{min(r['evaluations'] for r in cvode)} RHS evaluations and {min(r['steps'] for r in cvode)} steps "
                 f"against {at_1e4['discrete']['evaluations']} Newton iterations and {at_1e4['discrete']['steps']} "
                 "steps of the discrete scheme" if cvode and at_1e4["discrete"] else "(not reached)")
              + f". The discrete scheme's smallest error is {_e(disc[-1]['error'])} at h = {disc[-1]['setting']:g} "
              f"({disc[-1]['steps']} steps); CVODE reaches "
              f"{_e(min(r['error'] for r in wp['rows'] if r['method'] != 'discrete'))}. Its advantages are "
              "structural, not speed. It satisfies the discrete constraint to round-off at every step, it is "
              "symmetric (time-reversible), in the balanced case it conserves the momentum exactly "
              "(tests/test_discrete.py), and its long-time energy behaviour is measured below.\n"]
    lines += _benchmark_table()
    return lines


def _benchmark_table() -> list:
    """The wall-time comparison, measured by ``benchmarks/discrete_sleigh_work_precision.py``."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        table = run_benchmark("discrete_sleigh_work_precision.py", Path(tmp) / "table.md")
    if table.startswith("_benchmark failed"):
        return ["", table]
    return ["", "Wall time (`benchmarks/discrete_sleigh_work_precision.py`, medians of interleaved repeats on the "
            "machine that made this report, after checking that each run reaches its target error; the column "
            "'run as' gives the call each method label stands for, the same as in the table above):\n", table]


def _report_long(lt) -> list:
    lines = [
        "### Long runs: energy and position over t in [0, 1000]\n",
        "![long runs](fedorov_zenkov_long_time.png)\n",
        "| system | method | rel. energy error, t <= 100 | rel. energy error, t >= 900 | linear drift of E/E0 per unit "
        "time | "
        "max position error vs closed form | steps |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, rows in lt.items():
        for label, r in rows.items():
            lines.append(f"| {name} | {label} | {_e(r['early'])} | {_e(r['late'])} | {_e(r['drift'])} | "
                         f"{_e(r['position_error'])} | {r['steps']} |")
    knife, sl = lt["knife edge"], lt["sleigh"]
    dk, ds = knife[f"discrete h = {LONG_H:g}"], sl[f"discrete h = {LONG_H:g}"]
    bdf, bdf_s = knife["CVODE BDF rtol 1e-06"], sl["CVODE BDF rtol 1e-06"]
    lines += ["", "Findings, measured:\n",
              f"- Sleigh: every method's energy error stays bounded, because the motion settles onto a straight line "
              f"(p1 -> 0). The discrete error is {_e(ds['early'])} early and {_e(ds['late'])} at the end; the end "
              "value "
              f"is the offset of the discrete terminal momentum beta from the continuous one. CVODE's error freezes "
              f"once its steps become long: BDF at rtol 1e-6 takes {bdf_s['steps']} steps for the whole run. On this "
              "asymptotically stable dynamics a bounded energy error is no advantage. The discrete position error "
              f"grows along the final straight line ({_e(ds['position_error'])} at t = {LONG_T:g}, from an O(h^2) "
              "error "
              f"in the terminal heading and speed), against {_e(bdf_s['position_error'])} for BDF at rtol 1e-6.",
              f"- Knife edge on an inclined plane (periodic velocities, never settles): the discrete energy error is "
              f"bounded, with the same maximum in the first and last tenth of the run ({_e(dk['early'])} and "
              f"{_e(dk['late'])}). CVODE's energy error grows linearly: BDF at rtol 1e-6 goes from {_e(bdf['early'])} "
              f"to {_e(bdf['late'])}, drift {_e(bdf['drift'])} per unit time. At this rate it reaches the discrete "
              f"scheme's bound at t = {dk['late'] / max(abs(bdf['drift']), 1e-300):.0f}; BDF at rtol 1e-8 would take "
              f"about {dk['late'] / max(abs(knife['CVODE BDF rtol 1e-08']['drift']), 1e-300):.0f}.",
              f"- Bounded energy error does not bound the phase or drift error. The discrete knife edge slides down "
              f"the slope at an O(h^2)-wrong mean speed, so its position error grows linearly: "
              f"{_e(dk['position_error'])} at t = {LONG_T:g} in {dk['steps']} steps, against "
              f"{_e(bdf['position_error'])} for BDF at rtol 1e-6 in {bdf['steps']} steps.\n"]
    return lines


def _report_theorem5(r) -> list:
    return ["### Theorem 5: the balanced discrete sleigh runs on a regular polygon\n",
            "![Theorem 5](fedorov_zenkov_theorem5.png)\n",
            "Paper: with a = 0 the discrete momenta are constant and the contact point moves on a circle. Computed by "
            f"the general integrator (h = {r['h']:g}, v0 = -1, omega0 = 3): the turn per step is {r['turn']:.12f} "
            f"(spread {r['turn_spread']:.0e}), the chord {r['chord']:.12f} (spread {r['chord_spread']:.0e}), and "
            f"every vertex lies within {r['vertex_deviation']:.0e} of one circle of radius {r['radius']:.9f}, the "
            f"formula |u|/|sin D| giving {r['radius_formula']:.9f}. The chord is |u|/cos(D/2), not |u| = {r['u']:.6f} "
            "as the proof prints (docs/errata.md; the conclusion stands since both are constant). The continuous "
            f"motion runs on the circle of radius |v0/omega0| = {r['continuous_radius']:.4f}. Tests: "
            "`tests/test_fedorov_zenkov.py::test_theorem5_displacement_length_is_u_over_cos`, "
            "`test_theorem5_polygon_figure_numbers`, "
            "`tests/test_discrete.py::test_balanced_contact_point_is_on_a_regular_polygon`.\n"]


@report_section("Fedorov and Zenkov (2005): the discrete Chaplygin sleigh")
def report(results: dict, output: Path) -> str:
    lines = [
        "Yu. N. Fedorov and D. V. Zenkov, *Dynamics of the discrete Chaplygin sleigh*, DCDS Suppl. 2005. The figures "
        "are recomputed by `papers.fedorov_zenkov` and `notebooks/fedorov_zenkov_2005.ipynb`. The paper "
        "states "
        "no parameters, steps or initial data for any figure. Ours are J = m = a = 1 (J about the centre of mass, "
        "I = J + m a^2 = 2). Fig. 3 starts from theta = x = y = 0 with v0 = -1, omega0 = 0.25, step h = 0.2. "
        "The paper's misprints are in `docs/errata.md` (section \"Fedorov and Zenkov (2005)\").\n",
    ]
    parts = [("fedorov_zenkov_fig1", _report_fig1), ("fedorov_zenkov_fig2", _report_fig2),
             ("fedorov_zenkov_fig3", _report_fig3), ("fedorov_zenkov_work_precision", _report_work_precision),
             ("fedorov_zenkov_theorem5", _report_theorem5), ("fedorov_zenkov_long_time", _report_long)]
    for key, fn in parts:
        if key in results:
            lines += fn(results[key])
        else:
            lines.append(f"_{key} not generated in this run_\n")
    return "\n".join(lines) + "\n"
