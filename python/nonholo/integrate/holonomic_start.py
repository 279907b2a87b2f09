"""The start of a run on a system with holonomic constraints h(q) = 0: on them, and with their
derivatives among the constraint rows that the models enforce; moved onto them (``project_y0``), and
the derivative of that move in a parameter of h (the start of that parameter's sensitivity)."""

from __future__ import annotations

import weakref

import numpy as np
import sympy as sp

__all__ = ["HELD_MIN", "on_holonomic_constraints", "onto_holonomic_constraints", "holonomic_parameters",
           "holonomic_start_derivative", "on_unit_norm"]

_EPS = np.finfo(float).eps
_PARTIALS = weakref.WeakKeyDictionary()  # system -> {parameter index: dh/dp as a NumPy callable}


def _distances(functions, q: np.ndarray, sys_p: list, tolerance: float) -> tuple:
    """(|h|, the first-order distance |h| / |dh/dq| of q from each constraint's zero set in q's
    units, the distance each may have, dh/dq). A constraint is met where its distance is at most
    ``tolerance`` of max(1, rho), rho = |dh/dq . q| / |dh/dq| the distance of its tangent plane at q
    from the origin (a length that a translation leaving h unchanged, along which dh/dq . t = 0,
    keeps), plus the rounding of q and of h's evaluation there (1e3 eps |q|, ten times the spread of
    h under perturbations of q by its own rounding): a hitch bar 1 mm too long was accepted 1e4 m
    from the origin, where the old bound, tolerance of max(1, |q|), had grown to 1e-4."""
    h = np.asarray(functions[0](*q, *sys_p), dtype=float).reshape(-1)
    dh = np.asarray(functions[1](*q, *sys_p), dtype=float).reshape(h.size, -1)
    size = np.linalg.norm(dh, axis=1)
    scale = float(np.abs(q).max(initial=0.0))
    rng = np.random.default_rng(0)
    spread = np.zeros(h.size)
    for _ in range(4):
        moved = q * (1.0 + _EPS * rng.choice([-2.0, 2.0], q.size))
        spread = np.maximum(spread, np.abs(np.asarray(functions[0](*moved, *sys_p), dtype=float).reshape(-1) - h))
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.where(size > 0, np.abs(h) / size, np.where(h == 0, 0.0, np.inf))
        rho = np.where(size > 0, np.abs(dh @ q) / size, 0.0)
        noise = np.where(size > 0, 10.0 * spread / size, 10.0 * spread)
    allowed = tolerance * np.maximum(1.0, rho) + 1e3 * _EPS * scale + noise
    return np.abs(h), distance, allowed, dh


HELD_MIN = 1e-8  # the tightest tolerance of |h(q)| at a run's start (simulate: max(HELD_MIN, 100 rtol))


def on_holonomic_constraints(system, y0: np.ndarray, params: list, tolerance: float) -> None:
    """ValueError when q of y0 is off the system's holonomic constraints h(q) = 0 (a mechanism's
    contact heights) by more than ``tolerance`` in the measure of :func:`_distances`: the run enforces
    h' = 0, so it would keep h at its start (a bicycle's front wheel 5 cm above the ground, carrying a
    load)."""
    functions = system.holonomic_functions() if getattr(system, "holonomic", None) else None
    if functions is None:
        return
    q = np.asarray(y0[: system.n], dtype=float)
    sys_p = list(params[: len(system.parameters)])
    h, distance, allowed, _ = _distances(functions, q, sys_p, tolerance)
    off = ~(distance <= allowed)  # NaN (h not evaluable there) is off too
    if not off.any():
        _rows_hold(system, functions, q, params)
        return
    worst = int(np.argmax(np.where(off, distance / allowed, -1.0)))
    raise ValueError(f"y0 violates the holonomic constraints h(q) = 0: |h| = {h[worst]:.3g} (constraint {worst}, "
                     f"{_shown(system, worst)}), q about {distance[worst]:.3g} from h = 0 in its units, more than "
                     f"the {allowed[worst]:.3g} accepted. The run keeps h at its start, not at zero: solve h(q) = 0 "
                     "first, e.g. nh.multibody.assemble(system, q, v, dependent=[...], free=[...]), or pass "
                     "project_y0=True to move q onto h(q) = 0 (G-orthogonally, as it projects v)")


def onto_holonomic_constraints(system, y0: np.ndarray, t0: float, params: list, tolerance: float) -> np.ndarray:
    """y0 with q moved onto h(q) = 0 (``project_y0``) by Gauss-Newton steps in the kinetic metric,
    dq = -G^-1 J^T (J G^-1 J^T)^+ h (J = dh/dq, G and J at the current q): to first order the move of
    least kinetic-metric length, as the velocity's projection is G-orthogonal. ``y0`` itself where the
    system has no holonomic constraints or q is on them already; ValueError where the steps do not
    reach h = 0 (within ``tolerance``, as :func:`on_holonomic_constraints` measures it)."""
    functions = system.holonomic_functions() if getattr(system, "holonomic", None) else None
    if functions is None:
        return y0
    n = system.n
    sys_p = list(params[: len(system.parameters)])
    q = np.array(y0[:n], dtype=float)
    h, distance, allowed, dh = _distances(functions, q, sys_p, tolerance)
    if not (distance > 1e-3 * allowed).any():
        return y0
    last = np.inf
    for _ in range(30):
        try:
            step = _metric_step(system, t0, q, sys_p, dh, np.asarray(functions[0](*q, *sys_p), float).reshape(-1))
        except (np.linalg.LinAlgError, ValueError, RuntimeError, ArithmeticError):
            break  # G not invertible there, or h not evaluable: said below
        size = float(np.abs(step).max(initial=0.0))
        if not size <= last:  # growing (or NaN): not converging
            break
        q, last = q - step, size
        dh = np.asarray(functions[1](*q, *sys_p), dtype=float).reshape(dh.shape)
        if size <= 4 * _EPS * max(1.0, float(np.abs(q).max())):
            break
    h, distance, allowed, _ = _distances(functions, q, sys_p, tolerance)
    if not np.all(distance <= allowed):
        worst = int(np.argmax(np.where(distance <= allowed, -1.0, np.nan_to_num(distance / allowed, nan=np.inf))))
        raise ValueError(f"project_y0: Gauss-Newton steps from the given q did not reach the holonomic constraints "
                         f"h(q) = 0 (|h| = {h[worst]:.3g} left in constraint {worst}, {_shown(system, worst)}): "
                         "solve h(q) = 0 first, e.g. nh.multibody.assemble(system, q, v, dependent=[...], free=[...])")
    y = np.array(y0, dtype=float)
    y[:n] = q
    return y


def _metric_step(system, t0: float, q: np.ndarray, sys_p: list, dh: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """G^-1 J^T (J G^-1 J^T)^+ rhs at q: the kinetic-metric least-norm dq with J dq = rhs."""
    G = np.asarray(system.core.at(float(t0), q, np.zeros_like(q), sys_p).metric(), dtype=float)
    GiJt = np.linalg.solve(G, dh.T)
    return GiJt @ np.linalg.lstsq(dh @ GiJt, rhs, rcond=1e-12)[0]


def holonomic_parameters(system) -> set:
    """The indices of the system's parameters that its holonomic constraints involve."""
    if not getattr(system, "holonomic", None):
        return set()
    free = set().union(*(sp.sympify(h).free_symbols for h in system.holonomic))
    return {i for i, s in enumerate(system.parameters) if s in free}


def holonomic_start_derivative(system, q: np.ndarray, t0: float, params: list, index: int) -> np.ndarray:
    """d q_start / d p of the start that ``project_y0`` moves onto h(q; p) = 0 from q (on it at the
    given p), p = params[index] a parameter of h: -G^-1 J^T (J G^-1 J^T)^+ dh/dp, the first-order
    Gauss-Newton step of :func:`onto_holonomic_constraints` (exact partials: dh/dp symbolic)."""
    sys_p = list(params[: len(system.parameters)])
    functions = system.holonomic_functions()
    q = np.asarray(q, dtype=float)
    dh = np.asarray(functions[1](*q, *sys_p), dtype=float).reshape(len(system.holonomic), -1)
    dh_dp = np.asarray(_partial(system, index)(*q, *sys_p), dtype=float).reshape(-1)
    return -_metric_step(system, t0, q, sys_p, dh, dh_dp)


def _partial(system, index: int):
    """dh/dp for params[index], lambdified once per system and parameter."""
    cache = _PARTIALS.setdefault(system, {})
    if index not in cache:
        symbol = list(system.parameters)[index]
        cache[index] = sp.lambdify([*system.coordinates, *system.parameters],
                                   sp.Matrix(list(system.holonomic)).diff(symbol), "numpy")
    return cache[index]


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
