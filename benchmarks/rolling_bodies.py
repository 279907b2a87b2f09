"""Benchmark: building and running the rolling bodies, beside the route users have today
(sympy.physics.mechanics with Kane's method, turned into a System by System.from_kanes_method).

For each built-in 3-D system: the build time (median of repeats, fresh SymPy symbols each
time) and the wall time of a nonholonomic run at rtol 1e-10. The Kane-Levinson rattleback's
5 s run by method (BDF with projection, the default, against Adams) and evaluation
(interpreted against model.compile()); its friction realization for several eps (reversal of
the spin averaged over the rocking, its order of convergence to the rolling one, and the run
time under the integrator's Jacobian policy against a refresh at every step). The same
rattleback is also built by Kane's method in Euler angles; both models are checked to agree
(body angular acceleration at random states, and the spin-reversal time from Kane and
Levinson's initial data, also with Kane's equations integrated by scipy alone) before
anything is timed.

Usage: python benchmarks/rolling_bodies.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import sympy as sp

import nonholo as nh
from cli import emit, repeats_and_output
from nonholo.builders.bodies import quaternion_from_euler
from nonholo.builders.contact import rolling_state
from nonholo.systems.rattleback import KANE_LEVINSON, kane_levinson_state, reversal_time, vertical_spin
from nonholo.testing import kanes_rolling_body, loglog_slope, rolling_vector_field_difference

RTOL, ATOL = 1e-10, 1e-12


def kane_rattleback() -> dict:
    """The rattleback by sympy.physics.mechanics (Kane's method in Euler angles)."""
    m, a, b, c, h, A, B, C, D, g = syms = sp.symbols("m a b c h A B C D g")
    axes = sp.diag(a**2, b**2, c**2)
    return kanes_rolling_body(lambda gamma: axes * gamma / sp.sqrt((gamma.T * axes * gamma)[0]), (0, 0, -h),
                              m * sp.Matrix([[A, -D, 0], [-D, B, 0], [0, 0, C]]), m, g,
                              {s: KANE_LEVINSON[s.name] for s in syms})


def kane_initial_state(oracle) -> np.ndarray:
    """Kane and Levinson's start in the oracle's Euler angles: (0, alpha, -beta) give their
    tilt in our axes; spin 5 rad/s about the body's third axis; no slip."""
    kane, omega, q, u = oracle["system"], oracle["omega"], oracle["q"], oracle["u"]
    Wu = sp.lambdify([q], omega.jacobian(u), "numpy")
    al = be = np.radians(0.5)
    e0 = np.array([0, al, -be, 0, 0])
    ed0 = np.r_[np.linalg.solve(np.asarray(Wu(e0), float)[:, :3], [0, 0, 5.0]), 0, 0]
    A, _ = kane.constraint_matrix(e0)
    ed0[3:] = -np.linalg.solve(A[:, 3:], A[:, :3] @ ed0[:3])
    return np.r_[e0, ed0]


def scipy_kane_reversal(oracle, t) -> float:
    """The reversal time from Kane's equations alone: SymPy's mass_matrix_full and forcing_full
    (q' = u, the dynamic equations and the differentiated no-slip rows), lambdified and
    integrated by scipy's DOP853 at rtol 1e-12; nonholo's core is not involved."""
    from scipy.integrate import solve_ivp

    km, q, u = oracle["kanes_method"], oracle["q"], oracle["u"]
    plain = sp.symbols("e0:5 w0:5")
    to_plain = dict(zip([*q, *u], plain))
    params = {s: KANE_LEVINSON[s.name] for s in km.mass_matrix_full.free_symbols | km.forcing_full.free_symbols
              if isinstance(s, sp.Symbol) and s.name in KANE_LEVINSON}
    M = sp.lambdify([plain], km.mass_matrix_full.xreplace(to_plain).xreplace(params), "numpy", cse=True)
    F = sp.lambdify([plain], km.forcing_full.xreplace(to_plain).xreplace(params), "numpy", cse=True)
    W = sp.lambdify([plain], oracle["omega"].xreplace(to_plain), "numpy")
    sol = solve_ivp(lambda _, x: np.linalg.solve(np.asarray(M(x), float), np.asarray(F(x), float).ravel()),
                    (t[0], t[-1]), kane_initial_state(oracle), method="DOP853", t_eval=t, rtol=1e-12, atol=1e-14)
    return reversal_time(t, np.array([np.asarray(W(x), float).ravel()[2] for x in sol.y.T]))


def compare_rattlebacks(oracle, mine) -> dict:
    kane, omega, q, u = oracle["system"], oracle["omega"], oracle["q"], oracle["u"]
    W = sp.lambdify([q, u], omega, "numpy")
    worst = rolling_vector_field_difference(oracle, mine, n_states=5, tilt=0.3)
    t = np.linspace(0, 2.5, 25001)
    # state [q, q'] (Kane's start above): the q' form, not the default form in Kane's speeds
    rk = nh.simulate(kane.nonholonomic(form="qdot"), (0, 2.5), kane_initial_state(oracle), t_eval=t, rtol=1e-11,
                     atol=1e-13)
    w_kane = np.array([np.asarray(W(y[:5], y[5:]), float).ravel()[2] for y in rk.y.T])
    rm = nh.simulate(mine.nonholonomic(), (0, 2.5), kane_levinson_state(mine), t_eval=t, rtol=1e-11, atol=1e-13)
    return {"vector field": worst, "reversal kane": reversal_time(t, w_kane),
            "reversal kane scipy": scipy_kane_reversal(oracle, t),
            "reversal nonholo": reversal_time(t, rm["omega_3"])}


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def rattleback_run_variants(repeats) -> list:
    """The 5 s Kane-Levinson run at rtol 1e-10 by method and evaluation: BDF (the default for a
    constrained model: CVODE projects onto the constraints, and |q| = 1, only with BDF) against
    Adams (no projection), the interpreted tapes against model.compile()."""
    rows = ["| rattleback, 5 s at rtol 1e-10 | time (s) | steps | RHS | Jacobians | constraint residual "
            "| max \\|\\|q\\| - 1\\| |", "|---|---|---|---|---|---|---|"]
    for compiled in (False, True):
        system = nh.systems.rattleback()
        model, y0 = system.nonholonomic(), kane_levinson_state(system)
        if compiled:
            start = time.perf_counter()
            model.compile()
            rows.append(f"| (model.compile(): {time.perf_counter() - start:.1f} s; near 0 when its disk cache "
                        "already holds the tapes) | | | | | | |")
        for method in ("auto", "adams"):
            run, r = median_time(lambda: nh.simulate(model, (0, 5), y0, rtol=RTOL, atol=ATOL, method=method), repeats)
            st = r.stats
            label = (f"{r.method.upper()}{' (default)' if method == 'auto' else ''}, "
                     f"{'compiled' if compiled else 'interpreted'}")
            rows.append(f"| {label} | {run:.3f} | {st['n_steps']} | {st['n_rhs']} | {st['n_jac']} | "
                        f"{r.constraint_residual().max():.1e} | {r.unit_norm_residual().max():.1e} |")
    return rows


def rattleback_friction(repeats) -> list:
    """The reversal as the contact softens: viscous sliding f = -s/eps from Kane and Levinson's
    start, the vertical spin averaged over 0.3 s (the rocking removed) and its zero crossing;
    the fitted order of |T(eps) - T(rolling)| over the three smallest eps. And the cost of one
    run under the integrator's Jacobian policy against a refresh at every step."""
    system = nh.systems.rattleback()
    y0 = kane_levinson_state(system)
    t = np.linspace(0, 3.6, 3601)
    reference = reversal_time(t, vertical_spin(nh.simulate(system.nonholonomic(), (0, 3.6), y0, t_eval=t,
                                                           rtol=RTOL, atol=ATOL)), window=0.3)
    rows = [f"Reversal of the averaged vertical spin, rolling: {reference:.4f} s (friction runs at rtol 1e-8).", "",
            "| eps | reversal (s) | T(eps) - T(rolling) (s) | run (s) | run, Jacobian every step (s) |",
            "|---|---|---|---|---|"]
    eps_list, deltas = (1e-2, 1e-3, 1e-4, 1e-5, 2.5e-6), []
    for eps in eps_list:
        run, r = median_time(lambda: nh.simulate(system.friction(eps), (0, 3.6), y0, t_eval=t, rtol=1e-8,
                                                 atol=1e-10), repeats)
        every, _ = median_time(lambda: nh.simulate(system.friction(eps), (0, 3.6), y0, t_eval=t, rtol=1e-8, atol=1e-10,
                                                   solver_options={"jacobian_frequency": 1, "setup_frequency": 1}),
                               1)
        T = reversal_time(t, vertical_spin(r), window=0.3)
        deltas.append(T - reference)
        rows.append(f"| {eps:g} | {T:.4f} | {T - reference:+.4f} | {run:.2f} | {every:.2f} |")
    slope = loglog_slope(eps_list[-3:], deltas[-3:])
    rows += ["", f"Fitted order of T(eps) - T(rolling) over eps = {eps_list[-3]:g} .. {eps_list[-1]:g}: {slope:.2f}."]
    return rows


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
    rows += [""] + rattleback_run_variants(repeats)
    rows += [""] + rattleback_friction(max(1, repeats // 2))
    kane_build, oracle = median_time(kane_rattleback, 1)
    check = compare_rattlebacks(oracle, nh.systems.rattleback())
    assert check["vector field"] < 1e-10, check
    assert abs(check["reversal kane"] - check["reversal nonholo"]) < 1e-7, check
    assert abs(check["reversal kane scipy"] - check["reversal nonholo"]) < 1e-7, check
    rows += ["", f"Rattleback through sympy.physics.mechanics (Kane's method + from_kanes_method): build "
             f"{kane_build:.1f} s. Agreement: body angular acceleration to {check['vector field']:.1e} (relative, 5 "
             f"random states); spin reversal (first zero of the body spin) at {check['reversal kane']:.10f} s "
             f"(Kane's model run by nonholo), {check['reversal kane scipy']:.10f} s (Kane's equations run by scipy's "
             f"DOP853) and {check['reversal nonholo']:.10f} s (nonholo's rattleback)."]
    emit("\n".join(rows), markdown)


if __name__ == "__main__":
    main()
