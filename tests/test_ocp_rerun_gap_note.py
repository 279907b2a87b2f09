"""A success whose re-run misses its planned final state by more than 1% of the state's scale (and less
than the verdict's 10%) says so. An outside probe's oscillator x'' = -x + u, |u| <= 1, least time from
(5, 0) to rest (7.93741 from Pontryagin's conditions: arcs of length pi between switches): backward
Euler on 100 nodes planned 7.28787, 8% below what any control can do, "Optimal Solution Found." and
nothing else, its re-run 0.60 from the goal in v."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, v, u = sp.symbols("x v u")
T_STAR = 7.937411720585097


@pytest.fixture(scope="module")
def oscillator():
    osc = nh.KinematicSystem([x, v], [u], [v, -x + u], control_bounds={"u": (-1, 1)}, name="oscillator")
    return nh.OptimalControlProblem(osc, cost="time", initial=[5, 0], final=[0, 0])


@pytest.mark.parametrize("nodes, gap, share", [(100, "0.604", "9.4%"), (400, "0.191", "2.7%")])
def test_a_rerun_that_misses_the_goal_is_told(oscillator, nodes, gap, share):
    sol = oscillator.solve(nodes=nodes, method="backward-euler")
    assert sol.success and sol.t_final < T_STAR - 0.15  # 7.288 and 7.758
    assert f"the planned controls end about {gap} from the planned final v" in sol.message and share in sol.message
    rerun = sol.simulate()
    assert abs(rerun.y_final[1] - sol.y[1, -1]) == pytest.approx(float(gap), rel=0.05)


def test_the_default_plan_and_an_exact_one_keep_no_note(oscillator):
    sol = oscillator.solve(nodes=40)  # Hermite-Simpson
    assert sol.success and abs(sol.t_final - T_STAR) < 2e-3 and "Re-run open loop" not in sol.message
    di = nh.KinematicSystem([x, v], [u], [v, u], control_bounds={"u": (-1, 1)}, name="double integrator")
    exact = nh.OptimalControlProblem(di, cost="time", initial=[0, 0], final=[1, 0]).solve(nodes=5,
                                                                                         method="backward-euler")
    assert exact.t_final == pytest.approx(2.0, abs=1e-8) and "Re-run open loop" not in exact.message
    assert np.abs(exact.simulate().y_final - exact.y[:, -1]).max() < 1e-6  # its errors cancel
