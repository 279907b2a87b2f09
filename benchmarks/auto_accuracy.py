"""Benchmark: the accuracy of method="auto" against Adams, BDF and DOP853 on non-stiff constrained systems.

What is measured
----------------
For each system, the nonholonomic model (the rolling model for the rattleback, the tippe top and
the Chaplygin ball) is integrated over [0, 10] (the tippe top over [0, 8]) from a fixed state with
rtol = 1e-6, 1e-8, 1e-10 and atol = rtol / 100, by each method with its defaults. The global error
is the largest difference of the final state from a reference at rtol = 1e-13, atol = 1e-16 (DOP853).
Reported: the errors, auto's ratio to the smallest of adams, bdf and dop853 (the target is at most
2), the slope of log(error) against log(rtol) for auto (the target is 0.8 to 1.2), and the steps.

A second table: the relative energy drift |E(T) - E(0)| / |E(0)| over T = 1e4 with the defaults
(rtol 1e-8) for conservative systems: the sleigh, the vertical disc, the Chaplygin ball, the rolling
disc and four roller racers (``nonholo.testing.roller_racer``, no builder of nonholo.systems; the
target is at most 100 rtol); beside it, DOP853 at auto's tenth of the tolerances without the
tightening of long runs (kAutoTightenSteps, auto before issue 40), and the ratio of the steps.

Usage: python benchmarks/auto_accuracy.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import warnings

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output
from nonholo.builders.bodies import quaternion_from_euler
from nonholo.builders.contact import rolling_state
from nonholo.systems.rattleback import kane_levinson_state
from nonholo.testing import loglog_slope, roller_racer

RTOLS = (1e-6, 1e-8, 1e-10)
METHODS = ("auto", "adams", "bdf", "dop853")


def on_constraints(system, q, v) -> np.ndarray:
    """[q, v] with v projected G-orthogonally onto A(q) v = b."""
    return np.r_[q, system.project(q, v)]


def cases() -> dict:
    """name -> (system, y0, T): fixed starts on the constraint set."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    disc = nh.systems.vertical_rolling_disk()
    board = nh.systems.snakeboard()
    robot = nh.systems.differential_drive()
    rattle = nh.systems.rattleback()
    m, R = 0.015, 0.02
    top = nh.systems.tippe_top(m=m, R=R, alpha=0.3, I3=0.4 * m * R**2, I1=0.38 * m * R**2)
    ball = nh.systems.chaplygin_ball()
    return {
        "Chaplygin sleigh": (sleigh, np.array([0, 0, 0, -1.5, 0, 1.0]), 10.0),
        "vertical disc": (disc, np.array([0, 0, 0, 0, 0.7, 0.9, 0, 0.9]), 10.0),
        "snakeboard": (board, on_constraints(board, [0, 0, 0, 0, 0.3], [0, 0.5, 1.0, 0.2, 0]), 10.0),
        "differential drive": (robot, on_constraints(robot, [0, 0, 0, 0, 0], [0.5, 0, 0.8, 0, 0]), 10.0),
        "rattleback": (rattle, kane_levinson_state(rattle), 10.0),
        "tippe top": (top, rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0]), 8.0),
        "Chaplygin ball": (ball, rolling_state(ball, quaternion_from_euler(0.2, 0.3, 0.1), [1.0, -0.5, 2.0]), 10.0),
    }


def final_state(model, y0, T, **kwargs):
    result = nh.simulate(model, (0, T), y0, t_eval=[T], raise_on_failure=True, **kwargs)
    return result.y[:, -1], result


def accuracy_rows() -> tuple:
    rows = ["| system | rtol | auto | adams | bdf | dop853 | auto / best | auto ran | steps (auto) |",
            "|---|---|---|---|---|---|---|---|---|"]
    slopes = []
    for name, (system, y0, T) in cases().items():
        model = system.nonholonomic()
        reference, _ = final_state(model, y0, T, rtol=1e-13, atol=1e-16, method="dop853")
        auto_errors = []
        for rtol in RTOLS:
            errors, ran = {}, None
            for method in METHODS:
                y, result = final_state(model, y0, T, rtol=rtol, atol=rtol / 100, method=method)
                errors[method] = float(np.abs(y - reference).max())
                if method == "auto":
                    ran, steps = result.method, result.stats["n_steps"]
            best = min(errors[m] for m in METHODS[1:])
            auto_errors.append(errors["auto"])
            rows.append(f"| {name} | {rtol:.0e} | " + " | ".join(f"{errors[m]:.2e}" for m in METHODS)
                        + f" | {errors['auto'] / best:.2f} | {ran} | {steps} |")
        slopes.append((name, loglog_slope(RTOLS, auto_errors)))
    rows += ["", "| system | slope of auto's error against rtol |", "|---|---|"]
    rows += [f"| {name} | {slope:.2f} |" for name, slope in slopes]
    return rows


def conservative_cases() -> dict:
    """name -> (system, y0): the energy table's systems, on the constraint set."""
    found = {name: cases()[name][:2] for name in ("Chaplygin sleigh", "vertical disc", "Chaplygin ball")}
    disc = nh.systems.rolling_disc()
    found["rolling disc"] = (disc, rolling_state(disc, [np.cos(0.15), np.sin(0.15), 0.0, 0.0], [0.0, 6.0, 0.0]))
    q0 = np.array([0.0, 0.0, 0.0, 0.6])
    racers = {"roller racer": ({}, [1.0, 0, 0, 0]), "roller racer, turning": ({}, [1.0, 0, 0.3, 0.8]),
              "roller racer, heavy rear": (dict(m2=2.0, I2=1.0, d2=0.9), [1.0, 0, 0, 0]),
              "roller racer, light rear": (dict(m2=0.2, I2=0.05, d1=0.5, d2=0.3), [1.0, 0, 0.5, 0])}
    for name, (parameters, v) in racers.items():
        racer = roller_racer(**parameters)
        found[name] = (racer, on_constraints(racer, q0, v))
    return found


def energy_rows(T: float = 1e4, rtol: float = 1e-8) -> list:
    rows = ["", f"Relative energy drift over t in [0, {T:g}] with the defaults (rtol {rtol:g}); "
            f"target <= {100 * rtol:g}; beside it DOP853 at a tenth of the tolerances, never tightened:",
            "", "| system | drift | method | steps | drift, DOP853 at rtol / 10 | its steps | steps / its steps |",
            "|---|---|---|---|---|---|---|"]
    for name, (system, y0) in conservative_cases().items():
        model, n = system.nonholonomic(), system.n
        y, result = final_state(model, y0, T, rtol=rtol, atol=rtol / 100)
        y_fixed, fixed = final_state(model, y0, T, rtol=rtol * 0.1, atol=rtol / 100 * 0.1, method="dop853")
        E0 = system.energy(y0[:n], y0[n:])
        drift, drift_fixed = (abs(system.energy(z[:n], z[n:]) - E0) / abs(E0) for z in (y, y_fixed))
        steps, steps_fixed = result.stats["n_steps"], fixed.stats["n_steps"]
        rows.append(f"| {name} | {drift:.2e} | {result.method} | {steps} | {drift_fixed:.2e} | {steps_fixed} | "
                    f"{steps / steps_fixed:.2f} |")
    return rows


def main(argv=None) -> None:
    _, path = repeats_and_output(__doc__, 1, argv)
    with warnings.catch_warnings():
        warnings.simplefilter("error", nh.SimulationWarning)
        rows = accuracy_rows() + energy_rows()
    emit("\n".join(rows) + "\n", path)


if __name__ == "__main__":
    main()
