"""Benchmark: the fixed cost of one nh.simulate call and of one item of nh.simulate_many.

A run over t in (0, 1e-9) (3 steps, 11 output times, rtol 1e-8, atol 1e-10) costs little more
than what every call pays whatever its length: the Python checks of the arguments and the
result object, the C++ set-up (CVODE instance, linear solver, workspace) and teardown, and the
first evaluations. For each small model the table gives the median time of

* ``nh.simulate`` (the whole call),
* ``_core.integrate`` with the same arguments (the C++ part: conversion of the arguments, set-up,
  the steps, the output dict), and of that the steps alone (``stats["cpu_time"]``, from the first
  call of CVode to the last),
* one item of ``nh.simulate_many`` (a batch of 200 such runs on one thread, divided by 200),

so that "Python" = simulate - integrate and "set-up" = integrate - steps. CPU time of the
process (time.process_time: a shared machine's other jobs do not count; the steps are timed by
the run's own wall clock), medians over interleaved rounds (every case in turn) after a warm-up
round.

Usage: python benchmarks/call_cost.py [--quick] [--markdown PATH] [--bicycle]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from cli import add_output_options, emit, output_of  # noqa: E402
from nonholo import _core  # noqa: E402

T_END, RTOL, ATOL = 1e-9, 1e-8, 1e-10
T_EVAL = np.linspace(0.0, T_END, 11)
BATCH = 200


def chain_state(system, N: int) -> np.ndarray:
    q = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
    v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]
    return np.r_[q, system.project(q, v)]


def cases(bicycle: bool) -> dict:
    """name -> (model, y0)."""
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = np.array([0.0, 0.0, 0.0, -1.5, 0.0, 1.0])
    out = {"sleigh, friction eps 1e-6": (sleigh.friction(1e-6), y0),
           "sleigh, nonholonomic": (sleigh.nonholonomic(), y0)}
    for N in (2, 8):
        chain = nh.systems.knife_edge_chain(N)
        out[f"chain N = {N}, friction eps 1e-4"] = (chain.friction(1e-4), chain_state(chain, N))
        out[f"chain N = {N}, nonholonomic"] = (chain.nonholonomic(), chain_state(chain, N))
    if bicycle:  # as in peers.py: upright at 5 m/s, roll rate 0.5 rad/s
        from nonholo.expressions.mechanics import kane_qdot
        from peers import bicycle_state

        km, values = nh.systems.whipple_bicycle_kane()
        x0 = bicycle_state(km, values)
        nq = len(km.q)
        bike = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot")
        out["Whipple bicycle, nonholonomic"] = (bike.nonholonomic(),
                                                np.r_[x0[:nq], kane_qdot(km, x0[:nq], x0[nq:], values)])
    return out


def timers(model, y0) -> dict:
    """name -> callable returning (seconds, steps seconds or None) of one measurement."""
    p = model.param_vector()
    atol = np.array([ATOL])
    # as simulate calls it: y0 is checked in Python, not again in C++
    options = _core.RunOptions(rtol=RTOL, atol=atol, solver_options={"initial_state_checked": True})

    def simulate():
        t0 = time.process_time()
        nh.simulate(model, (0.0, T_END), y0, rtol=RTOL, atol=ATOL, t_eval=T_EVAL)
        return time.process_time() - t0, None

    def integrate():
        t0 = time.process_time()
        raw = _core.integrate(model.core, p, 0.0, T_END, y0, T_EVAL, [], options)
        return time.process_time() - t0, raw["stats"]["cpu_time"]

    Y0 = np.tile(y0, (BATCH, 1))

    def batch_item():
        t0 = time.process_time()
        nh.simulate_many(model, (0.0, T_END), Y0, threads=1, rtol=RTOL, atol=ATOL, t_eval=T_EVAL)
        return (time.process_time() - t0) / BATCH, None

    return {"simulate": simulate, "integrate": integrate, "simulate_many item": batch_item}


def measure(all_cases: dict, rounds: int, calls: int) -> dict:
    """(case, timer) -> (median seconds, median steps seconds) over rounds x calls."""
    table = {(name, t): ([], []) for name in all_cases for t in ("simulate", "integrate", "simulate_many item")}
    fns = {name: timers(*case) for name, case in all_cases.items()}
    for r in range(rounds + 1):  # round 0 warms up
        for name, group in fns.items():
            for t, fn in group.items():
                n = calls if t != "simulate_many item" else max(1, calls // 20)
                for _ in range(n):
                    seconds, steps = fn()
                    if r:
                        table[(name, t)][0].append(seconds)
                        if steps is not None:
                            table[(name, t)][1].append(steps)
    return {k: (statistics.median(v[0]), statistics.median(v[1]) if v[1] else None) for k, v in table.items()}


def report(all_cases: dict, res: dict, rounds: int, calls: int) -> str:
    lines = [f"Medians of {rounds} interleaved rounds of {calls} calls (t in (0, 1e-9), 3 steps, 11 output times; "
             f"simulate_many: batches of {BATCH} on one thread). Times in microseconds.", "",
             "| model | states | simulate | Python | _core.integrate | set-up and output | steps "
             "| simulate_many item |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, (model, _) in all_cases.items():
        sim = res[(name, "simulate")][0]
        integ, steps = res[(name, "integrate")]
        item = res[(name, "simulate_many item")][0]
        lines.append(f"| {name} | {model.n_states} | {sim * 1e6:.1f} | {(sim - integ) * 1e6:.1f} | {integ * 1e6:.1f} | "
                     f"{(integ - steps) * 1e6:.1f} | {steps * 1e6:.1f} | {item * 1e6:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of 50 calls")
    add_output_options(parser)
    parser.add_argument("--bicycle", action="store_true", help="add the Whipple bicycle (builds it: a few seconds)")
    args = parser.parse_args(argv)
    rounds, calls = (2, 50) if args.quick else (7, 200)
    all_cases = cases(args.bicycle)
    emit(report(all_cases, measure(all_cases, rounds, calls), rounds, calls), output_of(args, argv))


if __name__ == "__main__":
    main()
