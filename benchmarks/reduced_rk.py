"""Benchmark: CVODE's Adams against an explicit Runge-Kutta pair of order 8 (DOP853) on the
reduced models, and both against the stiff friction model.

The reduced models are not stiff and small. CVODE's Adams method takes many short steps at
order <= 7 (it starts at order 1 with a small step and raises the order by one every q + 1 steps)
and pays, per step, a few dozen vector operations outside the model (Nordsieck predictor,
corrector, error test, order selection, error weights), which for 12-20 states cost as much as
one or two right-hand sides. The Dormand-Prince 8(5,3) pair (Hairer-Norsett-Wanner I, II.10;
`_core.diagnostics.integrate_dop853`, cpp/src/explicit_rk.cpp) takes 12 right-hand sides a step but 5-10x
fewer steps at the same tolerance.

Same rows and tolerances as benchmarks/reduced_vs_stiff.py (rtol 1e-8, atol 1e-10, 41 output
times; DOP853 evaluates its dense output of order 7 at them). Timed at the core, without the
Python of nh.simulate (whose fixed cost is the same for every method): `_core.integrate` with the
method nh.simulate uses (Adams for the reduced models, without drift control as in nh.simulate;
BDF with projection for the stiff model) and `_core.diagnostics.integrate_dop853`, CPU time, medians of
interleaved runs. The error is that of reduced_vs_stiff.py (max over the output times of
|(q, u) - friction model at rtol 1e-12|).

Usage: python benchmarks/reduced_rk.py [--repeats R] [--markdown PATH] [--only NAME[@EPS] ...]
       [--orders 0 1 2 3] [--velocities coordinates|frame|both]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import nonholo as nh
from cli import add_output_options, emit, output_of
from reduced_vs_stiff import ATOL, EPS, RTOL, cases, reference_state, selected, start_and_reference, user_frame


def adams(model, y0, t_eval, method="adams", project=False):
    """One run of the core integrator as nh.simulate makes it (no events, default knobs)."""
    return nh._core.integrate(model.core, model.param_vector(), float(t_eval[0]), float(t_eval[-1]), y0, t_eval,
                              [], nh._core.RunOptions(rtol=RTOL, atol=ATOL, method=method, project=project))


def rk(model, y0, t_eval):
    return nh._core.diagnostics.integrate_dop853(model.core, model.param_vector(), float(t_eval[0]), float(t_eval[-1]),
                                                 y0, t_eval, RTOL, ATOL)


def timed(runs: dict, repeats: int) -> dict:
    """name -> (median CPU seconds, last output), the runs interleaved; the first round is dropped."""
    times = {k: [] for k in runs}
    outs = {}
    for r in range(repeats + 1):
        for key, fn in runs.items():
            start = time.process_time()
            outs[key] = fn()
            if r:
                times[key].append(time.process_time() - start)
    return {k: (statistics.median(times[k]), outs[k]) for k in runs}


def run(repeats: int, only=None, orders=(0, 1, 2, 3), velocities="both") -> list:
    rows = []
    for name, system, y0, T in cases():
        n = system.n
        t_eval = np.linspace(0, T, 41)
        for eps in EPS:
            if not selected(only, name, eps):
                continue
            start, (q_ref, u_ref) = start_and_reference(system, y0, eps, T, t_eval)
            stiff = system.friction(eps)
            runs = {("friction (stiff)", "bdf"): lambda m=stiff: adams(m, start, t_eval, "bdf", True)}
            models = {}
            forms = {"both": ("coordinates", "frame")}.get(velocities, (velocities,))
            for form in forms:
                for K in orders:
                    label = f"reduced{' (frame)' if form == 'frame' else ''}, order {K}"
                    m = system.reduced(eps, order=K, velocities=form,
                                       frame=user_frame(name, system) if form == "frame" else None)
                    y = y0 if m.frame is None else np.r_[y0[:n], m.frame.state(y0[:n], y0[n:])[n:]]
                    models[label] = (m, y)
                    runs[(label, "adams")] = lambda m=m, y=y: adams(m, y, t_eval)
                    runs[(label, "dop853")] = lambda m=m, y=y: rk(m, y, t_eval)
            results = timed(runs, repeats)
            stiff_time = results[("friction (stiff)", "bdf")][0]
            for (label, method), (seconds, out) in results.items():
                y = np.asarray(out["y"])
                if label.startswith("friction"):
                    sol = nh.simulate(stiff, (0, T), start, t_eval=t_eval, rtol=RTOL, atol=ATOL)
                    q, u = reference_state(system, sol, t_eval)
                    steps, nrhs = out["stats"]["n_steps"], out["stats"]["n_rhs"]
                else:
                    m, y_start = models[label]
                    # the error through nh.simulate's result: u = X_D w with each sample in the split
                    # of its time (the frame form re-splits where its Voronets frame degenerates)
                    sol = nh.simulate(m, (0, T), y_start, t_eval=t_eval, method=method, rtol=RTOL, atol=ATOL)
                    q, u = sol.q, sol.v
                    stats = out["stats"] if method == "adams" else out
                    steps, nrhs = stats["n_steps"], stats["n_rhs"]
                err = max(np.abs(q - q_ref).max(), np.abs(u - u_ref).max())
                rows.append(dict(system=name, eps=eps, model=label, method=method, time=seconds,
                                 ratio=stiff_time / seconds, steps=steps, rhs=nrhs, error=err))
    return rows


def markdown(rows: list, repeats: int) -> str:
    lines = ["## Reduced models: CVODE Adams against DOP853 (explicit Runge-Kutta, order 8)", "",
             f"rtol {RTOL:g}, atol {ATOL:g}; CPU time of the core integrator (no nh.simulate Python), median of "
             f"{repeats} interleaved runs; speed-up = stiff model's time / this time; error against the friction "
             "model at rtol 1e-12.", "",
             "| system | eps | model | method | CPU time [ms] | speed-up vs stiff | steps | rhs | error |",
             "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['system']} | {r['eps']:.0e} | {r['model']} | {r['method']} | {r['time'] * 1e3:.3f} "
                     f"| {r['ratio']:.2f} | {r['steps']} | {r['rhs']} | {r['error']:.2e} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_output_options(parser)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--only", nargs="*", help='rows to run, as NAME or NAME@EPS (e.g. "chain N=8@1e-4")')
    parser.add_argument("--orders", nargs="*", type=int, default=[0, 1, 2, 3])
    parser.add_argument("--velocities", choices=("coordinates", "frame", "both"), default="both")
    args = parser.parse_args(argv)
    rows = run(args.repeats, args.only, tuple(args.orders), args.velocities)
    emit(markdown(rows, args.repeats), output_of(args, argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
