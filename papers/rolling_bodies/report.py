"""The ``figures/REPORT.md`` section of ``rolling_bodies``: text around the figures' numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..registry import report_section
from .experiments import RATTLEBACK_EPS, TIPPE


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
        lines.append(f"\nFitted order of the difference to the rolling reversal time over eps <= 1e-4: "
                     f"{rattle['order']:.2f} (eps in {', '.join(f'{e:g}' for e in RATTLEBACK_EPS)}).\n")
    top = results.get("rolling_tippe_top")
    if top:
        lines += ["![tippe top](rolling_tippe_top.png)\n",
                  f"Tippe top (m = {TIPPE['m']}, R = {TIPPE['R']}, alpha = {TIPPE['alpha']}) spun at 150 rad/s with "
                  "viscous sliding (eps = 1) for I1/I3 below, inside and above the window 1 - alpha < I1/I3 < "
                  "1 + alpha, and inside it rolling without slip (lowest height of the symmetry axis "
                  f"{top['no slip']:.3f}: no inversion without sliding).\n",
                  "| I1/I3 | final axis height | relative drift of Jellett's integral |", "|---|---|---|"]
        lines += [f"| {ratio:g} | {row['final e3z']:.3f} | {row['jellett drift']:.1e} |"
                  for ratio, row in top.items() if ratio != "no slip"]
        lines.append("")
    disc = results.get("rolling_disc_stability")
    if disc:
        lines += ["![disc](rolling_disc_stability.png)\n",
                  f"Rolling disc started upright with a lean of 1e-4 rad; critical spin {disc['critical spin']:.4f} "
                  "rad/s. Largest |lean| over t in [0, 8]: "
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
        lines += ["![bicycle runs](rolling_bicycle_runs.png)\n",
                  "Nonlinear runs after a roll-rate kick: "
                  + ", ".join(f"at {v:g} m/s |roll| = {row['final |roll|']:.2e} at t = {row['end']:.2f} s"
                              for v, row in runs.items()) + " (runs stop when |roll| reaches 1 rad).\n"]
    return "\n".join(lines) + "\n" if len(lines) > 1 else "_not generated in this run_\n"
