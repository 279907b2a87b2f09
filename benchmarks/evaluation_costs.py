"""Benchmark: what one evaluation costs, interpreted and compiled, and the Jacobians in RHS units.

For the Whipple bicycle (nonholonomic; SymPy's KanesMethod build and the build from bodies and
contacts, ``nh.systems.whipple_bicycle()``) and the knife-edge chain (nonholonomic and friction,
eps = 1e-4) at N = 4, 8, 16, 32: microseconds per right-hand side with the tape interpreter and
with ``model.compile()`` (tapes "dynamics" and "constraints"), and the cost of one
Jacobian as used (``model.jacobian``: implicit differentiation where the policy estimates it
cheaper, else dual numbers) and by dual numbers through
the whole vector field (``core.jacobian_dual``, the previous default), in right-hand sides of the
same evaluator, next to the estimate the integrator's refresh policy uses
(``core.jacobian_cost``). Timed in C++ (``_core.diagnostics.time_evaluations``, one workspace, after a
warm-up call), median of 5 interleaved batches. Both Jacobians are checked to agree first.

Usage: python benchmarks/evaluation_costs.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from cli import emit, repeats_and_output  # noqa: E402
from nonholo import _core  # noqa: E402
from nonholo.expressions.compiled import detach  # noqa: E402
from peers import bicycle_state, chain_state  # noqa: E402

TAPES = ("dynamics", "constraints")


def _times(model, y, calls, batches):
    p = model.param_vector()
    runs = [_core.diagnostics.time_evaluations(model.core, 0.0, y, p, calls) for _ in range(batches)]
    return tuple(statistics.median(r[i] for r in runs) for i in range(3))


def measure(name, model, y, calls, batches):
    J, J_dual = model.jacobian(0.0, y), model.core.jacobian_dual(0.0, y, model.param_vector())
    agree = float(np.max(np.abs(J - J_dual)) / np.max(np.abs(J_dual)))
    if not agree < 1e-10:
        raise AssertionError(f"{name}: implicit and dual Jacobians differ by {agree:.1e}")
    detach(model.system.core)
    rhs_i, jac_i, dual_i = _times(model, y, calls, batches)
    model.compile(tapes=TAPES)
    rhs_c, jac_c, dual_c = _times(model, y, calls, batches)
    detach(model.system.core)
    return (f"| {name} | {rhs_i * 1e6:.2f} | {rhs_c * 1e6:.2f} | {jac_i / rhs_i:.1f} | {dual_i / rhs_i:.1f} | "
            f"{jac_c / rhs_c:.1f} | {model.core.jacobian_cost:.1f} |")


def main(argv=None) -> int:
    repeats, path = repeats_and_output(__doc__, 5, argv)
    rows = []
    km, values = nh.systems.whipple_bicycle_kane()
    bicycle = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot").nonholonomic()
    from nonholo.expressions.mechanics import kane_qdot

    x0 = bicycle_state(km, values)
    nq = len(km.q)
    y = np.concatenate([x0[:nq], kane_qdot(km, x0[:nq], x0[nq:], values)])

    def label(what, model):
        core = model.system.core
        ops, runs, _ = _core.diagnostics.tape_program(core, "dynamics")
        size = _core.diagnostics.tape_size(core, "dynamics")[0]
        return (f"Whipple bicycle ({what}), nonholonomic (dynamics tape of {size} "
                f"operations: {ops} interpreted, in {runs} runs)")

    rows.append(measure(label("KanesMethod", bicycle), bicycle, y, 2000, repeats))
    from nonholo.systems.whipple_bicycle import upright_state

    bodies = nh.systems.whipple_bicycle().nonholonomic()
    rows.append(measure(label("bodies and contacts", bodies), bodies, upright_state(bodies.system, 5.0, roll_rate=0.5),
                        2000, repeats))
    for N in (4, 8, 16) if repeats <= 2 else (4, 8, 16, 32):
        system = nh.systems.knife_edge_chain(N)
        y = chain_state(system, N)
        calls = max(20, 20000 // N**2)
        rows.append(measure(f"knife-edge chain N = {N}, nonholonomic", system.nonholonomic(), y, calls, repeats))
        rows.append(measure(f"knife-edge chain N = {N}, friction", system.friction(1e-4), y, calls, repeats))
    head = ("| system | RHS, interpreter [us] | RHS, compiled [us] | Jacobian / RHS, as used | "
            "Jacobian / RHS, dual numbers | Jacobian / RHS, compiled RHS | policy estimate |\n"
            "|---|---:|---:|---:|---:|---:|---:|")
    emit(head + "\n" + "\n".join(rows) + "\n", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
