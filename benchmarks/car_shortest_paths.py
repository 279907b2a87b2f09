"""Cross-checks of nh.analysis.reeds_shepp_length and dubins_length against other computations.

1. rsplan (a pip package with a Reeds-Shepp planner), where installed: the lengths at random goals.
   Every path of nonholo's is checked to land on the goal (tests/test_car_paths.py does the same),
   so a length below rsplan's is a shorter valid path that rsplan missed; a length above would be
   a word nonholo misses.
2. Direct collocation in CasADi (Hermite-Simpson, separated form, 200 nodes, IPOPT, exact Hessian)
   of the minimum-time kinematic car, |v| <= 1, |kappa| <= 1 (and 0 <= v <= 1 for Dubins), from a
   straight-line guess: its optimum can lie below the exact length only by the discretization
   error, and matches it where IPOPT finds the global optimum.
3. The cost of a length (microseconds per call, median of repeats).

Usage: python benchmarks/car_shortest_paths.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output

RS, DUBINS = nh.analysis.reeds_shepp_length, nh.analysis.dubins_length


def against_rsplan(n_goals: int) -> str:
    try:
        import rsplan
    except ImportError as exc:
        return f"rsplan skipped: {exc}"
    rng = np.random.default_rng(0)
    diff = []
    for _ in range(n_goals):
        goal = (rng.uniform(-6, 6), rng.uniform(-6, 6), rng.uniform(-math.pi, math.pi))
        theirs = sum(abs(s.length) for s in rsplan.path((0, 0, 0), goal, 1.0, 0.0, 0.05).segments)
        diff.append(RS([0, 0, 0], goal) - theirs)
    diff = np.array(diff)
    return ("| goals | equal (1e-9) | nonholo shorter | nonholo longer | largest shortfall of rsplan |\n"
            "|---:|---:|---:|---:|---:|\n"
            f"| {n_goals} | {np.mean(abs(diff) <= 1e-9):.0%} | {np.mean(diff < -1e-9):.0%} | "
            f"{np.mean(diff > 1e-9):.0%} | {-diff.min():.3g} |")


def collocated_time(goal, forward_only: bool, nodes: int = 200) -> tuple:
    """(t_final, success) of the minimum-time car by separated Hermite-Simpson in CasADi Opti."""
    import casadi as ca

    opti = ca.Opti()
    X, U = opti.variable(3, nodes), opti.variable(2, nodes)
    Xm, Um = opti.variable(3, nodes - 1), opti.variable(2, nodes - 1)
    T = opti.variable()

    def f(x, u):
        return ca.vertcat(u[0, :] * ca.cos(x[2, :]), u[0, :] * ca.sin(x[2, :]), u[0, :] * u[1, :])

    h = T / (nodes - 1)
    F, Fm = f(X, U), f(Xm, Um)
    opti.subject_to(Xm == 0.5 * (X[:, :-1] + X[:, 1:]) + h / 8 * (F[:, :-1] - F[:, 1:]))
    opti.subject_to(X[:, 1:] - X[:, :-1] == h / 6 * (F[:, :-1] + 4 * Fm + F[:, 1:]))
    opti.subject_to(X[:, 0] == 0)
    opti.subject_to(X[:, -1] == ca.DM(goal))
    lo = 0.0 if forward_only else -1.0
    for u in (U, Um):
        opti.subject_to(opti.bounded(lo, u[0, :], 1.0))
        opti.subject_to(opti.bounded(-1.0, u[1, :], 1.0))
    opti.subject_to(opti.bounded(0.0, T, 100.0))
    opti.minimize(T)
    s = np.linspace(0, 1, nodes)
    opti.set_initial(X, np.outer(goal, s))
    opti.set_initial(Xm, np.outer(goal, 0.5 * (s[:-1] + s[1:])))
    opti.set_initial(U, np.vstack([np.full(nodes, 0.5), np.zeros(nodes)]))
    opti.set_initial(Um, np.vstack([np.full(nodes - 1, 0.5), np.zeros(nodes - 1)]))
    opti.set_initial(T, 1.2 * math.hypot(goal[0], goal[1]) + abs(goal[2]))
    opti.solver("ipopt", {"print_time": False, "detect_simple_bounds": True},
                {"print_level": 0, "tol": 1e-8, "max_iter": 3000})
    try:
        sol = opti.solve()
        return float(sol.value(T)), True
    except RuntimeError:
        return float(opti.debug.value(T)), False


def against_collocation(goals) -> str:
    try:
        import casadi  # noqa: F401
    except ImportError as exc:
        return f"CasADi skipped: {exc}"
    lines = ["| goal (x, y, theta) | Reeds-Shepp word | length | collocated / length | Dubins length | "
             "collocated forward / length |", "|:---|:---|---:|---:|---:|---:|"]
    for goal in goals:
        path = nh.analysis.reeds_shepp_path([0, 0, 0], goal)
        t_rs, ok_rs = collocated_time(goal, False)
        dub = DUBINS([0, 0, 0], goal)
        t_du, ok_du = collocated_time(goal, True)
        lines.append(f"| ({goal[0]:.3f}, {goal[1]:.3f}, {goal[2]:.3f}) | {path.word} | {path.length:.5f} | "
                     f"{t_rs / path.length:.5f}{'' if ok_rs else ' (failed)'} | {dub:.5f} | "
                     f"{t_du / dub:.5f}{'' if ok_du else ' (failed)'} |")
    return "\n".join(lines)


def call_cost(repeats: int) -> str:
    rng = np.random.default_rng(1)
    goals = [np.r_[rng.uniform(-5, 5, 2), rng.uniform(-3, 3)] for _ in range(500)]
    rows = []
    for name, f in (("reeds_shepp_length", RS), ("dubins_length", DUBINS)):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for g in goals:
                f([0.0, 0.0, 0.0], g)
            times.append((time.perf_counter() - start) / len(goals) * 1e6)
        rows.append(f"| {name} | {statistics.median(times):.1f} |")
    return "| function | microseconds per call |\n|:---|---:|\n" + "\n".join(rows)


def main() -> None:
    repeats, output = repeats_and_output(__doc__, 5)
    quick = repeats == 2
    rng = np.random.default_rng(20261202)  # the goals of tests/test_ocp_reeds_shepp.py
    goals = np.column_stack([rng.uniform(2, 6, 10), rng.uniform(-2, 2, 10), rng.uniform(-math.pi / 2, math.pi / 2, 10)])
    blocks = ["rsplan 1.0.10 against nonholo at random goals (x, y in [-6, 6], theta in [-pi, pi], R = 1):",
              against_rsplan(300 if quick else 3000),
              "Minimum time by direct collocation (CasADi, Hermite-Simpson, 200 nodes, straight-line guess) at "
              "the 10 goals of tests/test_ocp_reeds_shepp.py:",
              against_collocation(goals[:3] if quick else goals),
              f"Cost of a call (500 goals, median of {repeats}):",
              call_cost(repeats)]
    emit("\n\n".join(blocks), output)


if __name__ == "__main__":
    main()
