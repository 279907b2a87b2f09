"""Benchmark: the Chaplygin sleigh with sideways friction, nonholo vs hand-written CVODE vs SciPy.

What is integrated
------------------
State y = [x, y, phi, x', y', phi'], parameters m = 1, I = 1, a = 0.2, mu = 1, the friction model
``G(q) v' = -c(q, v) - (1/eps) A^T mu A v`` with A = (-sin phi, cos phi, 0). With s = sin phi,
c = cos phi, the sideways velocity w = A v, rho = mu (I + m a^2)/(I m eps) and k = mu a/(I eps),
the right-hand side reduces to

    x'' = a c phi'^2 + rho s w,     y'' = a s phi'^2 - rho c w,     phi'' = k w,

which is the body-frame system u' = w omega + a omega^2, w' = -u omega - rho w, omega' = k w
rotated into the plane. Its Jacobian is written out by hand (``sleigh_jacobian``) and checked
against central finite differences and against nonholo's Jacobian before anything is timed.
Initial state [0, 0, 0, -1.5, 0, 1] (u0 = -1.5, omega0 = 1), t in [0, 20], rtol = 1e-8 and
atol = 1e-10 for every method, eps = 1e-4 and 1e-6.

What is timed
-------------
* nonholo: ``nh.simulate(model, (0, 20), y0, rtol, atol, t_eval=[20.0])`` (CVODE BDF with the
  model's Jacobian: implicit differentiation of its solve, checked against dual numbers),
  time.perf_counter around that call only; the model is built beforehand.
* CVODE, hand-written: benchmarks/friction_sleigh_cvode.cpp (RHS and analytic Jacobian by hand,
  CVODE BDF + dense linear solver, CV_NORMAL with a stop time at 20), compiled here with g++ -O2
  into benchmarks/_build/. It repeats the integration in one process and times each repetition
  with std::chrono (creating the CVODE objects, integrating, freeing them), so process start-up
  is not measured.
* SciPy: ``solve_ivp`` with BDF, Radau and LSODA, each with the analytic Jacobian (``jac=``), the
  same tolerances and t_eval=[20.0]; time.perf_counter around the call.

Every method gets an untimed warm-up run first; the nonholo and hand-written CVODE repeats are
interleaved run by run (``--rounds``, default one run of each per round) so that both see the same
machine load. Reported: the median wall
time over the repeats (fast methods: at least 5; slow SciPy runs: as many as fit a time budget,
at least 1, the table says how many) and the minimum (less sensitive to preemption on a busy
machine), solver steps and function/Jacobian evaluations, and the max-norm error of the state at
t = 20 against a reference computed by nonholo at rtol = 1e-12, atol = 1e-14 (cross-checked
against the hand-written CVODE code at the same tolerances). SciPy's step count is taken from the
warm-up run with t_eval=None. Targets: nonholo within 1.3x of the hand-written CVODE time (issue 13), and at
least 4x faster than LSODA; the verdicts use the medians.

Usage: python benchmarks/friction_sleigh.py [--quick] [--rounds R] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import nonholo as nh
from cli import cpu_model, results_record, script_options  # the script's directory is on sys.path

HERE = Path(__file__).resolve().parent
CPP_SOURCE = HERE / "friction_sleigh_cvode.cpp"
BUILD_DIR = HERE / "_build"
EXECUTABLE = BUILD_DIR / "friction_sleigh_cvode"
SUNDIALS_LIBS = ["-lsundials_cvode", "-lsundials_nvecserial", "-lsundials_sunmatrixdense",
                 "-lsundials_sunlinsoldense"]

PARAMS = dict(m=1.0, I=1.0, a=0.2, mu=1.0)
Y0 = np.array([0.0, 0.0, 0.0, -1.5, 0.0, 1.0])
T_SPAN = (0.0, 20.0)
RTOL, ATOL = 1e-8, 1e-10
REF_RTOL, REF_ATOL = 1e-12, 1e-14
EPSILONS = (1e-4, 1e-6)
SCIPY_METHODS = ("BDF", "Radau", "LSODA")
TARGET_VS_CVODE = 1.3   # nonholo time / hand-written CVODE time must be <= this
TARGET_VS_LSODA = 4.0   # LSODA time / nonholo time must be >= this


# ----------------------------------------------------------------------------- the model by hand

def _coefficients(eps: float):
    m, I, a, mu = PARAMS["m"], PARAMS["I"], PARAMS["a"], PARAMS["mu"]
    return a, mu * (I + m * a * a) / (I * m * eps), mu * a / (I * eps)


def make_rhs(eps: float):
    """f(t, y) of the friction sleigh, in closed form (scalar math: fast for SciPy)."""
    a, rho, k = _coefficients(eps)

    def rhs(t, y):
        s, c = math.sin(y[2]), math.cos(y[2])
        om = y[5]
        w = -s * y[3] + c * y[4]
        aom2 = a * om * om
        return np.array([y[3], y[4], om, aom2 * c + rho * s * w, aom2 * s - rho * c * w, k * w])

    return rhs


def make_jacobian(eps: float):
    """df/dy of the friction sleigh, derived by hand; u = c x' + s y' is dw/dphi up to sign."""
    a, rho, k = _coefficients(eps)

    def jac(t, y):
        s, c = math.sin(y[2]), math.cos(y[2])
        om = y[5]
        w = -s * y[3] + c * y[4]
        u = c * y[3] + s * y[4]
        J = np.zeros((6, 6))
        J[0, 3] = J[1, 4] = J[2, 5] = 1.0
        J[3, 2:] = (-a * s * om * om + rho * (c * w - s * u), -rho * s * s, rho * s * c, 2 * a * c * om)
        J[4, 2:] = (a * c * om * om + rho * (s * w + c * u), rho * s * c, -rho * c * c, 2 * a * s * om)
        J[5, 2:] = (-k * u, -k * s, k * c, 0.0)
        return J

    return jac


def _finite_difference_jacobian(f, y, rel_step=1e-6):
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        h = rel_step * max(1.0, abs(y[j]))
        yp, ym = y.copy(), y.copy()
        yp[j] += h
        ym[j] -= h
        J[:, j] = (f(0.0, yp) - f(0.0, ym)) / (2 * h)
    return J


def _rel_diff(A, B) -> float:
    return float(np.max(np.abs(np.asarray(A) - np.asarray(B))) / max(np.max(np.abs(B)), 1e-300))


def _check_states(n_random: int = 5):
    rng = np.random.default_rng(0)
    states = [Y0.copy()]
    for _ in range(n_random):
        states.append(np.concatenate([rng.uniform(-3, 3, 3), rng.uniform(-2, 2, 3)]))
    return states


def verify_model(eps: float, model, executable: Path | None) -> dict:
    """Max relative differences of the hand-written RHS/Jacobian (Python and, if built, C++)
    against nonholo's RHS and Jacobian, and of the Jacobian against finite differences."""
    rhs, jac = make_rhs(eps), make_jacobian(eps)
    out = dict(rhs_vs_nonholo=0.0, jac_vs_ad=0.0, jac_vs_fd=0.0)
    if executable is not None:
        out.update(cpp_rhs_vs_python=0.0, cpp_jac_vs_python=0.0)
    for y in _check_states():
        J = jac(0.0, y)
        out["rhs_vs_nonholo"] = max(out["rhs_vs_nonholo"], _rel_diff(rhs(0.0, y), model.rhs(0.0, y)))
        out["jac_vs_ad"] = max(out["jac_vs_ad"], _rel_diff(J, model.jacobian(0.0, y)))
        out["jac_vs_fd"] = max(out["jac_vs_fd"], _rel_diff(_finite_difference_jacobian(rhs, y), J))
        if executable is not None:
            f_cpp, J_cpp = _cpp_check(executable, eps, y)
            out["cpp_rhs_vs_python"] = max(out["cpp_rhs_vs_python"], _rel_diff(f_cpp, rhs(0.0, y)))
            out["cpp_jac_vs_python"] = max(out["cpp_jac_vs_python"], _rel_diff(J_cpp, J))
    limits = dict(rhs_vs_nonholo=1e-12, jac_vs_ad=1e-12, jac_vs_fd=1e-6, cpp_rhs_vs_python=1e-14,
                  cpp_jac_vs_python=1e-14)
    out["ok"] = all(out[k] <= limits[k] for k in limits if k in out)
    return out


# ----------------------------------------------------------------------------- hand-written CVODE

def _compile_command(compiler: str) -> list:
    return [compiler, "-O2", "-std=c++17", str(CPP_SOURCE), "-o", str(EXECUTABLE), *SUNDIALS_LIBS]


def build_handwritten() -> tuple:
    """Compile the hand-written CVODE program; returns (path, None) or (None, reason)."""
    compiler = os.environ.get("CXX", "g++")
    if shutil.which(compiler) is None:
        return None, f"no C++ compiler ({compiler!r} not found)"
    if not CPP_SOURCE.exists():
        return None, f"{CPP_SOURCE} is missing"
    cmd = _compile_command(compiler)
    stamp = BUILD_DIR / "build_command.txt"
    if (EXECUTABLE.exists() and stamp.exists() and stamp.read_text() == " ".join(cmd)
            and EXECUTABLE.stat().st_mtime >= CPP_SOURCE.stat().st_mtime):
        return EXECUTABLE, None
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"compilation failed: {exc}"
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return None, "compilation failed (SUNDIALS 6.x headers/libraries missing?): " + " | ".join(lines[-3:])
    stamp.write_text(" ".join(cmd))
    return EXECUTABLE, None


def _arg(x) -> str:
    """Command-line text of x; floats (also NumPy's) with all 17 digits."""
    if isinstance(x, (str, Path, int)):
        return str(x)
    return format(float(x), ".17g")


def _run_program(args: list) -> list:
    proc = subprocess.run([_arg(a) for a in args], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, args[:2]))} exited with {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout.splitlines()


def _cpp_check(executable: Path, eps: float, y) -> tuple:
    lines = _run_program([executable, "check", eps, *y])
    fields = {line.split()[0]: np.array(line.split()[1:], dtype=float) for line in lines if line.strip()}
    return fields["rhs"], fields["jac"].reshape(6, 6)


HANDWRITTEN = "CVODE hand-written"
HANDWRITTEN_DEFAULTS = "CVODE hand-written, CVODE defaults"


def run_handwritten(executable: Path, eps: float, repeats: int, rtol=RTOL, atol=ATOL,
                    settings: str = "every-step") -> dict:
    """R integrations in one process (the first is a warm-up and dropped), timed inside it.

    settings="every-step" uses nonholo's settings for stiff models (Jacobian and iteration
    matrix refreshed every step); "defaults" keeps CVODE's (Jacobian every 51 steps, setup
    every 20)."""
    lines = _run_program([executable, "solve", eps, rtol, atol, T_SPAN[1], int(repeats) + 1, *Y0, settings])
    fields = {line.split()[0]: line.split()[1:] for line in lines if line.strip()}
    stats = dict(zip(["n_steps", "n_rhs", "n_jac", "n_lin_setups", "n_err_test_fails", "n_nonlin_iters",
                      "n_nonlin_fails"], map(int, fields["stats"])))
    return dict(times=[float(x) for x in fields["times"]][1:], y_final=[float(x) for x in fields["final"]],
                n_steps=stats["n_steps"], nfev=stats["n_rhs"], njev=stats["n_jac"], stats=stats)


# ----------------------------------------------------------------------------- nonholo and SciPy

def run_nonholo(model, repeats: int, rtol=RTOL, atol=ATOL) -> dict:
    def once():
        t = time.perf_counter()
        res = nh.simulate(model, T_SPAN, Y0, rtol=rtol, atol=atol, t_eval=[T_SPAN[1]])
        dt = time.perf_counter() - t
        if not res.success:
            raise RuntimeError(f"nonholo failed: {res.message}")
        return dt, res

    once()  # warm-up
    times, core_times = [], []
    for _ in range(repeats):
        dt, res = once()
        times.append(dt)
        core_times.append(res.stats["cpu_time"])
    return dict(times=times, core_times=core_times, y_final=res.y[:, -1].tolist(), n_steps=res.stats["n_steps"],
                nfev=res.nfev, njev=res.njev, stats=dict(res.stats))


def run_scipy(method: str, eps: float, max_repeats: int, min_repeats: int, budget: float) -> dict:
    """solve_ivp with the analytic Jacobian; the warm-up run (t_eval=None) gives the step count and
    sets how many timed repeats fit into ``budget`` seconds."""
    from scipy.integrate import solve_ivp

    rhs, jac = make_rhs(eps), make_jacobian(eps)

    def once(t_eval):
        t = time.perf_counter()
        sol = solve_ivp(rhs, T_SPAN, Y0, method=method, jac=jac, rtol=RTOL, atol=ATOL, t_eval=t_eval)
        dt = time.perf_counter() - t
        if sol.status != 0:
            raise RuntimeError(f"SciPy {method} failed: {sol.message}")
        return dt, sol

    t_warm, warm = once(None)
    repeats = max(min_repeats, min(max_repeats, int(budget / max(t_warm, 1e-9))))
    times = []
    for _ in range(repeats):
        dt, sol = once([T_SPAN[1]])
        times.append(dt)
    return dict(times=times, y_final=sol.y[:, -1].tolist(), n_steps=len(warm.t) - 1, nfev=int(sol.nfev),
                njev=int(sol.njev), stats=dict(nfev=int(sol.nfev), njev=int(sol.njev), nlu=int(sol.nlu)))


def reference(model, executable: Path | None) -> dict:
    """nonholo at rtol=1e-12, atol=1e-14; cross-checked against the hand-written code."""
    res = nh.simulate(model, T_SPAN, Y0, rtol=REF_RTOL, atol=REF_ATOL, t_eval=[T_SPAN[1]])
    if not res.success:
        raise RuntimeError(f"reference run failed: {res.message}")
    ref = dict(y_final=res.y[:, -1].tolist(), n_steps=res.stats["n_steps"])
    if executable is not None:
        eps = model.param_vector(None)[-1]
        cross = run_handwritten(executable, eps, 1, REF_RTOL, REF_ATOL)
        ref["handwritten_y_final"] = cross["y_final"]
        ref["handwritten_diff"] = float(np.max(np.abs(np.subtract(cross["y_final"], ref["y_final"]))))
    return ref


# ----------------------------------------------------------------------------- reporting

def _median(xs):
    return statistics.median(xs) if xs else float("nan")


def machine_info() -> dict:
    cpu = cpu_model()
    import scipy

    return dict(host=platform.node(), cpu=cpu, cores=os.cpu_count(), os=platform.platform(),
                python=platform.python_version(), numpy=np.__version__, scipy=scipy.__version__,
                nonholo=getattr(nh, "__version__", "?"),
                date=datetime.datetime.now().astimezone().isoformat(timespec="seconds"))


def _fmt(x, spec):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def markdown_table(rows: list) -> str:
    head = ("| eps | method | median time [ms] | min time [ms] | runs | steps | RHS evals | Jac evals "
            "| max abs error at t=20 | time / nonholo |")
    lines = [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r.get("error"):
            lines.append(f"| {r['eps']:.0e} | {r['method']} | n/a ({r['error']}) | | | | | | | |")
            continue
        lines.append(
            f"| {r['eps']:.0e} | {r['method']} | {_fmt(r['median'] * 1e3, '.3f')} | {_fmt(r['min'] * 1e3, '.3f')} "
            f"| {len(r['times'])} "
            f"| {_fmt(r.get('n_steps'), 'd')} | {_fmt(r.get('nfev'), 'd')} | {_fmt(r.get('njev'), 'd')} "
            f"| {_fmt(r.get('err'), '.2e')} | {_fmt(r.get('vs_nonholo'), '.2f')} |")
    return "\n".join(lines)


def targets_table(ratios: list) -> str:
    lines = [f"| eps | nonholo / CVODE hand-written (same settings) | target <= {TARGET_VS_CVODE:g} "
             "| nonholo / CVODE hand-written (CVODE defaults) | LSODA / nonholo | target >= 4 |",
             "|---|---:|---|---:|---:|---|"]
    for r in ratios:
        lines.append(f"| {r['eps']:.0e} | {_fmt(r['nonholo_over_cvode'], '.2f')} "
                     f"(min: {_fmt(r['nonholo_over_cvode_min'], '.2f')}) | {r['cvode_target']} "
                     f"| {_fmt(r.get('nonholo_over_cvode_defaults'), '.2f')} "
                     f"| {_fmt(r['lsoda_over_nonholo'], '.2f')} (min: {_fmt(r['lsoda_over_nonholo_min'], '.2f')}) "
                     f"| {r['lsoda_target']} |")
    lines.append("")
    lines.append("Ratios of median times (of minimum times in parentheses); the verdicts use the medians. "
                 "\"Same settings\": the hand-written code with nonholo's CVODE settings for stiff models "
                 "(Jacobian and iteration matrix refreshed every step, which the model's cheap Jacobian makes "
                 "affordable); \"CVODE defaults\": the hand-written code with CVODE's defaults (Jacobian every "
                 "51 steps), which loses many Newton iterations on this problem because the stiff direction "
                 "turns with the heading.")
    return "\n".join(lines)


def _verdict(ratio, ok) -> str:
    if ratio is None:
        return "not evaluated"
    return "met" if ok(ratio) else "NOT met"


def compute_ratios(rows: list) -> list:
    out = []
    for eps in EPSILONS:
        by = {r["method"]: r for r in rows if r["eps"] == eps and not r.get("error")}
        def ratio(num, den, key):
            x, y = by.get(num, {}).get(key), by.get(den, {}).get(key)
            return x / y if x and y else None

        a = ratio("nonholo", HANDWRITTEN, "median")
        b = ratio("SciPy LSODA", "nonholo", "median")
        out.append(dict(eps=eps, nonholo_over_cvode=a, lsoda_over_nonholo=b,
                        nonholo_over_cvode_min=ratio("nonholo", HANDWRITTEN, "min"),
                        nonholo_over_cvode_defaults=ratio("nonholo", HANDWRITTEN_DEFAULTS, "median"),
                        lsoda_over_nonholo_min=ratio("SciPy LSODA", "nonholo", "min"),
                        cvode_target=_verdict(a, lambda x: x <= TARGET_VS_CVODE),
                        lsoda_target=_verdict(b, lambda x: x >= TARGET_VS_LSODA)))
    return out


def notes(rows: list, verification: dict, references: dict, build_error, info: dict, args) -> list:
    lines = []
    if build_error:
        lines.append(f"- **Hand-written CVODE baseline unavailable**: {build_error}")
    for r in rows:
        if r["method"] == "nonholo" and not r.get("error"):
            lines.append(f"- eps = {r['eps']:.0e}: nonholo spends {_median(r['core_times']) * 1e3:.3f} ms (median) "
                         f"of its {r['median'] * 1e3:.3f} ms inside the C++ integration loop (stats['cpu_time'])")
    for eps in EPSILONS:
        v, ref = verification[eps], references[eps]
        check = (f"- eps = {eps:.0e}: hand-written Jacobian vs nonholo's {v['jac_vs_ad']:.1e}, "
                 f"vs finite differences {v['jac_vs_fd']:.1e}, RHS vs nonholo {v['rhs_vs_nonholo']:.1e}")
        if "cpp_jac_vs_python" in v:
            check += f", C++ vs Python RHS/Jacobian {max(v['cpp_rhs_vs_python'], v['cpp_jac_vs_python']):.1e}"
        check += " (max relative differences; " + ("OK" if v["ok"] else "**FAILED**") + ")"
        lines.append(check)
        ref_line = (f"- eps = {eps:.0e}: reference nonholo rtol={REF_RTOL:g}, atol={REF_ATOL:g} "
                    f"({ref['n_steps']} steps)")
        if "handwritten_diff" in ref:
            ref_line += (f"; hand-written CVODE at the same tolerances differs by {ref['handwritten_diff']:.1e}"
                         " (max abs)")
        lines.append(ref_line)
    lines.append(f"- rtol = {RTOL:g}, atol = {ATOL:g}, t in [{T_SPAN[0]:g}, {T_SPAN[1]:g}], y0 = {Y0.tolist()}; "
                 "times are wall times around the solve only; an untimed warm-up run before each batch")
    lines.append(f"- repeats: nonholo and hand-written CVODE {args.repeats} each, interleaved in {args.rounds} "
                 f"round(s); SciPy as many as fit "
                 f"{args.scipy_budget:g} s per (method, eps), between {args.scipy_min_repeats} and {args.repeats} "
                 "(see the runs column); SciPy steps from the warm-up run")
    lines.append(f"- machine: {info['cpu']} ({info['cores']} cores), {info['os']}, Python {info['python']}, "
                 f"NumPy {info['numpy']}, SciPy {info['scipy']}; {info['date']}")
    return lines


# ----------------------------------------------------------------------------- main

def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer repeats (for tests/CI; about 10 s)")
    p.add_argument("--markdown", metavar="PATH", help="also write the Markdown report to PATH")
    p.add_argument("--json", metavar="PATH", help="write the results (the tables, and the raw numbers under "
                   "\"raw\") to PATH, as the other scripts do (cli.py)")
    p.add_argument("--repeats", type=int, help="timed repeats of the fast methods (default 21, --quick 5)")
    p.add_argument("--scipy-budget", type=float, help="seconds of timed runs per SciPy method and eps "
                   "(default 6, --quick 1)")
    p.add_argument("--rounds", type=int, help="rounds the fast methods' repeats are interleaved in (default: "
                   "as many as repeats, one run of each per round; --quick 1)")
    args = p.parse_args(argv)
    args.repeats = args.repeats or (5 if args.quick else 21)
    args.scipy_budget = args.scipy_budget if args.scipy_budget is not None else (1.0 if args.quick else 6.0)
    args.scipy_min_repeats = 1 if args.quick else 3
    # one run of each per round by default: this machine's speed changes by up to 2x for seconds at a
    # time, and a few long rounds let such a phase fall on one method only
    args.rounds = args.rounds or (1 if args.quick else args.repeats)
    return args


def _row(eps, method, result, ref_y):
    row = dict(eps=eps, method=method, **result)
    row["median"] = _median(result["times"])
    row["min"] = min(result["times"])
    row["err"] = float(np.max(np.abs(np.subtract(result["y_final"], ref_y))))
    return row


def _interleaved(runs: dict, repeats: int, rounds: int) -> dict:
    """Runs each fn(k) in turn, `rounds` times with k ~ repeats/rounds, and concatenates the times,
    so that the fast methods see the same machine load; returns method -> result or exception."""
    sizes = [repeats // rounds + (i < repeats % rounds) for i in range(rounds)]
    parts = {method: [] for method in runs}
    for k in (k for k in sizes if k > 0):
        for method, fn in runs.items():
            if isinstance(parts[method], Exception):
                continue
            try:
                parts[method].append(fn(k))
            except Exception as exc:  # reported in the table, the other rows still run
                parts[method] = exc
    out = {}
    for method, results in parts.items():
        if isinstance(results, Exception):
            out[method] = results
            continue
        merged = dict(results[-1])
        for key in ("times", "core_times"):
            if key in merged:
                merged[key] = [x for r in results for x in r[key]]
        out[method] = merged
    return out


def benchmark(eps: float, args, executable, build_error) -> tuple:
    model = nh.systems.chaplygin_sleigh(**PARAMS).friction(eps)
    verification = verify_model(eps, model, executable)
    ref = reference(model, executable)
    rows = []

    def add(method, result):
        if isinstance(result, Exception):
            rows.append(dict(eps=eps, method=method, error=f"{type(result).__name__}: {result}"))
        else:
            rows.append(_row(eps, method, result, ref["y_final"]))

    print(f"  eps={eps:.0e}: nonholo and hand-written CVODE ...", file=sys.stderr, flush=True)
    fast = {"nonholo": lambda k: run_nonholo(model, k)}
    if executable is not None:
        fast[HANDWRITTEN] = lambda k: run_handwritten(executable, eps, k, settings="every-step")
        fast[HANDWRITTEN_DEFAULTS] = lambda k: run_handwritten(executable, eps, k, settings="defaults")
    for method, result in _interleaved(fast, args.repeats, args.rounds).items():
        add(method, result)
    if executable is None:
        rows.append(dict(eps=eps, method=HANDWRITTEN, error=build_error))
    for method in SCIPY_METHODS:
        print(f"  eps={eps:.0e}: SciPy {method} ...", file=sys.stderr, flush=True)
        try:
            add(f"SciPy {method}", run_scipy(method, eps, args.repeats, args.scipy_min_repeats, args.scipy_budget))
        except Exception as exc:  # reported in the table, the other rows still run
            add(f"SciPy {method}", exc)
    nonholo_median = next((r["median"] for r in rows if r["method"] == "nonholo" and not r.get("error")), None)
    for r in rows:
        if not r.get("error") and nonholo_median:
            r["vs_nonholo"] = r["median"] / nonholo_median
    return rows, verification, ref


def main(argv=None) -> int:
    args = parse_args(argv)
    info = machine_info()
    executable, build_error = build_handwritten()
    if build_error:
        print(f"WARNING: hand-written CVODE baseline unavailable: {build_error}", file=sys.stderr)
    rows, verification, references = [], {}, {}
    for eps in EPSILONS:
        r, verification[eps], references[eps] = benchmark(eps, args, executable, build_error)
        rows += r
    ratios = compute_ratios(rows)

    title = "## Chaplygin sleigh with sideways friction: nonholo vs hand-written CVODE vs SciPy"
    body = "\n\n".join([title, markdown_table(rows), targets_table(ratios),
                        "\n".join(notes(rows, verification, references, build_error, info, args))])
    print(body)
    if args.markdown:
        Path(args.markdown).write_text(body + "\n")
    if args.json:
        payload = dict(machine=info, config=dict(rtol=RTOL, atol=ATOL, ref_rtol=REF_RTOL, ref_atol=REF_ATOL,
                                                 t_span=T_SPAN, y0=Y0.tolist(), params=PARAMS, quick=args.quick,
                                                 repeats=args.repeats, scipy_budget=args.scipy_budget),
                       build_error=build_error, verification={str(k): v for k, v in verification.items()},
                       references={str(k): v for k, v in references.items()}, rows=rows, ratios=ratios,
                       targets=dict(nonholo_over_cvode_max=TARGET_VS_CVODE, lsoda_over_nonholo_min=TARGET_VS_LSODA))
        record = results_record(body, "friction_sleigh.py", script_options(sys.argv[1:] if argv is None else argv))
        record["raw"] = json.loads(json.dumps(payload, default=float))
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    ok = all(v["ok"] for v in verification.values())
    if not ok:
        print("ERROR: the hand-written right-hand side or Jacobian disagrees with nonholo", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
