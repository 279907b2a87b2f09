"""Benchmark: solving optimal control problems with nh.OptimalControlProblem (IPOPT in C++).

Five solves, each run ``--repeats`` times, interleaved:

- the kinematic car's minimum time from (0, 0, 0) to (4, 1, 0.5), 200 nodes, Hermite-Simpson,
  the default start (two starts, the straight line and the turn-drive-turn heading guess, each
  solved on a coarse mesh of a quarter of the nodes, then the full mesh from the better one);
- the same from the heading guess only (``guess="heading"``, one IPOPT solve);
- the previous default: both starts solved on the full mesh, the better kept (two full solves);
- the car with one trailer (``kinematic_car_trailers(1)``), minimum time from (0, 0, 0, 0) to
  (0, 2, 0, 0), 101 nodes, trapezoid, states bounded as in ocp_vs_opty_casadi.py's problem B:
  the default start, the heading guess only, and the previous default;
- the Heisenberg particle's least energy to (1, 0.5, 0.3) in t = 1, 100 nodes, against
  ``nh.vakonomic_bvp``'s L^2 / 2.

The table gives the median wall time of ``solve`` (problem set-up excluded: the tapes are built
on the first solve and kept), IPOPT's iterations, the NLP's size and nonzeros, and the share of
IPOPT's time spent in the C++ callbacks (objective, constraints, Jacobian, Hessian). The machine
may be shared: ratios within one run are meaningful, absolute times less so.

Usage: python benchmarks/ocp_solve.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import math
import statistics
import time

import nonholo as nh
from cli import emit, repeats_and_output


def both_full(problem, **kw):
    """The default before the coarse-mesh starts: each start on the full mesh, the better kept."""
    found = [problem.solve(guess=g, **kw) for g in ("line", "heading")]
    ok = [s for s in found if s.success]
    return min(ok, key=lambda s: s.objective) if ok else found[0]


def problems():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    car_problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5])
    heis = nh.systems.heisenberg()
    heis_problem = nh.OptimalControlProblem(heis.kinematic(), cost="energy", t_final=1.0, initial=[0, 0, 0],
                                            final=[1.0, 0.5, 0.3])
    truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
    truck_problem = nh.OptimalControlProblem(
        truck, cost="time", initial=[0.0, 0.0, 0.0, 0.0], final=[0.0, 2.0, 0.0, 0.0],
        state_bounds={"x": (-10.0, 10.0), "y": (-10.0, 10.0), "theta0": (-math.pi, math.pi),
                      "theta1": (-math.pi, math.pi)})
    reference = nh.vakonomic_bvp(heis, [0, 0, 0], [1.0, 0.5, 0.3], 1.0).length ** 2 / 2
    return {
        "car, minimum time, 200 nodes (default: 2 starts)": (lambda: car_problem.solve(nodes=200), None),
        "car, minimum time, 200 nodes (guess='heading')": (lambda: car_problem.solve(nodes=200, guess="heading"),
                                                           None),
        "car, minimum time, 200 nodes (previous default: 2 full solves)":
            (lambda: both_full(car_problem, nodes=200), None),
        "car + 1 trailer, minimum time, 101 nodes, trapezoid (default: 2 starts)":
            (lambda: truck_problem.solve(nodes=101, method="trapezoid"), None),
        "car + 1 trailer, minimum time, 101 nodes, trapezoid (guess='heading')":
            (lambda: truck_problem.solve(nodes=101, method="trapezoid", guess="heading"), None),
        "car + 1 trailer, minimum time, 101 nodes, trapezoid (previous default: 2 full solves)":
            (lambda: both_full(truck_problem, nodes=101, method="trapezoid"), None),
        "Heisenberg, energy, 100 nodes": (lambda: heis_problem.solve(nodes=100), reference),
    }


def main(argv=None):
    repeats, output = repeats_and_output(__doc__, 5, argv)
    configs = problems()
    last = {k: fn() for k, (fn, _) in configs.items()}  # builds the tapes; warm-up
    times = {k: [] for k in configs}
    for _ in range(repeats):
        for k, (fn, _) in configs.items():
            start = time.perf_counter()
            last[k] = fn()
            times[k].append(time.perf_counter() - start)
    lines = ["| problem | median solve (ms) | objective | reference | iterations | variables | constraints | "
             "nnz Jacobian | nnz Hessian | callbacks / IPOPT time | coarse iterations |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for k, (_, ref) in configs.items():
        sol, st = last[k], last[k].stats
        lines.append(f"| {k} | {1e3 * statistics.median(times[k]):.1f} | {sol.objective:.8f} | "
                     f"{'-' if ref is None else f'{ref:.8f}'} | {st['iterations']} | {st['n_variables']} | "
                     f"{st['n_constraints']} | {st['nnz_jacobian']} | {st['nnz_hessian']} | "
                     f"{st['time_evaluations'] / st['time_ipopt']:.3f} | {st.get('coarse_iterations', '-')} |")
    lines += ["", f"Medians of {repeats} interleaved repeats. The car's Reeds-Shepp length to (4, 1, 0.5) is "
              "4.128305 (word L+S+L+)."]
    emit("\n".join(lines) + "\n", output)


if __name__ == "__main__":
    main()
