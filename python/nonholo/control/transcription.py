"""Direct collocation: the stencils of trapezoid and Hermite-Simpson, and the per-point tapes
(dynamics, running cost, path constraints, their exact sparse Jacobian and the Hessian of their
weighted sum) that the C++ NLP (``_core.solve_collocation``) evaluates at every IPOPT iteration."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from .. import _core
from ..expressions.lowering import lower

__all__ = ["METHODS", "DMOC", "Scheme", "PointFunctions", "scheme", "point_functions", "terminal_function",
           "correction_functions", "correction_offsets"]


@dataclass(frozen=True)
class Scheme:
    """A transcription: ``step`` points per interval after its first; each stencil
    (offsets, a, b) is a defect sum_j a_j y_j - h sum_j b_j f_j; the running cost's quadrature
    on an interval is h sum_j w_j L_j at ``quad_offsets``; ``order`` of the state error;
    ``controls`` the controls between the points (``control/reintegration.py``): "linear" between
    the nodes, "quadratic" through node, midpoint and node, "hold" u_{k+1} on (t_k, t_{k+1}]."""

    name: str
    step: int
    stencils: tuple
    quad_offsets: tuple
    quad_weights: tuple
    order: int
    controls: str = "linear"


METHODS = ("hermite-simpson", "trapezoid", "backward-euler", "dmoc")

# DMOC, the discrete Lagrange-d'Alembert midpoint rule of a System (control/dmoc.py): not a stencil
# of the state's derivative, its equations are the discrete mechanics' (no stencils here); order 2.
DMOC = Scheme("dmoc", 1, (), (0, 1), (0.5, 0.5), 2)


def scheme(method: str) -> Scheme:
    """The transcription named ``method``.

    ``"trapezoid"``: y_{k+1} - y_k - h/2 (f_k + f_{k+1}) = 0, order 2.
    ``"backward-euler"``: y_{k+1} - y_k - h f_{k+1} = 0 and the running cost h L_{k+1} on each
    interval (opty's default, "backward euler": the same discrete problem), order 1.
    ``"hermite-simpson"`` (separated form: the midpoint state and control are variables):
    Simpson's rule y_{k+1} - y_k - h/6 (f_k + 4 f_m + f_{k+1}) = 0 and the Hermite interpolant
    y_m - (y_k + y_{k+1})/2 - h/8 (f_k - f_{k+1}) = 0, order 4.
    ``"dmoc"``: the discrete Lagrange-d'Alembert equations of the midpoint rule
    (``nonholo.control.dmoc``), for a System given with ``controls=``; order 2.
    """
    if method == "trapezoid":
        return Scheme("trapezoid", 1, (((0, 1), (-1.0, 1.0), (0.5, 0.5)),), (0, 1), (0.5, 0.5), 2)
    if method == "backward-euler":
        return Scheme("backward-euler", 1, (((0, 1), (-1.0, 1.0), (0.0, 1.0)),), (1,), (1.0,), 1, "hold")
    if method == "hermite-simpson":
        simpson = ((0, 1, 2), (-1.0, 0.0, 1.0), (1 / 6, 4 / 6, 1 / 6))
        hermite = ((0, 1, 2), (-0.5, 1.0, -0.5), (1 / 8, 0.0, -1 / 8))
        return Scheme("hermite-simpson", 2, (simpson, hermite), (0, 1, 2), (1 / 6, 4 / 6, 1 / 6), 4,
                      "quadratic")
    if method == "dmoc":
        return DMOC
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


@dataclass
class PointFunctions:
    """The tapes of one collocation point, z = (y, u): ``node`` gives [f, L, g, J values] with
    J = d[f, L, g]/dz on (jac_rows, jac_cols); ``hessian`` (inputs z, mu) the lower triangle of
    sum_o mu_o d^2F_o/dz^2 on (hess_rows, hess_cols)."""

    node: object
    jac_rows: list
    jac_cols: list
    hessian: object
    hess_rows: list
    hess_cols: list
    n_outputs: int


def point_functions(z: list, outputs: list) -> PointFunctions:
    """The tapes of ``outputs`` (f, L, g) of the point variables ``z`` and their exact derivatives:
    the outputs lowered to an expression graph, differentiated on the graph in C++
    (``_core.point_derivatives``: forward mode for the nonzero first derivatives, reverse then
    forward mode for the second derivatives of sum_o mu_o F_o, each entry once, lower triangle).
    Differentiating the graph, not the SymPy expressions, keeps the derivatives the size of the
    graph (the Whipple bicycle's equations of motion: seconds instead of minutes)."""
    graph = lower([sp.sympify(F) for F in outputs], list(z)).to_core()
    node, jac_rows, jac_cols, hessian, hess_rows, hess_cols = _core.point_derivatives(graph)
    return PointFunctions(_core.Tape(node), list(jac_rows), list(jac_cols), _core.Tape(hessian), list(hess_rows),
                          list(hess_cols), len(outputs))


def terminal_function(states: list, phi):
    """The tape of the terminal cost phi(y): [phi, dphi/dy, lower triangle of d^2phi/dy^2 on
    the returned (rows, cols)], or (None, [], []) without one."""
    if phi is None:
        return None, [], []
    phi = sp.sympify(phi)
    grad = [sp.diff(phi, s) for s in states]
    rows, cols, vals = [], [], []
    for c, s in enumerate(states):
        for r in range(c, len(states)):
            d2 = sp.diff(grad[c], states[r])
            if d2 != 0:
                rows.append(r)
                cols.append(c)
                vals.append(d2)
    return lower([phi, *grad, *vals], states).tape(), rows, cols


def correction_functions(z: list, states: list, phi: list, rates=()) -> PointFunctions:
    """The tapes of the holonomic correction C(z, gamma) = dphi/dy(y)^T gamma (one output per
    state, gamma one new symbol per constraint), over the inputs (z, gamma): a stencil's defect on
    the constraint set phi(y) = 0 (Posa, Kuindersma & Tedrake 2016) is
    sum_j a_j y_j - h sum_j b_j f_j - h C(z_c, gamma). Without it, imposing phi = 0 at the points
    on top of the defects over-determines the NLP (its constraint Jacobian loses rank).

    The states held still (their entry of ``rates``, the dynamics' right-hand side, is identically 0:
    a coordinate a constraint row holds still) get no correction where the row's other states carry
    one: the correction is a device that keeps phi = 0, and moving a held state breaks the invariant
    the dynamics keep exactly (an outside probe's particle on the sphere held at x = 0.6 by x' = 0
    drifted to x = 0.6000131 on 11 Hermite-Simpson nodes, and its given final x was missed)."""
    gamma = list(sp.symbols(f"_gamma0:{len(phi)}"))
    grads = [[sp.diff(sp.sympify(h), y) for y in states] for h in phi]
    held = {i for i, rate in enumerate(rates) if sp.sympify(rate).is_zero}
    for row in grads:
        if any(not g.is_zero for i, g in enumerate(row) if i not in held):
            row[:] = [sp.Integer(0) if i in held else g for i, g in enumerate(row)]
    outputs = [sum((grads[r][i] * gamma[r] for r in range(len(phi))), sp.Integer(0)) for i in range(len(states))]
    return point_functions([*z, *gamma], outputs)


def correction_offsets(sch: Scheme) -> list:
    """Per stencil, the point (offset in the interval) whose dphi/dy carries its correction: the
    point the stencil solves for, its largest coefficient a_j (trapezoid: the next node; Hermite-
    Simpson: the next node for Simpson's rule, the midpoint for the Hermite interpolant)."""
    return [int(offsets[int(np.argmax(a))]) for offsets, a, _ in sch.stencils]


def interval_points(dtau: np.ndarray, step: int) -> np.ndarray:
    """The normalised times (in [0, 1]) of the collocation points of a mesh with interval
    fractions ``dtau`` (midpoints included when step = 2)."""
    nodes = np.concatenate([[0.0], np.cumsum(dtau)])
    nodes[-1] = 1.0
    if step == 1:
        return nodes
    out = np.empty(2 * len(dtau) + 1)
    out[0::2] = nodes
    out[1::2] = (nodes[:-1] + nodes[1:]) / 2
    return out


def point_jacobian(exprs: list, states: list, controls: list):
    """J(Y, U) -> array (P, len(exprs), n_y + n_u): d exprs / d(y, u) at the points (columns of Y (n_y, P)
    and U (n_u, P)), by dual numbers on the expressions' tape. The lambdified symbolic Jacobian of a
    snakeboard's dynamics took 34 ms a call (an unsimplified expression of 8 states), 2.3 s of a solve
    from its own optimum (0 IPOPT iterations, 4 ms)."""
    tape = lower([sp.sympify(e) for e in exprs], [*states, *controls]).tape()

    def call(Y, U):
        Z = np.vstack([np.asarray(Y, dtype=float).reshape(len(states), -1),
                       np.asarray(U, dtype=float).reshape(len(controls), -1)])
        return np.array([tape.jacobian(z) for z in Z.T]).reshape(Z.shape[1], len(exprs), Z.shape[0])

    return call
