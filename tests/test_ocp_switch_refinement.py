"""refine splits the interval across which a bounded control switches. Neither the interval errors nor
the cost errors see a switch inside an interval (the re-run follows the planned controls exactly): a
double integrator's least time from rest to rest at 1 (T = 2, bang-bang) was 2.0041 on 10 nodes with
Hermite-Simpson, 2.0125 with backward Euler, and refine never split the switch's interval (backward
Euler kept 2.0125 through seven rounds and 1,026 nodes)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.control.refinement import switches

x, v, u = sp.symbols("x v u")


def least_time():
    double = nh.KinematicSystem([x, v], [u], [v, u], control_bounds={"u": (-1, 1)})
    return nh.OptimalControlProblem(double, cost="time", initial=[0, 0], final=[1, 0])


@pytest.mark.parametrize("method", [None, "hermite-simpson", "trapezoid", "backward-euler"])
def test_refine_places_a_bang_bang_switch(method):
    problem = least_time()
    options = {} if method is None else {"method": method}
    coarse = problem.solve(nodes=10, **options)
    assert abs(coarse.t_final - 2) > 1e-3  # 2.0041 (Hermite-Simpson), 2.0125 (trapezoid, backward Euler)
    assert np.count_nonzero(switches(coarse, 1e-6)) >= 1
    refined = problem.solve(nodes=10, refine=6, **options)
    assert refined.success
    assert refined.t_final == pytest.approx(2.0, abs=1e-5)


def test_a_smooth_bounded_control_has_no_switch():
    """Least effort from rest to rest at 1 in T = 2 with |u| <= 10 (never active): u = 1.5 (1 - t),
    a straight line; refine needs no round (Hermite-Simpson is exact for it)."""
    double = nh.KinematicSystem([x, v], [u], [v, u], control_bounds={"u": (-10, 10)})
    problem = nh.OptimalControlProblem(double, cost=u**2 / 2, t_final=2.0, initial=[0, 0], final=[1, 0])
    plan = problem.solve(nodes=10, refine=3)
    assert not switches(plan, 1e-6).any() and plan.stats["refine_rounds"] == 0
    np.testing.assert_allclose(plan.u["u"], 1.5 * (1 - plan.t), atol=1e-8)


def test_rounds_that_run_out_count_the_switches_left():
    plan = least_time().solve(nodes=10, refine=1)
    assert "ran out of rounds" in plan.message and "across a control's switch" in plan.message


def test_refine_rounds_start_warm_and_keep_a_cusp():
    """The Reeds-Shepp car from (0, 0, 0) to (1, 1, pi): the least time is pi (|theta'| = |v kappa| <= 1),
    forward on a left arc, a cusp, backward on a right one. Each round of refine started cold (IPOPT's
    barrier at 0.1, its own multipliers) pushed the controls off the bounds they sat on: 3.2272 after
    three rounds on 40 nodes. From the round before's multipliers (the default): 3.1468."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[1.0, 1.0, np.pi])
    warm = problem.solve(nodes=40, refine=3)
    cold = problem.solve(nodes=40, refine=3, warm_multipliers=False)
    assert warm.success and np.pi <= warm.t_final < np.pi * 1.005  # 3.14683
    assert cold.t_final > warm.t_final + 0.05  # 3.22722
