"""End headings modulo 2 pi (OptimalControlProblem(..., angles=["theta"])): a final state is a
number, so a forward-only car sent to a goal straight behind it at heading 0 may not loop (the loop
ends at 2 pi) and drives an S-shaped path pi longer than Dubins's. With the heading named in
``angles`` the solve tries its lifts and reaches the Dubins length."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

CAR = nh.systems.kinematic_car(turning_radius=1.0)
FORWARD = {"v": (0, 1)}


def test_a_goal_behind_is_reached_by_the_loop_when_the_heading_counts_modulo_2_pi():
    goal = [-2.0, 0.0, 0.0]
    dubins = nh.analysis.dubins_length([0, 0, 0], goal, 1.0)  # L+S+L+: a half turn, 2, a half turn
    literal = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD)
    s_path = literal.solve(nodes=40)  # the default: the heading ends at 0 itself
    assert s_path.success and s_path.t_final == pytest.approx(dubins + math.pi, rel=1e-4)
    lifted = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                      angles=["theta"])
    loop = lifted.solve(nodes=40)
    assert loop.success and loop.t_final == pytest.approx(dubins, rel=1e-4)
    assert abs(loop.y[2, -1]) == pytest.approx(2 * math.pi)  # it ends a full turn round
    assert lifted.final == [-2.0, 0.0, 0.0]  # the problem keeps the goal it was given


def test_lifts_are_kept_within_the_state_bounds_and_a_guess_keeps_the_given_value():
    goal = [2.0, -3.0, math.pi]  # R+S+R+ ends at -pi: 5.3777
    dubins = nh.analysis.dubins_length([0, 0, 0], goal, 1.0)
    free = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                    angles="theta").solve(nodes=30)
    assert free.success and free.t_final == pytest.approx(dubins, rel=1e-3)
    assert free.y[2, -1] == pytest.approx(-math.pi)
    bounded = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                       state_bounds={"theta": (0, 4)}, angles="theta").solve(nodes=30)
    assert bounded.y[2, -1] == pytest.approx(math.pi)  # -pi is outside the bounds: not tried
    assert bounded.t_final > dubins * 1.05
    problem = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                       angles="theta")
    warm = problem.solve(nodes=30, guess=bounded)  # a guess fixes the lift: the value as given
    assert warm.y[2, -1] == pytest.approx(math.pi)


def test_angles_are_checked_by_name():
    with pytest.raises(ValueError, match="angles: 'psi' is not a state"):
        nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[1, 0, 0], angles=["psi"])
    problem = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[1, 0, 0], angles=("theta",))
    assert problem.angles == (2,)
    assert np.isclose(problem.solve(nodes=20).t_final, 1.0)


def test_a_plan_kept_while_a_lift_found_none_says_so():
    """An outside probe's forward-only car to (2.4215, 0.2629, -1.5563): no start solves the lift
    -1.5563, which holds the shortest path (Dubins L+R+L+, 6.7548), and the solve kept the lift +4.727
    (8.227) as "Optimal Solution Found." with nothing more. The default start now solves the Dubins path too,
    which reaches that lift (6.759 on 20 nodes). Where the car path is no start (a state bound, here one that
    does not bind), the kept plan names the lift no start solved; solved from the Dubins path as the note says,
    that lift gives 6.7548."""
    goal = [2.4215427189935026, 0.2629242041033222, -1.5562518733256987]
    dubins = nh.analysis.dubins_length([0, 0, 0], goal, 1.0)
    assert dubins == pytest.approx(6.754777, rel=1e-6)
    default = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                       angles=["theta"]).solve(nodes=20)
    assert default.success and default.t_final == pytest.approx(dubins, rel=2e-3)
    assert "No start found" not in default.message
    kept = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal, control_bounds=FORWARD,
                                    angles=["theta"], state_bounds={"x": (-50, 50)}).solve(nodes=20)
    assert kept.success and kept.t_final > 1.2 * dubins
    assert "No start found a plan ending at theta = -1.55625" in kept.message
    # the lift the note names, from the Dubins path (arcs left 1.8696, right 4.1555, left 0.7296 at unit speed)
    arcs, turns = [1.86963724, 4.15551463, 0.72962551], [1.0, -1.0, 1.0]
    s = np.linspace(0, sum(arcs), 200)
    Y = np.zeros((3, s.size))
    for j, length in enumerate(s):
        x = y = th = 0.0
        for arc, k in zip(arcs, turns):  # the exact arcs of radius 1 up to the arc length reached
            step = min(max(length, 0.0), arc)
            x, y, th = x + (np.sin(th + k * step) - np.sin(th)) / k, y - (np.cos(th + k * step) - np.cos(th)) / k, \
                th + k * step
            length -= arc
        Y[:, j] = x, y, th
    kappa = np.array(turns)[np.searchsorted(np.cumsum(arcs), s, side="right").clip(max=2)]
    assert np.allclose(Y[:, -1], goal, atol=1e-8)
    guess = (s, Y, np.vstack([np.ones_like(s), kappa]))
    lift = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=goal,
                                    control_bounds=FORWARD).solve(nodes=100, guess=guess)
    assert lift.success and lift.t_final == pytest.approx(dubins, rel=1e-3)


def test_a_state_the_dynamics_do_not_turn_with_is_no_angle():
    """angles= names headings: a state whose rates change when it is turned by 2 pi (a speed) is
    refused when the solve would try its lifts; the heading of the same system is one."""
    import sympy as sp

    x, y, th, v, a, w = sp.symbols("x y theta v a omega")
    car = nh.KinematicSystem([x, y, th, v], [a, w], [v * sp.cos(th), v * sp.sin(th), w, a],
                             control_bounds={"a": (-1, 1), "omega": (-1, 1)})
    ends = dict(cost="time", initial=[0, 0, 0, 0], final=[2, 0, 0, 0])
    with pytest.raises(ValueError, match="angles: 'v' is no angle of the dynamics"):
        nh.OptimalControlProblem(car, angles=["v"], **ends).solve(nodes=20)
    heading = nh.OptimalControlProblem(car, angles=["theta"], **ends).solve(nodes=20)
    plain = nh.OptimalControlProblem(car, **ends).solve(nodes=20)
    assert heading.success and plain.success and abs(heading.t_final - plain.t_final) < 1e-6
    assert abs(plain.t_final - 2 * math.sqrt(2)) < 2e-3  # bang-bang over 2: T = 2 sqrt(2) (2.8297 on 20 nodes)


def test_a_lift_ipopt_found_infeasible_is_named_with_the_reason():
    """An outside probe's pendulum (|tau| <= 2, T = 3) sent to 2 pi - 0.3 ends at -0.3, the plain problem's
    cost; its note said the lifts 5.98 and -6.58, out of reach under the bound, "may be better". It now
    gives IPOPT's reason and says that the reason does not tell a lift out of reach from one IPOPT missed."""
    phi, omega, tau = sp.symbols("phi omega tau")
    pendulum = nh.KinematicSystem([phi, omega], [tau], [omega, -sp.sin(phi) + tau], control_bounds={"tau": (-2, 2)})
    wrapped = nh.OptimalControlProblem(pendulum, cost=tau**2, t_final=3.0, initial=[0, 0],
                                       final=[2 * np.pi - 0.3, 0], angles=["phi"]).solve(nodes=41)
    plain = nh.OptimalControlProblem(pendulum, cost=tau**2, t_final=3.0, initial=[0, 0], final=[-0.3, 0])
    plain = plain.solve(nodes=41)
    assert wrapped.success and wrapped.objective == pytest.approx(plain.objective, rel=1e-8)
    assert "phi = 5.98319" in wrapped.message
    assert "IPOPT: Converged to a point of local infeasibility" in wrapped.message
    assert "or none may exist" in wrapped.message
