"""Benchmark: solving optimal control problems with nh.OptimalControlProblem (IPOPT in C++).

Three problems, each solved ``--repeats`` times, interleaved:

- the kinematic car's minimum time from (0, 0, 0) to (4, 1, 0.5), 200 nodes, Hermite-Simpson,
  the default start (two starts: the straight line and the turn-drive-turn heading guess);
- the same from the heading guess only (``guess="heading"``, one IPOPT solve);
- the Heisenberg particle's least energy to (1, 0.5, 0.3) in t = 1, 100 nodes, against
  ``nh.vakonomic_bvp``'s L^2 / 2.

The table gives the median wall time of ``solve`` (problem set-up excluded: the tapes are built
on the first solve and kept), IPOPT's iterations, the NLP's size and nonzeros, and the share of
IPOPT's time spent in the C++ callbacks (objective, constraints, Jacobian, Hessian). The machine
may be shared: ratios within one run are meaningful, absolute times less so.

Usage: python benchmarks/ocp_solve.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import statistics
import time

import nonholo as nh
from cli import emit, repeats_and_output


def problems():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    car_problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5])
    heis = nh.systems.heisenberg()
    heis_problem = nh.OptimalControlProblem(heis.kinematic(), cost="energy", t_final=1.0, initial=[0, 0, 0],
                                            final=[1.0, 0.5, 0.3])
    reference = nh.vakonomic_bvp(heis, [0, 0, 0], [1.0, 0.5, 0.3], 1.0).length ** 2 / 2
    return {
        "car, minimum time, 200 nodes (default: 2 starts)": (lambda: car_problem.solve(nodes=200), None),
        "car, minimum time, 200 nodes (guess='heading')": (lambda: car_problem.solve(nodes=200, guess="heading"),
                                                           None),
        "Heisenberg, energy, 100 nodes": (lambda: heis_problem.solve(nodes=100), reference),
    }


def main(argv=None):
    repeats, output = repeats_and_output(__doc__, 7, argv)
    configs = problems()
    last = {k: fn() for k, (fn, _) in configs.items()}  # builds the tapes; warm-up
    times = {k: [] for k in configs}
    for _ in range(repeats):
        for k, (fn, _) in configs.items():
            start = time.perf_counter()
            last[k] = fn()
            times[k].append(time.perf_counter() - start)
    lines = ["| problem | median solve (ms) | objective | reference | iterations | variables | constraints | "
             "nnz Jacobian | nnz Hessian | callbacks / IPOPT time |", "|---|---|---|---|---|---|---|---|---|---|"]
    for k, (_, ref) in configs.items():
        sol, st = last[k], last[k].stats
        lines.append(f"| {k} | {1e3 * statistics.median(times[k]):.1f} | {sol.objective:.8f} | "
                     f"{'-' if ref is None else f'{ref:.8f}'} | {st['iterations']} | {st['n_variables']} | "
                     f"{st['n_constraints']} | {st['nnz_jacobian']} | {st['nnz_hessian']} | "
                     f"{st['time_evaluations'] / st['time_ipopt']:.3f} |")
    lines += ["", f"Medians of {repeats} interleaved repeats. The car's Reeds-Shepp length to (4, 1, 0.5) is "
              "4.128305 (word L+S+L+)."]
    emit("\n".join(lines) + "\n", output)


if __name__ == "__main__":
    main()
