"""DMOC (method="dmoc"): optimal control by the midpoint discrete Lagrange-d'Alembert equations of a
System (nonholo.control.dmoc), solved by IPOPT from the interval NLP's tapes in C++."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def _pushed_knife_edge():
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    return nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                     force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0}), (F, tau)


def _slope(hs, errors):
    return float(np.polyfit(np.log(hs), np.log(errors), 1)[0])


def test_dmoc_objective_converges_to_the_analytic_optimum_at_second_order():
    """A knife edge pushed along its blade from rest to rest 1 ahead in t = 1 with int F^2/2: x'' = F,
    F = 6 - 12 t, the cost 6. DMOC's objective tends to 6 with slope 2 +- 0.3 in h, and its default
    transcription (Hermite-Simpson) is exact here (the optimum is a cubic)."""
    system, (F, tau) = _pushed_knife_edge()
    problem = nh.OptimalControlProblem(system, cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0])
    nodes = (11, 21, 41)
    sols = [problem.solve(nodes=n, method="dmoc") for n in nodes]
    assert all(s.success and s.method == "dmoc" for s in sols)
    errors = [abs(s.objective - 6.0) for s in sols]
    assert _slope([1.0 / (n - 1) for n in nodes], errors) == pytest.approx(2.0, abs=0.3)
    assert errors[-1] < 0.02
    assert problem.solve(nodes=30).objective == pytest.approx(6.0, rel=1e-8)
    # the controls at the nodes approach F = 6 - 12 t
    assert np.max(np.abs(sols[-1].u["F"] - (6 - 12 * sols[-1].t))) < 0.2
    assert np.max(np.abs(sols[-1].u["tau"])) < 1e-8


def test_dmoc_agrees_with_collocation_and_its_rerun_error_shrinks():
    """Minimum effort to a turned goal: DMOC's objective converges to Hermite-Simpson's optimum (201
    nodes) with slope 2 +- 0.3, and a re-run of its controls through the continuous dynamics
    (sol.simulate()) ends nearer the planned final state as h shrinks (at second order)."""
    system, (F, tau) = _pushed_knife_edge()
    problem = nh.OptimalControlProblem(system, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1, 0.5, 0.8, 0, 0])
    ref = problem.solve(nodes=201)
    assert ref.success
    nodes = (11, 21, 41, 81)
    sols = [problem.solve(nodes=n, method="dmoc") for n in nodes]
    assert all(s.success for s in sols)
    hs = [2.0 / (n - 1) for n in nodes]
    assert _slope(hs, [abs(s.objective - ref.objective) for s in sols]) == pytest.approx(2.0, abs=0.3)
    reruns = [float(np.max(np.abs(s.simulate().y_final - s.y[:, -1]))) for s in sols]
    assert all(b < a / 3 for a, b in zip(reruns, reruns[1:]))
    assert _slope(hs, reruns) == pytest.approx(2.0, abs=0.3)
    # the planned final state is the goal, the NLP's equations hold at IPOPT's tolerance
    assert np.allclose(sols[-1].y[:, -1], [1, 0.5, 0.8, 0, 0], atol=1e-9)
    assert sols[-1].stats["max_nlp_defect"] < 1e-8


def test_dmoc_with_a_free_duration():
    """The duration as a variable (the step h = T dtau in the interval's tape): the minimum-time push
    with |F| <= 1 from rest to rest 1 ahead, bang-bang in T = 2, is reached at second order; with
    a running cost and bounds on T, the exact Hessian (its T row and column from the tapes) and
    IPOPT's L-BFGS reach the same optimum, which converges to Hermite-Simpson's at second order."""
    system, (F, tau) = _pushed_knife_edge()
    bounds = {"F": (-1, 1), "tau": (-1, 1)}
    fastest = nh.OptimalControlProblem(system, cost="time", controls=[F, tau], control_bounds=bounds,
                                       initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0])
    nodes = (11, 21, 41)
    times = [fastest.solve(nodes=n, method="dmoc").t_final for n in nodes]
    assert _slope([1.0 / (n - 1) for n in nodes], [t - 2.0 for t in times]) == pytest.approx(2.0, abs=0.3)
    assert times[-1] == pytest.approx(2.0, abs=2e-3)
    problem = nh.OptimalControlProblem(system, cost=(F**2 + tau**2) / 2 + 1, t_final=(0.5, 5.0), controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1, 0.5, 0.8, 0, 0])
    ref = problem.solve(nodes=101)
    errors = []
    for n in nodes:
        exact = problem.solve(nodes=n, method="dmoc")
        lbfgs = problem.solve(nodes=n, method="dmoc", hessian="limited-memory")
        assert exact.success and lbfgs.success
        assert lbfgs.objective == pytest.approx(exact.objective, rel=1e-9)
        assert lbfgs.t_final == pytest.approx(exact.t_final, rel=1e-7)
        errors.append(exact.objective - ref.objective)
    assert _slope([1.0 / (n - 1) for n in nodes], errors) == pytest.approx(2.0, abs=0.3)


def test_dmoc_free_motion_is_the_discrete_integrator_and_its_energy_does_not_drift():
    """A free problem (final state free, cost int F^2 + tau^2): the optimum has no control, and DMOC's
    nodes are the trajectory of system.discrete(h) (the same equations: coordinates and node
    velocities to 1e-10). The knife edge in an anisotropic well (a nonholonomic system whose energy
    the midpoint rule does not conserve exactly) keeps its discrete energy within O(h^2) (the
    ratio of two steps 4 +- 1.2) without drift over 40 s, about 15 turns (its largest excursion in
    the last quarter no larger than 1.5 times that of the first quarter)."""
    system, (F, tau) = _pushed_knife_edge()
    x, y = system.coordinates[:2]
    system = system.with_potential((x**2 + 2 * y**2) / 2)
    T, y0 = 40.0, [0.5, 0.0, 0.0, 0.3, 1.0]
    v0 = [0.3, 0.0, 1.0]
    problem = nh.OptimalControlProblem(system, cost=F**2 + tau**2, t_final=T, controls=[F, tau], initial=y0)
    metric = sp.lambdify([system.coordinates], system.metric.subs(system.parameters))
    potential = sp.lambdify([system.coordinates], system.potential.subs(system.parameters))
    spans = []
    for nodes in (201, 401):
        h = T / (nodes - 1)
        # a start near the answer: the continuous flow (the problem's states are (q, x', theta'))
        flow = nh.simulate(system.nonholonomic(), (0.0, T), [*y0[:3], *v0], t_eval=np.linspace(0.0, T, nodes),
                           rtol=1e-8, atol=1e-10)
        sol = problem.solve(nodes=nodes, method="dmoc", guess=(flow.t, flow.y[[0, 1, 2, 3, 5]], np.zeros((2, nodes))),
                            tol=1e-12)
        assert sol.success and sol.objective < 1e-20
        run = nh.simulate_discrete(system.discrete(h), (0.0, T), [*y0[:3], *v0])
        assert np.max(np.abs(run.y[:3] - sol.y[:3])) < 1e-10
        assert np.max(np.abs(run.y[3:] - sol.velocities)) < 1e-10
        energy = np.array([0.5 * v @ np.asarray(metric(q), dtype=float) @ v + potential(q)
                           for q, v in zip(sol.y[:3].T, sol.velocities.T)])
        excursion = np.abs(energy - energy[0])
        quarter = nodes // 4
        assert excursion[-quarter:].max() <= 1.5 * excursion[:quarter].max()
        spans.append(excursion.max())
    assert spans[0] / spans[1] == pytest.approx(4.0, abs=1.2)


def _pendulum():
    """A pendulum of unit length in Cartesian coordinates, turned by a torque tau (the tangential
    force tau (-y, x)): the holonomic constraint (x^2 + y^2 - 1)/2 = 0 and its derivative as the
    constraint row."""
    x, y, tau = sp.symbols("x y tau")
    return nh.System([x, y], sp.eye(2), potential=9.81 * y, constraints=sp.Matrix([[x, y]]),
                     force=[-tau * y, tau * x], parameters={tau: 0.0}, holonomic=[(x**2 + y**2 - 1) / 2]), tau


def test_dmoc_imposes_holonomic_constraints_at_position_level():
    """The pendulum swung from 0.3 rad to horizontal in t = 1 with int tau^2: with method="dmoc" the
    holonomic constraint holds at every node to the solver's tolerance (1e-9, where the midpoint
    velocity constraint alone would let it drift by O(h^2)); the objective converges at second
    order to Hermite-Simpson's in the angle (the same pendulum as x = sin a, y = -cos a)."""
    system, tau = _pendulum()
    a, a_dot, torque = sp.symbols("a a_dot tau")
    angle = nh.System([a], sp.eye(1), potential=-9.81 * sp.cos(a), force=[torque], parameters={torque: 0.0})
    ref = nh.OptimalControlProblem(angle, cost=torque**2, t_final=1.0, controls=[torque], initial=[0.3, 0],
                                   final=[math.pi / 2, 0]).solve(nodes=201)
    assert ref.success
    problem = nh.OptimalControlProblem(system, cost=tau**2, t_final=1.0, controls=[tau],
                                       initial=[math.sin(0.3), -math.cos(0.3), 0], final=[1, 0, 0])
    nodes = (11, 21, 41)
    sols = [problem.solve(nodes=n, method="dmoc") for n in nodes]
    for sol in sols:
        assert sol.success
        assert np.max(sol.holonomic_residual) < 1e-9
        assert np.max(np.abs(sol.y[0] ** 2 + sol.y[1] ** 2 - 1)) < 2e-9
    errors = [abs(s.objective - ref.objective) for s in sols]
    assert _slope([1.0 / (n - 1) for n in nodes], errors) == pytest.approx(2.0, abs=0.3)


def test_dmoc_refuses_what_it_cannot_transcribe():
    system, (F, tau) = _pushed_knife_edge()
    base = dict(cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau], initial=[0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="terminal_cost"):
        nh.OptimalControlProblem(system, terminal_cost=sp.Symbol("x") ** 2, **base).solve(nodes=5, method="dmoc")
    with pytest.raises(ValueError, match="state_bounds"):
        nh.OptimalControlProblem(system, state_bounds={"x_dot": (-1, 1)}, **base).solve(nodes=5, method="dmoc")
    with pytest.raises(ValueError, match="final"):
        nh.OptimalControlProblem(system, final=[1, 0, 0, 0, None], **{k: v for k, v in base.items()}).solve(
            nodes=5, method="dmoc")
    car = nh.systems.kinematic_car()
    with pytest.raises(ValueError, match="dmoc"):
        nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[1, 0, 0]).solve(nodes=5, method="dmoc")
    pend, torque = _pendulum()
    with pytest.raises(ValueError, match="holonomic"):
        nh.OptimalControlProblem(pend, cost=torque**2, t_final=1.0, controls=[torque], initial=[0.1, -1, 0],
                                 final=[1, 0, 0]).solve(nodes=5, method="dmoc")


def test_a_problem_solved_by_dmoc_and_its_solutions_pickle():
    """The problem's DiscreteMechanics holds C++ tapes: a DMOC solve made the problem, and every solution
    of it (one solved before by collocation too), fail to pickle or deepcopy. It is rebuilt on first use,
    and the unpickled problem solves to the same objective."""
    import copy
    import pickle

    system, (F, tau) = _pushed_knife_edge()
    problem = nh.OptimalControlProblem(system, cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau],
                                       initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0])
    collocated = problem.solve(nodes=11)
    discrete = problem.solve(nodes=11, method="dmoc")
    assert collocated.success and discrete.success
    for plan in (collocated, discrete):
        again = pickle.loads(pickle.dumps(plan))
        assert again.objective == plan.objective and np.array_equal(again.y, plan.y)
        assert copy.deepcopy(plan).objective == plan.objective
    restored = pickle.loads(pickle.dumps(problem))
    assert restored.solve(nodes=11, method="dmoc").objective == pytest.approx(discrete.objective, rel=1e-12)


def test_a_dmoc_plan_far_from_its_motion_is_no_success():
    """An outside probe's knife edge (G = diag(1, 1, 0.5)) pushed 1 ahead from rest to rest in 1 s at
    least int (F^2 + tau^2)/2 (the optimum 6): on 3 nodes DMOC's plan costs 16 and its re-run ends
    0.33 past the goal, and it was a success (DMOC's plans were not judged). Its chart regular along
    the plan, it is judged as a collocation's: no success on 3 nodes; on 11, a success within 1e-2."""
    X, Y, TH, F, TAU = sp.symbols("x y theta F tau")
    knife = nh.System([X, Y, TH], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(TH), -sp.cos(TH), 0]]),
                      force=[F * sp.cos(TH), F * sp.sin(TH), TAU], parameters={F: 0.0, TAU: 0.0})
    push = nh.OptimalControlProblem(knife, cost=(F**2 + TAU**2) / 2, t_final=1.0, controls=[F, TAU],
                                    initial=[0] * 5, final=[1, 0, 0, 0, 0])
    coarse = push.solve(nodes=3, method="dmoc")
    assert coarse.objective == pytest.approx(16.0, rel=1e-6) and abs(coarse.simulate().y_final[0] - 4 / 3) < 1e-3
    assert not coarse.success and "no motion of the dynamics" in coarse.message
    fine = push.solve(nodes=11, method="dmoc")
    assert fine.success and abs(fine.simulate().y_final[0] - 1) < 1e-2 and fine.objective == pytest.approx(6, rel=0.05)
