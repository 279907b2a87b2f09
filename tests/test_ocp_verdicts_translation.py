"""The verdict of a solve does not depend on where the problem lies: the check that a plan is a
motion of its dynamics (``sol.unresolved()``) and the default ``refine_tol`` scale with the range of
the states over the plan (max - min), not with max |y|.

Before, a forward-only car sent to a goal behind it, the repository's own example of a plan that is
no motion of its dynamics (reported infeasible at the origin), came back translated by (100, 100)
with success True, "Optimal Solution Found.", t_final 1190 (Dubins length 7.08) and an interval
1.76 from its next node: the limit 0.1 (1 + max |y|) had grown from 0.3 to 10.2."""

import numpy as np
import pytest

import nonholo as nh

CAR = nh.systems.kinematic_car(turning_radius=1.0)
OFFSET = np.array([100.0, 100.0, 0.0])
BEHIND, AHEAD = [0.5, -0.3, -2.0], [4.0, 1.0, 0.5]


def _forward_only(offset, goal):
    x0, y0, _ = offset
    return nh.OptimalControlProblem(CAR, cost="time", initial=[x0, y0, 0.0],
                                    final=[x0 + goal[0], y0 + goal[1], goal[2]], control_bounds={"v": (0, 1)})


def _translated(sol, goal):
    """The plan ``sol`` moved by OFFSET, as a solution of the translated problem (IPOPT from it, no
    iteration, its start not pushed off the bounds)."""
    shift = OFFSET[:, None]
    return _forward_only(OFFSET, goal).solve(nodes=sol.t.size, guess=(sol.t_points, sol.y_points + shift, sol.u_points),
                                             max_iter=0, ipopt_options={"bound_push": 1e-14, "bound_frac": 1e-14})


def test_the_check_of_a_plan_is_the_check_of_its_translation():
    origin = _forward_only(np.zeros(3), BEHIND).solve(nodes=40, guess="heading")
    moved = _translated(origin, BEHIND)
    assert np.abs(moved.y_points - origin.y_points - OFFSET[:, None]).max() == 0.0
    assert np.allclose(moved.interval_errors, origin.interval_errors, rtol=1e-9, atol=1e-12)
    why = origin.unresolved()
    assert why is not None and "interval 38 of 39" in why  # 1.25 from the next node, the limit 0.3
    assert moved.unresolved() == why  # before: None, the limit 10.2
    resolved = _forward_only(np.zeros(3), AHEAD).solve(nodes=15, guess="heading")
    assert resolved.success and resolved.unresolved() is None and _translated(resolved, AHEAD).unresolved() is None


def test_the_default_refine_tol_does_not_depend_on_where_the_problem_lies():
    """The intervals halved by refine= with the default refine_tol (1e-6 (1 + the largest range of a
    state)): 14 at the origin and 14 translated (before: 2, the limit 1.05e-4 instead of 5e-6), the
    same plan; an explicit refine_tol halves the same intervals in both."""
    plans = {(tuple(offset), tol): _forward_only(offset, AHEAD).solve(nodes=15, guess="heading", refine=1,
                                                                       refine_tol=tol)
             for offset in (np.zeros(3), OFFSET) for tol in (None, 1e-3)}
    for tol, nodes in ((None, 29), (1e-3, 17)):
        here, there = plans[((0.0, 0.0, 0.0), tol)], plans[(tuple(OFFSET), tol)]
        assert here.success and there.success
        assert here.t.size == there.t.size == nodes
        assert there.t_final == pytest.approx(here.t_final, rel=1e-9)


def test_a_forward_only_car_behind_its_goal_is_no_success_anywhere():
    sol = _forward_only(OFFSET, BEHIND).solve(nodes=100)
    assert not sol.success  # before: success True, t_final 1190, its re-run 1.4 from the goal
