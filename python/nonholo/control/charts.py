"""The chart of a control system posed in a Voronets frame (``system.kinematic()``, a System's
``controls=`` dynamics): the frame solves the constrained velocities of some coordinates s from the
others, q'_s = -A_s(q)^-1 A_r(q) q'_r, which holds only where the block A_s of their constraint
columns is regular. A knife edge solved for y has y' = tan(theta) x', singular at theta = pi/2. A
plan whose motion crosses that set satisfies its collocation equations at the points on either
side, but the dynamics between them are not the system's (the chart's vector field is infinite
there): its cost and its re-run are wrong. :func:`chart_crossing` finds such a plan: the
normalized determinant d(q) = det A_s(q) / prod_a |A_a(q)| (|d| <= 1 by Hadamard's inequality,
0 exactly where the chart is singular) changes sign between two points of the plan, or falls
below CHART_TOL at one of them: an end on the singular set is no better (the knife edge turned
from theta = 0 to pi/2 and moved by 1 sideways: 2.029 in the chart against the optimum 1.803).
Nor is a plan within its own error of that set (:func:`chart_reach`, part of the check of every
solve): near it the chart's small errors are large ones of the motion."""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

__all__ = ["CHART_TOL", "chart_of", "chart_crossing", "chart_reach", "ends_across", "normalized_determinant"]

CHART_TOL = 1e-8


def chart_of(system, solved: list, values: dict) -> dict:
    """The chart of ``system``'s Voronets frame solving the coordinates ``solved`` (indices), its
    parameters at ``values``: the coordinates, the solved names and d(q) as a SymPy expression."""
    q = list(system.coordinates)
    A = sp.Matrix(system.constraints).subs(values)
    block = A[:, list(solved)]
    norms = sp.Mul(*[sp.sqrt(sum(e**2 for e in A.row(a))) for a in range(A.rows)])
    return {"coordinates": q, "solved": [system.coordinate_names[i] for i in solved],
            "determinant": block.det(method="berkowitz"), "norms": norms}


@functools.lru_cache(maxsize=64)
def _determinant_function(q: tuple, determinant, norms):
    """det A_s and the rows' norms in NumPy, built once per chart (lambdify took 2 ms, and the check of
    every solve evaluates d several times: 17 of a 31 ms solve of the Heisenberg particle on 51 nodes)."""
    return sp.lambdify([list(q)], [determinant, norms], "numpy")


def _normalized_determinant(chart: dict, index: dict, Y: np.ndarray) -> np.ndarray:
    """d(q) at the columns of Y (n_y, P), the coordinates found by name through ``index``."""
    q = chart["coordinates"]
    f = _determinant_function(tuple(q), chart["determinant"], chart["norms"])
    with np.errstate(all="ignore"):
        det, norms = (np.broadcast_to(np.asarray(v, dtype=float), (Y.shape[1],))
                      for v in f([Y[index[str(s)]] for s in q]))
        return np.where(norms > 0, det / norms, 0.0)


def _chart_index(dynamics, states: list):
    """(the chart of ``dynamics``, state name -> row), or (None, None) without a chart in the states."""
    chart = getattr(dynamics, "chart", None)
    if chart is None:
        return None, None
    index = {str(s): i for i, s in enumerate(states)}
    if any(str(s) not in index for s in chart["coordinates"]):
        return None, None
    return chart, index


def normalized_determinant(dynamics, states: list, Y: np.ndarray) -> np.ndarray | None:
    """d(q) of the chart of ``dynamics`` at the columns of ``Y`` (states in the order of ``states``), or
    None without a chart in the states."""
    chart, index = _chart_index(dynamics, states)
    return None if chart is None else _normalized_determinant(chart, index, np.asarray(Y, dtype=float))


def ends_across(problem) -> bool:
    """Whether every plan of ``problem`` must cross its chart's singular set: its initial and final
    states fix the chart's coordinates on opposite sides of it (or on it): the normalized determinant d
    of the ends differs in sign or vanishes. False where an end leaves one of them free (a goal in a
    terminal cost): a plan that avoids the singular set may exist, and another start may find it."""
    chart, index = _chart_index(problem.dynamics, problem.states)
    if chart is None:
        return False
    ends = []
    for values in (problem.initial, problem.final):
        picked = [values[index[str(s)]] for s in chart["coordinates"]]
        if any(v is None for v in picked):
            return False
        ends.append(picked)
    Y = np.zeros((len(problem.states), 2))
    for column, picked in enumerate(ends):
        for s, v in zip(chart["coordinates"], picked):
            Y[index[str(s)], column] = float(v)
    d = _normalized_determinant(chart, index, Y)
    return bool(np.any(np.abs(d) < CHART_TOL) or d[0] * d[1] < 0)


def chart_crossing(dynamics, states: list, t: np.ndarray, Y: np.ndarray, controls_only: bool = False) -> str | None:
    """None, or why the plan (times ``t``, states ``Y`` (n_y, P) in the order of ``states``) crosses
    the singular set of the chart of ``dynamics`` (its ``chart``, :func:`chart_of`). ``controls_only``:
    the chart's quasi-velocities are the controls (a kinematic system), not states; a crossing strictly
    between the points then leaves the points' equations and cost those of any frame regular there (an
    outside probe's car with a trailer: equal to its CasADi plan in body velocities to 3e-10), and what
    fails is the chart's controls between them, which the message says."""
    chart, index = _chart_index(dynamics, states)
    if chart is None or Y.shape[1] < 2:
        return None
    d = _normalized_determinant(chart, index, Y)
    singular = np.abs(d) < CHART_TOL
    flips = np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)
    if not flips.size and not singular.any():
        return None
    at = min(t[flips[0] + 1] if flips.size else np.inf, t[singular][0] if singular.any() else np.inf)
    solved = ", ".join(chart["solved"])
    between = controls_only and not singular.any()
    what = ("its controls in the chart are no motion between the points, which the re-run and the check of every "
            "solve need (at the points, its states and cost may be those of the same transcription in a frame "
            "regular there)") if between else ("the dynamics between the collocation points are not the system's "
                                               "(cost and re-run wrong)")
    return (f"the plan crosses or reaches a singularity of its chart near t = {at:.4g}: the Voronets frame solves the "
            f"velocities of {solved}, whose constraint block is singular there, so {what}. Pose it in a frame regular "
            f"along the motion: a KinematicSystem in body velocities, or a System from from_kanes_method in such "
            f"speeds")


def chart_reach(dynamics, states: list, Y: np.ndarray, errors: np.ndarray, fraction: float):
    """None, or (interval k, relative change, d at its next node, the solved coordinates' names) of
    the interval whose local error moves the chart's normalized determinant d the most relative to
    |d|, where that exceeds ``fraction``: d(q_{k+1} + e_k) against d(q_{k+1}) at the nodes ``Y``
    (n_y, K + 1) under the signed errors ``errors`` (n_y, K) of the re-integration, and at the
    interval's first node, d(q_k + e_k) against d(q_k) (an outside probe's sleigh with a free initial
    heading started 5e-7 from the singular set, where no interval ends: its cost 13% below the
    optimum, its re-run 0.28 off, a success); for a System's
    dynamics in the frame also the error of its velocity states over |d| (the solved velocities' error)
    against 1 + their largest range (an outside probe's sleigh brought to rest at theta = 1.5707: an
    error 8.1e-5 of x' over d = 9.6e-5 is a blade speed of 0.84, while theta's moved d by 2.3%;
    a success at a cost 27% below the optimum). The frame
    solves velocities with 1/d (y' = tan(theta) x' for a knife edge): where the plan's own error
    changes d by a sizeable fraction, it is within that error of the singular set, and an error
    small in the chart's states is a large one of the motion (a sleigh brought to rest at
    theta = 1.57 on 41 nodes: 0.00017 in theta, 22% of d = 0.0008, and 5.2e-5 in x', the speed
    0.07; its cost 8% below the optimum of the same transcription in body velocities)."""
    chart, index = _chart_index(dynamics, states)
    if chart is None or errors.shape[1] == 0:
        return None
    Y = np.asarray(Y, dtype=float)
    rows = [i for i, s in enumerate(states) if str(s) not in {str(c) for c in chart["coordinates"]}]
    scale = 1.0 + float(np.max(np.ptp(Y[rows], axis=1))) if rows else 1.0
    worst = None
    for end in (Y[:, 1:], Y[:, :-1]):  # the interval's error at its next node, and at its own (a free start)
        d = _normalized_determinant(chart, index, end)
        moved = _normalized_determinant(chart, index, end + errors)
        with np.errstate(all="ignore"):
            change = np.abs(moved - d) / np.abs(d)
            # the chart's velocity states (a System's dynamics in the frame): their error, which the frame turns
            # into one of the solved velocities with 1/d, against the range of those states
            if rows:
                change = np.maximum(change, np.max(np.abs(errors[rows]), axis=0) / np.abs(d) / scale)
        change = np.where(np.isnan(change), np.inf, change)
        k = int(np.argmax(change))
        if worst is None or change[k] > worst[1]:
            worst = (k, float(change[k]), float(d[k]))
    if not worst[1] > fraction:
        return None
    return (*worst, ", ".join(chart["solved"]))
