"""Benchmark: reduced models of order 0..3 and "auto" on the slow manifold against the stiff
friction model.

For the Chaplygin sleigh, the vertical rolling disk, the knife-edge chain with N = 4, 8, 16
links and a snake of 8 links with torsion springs written in plain SymPy (``nh.testing.spring_snake(8)``,
a system no default was tuned on), at eps = 1e-2, 1e-3, 1e-4, 1e-6, each model is integrated over a
fixed interval at the working tolerance (rtol 1e-8, atol 1e-10) and timed (median of interleaved repeated runs, CPU
time of the process around `nh.simulate` only, which the other jobs of a shared machine disturb
much less than wall time; the reduced models' compiled coefficients are built before
timing, once per system and order, and their build time is reported separately). The reduced
models run with their default method (DOP853 or Adams, by ReducedModel.method), the friction
model with BDF. The error is the max over the output times of the max-norm difference of (q, u)
from the friction model computed at tight tolerance (rtol 1e-12, atol 1e-14) and started on the slow manifold (order 6),
u = P v + v_b: it shows what the cheaper, non-stiff reduced model of order K gives up,
O(eps^(K+1)), against the stiff model it replaces. Also reported: the cost of one right-hand
side (measured in C++) relative to the order-0 model.

A model whose warm-up run takes more than SLOW_RUN seconds (order "auto" at eps = 1e-2 on the
chains, which picks orders 5-8 evaluated in Taylor mode) is timed by that one run, marked "(1 run)".

The frame form (state (q, w) of dimension 2n - k in the numeric Voronets frame) runs beside or
instead of the coordinate form with --velocities both|frame; its error is that of (q, u = X_D w).

--orders K ... restricts the reduced models to those orders (e.g. --orders 1 2). --reduced-rtol R adds
rows of the same reduced models at rtol R (atol R / 100): "same accuracy" may allow the reduced model
a looser tolerance than the stiff one, and the error column says whether it does. The column "check"
is the share of the reduced run that its validity check takes (nonholo.models.validity.estimate on the
run's states with simulate's arguments, the margin included, timed on its own beside each run, median);
the load average of the machine is printed before and after the table.

With --compiled every model of a row, the stiff one and the reduced ones, runs compiled C
(``model.compile()``: each the tapes its own right-hand side evaluates) before anything is
timed, so the ratio stiff / reduced compares like with like; the table says "compiled" and gives
each model's compile time (wall, cache hits included: tapes built before cost only a load). The
column "stiff / model" is the stiff model's time over the model's.

With --work-precision the comparison is at equal error instead of equal rtol: each model (the stiff
one with its default method, the reduced ones of --orders) runs at every rtol of WP_RTOLS (atol rtol / 100),
all runs interleaved, and its error is measured against the same tight reference. The target error is
the stiff model's at rtol RTOL (1e-8); each reduced model takes the loosest rtol of the ladder whose
error is at most the target (so it is at least as accurate as the stiff run it is compared with), and
the table gives the stiff run's CPU time over that reduced run's, whole `nh.simulate` calls (the
validity check included; its share is the column "check"). With
--instructions the matched runs are also counted by callgrind (one run each, in a fresh interpreter):
the instructions inside `nonholo::integrate`, and those of the validity check (`_core.reduced_validity`
and LAPACK's eigenvalue solver), which need valgrind. --methods M ... adds the reduced models run with
these methods beside their default (rows "order K, M").

Usage: python benchmarks/reduced_vs_stiff.py [--quick] [--markdown PATH] [--only NAME[@EPS] ...]
       [--velocities coordinates|frame|both] [--compiled] [--work-precision [--instructions]]
(e.g. --only sleigh@1e-3 "chain N=8@1e-4": only those rows)
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time

import numpy as np
import sympy as sp

import nonholo as nh
import nonholo.testing
from nonholo.models import validity
from cli import add_output_options, emit, output_of

RTOL, ATOL = 1e-8, 1e-10
REF_RTOL, REF_ATOL = 1e-12, 1e-14
EPS = (1e-2, 1e-3, 1e-4, 1e-6)
ORDERS = (0, 1, 2, 3, "auto")
FRAME_ORDERS = (0, 1, 2, 3)  # the frame form (--velocities frame|both)
SLOW_RUN = 2.0
BODY_FRAME = False  # --body-frame: the sleigh's frame form in its body frame
COMPILED = False  # --compiled: every model compiled (model.compile()) before timing
REDUCED_RTOL = None  # --reduced-rtol: rows of the reduced models at this rtol too
LOAD = (0.0, 0.0, 0.0)  # the load average when the run began


def cases():
    sleigh = nh.systems.chaplygin_sleigh()
    disk = nh.systems.vertical_rolling_disk()
    th = 0.3
    rows = [
        ("sleigh", sleigh, np.array([0, 0, 0, -1.5, 0, 1.0]), 20.0),
        ("disk", disk, np.array([th, 0, 0, 0, 1.0, np.cos(th), np.sin(th), 1.0]), 20.0),
    ]
    for N in (4, 8, 16):
        chain = nh.systems.knife_edge_chain(N)
        q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
        v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]  # pulled forward, the front link turning
        rows.append((f"chain N={N}", chain, np.r_[q0, chain.project(q0, v)], 5.0))
    # a system no default was tuned on: the snake with torsion springs written in plain SymPy
    snake = nh.testing.spring_snake(8)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(8))]
    rows.append(("snake N=8", snake, np.r_[q0, snake.project(q0, np.r_[1.0, 0.0, 0.5, np.zeros(7)])], 5.0))
    return rows


def user_frame(name: str, system):
    """The frame of the frame form: the default (numeric Voronets) frame on every system: x, y solved
    on the disk, regular everywhere; y, theta_2..theta_N on the chains, regular while |theta_1| < pi/2
    (0 <= theta_1 < 0.36 on these runs); y on the sleigh, y' = tan(phi) x', singular where cos(phi) = 0,
    which its run crosses: the run re-splits there (x solved for, ``result.frame_switches``). With
    --body-frame the sleigh runs in its body frame instead (global, through the general path)."""
    if name != "sleigh" or not BODY_FRAME:
        return None
    phi = system.coordinates[2]
    return sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])


def timed(models: dict, t_span, starts: dict, t_eval, repeats, tolerances: dict | None = None, **kw) -> dict:
    """name -> (median seconds, number of timed runs, last result, median seconds of the validity
    check or None), the models' runs interleaved; the first round warms up and is dropped, except for
    a model slower than SLOW_RUN, timed once. ``tolerances``: name -> (rtol, atol) instead of kw's."""
    times = {name: [] for name in models}
    checks = {name: [] for name in models}
    sols = {}
    for r in range(repeats + 1):
        for name, model in models.items():
            if r and times[name] and times[name][0] is None:
                continue
            options = {**kw, **dict(zip(("rtol", "atol"), (tolerances or {}).get(name, ())))}
            start = time.process_time()
            sols[name] = nh.simulate(model, t_span, starts[name], t_eval=t_eval, raise_on_failure=True, **options)
            seconds = time.process_time() - start
            if r == 0 and seconds > SLOW_RUN:
                times[name] = [None, seconds]
            elif r:
                times[name].append(seconds)
                if sols[name].validity is not None:  # the check simulate made, again on its own
                    start = time.process_time()
                    # the frame form's start is (q, u), not its state (q, w): its stored first state is
                    y0 = starts[name] if len(starts[name]) == sols[name].y.shape[0] else None
                    validity.estimate(sols[name], y0, samples=validity.RUN_SAMPLES,
                                      margin=validity.MARGIN)
                    checks[name].append(time.process_time() - start)
    out = {}
    for name in models:
        runs = [x for x in times[name] if x is not None]
        out[name] = (statistics.median(runs), len(runs), sols[name],
                     statistics.median(checks[name]) if checks[name] else None)
    return out


def start_and_reference(system, y0, eps, T, t_eval):
    """The start on the slow manifold (order 6) and the tight stiff reference's (q, u) at t_eval."""
    n = system.n
    start = np.r_[y0[:n], system.on_slow_manifold(y0[:n], y0[n:], eps, order=6)]
    ref = nh.simulate(system.friction(eps), (0, T), start, t_eval=t_eval, rtol=REF_RTOL, atol=REF_ATOL)
    return start, reference_state(system, ref, t_eval)


def reference_state(system, full, t_eval):
    u = np.array([system.project(q, v, t) for q, v, t in zip(full.q.T, full.v.T, t_eval)]).T
    return full.q, u


def rhs_cost(model, y0) -> float:
    """CPU seconds per right-hand side, the calls looped in C++: the least of 5 means of calls
    lasting about 20 ms each."""
    one = nh._core.diagnostics.seconds_per_rhs(model.core, 0.0, y0, model.param_vector(), 1)
    calls = int(max(1, min(2000, 0.02 / max(one, 1e-9))))
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        nh._core.diagnostics.seconds_per_rhs(model.core, 0.0, y0, model.param_vector(), calls)
        best = min(best, (time.process_time() - start) / (calls + 1))
    return best


def selected(only, name: str, eps: float) -> bool:
    """True when no --only filter is given or one names this system (and eps, if given)."""
    if not only:
        return True
    for item in only:
        system, _, e = item.partition("@")
        if system == name and (not e or np.isclose(float(e), eps)):
            return True
    return False


def run(repeats: int, only=None, velocities: str = "coordinates", builds: dict | None = None,
        orders=ORDERS) -> list:
    """The table's rows; ``builds`` collects the frame form's build times (wall seconds) by system, in
    order: the first one includes the default Voronets frame (split, tapes), built once per system."""
    builds = {} if builds is None else builds
    rows = []
    for name, system, y0, T in cases():
        t_eval = np.linspace(0, T, 41)
        for eps in EPS:
            if not selected(only, name, eps):
                continue
            start, (q_ref, u_ref) = start_and_reference(system, y0, eps, T, t_eval)
            models = {"friction (stiff)": system.friction(eps)}
            starts = {"friction (stiff)": start}
            if velocities in ("coordinates", "both"):
                models.update({f"reduced, order {K}": system.reduced(eps, order=K) for K in orders})
            if velocities in ("frame", "both"):
                for K in [K for K in FRAME_ORDERS if K in orders]:
                    build = time.perf_counter()
                    models[f"reduced (frame), order {K}"] = system.reduced(eps, order=K, velocities="frame",
                                                                          frame=user_frame(name, system))
                    builds.setdefault(name, []).append(time.perf_counter() - build)
            tolerances = {}
            if REDUCED_RTOL is not None:
                for key in [key for key in models if key.startswith("reduced")]:
                    loose = f"{key}, rtol {REDUCED_RTOL:g}"
                    models[loose] = models[key]
                    tolerances[loose] = (REDUCED_RTOL, REDUCED_RTOL / 100)
            for key, model in models.items():
                starts.setdefault(key, y0)  # the frame form maps (q, u) to (q, w) itself
            compile_seconds = {}
            if COMPILED:
                for key, model in models.items():
                    begin = time.perf_counter()
                    model.compile()
                    compile_seconds[key] = time.perf_counter() - begin
            results = timed(models, (0, T), starts, t_eval, repeats, tolerances, rtol=RTOL, atol=ATOL)
            base_key = next((key for key in ("reduced, order 0", "reduced (frame), order 0") if key in models), None)
            base_rhs = rhs_cost(models[base_key], results[base_key][2].y[:, 0]) if base_key else None
            for key, (seconds, runs, sol, check) in results.items():
                if key.startswith("friction"):
                    q, u = reference_state(system, sol, t_eval)
                else:
                    q, u = sol.q, sol.v
                cost = rhs_cost(sol.model, sol.y[:, 0])  # y[:, 0]: the state at t0 (w for the frame form)
                cost = cost / base_rhs if base_rhs else cost * 1e6  # relative to order 0, or in us
                label = key if sol.truncation is None else f"reduced, auto (order {sol.model.order})"
                if sol.stats.get("n_frame_switches"):
                    label += f" [{sol.stats['n_frame_switches']} re-splits]"
                rows.append(dict(system=name, eps=eps, model=label, time=seconds, runs=runs, steps=sol.stats["n_steps"],
                                 method=sol.method, rhs=cost, stiff_ratio=results["friction (stiff)"][0] / seconds,
                                 compile=compile_seconds.get(key), check=None if check is None else check / seconds,
                                 relative=base_rhs is not None,
                                 error=max(np.abs(q - q_ref).max(), np.abs(u - u_ref).max())))
    return rows


def markdown(rows: list, repeats: int) -> str:
    evaluation = "compiled (every model: `model.compile()`)" if COMPILED else "interpreted"
    lines = [f"## Reduced models against the stiff friction model, {evaluation}", "",
             f"Sleigh and disk on [0, 20], chains on [0, 5]; rtol {RTOL:g}, atol {ATOL:g}; median of {repeats} "
             "interleaved runs; error = max over 41 output times of |(q, u) - friction model at rtol 1e-12| "
             "(u = P v + v_b); rhs = cost of one right-hand side relative to the order-0 model; stiff / model = "
             "the stiff model's CPU time over this model's; \"(1 run)\": slower "
             f"than {SLOW_RUN:g} s, timed once. CPU time of the process; one run on a loaded 2-core machine.", ""]
    if rows and not rows[0]["relative"]:
        lines[-2] = lines[-2].replace("relative to the order-0 model", "in us (no order-0 row)")
    lines[-2] += (" check = share of the reduced run taken by its validity check (on its own, median). "
                  f"Load average (1 min) before: {LOAD[0]:.1f}, after: {os.getloadavg()[0]:.1f}.")
    extra = " compile [ms] |" if COMPILED else ""
    lines += [f"| system | eps | model | method | CPU time [ms] | stiff / model | steps | rhs | error | check |{extra}",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|" + ("---:|" if COMPILED else "")]
    for r in rows:
        once = " (1 run)" if r["runs"] == 1 and repeats > 1 else ""
        built = f" {r['compile'] * 1e3:.0f} |" if COMPILED else ""
        lines.append(f"| {r['system']} | {r['eps']:.0e} | {r['model']} | {r['method']} | {r['time'] * 1e3:.2f}{once} "
                     f"| {r['stiff_ratio']:.2f} | {r['steps']} | {r['rhs']:.2f} | {r['error']:.2e} "
                     f"| {'' if r['check'] is None else format(100 * r['check'], '.1f') + '%'} |{built}")
    return "\n".join(lines) + "\n"


WP_RTOLS = tuple(float(f"{10.0 ** (-e / 2):.3g}") for e in range(6, 21))  # 1e-3, 3.16e-4, ..., 1e-10
COUNT_TOGGLES = {"run": ["nonholo::integrate(*"], "check": ["nonholo::reduced_validity(*", "*dgeev*"]}


def wp_models(system, eps, orders, methods=()) -> dict:
    """key -> (model, method): the stiff model and each order with its default method, and with each of
    ``methods`` (keys "order K, METHOD")."""
    models = {"stiff": (system.friction(eps), "auto")}
    for K in orders:
        models[f"order {K}"] = (system.reduced(eps, order=K), "auto")
        models.update({f"order {K}, {m}": (models[f"order {K}"][0], m) for m in methods})
    return models


def work_precision(repeats: int, only, orders, methods=()) -> list:
    """Rows (system, eps, model, rtol, median CPU seconds of simulate, steps, rhs, error, check share,
    target error) of every model at every rtol of WP_RTOLS, the runs interleaved."""
    rows = []
    for name, system, y0, T in cases():
        t_eval = np.linspace(0, T, 41)
        for eps in EPS:
            if not selected(only, name, eps):
                continue
            start, (q_ref, u_ref) = start_and_reference(system, y0, eps, T, t_eval)
            models = wp_models(system, eps, orders, methods)
            runs = {(key, rtol): [] for key in models for rtol in WP_RTOLS}
            checks, sols = {k: [] for k in runs}, {}
            for r in range(repeats + 1):  # round 0 warms up
                for (key, rtol) in runs:
                    y = start if key == "stiff" else y0
                    begin = time.process_time()
                    model, method = models[key]
                    sol = nh.simulate(model, (0, T), y, t_eval=t_eval, rtol=rtol, atol=rtol / 100, method=method,
                                      raise_on_failure=True)
                    seconds = time.process_time() - begin
                    if r:
                        runs[key, rtol].append(seconds)
                        if sol.validity is not None:
                            begin = time.process_time()
                            validity.estimate(sol, y, samples=validity.RUN_SAMPLES, margin=validity.MARGIN)
                            checks[key, rtol].append(time.process_time() - begin)
                    sols[key, rtol] = sol
            target = None
            for (key, rtol), sol in sols.items():
                q, u = reference_state(system, sol, t_eval) if key == "stiff" else (sol.q, sol.v)
                error = max(np.abs(q - q_ref).max(), np.abs(u - u_ref).max())
                seconds = statistics.median(runs[key, rtol])
                check = statistics.median(checks[key, rtol]) / seconds if checks[key, rtol] else None
                rows.append(dict(system=name, eps=eps, model=key, rtol=rtol, time=seconds, steps=sol.stats["n_steps"],
                                 rhs=sol.stats["n_rhs"], method=sol.method, error=error, check=check))
                if key == "stiff" and rtol == RTOL:
                    target = error
            for row in rows:
                if row["system"] == name and row["eps"] == eps:
                    row["target"] = target
    return rows


def matched(rows: list) -> list:
    """(stiff row at RTOL, reduced row) pairs: per system, eps and order, the loosest rtol whose error is at
    most the stiff model's at RTOL (None when no rtol of the ladder reaches it)."""
    pairs = []
    for row in rows:
        if row["model"] != "stiff" or row["rtol"] != RTOL:
            continue
        same = [r for r in rows if r["system"] == row["system"] and r["eps"] == row["eps"]]
        for key in dict.fromkeys(r["model"] for r in same if r["model"] != "stiff"):
            ok = [r for r in same if r["model"] == key and r["error"] <= row["error"]]
            pairs.append((row, max(ok, key=lambda r: r["rtol"]) if ok else None, key))
    return pairs


@functools.lru_cache(maxsize=None)
def count_instructions(name: str, eps: float, key: str, rtol: float, what: str) -> int:
    """Instructions of one run (``what`` "run": inside nonholo::integrate; "check": the validity
    check's C++ and LAPACK eigenvalue calls) by callgrind, in a fresh interpreter."""
    import re
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        toggles = [f"--toggle-collect={pattern}" for pattern in COUNT_TOGGLES[what]]
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", *toggles,
                        f"--callgrind-out-file={out}", sys.executable, __file__, "--count-run", name, repr(eps), key,
                        repr(rtol)], capture_output=True, text=True, check=True)
        return int(re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE).group(1))


def count_run(name: str, eps: float, key: str, rtol: float) -> None:
    """One run of the model ``key`` (what count_instructions counts)."""
    name, system, y0, T = next(c for c in cases() if c[0] == name)
    t_eval = np.linspace(0, T, 41)
    order, _, method = key.partition(", ")
    model, method = wp_models(system, eps, [int(order.split()[-1])] if key != "stiff" else [],
                              [method] if method else [])[key]
    if key == "stiff":
        n = system.n
        y0 = np.r_[y0[:n], system.on_slow_manifold(y0[:n], y0[n:], eps, order=6)]
    nh.simulate(model, (0, T), y0, t_eval=t_eval, rtol=rtol, atol=rtol / 100, method=method)


def wp_markdown(rows: list, repeats: int, instructions: bool) -> str:
    lines = ["## Reduced models against the stiff friction model at equal error", "",
             f"Each model at rtol {', '.join(f'{r:g}' for r in WP_RTOLS)} (atol rtol / 100), median of {repeats} "
             "interleaved runs, CPU time of the process around `nh.simulate` (the validity check included); "
             "error as in the table above. The "
             f"target is the stiff model's error at rtol {RTOL:g}; each reduced model is compared at the loosest "
             "rtol whose error is at most the target. check = the validity check's share of the reduced run "
             f"(timed on its own, median). Load average (1 min) before: {LOAD[0]:.1f}, after: "
             f"{os.getloadavg()[0]:.1f}.", ""]
    extra = " run Ir (stiff / reduced) | check Ir |" if instructions else ""
    lines += [f"| system | eps | model | rtol | error (target) | CPU time [ms] | steps | rhs | check "
              f"| stiff / model |{extra}",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if instructions else "")]
    for stiff, red, key in matched(rows):
        cells = [stiff["system"], f"{stiff['eps']:.0e}"]
        if red is None:
            lines.append("| " + " | ".join(cells + [key, "", "no rtol reaches the target"] + [""] * 5) + " |" +
                         (" | |" if instructions else ""))
            continue
        for r, label in ((stiff, f"stiff ({stiff['method']})"), (red, f"{key} ({red['method']})")):
            ratio = "" if r is stiff else f"{stiff['time'] / r['time']:.2f}"
            check = "" if r["check"] is None else f"{100 * r['check']:.0f}%"
            row = cells + [label, f"{r['rtol']:.3g}", f"{r['error']:.2e} ({r['target']:.2e})", f"{r['time'] * 1e3:.3f}",
                           str(r["steps"]), str(r["rhs"]), check, ratio]
            if instructions:
                model_key = "stiff" if r is stiff else key
                run_ir = count_instructions(r["system"], r["eps"], model_key, r["rtol"], "run")
                check_ir = "" if r is stiff else count_instructions(r["system"], r["eps"], key, r["rtol"], "check")
                row += [f"{run_ir:,}", check_ir if check_ir == "" else f"{check_ir:,}"]
            lines.append("| " + " | ".join(row) + " |")
    lines += ["", "<details><summary>Every run of the ladder</summary>", "",
              "| system | eps | model | rtol | CPU time [ms] | check | steps | rhs | error |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        check = "" if r["check"] is None else f"{100 * r['check']:.0f}%"
        lines.append(f"| {r['system']} | {r['eps']:.0e} | {r['model']} ({r['method']}) | {r['rtol']:.3g} | "
                     f"{r['time'] * 1e3:.3f} | {check} | {r['steps']} | {r['rhs']} | {r['error']:.2e} |")
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    add_output_options(parser)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per model (default 3)")
    parser.add_argument("--only", nargs="*", help='rows to run, as NAME or NAME@EPS (e.g. "chain N=8@1e-4")')
    parser.add_argument("--velocities", choices=("coordinates", "frame", "both"), default="coordinates",
                        help="velocity form of the reduced models: state (q, u), or (q, w) in the default "
                             "(numeric Voronets) frame of D, orders 0..3, or both side by side")
    parser.add_argument("--body-frame", action="store_true",
                        help="the sleigh's frame form in its body frame instead of its (re-split) Voronets frame")
    parser.add_argument("--orders", nargs="*", help="reduced orders to run (default 0 1 2 3 auto)")
    parser.add_argument("--reduced-rtol", type=float, help="rows of the reduced models at this rtol too")
    parser.add_argument("--compiled", action="store_true",
                        help="compile every model (model.compile(): C from its tapes, cached on disk) before timing")
    parser.add_argument("--work-precision", action="store_true",
                        help="compare at equal error: the models over an rtol ladder, matched to the stiff one's error")
    parser.add_argument("--instructions", action="store_true",
                        help="with --work-precision: callgrind instruction counts of the matched runs")
    parser.add_argument("--methods", nargs="*", default=[],
                        help="with --work-precision: the reduced models also with these methods (e.g. adams dop853)")
    parser.add_argument("--count-run", nargs=4, metavar=("NAME", "EPS", "MODEL", "RTOL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.count_run:
        name, eps, key, rtol = args.count_run
        count_run(name, float(eps), key, float(rtol))
        return 0
    global BODY_FRAME, COMPILED, REDUCED_RTOL, LOAD
    BODY_FRAME = args.body_frame
    COMPILED = args.compiled
    REDUCED_RTOL = args.reduced_rtol
    LOAD = os.getloadavg()
    orders = ORDERS if not args.orders else tuple(K if K == "auto" else int(K) for K in args.orders)
    repeats = 2 if args.quick else args.repeats
    output = output_of(args, argv)
    if args.work_precision:
        wp_orders = [K for K in orders if K != "auto"] if args.orders else [1, 2]
        rows = work_precision(repeats, args.only, wp_orders, args.methods)
        emit(wp_markdown(rows, repeats, args.instructions), output)
        return 0
    builds: dict = {}
    text = markdown(run(repeats, args.only, args.velocities, builds, orders), repeats)
    if builds:
        text += ("\nFrame form, wall time of `system.reduced(eps, order=K, velocities=\"frame\")`: the first build "
                 "(with the system's Voronets frame: split, tapes, check) and the median of the others.\n\n"
                 "| system | first build [ms] | later builds [ms] |\n|---|---:|---:|\n")
        text += "".join(f"| {name} | {sec[0] * 1e3:.1f} | {statistics.median(sec[1:] or sec) * 1e3:.1f} |\n"
                        for name, sec in builds.items())
    emit(text, output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
