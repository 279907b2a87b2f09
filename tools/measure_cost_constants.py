"""Measure what the core's fitted cost constants stand for, on the build at hand, and print it beside
the constants (cpp/include/nonholo/cost_constants.hpp, read through ``_core.cost_constants()``).

The constants are in nanoseconds of the machine they were fitted on; only ratios enter the choices.
So each measurement is turned into that unit by the machine's scale, measured right-hand side over
estimated (``model.core.rhs_cost_ns``), and the table shows the measured value in both units:

* right-hand side, dual and implicit Jacobian of each model (``_core.diagnostics.time_evaluations``,
  medians of ``--batches`` batches of about 2 ms): measured over estimated;
* a BDF step's fixed cost and a linear setup (kStepNanoseconds, setup_nanoseconds(n)): from two BDF
  runs of each friction model (eps 1e-4), one with the default policy and one refreshing the
  Jacobian and the Newton matrix at every step, their CPU time (``stats["cpu_time"]``, medians of
  ``--runs`` interleaved runs) less their right-hand sides and Jacobians at the measured costs:
  two equations, steps x step + setups x setup, for the two unknowns;
* an Adams step's fixed cost (adams_step_ns(n)): Adams runs of the nonholonomic models, their CPU time
  less their right-hand sides, per step.

The evaluations are timed by wall clock (the least of many short windows); the runs by their CPU time.

Run it on the optimized build (``make install`` builds the core with -O3, CMake's Release) on a quiet
machine if possible; it prints the load average with the table. It changes nothing: a refit is a
decision for cost_constants.hpp, where the numbers and their sources are written down.

Usage: python tools/measure_cost_constants.py [--batches B] [--runs R]
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np

EPS = 1e-4


def workloads(nh):
    """(name, system, state on the constraint set): the sleigh and knife-edge chains."""
    rows = [("sleigh", nh.systems.chaplygin_sleigh(), np.array([0, 0, 0, -1.5, 0, 1.0]))]
    for N in (2, 4, 8, 16):
        chain = nh.systems.knife_edge_chain(N)
        q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
        v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]
        rows.append((f"chain N={N}", chain, np.r_[q0, chain.project(q0, v)]))
    return rows


def evaluations(nh, model, y0, batches: int) -> tuple:
    """The least (rhs, jacobian, dual, implicit) seconds per call over `batches` batches of about
    0.2 ms each: wall time, so short windows, most of them not interrupted by the other jobs of a
    loaded machine (windows of a few ms on a 2-core machine at load 6 measured the dual Jacobian of
    the chain N = 4 10-25x slower than windows of 0.2 ms)."""
    core, p = model.core, model.param_vector()
    probe = nh._core.diagnostics.time_evaluations(core, 0.0, y0, p, 5)
    calls = int(max(3, min(2000, 2e-4 / max(probe[2], 1e-9))))
    runs = [nh._core.diagnostics.time_evaluations(core, 0.0, y0, p, calls) for _ in range(batches)]
    return tuple(min(r[i] for r in runs) for i in range(4))


def run_seconds(nh, model, y0, method, options, runs: int) -> list:
    """(cpu seconds median, steps, rhs, jacobians, setups) of `runs` runs (t in [0, 2])."""
    out = []
    for _ in range(runs):
        r = nh.simulate(model, (0.0, 2.0), y0, method=method, rtol=1e-8, atol=1e-10, t_eval=[2.0],
                        solver_options=options, raise_on_failure=True)
        s = r.stats
        out.append((s["cpu_time"], s["n_steps"], s["n_rhs"], s["n_jac"], s["n_lin_setups"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=25, help="batches per evaluation timing (the least is kept)")
    parser.add_argument("--runs", type=int, default=7, help="runs per configuration (interleaved)")
    args = parser.parse_args()

    import nonholo as nh

    constants = nh._core.cost_constants()
    step_ns, setup_call = constants["step_ns"], constants["setup_call_ns"]
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    print("| model | rhs measured [ns] | rhs estimated [fit ns] | machine scale | dual: measured / estimated | "
          "implicit: measured / estimated |")
    print("|---|---:|---:|---:|---:|---:|")
    steps = []
    for name, system, y0 in workloads(nh):
        for kind in ("friction", "nonholonomic"):
            model = system.friction(EPS) if kind == "friction" else system.nonholonomic()
            rhs, jac, dual, implicit = evaluations(nh, model, y0, args.batches)
            core = model.core
            scale = rhs * 1e9 / core.rhs_cost_ns
            dual_ratio = (dual / rhs) / core.dual_jacobian_cost
            implicit_ratio = (implicit / rhs) / core.implicit_jacobian_cost if np.isfinite(implicit) else float("nan")
            print(f"| {name} {kind} | {rhs * 1e9:.0f} | {core.rhs_cost_ns:.0f} | {scale:.2f} | {dual_ratio:.2f} | "
                  f"{implicit_ratio:.2f} |")
            steps.append((name, kind, system, model, y0, rhs, jac, scale))

    print()
    print("| model | n | BDF step [fit ns] (constant) | setup [fit ns] (constant) | Adams step [fit ns] (constant) |")
    print("|---|---:|---:|---:|---:|")
    for name, kind, system, model, y0, rhs, jac, scale in steps:
        n = system.n
        if kind == "friction":
            default, every = [], []
            for _ in range(args.runs):  # interleaved
                default += run_seconds(nh, model, y0, "bdf", None, 1)
                every += run_seconds(nh, model, y0, "bdf", {"jacobian_frequency": 1, "setup_frequency": 1}, 1)
            rows = []
            for runs in (default, every):
                cpu = statistics.median(r[0] for r in runs)
                _, n_steps, n_rhs, n_jac, n_setups = runs[0]
                rows.append((cpu - n_rhs * rhs - n_jac * jac, n_steps, n_setups))
            A = np.array([[r[1], r[2]] for r in rows], dtype=float)
            b = np.array([r[0] for r in rows])
            # the default policy may set up at every step already (the sleigh): then the two runs are
            # one equation, and step and setup are not separable
            separable = np.linalg.matrix_rank(A / np.abs(A).max(axis=1, keepdims=True), tol=0.05) == 2
            step, setup = np.linalg.solve(A, b) * 1e9 / scale if separable else (np.nan, np.nan)
            order = n if n >= 8 else 2 * n  # the matrix factored: S (n) from 8 coordinates, else I - gamma J
            setup_constant = setup_call + order**3 / 3 + 3 * order**2
            print(f"| {name} {kind} | {n} | {step:.0f} ({step_ns:.0f}) | {setup:.0f} ({setup_constant:.0f}) | |")
        else:
            runs = run_seconds(nh, model, y0, "adams", None, args.runs)
            cpu = statistics.median(r[0] for r in runs)
            _, n_steps, n_rhs, _, _ = runs[0]
            adams = (cpu - n_rhs * rhs) / n_steps * 1e9 / scale
            constant = constants["adams_step_call_ns"] + constants["adams_step_per_state_ns"] * 2 * n
            print(f"| {name} {kind} | {n} | | | {adams:.0f} ({constant:.0f}) |")


if __name__ == "__main__":
    main()
