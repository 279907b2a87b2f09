"""Benchmark: the default start of nh.OptimalControlProblem.solve, before and after the bumped starts.

The default (``guess=None``) solves the line and, for a planar vehicle, the heading guess on a
coarse mesh (a quarter of the nodes); for a minimum-time problem that can drive backwards
(``problem.is_reversible()``) whose starts disagree on the coarse mesh it also solves the line with
each state bumped off it both ways (``perturbed_guess``), then the full mesh from the best. The
"previous" default is the same without the bumped starts (``is_reversible`` answering False).

1. The kinematic car's minimum time, 200 nodes, Hermite-Simpson, against the Reeds-Shepp length
   (``nh.analysis.reeds_shepp_length``) at the 10 goals of tests/test_ocp_reeds_shepp.py, at 40
   goals of a seed held out while the starts were chosen, and at the 30 goals on which the
   previous default was measured in docs/guide/optimal_control.md, whose misses chose the bumps'
   amplitudes and the three full solves (x in [2, 6], y in [-2, 2], theta in [-pi/2, pi/2]): how many
   within 1%, the largest and the smallest ratio, the median time per solve (previous and new
   interleaved goal by goal).
2. The car with one trailer (ocp_solve.py's problem) and the Heisenberg particle's least energy:
   median solve times of the two defaults, interleaved repeats.

The machine may be shared: ratios within one run are meaningful, absolute times less so.

Usage: python benchmarks/ocp_default_starts.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output


def goals(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(2, 6, n), rng.uniform(-2, 2, n), rng.uniform(-math.pi / 2, math.pi / 2, n)])


def previous(problem):
    """The problem with the bumped starts switched off: the default as it was."""
    problem.is_reversible = lambda: False
    return problem


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def car_rows(name: str, goal_set) -> list:
    car = nh.systems.kinematic_car(turning_radius=1.0)
    found = {"previous": [], "new": []}
    for goal in goal_set:
        length = nh.analysis.reeds_shepp_length([0, 0, 0], goal, turning_radius=1.0)
        for which in ("previous", "new"):
            problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=goal)
            if which == "previous":
                previous(problem)
            sol, seconds = timed(lambda: problem.solve(nodes=200))
            found[which].append((sol.t_final / length if sol.success else math.inf, seconds, sol.stats["starts"]))
    rows = []
    for which, runs in found.items():
        r = np.array([x[0] for x in runs])
        s = [x[1] for x in runs]
        rows.append(f"| {name} ({len(runs)}) | {which} | {int(np.sum(np.abs(r - 1) <= 0.01))} | {r.max():.4f} | "
                    f"{r.min():.6f} | {int(np.sum(r < 1 - 0.005))} | {statistics.median(s):.2f} | {sum(s):.1f} | "
                    f"{sum(x[2] > 2 for x in runs)} |")
    return rows


def other_problems():
    truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
    bounds = {"x": (-10.0, 10.0), "y": (-10.0, 10.0), "theta0": (-math.pi, math.pi), "theta1": (-math.pi, math.pi)}
    heis = nh.systems.heisenberg().kinematic()

    def trailer():
        return nh.OptimalControlProblem(truck, cost="time", initial=[0.0, 0.0, 0.0, 0.0], final=[0.0, 2.0, 0.0, 0.0],
                                        state_bounds=bounds)

    def heisenberg():
        return nh.OptimalControlProblem(heis, cost="energy", t_final=1.0, initial=[0, 0, 0], final=[1.0, 0.5, 0.3])

    return {"car + 1 trailer, minimum time, 101 nodes, trapezoid": (trailer, dict(nodes=101, method="trapezoid")),
            "Heisenberg, energy, 100 nodes": (heisenberg, dict(nodes=100))}


def main(argv=None):
    repeats, output = repeats_and_output(__doc__, 5, argv)
    quick = repeats < 5
    lines = ["| goals | default | within 1% | largest ratio | smallest ratio | below by > 0.5% | "
             "median s / solve | total s | solves with the bumped starts |", "|---|---|---|---|---|---|---|---|---|"]
    lines += car_rows("tests' goals, seed 20261202", goals(20261202, 10))
    lines += car_rows("held out, seed 20261206", goals(20261206, 10 if quick else 40))
    lines += car_rows("seed 20261203, used to choose the bumps", goals(20261203, 10 if quick else 30))
    lines += ["", "The ratio is t_final / the Reeds-Shepp length at 200 nodes (Hermite-Simpson).", ""]
    problems = {}
    for name, (make, kw) in other_problems().items():
        new, old = make(), previous(make())
        problems[name] = (new, old, kw)
        new.solve(**kw), old.solve(**kw)  # tapes built; warm-up
    times = {name: {"previous": [], "new": []} for name in problems}
    last = {}
    for _ in range(repeats):
        for name, (new, old, kw) in problems.items():
            for which, problem in (("previous", old), ("new", new)):
                last[name, which], seconds = timed(lambda: problem.solve(**kw))
                times[name][which].append(seconds)
    lines += ["| problem | previous default (ms) | new default (ms) | new / previous | objective previous | "
              "objective new | starts new |", "|---|---|---|---|---|---|---|"]
    for name, t in times.items():
        a, b = statistics.median(t["previous"]), statistics.median(t["new"])
        old, new = last[name, "previous"], last[name, "new"]
        lines.append(f"| {name} | {1e3 * a:.1f} | {1e3 * b:.1f} | {b / a:.2f} | {old.objective:.8f} | "
                     f"{new.objective:.8f} | {new.stats['starts']} |")
    lines += ["", f"Medians of {repeats} interleaved repeats."]
    emit("\n".join(lines) + "\n", output)


if __name__ == "__main__":
    main()
