"""Benchmark: the default Jacobian policy of BDF runs against fixed Jacobian frequencies, and the
friction sleigh against the hand-written CVODE program.

What is run
-----------
* knife-edge chain with friction: ``nh.systems.knife_edge_chain(N).friction(1e-4)``, N = 16, 32
  and 64 (``--sizes``), the state and settings of benchmarks/peers.py (headings 0.1 i, velocity (1, 0, 0.3, 0, ...)
  projected onto the constraints, t in [0, 2], rtol 1e-8, atol 1e-10), with the default policy
  (cpp/include/nonholo/jacobian_policy.hpp) and with ``solver_options={"jacobian_frequency": f}``
  for f in 1, 5, 20, 50 (CVODE's linear setups at its default spacing, 20 steps).
* systems the policy was not tuned on, the same way (issue 40): the spring snake
  (``nh.testing.spring_snake(N)``, plain SymPy, torsion springs, a knife edge per link; N = 16, 32,
  ``--snakes``; headings 0.3 sin(i), velocity (1, 0, 0.5 cos(i)) projected) and three
  ``nh.testing.random_system`` families (n = 6, k = 2; n = 10, k = 4 with a force; n = 16, k = 6
  with an affine part; a random state on the constraints).
* the default policy weighs the Jacobian's cost as measured on the model's first run
  (cpp/include/nonholo/measured_costs.hpp); the row "estimated costs" runs it with the cost model's
  estimate instead (``solver_options={"jacobian_costs": "estimated"}``, the same on every machine).
* the Jacobian in right-hand sides: the cost model's estimate (``core.jacobian_cost``), the
  measurement the policy kept (``core.measured_jacobian_cost``: minimum of 5 interleaved batches of
  about 4 us) and a longer one here (``_core.diagnostics.time_evaluations``, minimum over 40 batches
  of about 2 ms of Jacobian / right-hand side, wall time in C++).
* friction sleigh (benchmarks/friction_sleigh.py): eps 1e-4 and 1e-6, t in [0, 20], rtol 1e-8,
  atol 1e-10, nonholo's default against benchmarks/friction_sleigh_cvode.cpp (analytic Jacobian,
  a Jacobian and a linear setup every step), which times its repetitions inside one process.

How
---
Every configuration runs once untimed, then in interleaved rounds (each round runs every
configuration of a workload `repeats` times), so that all see the same machine load. Reported:
the median wall time of a ``simulate`` call (time.perf_counter) and the median CPU time of the
calling thread (time.thread_time: less sensitive to other processes on a shared machine), the
solver's counters (steps, right-hand sides, Jacobians, linear setups, Newton iterations) and the
max-norm error of the final state against nonholo at rtol 1e-12, atol 1e-14. The hand-written
program times its integrations inside the process (wall); its CPU time per integration is that of
a process of 10 k + 1 integrations less one of 1, from the children's rusage. The verdicts, on CPU
times, as issue 31 asks: chain default / best fixed frequency at most 1.1; sleigh nonholo /
hand-written at most 1.3.

Usage: python benchmarks/jacobian_policy.py [--quick] [--sizes N ...] [--rounds R] [--repeats K]
       [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
import nonholo.testing  # noqa: E402,F401
import friction_sleigh as sleigh  # noqa: E402
from cli import add_output_options, emit, output_of  # noqa: E402
from nonholo import _core  # noqa: E402
from peers import chain_state  # noqa: E402

CHAIN_T, RTOL, ATOL, CHAIN_EPS = 2.0, 1e-8, 1e-10, 1e-4
REF_RTOL, REF_ATOL = 1e-12, 1e-14
FREQUENCIES = (1, 5, 20, 50)
COUNTERS = ("n_steps", "n_rhs", "n_jac", "n_lin_setups", "n_nonlin_iters")
TARGET_VS_FIXED, TARGET_VS_CVODE = 1.1, 1.3


def _median(xs):
    return statistics.median(xs) if xs else float("nan")


def jacobian_ratio(model, y, batches: int = 40) -> float:
    """Measured Jacobian / right-hand side: the minimum over batches of about 2 ms each."""
    p = model.param_vector()
    one = _core.diagnostics.time_evaluations(model.core, 0.0, y, p, 1)
    calls = max(1, int(2e-3 / max(one[1], 1e-9)))
    runs = [_core.diagnostics.time_evaluations(model.core, 0.0, y, p, calls) for _ in range(batches)]
    return min(r[1] for r in runs) / min(r[0] for r in runs)


def snake_state(system, N: int) -> np.ndarray:
    q = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
    return np.r_[q, system.project(q, np.r_[1.0, 0.0, 0.5 * np.cos(np.arange(N))])]


# random_system families (nonholo.testing.random_system): (seed, n, k, options)
RANDOM_FAMILIES = {"random n=6 k=2": (1, dict(n=6, k=2)), "random n=10 k=4 force": (2, dict(n=10, k=4, force=True)),
                   "random n=16 k=6 affine": (3, dict(n=16, k=6, affine=True))}


def workload(name: str) -> tuple:
    """(system, y0) of a workload: "chain N", "snake N" (nonholo.testing.spring_snake: plain SymPy)
    or one of RANDOM_FAMILIES (a random state on the constraints)."""
    kind, _, size = name.partition(" ")
    if kind == "chain":
        system = nh.systems.knife_edge_chain(int(size))
        return system, chain_state(system, int(size))
    if kind == "snake":
        system = nh.testing.spring_snake(int(size))
        return system, snake_state(system, int(size))
    seed, options = RANDOM_FAMILIES[name]
    system = nh.testing.random_system(seed, **options)
    rng = np.random.default_rng(seed)
    q0 = rng.uniform(-0.5, 0.5, system.n)
    return system, np.r_[q0, system.project(q0, rng.normal(size=system.n))]


def chain_runs(name: str, costs: list) -> tuple:
    """(configurations, reference final state) of a workload (:func:`workload`) realized by friction,
    eps 1e-4: label -> run(); appends the Jacobian's estimated and measured cost to ``costs``."""
    system, y0 = workload(name)
    model = system.friction(CHAIN_EPS)
    kept = model.core.measure_jacobian_cost(0.0, y0, model.param_vector())  # what the policy weighs
    costs.append(f"| {name} | {type(model.core).__name__} | {model.core.jacobian_cost:.1f} | {kept:.1f} | "
                 f"{jacobian_ratio(model, y0):.1f} |")

    def runner(options):
        def run():
            return nh.simulate(model, (0.0, CHAIN_T), y0, rtol=RTOL, atol=ATOL, t_eval=[CHAIN_T],
                               solver_options=options)
        return run

    configs = {"default": runner(None), "estimated costs": runner({"jacobian_costs": "estimated"})}
    configs.update({f"jacobian_frequency={f}": runner({"jacobian_frequency": f}) for f in FREQUENCIES})
    ref = nh.simulate(model, (0.0, CHAIN_T), y0, rtol=REF_RTOL, atol=REF_ATOL, t_eval=[CHAIN_T]).y[:, -1]
    return configs, ref


def interleaved(configs: dict, rounds: int, repeats: int) -> dict:
    """label -> dict(wall=[...], cpu=[...], result=last SimulationResult), one call per entry."""
    out = {label: dict(wall=[], cpu=[], result=run()) for label, run in configs.items()}  # untimed first run
    for _ in range(rounds):
        for label, run in configs.items():
            for _ in range(repeats):
                w, c = time.perf_counter(), time.thread_time()
                res = run()
                out[label]["cpu"].append(time.thread_time() - c)
                out[label]["wall"].append(time.perf_counter() - w)
                out[label]["result"] = res
    return out


def chain_table(Ns, rounds: int, repeats: int) -> tuple:
    """Markdown rows of the chain and the verdicts (N, default / best fixed)."""
    lines = ["| workload | Jacobian | wall [ms] | CPU [ms] | steps | rhs | Jacobians | setups | Newton its | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts = []
    costs = ["| workload | model | Jacobian / rhs, estimated | measured by the policy | measured here |",
             "|---|---|---:|---:|---:|"]
    for N in Ns:
        configs, ref = chain_runs(N, costs)
        timed = interleaved(configs, rounds, repeats)
        for label, m in timed.items():
            st = m["result"].stats
            err = float(np.max(np.abs(m["result"].y[:, -1] - ref)))
            lines.append(f"| {N} | {label} | {_median(m['wall']) * 1e3:.3g} | {_median(m['cpu']) * 1e3:.3g} | "
                         + " | ".join(str(st[k]) for k in COUNTERS) + f" | {err:.1e} |")
        fixed = [k for k in timed if k.startswith("jacobian_frequency")]
        best_label = min(fixed, key=lambda k: _median(timed[k]["cpu"]))
        ratio = _median(timed["default"]["cpu"]) / _median(timed[best_label]["cpu"])
        verdicts.append((N, best_label, ratio))
        print(f"{N}: default / best fixed ({best_label}) = {ratio:.2f}", file=sys.stderr, flush=True)
    return lines, costs, verdicts


def handwritten_cpu(executable, eps: float, k: int) -> float:
    """CPU seconds per integration of the hand-written program: a process of k + 1 integrations less
    one of 1 (process start-up, linking and the warm-up cancel), from the children's rusage."""
    def cpu(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        sleigh.run_handwritten(executable, eps, repeats, settings="every-step")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return (cpu(k + 1) - cpu(1)) / k


def sleigh_table(rounds: int, repeats: int) -> tuple:
    """Markdown rows of the sleigh (nonholo vs hand-written CVODE) and the CPU-time ratios per eps."""
    executable, why = sleigh.build_handwritten()
    lines = ["| sleigh eps | method | wall [ms] | CPU [ms] | steps | rhs | Jacobians | setups | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    ratios = []
    for eps in sleigh.EPSILONS:
        model = nh.systems.chaplygin_sleigh(**sleigh.PARAMS).friction(eps)
        ref = sleigh.reference(model, None)["y_final"]
        wall = {"nonholo": [], sleigh.HANDWRITTEN: []}
        cpu = {"nonholo": [], sleigh.HANDWRITTEN: []}
        last = {}
        for _ in range(rounds):
            for _ in range(repeats):
                w, c = time.perf_counter(), time.thread_time()
                res = nh.simulate(model, sleigh.T_SPAN, sleigh.Y0, rtol=RTOL, atol=ATOL, t_eval=[sleigh.T_SPAN[1]])
                cpu["nonholo"].append(time.thread_time() - c)
                wall["nonholo"].append(time.perf_counter() - w)
            st = res.stats
            last["nonholo"] = (res.y[:, -1], st["n_steps"], st["n_rhs"], st["n_jac"], st["n_lin_setups"])
            if executable is not None:
                hw = sleigh.run_handwritten(executable, eps, repeats, settings="every-step")
                wall[sleigh.HANDWRITTEN] += hw["times"]
                cpu[sleigh.HANDWRITTEN].append(handwritten_cpu(executable, eps, 10 * repeats))
                st = hw["stats"]
                last[sleigh.HANDWRITTEN] = (hw["y_final"], st["n_steps"], st["n_rhs"], st["n_jac"], st["n_lin_setups"])
        for name, (y, steps, rhs, jac, setups) in last.items():
            err = float(np.max(np.abs(np.subtract(y, ref))))
            lines.append(f"| {eps:.0e} | {name} | {_median(wall[name]) * 1e3:.3g} | {_median(cpu[name]) * 1e3:.3g} | "
                         f"{steps} | {rhs} | {jac} | {setups} | {err:.1e} |")
        if executable is not None:
            ratios.append((eps, _median(cpu["nonholo"]) / _median(cpu[sleigh.HANDWRITTEN])))
            print(f"sleigh eps {eps:.0e}: nonholo / hand-written (CPU) = {ratios[-1][1]:.2f}", file=sys.stderr,
                  flush=True)
        else:
            lines.append(f"| {eps:.0e} | {sleigh.HANDWRITTEN} | not run: {why} | | | | | | |")
    return lines, ratios


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="1 round of 2 repeats, chain N = 16 only")
    p.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 64], help="chain sizes N (default 16 32 64)")
    p.add_argument("--snakes", type=int, nargs="*", default=[16, 32], help="spring snake sizes (default 16 32)")
    p.add_argument("--no-random", action="store_true", help="leave out the random_system families")
    p.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    p.add_argument("--repeats", type=int, default=3, help="calls per configuration and round (default 3)")
    add_output_options(p)
    args = p.parse_args(argv)
    rounds, repeats, Ns = (1, 2, ("chain 16",)) if args.quick else (
        args.rounds, args.repeats, (*(f"chain {N}" for N in args.sizes), *(f"snake {N}" for N in args.snakes),
                                    *(() if args.no_random else RANDOM_FAMILIES)))
    chain_lines, cost_lines, verdicts = chain_table(Ns, rounds, repeats)
    sleigh_lines, ratios = sleigh_table(rounds, repeats)
    summary = ["| target | measured | limit | verdict |", "|---|---:|---:|---|"]
    summary += [f"| {N}: default / best fixed ({best}) | {r:.2f} | {TARGET_VS_FIXED} | "
                f"{'met' if r <= TARGET_VS_FIXED else 'MISSED'} |" for N, best, r in verdicts]
    summary += [f"| sleigh eps {eps:.0e}: nonholo / hand-written CVODE | {r:.2f} | {TARGET_VS_CVODE} | "
                f"{'met' if r <= TARGET_VS_CVODE else 'MISSED'} |" for eps, r in ratios]
    body = "\n\n".join(["\n".join(chain_lines), "\n".join(cost_lines), "\n".join(sleigh_lines),
                        "\n".join(summary), f"Medians of {rounds} interleaved rounds of {repeats} calls."])
    emit(body + "\n", output_of(args, argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
