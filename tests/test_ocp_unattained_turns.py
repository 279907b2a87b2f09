"""A minimum time that is not attained where the goal needs a turn first: a Chaplygin sleigh pushed
along its blade by F and turned by tau, both unbounded, reaches any pose in any positive time (its
torque turns it at once, and from the turned heading its push carries it sideways), so the duration
shrinks to 0. The problem is refused as the straight-ahead goal is; bounding the torque (or a positive
lower bound of the duration) makes it a minimum again."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import pushed_sleigh

sleigh = pushed_sleigh  # m = 1, I = 0.2, the blade 0.3 behind the centre of mass


@pytest.mark.parametrize("final", [[1, 0, 0, 0, 0], [1, 0.5, 0.8, 0, 0], [0, 1, 0, 0, 0]])
def test_every_control_unbounded_is_refused_whatever_the_turn(final):
    system, F, tau = sleigh()
    with pytest.raises(ValueError, match="every control unbounded: the duration can shrink to 0"):
        nh.OptimalControlProblem(system, cost="time", controls=[F, tau], initial=[0] * 5, final=final)


def test_an_unbounded_torque_alone_is_refused_too():
    """|F| <= 1 and tau unbounded: the sleigh's speed grows like a omega^2 (v' = F / m + a omega^2), so a
    fast turn of the whole sleigh and a stop leave it as fast as one likes, heading anywhere."""
    system, F, tau = sleigh()
    with pytest.raises(ValueError, match=r"the controls \['tau'\] unbounded"):
        nh.OptimalControlProblem(system, cost="time", controls=[F, tau], initial=[0] * 5,
                                 final=[1, 0.5, 0.8, 0, 0], control_bounds={"F": (-1.0, 1.0)})


def test_a_bounded_torque_or_a_least_duration_is_a_problem_again():
    system, F, tau = sleigh()
    # |tau| <= 1, F unbounded: the turn to 0.8 takes time, so the minimum is attained; not refused
    problem = nh.OptimalControlProblem(system, cost="time", controls=[F, tau], initial=[0] * 5,
                                       final=[1, 0.5, 0.8, 0, 0], control_bounds={"tau": (-1.0, 1.0)})
    assert problem.free_time
    # straight ahead, no turn: the unbounded push alone shrinks the duration to 0
    with pytest.raises(ValueError, match=r"the controls \['F'\] unbounded"):
        nh.OptimalControlProblem(system, cost="time", controls=[F, tau], initial=[0] * 5,
                                 final=[1, 0, 0, 0, 0], control_bounds={"tau": (-1.0, 1.0)})
    problem = nh.OptimalControlProblem(system, cost="time", controls=[F, tau], initial=[0] * 5,
                                       final=[1, 0.5, 0.8, 0, 0], t_final=(0.5, 10.0))
    assert problem.t_bounds == (0.5, 10.0)


def test_a_state_held_in_a_range_carries_nothing_in_no_time():
    """An unbounded control that drives a state held in a range (a state bound, or a path constraint on
    it) moves what that state drives at a bounded rate: x' = v_x, v_x' = F unbounded with v_x in [-1, 1]
    takes 1 to x = 1 (v_x = 1 at once), and a car's curvature in [-1, 1] set by an unbounded rate turns
    it through pi / 2 in pi / 2 at |v| <= 1. Both were refused as unattained; the same without the state's
    range still is."""
    x, vx, F = sp.symbols("x v_x F")
    point = nh.KinematicSystem([x, vx], [F], [vx, F])
    for held in (dict(state_bounds={"v_x": (-1.0, 1.0)}), dict(path_constraints=[vx**2 <= 1])):
        problem = nh.OptimalControlProblem(point, cost="time", initial=[0, None], final=[1, None], **held)
        assert problem.free_time
    with pytest.raises(ValueError, match="every control unbounded: the duration can shrink to 0"):
        nh.OptimalControlProblem(point, cost="time", initial=[0, None], final=[1, None])
    y, th, k, v, s = sp.symbols("y theta kappa v s")
    car = nh.KinematicSystem([x, y, th, k], [v, s], [v * sp.cos(th), v * sp.sin(th), v * k, s],
                             control_bounds={"v": (-1.0, 1.0)})
    ends = dict(initial=[0, 0, 0, None], final=[None, None, np.pi / 2, None])
    assert nh.OptimalControlProblem(car, cost="time", state_bounds={"kappa": (-1.0, 1.0)}, **ends).free_time
    with pytest.raises(ValueError, match=r"the controls \['s'\] unbounded"):
        nh.OptimalControlProblem(car, cost="time", **ends)
