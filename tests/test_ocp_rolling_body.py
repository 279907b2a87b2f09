"""Optimal control of a rolling body whose dynamics are derived from a System (controls=): a ball rolling on the
plane, pushed by a horizontal torque. Its mass matrix in the Voronets frame has 14,872 operations in quaternions;
solved symbolically its rates had 2.5 million and a plan on 41 nodes took 10 minutes (an outside probe; CasADi on
its own equations 0.33 s). The rates are now algebraic variables of M_D w' = X_D^T (...), imposed at the points.

Oracle: rolling, the centre moves as a double integrator, x'' = tau_y r / (I + m r^2) (y'' alike with -tau_x), so
least effort from rest to rest over a distance D in time T is 6 D^2 / (k^2 T^3), k = r / (I + m r^2)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Sphere, roll_on_plane


def test_a_ball_pushed_by_torques_reaches_the_least_effort_of_its_double_integrator():
    m, inertia, r, T = 1.0, 0.4, 1.0, 2.0
    ball = roll_on_plane(RigidBody(mass=m, inertia=(inertia,) * 3), Sphere(radius=r))
    q0, q1, q2, q3 = ball.coordinates[2:]
    tx, ty = sp.symbols("tau_x tau_y")
    E = sp.Matrix([[-q1, q0, -q3, q2], [-q2, q3, q0, -q1], [-q3, -q2, q1, q0]])  # omega = 2 E q' in space axes
    pushed = ball.with_force([0, 0, *(2 * E.T * sp.Matrix([tx, ty, 0]))], parameters={tx: 0.0, ty: 0.0})
    problem = nh.OptimalControlProblem(pushed, cost=(tx**2 + ty**2) / 2, t_final=T, controls=[tx, ty],
                                       initial=[0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
                                       final=[1, 0.5, None, None, None, None, 0, 0, 0, 0])
    assert problem.algebraic  # the rates, not solved in SymPy
    sol = problem.solve(nodes=21)
    k = r / (inertia + m * r**2)
    assert sol.success and sol.objective == pytest.approx(6 * (1 + 0.25) / (k**2 * T**3), rel=1e-5)
    assert np.abs(sol.simulate().y_final - sol.y[:, -1]).max() < 1e-5
