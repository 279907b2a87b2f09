"""Adversarial input to the optimal-control API (issue 44) and the kinematic systems: every bad value is
refused with an exception naming the argument, strings are parsed without evaluation, nothing hangs
on a huge size, and what solves or pickles gives the same numbers as the straightforward call."""

import math
import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th, v, kappa = sp.symbols("x y theta v kappa")
OCP = nh.OptimalControlProblem


@pytest.fixture(scope="module")
def car():
    return nh.systems.kinematic_car(1.0)


@pytest.fixture(scope="module")
def plan(car):
    return OCP(car, initial=[0, 0, 0], final=[2.0, 0.5, 0.0]).solve(nodes=15)


def _payload(flag):
    return f"__import__('pathlib').Path({str(flag)!r}).touch() or x"


# ------------------------------------------------------------------ strings are never evaluated
@pytest.mark.parametrize("argument", ["terminal_cost", "cost", "path_constraints"])
def test_a_string_that_runs_code_is_refused_and_not_run(car, tmp_path, argument):
    flag = tmp_path / "ran"
    code = _payload(flag)
    kwargs = dict(cost="energy", t_final=1.0, initial=[0, 0, 0])
    kwargs[argument] = [code + " <= 1"] if argument == "path_constraints" else code
    with pytest.raises(ValueError, match=f"{argument}.*refused"):
        OCP(car, **kwargs)
    assert not flag.exists()


def test_track_strings_are_not_evaluated(plan, tmp_path):
    flag = tmp_path / "ran"
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(ValueError, match="coordinates.*refused"):
        plan.track(sleigh, eps=1e-3, coordinates={"x": _payload(flag), "y": "y", "phi": "theta"})
    assert not flag.exists()


def test_string_costs_and_constraints_give_the_sympy_ones(car):
    """A plain-arithmetic string is the expression SymPy would build: the same optimum."""
    common = dict(t_final=2.0, initial=[0, 0, 0], final=[1.0, 0.0, 0.0])
    by_string = OCP(car, cost="v**2/2", terminal_cost="theta**2", path_constraints=["y >= -1"], **common)
    by_sympy = OCP(car, cost=v**2 / 2, terminal_cost=th**2, path_constraints=[y >= -1], **common)
    assert by_string.running_cost == by_sympy.running_cost
    assert by_string.path_constraints == by_sympy.path_constraints
    a, b = by_string.solve(nodes=10), by_sympy.solve(nodes=10)
    assert a.success and b.success
    assert a.objective == pytest.approx(b.objective, rel=1e-12)
    assert a.objective == pytest.approx(0.25, rel=1e-7)  # v = 1/2 over 2 s on the straight line (IPOPT tol 1e-8)


@pytest.mark.parametrize("cost, match", [(sp.oo, "cost must be finite"), (1 / (v - v), "cost must be finite"),
                                         (sp.Matrix([v]), "cost must be"), (v > 0, "cost must be"),
                                         (float("nan"), "cost must be finite")])
def test_costs_that_are_not_finite_scalar_expressions_are_refused(car, cost, match):
    with pytest.raises(ValueError, match=match):
        OCP(car, cost=cost, t_final=1.0)


@pytest.mark.parametrize("terminal", [object(), [x, y], x > 1, sp.zoo * x])
def test_bad_terminal_costs_are_refused(car, terminal):
    with pytest.raises((TypeError, ValueError), match="terminal_cost"):
        OCP(car, cost="energy", t_final=1.0, terminal_cost=terminal)


@pytest.mark.parametrize("constraint", [x <= sp.oo, object()])
def test_bad_path_constraints_are_refused(car, constraint):
    with pytest.raises((TypeError, ValueError), match="path_constraints"):
        OCP(car, initial=[0, 0, 0], final=[1, 0, 0], path_constraints=[constraint])


def test_one_inequality_is_a_path_constraint_list(car):
    single = OCP(car, initial=[0, 0, 0], final=[1, 0, 0], path_constraints=y >= -1)
    listed = OCP(car, initial=[0, 0, 0], final=[1, 0, 0], path_constraints=[y >= -1])
    assert single.path_constraints == listed.path_constraints == [-1 - y]


# ------------------------------------------------------------------ endpoints, durations, bounds
@pytest.mark.parametrize("initial", [["a", 0, 0], [1j, 0, 0], [True, 0, 0], [x, 0, 0]])
def test_endpoint_entries_that_are_not_real_numbers_are_named(car, initial):
    with pytest.raises((TypeError, ValueError), match=r"initial\[0\]"):
        OCP(car, initial=initial, final=[1, 0, 0])


@pytest.mark.parametrize("t_final", [True, 1j, "abc"])
def test_bad_durations_are_named(car, t_final):
    with pytest.raises((TypeError, ValueError), match="t_final"):
        OCP(car, cost="energy", t_final=t_final, initial=[0, 0, 0], final=[1, 0, 0])


@pytest.mark.parametrize("bounds", [{"x": (math.inf, math.inf)}, {"x": (-math.inf, -math.inf)}, "x"])
def test_state_bounds_that_admit_no_value_are_refused(car, bounds):
    with pytest.raises((TypeError, ValueError), match="state_bounds"):
        OCP(car, initial=[0, 0, 0], final=[1, 0, 0], state_bounds=bounds)


@pytest.mark.parametrize("end", ["initial", "final"])
def test_a_fixed_end_outside_the_state_bounds_is_refused(car, end):
    """Before: the fixed end overrode the bound at that node, and IPOPT reported success for a
    trajectory that violates the bounds the user gave."""
    ends = dict(initial=[0, 0, 0], final=[1, 0, 0])
    ends[end] = [3.0, 0, 0]
    with pytest.raises(ValueError, match=fr"{end}\['x'\] = 3.*state_bounds\['x'\]"):
        OCP(car, state_bounds={"x": (-0.5, 2.0)}, **ends)
    inside = OCP(car, state_bounds={"x": (-0.5, 2.0)}, initial=[0, 0, 0], final=[1, 0, 0]).solve(nodes=10)
    assert inside.success and np.all(inside["x"] >= -0.5 - 1e-9) and np.all(inside["x"] <= 2.0 + 1e-9)


def test_minimum_time_with_only_unbounded_controls_is_refused():
    """Every control unbounded: the infimum of the duration is 0 and not attained (IPOPT returned
    'success' with t_final = 1.8e-5 for the Heisenberg system)."""
    heis = nh.systems.heisenberg().kinematic()
    with pytest.raises(ValueError, match="cost='time'.*unbounded"):
        OCP(heis, cost="time", initial=[0, 0, 0], final=[1.0, 0.5, 0.3])
    bounded = OCP(heis, cost="time", initial=[0, 0, 0], final=[1.0, 0.0, 0.0],
                  control_bounds={name: (-1, 1) for name in heis.control_names}).solve(nodes=20)
    assert bounded.success and bounded.t_final == pytest.approx(1.0, rel=1e-6)  # straight along x at |w| = 1


def test_controls_that_are_not_symbols_of_the_system_are_refused():
    sleigh = nh.systems.chaplygin_sleigh()
    for controls in ([sp.Symbol("zzz")], ["zzz"], [1]):
        with pytest.raises(ValueError, match="controls"):
            OCP(sleigh, controls=controls, cost="energy", t_final=1.0)


# ------------------------------------------------------------------ solve's arguments
@pytest.mark.parametrize("option, value", [("print_level", -1), ("print_level", 100), ("print_level", 1.5),
                                           ("print_level", "a"), ("tol", math.inf), ("refine_tol", "a"),
                                           ("max_wall_time", "a"), ("ipopt_options", {"tol": math.nan}),
                                           ("guess", ("perturbed", "theta", math.nan))])
def test_bad_solve_options_are_named(car, option, value):
    problem = OCP(car, initial=[0, 0, 0], final=[1, 0, 0])
    with pytest.raises((TypeError, ValueError), match=option if option != "guess" else "amplitude"):
        problem.solve(nodes=10, **{option: value})


def test_a_mesh_too_large_to_hold_is_refused_before_allocating(car):
    with pytest.raises(ValueError, match="nodes"):
        OCP(car, initial=[0, 0, 0], final=[1, 0, 0]).solve(nodes=10**9)


def test_an_option_ipopt_cannot_use_says_why(car):
    """An uninstalled linear solver: a ValueError naming ipopt_options that says what IPOPT refused
    (before: 'IPOPT stopped with application status -12'; then a plan with success False, where the
    docs promise the ValueError of a bad option)."""
    with pytest.raises(ValueError, match="ipopt_options: IPOPT refused an invalid option"):
        OCP(car, initial=[0, 0, 0], final=[1, 0, 0]).solve(nodes=10, ipopt_options={"linear_solver": "pardiso"})


# ------------------------------------------------------------------ the solution
def test_states_and_controls_outside_the_plan_are_refused(plan):
    inside = plan.states_at([0.0, plan.t_final])
    assert np.allclose(inside[:, 0], plan.y[:, 0], atol=1e-12) and np.allclose(inside[:, -1], plan.y[:, -1], atol=1e-12)
    for t in ([math.nan], [-1.0], [plan.t_final * 2], "a"):
        with pytest.raises((TypeError, ValueError), match="t"):
            plan.states_at(t)
        with pytest.raises((TypeError, ValueError), match="t"):
            plan.controls_at(t)


@pytest.mark.parametrize("rtol", [math.nan, 0.0, -1.0])
def test_a_rerun_with_bad_tolerances_is_refused(plan, rtol):
    """Before: rtol = NaN hung SciPy's DOP853."""
    with pytest.raises(ValueError, match="rtol"):
        plan.simulate(rtol=rtol)


@pytest.mark.parametrize("frames", [0, -1, 1.5, "a", 10**8])
def test_animate_refuses_bad_frame_counts(plan, frames):
    with pytest.raises((TypeError, ValueError), match="frames"):
        plan.animate(frames=frames)


def test_animate_refuses_what_is_not_an_axes(plan):
    with pytest.raises(TypeError, match="ax"):
        plan.animate(frames=3, ax="a")


def test_problems_solutions_and_kinematic_systems_pickle(car, plan):
    again = pickle.loads(pickle.dumps(plan))
    assert np.array_equal(again.y, plan.y) and again.t_final == plan.t_final
    assert np.allclose(again.states_at([0.3]), plan.states_at([0.3]), rtol=0, atol=0)
    problem = pickle.loads(pickle.dumps(OCP(car, initial=[0, 0, 0], final=[2.0, 0.5, 0.0])))
    assert problem.solve(nodes=15).t_final == pytest.approx(plan.t_final, rel=1e-10)
    car2 = pickle.loads(pickle.dumps(car))
    assert np.allclose(car2.vector_field([0, 0, 0.3], [1.0, 0.5]), car.vector_field([0, 0, 0.3], [1.0, 0.5]))


def test_track_refuses_what_is_not_a_system(plan):
    with pytest.raises(TypeError, match="system"):
        plan.track(None, eps=1e-3, coordinates={"x": x})


# ------------------------------------------------------------------ built-in kinematic systems
@pytest.mark.parametrize("n", [10**6, 101])
def test_trailers_beyond_what_can_be_built_are_refused_at_once(n):
    with pytest.raises(ValueError, match="n_trailers"):
        nh.systems.kinematic_car_trailers(n)


def test_trailers_take_numpy_integers():
    assert nh.systems.kinematic_car_trailers(np.int64(2)).state_names == ["x", "y", "theta0", "theta1", "theta2"]


@pytest.mark.parametrize("radius", [True, None, [1]])
def test_kinematic_car_refuses_radii_that_are_not_numbers(radius):
    with pytest.raises(TypeError, match="turning_radius"):
        nh.systems.kinematic_car(turning_radius=radius)


def test_ctrl_c_stops_ipopt_inside_the_solve(monkeypatch):
    """Ctrl-C during a long solve raises KeyboardInterrupt from inside the C++ solve (IPOPT's
    intermediate callback polls for it at every iteration); before, the GIL-free solve ran to its end
    and the interrupt surfaced only afterwards. SIGINT is sent repeatedly from 1 s after the C++
    solve is called until it returns. Sent from the start, on a loaded machine (load average 30 on
    2 cores) it landed in the Python set-up of the guess (frame 'svd') or in the Event that marks the
    call (frame 'set'): an attempt whose interrupt did not come from inside the call is repeated
    (up to 3), the last one is asserted."""
    import os
    import signal
    import threading
    import traceback

    trailers = nh.systems.kinematic_car_trailers(2)
    problem = OCP(trailers, initial=[0, 0, 0, 0, 0], final=[0.5, 2.0, 0, 0, 0])
    problem.solve(nodes=11, max_iter=2)  # built before the interrupts start
    solve = nh._core.solve_collocation

    def attempt():
        started, done = threading.Event(), threading.Event()

        def in_solve(**kwargs):
            started.set()
            return solve(**kwargs)

        def interrupt():
            started.wait()
            if done.wait(1.0):
                return
            while not done.is_set():
                os.kill(os.getpid(), signal.SIGINT)
                done.wait(0.2)

        monkeypatch.setattr(nh._core, "solve_collocation", in_solve)
        # Ctrl-C as in a terminal: a process started in the background of a script (CI) ignores SIGINT.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        threading.Thread(target=interrupt, daemon=True).start()
        try:
            with pytest.raises(KeyboardInterrupt) as caught:
                try:
                    problem.solve(nodes=600, guess="line", max_iter=100000, tol=1e-14, hessian="limited-memory")
                finally:
                    done.set()
        finally:
            done.set()
            started.set()
            signal.signal(signal.SIGINT, previous)
        return traceback.extract_tb(caught.value.__traceback__)

    for _ in range(3):
        frames = attempt()
        if frames[-1].name == "in_solve" and "solve(**kwargs)" in frames[-1].line:
            break
    assert frames[-1].name == "in_solve" and "solve(**kwargs)" in frames[-1].line
    assert frames[-2].name == "locked_solve" and "solve(**kwargs)" in frames[-2].line  # the lock's call
    assert frames[-3].name == "_solve_once"


def test_round_14_messages_name_the_cause():
    """Adversarial round 14: a KinematicSystem without controls leaked NumPy's "zero-size array"; a
    simulation-like guess with equal times or NaN states blamed the model ("the dynamics ... are not
    finite"); sol.plot(["x"], ax="a") raised AttributeError; a double integrator sent to 2e12 (a convex
    problem, optimum 4.8e25) said only "problem might be unbounded". With the divergence test raised as
    the note says, it solves."""
    import types

    import matplotlib

    matplotlib.use("Agg")
    X, V, U = sp.symbols("X V U")
    with pytest.raises(ValueError, match="controls: a KinematicSystem needs at least one control"):
        nh.KinematicSystem([X, V], [], [V, -X])
    di = nh.KinematicSystem([X, V], [U], [V, U])
    problem = OCP(di, cost=U**2, t_final=1.0, initial=[0, 0], final=[1, 0])
    for t, y in ((np.zeros(5), np.zeros((2, 5))), (np.linspace(0, 1, 5), np.full((2, 5), np.nan)),
                 (np.linspace(1, 0, 5), np.zeros((2, 5)))):
        with pytest.raises(ValueError, match="guess: a simulation.s times guess.t must be finite and increasing"):
            problem.solve(nodes=11, guess=types.SimpleNamespace(t=t, y=y))
    plan = problem.solve(nodes=11)  # the default path
    assert plan.success and plan.objective == pytest.approx(12.0, rel=1e-8)
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes or None, got str"):
        plan.plot(["X"], ax="a")
    far = OCP(di, cost=U**2, t_final=1.0, initial=[0, 0], final=[2e12, 0])
    stopped = far.solve(nodes=11)
    assert not stopped.success and "near the divergence test diverging_iterates_tol" in stopped.message
    solved = far.solve(nodes=11, ipopt_options={"diverging_iterates_tol": 1e20})
    assert solved.success and solved.objective == pytest.approx(12 * 2e12**2, rel=1e-6)


def test_a_control_symbol_with_assumptions_is_the_systems_by_name():
    """An outside probe's point mass pushed by F, rest to rest over 1 in T = 1 at least effort (6 in closed
    form): controls=[Symbol("F", positive=True)] passed the check (by name) and then dropped out of the
    dynamics (x'' = 0), and IPOPT reported local infeasibility. A control is matched by name throughout."""
    x, F = sp.symbols("x F")
    mass = nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([F]), parameters={F: 0.0})
    plans = [OCP(mass, cost=F**2 / 2, t_final=1.0, controls=[control], initial=[0, 0], final=[1, 0]).solve(nodes=21)
             for control in ("F", sp.Symbol("F", positive=True))]
    for plan in plans:
        assert plan.success and plan.objective == pytest.approx(6.0, rel=1e-6)


def test_a_wall_crossed_at_its_middle_is_not_measured_by_a_vanishing_gradient():
    """An outside probe's unicycle (|v|, |omega| <= 1) from x = 0 to 4 past the wall (x - 2)^2 >= 0.25, which
    admits no path: the message read g / |grad g| = 1.9e7 for a wall 1 thick (the gradient vanishes at its
    mid-plane) and advised more nodes, which only stretched the plan (T = 50 on 30 nodes, 513 on 300)."""
    x, y, th, v, w = sp.symbols("x y theta v omega")
    unicycle = nh.KinematicSystem([x, y, th], [v, w], [v * sp.cos(th), v * sp.sin(th), w],
                                  control_bounds={"v": (-1, 1), "omega": (-1, 1)})
    plan = OCP(unicycle, cost="time", initial=[0, 0, 0], final=[4, 0, 0],
               path_constraints=[(x - 2)**2 >= 0.25]).solve(nodes=30)
    assert not plan.success
    assert "gradient nearly vanishes" in plan.message and "no way through" in plan.message
    assert "g / |grad g|" not in plan.message
