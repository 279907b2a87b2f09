"""sol.optimum_error: the intervals' signed errors weighed by the multipliers of the collocation
equations (a dual-weighted residual), plus the running cost's quadrature error: the optimum of the
dynamics near the plan minus its objective, to first order.

An outside probe's oscillator x'' = -x + u, |u| <= 1, least time from (5, 0) to rest (T* = 7.93741
from Pontryagin's conditions: arcs of length pi between switches, each a rotation about (+-1, 0)):
backward Euler on 100 nodes planned T = 7.28787, 8 % below what any control can do, "Optimal
Solution Found." and nothing else, its re-run 0.64 from the goal (within the check's limit). The
estimate is +0.624 for the gap 0.649, and the message says so.

A second probe's Reeds-Shepp car through a cusp was told its Hermite-Simpson plan on 40 nodes, 0.027 above
the least time pi, would cost 0.66 more: the intervals across the switch measure where it lies, not what
the dynamics' error costs, and are left out."""

import numpy as np
import pytest
import sympy as sp
from scipy.linalg import expm

import nonholo as nh

x, v, u = sp.symbols("x v u")
T_STAR = 7.937411720585097  # the oscillator's least time from (5, 0)


@pytest.fixture(scope="module")
def oscillator():
    osc = nh.KinematicSystem([x, v], [u], [v, -x + u], control_bounds={"u": (-1, 1)}, name="oscillator")
    return nh.OptimalControlProblem(osc, cost="time", initial=[5, 0], final=[0, 0])


def test_backward_euler_below_the_least_time_is_told_by_how_much(oscillator):
    sol = oscillator.solve(nodes=100, method="backward-euler")
    gap = T_STAR - sol.t_final
    assert sol.success and gap > 0.6  # the plan is 8 % faster than any control can be
    assert sol.optimum_error == pytest.approx(gap, rel=0.05)  # 0.624 for 0.649 (0.636 with the switch intervals)
    assert "sol.optimum_error 0.624" in sol.message and "8.6% of the cost's size" in sol.message


def test_the_default_plan_has_a_small_estimate_and_no_note(oscillator):
    sol = oscillator.solve(nodes=40)  # Hermite-Simpson
    assert sol.success and abs(sol.t_final - T_STAR) < 2e-3
    assert abs(sol.optimum_error) < 1e-2 and "optimum_error" not in sol.message  # 0.0053


def test_a_terminal_cost_error_is_exact_for_linear_dynamics():
    """x'' = u, |u| <= 1, least -x(1) from rest: u = 1, J* = -1/2. Backward Euler on N intervals: x_N =
    h^2 N (N + 1) / 2, J = -(N + 1) / (2 N): below J* by 1 / (2 N). The objective is linear in the final
    state and the controls sit on their bound: the first-order estimate is exact."""
    di = nh.KinematicSystem([x, v], [u], [v, u], control_bounds={"u": (-1, 1)}, name="double integrator")
    problem = nh.OptimalControlProblem(di, cost=0, terminal_cost=-x, t_final=1.0, initial=[0, 0], final=[None, None])
    sol = problem.solve(nodes=21, method="backward-euler")
    assert sol.objective == pytest.approx(-21 / 40, rel=1e-6)
    assert sol.optimum_error == pytest.approx(1 / 40, rel=1e-5)
    assert sol.objective_error == pytest.approx(0.0, abs=1e-12)  # no running cost: the quadrature has no error
    default = problem.solve(nodes=21)
    assert default.objective == pytest.approx(-0.5, abs=1e-6) and abs(default.optimum_error) < 1e-3


def _piecewise_constant_optimum(N: int) -> float:
    """min h/2 sum F_k^2 for x' = v, v' = -x + F, F constant on N intervals of [0, 1], from (1, 0) to
    rest: the exact dynamics (matrix exponentials) under backward Euler's controls, a least-norm
    solution of the linear end conditions."""
    h = 1.0 / N
    M = np.zeros((3, 3))
    M[:2, :2], M[1, 2] = [[0.0, 1.0], [-1.0, 0.0]], 1.0
    E = expm(M * h)
    Phi, G = E[:2, :2], E[:2, 2]
    C = np.column_stack([np.linalg.matrix_power(Phi, N - 1 - j) @ G for j in range(N)])
    F = C.T @ np.linalg.solve(C @ C.T, -np.linalg.matrix_power(Phi, N) @ np.array([1.0, 0.0]))
    return h / 2 * float(np.sum(F**2))


def test_the_estimate_is_first_order():
    """The effort to stop an oscillator in T = 1: backward Euler's objective against the optimum of the exact
    dynamics under its piecewise-constant controls. The objective's own error falls as h; what the estimate
    leaves of it as h^2 (0.0054, 0.0014, 0.00034 from 40 intervals)."""
    F = sp.Symbol("F")
    osc = nh.KinematicSystem([x, v], [F], [v, -x + F], name="oscillator")
    problem = nh.OptimalControlProblem(osc, cost=F**2 / 2, t_final=1.0, initial=[1, 0], final=[0, 0])
    gaps, left = [], []
    for N in (40, 80, 160):
        sol = problem.solve(nodes=N + 1, method="backward-euler")
        gaps.append(_piecewise_constant_optimum(N) - sol.objective)
        left.append(abs(gaps[-1] - sol.optimum_error))
    assert all(1.5 < a / b < 2.5 for a, b in zip(gaps, gaps[1:]))  # first order: 0.0093, 0.0055, 0.0029
    assert all(3.5 < a / b < 4.5 for a, b in zip(left, left[1:]))  # second order after the estimate
    default = problem.solve(nodes=41)  # Hermite-Simpson: its controls are no piecewise constants; its error is tiny
    assert abs(default.optimum_error) < 1e-6 * default.objective


def test_a_cusp_is_no_error_of_the_dynamics():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[1.0, 1.0, np.pi])
    for method in ("hermite-simpson", "trapezoid"):
        sol = problem.solve(nodes=40, method=method)
        assert sol.success and sol.t_final > np.pi  # 3.169 and 3.322
        assert abs(sol.optimum_error) < 1e-3 and "optimum_error" not in sol.message  # 3e-5 and -9e-5 (0.66, 0.079)
