"""Benchmark: nonholo against the tools users would pick instead (CasADi, PyDy, SciPy).

Workloads
---------
* friction sleigh: ``nh.systems.chaplygin_sleigh()``, friction model eps = 1e-6, y0 = [0, 0, 0,
  -1.5, 0, 1], t in [0, 20], rtol 1e-8, atol 1e-10.
* Whipple bicycle: ``nh.systems.whipple_bicycle_kane()`` (SymPy's KanesMethod as in SymPy's own
  bicycle test, benchmark parameters), upright at 5 m/s with roll rate 0.5 rad/s, t in [0, 5],
  rtol 1e-10, atol 1e-10. nonholo builds its System from the KanesMethod; PyDy, CasADi and SciPy
  integrate Kane's explicit form M(q) x' = f(q, u). This model gives the rear contact point zero
  velocity (WR_cont.set_vel(N, 0)) instead of coordinates, so the rear wheel's rolling
  constraints are embedded in the kinematics; from_kanes_method adds Kane's inertia correction
  for them, so nonholo's equations are Kane's and the agreement check passes.
* knife-edge chain: ``nh.systems.knife_edge_chain(N)``, N = 2, 4, 8, 16, 32, nonholonomic and
  friction (eps = 1e-4) models, headings theta_i = 0.1 i, velocity (1, 0, 0.3, 0, ...) projected
  onto the constraints, t in [0, 2], rtol 1e-8, atol 1e-10.

Peers
-----
nonholo (interpreter, default), nonholo compiled (``model.compile()``), CasADi cvodes without and
with jit (``compiler='shell'``), PyDy's Cython code generator with ``scipy.integrate.odeint``
(bicycle only: PyDy needs a KanesMethod), SciPy ``solve_ivp(method='LSODA')`` on lambdified
NumPy code, jitcode (skipped: it needs the right-hand side in closed form, and these models
solve a mass-matrix or saddle-point system at every call). A peer that does not import is
skipped with the reason. Install them with ``pip install -e .[bench]``.

Method
------
Every peer is set up once (set-up time reported), run once untimed, and its final state compared
with a nonholo reference at rtol 1e-12 (max-norm error relative to max(1, |y|)); a peer that
disagrees by more than 1e-5 (1e-6 for the bicycle) is reported and not timed. Then the peers run
in interleaved rounds (each round runs every peer once) and the median wall time is reported,
with the ratio peer / nonholo. For nonholo the per-step cost of the chain and its log-log slope
in n = N + 2 between N = 16 and 32 are reported too.

Usage: python benchmarks/peers.py [--quick] [--markdown PATH] [--max-n N] [--only sleigh,bicycle,chain]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from cli import add_output_options, emit, output_of  # noqa: E402
from peer_models import (casadi_kane_ode, casadi_saddle_ode, numpy_kane_rhs,  # noqa: E402
                         numpy_saddle_rhs)

REF_RTOL, REF_ATOL = 1e-12, 1e-14
PEERS = ("nonholo", "nonholo compiled", "CasADi cvodes", "CasADi cvodes + jit", "PyDy (Cython) + odeint",
         "SciPy LSODA, lambdified")


class Skip(Exception):
    """A peer that does not apply or does not install; the message says why."""


def _import(name: str):
    try:
        return __import__(name)
    except Exception as exc:  # noqa: BLE001 (any import failure means: skip this peer)
        raise Skip(f"{name} not importable ({type(exc).__name__}: {exc})") from None


# ----------------------------------------------------------------------------- runners

def nonholo_runner(model, y0, T, rtol, atol, compiled: bool):
    if compiled:
        model.compile()
        if not model.compiled:
            raise Skip("no C compiler")

    def run():
        res = nh.simulate(model, (0.0, T), y0, rtol=rtol, atol=atol, t_eval=[T])
        run.steps = res.stats["n_steps"] if isinstance(res.stats, dict) else getattr(res.stats, "n_steps", 0)
        return np.asarray(res.y)[:, -1] if np.asarray(res.y).shape[0] == len(y0) else np.asarray(res.y)[-1]

    return run


def casadi_runner(build_ode, y0, T, rtol, atol, jit: bool, options: dict | None = None):
    """CasADi's cvodes on the ODE ``build_ode(casadi)``; ``options`` are added to the integrator's
    (e.g. ``linear_solver="csparse"``). ``run.steps``: CVODES' step count of the last run."""
    ca = _import("casadi")
    x, xdot = build_ode(ca)
    opts = dict(abstol=atol, reltol=rtol, max_num_steps=10**7, **(options or {}))
    if jit:
        opts.update(jit=True, compiler="shell", jit_options=dict(flags=["-O2"], verbose=False))
    try:
        F = ca.integrator("F", "cvodes", {"x": x, "ode": xdot}, 0.0, T, opts)
    except RuntimeError as exc:
        lines = [line for line in str(exc).splitlines() if line.strip()] or [""]
        cause = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1][:300]}"
        raise Skip(f"CasADi could not build the integrator: {cause}") from None
    x0 = ca.DM(np.asarray(y0, dtype=float))

    def run():
        xf = np.asarray(F(x0=x0)["xf"]).ravel()
        run.steps = F.stats().get("nsteps")
        return xf

    return run


def lsoda_runner(rhs, y0, T, rtol, atol):
    from scipy.integrate import solve_ivp

    def run():
        sol = solve_ivp(rhs, (0.0, T), np.asarray(y0, dtype=float), method="LSODA", rtol=rtol, atol=atol, t_eval=[T])
        if sol.status != 0:
            raise RuntimeError(sol.message)
        return sol.y[:, -1]

    return run


def pydy_runner(km, values, x0, T, rtol, atol):
    _import("pydy")
    _import("Cython")
    from pydy.codegen.ode_function_generators import generate_ode_function
    from scipy.integrate import odeint

    constants = list(values)
    try:
        f = generate_ode_function(km.forcing_full, list(km.q), list(km.u), constants,
                                  mass_matrix=km.mass_matrix_full, generator="cython")
    except Exception as exc:  # noqa: BLE001 (a failed Cython build means: skip)
        raise Skip(f"PyDy's Cython generator failed ({type(exc).__name__}: {str(exc)[:200]})") from None
    p = np.array([float(values[c]) for c in constants])
    return lambda: odeint(f, np.asarray(x0, dtype=float), [0.0, T], args=(p,), rtol=rtol, atol=atol, mxstep=10**7)[-1]


# ----------------------------------------------------------------------------- workloads

def _not_applicable(reason: str):
    def build():
        raise Skip(reason)

    return build


JITCODE = ("jitcode needs the right-hand side in closed form; every model here solves a mass-matrix or "
           "saddle-point system at each call")
NO_KANE = "PyDy generates code from a KanesMethod; this system is given by G, A, mu"


def _timed(build):
    t0 = time.perf_counter()
    try:
        out = build()
    except Skip as exc:
        return None, str(exc), time.perf_counter() - t0
    return out, None, time.perf_counter() - t0


def sleigh_workload():
    T, rtol, atol, eps = 20.0, 1e-8, 1e-10, 1e-6
    y0 = np.array([0.0, 0.0, 0.0, -1.5, 0.0, 1.0])
    t0 = time.perf_counter()
    system = nh.systems.chaplygin_sleigh()
    model = system.friction(eps)
    setup = time.perf_counter() - t0
    builders = {
        "nonholo": lambda: nonholo_runner(model, y0, T, rtol, atol, False),
        "nonholo compiled": lambda: nonholo_runner(nh.systems.chaplygin_sleigh().friction(eps), y0, T, rtol, atol,
                                                   True),
        "CasADi cvodes": lambda: casadi_runner(lambda ca: casadi_saddle_ode(ca, system, "friction", eps), y0, T, rtol,
                                               atol, False),
        "CasADi cvodes + jit": lambda: casadi_runner(lambda ca: casadi_saddle_ode(ca, system, "friction", eps), y0, T,
                                                     rtol, atol, True),
        "PyDy (Cython) + odeint": _not_applicable(NO_KANE),
        "SciPy LSODA, lambdified": lambda: lsoda_runner(numpy_saddle_rhs(system, "friction", eps), y0, T, rtol, atol),
    }
    ref = nonholo_runner(model, y0, T, REF_RTOL, REF_ATOL, False)()
    return dict(name="friction sleigh, eps 1e-6, t 20, rtol 1e-8", builders=builders, ref=ref, to_common=None,
                agree=1e-5, nonholo_setup=setup)


def bicycle_state(km, values, speed=5.0, roll_rate=0.5):
    """Kane's x = [q, u] (km.q, km.u order) upright at `speed` with roll rate `roll_rate`."""
    import sympy as sp

    q0 = {qi: 0.0 for qi in km.q}
    n_dep = len(km._udep)
    independent, dependent = list(km.u)[:-n_dep], list(km.u)[-n_dep:]
    given = {"u2": roll_rate, "u3": speed / values[sp.Symbol("WRrad")], "u5": 0.0}
    ind = np.array([given[str(ui.func)] for ui in independent])
    Ars = np.array(sp.Matrix(km._Ars).xreplace(values).xreplace(q0).evalf(), dtype=float)
    u = dict(zip(independent, ind)) | dict(zip(dependent, Ars @ ind))
    return np.array([*q0.values(), *[u[ui] for ui in km.u]])


def bicycle_workload():
    from nonholo.expressions.mechanics import kane_qdot

    T, rtol, atol = 5.0, 1e-10, 1e-10
    km, values = nh.systems.whipple_bicycle_kane()
    x0 = bicycle_state(km, values)
    nq = len(km.q)
    t0 = time.perf_counter()
    system = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot")
    model = system.nonholonomic()
    setup = time.perf_counter() - t0
    y0 = np.concatenate([x0[:nq], kane_qdot(km, x0[:nq], x0[nq:], values)])

    def to_common(x):
        return np.concatenate([x[:nq], kane_qdot(km, x[:nq], x[nq:], values)])

    def nonholo_compiled():
        kane = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot")
        return nonholo_runner(kane.nonholonomic(), y0, T, rtol, atol, True)

    builders = {
        "nonholo": lambda: nonholo_runner(model, y0, T, rtol, atol, False),
        "nonholo compiled": nonholo_compiled,
        "CasADi cvodes": lambda: casadi_runner(lambda ca: casadi_kane_ode(ca, km, values), x0, T, rtol, atol, False),
        "CasADi cvodes + jit": lambda: casadi_runner(lambda ca: casadi_kane_ode(ca, km, values), x0, T, rtol, atol,
                                                     True),
        "PyDy (Cython) + odeint": lambda: pydy_runner(km, values, x0, T, rtol, atol),
        "SciPy LSODA, lambdified": lambda: lsoda_runner(numpy_kane_rhs(km, values), x0, T, rtol, atol),
    }
    ref = nonholo_runner(model, y0, T, REF_RTOL, REF_ATOL, False)()
    return dict(name="Whipple bicycle (SymPy's KanesMethod), 5 s, rtol 1e-10", builders=builders, ref=ref,
                to_common=to_common, agree=1e-6, nonholo_setup=setup, model=model, y0=y0)


def chain_state(system, N):
    n = N + 2
    q = np.concatenate([[0.0, 0.0], 0.1 * np.arange(1, N + 1)])
    v = np.zeros(n)
    v[0], v[2] = 1.0, 0.3
    return np.concatenate([q, system.project(q, v)])


def chain_workload(N, kind):
    T, rtol, atol, eps = 2.0, 1e-8, 1e-10, 1e-4
    t0 = time.perf_counter()
    system = nh.systems.knife_edge_chain(N)
    model = system.nonholonomic() if kind == "nonholonomic" else system.friction(eps)
    setup = time.perf_counter() - t0
    y0 = chain_state(system, N)
    e = None if kind == "nonholonomic" else eps

    def compiled():
        s = nh.systems.knife_edge_chain(N)
        return nonholo_runner(s.nonholonomic() if kind == "nonholonomic" else s.friction(eps), y0, T, rtol, atol, True)

    builders = {
        "nonholo": lambda: nonholo_runner(model, y0, T, rtol, atol, False),
        "nonholo compiled": compiled,
        "CasADi cvodes": lambda: casadi_runner(lambda ca: casadi_saddle_ode(ca, system, kind, e), y0, T, rtol, atol,
                                               False),
        "CasADi cvodes + jit": (lambda: casadi_runner(lambda ca: casadi_saddle_ode(ca, system, kind, e), y0, T, rtol,
                                                      atol, True)) if N <= 8 else
        _not_applicable("not run above N = 8, to bound the benchmark's run time (CasADi's expanded symbolic solve "
                        "grows like N^3 and its C compilation with it)"),
        "PyDy (Cython) + odeint": _not_applicable(NO_KANE),
        "SciPy LSODA, lambdified": lambda: lsoda_runner(numpy_saddle_rhs(system, kind, e), y0, T, rtol, atol),
    }
    ref = nonholo_runner(model, y0, T, REF_RTOL, REF_ATOL, False)()
    label = "nonholonomic" if kind == "nonholonomic" else "friction eps 1e-4"
    return dict(name=f"knife-edge chain N = {N}, {label}, t 2", builders=builders, ref=ref, to_common=None,
                agree=1e-5, nonholo_setup=setup, N=N, kind=kind)


# ----------------------------------------------------------------------------- measurement

def measure(workload, repeats: int, budget: float | None = None, progress=None) -> dict:
    """Set up, check and time every peer of ``workload`` (medians of ``repeats`` interleaved rounds).

    A peer whose set-up raises :class:`Skip`, whose first run fails or disagrees with the
    reference is skipped with the reason. With a ``budget`` (seconds), the slowest peers are left
    out of the timed rounds until ``repeats`` times their first runs fit in what remains of it.
    ``progress(stage)`` is told each stage ("set-up PEER", "timing")."""
    started = time.perf_counter()
    runs, skipped, setups, errors, first = {}, {}, {}, {}, {}
    for peer, build in workload["builders"].items():
        if progress:
            progress(f"set-up {peer}")
        run, why, setup = _timed(build)
        setups[peer] = setup if peer != "nonholo" else workload["nonholo_setup"]
        if run is None:
            skipped[peer] = why
            continue
        t0 = time.perf_counter()
        try:
            y = run()
        except Exception as exc:  # noqa: BLE001 (a peer that fails to integrate is reported, not timed)
            skipped[peer] = f"the run failed ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})"
            continue
        first[peer] = time.perf_counter() - t0
        if workload["to_common"] is not None and peer not in ("nonholo", "nonholo compiled"):
            y = workload["to_common"](y)
        ref = workload["ref"]
        err = float(np.max(np.abs(y - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        errors[peer] = err
        if not err <= workload["agree"]:
            skipped[peer] = f"disagrees with the reference (error {err:.1e} > {workload['agree']:.0e}); not timed"
            continue
        runs[peer] = run
    if budget is not None:
        left = budget - (time.perf_counter() - started)
        while runs and repeats * sum(first[p] for p in runs) > left:
            slowest = max(runs, key=first.get)
            skipped[slowest] = (f"one run takes {first[slowest]:.1f} s: {repeats} repeats would exceed the "
                                f"budget of {budget:.0f} s; not timed")
            del runs[slowest]
    if progress:
        progress("timing")
    times = {peer: [] for peer in runs}
    for _ in range(repeats):
        for peer, run in runs.items():
            t0 = time.perf_counter()
            run()
            times[peer].append(time.perf_counter() - t0)
    medians = {peer: statistics.median(ts) for peer, ts in times.items()}
    steps = getattr(runs.get("nonholo"), "steps", None)
    peer_steps = {peer: getattr(run, "steps", None) for peer, run in runs.items()}
    return dict(medians=medians, skipped=skipped, setups=setups, errors=errors, steps=steps, peer_steps=peer_steps,
                first=first)


def rhs_microseconds(model, y0, calls: int = 3000) -> float:
    """Median over 5 batches of one model.rhs call through Python (includes ~1 us of call overhead)."""
    core, p = model.core, model.param_vector()
    y = np.asarray(y0, dtype=float)
    batches = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            core.rhs(0.0, y, p)
        batches.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(batches)


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e3:.3g} ms"


def table(results, peers=PEERS) -> str:
    head = "| workload | " + " | ".join(peers) + " |"
    lines = [head, "|---|" + "---:|" * len(peers)]
    for name, res in results:
        base = res["medians"].get("nonholo")
        cells = []
        for peer in peers:
            t = res["medians"].get(peer)
            if t is None:
                cells.append("-")
            elif peer == "nonholo" or base is None:
                cells.append(_fmt(t))
            else:
                cells.append(f"{_fmt(t)} ({t / base:.2g}x)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 repeats, chain up to N = 8")
    add_output_options(parser)
    parser.add_argument("--max-n", type=int, default=32, help="largest chain (default 32)")
    parser.add_argument("--only", default="sleigh,bicycle,chain", help="comma-separated workloads")
    args = parser.parse_args(argv)
    repeats = 2 if args.quick else 7
    max_n = min(args.max_n, 8) if args.quick else args.max_n
    only = set(args.only.split(","))
    workloads = []
    if "sleigh" in only:
        workloads.append(sleigh_workload)
    if "bicycle" in only:
        workloads.append(bicycle_workload)
    if "chain" in only:
        for N in (n for n in (2, 4, 8, 16, 32) if n <= max_n):
            workloads.append(lambda N=N: chain_workload(N, "nonholonomic"))
            workloads.append(lambda N=N: chain_workload(N, "friction"))
    results, notes, per_step = [], [], {}
    for make in workloads:
        w = make()
        res = measure(w, repeats)
        results.append((w["name"], res))
        print(f"{w['name']}: " + ", ".join(f"{p} {_fmt(t)}" for p, t in res["medians"].items()), flush=True)
        for peer, why in res["skipped"].items():
            notes.append(f"- {w['name']}: {peer} skipped: {why}")
        notes.append(f"- {w['name']}: set-up " + ", ".join(f"{p} {s:.2f} s" for p, s in res["setups"].items()
                                                           if p not in res["skipped"]))
        if "model" in w:
            m = w["model"]
            notes.append(f"- {w['name']}: one right-hand side through Python: interpreter "
                         f"{rhs_microseconds(m, w['y0']):.1f} us")
        if "N" in w and res["steps"]:
            per_step[(w["kind"], w["N"])] = res["medians"]["nonholo"] / res["steps"]
    for kind in ("nonholonomic", "friction"):
        if (kind, 16) in per_step and (kind, 32) in per_step:
            slope = math.log(per_step[(kind, 32)] / per_step[(kind, 16)]) / math.log(34 / 18)
            notes.append(f"- knife-edge chain, {kind}: nonholo's cost per step grows like n^{slope:.2f} "
                         "between N = 16 and 32 (n = N + 2)")
    notes.append(f"- jitcode: not run: {JITCODE}")
    text = (f"Medians of {repeats} interleaved repeats (ratio to nonholo's default in brackets).\n\n"
            + table(results) + "\n\n" + "\n".join(notes) + "\n")
    emit(text, output_of(args, argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
