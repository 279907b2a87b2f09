"""Benchmark: nonholo against CasADi and SciPy with sparse linear algebra, on large systems.

Workloads
---------
* platoon: ``nh.systems.platoon(K)`` (K differential-drive robots joined by springs: n = 3K
  coordinates, K no-slip constraints, block-diagonal G and A), K = 10, 30, 100, 300, from
  ``system.initial_state()`` (driving forward in a line, perturbed by 0.01), nonholonomic model and
  friction model with eps = 1e-4 (stiff: the slip relaxes at a rate ~ mu/(eps m) ~ 2500/s against
  spring frequencies ~ 2/s; at K = 10 CVODE's Adams needs 8658 steps where BDF needs 153);
* knife-edge chain: ``nh.systems.knife_edge_chain(N)`` (dense G, n = N + 2), N = 64 and 128, the
  state and friction eps = 1e-4 of benchmarks/peers.py.

t in [0, 2], rtol 1e-8, atol 1e-10 for every peer.

Peers
-----
* nonholo: ``system.nonholonomic()`` / ``system.friction(eps)`` and ``nh.simulate`` with its
  default method; ``sparse=`` (``--sparse``, default "auto") is passed to the model factories when
  they take it (inspect.signature), else the dense path runs (the JSON says which).
* CasADi cvodes, csparse: the saddle-point matrix [[G, -A^T], [A, 0]] (friction: G) as a sparse SX
  matrix of its nonzeros, solved by ``casadi.solve(M, f, "csparse")`` (a numerical sparse LU at every
  call, MX graph), and cvodes' Newton systems solved by ``linear_solver="csparse"``;
* CasADi cvodes, SX solve: the same sparse matrix solved by CasADi's symbolic ``casadi.solve(M, f)``
  (block-triangular permutation, each block's QR expanded into the SX graph), cvodes with csparse;
* SciPy BDF, sparse Jacobian: ``solve_ivp(method="BDF", jac_sparsity=S)``, the right-hand side the
  nonzeros lambdified to NumPy and one SuperLU solve (LAPACK when the matrix is over 20% full),
  S the Jacobian's sparsity from the SymPy expressions (benchmarks/peer_models.py).

The peers' equations are built from the system's own SymPy expressions by
``peer_models.sparse_saddle_point_blocks`` (derivatives of the nonzero entries only), once per row;
that time is added to the set-up of each of the three peers.

Method
------
Each row (workload) runs in a child process with a wall-time budget (``--budget``, seconds) and an
address-space limit (``--memory-gb``): the nonholo reference (rtol 1e-12), then peers.measure: every
peer is set up (time reported apart from the run), run once and compared with the reference (max
error relative to max(1, |y|) at most 1e-5), then timed in interleaved rounds (median of
``--repeats``). A peer whose set-up or first run outlasts the budget is killed and skipped with the
reason (and not tried at larger sizes of the same workload); the slowest peers are left out of the
timed rounds when the rounds would outlast the budget. Per-step cost = median run time / steps
(CVODES' nsteps, SciPy's accepted steps, nonholo's n_steps); its exponent in n is fitted by
``nonholo.testing.loglog_slope`` over the sizes that ran.

Usage: PYTHONPATH=python python3 benchmarks/peers_large.py [--platoon 10 30 100 300] [--chain 64 128]
       [--repeats 5] [--budget 600] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import os

# one BLAS thread for every peer: on a shared 2-core machine threaded BLAS only oversubscribes it
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import multiprocessing as mp  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from nonholo.testing import loglog_slope  # noqa: E402
from peer_models import casadi_sparse_saddle_ode, scipy_sparse_saddle, sparse_saddle_point_blocks  # noqa: E402
from peers import REF_ATOL, REF_RTOL, Skip, _not_applicable, casadi_runner, chain_state, measure, table  # noqa: E402

T, RTOL, ATOL, EPS = 2.0, 1e-8, 1e-10, 1e-4
PEERS = ("nonholo", "CasADi cvodes, csparse", "CasADi cvodes, SX solve", "SciPy BDF, sparse Jacobian")
SYMPY_PEERS = PEERS[1:]


# ----------------------------------------------------------------------------- nonholo

def sparse_supported(system) -> bool:
    """Whether the model factories take ``sparse=`` (the lead engineer's sparse path)."""
    return "sparse" in inspect.signature(system.nonholonomic).parameters


def nonholo_model(system, kind: str, sparse):
    kw = {"sparse": sparse} if sparse is not None and sparse_supported(system) else {}
    return system.nonholonomic(**kw) if kind == "nonholonomic" else system.friction(EPS, **kw)


def nonholo_runner(model, y0, rtol, atol):
    def run():
        res = nh.simulate(model, (0.0, T), y0, rtol=rtol, atol=atol, t_eval=[T])
        if res.status != 0:
            raise RuntimeError(res.message)
        run.steps = res.stats["n_steps"]
        run.method = res.method
        return np.asarray(res.y)[:, -1]

    return run


# ----------------------------------------------------------------------------- peers

def bdf_runner(rhs, S, y0):
    from scipy.integrate import solve_ivp

    def run():
        sol = solve_ivp(rhs, (0.0, T), np.asarray(y0, dtype=float), method="BDF", rtol=RTOL, atol=ATOL,
                        jac_sparsity=S)
        if sol.status != 0:
            raise RuntimeError(sol.message)
        run.steps = len(sol.t) - 1
        return sol.y[:, -1]

    return run


def _guard(build):
    """A builder whose failures (other than Skip) become a Skip with the reason."""
    def guarded():
        try:
            return build()
        except Skip:
            raise
        except Exception as exc:  # noqa: BLE001 (a peer that cannot be built is reported, not fatal)
            raise Skip(f"set-up failed ({type(exc).__name__}: {str(exc).splitlines()[0][:200]})") from None

    return guarded


def builders(system, kind: str, y0, model, blocks, excluded: dict, holder: dict) -> dict:
    e = None if kind == "nonholonomic" else EPS
    # the nonholonomic model is not stiff: CVODES' Adams (a user's choice for it), BDF for the friction model
    casadi_opts = dict(linear_solver="csparse", linear_multistep_method="adams" if kind == "nonholonomic" else "bdf")

    def casadi(symbolic):
        return lambda: casadi_runner(lambda ca: casadi_sparse_saddle_ode(ca, system, kind, e, symbolic, blocks),
                                     y0, T, RTOL, ATOL, False, casadi_opts)

    out = {
        "nonholo": lambda: holder.setdefault("nonholo", nonholo_runner(model, y0, RTOL, ATOL)),
        "CasADi cvodes, csparse": casadi(False),
        "CasADi cvodes, SX solve": casadi(True),
        "SciPy BDF, sparse Jacobian": lambda: bdf_runner(*scipy_sparse_saddle(system, kind, e, blocks=blocks), y0),
    }
    return {peer: _not_applicable(excluded[peer]) if peer in excluded else _guard(build)
            for peer, build in out.items()}


# ----------------------------------------------------------------------------- one row, in a child process

def make_system(family: str, size: int):
    if family == "platoon":
        system = nh.systems.platoon(size)
        return system, system.initial_state()
    system = nh.systems.knife_edge_chain(size)
    return system, chain_state(system, size)


def row(spec: dict, report) -> dict:
    """Set up and measure one workload; ``report(stage)`` tells the parent where it is."""
    report("system")
    t0 = time.perf_counter()
    system, y0 = make_system(spec["family"], spec["size"])
    model = nonholo_model(system, spec["kind"], spec["sparse"])
    model.core.rhs(0.0, y0, model.param_vector())  # the first call builds the model's tapes
    nonholo_setup = time.perf_counter() - t0
    report("reference")
    ref = nonholo_runner(model, y0, REF_RTOL, REF_ATOL)()
    report("blocks")
    t0 = time.perf_counter()
    blocks = sparse_saddle_point_blocks(system)
    blocks_time = time.perf_counter() - t0
    holder = {}
    workload = dict(builders=builders(system, spec["kind"], y0, model, blocks, spec["excluded"], holder), ref=ref,
                    to_common=None, agree=1e-5, nonholo_setup=nonholo_setup)
    left = spec["budget"] - (time.perf_counter() - spec["started"])
    res = measure(workload, spec["repeats"], budget=left, progress=report)
    for peer in SYMPY_PEERS:
        if peer in res["setups"] and peer not in spec["excluded"]:
            res["setups"][peer] += blocks_time
    res["blocks"] = blocks_time
    res["n"] = system.n
    res["nonholo_sparse"] = (spec["sparse"] if sparse_supported(system) else "not available (dense path)")
    res["nonholo_method"] = getattr(holder.get("nonholo"), "method", None)
    return res


def _child(spec, conn, memory_gb):
    if memory_gb:
        limit = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        conn.send(("done", row(spec, lambda stage: conn.send(("stage", stage)))))
    except BaseException as exc:  # noqa: BLE001 (reported to the parent, which records the row as failed)
        conn.send(("error", f"{type(exc).__name__}: {str(exc)[:300]}\n{traceback.format_exc(limit=3)[-600:]}"))
    conn.close()


def run_row(spec: dict, budget: float, memory_gb: float) -> tuple:
    """(result or None, stage the child was in when stopped, error text): the row in a forked child,
    killed after ``budget`` seconds."""
    parent, child = mp.get_context("fork").Pipe(duplex=False)
    spec = dict(spec, budget=budget, started=time.perf_counter())
    proc = mp.get_context("fork").Process(target=_child, args=(spec, child, memory_gb))
    proc.start()
    child.close()
    stage, deadline = "start", spec["started"] + budget
    try:
        while True:
            if not parent.poll(max(0.0, deadline - time.perf_counter())):
                proc.kill()
                return None, stage, f"exceeded the budget of {budget:.0f} s"
            try:
                kind, payload = parent.recv()
            except EOFError:
                return None, stage, f"the child process died (exit code {proc.exitcode}; memory limit?)"
            if kind == "stage":
                stage = payload
            elif kind == "done":
                return payload, stage, None
            else:
                return None, stage, payload
    finally:
        proc.join(5)
        if proc.is_alive():
            proc.kill()


def measure_row(spec: dict, budget: float, memory_gb: float) -> dict:
    """The row, retried without a peer whose set-up or first run was stopped by the budget."""
    excluded = dict(spec["excluded"])
    while True:
        res, stage, error = run_row(dict(spec, excluded=excluded), budget, memory_gb)
        if res is not None:
            return res
        peer = stage.removeprefix("set-up ") if stage.startswith("set-up ") else None
        if peer is None or peer in excluded:
            return dict(failed=f"row not measured: {error} (during {stage})")
        excluded[peer] = f"set-up or first run {error}"


# ----------------------------------------------------------------------------- output

def label(spec) -> str:
    what = "nonholonomic" if spec["kind"] == "nonholonomic" else "friction eps 1e-4"
    size = f"K = {spec['size']}" if spec["family"] == "platoon" else f"N = {spec['size']}"
    return f"{spec['family']} {size}, {what}"


def per_step(res, peer):
    t, steps = res.get("medians", {}).get(peer), res.get("peer_steps", {}).get(peer)
    return t / steps if t is not None and steps else None


def cost_table(rows) -> str:
    """n, set-up per peer, steps and per-step cost per peer."""
    head = ("| workload | n | " + " | ".join(f"{p}: set-up" for p in PEERS) + " | "
            + " | ".join(f"{p}: steps, per step" for p in PEERS) + " |")
    lines = [head, "|---|---:|" + "---:|" * (2 * len(PEERS))]
    for name, res in rows:
        if "failed" in res:
            continue
        setups = [f"{res['setups'][p]:.2f} s" if p in res["setups"] and p not in res["skipped"] else "-"
                  for p in PEERS]
        steps = [f"{res['peer_steps'][p]}, {per_step(res, p) * 1e6:.3g} us" if per_step(res, p) else "-"
                 for p in PEERS]
        lines.append(f"| {name} | {res['n']} | " + " | ".join(setups) + " | " + " | ".join(steps) + " |")
    return "\n".join(lines)


def slopes(rows) -> list:
    """[(workload family and kind, peer, sizes n, exponent)] of the per-step cost against n."""
    out = []
    for family in ("platoon", "chain"):
        for kind in ("nonholonomic", "friction"):
            picked = [(spec, res) for spec, res in rows if spec["family"] == family and spec["kind"] == kind
                      and "failed" not in res]
            for peer in PEERS:
                pts = [(res["n"], per_step(res, peer)) for _, res in picked if per_step(res, peer)]
                if len(pts) >= 2:
                    n, c = zip(*pts)
                    out.append((f"{family}, {kind}", peer, list(n), loglog_slope(n, c)))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platoon", type=int, nargs="*", default=[10, 30, 100, 300], help="platoon sizes K")
    parser.add_argument("--chain", type=int, nargs="*", default=[64, 128], help="knife-edge chain sizes N")
    parser.add_argument("--kinds", default="nonholonomic,friction")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=600.0, help="wall-time budget per row, seconds")
    parser.add_argument("--memory-gb", type=float, default=6.0, help="address-space limit of a row's process")
    parser.add_argument("--sparse", default="auto", help="nonholo's sparse= option, when its factories take it")
    parser.add_argument("--markdown", help="write the tables to this file")
    parser.add_argument("--json", default=str(Path(__file__).resolve().parent / "results" / "peers_large.json"))
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    specs = [dict(family=f, size=s, kind=k, repeats=args.repeats, sparse=args.sparse, excluded={})
             for f, sizes in (("platoon", args.platoon), ("chain", args.chain)) for s in sizes for k in kinds]
    rows, given_up = [], {}
    for spec in specs:
        key = (spec["family"], spec["kind"])
        spec["excluded"] = {p: why for p, why in given_up.get(key, {}).items()}
        started = time.perf_counter()
        res = measure_row(spec, args.budget, args.memory_gb)
        rows.append((spec, res))
        if "failed" in res:
            print(f"{label(spec)}: {res['failed']}", flush=True)
            continue
        for peer, why in res["skipped"].items():
            if "budget" in why and peer not in spec["excluded"]:
                given_up.setdefault(key, {})[peer] = f"{why.split(';')[0]} at a smaller size; not tried"
        print(f"{label(spec)} ({time.perf_counter() - started:.0f} s): "
              + ", ".join(f"{p} {t * 1e3:.3g} ms" for p, t in res["medians"].items()), flush=True)
    measured = [(label(spec), res) for spec, res in rows if "failed" not in res]
    notes = [f"- {label(spec)}: {res['failed']}" for spec, res in rows if "failed" in res]
    for spec, res in rows:
        if "failed" not in res:
            notes += [f"- {label(spec)}: {peer} skipped: {why}" for peer, why in res["skipped"].items()]
    fitted = slopes(rows)
    notes += [f"- {what}: {peer}'s cost per step grows like n^{s:.2f} (n = {', '.join(map(str, n))})"
              for what, peer, n, s in fitted]
    sparse = {res["nonholo_sparse"] for _, res in rows if "nonholo_sparse" in res}
    text = (f"Medians of {args.repeats} interleaved repeats (ratio to nonholo in brackets); t in [0, 2], rtol 1e-8, "
            f"atol 1e-10; nonholo's sparse option: {', '.join(sorted(map(str, sparse)))}.\n\n"
            + table(measured, PEERS) + "\n\nSet-up (apart from the runs) and per-step cost (median run / steps):\n\n"
            + cost_table(measured) + "\n\n" + "\n".join(notes) + "\n")
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text)
    record = dict(command="PYTHONPATH=python python3 benchmarks/peers_large.py " + " ".join(argv or sys.argv[1:]),
                  date=time.strftime("%Y-%m-%d %H:%M:%S %Z"), machine=platform.platform(),
                  load_average=list(os.getloadavg()), rtol=RTOL, atol=ATOL, t=T, eps=EPS,
                  repeats=args.repeats, budget_s=args.budget, peers=list(PEERS),
                  rows=[dict(workload=label(spec), family=spec["family"], size=spec["size"], kind=spec["kind"],
                             **_jsonable(res)) for spec, res in rows],
                  slopes=[dict(workload=w, peer=p, n=n, exponent=s) for w, p, n, s in fitted])
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0


def _jsonable(res: dict) -> dict:
    if "failed" in res:
        return dict(failed=res["failed"])
    keys = ("n", "medians", "setups", "errors", "skipped", "peer_steps", "first", "blocks", "nonholo_sparse",
            "nonholo_method")
    out = {k: res.get(k) for k in keys}
    out["per_step"] = {p: per_step(res, p) for p in res["medians"]}
    return out


if __name__ == "__main__":
    sys.exit(main())
