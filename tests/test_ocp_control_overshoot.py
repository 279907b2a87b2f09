"""Path constraints between the points are checked with the controls linear between the NLP's points,
but a plan's own controls there (sol.controls_at: Hermite-Simpson's quadratic through node, midpoint and
node, which sol.simulate and sol.track run) overshoot them where a control turns sharply within an
interval. An outside probe's sleigh with a friction-cone margin on its lateral force reached |R| = 0.29
for 0.25 under its plan's controls, and the message said g = 0.000128; the message now says both."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

x, y, th, F, tau, xd, thd = sp.symbols("x y theta F tau x_dot theta_dot")
M, I, A = 1.0, 0.2, 0.3


@pytest.fixture(scope="module")
def cone():
    G = sp.Matrix([[M, 0, -M * A * sp.sin(th)], [0, M, M * A * sp.cos(th)],
                   [-M * A * sp.sin(th), M * A * sp.cos(th), I + M * A**2]])
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})
    lateral = M * (A * tau / (I + M * A**2) + (xd / sp.cos(th)) * thd * I / (I + M * A**2))
    return nh.OptimalControlProblem(sleigh, cost="time", controls=[F, tau], control_bounds={"F": (-1, 1),
                                    "tau": (-1, 1)}, initial=[0] * 5, final=[2, 1, None, 0, 0],
                                    path_constraints=[lateral**2 <= 0.25**2]), lateral


def test_the_plans_own_controls_overshooting_a_path_constraint_are_noted(cone):
    problem, lateral = cone
    plan = problem.solve(nodes=21)  # the default method, Hermite-Simpson
    assert plan.success and "overshoot them" in plan.message
    noted = float(plan.message.split("overshoot them")[1].split(" by ")[1].split(" at t")[0])
    # the plan's controls run interval by interval from its nodes (SciPy, rtol 1e-10)
    worst = -np.inf
    R_of = sp.lambdify([xd, th, thd, tau], lateral)
    for k in range(plan.t.size - 1):
        run = solve_ivp(lambda t, z: problem._rhs(z[:, None], plan.controls_at([t]))[:, 0],
                        (plan.t[k], plan.t[k + 1]), plan.y[:, k], rtol=1e-10, atol=1e-12, dense_output=True)
        t = np.linspace(plan.t[k], plan.t[k + 1], 200)
        Z, U = run.sol(t), plan.controls_at(t)
        worst = max(worst, float(np.max(R_of(Z[3], Z[2], Z[4], U[1]) ** 2 - 0.0625)))
    assert noted > 0.005 and worst == pytest.approx(noted, rel=0.05)
    linear = problem.solve(nodes=21, method="trapezoid")
    assert linear.success and "overshoot them" not in linear.message
