"""The ``figures/REPORT.md`` section of ``mestdag_crampin``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import CIRCLE_T, ITEM14, OFF_C, VAK_T, frame, item14


# ------------------------------------------------------------------ REPORT.md section
@report_section("Mestdag and Crampin (2010): nonholonomic systems as restricted Euler-Lagrange systems")
def report(results: dict, output: Path) -> str:
    R = frame().structure_functions(np.array([0.7, 0, 0, 0]))
    lines = ["The paper (anholonomic frames; when is a nonholonomic system the restriction of a regular Euler-Lagrange "
             "system, and when are its motions vakonomic) has no figure and no number. Computed by nonholo "
             "(`nonholo.frames`, `papers.mestdag_crampin`, `notebooks/mestdag_crampin.ipynb`) on the note's "
             "reference disk M = 2, R = 0.5, rolling inertia 0.25, heading inertia 0.125, beside the note's numbers "
             "(`papers/notes/004_anholonomic_frames.md` section 5).\n",
             f"**Structure functions by AD** (paper's frame, heading 0.7): R^x_12 = {R[2, 0, 1]:.6f} = -R sin(0.7), "
             f"R^y_12 = {R[3, 0, 1]:.6f} = R cos(0.7); all others zero up to antisymmetry. The paper prints "
             "[X1, X2] without the factor R (docs/errata.md).\n"]
    lines += ["### Nonholonomic and vakonomic motions\n", "![vakonomic](mestdag_crampin_vakonomic.png)\n"]
    rv = results.get("mestdag_crampin_vakonomic")
    r14 = rv["item14"] if rv else item14()
    lines += ["Note item 14 (vakonomic disk from the straight-rolling data, mu(0) = (1.0, 0.5)), at t = 2 (CVODE, "
              "rtol 1e-13), ours / the note's RK4:\n", "| | " + " | ".join(ITEM14) + " |",
              "|---" * (len(ITEM14) + 1) + "|",
              "| ours | " + " | ".join(f"{r14['ours'][k]:.12f}" for k in ITEM14) + " |",
              "| note | " + " | ".join(f"{v:.12f}" for v in ITEM14.values()) + " |",
              "| difference | " + " | ".join(f"{abs(r14['ours'][k] - v):.1e}" for k, v in ITEM14.items()) + " |",
              f"\nHeading acceleration at t = 0: {r14['heading_acceleration_0']:.12g} "
              "(note: R th' (c1 sin ph - c2 cos ph)/J = 2).\n"]
    if rv:
        lines += ["Vakonomic against nonholonomic over the run, lengths and angles apart: the largest distance "
                  "between the two contact points (x, y), and the largest difference of the heading or the rolling "
                  "angle (radians):\n", "| start | mu(0) | contact point distance | angle difference (rad) |",
                  "|---|---|---|---|"]
        lines += [f"| straight line, t in [0, {VAK_T:g}] | {k} | {v['position']:.2e} | {v['angles']:.2e} |"
                  for k, v in rv["line"].items()]
        lines += [f"| circle (item 2), t in [0, {CIRCLE_T:g}] | {k} | {v['position']:.2e} | {v['angles']:.2e} |"
                  for k, v in rv["circle"].items()]
        lines.append("\nOn the section mu = M (x', y') the vakonomic motion is the nonholonomic one and mu(t) stays "
                     f"on the section (max |mu - M (x', y')| = {rv['circle_section_mu_error']:.1e}): the Theorem. "
                     "Off it, the vakonomic disk turns although it started rolling straight, or leaves the circle: "
                     "vakonomic motions are not nonholonomic in general. The exception mu(0) = (0.5, 0) is the one "
                     "the note predicts (section 2.8): c = M (x', y') - mu = (0.5, 0) is parallel to the rolling "
                     "direction, and "
                     "straight rolling along c is common to both dynamics.\n")
    lines += ["### The criterion (Proposition 2) and the Fernandez-Bloch Lagrangian\n",
              "![criterion](mestdag_crampin_criterion.png)\n"]
    rc = results.get("mestdag_crampin_criterion")
    if rc:
        lines += ["| system, candidate phi | holds | max residual 1 | max residual 2 |", "|---|---|---|---|"]
        lines += [f"| {k} | {v['holds']} | {v['max_residual_1']:.1e} | {v['max_residual_2']:.1e} |"
                  for k, v in rc["cases"].items()]
        lines.append(f"\nFor the disk the criterion returns Ltilde = `{rc['lagrangian']}` (the Fernandez-Bloch "
                     "Lagrangian (8) in nonholo's names: theta heading, phi rolling), Hessian determinant "
                     f"`{rc['hessian_det']}` (the note's J M^2 (I + M R^2)), regular = {rc['regular']}, signature "
                     f"{tuple(rc['signature'])}: regular but indefinite. Why it works: the disk is a Chaplygin "
                     "system for the translations of (x, y), so with phi_a = p_a = dL/ds'^a condition 2 is automatic "
                     "(R^b_(a alpha) = 0 and "
                     "Gamma(p_a) = lambda_a), and condition 1 is M R (x' sin - y' cos)(-rolling', heading'), which "
                     f"vanishes on C only (right panel: linear in the distance from C, slope {rc['off_C_slope']:.3f}). "
                     "For the nonholonomic particle z' = y x' condition 1 forces phi = 0 on C and condition 2 then "
                     "needs lambda_3 = x' y'/(1 + y^2) = 0: no Lagrangian L - Phi v^3 restricts to it.\n")
    lines += ["![Fernandez-Bloch](mestdag_crampin_fernandez_bloch.png)\n"]
    rf = results.get("mestdag_crampin_fernandez_bloch")
    if rf:
        lines.append(f"Euler-Lagrange flow of Ltilde (CVODE, rtol 1e-13, t in [0, {CIRCLE_T:g}]): from data on C the "
                     f"constraint velocities stay below {rf['on_C_max_constraint_velocity']:.1e} and the motion is the "
                     f"nonholonomic circle to {rf['on_C_distance_to_nonholonomic']:.1e} (closed form: "
                     f"{rf['on_C_distance_to_closed_form']:.1e}); from (v^x, v^y)(0) = {OFF_C} they stay constant to "
                     f"{rf['off_C_drift_of_constraint_velocities']:.1e} (x and y are cyclic: dLtilde/dx' = -M v^x) and "
                     "the motion leaves the circle: its contact point comes up to "
                     f"{rf['off_C_contact_point_distance_to_nonholonomic']:.2f} from the nonholonomic contact point at "
                     f"the same time and up to {rf['off_C_distance_from_the_circle']:.2f} from the circle as a curve, "
                     "and its angles (heading, rolling angle) differ by up to "
                     f"{rf['off_C_angle_difference_to_nonholonomic']:.2f} rad. "
                     "Off C its angles "
                     "are those of the vakonomic disk with mu(0) = M (x'(0), y'(0)) (note section 4.2) to "
                     f"{rf['off_C_angles_vs_vakonomic']:.1e}. Drift of Ltilde (its own energy) off C: "
                     f"{rf['energy_drift']:.1e}.\n")
    lines += ["### Frame independence\n", "![frames](mestdag_crampin_frames.png)\n"]
    rr = results.get("mestdag_crampin_frames")
    if rr:
        lines.append("Hamel's equations in the paper's frame and in a mixed frame (X1 + X2, X2 - X1/2 + sin(theta) "
                     f"X1, d/dx + d/dy, d/dx - d/dy + d/dphi) give the same q(t) to {rr['frames']:.1e}; the coordinate "
                     f"Lagrange-d'Alembert model to {rr['coordinates']:.1e}; the closed-form circle to "
                     f"{rr['closed_form']:.1e}. The multipliers transform as lambda_c = lambda^coord_b A^b_c to "
                     f"{rr['multiplier_transformation']:.1e}.\n")
    return "\n".join(lines) + "\n"
