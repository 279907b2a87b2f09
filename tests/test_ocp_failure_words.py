"""What a plan's messages say when their numbers cannot: a re-run that does not stay finite is said
to be one (it read "takes the state nan away ... the plan's defect nan"), and a state bound left
between the points is reported with advice that holds (more nodes did not shrink a wheel's speed bound
left where its force switches: 6.7e-4 on 41 nodes, 8.9e-4 on 161, 4.7e-4 on 321)."""

import re

import numpy as np
import sympy as sp

import nonholo as nh
from nonholo.testing import pushed_sleigh


def test_a_rerun_that_overflows_is_said_to_be_no_motion_without_nan():
    sleigh, F, tau = pushed_sleigh()
    # sideways with the heading held to 1e-3: the plan drives at |x'| up to 750, its re-run overflows
    sol = nh.OptimalControlProblem(sleigh, cost=(F**2 + tau**2) / 2, t_final=2.0, controls=[F, tau],
                                   initial=[0] * 5, final=[0, 1, 0, 0, 0],
                                   state_bounds={"theta": (-1e-3, 1e-3)}).solve(nodes=21)
    assert not sol.success
    assert "does not stay finite" in sol.message and "nan" not in sol.message.lower()


def test_a_state_bound_left_between_the_points_gets_true_advice():
    m, J, R = 2.0, 0.5, 0.5
    x, ph, F = sp.symbols("x phi F")
    wheel = nh.System([x, ph], sp.diag(m, J), constraints=sp.Matrix([[1, -R]]), force=[F, 0], parameters={F: 0.0})
    D, bound = 1.5, 1.6
    sol = nh.OptimalControlProblem(wheel, cost="time", controls=[F], control_bounds={"F": (-2.0, 2.0)},
                                   state_bounds={"phi_dot": (-bound, bound)}, initial=[0, 0, 0],
                                   final=[D, D / R, 0]).solve(nodes=41)
    exact = D / (bound * R) + bound * R / (2.0 / (m + J / R**2))  # accelerate at F = 2, then cruise at the bound
    assert sol.success and abs(sol.t_final - exact) < 1e-3 * exact
    found = re.search(r"phi_dot <= 1.6 by ([0-9.e-]+) at t", sol.message)
    assert found, sol.message
    rerun = sol.simulate()  # dense: the note's number is the re-run's between the points
    between = rerun.sol(np.linspace(0.0, sol.t_final, 20001))[sol.state_names.index("phi_dot")]
    assert np.max(between) - bound > 0.5 * float(found.group(1))
    assert "tighten it by that much" in sol.message and "shrink it)" not in sol.message


def test_an_abs_path_constraint_next_to_an_invalid_number_gets_the_note_not_a_printer_error():
    """|u| <= 3 beside sqrt(x^2 + v^2) <= 5, whose derivative is NaN at the start: the note on the invalid
    number differentiates every path constraint, and SymPy's d|u|/du (re(u), Derivative(re(u), u)) made
    NumPy's printer raise PrintMethodNotImplementedError instead of a solution (an outside probe)."""
    x, v, u = sp.symbols("x v u")
    point = nh.KinematicSystem([x, v], [u], [v, u])
    sol = nh.OptimalControlProblem(point, cost=u**2, t_final=1.0, initial=[0, 0], final=[1, 0],
                                   path_constraints=[sp.Abs(u) <= 3, sp.sqrt(x**2 + v**2) <= 5]).solve(nodes=21)
    assert not sol.success and "The derivative by x of the path constraint sqrt(v**2 + x**2) - 5 <= 0 is nan" \
        in sol.message
