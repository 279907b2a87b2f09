"""The dynamics' Jacobians df/dy and df/du a plan's error estimates use (the amplification of the
intervals' errors, the re-run's linearization) come from the dynamics' tape by dual numbers, not a
lambdified symbolic Jacobian: for an outside probe's snakeboard that took 34 ms a call, 2.3 s of a solve
from its own optimum whose IPOPT call took 4 ms. An identity at random points: central differences of
f itself, for a dynamic system (a sleigh pushed and turned) and a kinematic one (the car)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def sleigh_problem():
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    G = sp.Matrix([[1, 0, -0.3 * sp.sin(th)], [0, 1, 0.3 * sp.cos(th)], [-0.3 * sp.sin(th), 0.3 * sp.cos(th), 1.09]])
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       force=sp.Matrix([F * sp.cos(th), F * sp.sin(th), tau]), parameters={F: 0.0, tau: 0.0})
    return nh.OptimalControlProblem(sleigh, cost=(F**2 + tau**2) / 2, t_final=3.0, controls=[F, tau],
                                    initial=[0, 0, 0, 0, 0], final=[1, 0.5, 0, 0, 0])


@pytest.mark.parametrize("build", [sleigh_problem, lambda: nh.OptimalControlProblem(
    nh.systems.kinematic_car(turning_radius=1.0), cost="time", initial=[0, 0, 0], final=[2, 1, 0])])
def test_the_dynamics_jacobians_are_those_of_f(build):
    problem = build()
    rng = np.random.default_rng(3)
    n, m, P = len(problem.states), len(problem.controls), 7
    Y, U = rng.normal(size=(n, P)), rng.normal(size=(m, P))
    fy, fu = problem._rhs_y(Y, U), problem._rhs_u(Y, U)
    assert fy.shape == (P, n, n) and fu.shape == (P, n, m)
    for block, variables, k in ((fy, Y, n), (fu, U, m)):
        for j in range(k):
            h = 1e-6
            up, down = variables.copy(), variables.copy()
            up[j] += h
            down[j] -= h
            pair = (problem._rhs(up, U), problem._rhs(down, U)) if variables is Y else \
                (problem._rhs(Y, up), problem._rhs(Y, down))
            fd = (pair[0] - pair[1]) / (2 * h)
            np.testing.assert_allclose(block[:, :, j].T, fd, rtol=1e-6, atol=1e-7 * (1 + np.abs(fd).max()))
