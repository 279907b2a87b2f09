"""Holonomic constraints at position level in direct collocation (trapezoid, Hermite-Simpson):
phi(y) = 0 at every collocation point, a correction -h dphi/dy^T gamma per stencil and interval in
the defects (Posa, Kuindersma & Tedrake 2016), the default whenever the dynamics carry holonomic
constraints (``solve(holonomic="position")``)."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

METHODS = [("trapezoid", 2), ("hermite-simpson", 4)]


def _slope(hs, errors):
    return float(np.polyfit(np.log(hs), np.log(errors), 1)[0])


def _pendulum():
    """A pendulum of unit length in Cartesian coordinates, turned by a torque tau (the tangential
    force tau (-y, x)); its holonomic constraint (x^2 + y^2 - 1)/2 = 0, its derivative the row."""
    x, y, tau = sp.symbols("x y tau")
    return nh.System([x, y], sp.eye(2), potential=9.81 * y, constraints=sp.Matrix([[x, y]]),
                     force=[-tau * y, tau * x], parameters={tau: 0.0}, holonomic=[(x**2 + y**2 - 1) / 2]), tau


def _pendulum_problem():
    system, tau = _pendulum()
    return nh.OptimalControlProblem(system, cost=tau**2, t_final=1.0, controls=[tau],
                                    initial=[math.sin(0.3), -math.cos(0.3), 0], final=[1, 0, 0])


@pytest.fixture(scope="module")
def pendulum_reference():
    """The same swing-up in the angle a (x = sin a, y = -cos a), Hermite-Simpson at 401 nodes."""
    a, torque = sp.symbols("a tau")
    angle = nh.System([a], sp.eye(1), potential=-9.81 * sp.cos(a), force=[torque], parameters={torque: 0.0})
    ref = nh.OptimalControlProblem(angle, cost=torque**2, t_final=1.0, controls=[torque], initial=[0.3, 0],
                                   final=[math.pi / 2, 0]).solve(nodes=401, tol=1e-12)
    assert ref.success
    return ref.objective


@pytest.mark.parametrize("method, order", METHODS)
def test_pendulum_stays_on_the_circle_and_converges_at_the_order(pendulum_reference, method, order):
    """The Cartesian pendulum swung from 0.3 rad to horizontal in t = 1 with int tau^2: x^2 + y^2 = 1
    to 1e-12 at every collocation point; the objective converges to the angle formulation's at
    the method's order (slope within 0.4); gamma -> 0 at O(h^order) (the Hermite interpolant's
    corrections at O(h^3)); the re-run of the controls ends within the collocation defect."""
    problem = _pendulum_problem()
    nodes = (11, 21, 41) if order == 2 else (6, 11, 21)
    sols = [problem.solve(nodes=n, method=method, tol=1e-12) for n in nodes]
    hs = [1.0 / (n - 1) for n in nodes]
    for sol in sols:
        assert sol.success, sol.message
        assert np.max(sol.holonomic_residual) <= 1e-12
        assert np.max(np.abs(sol.y_points[0] ** 2 + sol.y_points[1] ** 2 - 1)) <= 2e-12
        gap = np.max(np.abs(sol.simulate().y_final - sol.y[:, -1]))
        assert gap <= sol.error_bound + 1e-9
    errors = [abs(s.objective - pendulum_reference) for s in sols]
    assert _slope(hs, errors) == pytest.approx(order, abs=0.4)
    assert _slope(hs, [np.max(np.abs(s.gamma[0])) for s in sols]) == pytest.approx(order, abs=0.4)
    if order == 4:
        assert _slope(hs, [np.max(np.abs(s.gamma[1])) for s in sols]) == pytest.approx(3, abs=0.4)


def test_velocity_level_drifts_where_the_default_does_not():
    """holonomic="velocity" (the derivative alone, as before) lets the trapezoid drift off the
    circle at O(h^2); the default imposes it, with the same NLP otherwise plus the corrections."""
    problem = _pendulum_problem()
    drift = problem.solve(nodes=21, method="trapezoid", holonomic="velocity", tol=1e-10)
    held = problem.solve(nodes=21, method="trapezoid", tol=1e-10)
    assert drift.success and held.success
    assert np.max(drift.holonomic_residual) > 1e-5
    assert np.max(held.holonomic_residual) <= 1e-12
    assert drift.gamma.shape == (0, 0, 20) and held.gamma.shape == (1, 1, 20)
    assert held.stats["n_variables"] == drift.stats["n_variables"] + 20
    assert held.stats["n_constraints"] == drift.stats["n_constraints"] + 19  # phi at nodes 1..19 (both ends given)
    assert abs(held.objective - drift.objective) < 0.05 * drift.objective


def _sphere():
    """A point on the unit sphere (G = I): its kinematic system's energy-optimal paths in t = 1 are
    the great circles at constant speed, int 1/2 |q'|^2 = d^2 / 2."""
    x, y, z = sp.symbols("x y z")
    return nh.System([x, y, z], sp.eye(3), constraints=[[x, y, z]], holonomic=[(x**2 + y**2 + z**2 - 1) / 2])


@pytest.mark.parametrize("method, order", METHODS)
def test_sphere_geodesic_energy_at_the_order(method, order):
    a = np.array([0.6, 0.3, 0.74])
    b = np.array([0.3, 0.6, 0.74])
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    exact = math.acos(float(a @ b)) ** 2 / 2
    problem = nh.OptimalControlProblem(_sphere().kinematic(), cost="energy", t_final=1.0, initial=a, final=b)
    nodes = (5, 9, 17) if order == 2 else (3, 5, 9)
    sols = [problem.solve(nodes=n, method=method, tol=1e-12) for n in nodes]
    for sol in sols:
        assert sol.success, sol.message
        assert np.max(problem.holonomic_residual(sol.y_points)) <= 1e-12
    errors = [abs(s.objective - exact) for s in sols]
    assert _slope([1.0 / (n - 1) for n in nodes], errors) == pytest.approx(order, abs=0.4)


def test_holonomic_bad_input():
    problem = _pendulum_problem()
    with pytest.raises(ValueError, match="holonomic must be one of"):
        problem.solve(nodes=5, holonomic="positions")
    with pytest.raises(ValueError, match="holonomic='velocity' is not available with method='dmoc'"):
        problem.solve(nodes=5, method="dmoc", holonomic="velocity")
    system, tau = _pendulum()
    with pytest.raises(ValueError, match="final: the end state violates the holonomic constraint"):
        nh.OptimalControlProblem(system, cost=tau**2, t_final=1.0, controls=[tau], initial=[0, -1, 0],
                                 final=[1.1, 0, 0])
    x, y, w = sp.symbols("x y w")
    with pytest.raises(ValueError, match="holonomic: the dynamics leave the constraints"):
        nh.KinematicSystem([x, y], [w], [w, w], holonomic=[x**2 + y**2 - 1])
    circle = nh.KinematicSystem([x, y], [w], [-y * w, x * w], holonomic=[x**2 + y**2 - 1])
    assert circle.holonomic == [x**2 + y**2 - 1]


def test_a_holonomic_constraint_in_kanes_speeds_against_the_same_problem_in_its_angle():
    """A pendulum from SymPy's KanesMethod in Cartesian coordinates, y dependent through
    x^2 + y^2 = L^2 (a configuration constraint, its velocity form the one constraint row), pushed by
    a horizontal force F: the dynamics in Kane's speeds (algebraic u_y, rates and multiplier) take
    the holonomic constraint at position level (it was refused). Swung from hanging to x = 0.5 at
    rest in 2 s with the least integral of F^2, it is the problem of the same pendulum in its
    angle, theta'' = -g sin(theta) + F cos(theta) (L = m = 1), posed without constraints: the two
    optima agree to the collocation error (measured 3.6e-7 at 60 nodes), phi = 0 holds to rounding
    at every point and the planned force drives the model to the plan's end within its defect."""
    import sympy.physics.mechanics as me

    x, y = me.dynamicsymbols("x y")
    ux, uy = me.dynamicsymbols("u_x u_y")
    m, g, L, F = sp.symbols("m g L F")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, ux * N.x + uy * N.y)
    km = me.KanesMethod(N, q_ind=[x], q_dependent=[y], configuration_constraints=[x**2 + y**2 - L**2], u_ind=[ux],
                        u_dependent=[uy], velocity_constraints=[x * ux + y * uy],
                        kd_eqs=[x.diff() - ux, y.diff() - uy])
    km.kanes_equations([me.Particle("bob", P, m)], [(P, -m * g * N.y + F * N.x)])
    cartesian = nh.System.from_kanes_method(km, {m: 1.0, g: 9.81, L: 1.0, F: 0.0})
    force = cartesian.symbol("F")
    problem = nh.OptimalControlProblem(cartesian, controls=[force], cost=force**2, t_final=2.0, initial=[0, -1, 0],
                                       final=[0.5, None, 0])
    assert problem.state_names == ["x", "y", "u_x"] and problem.holonomic
    sol = problem.solve(nodes=60)
    theta, push = sp.symbols("theta F")
    angle = nh.System([theta], sp.Matrix([[1.0]]), potential=-9.81 * sp.cos(theta),
                      force=sp.Matrix([push * sp.cos(theta)]), parameters={push: 0.0})
    reference = nh.OptimalControlProblem(angle, controls=[push], cost=push**2, t_final=2.0, initial=[0, 0],
                                         final=[math.asin(0.5), 0]).solve(nodes=60)
    assert sol.success and reference.success
    assert abs(sol.objective / reference.objective - 1) < 2e-6
    assert np.abs(sol.y[0] ** 2 + sol.y[1] ** 2 - 1).max() < 1e-12
    run = sol.simulate()
    assert np.abs(run.y[:, -1] - sol.y[:, -1]).max() <= 2 * sol.defect
    # an integrated state (with_states): the work of the force, W' = F u_x, from 0; the optimum is
    # unchanged, W(T) is the integral of F u_x along it and, from rest to rest, the potential energy
    # the bob gains
    worked = problem.dynamics.with_states({"W": "F*u_x"})
    assert worked.state_names == ["x", "y", "u_x", "W"] and worked.holonomic == problem.dynamics.holonomic
    with_work = nh.OptimalControlProblem(worked, cost=force**2, t_final=2.0, initial=[0, -1, 0, 0],
                                         final=[0.5, None, 0, None]).solve(nodes=60)
    assert abs(with_work.objective / sol.objective - 1) < 1e-8
    fine = np.linspace(0.0, 2.0, 4001)
    power = with_work.controls_at(fine)[0] * with_work.states_at(fine)[2]
    assert abs(with_work.y[3, -1] - np.sum((power[1:] + power[:-1]) / 2 * np.diff(fine))) < 1e-4
    # from rest to rest the work is the potential energy gained: g (1 - cos 30 deg)
    assert abs(with_work.y[3, -1] - 9.81 * (1 - math.sqrt(0.75))) < 1e-6
    for rates, message in (({"x": "F"}, "already"), ({}, "non-empty mapping")):
        with pytest.raises(ValueError, match=message):
            problem.dynamics.with_states(rates)
