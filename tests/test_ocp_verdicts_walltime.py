"""``max_wall_time`` bounds the whole solve: the default start solves many NLPs (the starts on a
coarse mesh, the full mesh from the best, the bumped starts, the lifts of the final headings, the
rounds of refine=), and each IPOPT call is given what remains of one budget; once it is spent no
further call starts, and the message says so.

Before, the limit applied to each IPOPT call: parking with two trailers around an obstacle at 300
nodes with max_wall_time=0.2 ran 24 calls, each stopped at 0.2 s of CPU time, and took 5.7 s."""

import time

import sympy as sp

import nonholo as nh

BUDGET = 0.3
SLACK = 1.5  # s: the check of the plan, a loaded machine (IPOPT's limit is CPU time, checked once per iteration)


def _parking():
    x, y = sp.symbols("x y")
    truck = nh.systems.kinematic_car_trailers(2, turning_radius=1.0, hitch=1.0)
    problem = nh.OptimalControlProblem(truck, cost="time", initial=[0, 0, 0, 0, 0], final=[-1.5, 2.5, 0.3, 0.2, 0.1],
                                       path_constraints=[(x - 0.5)**2 + (y - 1)**2 >= 0.3])
    problem.solve(nodes=11, guess="line", max_iter=0)  # its functions built: the budget is the solve's
    return problem


def test_max_wall_time_is_a_budget_for_the_whole_solve():
    problem = _parking()
    started = time.perf_counter()
    sol = problem.solve(nodes=160, max_wall_time=BUDGET)
    elapsed = time.perf_counter() - started
    assert elapsed < BUDGET + SLACK  # before: 24 IPOPT calls of up to 0.3 s each
    assert not sol.success and f"max_wall_time = {BUDGET:g} s for the whole solve was spent" in sol.message
    stats = sol.stats
    assert stats["time_total"] <= elapsed and stats["ipopt_calls"] >= 1
    assert stats["calls_not_started"] >= 1 or "stopped by it" in sol.message


def test_a_budget_spent_early_starts_no_other_call_and_one_that_suffices_changes_nothing():
    """The car with its final heading modulo 2 pi (three lifts, each a multi-start: 16 IPOPT calls
    before, 1.0 s) at 400 nodes with 0.05 s: one call or two, and the message says why the plan is
    none. Heisenberg's particle (one start): the plan with a budget of a minute is the plan without
    one (the default, no budget), and neither message speaks of it."""
    car = nh.OptimalControlProblem(nh.systems.kinematic_car(turning_radius=1.0), cost="time", initial=[0, 0, 0],
                                   final=[2.0, 1.9, -0.7], angles=["theta"])
    car.solve(nodes=11, guess="line", max_iter=0)
    started = time.perf_counter()
    cut = car.solve(nodes=400, max_wall_time=0.05)
    assert time.perf_counter() - started < 0.05 + SLACK
    assert not cut.success and "max_wall_time = 0.05 s for the whole solve was spent" in cut.message
    assert cut.stats["ipopt_calls"] <= 2
    heis = nh.OptimalControlProblem(nh.systems.heisenberg().kinematic(), cost="energy", t_final=1.0,
                                    initial=[0, 0, 0], final=[1.0, 0.5, 0.3])
    default = heis.solve(nodes=30)
    budget = heis.solve(nodes=30, max_wall_time=60.0)
    assert default.success and budget.success and default.message == budget.message == "Optimal Solution Found."
    assert budget.objective == default.objective and budget.stats["ipopt_calls"] == default.stats["ipopt_calls"]
    assert default.stats["calls_not_started"] == budget.stats["calls_not_started"] == 0
