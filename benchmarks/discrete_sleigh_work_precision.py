"""Benchmark: the discrete Lagrange-d'Alembert integrator against CVODE at matched accuracy.

What is integrated
------------------
The Fedorov-Zenkov Fig. 3 motion of the Chaplygin sleigh (J = m = a = 1, v0 = -1, omega0 = 0.25)
on [0, 12], as in ``papers.fedorov_zenkov.work_precision``: the discrete midpoint
integrator ``nh.simulate_discrete(sleigh.discrete(h))`` and CVODE (``nh.simulate`` of
``sleigh.nonholonomic()``, ``fz.cvode_run``: method="bdf" with drift control, i.e. projection onto
the constraint, and method="adams" without it; atol = rtol/100, 1201 output times), each exactly as
``work_precision`` runs it.

What is timed
-------------
For each target error (1e-2, 1e-3, 1e-4) and each method, the setting with the fewest evaluations
that reaches the target (from ``work_precision``; its error against the closed form is computed again
here before timing, and the script stops if it misses the target). time.perf_counter around the
``simulate`` call only (model built beforehand), one untimed warm-up, then the three methods
interleaved in rounds so that they see the same machine load. Reported: the call each label
stands for, medians and minima over the repeats, and the ratio of the discrete scheme's median to
the faster CVODE median.

Usage: python benchmarks/discrete_sleigh_work_precision.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output
from papers.fedorov_zenkov import experiments as fz

TARGETS = (1e-2, 1e-3, 1e-4)
METHODS = ("discrete", "CVODE BDF", "CVODE Adams")


def runner(row):
    """A zero-argument call that integrates ``row``'s setting as ``work_precision`` ran it."""
    system, y0, T = fz.sleigh(), fz.fig3_start(), fz.WP_T
    if row["method"] == "discrete":
        model = system.discrete(row["setting"])
        return lambda: nh.simulate_discrete(model, (0, T), y0)
    model = system.nonholonomic()
    return lambda: fz.cvode_run(model, row["method"], row["setting"])


def how_run(method: str) -> str:
    """The call a method label stands for, as printed in the table."""
    if method == "discrete":
        return "simulate_discrete(sleigh.discrete(h))"
    options = ", ".join(f"{k}={v!r}" for k, v in fz.CVODE_METHODS[method].items())
    return f"simulate({options})"


def main(argv=None) -> None:
    repeats, markdown = repeats_and_output(__doc__, 7, argv)
    s = fz.SLEIGH
    exact = fz.exact_motion(s["J"], s["m"], s["a"], fz.OMEGA0, fz.V0)
    cheapest = fz.work_precision()["cheapest"]
    lines = ["| target error | method | run as | setting | max error | median wall [ms] | min wall [ms] |",
             "|---|---|---|---|---|---|---|"]
    ratios = {}
    for target in TARGETS:
        calls = {}
        for method in METHODS:
            row = cheapest[target][method]
            if row is None:
                continue
            call = runner(row)
            res = call()                                      # warm-up, and the agreement check
            err = float(np.abs(res.q - exact.configuration(res.t)).max())
            if err > target:
                raise SystemExit(f"{method} at {row['setting']} misses {target:g}: error {err:.2e}")
            calls[method] = (row, call, err, [])
        for _ in range(repeats):                              # interleaved rounds
            for method, (_, call, _, times) in calls.items():
                start = time.perf_counter()
                call()
                times.append(time.perf_counter() - start)
        for method, (row, _, err, times) in calls.items():
            setting = f"h = {row['setting']:g}" if method == "discrete" else f"rtol {row['setting']:.0e}"
            lines.append(f"| {target:g} | {method} | `{how_run(method)}` | {setting} | {err:.2e} | "
                         f"{np.median(times) * 1e3:.2f} | {np.min(times) * 1e3:.2f} |")
        cvode = [np.median(calls[m][3]) for m in ("CVODE BDF", "CVODE Adams") if m in calls]
        if "discrete" in calls and cvode:
            ratios[target] = float(np.median(calls["discrete"][3]) / min(cvode))
    lines += ["", "Discrete median / faster CVODE median: "
              + ", ".join(f"{r:.1f} at {t:g}" for t, r in ratios.items()) + f" ({repeats} interleaved repeats).", ""]
    emit("\n".join(lines), markdown)


if __name__ == "__main__":
    main()
