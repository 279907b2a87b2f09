"""Holonomic constraints with ends given in full: a particle on the unit sphere held on the circle
x = 0.6 by the constraint row x' = 0, swung by a torque tau about the x axis from rest at psi = 0.3 to
rest at psi = 1.2 in 1 s at least integral of tau^2 (in the circle's angle: psi'' = tau - (g / rho)
sin psi, rho = 0.8; the optimum from Pontryagin's conditions by SciPy's solve_bvp at 1e-12).

At position level (the default) the correction that keeps phi = 0 at the points moved x, whose rate is
identically 0, so the given final x = 0.6 was missed (0.6000131 on 11 Hermite-Simpson nodes, and phi
7.9e-6 at the end); held states get no correction now: x stays 0.6 exactly, and the cost converges at
the method's order."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import simpson, solve_bvp

import nonholo as nh
from nonholo.numerics import loglog_slope

G, C = 9.81, 0.6
RHO = np.sqrt(1 - C**2)


def optimum() -> float:
    k = G / RHO

    def f(t, Y):
        psi, w, l1, l2 = Y
        return np.vstack([w, -l2 / 2 - k * np.sin(psi), l2 * k * np.cos(psi), -l1])

    t = np.linspace(0, 1, 200)
    sol = solve_bvp(f, lambda a, b: np.array([a[0] - 0.3, a[1], b[0] - 1.2, b[1]]), t,
                    np.vstack([0.3 + 0.9 * t, 0.9 + 0 * t, 0 * t, 0 * t]), tol=1e-12, max_nodes=100000)
    assert sol.status in (0, 1)
    tt = np.linspace(0, 1, 20001)
    return float(simpson((sol.sol(tt)[3] / 2) ** 2, x=tt))


@pytest.fixture(scope="module")
def problem():
    x, y, z, tau = sp.symbols("x y z tau")
    system = nh.System([x, y, z], sp.eye(3), potential=G * z, constraints=sp.Matrix([[x, y, z], [1, 0, 0]]),
                       force=[0, -tau * z, tau * y], parameters={tau: 0.0}, holonomic=[(x**2 + y**2 + z**2 - 1) / 2])

    def end(psi):
        return [C, RHO * np.sin(psi), -RHO * np.cos(psi), 0]

    return nh.OptimalControlProblem(system, cost=tau**2, t_final=1.0, controls=[tau], initial=end(0.3),
                                    final=end(1.2))


def test_the_default_meets_the_given_end_and_keeps_the_held_state(problem):
    sol = problem.solve(nodes=11, tol=1e-12)
    assert sol.success
    assert np.all(sol.y[0] == C)  # x' = 0: x is 0.6 at every point, the end included
    np.testing.assert_allclose(sol.y[:, -1], problem.final, atol=1e-12)
    assert np.max(sol.holonomic_residual) < 1e-12


@pytest.mark.parametrize("method, order", [("hermite-simpson", 4), ("trapezoid", 2)])
def test_the_cost_converges_at_the_methods_order(problem, method, order):
    best = optimum()
    assert abs(best - 53.41732156) < 1e-7
    nodes = [11, 21, 41]
    errors = [abs(problem.solve(nodes=n, method=method, tol=1e-12).objective - best) for n in nodes]
    slope = -loglog_slope(np.array(nodes) - 1.0, errors)  # in the intervals' length
    assert order - 0.5 < slope < order + 0.6, (errors, slope)
