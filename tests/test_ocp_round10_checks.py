"""Round 10 of the optimal control probe: DMOC's path constraints at its nodes, the check between the
points of Hermite-Simpson with a constraint on the controls, further starts of a free duration that
ended on a bound of t_final, and the messages of sol.u and controls_at."""

import re

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th, F, tau = sp.symbols("x y theta F tau")
KNIFE = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                  force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})
R = 0.3  # the disc's radius, centred at (1, 0) on the knife edge's way from (0, 0) to (2, 0.2)


def knife_around_the_disc(**extra):
    return nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                    initial=[0, 0, 0, 0, 0], final=[2, 0.2, 0, 0, 0],
                                    path_constraints=[(x - 1) ** 2 + y**2 >= R**2], **extra)


def reported(message: str, constraint: str) -> float:
    """The value by which the message says ``constraint`` is violated."""
    found = re.search(re.escape(constraint) + r" <= 0 by ([0-9.e+-]+) at t = ", message)
    assert found, message
    return float(found.group(1))


def test_dmoc_keeps_its_nodes_out_of_a_disc_and_names_the_chords_through_it():
    """DMOC imposed the path constraints at the midpoints only, and its check looked at nothing: on 11
    nodes the knife edge's nodes (sol.y, the plan's states) went 3.1 cm into the disc of radius 0.3,
    success True, no word. A constraint of the coordinates and controls now holds at every node too,
    and the check evaluates each constraint at the nodes and on the discrete trajectory between them
    (the coordinates linear from node to node), naming what it violates as the collocation's does."""
    sol = knife_around_the_disc().solve(nodes=11, method="dmoc")
    assert sol.success
    distance = np.hypot(sol.y[0] - 1, sol.y[1])
    assert distance.min() > R - 1e-6  # was 0.2686
    # between the nodes, the chords of the discrete trajectory: the largest g on them, by hand
    s = np.linspace(0, 1, 17)[1:-1, None]
    X = sol.y[0, :-1] * (1 - s) + sol.y[0, 1:] * s
    Y = sol.y[1, :-1] * (1 - s) + sol.y[1, 1:] * s
    g = R**2 - (X - 1) ** 2 - Y**2
    assert g.max() > 1e-3
    assert abs(reported(sol.message, "-y**2 - (x - 1)**2 + 0.09") / g.max() - 1) < 1e-2
    assert "At the nodes (sol.y)" in sol.message


def test_dmoc_names_a_speed_limit_its_nodes_exceed():
    """A constraint with a velocity holds at DMOC's midpoints (the nodes' velocities come from the discrete
    momenta after the solve); at the nodes x_dot exceeds the limit 1 by 0.0055, which the check now says."""
    problem = nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1.5, 0, 0, 0, 0],
                                       path_constraints=[KNIFE.velocities[0] <= 1.0])
    sol = problem.solve(nodes=11, method="dmoc")
    over = sol.y[3].max() - 1.0
    assert sol.success and over > 1e-3
    assert abs(reported(sol.message, "x_dot - 1.0") / over - 1) < 1e-2


def test_dmoc_without_path_constraints_is_unchanged():
    sol = nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                   initial=[0, 0, 0, 0, 0], final=[1, 0.5, 0.8, 0, 0]).solve(nodes=41, method="dmoc")
    assert sol.success and sol.message == "Optimal Solution Found."
    assert abs(sol.objective - 1.135373) < 1e-6  # the guide's DMOC section


CAR = nh.systems.kinematic_car(turning_radius=1.0)
V, KAPPA = sp.symbols("v kappa")


def car_with_a_speed_curvature_limit():
    return nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[1.0, 1.5, np.pi],
                                    control_bounds={"v": (-0.5, 1.0)},
                                    path_constraints=[V**2 * (1 + 0.25 * KAPPA**2) <= 1])


def test_hermite_simpson_with_a_constraint_on_the_controls_alone_is_a_success():
    """v^2 (1 + kappa^2/4) <= 1 on a car: Hermite-Simpson's optimum on 61 nodes is CasADi's (T =
    4.223818712248748, CasADi's Opti with IPOPT on the same separated transcription, started from this
    plan) and holds the constraint at every point, yet was reported as crossing it by 0.25: the check
    took the controls between the points from the quadratic through node, midpoint and node, which
    overshoots where v switches from -0.5 to 0.894 within an interval, clipped v and kappa each to its
    bounds and read (1, 1). The controls of the check are now linear between the NLP's own points."""
    sol = car_with_a_speed_curvature_limit().solve(nodes=61)
    g = sol.u_points[0] ** 2 * (1 + 0.25 * sol.u_points[1] ** 2) - 1
    assert g.max() < 1e-6
    assert sol.success, sol.message
    assert abs(sol.t_final - 4.223818712248748) < 1e-8
    assert "Between the collocation points" not in sol.message


def test_the_check_between_hermite_simpson_points_still_sees_an_obstacle_jumped():
    """The states of the check are still the re-run's: a point robot's 11 Hermite-Simpson points from
    (-2, 0) to (2, 0) started on the line jump the unit disc (g about 1 at its centre), no success."""
    px, py, vx, vy = sp.symbols("px py vx vy")
    robot = nh.KinematicSystem([px, py], [vx, vy], [vx, vy], control_bounds={"vx": (-1, 1), "vy": (-1, 1)})
    problem = nh.OptimalControlProblem(robot, cost="time", initial=[-2, 0], final=[2, 0],
                                       path_constraints=[px**2 + py**2 >= 1])
    sol = problem.solve(nodes=11, guess="line")
    assert not sol.success
    assert reported(sol.message, "-px**2 - py**2 + 1") > 0.5
    assert "crosses a path constraint between the collocation points" in sol.message


def test_point_controls_are_linear_between_the_nlp_points():
    from nonholo.control.reintegration import point_controls

    sol = car_with_a_speed_curvature_limit().solve(nodes=21)
    k, s = np.array([3, 3, 3, 3, 3]), np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    U = sol.u_points[:, 6:9]
    expected = np.stack([U[:, 0], (U[:, 0] + U[:, 1]) / 2, U[:, 1], (U[:, 1] + U[:, 2]) / 2, U[:, 2]], axis=1)
    assert np.allclose(point_controls(sol, k, s), expected, rtol=0, atol=1e-15)


A, XD = sp.symbols("a v")
POS = sp.Symbol("x")
DOUBLE_INTEGRATOR = nh.KinematicSystem([POS, XD], [A], [XD, A], control_bounds={"a": (-1, 1)})


@pytest.mark.parametrize("method", ["hermite-simpson", "backward-euler"])
def test_a_free_duration_at_its_lower_bound_is_solved_again_from_longer_ones(method):
    """x'' = a, |a| <= 1, from rest to rest at a free x(T), cost 1 + a^2/10 and 4 (x(T) - 2)^2 at the end,
    t_final=(0.1, 10), 31 nodes: the default start stopped at T = 0.1 (cost 16.069, success True). Solved
    again from the line at durations spread over the bounds, it reaches CasADi's optimum (Opti with IPOPT
    on the same Hermite-Simpson transcription, started at T = 3: J = 3.055748011343692, T =
    2.772850212200877; backward Euler's 3.0563386 at T = 2.7733394)."""
    problem = nh.OptimalControlProblem(DOUBLE_INTEGRATOR, cost=1 + 0.1 * A**2, terminal_cost=4 * (POS - 2) ** 2,
                                       t_final=(0.1, 10), initial=[0, 0], final=[None, 0])
    sol = problem.solve(nodes=31, method=method)
    J, T = (3.055748011343692, 2.772850212200877) if method == "hermite-simpson" else (3.0563386, 2.7733394)
    assert sol.success and abs(sol.objective / J - 1) < 1e-6 and abs(sol.t_final / T - 1) < 1e-5
    assert sol.stats["duration_starts"] == 4 and "lower bound" not in sol.message


def test_a_duration_that_ended_at_zero_is_solved_again():
    """The double integrator to a soft goal, cost T + 10 (p(T) - 1)^2, p(T) free, t_final free: rest to rest
    reaches p = T^2/4, J(T) = T + 10 (T^2/4 - 1)^2 is least at T* = 1.947989 (J* = 1.974342), where the
    default start stopped at T = 0 (J = 10)."""
    p, v, u = sp.symbols("p v u")
    system = nh.KinematicSystem([p, v], [u], [v, u], control_bounds={"u": (-1, 1)})
    problem = nh.OptimalControlProblem(system, cost="time", terminal_cost=10 * (p - 1) ** 2, initial=[0, 0],
                                       final=[None, 0])
    sol = problem.solve(nodes=41)
    assert sol.success and abs(sol.t_final - 1.947989) < 1e-5 and abs(sol.objective - 1.974342) < 1e-5
    assert sol.stats["duration_starts"] == 4
    # a guess of the user's is solved alone: at the bound, the message says so
    still = problem.solve(nodes=41, guess=(np.linspace(0, 1e-3, 41), np.zeros((2, 41))))
    assert still.t_final < 1e-6 and "zero duration" in still.message and still.stats["duration_starts"] == 0


def test_a_duration_inside_its_bounds_gets_no_further_starts():
    problem = nh.OptimalControlProblem(DOUBLE_INTEGRATOR, cost=1 + 0.1 * A**2, terminal_cost=4 * (POS - 2) ** 2,
                                       t_final=(1.0, 10), initial=[0, 0], final=[None, 0])
    sol = problem.solve(nodes=31)
    assert sol.success and abs(sol.objective / 3.055748011343692 - 1) < 1e-6
    assert sol.stats["duration_starts"] == 0 and sol.stats["ipopt_calls"] == 1


def test_a_minimum_time_plan_at_its_lower_bound_gets_no_further_starts():
    """The least duration is the lower bound itself: nothing to try."""
    sol = nh.OptimalControlProblem(CAR, cost="time", t_final=(3.0, 10), initial=[0, 0, 0],
                                   final=[1, 0, 0]).solve(nodes=21)
    assert sol.success and abs(sol.t_final - 3.0) < 1e-6 and sol.stats["duration_starts"] == 0


def test_sol_u_takes_a_sympy_symbol_and_controls_at_shows_the_overshoot():
    sol = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[1, 0, 0]).solve(nodes=11)
    assert np.array_equal(sol.u[V], sol.u["v"]) and np.array_equal(sol[V], sol["v"])
    assert np.array_equal(sol[sp.Symbol("x")], sol["x"])
    with pytest.raises(KeyError, match="is not a control of the problem"):
        sol.u[sp.Symbol("w")]
    late = sol.t_final + 1e-6
    with pytest.raises(ValueError, match=re.escape(f"got {late!r}")):
        sol.controls_at([late])
    with pytest.raises(ValueError, match=re.escape(f"[0, {sol.t_final!r}]")):
        sol.states_at(late)


@pytest.mark.parametrize("centre", [0.0, 0.5])
def test_a_speed_spike_over_an_obstacle_does_not_widen_the_step_it_is_judged_by(centre):
    """An outside probe's unicycle in a corridor |y| <= 0.1 that a disc of radius 0.2 blocks: no plan
    exists, yet Hermite-Simpson's 21 points were a success, jumping the disc with the speed at 13-16
    between the points. The depth into the disc (about 0.15) was set against the step between the
    interval's nodes in the states and the controls (2 to 4, the speed's spike in it); it is now the
    step in the states and the controls the constraint involves (none here; about 0.6): no success,
    with the crossing named. The trapezoid said so already."""
    ux, uy, uth, v, w = sp.symbols("x y theta v w")
    unicycle = nh.KinematicSystem([ux, uy, uth], [v, w], [v * sp.cos(uth), v * sp.sin(uth), w])
    problem = nh.OptimalControlProblem(unicycle, cost=(v**2 + w**2) / 2, t_final=2, initial=[centre - 1, 0, 0],
                                       final=[centre + 1 if centre == 0 else 1, 0, 0], state_bounds={"y": (-0.1, 0.1)},
                                       path_constraints=[(ux - centre) ** 2 + uy**2 >= 0.2**2])
    sol = problem.solve(nodes=21)
    dense = sol.states_at(np.linspace(0, 2, 4001))
    assert np.hypot(dense[0] - centre, dense[1]).min() < 0.15  # the plan does cross the disc
    assert not sol.success
    assert "crosses a path constraint between the collocation points" in sol.message
    assert "in the states and the controls it involves" in sol.message


def test_a_success_whose_motion_amplifies_its_errors_says_so():
    """An outside probe's car backing two trailers 5 m sideways in 10 s: each interval resolved (defect
    0.079 over 60), a success, yet the planned controls re-run open loop ended 2.85 from the planned final
    state, the error bound 47; the message now says so. The car's minimum time, whose bound is 0.007,
    gets no such note."""
    v, kappa = sp.symbols("v kappa")
    trailers = nh.systems.kinematic_car_trailers(2, turning_radius=1.0, hitch=1.0)
    problem = nh.OptimalControlProblem(trailers, cost=(v**2 + kappa**2) / 2, t_final=10.0, initial=[0] * 5,
                                       final=[-5, -1, 0, 0, 0], state_bounds={"y": (-1.1, 0.3)})
    sol = problem.solve(nodes=61)
    assert sol.success
    gap = np.abs(sol.simulate().y_final - sol.y[:, -1]).max()
    assert gap > 1.0 and sol.error_bound > gap
    assert f"to an error bound of {sol.error_bound:.3g} at the end" in sol.message
    car = nh.OptimalControlProblem(nh.systems.kinematic_car(turning_radius=1.0), cost="time", initial=[0, 0, 0],
                                   final=[4.0, 1.0, 0.5]).solve(nodes=200)
    assert car.success and car.error_bound < 0.01 and car.message == "Optimal Solution Found."


def test_an_unbounded_problem_stops_as_diverging_iterates():
    """An outside probe's car rewarded for going far (cost -x, v unbounded, x(3) free) ran IPOPT to its
    3000 iterations (58 s), 'Maximum Number of Iterations Exceeded' at an objective of -2e19. IPOPT's own
    test for diverging iterates now stops it at |variable| > 1e12 (its default 1e20): about 20 iterations,
    'problem might be unbounded'. ipopt_options still override it."""
    cx, cy, cth, v, w = sp.symbols("x y theta v omega")
    car = nh.KinematicSystem([cx, cy, cth], [v, w], [v * sp.cos(cth), v * sp.sin(cth), w],
                             control_bounds={"omega": (-1, 1)})
    with pytest.warns(UserWarning, match=r"does not contain the controls \['v'\], which no bound restrains"):
        problem = nh.OptimalControlProblem(car, cost=-cx, t_final=3, initial=[0, 0, 0])
    sol = problem.solve(nodes=15)
    assert not sol.success and "problem might be unbounded" in sol.message
    assert -1e15 < sol.objective < -1e11 and sol.stats["iterations"] < 100
    sooner = problem.solve(nodes=15, ipopt_options={"diverging_iterates_tol": 1e6})
    assert "problem might be unbounded" in sooner.message and -1e9 < sooner.objective < -1e5


def test_a_model_given_for_a_system_and_ends_left_free_are_explained():
    """An outside probe passed a friction model (a Model) and was told a System with nonholonomic
    constraints was needed, although a System without them plans with controls=; another left initial out
    and was not told that the ends default to free."""
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(TypeError, match=r"got a Model \(its kind: 'friction'\); pass the System itself.*friction "
                                        r"realization"):
        nh.OptimalControlProblem(sleigh.friction(1e-2), cost="time", initial=[0] * 6, final=[1] * 6)
    F, tau, x, y, th = sp.symbols("F tau x y theta")  # with controls= the same (it was "controls= needs a System")
    pushed = nh.System([x, y, th], sp.eye(3), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       force=sp.Matrix([F * sp.cos(th), F * sp.sin(th), tau]), parameters={F: 0.0, tau: 0.0})
    for model in (pushed.friction(1e-2), pushed.reduced(1e-2)):
        with pytest.raises(TypeError, match=r"got a \w*Model \(its kind: '\w+'\); pass the System itself.*friction "
                                            r"realization"):
            nh.OptimalControlProblem(model, cost="time", controls=[F, tau], initial=[0] * 6, final=[1] * 6)
    with pytest.raises(ValueError, match="initial and final default to free"):
        nh.OptimalControlProblem(nh.systems.kinematic_car(turning_radius=1.0), cost="time", final=[1.0, 0.5, 0.0])


def test_backward_eulers_first_control_is_no_null_direction():
    """Backward Euler's equations and cost hold u_1 .. u_N; u_0 was a free variable in none of them, a zero
    direction of the Hessian that IPOPT regularized at every solve, which the saddle rescue then took for a
    saddle: an outside probe's robot ran 28 starts (0.60 s) for the plan one start gives (0.07 s). u_0 is
    now fixed in the NLP (and reported as u_1, as before)."""
    problem = nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1.0, 0.3, 0.4, 0, 0])
    sol = problem.solve(nodes=21, method="backward-euler")
    line = problem.solve(nodes=21, method="backward-euler", guess="line")
    assert sol.success and sol.stats["last_regularization"] == 0.0 and sol.stats["starts"] <= 2
    assert sol.objective == pytest.approx(line.objective, rel=1e-9)
    assert np.array_equal(sol.u["F"][:1], sol.u["F"][1:2])
