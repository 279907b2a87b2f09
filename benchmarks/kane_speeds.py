"""Benchmark: a KanesMethod system integrated in Kane's speeds (the default of from_kanes_method)
against the same system in q' and against an explicit integration of KanesMethod's own equations.

The ball on a rotating table of ``nh.systems.ball_on_turntable_kane`` (ZXZ Euler angles, singular
at sin(q2) = 0), started at tilt q2 = 0.3 and rolling over the pole of the chart (|sin q2| down
to 0.005), t in [0, 2]. Columns: steps (right-hand sides) of nonholo in Kane's speeds
(``system.nonholonomic()``, method "auto" and "dop853"), in q' (``form="qdot"``, "auto"), and of
scipy's solve_ivp (DOP853 and RK45) on km's mass_matrix_full and forcing_full lambdified, at each
rtol (atol = rtol / 100); issue 28 asks for the speeds within 1.5x of the explicit integration.

Second table: the cost of one right-hand side of SymPy's Whipple bicycle
(``nh.systems.whipple_bicycle_kane()``) in Kane's speeds, measured in C++
(``_core.diagnostics.time_evaluations``, no Python call in the loop) at a random state, medians of
interleaved repeats: the frame solved numerically (the default since issue 40: J, q0, C, f from a
tape, a pivoted LU of C_dep and implicit differentiation at each evaluation), the frame solved
symbolically as before issue 40 (X = J E and w0 with E from SymPy's LUsolve, compiled to a tape;
NaN at the upright state), and the q' model (``form="qdot"``).
Usage: python benchmarks/kane_speeds.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import warnings

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh
from cli import emit, repeats_and_output
from nonholo import _core
from nonholo.frames import AnholonomicFrame
from nonholo.expressions.mechanics import kane_qdot, kane_speeds

Q0, U0 = np.r_[0.2, 0.1, 0.3, 0.3, 0.0], np.r_[-1.0, 0.1, 0.0]  # rolls over the pole: |sin q2| >= 0.005
SPAN = (0.0, 2.0)


def km_rhs(km, params):
    q, u = list(km.q), list(km.u)
    syms = sp.symbols(f"s0:{len(q) + len(u)}")
    rule = {**dict(zip(q + u, syms)), **{sp.Symbol(k): v for k, v in params.items()}}
    M = sp.lambdify([syms], km.mass_matrix_full.xreplace(rule), "numpy")
    F = sp.lambdify([syms], km.forcing_full.xreplace(rule), "numpy")
    return lambda t, y: np.linalg.solve(np.asarray(M(y), float), np.asarray(F(y), float).ravel())


def run() -> list:
    km, params = nh.systems.ball_on_turntable_kane()
    ball = nh.System.from_kanes_method(km, params)
    x, y = Q0[:2]
    r, om = params["r"], params["Omega"]
    u = np.r_[U0, r * U0[1] - om * y, -r * U0[0] + om * x]  # the dependent speeds (rolling on the table)
    y_qdot = np.r_[Q0, kane_qdot(km, Q0, u, params)]
    y_u = np.r_[Q0, kane_speeds(km, Q0, y_qdot[5:], params)]
    f = km_rhs(km, params)
    rows = []
    for rtol in (1e-6, 1e-8, 1e-10):
        atol = rtol / 100
        speeds = nh.simulate(ball.nonholonomic(), SPAN, np.r_[Q0, U0], rtol=rtol, atol=atol)
        explicit = nh.simulate(ball.nonholonomic(), SPAN, np.r_[Q0, U0], rtol=rtol, atol=atol, method="dop853")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qdot = nh.simulate(ball.nonholonomic(form="qdot"), SPAN, y_qdot, rtol=rtol, atol=atol)
        dop = solve_ivp(f, SPAN, y_u, method="DOP853", rtol=rtol, atol=atol)
        rk45 = solve_ivp(f, SPAN, y_u, method="RK45", rtol=rtol, atol=atol)
        rows.append((rtol, _cost(speeds), speeds.method, _cost(explicit), _cost(qdot), f"{dop.t.size - 1} ({dop.nfev})",
                     f"{rk45.t.size - 1} ({rk45.nfev})", float(np.abs(speeds.y[:5, -1] - dop.y[:5, -1]).max())))
    return rows


def _cost(result) -> str:
    return f"{result.stats['n_steps']} ({result.stats['n_rhs']}){'' if result.status >= 0 else ' failed'}"


def table(rows: list) -> str:
    lines = ["| rtol | Kane's speeds, auto: steps (rhs) | method | Kane's speeds, dop853 | q', auto | "
             "solve_ivp DOP853 on km | solve_ivp RK45 on km | max abs(q - q_DOP853) at t = 2 |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r:.0e} | {s} | {m} | {x} | {q} | {d} | {k} | {e:.1e} |" for r, s, m, x, q, d, k, e in rows]
    return "\n".join(lines)


def bicycle_rhs_costs(repeats: int) -> str:
    km, values = nh.systems.whipple_bicycle_kane()
    system = nh.System.from_kanes_method(km, values, check_kinematics=False)
    names, parts, _ = system.speeds
    symbolic = AnholonomicFrame(system, parts.vectors(), offset=parts.offset(), velocity_names=names).hamel()
    models = {"numeric frame (default)": system.nonholonomic(), "symbolic frame (before issue 40)": symbolic,
              "q' model": system.nonholonomic(form="qdot")}
    rng = np.random.default_rng(0)
    q = rng.uniform(-0.5, 0.5, system.n)
    u = rng.uniform(-1, 1, system.n - system.k)
    v = system.speed_frame().velocity(q, u)
    states = {name: (np.r_[q, v] if name == "q' model" else np.r_[q, u]) for name in models}
    p = system.param_vector()
    times: dict = {name: [] for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            times[name].append(_core.diagnostics.time_evaluations(model.core, 0.0, states[name], p, 2000)[0])
    base = statistics.median(times["numeric frame (default)"])
    lines = ["| bicycle right-hand side | median (us) | / numeric frame |", "|---|---:|---:|"]
    lines += [f"| {name} | {1e6 * statistics.median(ts):.2f} | {statistics.median(ts) / base:.2f} |"
              for name, ts in times.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    repeats, markdown = repeats_and_output(__doc__, 15)
    emit(table(run()) + "\n\n" + bicycle_rhs_costs(repeats), markdown)
