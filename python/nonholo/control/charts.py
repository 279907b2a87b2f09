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
from theta = 0 to pi/2 and moved by 1 sideways: 2.029 in the chart against the optimum 1.803)."""

from __future__ import annotations

import numpy as np
import sympy as sp

__all__ = ["CHART_TOL", "chart_of", "chart_crossing"]

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


def chart_crossing(dynamics, states: list, t: np.ndarray, Y: np.ndarray) -> str | None:
    """None, or why the plan (times ``t``, states ``Y`` (n_y, P) in the order of ``states``) crosses
    the singular set of the chart of ``dynamics`` (its ``chart``, :func:`chart_of`)."""
    chart = getattr(dynamics, "chart", None)
    if chart is None or Y.shape[1] < 2:
        return None
    index = {str(s): i for i, s in enumerate(states)}
    q = chart["coordinates"]
    if any(str(s) not in index for s in q):
        return None
    f = sp.lambdify([q], [chart["determinant"], chart["norms"]], "numpy")
    det, norms = (np.broadcast_to(np.asarray(v, dtype=float), (Y.shape[1],))
                  for v in f([Y[index[str(s)]] for s in q]))
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(norms > 0, det / norms, 0.0)
    singular = np.abs(d) < CHART_TOL
    flips = np.flatnonzero(np.sign(d[:-1]) * np.sign(d[1:]) < 0)
    if not flips.size and not singular.any():
        return None
    at = min(t[flips[0] + 1] if flips.size else np.inf, t[singular][0] if singular.any() else np.inf)
    solved = ", ".join(chart["solved"])
    return (f"the plan crosses or reaches a singularity of its chart near t = {at:.4g}: the Voronets frame solves the "
            f"velocities of {solved}, whose constraint block is singular there, so the dynamics between the "
            f"collocation points are not the system's (cost and re-run wrong). Pose it in a frame regular along the "
            f"motion: a KinematicSystem in body velocities, or a System from from_kanes_method in such speeds")
