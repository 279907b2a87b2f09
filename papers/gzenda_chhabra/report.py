"""The ``figures/REPORT.md`` section of ``gzenda_chhabra``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import (
    ASYMPTOTIC_EPS, ATOL, NOTE_ACCEL, NOTE_EPS, NOTE_POLAR, NOTE_TABLE, POLAR_EPS, RTOL, T, TABLE_COLUMNS,
    lemma4_residuals, note_table, polar_accelerations, polar_slip_ratios, reduced_run, slope)


def _validity_warnings(eps_values, orders=(0, 1)) -> dict:
    """(eps, order) -> the validity warning of the table's reduced runs, for those that have one."""
    import warnings

    out = {}
    for eps in eps_values:
        for K in orders:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run = reduced_run(eps, K, np.array([0.0, T]))
            if run.warnings:
                out[(eps, K)] = run.warnings[0]
    return out


# ------------------------------------------------------------------ REPORT.md section
def _cell(ours: float, note: float) -> str:
    return f"{ours:.4g} / {note:g}"


@report_section("Gzenda and Chhabra: the rolling disk's slow manifold, computed")
def report(results: dict, output: Path) -> str:
    lines = ["The paper (affine-connection derivation of the slow manifold of strong friction) has no figure and no "
             "number; its disk example is symbolic. Everything below is computed by nonholo "
             "(`papers.gzenda_chhabra`, `notebooks/gzenda_chhabra.ipynb`) and set beside the numbers of the "
             "project's note (`papers/notes/003_gzenda_chhabra.md` section 4.9, RK4 with dt <= eps/50). Disk: "
             "m = R = mu = 1, J = 0.5, I = 0.25; theta0 = 0.3, v_theta = 1, v_phi^D = 1; the friction model starts on "
             "the slow manifold of order 3, T = 4.\n"]
    l4 = lemma4_residuals()
    lines += [f"**Errata, computed.** Lemma 4 (Qmat FR# = P_perp): max residual {l4['ours']:.1e} for nonholo's Qmat, "
              f"{l4['printed']:.2f} for the printed (82) (16 random headings). The printed h^(2) (86) and the printed "
              "first-order dynamics (89) have the wrong sign (figures below; docs/errata.md).\n"]
    rs = results.get("gzenda_chhabra_slips")
    lines += ["### Slip velocities against eps\n", "![slips](gzenda_chhabra_slips.png)\n"]
    if rs:
        lines.append(
            f"nh.simulate (CVODE BDF, rtol {RTOL:g}, atol {ATOL:g}) for {len(rs['rows'])} values of eps from 0.2 to "
            f"1e-4. Fitted slopes over the whole range: lateral slip {rs['slopes']['lateral']:.3f}, forward slip "
            f"{rs['slopes']['forward']:.3f}; over eps <= 0.01: {rs['slopes']['lateral, eps <= 0.01']:.4f} and "
            f"{rs['slopes']['forward, eps <= 0.01']:.4f} (predicted 1 and 2; the factor alpha(T) = e^(eps l1 T) bends "
            "the large-eps end). Against the exact slow manifold (eigenvector of the "
            f"rotating-frame matrix, times the simulated rolling rate alpha(T)): max relative deviation "
            f"{rs['max_rel_dev_lateral']:.1e} (lateral) and {rs['max_rel_dev_forward']:.1e} (forward; the forward slip "
            f"is {abs(rs['rows'][-1]['forward']):.1e} at eps = {rs['rows'][-1]['eps']:.0e}). The whole state at "
            "t = 4 agrees with the matrix-exponential solution to "
            f"{rs['max_oracle_error']:.1e} (max abs) at every eps.\n")
    lines += ["### The note's table, recomputed\n"]
    rows = note_table()
    lines += ["At t = 4; each cell is ours / the note's. err(q): Euclidean error of (x, y, phi); err(v_phi): error of "
              "(P v)_phi; models: 0 = nonholonomic, 1 = nonholo's first-order reduced model, 1_paper = the printed "
              "sign of (89) (closed form). Full model: nh.simulate, checked against the matrix exponential.\n",
              "| eps | " + " | ".join(TABLE_COLUMNS) + " | full model vs exp |",
              "|---" * (len(TABLE_COLUMNS) + 2) + "|"]
    for eps, row in rows.items():
        cells = [_cell(row["values"][c], NOTE_TABLE[eps][i]) for i, c in enumerate(TABLE_COLUMNS)]
        lines.append(f"| {eps:g} | " + " | ".join(cells) + f" | {row['oracle_error']:.1e} |")
    eps = np.array(list(rows))
    sl = {c: slope(eps, [rows[e]["values"][c] for e in rows]) for c in TABLE_COLUMNS[2:]}
    lines.append("| slope | | | " + " | ".join(f"{sl[c]:.2f}" for c in TABLE_COLUMNS[2:]) + " | |")
    dev = {(eps, c): abs(row["values"][c] / NOTE_TABLE[eps][i] - 1) for eps, row in rows.items()
           for i, c in enumerate(TABLE_COLUMNS)}
    worst = max(dev, key=dev.get)
    lines.append(f"\nLargest relative difference from the note's entries: {100 * dev[worst]:.2f} % ({worst[1]} at "
                 f"eps = {worst[0]:g}); {sum(d > 0.005 for d in dev.values())} of {len(dev)} entries differ by more "
                 "than 0.5 %. The zeroth-order error is O(eps); the corrected first-order error O(eps^2) in position "
                 "and O(eps^3) in v_phi (the eps^2 term of the slow rate vanishes; over these four large eps the "
                 "fitted slopes are still below 2 and 3, the asymptotic range is below); with "
                 "the printed sign the first-order model is O(eps) and worse than the nonholonomic one. The slips "
                 "tend to their limits -(m R/mu) Omega alpha(T) and -alpha(T)/3.\n")
    flagged = _validity_warnings(NOTE_EPS)
    if flagged:
        lines.append("\n`make figures` prints a SimulationWarning for these runs: " + "; ".join(
            f"eps = {eps:g}, order {K}: \"{message}\"" for (eps, K), message in flagged.items())
            + ". The row is kept because it is the note's; there the zeroth-order model is no longer an "
            "approximation, and its error is not small.\n")
    small = note_table(ASYMPTOTIC_EPS)
    e = list(small)
    local = {c: float(np.log(small[e[-2]]["values"][c] / small[e[-1]]["values"][c]) / np.log(e[-2] / e[-1]))
             for c in ("err1(q)", "err1(v_phi)")}
    lines += ["\nThe asymptotic range, the same runs at smaller eps (not in the note):\n",
              "| eps | err0(q) | err1(q) | err1(v_phi) | full model vs exp |", "|---|---|---|---|---|"]
    lines += [f"| {eps:g} | {r['values']['err0(q)']:.4g} | {r['values']['err1(q)']:.4g} | "
              f"{r['values']['err1(v_phi)']:.4g} | {r['oracle_error']:.1e} |" for eps, r in small.items()]
    lines.append(f"\nLocal slopes from eps = {e[-2]:g} to {e[-1]:g}: {local['err1(q)']:.2f} for err1(q) and "
                 f"{local['err1(v_phi)']:.2f} for err1(v_phi), the orders 2 and 3 stated above.\n")
    lines += ["### Trajectories and the rolling rate\n", "![trajectories](gzenda_chhabra_trajectories.png)\n",
              "![v_phi](gzenda_chhabra_vphi.png)\n"]
    rv = results.get("gzenda_chhabra_vphi")
    if rv:
        lines += ["| eps | slow rate lambda (exact) | order-1 rate -kappa = eps l1 | (P v)_phi(10): friction "
                  "| order 1 | printed (89) | energy(10): friction | printed (89) |",
                  "|---|---|---|---|---|---|---|---|"]
        for eps, r in rv.items():
            v, E = r["v_phi_end"], r["energy_end"]
            lines.append(f"| {eps:g} | {r['slow_rate']:.6f} | {-r['kappa']:.6f} | {v['friction']:.5f} | "
                         f"{v['order 1']:.5f} | {v['printed (89)']:.4f} | {E['friction']:.5f} | "
                         f"{E['printed (89)']:.4f} |")
        lines.append("\nThe first-order model decays at -kappa = eps l1, the exact slow rate to O(eps^3); the printed "
                     "sign makes |v_phi| and the energy grow (from 0.875 + O(eps^2): every reduced model's energy, the "
                     "printed (89)'s included, is that of v = u + eps h1), which the friction force, dissipative "
                     "(dE/dt = -(mu/eps)|A v|^2), cannot do.\n")
    lines += ["### Convergence orders, and the polar disk with a potential\n",
              "![convergence](gzenda_chhabra_convergence.png)\n"]
    rc = results.get("gzenda_chhabra_convergence")
    if rc:
        lines += ["`nh.studies.convergence` (max error of (q, u) over 11 times; slip residuals along the friction "
                  "model); least-squares slopes, expected K + 1:\n",
                  "| system | eps | errors: order 0 | 1 | 2 | 3 | slips: order 0 | 1 | 2 | 3 |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for name, s in rc.items():
            lines.append(f"| {name} | {min(s['eps']):g} .. {max(s['eps']):g} | "
                         + " | ".join(f"{s['slopes'][K]:.2f}" for K in sorted(s["slopes"])) + " | "
                         + " | ".join(f"{s['slip_slopes'][K]:.2f}" for K in sorted(s["slip_slopes"])) + " |")
    ratios, accel = polar_slip_ratios(), polar_accelerations()
    lines += ["\nPolar disk (note section 4.9: q0 = (0.4, 1.5, 0.2, 0), v_theta = 0.8, v_phi = 1.2, T = 1), ours / "
              "the note's:\n",
              "| eps | abs(P_perp v - eps h1)/eps^2 | abs(P_perp v - eps h1 - eps^2 h2)/eps^3 | abs(a - a_(69))/eps | "
              "abs(a - a_(71))/eps^2 |", "|---|---|---|---|---|"]
    for eps in POLAR_EPS:
        r, a = ratios[eps], accel[eps]
        lines.append(f"| {eps:g} | {_cell(r[0], NOTE_POLAR[eps][0])} | {_cell(r[1], NOTE_POLAR[eps][1])} | "
                     f"{a[0]:.3f} / ~{NOTE_ACCEL[0]} | {a[1]:.3f} / ~{NOTE_ACCEL[1]} |")
    lines.append("\nBoth slip ratios tend to constants, as (67) and (68) predict. The columns use nonholo's "
                 "`System.slip`, which solves the invariance equation by Taylor arithmetic through the system's tape "
                 "(docs/errata.md), not the paper's (67)/(68). That the two agree on a curved metric with a potential "
                 "(which the flat, potential-free disk cannot show) is checked term by term at random states of this "
                 "polar disk: (67) and (68) written out with covariant derivatives equal nonholo's h^(1) and h^(2) "
                 "(`tests/test_slow_manifold.py::test_general_eq_68_is_h2_on_a_curved_metric_with_a_potential`), "
                 "and (71) equals nonholo's first-order reduced field plus eps dh1/dt "
                 "(`tests/test_slow_manifold.py::test_first_order_reduced_dynamics_equals_eq_71`). a is "
                 "the exact acceleration of the friction model on vD + eps h1 + eps^2 h2 at t = 0; (71) is the "
                 "acceleration of the full velocity vD + eps h1 (nonholo's reduced model integrates vD = P v: its "
                 "field plus eps dh1/dt).\n")
    return "\n".join(lines) + "\n"
