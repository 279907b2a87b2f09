"""Benchmark: building and running the rolling bodies, beside the route users have today
(sympy.physics.mechanics with Kane's method, turned into a System by System.from_kanes_method).

For each built-in 3-D system: the build time (median of repeats, fresh SymPy symbols each
time) and the wall time of a nonholonomic run at rtol 1e-10. For the Kane-Levinson rattleback
the same body is also built by Kane's method in Euler angles; both models are checked to agree
(body angular acceleration at random states, and the spin-reversal time from Kane and
Levinson's initial data) before anything is timed.

Usage: python benchmarks/rolling_bodies.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import sympy as sp

import nonholo as nh
from cli import emit, repeats_and_output
from nonholo.bodies import quaternion_from_euler
from nonholo.contact import rolling_state
from nonholo.systems.rattleback import KANE_LEVINSON, kane_levinson_state
from nonholo.testing import kanes_rolling_body, rolling_vector_field_difference

RTOL, ATOL = 1e-10, 1e-12


def kane_rattleback() -> dict:
    """The rattleback by sympy.physics.mechanics (Kane's method in Euler angles)."""
    m, a, b, c, h, A, B, C, D, g = syms = sp.symbols("m a b c h A B C D g")
    axes = sp.diag(a**2, b**2, c**2)
    return kanes_rolling_body(lambda gamma: axes * gamma / sp.sqrt((gamma.T * axes * gamma)[0]), (0, 0, -h),
                              m * sp.Matrix([[A, -D, 0], [-D, B, 0], [0, 0, C]]), m, g,
                              {s: KANE_LEVINSON[s.name] for s in syms})


def reversal_time(t, w) -> float:
    i = np.nonzero((w[:-1] > 0) & (w[1:] <= 0))[0][0]
    return float(t[i] - w[i] * (t[i + 1] - t[i]) / (w[i + 1] - w[i]))


def compare_rattlebacks(oracle, mine) -> dict:
    kane, omega, q, u = oracle["system"], oracle["omega"], oracle["q"], oracle["u"]
    W = sp.lambdify([q, u], omega, "numpy")
    Wu = sp.lambdify([q], omega.jacobian(u), "numpy")
    worst = rolling_vector_field_difference(oracle, mine, n_states=5, tilt=0.3)
    # Kane and Levinson's start: Euler angles (0, alpha, -beta) give their tilt in our axes
    al = be = np.radians(0.5)
    e0 = np.array([0, al, -be, 0, 0])
    M3 = np.asarray(Wu(e0), float)[:, :3]
    ed0 = np.r_[np.linalg.solve(M3, [0, 0, 5.0]), 0, 0]
    A, _ = kane.constraint_matrix(e0)
    ed0[3:] = -np.linalg.solve(A[:, 3:], A[:, :3] @ ed0[:3])
    t = np.linspace(0, 2.5, 25001)
    rk = nh.simulate(kane.nonholonomic(), (0, 2.5), np.r_[e0, ed0], t_eval=t, rtol=1e-11, atol=1e-13)
    w_kane = np.array([np.asarray(W(y[:5], y[5:]), float).ravel()[2] for y in rk.y.T])
    rm = nh.simulate(mine.nonholonomic(), (0, 2.5), kane_levinson_state(mine), t_eval=t, rtol=1e-11, atol=1e-13)
    return {"vector field": worst, "reversal kane": reversal_time(t, w_kane),
            "reversal nonholo": reversal_time(t, rm["omega_3"])}


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    repeats, markdown = repeats_and_output(__doc__, 5)
    rows = ["| system | build (s) | nonholonomic run | run time (s) |", "|---|---|---|---|"]
    starts = {
        "chaplygin_ball": lambda s: rolling_state(s, quaternion_from_euler(0.3, 0.2, 0.1), [1.0, 2.0, 3.0]),
        "rolling_disc": lambda s: rolling_state(s, quaternion_from_euler(0, 0, 0.1), [0, 4.0, 0]),
        "rattleback": kane_levinson_state,
        "tippe_top": lambda s: rolling_state(s, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0]),
    }
    for name, start in starts.items():
        build, system = median_time(getattr(nh.systems, name), repeats)
        y0 = start(system)
        run, _ = median_time(lambda: nh.simulate(system.nonholonomic(), (0, 5), y0, rtol=RTOL, atol=ATOL), repeats)
        rows.append(f"| {name} | {build:.2f} | 5 s at rtol {RTOL:g} | {run:.3f} |")
    kane_build, oracle = median_time(kane_rattleback, 1)
    check = compare_rattlebacks(oracle, nh.systems.rattleback())
    assert check["vector field"] < 1e-10, check
    assert abs(check["reversal kane"] - check["reversal nonholo"]) < 1e-7, check
    rows += ["", f"Rattleback through sympy.physics.mechanics (Kane's method + from_kanes_method): build "
             f"{kane_build:.1f} s. Agreement: body angular acceleration to {check['vector field']:.1e} (relative, 5 "
             f"random states); spin reversal at {check['reversal kane']:.10f} s (Kane) and "
             f"{check['reversal nonholo']:.10f} s (nonholo)."]
    emit("\n".join(rows), markdown)


if __name__ == "__main__":
    main()
