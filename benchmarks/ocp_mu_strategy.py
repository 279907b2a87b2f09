"""Benchmark: IPOPT's barrier update (``solve(mu_strategy=...)``), monotone (the default) against
adaptive, on the optimal control problems of the tests and the gallery, from the default start.

The question behind it (issue 44): opty's parallel park (benchmarks/ocp_vs_opty_casadi.py, 501 nodes)
takes about half the IPOPT iterations with the adaptive update (coarse starts and full mesh), so
should it be the default? Counted here: the objective, success and IPOPT's iterations (the coarse
meshes of the default's starts included) of each problem under both updates, and the relative
difference of the objectives (adaptive - monotone) / |monotone|: negative where the adaptive update
ends at a lower local optimum, positive where it ends at a higher one. Objectives and iteration
counts are deterministic (no timing in this table).

Problems: the kinematic car's minimum time at the 10 goals of tests/test_ocp_reeds_shepp.py (200
nodes); parking with one and with two trailers (tests/test_ocp_parking.py, 40 and 60 nodes); the
trailer's minimum time of ocp_vs_opty_casadi.py (101 nodes, trapezoid and Hermite-Simpson); the
kinematic car with cost int v^2 + kappa^2 in a fixed 8 s to the same 10 goals (100 nodes); the
car with one trailer, cost int v^2 + kappa^2, fixed 10 s, three goals (101 nodes, trapezoid); the
Heisenberg geodesic (100 nodes); opty's parallel park (501 nodes, backward Euler; not with --quick).

Usage: python benchmarks/ocp_mu_strategy.py [--quick] [--markdown PATH] [--json PATH]
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
from ocp_default_starts import goals  # noqa: E402

GOALS = goals(20261202, 10)  # tests/test_ocp_reeds_shepp.py's GOALS


def trailer_parking(n_trailers, r=0.5, curb=-2.5):
    """tests/test_ocp_parking.py's problem: back into a gap between two parked vehicles, 2 m aside."""
    car = nh.systems.kinematic_car_trailers(n_trailers, turning_radius=1.0, hitch=1.0).rate_limited(
        {"v": 2.0, "kappa": 4.0})
    x, y = sp.symbols("x y")
    th = sp.symbols(f"theta0:{n_trailers + 1}")
    axles = [(x + sp.cos(th[0]), y + sp.sin(th[0])), (x, y)]
    for i in range(1, n_trailers + 1):
        axles.append((axles[-1][0] - sp.cos(th[i]), axles[-1][1] - sp.sin(th[i])))
    parked = [(2.25 + r, -2.0), (0.25 - n_trailers - r, -2.0)]
    constraints = [c for i in range(1, n_trailers + 1)
                   for c in (th[i - 1] - th[i] <= math.pi / 3, th[i - 1] - th[i] >= -math.pi / 3)]
    for ax_, ay_ in axles:
        constraints.append(ay_ >= curb)
        constraints += [(ax_ - cx) ** 2 + (ay_ - cy) ** 2 >= r**2 for cx, cy in parked]
    rest = [0.0] * (n_trailers + 1) + [0.0, 0.0]
    return nh.OptimalControlProblem(car, cost="time", initial=[2.0, 0.0, *rest], final=[0.5, -2.0, *rest],
                                    path_constraints=constraints)


def problems(quick: bool) -> list:
    """(label, duration kind, problem, solve keywords)."""
    out = []
    car = nh.systems.kinematic_car(turning_radius=1.0)
    v, kappa = sp.symbols("v kappa")
    for g in GOALS:
        out.append((f"car, minimum time to {np.round(g, 2).tolist()}", "free",
                    nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=g), dict(nodes=200)))
    for nt, nodes in ((1, 40), (2, 60)):
        out.append((f"parking with {nt} trailer{'s' if nt > 1 else ''}", "free", trailer_parking(nt),
                    dict(nodes=nodes)))
    truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
    box = {"x": (-10.0, 10.0), "y": (-10.0, 10.0), "theta0": (-math.pi, math.pi), "theta1": (-math.pi, math.pi)}
    tb = nh.OptimalControlProblem(truck, cost="time", initial=[0.0] * 4, final=[0.0, 2.0, 0.0, 0.0], state_bounds=box)
    out.append(("trailer, minimum time, trapezoid", "free", tb, dict(nodes=101, method="trapezoid")))
    out.append(("trailer, minimum time, Hermite-Simpson", "free", tb, dict(nodes=101)))
    for g in GOALS:
        out.append((f"car, int v^2 + kappa^2 in 8 s to {np.round(g, 2).tolist()}", "fixed",
                    nh.OptimalControlProblem(car, cost=v**2 + kappa**2, t_final=8.0, initial=[0, 0, 0], final=g),
                    dict(nodes=100)))
    for g in ([0, 2, 0, 0], [3, 1, 0.5, 0.5], [-2, 1, 0, 0]):
        out.append((f"trailer, int v^2 + kappa^2 in 10 s to {g}", "fixed",
                    nh.OptimalControlProblem(truck, cost=v**2 + kappa**2, t_final=10.0, initial=[0] * 4, final=g,
                                             state_bounds={"x": (-10.0, 10.0), "y": (-10.0, 10.0)}),
                    dict(nodes=101, method="trapezoid")))
    heis = nh.systems.heisenberg().kinematic()
    out.append(("Heisenberg geodesic", "fixed", nh.OptimalControlProblem(
        heis, cost="energy", t_final=1.0, initial=[0, 0, 0], final=[1.0, 0.5, 0.3]), dict(nodes=100)))
    if not quick:
        from ocp_vs_opty_casadi import park_problem

        out.append(("opty's parallel park (501 nodes, backward Euler)", "fixed", park_problem(nh),
                    dict(nodes=501, method="backward-euler")))
    return out


def main(argv=None) -> None:
    repeats, output = repeats_and_output(__doc__, 1, argv)
    quick = repeats != 1
    lines = ["| problem | duration | monotone: objective | iterations | adaptive: objective | iterations | "
             "(adaptive - monotone) / monotone |",
             "|:---|:---|---:|---:|---:|---:|---:|"]
    tally = {"free": [0, 0, 0], "fixed": [0, 0, 0]}  # lower, same (1e-6), higher with adaptive
    iterations = {"free": [0, 0], "fixed": [0, 0]}
    for label, kind, problem, kw in problems(quick):
        row = []
        for mu in ("monotone", "adaptive"):
            sol = problem.solve(mu_strategy=mu, **kw)
            its = sol.stats["iterations"] + sol.stats.get("coarse_iterations", 0)
            row.append((sol.success, sol.objective, its))
        (s1, o1, i1), (s2, o2, i2) = row
        rel = (o2 - o1) / abs(o1)
        tally[kind][0 if rel < -1e-6 else 1 if rel <= 1e-6 else 2] += 1
        iterations[kind][0] += i1
        iterations[kind][1] += i2
        lines.append(f"| {label} | {kind} | {o1:.6g}{'' if s1 else ' (failed)'} | {i1} | "
                     f"{o2:.6g}{'' if s2 else ' (failed)'} | {i2} | {rel:+.2e} |")
    summary = [f"{kind} duration: the adaptive update ends lower on {t[0]}, at the same optimum (1e-6) on {t[1]}, "
               f"higher on {t[2]}; iterations in all {iterations[kind][0]} (monotone) and {iterations[kind][1]} "
               "(adaptive)." for kind, t in tally.items()]
    emit("\n".join(lines) + "\n\n" + "\n".join(f"- {s}" for s in summary), output)


if __name__ == "__main__":
    main()
