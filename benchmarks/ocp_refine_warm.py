"""Benchmark: the rounds of ``refine`` started cold (``warm_multipliers=False``: IPOPT's own
multipliers and its barrier at ``mu_init`` 0.1) against the default (``warm_multipliers=None``:
each round from the multipliers of the round before, barrier at 1e-3), from the default start.

The question behind it: an outside probe's Reeds-Shepp car from (0, 0, 0) to (2, 0, pi) (least time
pi: forward on a left arc, a cusp, backward on a right arc) planned 3.2139 on 100 nodes, and
``refine=3`` ended at 3.4587, no plan at all: each cold round's barrier pushed the controls off the
bounds they sat on, and IPOPT found chattering plans. Counted here for each problem: the objective,
success and IPOPT's iterations of the whole solve under both, with the known optimum where there is one.
Objectives and iteration counts are deterministic.

Problems: the kinematic car's least time (Reeds-Shepp lengths of nh.analysis.reeds_shepp_length) to
the 10 goals of tests/test_ocp_reeds_shepp.py and to five goals whose shortest paths have cusps (40
nodes, refine=3); parking with one trailer (40 nodes, refine=2); the trailer's least time
(ocp_mu_strategy.py, 51 nodes, trapezoid and Hermite-Simpson, refine=2); a double integrator's least
time from rest to rest 1 away (2, backward Euler, 10 nodes, refine=4); an oscillator's least time
from (5, 0) to rest (7.937412, Hermite-Simpson, 40 nodes, refine=3); the Heisenberg geodesic (50
nodes, refine=2).

Usage: python benchmarks/ocp_refine_warm.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import sympy as sp

import nonholo as nh

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli import emit, repeats_and_output  # noqa: E402
from ocp_mu_strategy import GOALS, trailer_parking  # noqa: E402

CUSPS = ([2.0, 0.0, math.pi], [0.0, 1.0, math.pi], [1.0, 1.0, math.pi], [-1.0, 0.5, 0.0], [0.5, -1.0, -math.pi / 2])


def problems(quick: bool) -> list:
    """(label, problem, solve keywords, known optimum or None)."""
    out = []
    car = nh.systems.kinematic_car(turning_radius=1.0)
    goals = [*GOALS[:3], *CUSPS[:2]] if quick else [*GOALS, *CUSPS]
    for g in goals:
        g = [float(c) for c in g]
        out.append((f"car, least time to {np.round(g, 2).tolist()}",
                    nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=g), dict(nodes=40, refine=3),
                    nh.analysis.reeds_shepp_length([0, 0, 0], g, 1.0)))
    if quick:
        return out
    out.append(("parking with 1 trailer", trailer_parking(1), dict(nodes=40, refine=2), None))
    truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
    box = {"x": (-10.0, 10.0), "y": (-10.0, 10.0), "theta0": (-math.pi, math.pi), "theta1": (-math.pi, math.pi)}
    tb = nh.OptimalControlProblem(truck, cost="time", initial=[0.0] * 4, final=[0.0, 2.0, 0.0, 0.0], state_bounds=box)
    out.append(("trailer, least time, trapezoid", tb, dict(nodes=51, method="trapezoid", refine=2), None))
    out.append(("trailer, least time, Hermite-Simpson", tb, dict(nodes=51, refine=2), None))
    x, v, u = sp.symbols("x v u")
    di = nh.KinematicSystem([x, v], [u], [v, u], control_bounds={"u": (-1, 1)}, name="double integrator")
    out.append(("double integrator, least time, backward Euler",
                nh.OptimalControlProblem(di, cost="time", initial=[0, 0], final=[1, 0]),
                dict(nodes=10, method="backward-euler", refine=4), 2.0))
    osc = nh.KinematicSystem([x, v], [u], [v, -x + u], control_bounds={"u": (-1, 1)}, name="oscillator")
    out.append(("oscillator, least time from (5, 0)", nh.OptimalControlProblem(osc, cost="time", initial=[5, 0],
                                                                                final=[0, 0]),
                dict(nodes=40, refine=3), 7.937411720585097))
    heis = nh.systems.heisenberg().kinematic()
    out.append(("Heisenberg geodesic", nh.OptimalControlProblem(heis, cost="energy", t_final=1.0, initial=[0, 0, 0],
                                                                final=[1.0, 0.5, 0.3]), dict(nodes=50, refine=2), None))
    return out


def main(argv=None) -> None:
    repeats, output = repeats_and_output(__doc__, 1, argv)
    quick = repeats != 1
    lines = ["| problem | optimum | cold: objective | iterations | default (warm): objective | iterations |",
             "|:---|---:|---:|---:|---:|---:|"]
    better = same = worse = 0
    for label, problem, kw, best in problems(quick):
        row = []
        for warm in (False, None):
            sol = problem.solve(warm_multipliers=warm, **kw)
            its = sol.stats["iterations"] + sol.stats.get("coarse_iterations", 0)
            row.append((sol.success, sol.objective, its))
        (s1, o1, i1), (s2, o2, i2) = row
        rel = (o2 - o1) / abs(o1)
        better, same, worse = better + (rel < -1e-6), same + (abs(rel) <= 1e-6), worse + (rel > 1e-6)
        lines.append(f"| {label} | {'' if best is None else f'{best:.6g}'} | {o1:.6g}{'' if s1 else ' (failed)'} | "
                     f"{i1} | {o2:.6g}{'' if s2 else ' (failed)'} | {i2} |")
    emit("\n".join(lines) + f"\n\n- warm rounds end lower on {better}, at the same objective (1e-6) on {same}, "
         f"higher on {worse}.", output)


if __name__ == "__main__":
    main()
