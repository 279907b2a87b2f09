"""Benchmark: cost of one right-hand side (and Jacobian) of the coordinate models, whose dense linear
algebra (LDL^T of G and of M = A G^-1 A^T, the triangular sweeps) runs at every evaluation.

Systems: the Chaplygin sleigh (n 3, k 1), the vertical rolling disk (n 4, k 2), the knife-edge chain
with N = 4, 8, 16, 32 links (n N + 2, k N). Models: nonholonomic, friction(eps), reduced(eps, order=1),
eps = 1e-4. Each cost is measured in C++ (the calls looped with one workspace, about 2 ms per
measurement), the least of ``--repeats`` measurements. Also the whole run of the
chain N = 8 at eps = 1e-4 (friction, BDF; reduced order 1, its default method), CPU time of the process
(``time.process_time``) around ``nh.simulate``, median of interleaved runs.

``--core PATH`` loads another build of the extension (``nonholo._core``) before importing nonholo, so
that two builds can be compared by alternating processes (``--compare PATH``: this script runs itself
alternately with the given build and with the installed one and prints the medians side by side).

``--kernels``: the core's hand-written dense factorizations against Eigen's on the matrices of the
workloads that use them (linear_algebra_kernels.cpp, compiled here at -O3 with the core's flags and
linked to the core library of the editable build): CVODE's Newton matrix I - gamma J (gamma 1e-3,
the friction model's Jacobian, eps 1e-4) for models below 8 coordinates, its second-order Schur
complement S = I - gamma F_v - gamma^2 F_q from 8 on (both factored by sundials/dense_lu.hpp's
lu_factor: against PartialPivLU), the metric G and the constraint Gram matrix M = A G^-1 A^T
(linalg.hpp's Ldlt: against LDLT and LLT), and the k x k block of A a Voronets frame factors
(linalg.hpp's Lu: its loops against PartialPivLU, and the core's Lu<double>, which calls
PartialPivLU since these measurements); on the sleigh, the knife-edge chain N = 4, 8, 16, 32, the
platoon K = 10 and the Whipple bicycle. Per call, the factorization and one solve apart: medians of
``--repeats`` interleaved rounds (wall time), and instructions by callgrind
(``--toggle-collect=bench_loop``, ``--count-iters`` calls). The sparse solvers (sparse_lu.hpp,
sparse_symmetric.hpp) are Eigen's already (SparseLU, SimplicialLDLT) and are not compared.

Usage: python benchmarks/linear_algebra_cost.py [--repeats R] [--runs K] [--compare PATH --rounds R]
       python benchmarks/linear_algebra_cost.py --kernels [--repeats R] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cli import Output, emit  # noqa: E402

EPS = 1e-4


def load_core(path: str) -> None:
    """Import the extension at ``path`` as ``nonholo._core`` (before nonholo itself)."""
    spec = importlib.util.spec_from_file_location("nonholo._core", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["nonholo._core"] = module
    spec.loader.exec_module(module)


def cases(nh, np):
    """(name, system, state (q, v) on the constraint set)."""
    th = 0.3
    rows = [("sleigh", nh.systems.chaplygin_sleigh(), np.array([0, 0, 0, -1.5, 0, 1.0])),
            ("disk", nh.systems.vertical_rolling_disk(), np.array([th, 0, 0, 0, 1.0, np.cos(th), np.sin(th), 1.0]))]
    for N in (4, 8, 16, 32):
        chain = nh.systems.knife_edge_chain(N)
        q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(N))]
        v = np.r_[1.0, 0.0, 0.5, np.zeros(N - 1)]
        rows.append((f"chain N={N}", chain, np.r_[q0, chain.project(q0, v)]))
    return rows


def cost(nh, model, y0, repeats: int) -> tuple:
    """Seconds per rhs and per Jacobian: the least of `repeats` means over calls of about 2 ms each
    (short windows, most of them not interrupted by the other jobs of a loaded machine; the rhs in
    CPU time of the process, the Jacobian in the wall time that ``time_evaluations`` measures)."""
    p = model.param_vector()
    rhs, jac, *_ = nh._core.diagnostics.time_evaluations(model.core, 0.0, y0, p, 10)
    calls_r = int(max(10, min(100000, 0.002 / max(rhs, 1e-9))))
    calls_j = int(max(3, min(100000, 0.002 / max(jac, 1e-9))))
    best_r = best_j = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        nh._core.diagnostics.seconds_per_rhs(model.core, 0.0, y0, p, calls_r)
        best_r = min(best_r, (time.process_time() - start) / (calls_r + 1))
        best_j = min(best_j, nh._core.diagnostics.time_evaluations(model.core, 0.0, y0, p, calls_j)[1])
    return best_r, best_j


def measure(repeats: int, runs: int) -> dict:
    import numpy as np

    import nonholo as nh

    out = {}
    for name, system, y0 in cases(nh, np):
        models = {"nonholonomic": system.nonholonomic(), "friction": system.friction(EPS),
                  "reduced 1": system.reduced(EPS, order=1)}
        for key, model in models.items():
            out[f"{name} | {key}"] = cost(nh, model, y0, repeats)
    if runs:
        chain = nh.systems.knife_edge_chain(8)
        _, _, y0 = cases(nh, np)[3]
        n = chain.n
        start = np.r_[y0[:n], chain.on_slow_manifold(y0[:n], y0[n:], EPS, order=6)]
        models = {"friction": chain.friction(EPS), "reduced 1": chain.reduced(EPS, order=1)}
        times = {k: [] for k in models}
        for r in range(runs + 1):
            for key, model in models.items():
                t0 = time.process_time()
                nh.simulate(model, (0, 5.0), start if key == "friction" else y0, t_eval=np.linspace(0, 5, 41),
                            rtol=1e-8, atol=1e-10, raise_on_failure=True)
                if r:
                    times[key].append(time.process_time() - t0)
        for key in models:
            out[f"run chain N=8 | {key}"] = (statistics.median(times[key]), float("nan"))
    return out


def compare(base: str, rounds: int, repeats: int, runs: int) -> None:
    """Alternate processes with the build at `base` and the installed one; medians per entry."""
    results = {"base": [], "new": []}
    for _ in range(rounds):
        for label in ("base", "new"):
            cmd = [sys.executable, __file__, "--print-json", "--repeats", str(repeats), "--runs", str(runs)]
            if label == "base":
                cmd += ["--core", base]
            results[label].append(json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout))
    keys = results["new"][0].keys()
    print("| case | rhs base [us] | rhs new [us] | ratio | jac base [us] | jac new [us] | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key in keys:
        med = {lab: [statistics.median(r[key][i] for r in results[lab]) for i in (0, 1)] for lab in results}
        (rb, jb), (rn, jn) = med["base"], med["new"]
        scale = 1e3 if key.startswith("run") else 1e6
        unit_note = " [ms]" if key.startswith("run") else ""
        print(f"| {key}{unit_note} | {rb * scale:.3f} | {rn * scale:.3f} | {rn / rb:.2f} | {jb * scale:.3f} | "
              f"{jn * scale:.3f} | {jn / jb:.2f} |")


# --- the factorizations against Eigen's (--kernels) -------------------------------------------------

GAMMA = 1e-3  # h l_0 of a BDF step on the stiff friction models (steps of 1e-3 to 1e-2)
SECOND_ORDER_MIN_COORDINATES = 8  # method_control.hpp's kSecondOrderMinCoordinates


def workloads(nh, np):
    """(name, system, state on the constraint set) of the workloads whose runs use the factorizations."""
    rows = [(name, system, y0) for name, system, y0 in cases(nh, np) if name != "disk"]
    platoon = nh.systems.platoon(10)
    rows.append(("platoon K=10", platoon, platoon.initial_state()))
    bicycle = nh.systems.whipple_bicycle()
    from nonholo.systems.whipple_bicycle import upright_state
    rows.append(("bicycle", bicycle, upright_state(bicycle, 5.0, roll_rate=0.5)))
    return rows


def kernel_matrices(nh, np) -> list:
    """(name, kind, matrix) of each workload: the Newton matrix CVODE factors (full below
    SECOND_ORDER_MIN_COORDINATES coordinates, the Schur complement S from there on), G, M and the
    frame's k x k block (columns chosen by QR with column pivoting, as a Voronets split)."""
    import scipy.linalg

    out = []
    for name, system, y0 in workloads(nh, np):
        n, k = system.n, system.k
        q = y0[:n]
        model = system.friction(EPS)
        J = model.jacobian(0.0, y0)
        if n < SECOND_ORDER_MIN_COORDINATES:
            out.append((f"{name}: Newton I - gamma J", "lu", np.eye(2 * n) - GAMMA * J))
        else:
            Fq, Fv = J[n:, :n], J[n:, n:]
            out.append((f"{name}: Newton S (second order)", "lu", np.eye(n) - GAMMA * Fv - GAMMA**2 * Fq))
        G = system.metric_at(q)
        A = system.constraint_matrix(q)[0]
        out.append((f"{name}: metric G", "ldlt", G))
        if k > 1:
            out.append((f"{name}: Gram M = A G^-1 A^T", "ldlt", A @ np.linalg.solve(G, A.T)))
            cols = scipy.linalg.qr(A, pivoting=True)[2][:k]
            out.append((f"{name}: frame block A_s", "frame", A[:, np.sort(cols)]))
    return out


def build_kernels(workdir: Path) -> Path:
    """Compile linear_algebra_kernels.cpp against the editable build's core library."""
    root = HERE.parent
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    build = root / "build" / f"{tag}-{tag}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"
    library = build / "libnonholo_core.a"
    if not library.exists():
        raise SystemExit(f"no core library at {library}: build the package (make install) first")
    exe = workdir / "linear_algebra_kernels"
    cmd = [os.environ.get("CXX", "g++"), "-O3", "-DNDEBUG", "-std=c++17", "-ffp-contract=off",
           f"-I{root / 'cpp' / 'include'}", "-I/usr/include/eigen3", str(HERE / "linear_algebra_kernels.cpp"),
           str(library), "-lsundials_cvodes", "-lsundials_nvecserial", "-o", str(exe)]
    subprocess.run(cmd, check=True)
    return exe


def instructions(exe: Path, data: Path, line: int, impl: str, phase: str, iters: int) -> float:
    """Instructions per call of one kernel (callgrind, collected inside bench_loop only)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=bench_loop",
                        f"--callgrind-out-file={out}", str(exe), "count", str(data), str(line), impl, phase,
                        str(iters)], check=True, capture_output=True)
        for row in out.read_text().splitlines():
            if row.startswith("summary:") or row.startswith("totals:"):
                return int(row.split()[1]) / iters
    raise RuntimeError("callgrind wrote no totals")


def kernels(repeats: int, count_iters: int, output: Output) -> None:
    import numpy as np

    import nonholo as nh

    matrices = kernel_matrices(nh, np)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "matrices.txt"
        with data.open("w") as f:
            for name, kind, M in matrices:
                rows, cols = M.shape
                values = [repr(float(x)) for x in M.ravel()]
                f.write(" ".join([name.replace(" ", "_"), kind, str(rows), str(cols), *values]) + "\n")
        exe = build_kernels(Path(tmp))
        timed = [json.loads(line) for line in
                 subprocess.run([str(exe), "time", str(data), str(repeats)], check=True, capture_output=True,
                                text=True).stdout.splitlines()]
        by_case = {}
        for row in timed:
            by_case.setdefault(row["case"], []).append(row)
        lines = [f"Machine load (uptime) before the counts: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
                 f"{os.getloadavg()[2]:.2f}; wall times are medians of {repeats} interleaved rounds, "
                 f"instructions per call by callgrind over {count_iters} calls.", "",
                 "| matrix | n | phase | hand [ns] | other | other [ns] | other / hand (time) | hand [Ir] | "
                 "other [Ir] | other / hand (Ir) | solution rel. diff. |",
                 "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|"]
        for line_no, (name, kind, M) in enumerate(matrices):
            rows = by_case[name.replace(" ", "_")]
            for phase in ("factor", "solve"):
                hand = next(r for r in rows if r["phase"] == phase and r["impl"] == "hand")
                ir_hand = instructions(exe, data, line_no, "hand", phase, count_iters)
                for r in rows:
                    if r["phase"] != phase or r["impl"] == "hand":
                        continue
                    ir = instructions(exe, data, line_no, r["impl"], phase, count_iters)
                    impl = r["impl"].removeprefix("eigen_")
                    lines.append(f"| {name} | {r['n']} | {phase} | {hand['ns']:.1f} | {impl} | "
                                 f"{r['ns']:.1f} | {r['ns'] / hand['ns']:.2f} | {ir_hand:.0f} | {ir:.0f} | "
                                 f"{ir / ir_hand:.2f} | {r['solution_difference']:.1e} |")
    emit("\n".join(lines), output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--core", help="path of another build of nonholo._core to load")
    parser.add_argument("--compare", help="path of the baseline build of nonholo._core: compare with the installed one")
    parser.add_argument("--rounds", type=int, default=5, help="alternating processes per build (--compare)")
    parser.add_argument("--repeats", type=int, default=20, help="measurements per cost (the least is kept)")
    parser.add_argument("--runs", type=int, default=9, help="timed whole runs of the chain N = 8 (0: none)")
    parser.add_argument("--print-json", action="store_true", help="print the results as JSON (--compare's runs)")
    parser.add_argument("--kernels", action="store_true", help="the factorizations against Eigen's")
    parser.add_argument("--count-iters", type=int, default=200, help="calls per callgrind count (--kernels)")
    parser.add_argument("--json", help="--kernels: write the results (tables, command, date, machine) to this file")
    args = parser.parse_args()
    if args.kernels:
        argv = [a for a in sys.argv[1:] if a != args.json and a != "--json"]
        kernels(args.repeats, args.count_iters, Output(json=args.json, argv=argv))
        return
    if args.compare:
        compare(args.compare, args.rounds, args.repeats, args.runs)
        return
    if args.core:
        load_core(args.core)
    out = measure(args.repeats, args.runs)
    if args.print_json:
        print(json.dumps(out))
        return
    for key, (rhs, jac) in out.items():
        scale = 1e3 if key.startswith("run") else 1e6
        print(f"{key:40s} {rhs * scale:10.3f} {jac * scale:10.3f}")


if __name__ == "__main__":
    main()
