"""Benchmark: which Jacobian the cost model picks, against what each one measures, on every dense built-in system.

The friction and nonholonomic models have two Jacobians: dual numbers pushed through the whole
vector field (``core.jacobian_dual``) and implicit differentiation of the model's own solves
(``core.jacobian_implicit``). ``model.jacobian`` (and every BDF run) uses the implicit one where
its estimate (``core.implicit_jacobian_cost``) is at most the dual one's
(``core.dual_jacobian_cost``); the same estimate, in right-hand sides, sets how often a BDF run
refreshes its Jacobian (cpp/include/nonholo/jacobian_policy.hpp). The constants behind the
estimates are in cpp/src/model.cpp.

For the Chaplygin sleigh, the knife-edge chain N = 1..32 and the other dense built-in systems
(their ``initial_state()`` where they have one, else a random consistent state), friction
(eps = 1e-4) and nonholonomic: one right-hand side and both Jacobians timed in C++
(``_core.diagnostics.time_evaluations``, one workspace, the three interleaved in each batch),
medians of the batches; the Jacobians in right-hand sides, measured and estimated; the choice and
whether it is the faster one. Summary: choices right, the time a wrong choice loses, and the
estimates' spread (measured over estimated).

Usage: python benchmarks/jacobian_choice.py [--quick] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import nonholo as nh  # noqa: E402
from cli import emit, repeats_and_output  # noqa: E402
from nonholo import _core  # noqa: E402
from peers import bicycle_state, chain_state  # noqa: E402

EPS = 1e-4
CHAINS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
OTHERS = ("differential_drive", "snakeboard", "heisenberg", "inclined_knife_edge", "single_track_car",
          "vertical_rolling_disk", "polar_disk", "ball_on_turntable", "rolling_disc", "chaplygin_ball",
          "rattleback", "tippe_top", "whipple_bicycle")


def systems():
    """(name, system, state) of the dense built-in systems."""
    rng = np.random.default_rng(0)
    sleigh = nh.systems.chaplygin_sleigh()
    yield "Chaplygin sleigh", sleigh, _state(sleigh, rng)
    for N in CHAINS:
        system = nh.systems.knife_edge_chain(N)
        yield f"knife-edge chain N = {N}", system, chain_state(system, N)
    for name in OTHERS:
        system = getattr(nh.systems, name)()
        yield name.replace("_", " "), system, _state(system, rng)
    km, values = nh.systems.whipple_bicycle_kane()
    bicycle = nh.System.from_kanes_method(km, values, check_kinematics=False, state="qdot")
    from nonholo.expressions.mechanics import kane_qdot

    x0 = bicycle_state(km, values)
    nq = len(km.q)
    yield "Whipple bicycle (KanesMethod)", bicycle, np.concatenate([x0[:nq], kane_qdot(km, x0[:nq], x0[nq:], values)])


def _state(system, rng):
    try:
        return np.asarray(system.initial_state(), dtype=float)
    except (AttributeError, NotImplementedError, TypeError):
        q = 0.3 + rng.uniform(-0.5, 0.5, system.n)
        return np.concatenate([q, system.project(q, rng.uniform(-1.0, 1.0, system.n))])


def measure(model, y, batches):
    """Medians of (right-hand side, dual Jacobian, implicit Jacobian) in seconds."""
    p = model.param_vector()
    core = model.core
    _core.diagnostics.time_evaluations(core, 0.0, y, p, 3)  # builds the Jacobian tape
    probe = _core.diagnostics.time_evaluations(core, 0.0, y, p, 20)
    calls = max(20, int(0.02 / max(probe[2], 1e-9)))  # about 20 ms of dual Jacobians per batch
    runs = [_core.diagnostics.time_evaluations(core, 0.0, y, p, calls) for _ in range(batches)]
    return tuple(statistics.median(r[i] for r in runs) for i in (0, 2, 3))


def main(argv=None) -> int:
    batches, output = repeats_and_output(__doc__, 9, argv)
    rows, right, losses, spread = [], 0, [], {"dual": [], "implicit": []}
    for name, system, y in systems():
        for kind, model in (("friction", system.friction(EPS)), ("nonholonomic", system.nonholonomic())):
            rhs, dual, implicit = measure(model, y, batches)
            est_dual, est_implicit = model.core.dual_jacobian_cost, model.core.implicit_jacobian_cost
            chosen = "implicit" if est_implicit <= est_dual else "dual"
            fastest = "implicit" if implicit <= dual else "dual"
            right += chosen == fastest
            losses.append((dual if chosen == "dual" else implicit) / min(dual, implicit))
            spread["dual"].append(dual / rhs / est_dual)
            spread["implicit"].append(implicit / rhs / est_implicit)
            rows.append(f"| {name}, {kind} | {system.n} | {system.k} | {rhs * 1e9:.0f} | {dual / rhs:.2f} | "
                        f"{est_dual:.2f} | {implicit / rhs:.2f} | {est_implicit:.2f} | {chosen} | "
                        f"{'yes' if chosen == fastest else 'no'} |")
    head = ("| system, model | n | k | right-hand side [ns] | dual Jacobian / RHS | estimated | "
            "implicit Jacobian / RHS | estimated | chosen | the faster |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
    lines = [f"- choices right: {right} of {len(rows)}; the time a choice loses against the faster Jacobian: "
             f"at most {100 * (max(losses) - 1):.0f}%"]
    for which, ratios in spread.items():
        rms = math.sqrt(statistics.fmean(math.log(r) ** 2 for r in ratios))
        lines.append(f"- {which} Jacobians, measured / estimated (both in right-hand sides): "
                     f"{min(ratios):.2f} to {max(ratios):.2f}, rms of the logarithm {rms:.2f}")
    emit(head + "\n" + "\n".join(rows) + "\n\n" + "\n".join(lines) + "\n", output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
