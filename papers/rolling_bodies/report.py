"""The ``figures/REPORT.md`` section of ``rolling_bodies``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import RATTLEBACK_EPS, TIPPE, TIPPE_LATE


@report_section("Rigid bodies rolling on a plane")
def report_rolling_bodies(results: dict, output: Path) -> str:
    lines = ["Built-in systems of `nonholo.systems` (`notebooks/rolling_bodies.ipynb`).\n"]
    ball = results.get("rolling_ball_integrals")
    if ball:
        lines += ["![ball](rolling_ball_integrals.png)\n",
                  "Chaplygin ball (m = 1, r = 0.5, principal inertia 0.2, 0.3, 0.45) from random rolling initial data "
                  f"over t in [0, 20] at rtol 1e-12: max relative energy deviation {ball['energy']:.1e}, max relative "
                  f"deviation of the angular momentum about the contact point {ball['momentum']:.1e}.\n"]
    rattle = results.get("rolling_rattleback")
    if rattle:
        lines += ["![rattleback](rolling_rattleback.png)\n",
                  "Rattleback with Kane and Levinson's (1982) parameters and initial data: reversal time (s) of the "
                  "spin about the vertical averaged over 0.3 s (the rocking removed), rolling without slip and with "
                  "viscous sliding f = -s/eps.\n", "| model | reversal time |", "|---|---|"]
        lines += [f"| {label} | {value:.4f} |" if np.isfinite(value) else f"| {label} | no reversal in [0, 3.2] |"
                  for label, value in rattle.items() if label != "order"]
        fitted = [e for e in RATTLEBACK_EPS if e <= 1e-4]
        lines.append(f"\nFitted order of the difference to the rolling reversal time over eps <= 1e-4: "
                     f"{rattle['order']:.2f} (least squares over the {len(fitted)} values eps = "
                     f"{', '.join(f'{e:g}' for e in fitted)}).\n")
    top = results.get("rolling_tippe_top")
    if top:
        lines += ["![tippe top](rolling_tippe_top.png)\n",
                  f"Tippe top (m = {TIPPE['m']} kg, R = {TIPPE['R']} m, centre of mass alpha R below the centre with "
                  f"alpha = {TIPPE['alpha']}, I3 = 2/5 m R^2, I1 = (I1/I3) I3, g = 9.81) started with its symmetry "
                  "axis tilted by 0.1 rad from the vertical and spun at 150 rad/s about it, with viscous sliding "
                  "(eps = 1) for I1/I3 below, inside and above the window 1 - alpha < I1/I3 < 1 + alpha, and inside "
                  "it rolling without slip (lowest height of the symmetry axis "
                  f"{top['no slip']:.3f}: no inversion without sliding).\n",
                  f"| I1/I3 | axis height at t = 2.5 s | mean ± half-range over [{TIPPE_LATE:g}, 2.5] s "
                  "| relative drift of Jellett's integral |", "|---|---|---|---|"]
        lines += [f"| {ratio:g} | {row['final e3z']:.3f} | {row['late mean e3z']:.3f} ± {row['late spread e3z']:.3f} "
                  f"| {row['jellett drift']:.1e} |" for ratio, row in top.items() if ratio != "no slip"]
        above = [row for ratio, row in top.items() if ratio != "no slip" and ratio > 1 + TIPPE["alpha"]]
        if above:
            lines.append(f"\nAbove the window (I1/I3 > 1 + alpha) the top neither stays up nor inverts: it settles at "
                         f"an intermediate tilt, its axis height nutating about {above[0]['late mean e3z']:.2f} (below "
                         "horizontal), a tilted asymptotic state of the sliding top, not a failed inversion; the "
                         "value at t = 2.5 s is one sample of that nutation. The tilt is measured here, not "
                         "predicted.")
        lines.append("")
    disc = results.get("rolling_disc_stability")
    if disc:
        lines += ["![disc](rolling_disc_stability.png)\n",
                  "Rolling disc (uniform: m = 1, r = 1, A = m r^2/4 = 1/4 about a diameter, C = m r^2/2 = 1/2 about "
                  "the axis, g = 9.81) started upright with a lean of 1e-4 rad; critical spin sqrt(m g r A / (C (C + "
                  f"m r^2))) = sqrt(g/(3 r)) = {disc['critical spin']:.4f} rad/s. Largest |lean| over t in [0, 8] s: "
                  + ", ".join(f"{disc[f]:.1e} at {f:g} x critical" for f in disc if f != "critical spin") + ".\n"]
    bike = results.get("rolling_bicycle_eigenvalues")
    if bike:
        lines += ["![bicycle eigenvalues](rolling_bicycle_eigenvalues.png)\n",
                  "Benchmark bicycle of Meijaard et al. (2007), built from bodies and contacts: eigenvalues of "
                  f"upright straight running against the speed; weave speed {bike['weave speed']:.8f} m/s, "
                  f"capsize speed {bike['capsize speed']:.8f} m/s (published 4.29238253634111 and "
                  "6.02426201538837).\n"]
    runs = results.get("rolling_bicycle_runs")
    if runs:
        def _run(v, row):
            stop = row["stop"]
            if stop is None:
                return (f"at {v:g} m/s the run reaches t = {row['end']:.2f} s without falling (|roll| = "
                        f"{row['final |roll|']:.2e} there)")
            return (f"at {v:g} m/s the run stops at t = {stop['t']:.3f} s when {stop['event']} (roll "
                    f"{stop['roll']:.3f} rad, steer {stop['steer']:.3f} rad)")

        lines += ["![bicycle runs](rolling_bicycle_runs.png)\n",
                  "Nonlinear runs after a roll-rate kick, stopped when |roll| reaches 1 rad or |steer| reaches pi/2 "
                  "(the handlebar turned across, the bicycle falling): "
                  + "; ".join(_run(v, row) for v, row in runs.items()) + ".\n"]
    return "\n".join(lines) + "\n" if len(lines) > 1 else "_not generated in this run_\n"
