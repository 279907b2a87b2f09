"""A minimum time that is not attained where the goal needs a turn first: a Chaplygin sleigh pushed
along its blade by F and turned by tau, both unbounded, reaches any pose in any positive time (its
torque turns it at once, and from the turned heading its push carries it sideways), so the duration
shrinks to 0. The problem is refused as the straight-ahead goal is; bounding the torque (or a positive
lower bound of the duration) makes it a minimum again."""

import pytest
import sympy as sp

import nonholo as nh

M, INERTIA, A = 1.0, 0.2, 0.3


def sleigh():
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    G = sp.Matrix([[M, 0, -M * A * sp.sin(th)], [0, M, M * A * sp.cos(th)],
                   [-M * A * sp.sin(th), M * A * sp.cos(th), INERTIA + M * A**2]])
    system = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})
    return system, F, tau


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
