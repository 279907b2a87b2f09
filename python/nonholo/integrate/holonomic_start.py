"""The start of a run on a system with holonomic constraints h(q) = 0: on them, and with their
derivatives among the constraint rows that the models enforce."""

from __future__ import annotations

import numpy as np

__all__ = ["on_holonomic_constraints", "on_unit_norm"]


def on_holonomic_constraints(system, y0: np.ndarray, params: list, tolerance: float) -> None:
    """ValueError when q of y0 is off the system's holonomic constraints h(q) = 0 (a mechanism's
    contact heights) by more than ``tolerance`` of max(1, |q|): the run enforces h' = 0, so it would
    keep h at its start (a bicycle's front wheel 5 cm above the ground, carrying a load)."""
    functions = system.holonomic_functions() if getattr(system, "holonomic", None) else None
    if functions is None:
        return
    q = y0[: system.n]
    h = np.abs(np.asarray(functions[0](*q, *params[: len(system.parameters)]), dtype=float).reshape(-1))
    if not h.size or h.max() <= tolerance * max(1.0, float(np.abs(q).max())):
        _rows_hold(system, functions, q, params)
        return
    worst = int(np.argmax(h))
    raise ValueError(f"y0 violates the holonomic constraints h(q) = 0: |h| = {h[worst]:.3g} (constraint {worst}, "
                     f"{_shown(system, worst)}). The run keeps h at its start, not at zero: solve h(q) = 0 first, "
                     "e.g. nh.multibody.assemble(system, q, v, dependent=[...], free=[...])")


def _rows_hold(system, functions, q: np.ndarray, params: list) -> None:
    """ValueError when the derivative of a holonomic constraint, dh/dq . v = 0, is not among the
    constraint rows at q (on h = 0): the models enforce the rows alone, so h would drift away (a bead
    on a hoop with only its turning row left the hoop, h = 2e4 at t = 2, with status 0)."""
    sys_p = params[: len(system.parameters)]
    try:
        A = np.asarray(system._core.at(0.0, q, None, sys_p).constraint_matrix(), dtype=float)
        A = A.reshape(system.k, system.n)
        dh = np.asarray(functions[1](*q, *sys_p), dtype=float).reshape(-1, system.n)
    except (ValueError, RuntimeError, ArithmeticError):
        return  # not evaluable here: the run says why
    for i, row in enumerate(dh):
        size = np.linalg.norm(row)
        if size == 0:
            continue
        rest = row - (np.linalg.lstsq(A.T, row, rcond=None)[0] @ A if A.size else 0.0)
        if np.linalg.norm(rest) > 1e-6 * size:
            raise ValueError(f"holonomic: the derivative of constraint {i} ({_shown(system, i)}), dh/dq . v = 0, is "
                             "not among the constraint rows: the models enforce the rows alone, so h(q) would drift "
                             "from zero. Add dh/dq as a row of the constraints (A v = b)")


def _shown(system, i: int) -> str:
    """The i-th holonomic constraint as text, cut at 80 characters."""
    text = str(system.holonomic[i])
    return text if len(text) <= 80 else text[:77] + "..."



def on_unit_norm(groups: list, y0: np.ndarray) -> np.ndarray:
    """y0 with each unit-norm group (a quaternion: ``groups`` as (position indices, velocity indices or
    [])) scaled to |q| = 1 and its velocity to q' / |q| without its part along q, where they are off by
    more than round-off: the map the run applies after each step (unit_norm.hpp). Every system with
    such a group is invariant under q -> s q (``System`` checks it), so the motion is the given one; the
    run starts on the sphere (BDF's first projection of a start at |q| = 1.01, a correction far above
    its tolerance at a step of 1e-11, lost the state: "the metric is not positive definite" at
    q = t q'(0)), and its first sample is the state it integrates from."""
    y = y0
    for positions, velocities in groups:
        q = y[positions]
        size = float(np.linalg.norm(q))
        if not size > 0:
            continue  # the model's own check names a zero quaternion
        u = q / size
        radial = float(u @ y[velocities]) if velocities else 0.0
        speed = float(np.linalg.norm(y[velocities])) if velocities else 0.0
        if abs(size - 1.0) <= 1e-12 and abs(radial) <= 1e-12 * (1.0 + speed):
            continue
        y = np.array(y, dtype=float)
        if velocities:
            y[velocities] = (y[velocities] - radial * u) / size
        y[positions] = u
    return y
