"""Benchmark: the Whipple bicycle built from bodies and contacts (``nh.systems.whipple_bicycle()``,
nonholo.multibody) against the same bicycle built with SymPy's KanesMethod
(``nh.systems.whipple_bicycle_kane()`` through ``System.from_kanes_method``).

Build time (median of repeats) of both; the tapes' sizes; a 5 s nonholonomic run upright at
4.6 m/s with a roll rate of 0.5 rad/s (Meijaard et al.'s benchmark bicycle, inside its
self-stable range) at rtol 1e-10 with atol 1e-10 and 1e-12, interpreted and compiled
(``model.compile()``, on a second copy of the system so that the interpreted runs stay
interpreted), in interleaved rounds (medians); CVODE's counts. The Kane build runs its default
model, in Kane's independent speeds, from the same state given as [q, q']. The two builds are first checked
to start from the same state (Kane's constraints hold on the mapped state) and to end at the same
state to 1e-7.

Usage: python benchmarks/whipple_bicycle.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import nonholo as nh
from cli import emit, repeats_and_output
from nonholo import _core
from nonholo.systems.whipple_bicycle import upright_state, whipple_bicycle_kane

T, RTOL, ATOLS = 5.0, 1e-10, (1e-10, 1e-12)
# Kane's coordinates [q1, q2, q5, q4, u3_integral, u6_integral] from the bodies' (Meijaard's axes)
KANE_FROM_MEIJAARD = (("yaw", -1), ("roll", 1), ("steer", 1), ("pitch", -1), ("theta_R", -1), ("theta_F", -1))


def to_kane(system, y):
    idx = [system.coordinate_names.index(c) for c, _ in KANE_FROM_MEIJAARD]
    sign = np.array([s for _, s in KANE_FROM_MEIJAARD])
    return np.r_[sign * y[idx], sign * y[system.n + np.array(idx)]]


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    repeats, markdown = repeats_and_output(__doc__, 7)
    builds = [timed(nh.systems.whipple_bicycle) for _ in range(repeats)]
    bodies = builds[-1][1]
    kane_build, (km, values) = timed(lambda: whipple_bicycle_kane(wheel_angles=False))
    kane_adapt, kane = timed(lambda: nh.System.from_kanes_method(km, values))  # Kane's speeds (the default)
    y0 = upright_state(bodies, 4.6, roll_rate=0.5)
    yk = to_kane(bodies, y0)
    A, b = kane.constraint_matrix(yk[:6])
    assert np.abs(A @ yk[6:] - b).max() < 1e-12, "the mapped state is off Kane's constraints"

    models = {"bodies": bodies.nonholonomic(), "bodies compiled": nh.systems.whipple_bicycle().nonholonomic().compile(),
              "Kane": kane.nonholonomic()}
    starts = {"bodies": y0, "bodies compiled": y0, "Kane": yk}
    ends = {}
    for name, m in models.items():  # [q, q'] at T (the Kane model's state is [q, u_ind], y0 given as [q, q'])
        r = nh.simulate(m, (0, T), starts[name], rtol=1e-12, atol=1e-12)
        ends[name] = np.r_[r.q[:, -1], r.velocity[:, -1]]
    gap = np.abs(to_kane(bodies, ends["bodies"]) - ends["Kane"]).max()
    assert gap < 1e-7, f"the two builds end {gap:.1e} apart"

    times: dict = {}
    stats: dict = {}
    for _ in range(repeats):
        for atol in ATOLS:
            for name, model in models.items():
                t, r = timed(lambda: nh.simulate(model, (0, T), starts[name], rtol=RTOL, atol=atol))
                times.setdefault((name, atol), []).append(t)
                stats[(name, atol)] = r.stats
    rows = [f"Build: bodies and contacts {statistics.median(t for t, _ in builds):.2f} s (median of {repeats}); "
            f"SymPy's KanesMethod {kane_build:.1f} s + from_kanes_method {kane_adapt:.1f} s. "
            f"Final states of the two builds agree to {gap:.1e}.", "",
            "| tapes (instructions) | dynamics | constraints | Jacobian |", "|---|---:|---:|---:|"]
    for name, system in (("bodies and contacts", bodies), ("KanesMethod", kane)):
        sizes = [_core.diagnostics.tape_size(system.core, which)[0]
                 for which in ("dynamics", "constraints", "jacobian")]
        rows.append(f"| {name} | {sizes[0]} | {sizes[1]} | {sizes[2]} |")
    rows += ["", f"| 5 s run, rtol {RTOL:g} | atol | time (ms) | steps | RHS | Jacobians |",
             "|---|---|---:|---:|---:|---:|"]
    for (name, atol), ts in times.items():
        s = stats[(name, atol)]
        rows.append(f"| {name} | {atol:g} | {1e3 * statistics.median(ts):.1f} | {s['n_steps']} | {s['n_rhs']} | "
                    f"{s['n_jac']} |")
    emit("\n".join(rows), markdown)


if __name__ == "__main__":
    main()
