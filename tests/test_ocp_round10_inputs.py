"""Round 10 of the optimal control probe, the inputs: fixed end states that violate a path constraint
of the states (IPOPT answered "Converged to a point of local infeasibility") and a System's symbol
taken as a control where it is not (only) a force: the sleigh's mass (IPOPT's "Restoration Phase
Failed"). Both are refused when the problem is built, naming what is wrong."""

import re

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, phi, th, F, tau = sp.symbols("x y phi theta F tau")
CAR = nh.systems.kinematic_car(turning_radius=1.0)
KNIFE = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                  force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})


def car(initial=(0, 0, 0), final=(2, 0, 0), **kw):
    return nh.OptimalControlProblem(CAR, cost="time", initial=list(initial), final=list(final), **kw)


def sleigh(**kw):
    m, I, a = sp.symbols("m I a")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    return nh.System([x, y, phi], G, constraints=A, parameters={m: 1.0, I: 1.0, a: 0.2, **kw.pop("parameters", {})},
                     **kw)


# 1. Fixed end states against the path constraints


@pytest.mark.parametrize("constraint, shown, value", [(x >= 0.5, "0.5 - x <= 0", "0.5"),
                                                      ("x**2 + y**2 >= 0.25", "-x**2 - y**2 + 0.25 <= 0", "0.25")])
def test_an_initial_state_outside_a_path_constraint_is_refused(constraint, shown, value):
    """The probe's two: the car starts at the origin, outside x >= 0.5 and inside the disc of radius
    0.5, and IPOPT reported local infeasibility after its iterations; now a ValueError names the end,
    the constraint (as g <= 0) and g's value there, before any solve."""
    with pytest.raises(ValueError, match=r"initial = \[0\.0, 0\.0, 0\.0\] violates path_constraints\[0\], "
                                         + re.escape(shown) + ": its left side is " + re.escape(value) + " there"):
        car(path_constraints=[constraint])


def test_a_final_state_outside_a_path_constraint_is_refused_and_named():
    with pytest.raises(ValueError, match=r"final = \[2\.0, 0\.0, 0\.0\] violates path_constraints\[1\], x - 1\.5 <= 0: "
                                         r"its left side is 0\.5 there"):
        car(path_constraints=[y <= 5, x <= 1.5])


def test_velocity_states_of_a_system_with_force_controls_are_checked_too():
    """The states of controls= are the coordinates and the quasi-velocities: x_dot = 2 at the start
    against x_dot <= 1."""
    x_dot = sp.Symbol("x_dot")
    with pytest.raises(ValueError, match=r"initial = \[0\.0, 0\.0, 0\.0, 2\.0, 0\.0\] violates path_constraints\[0\], "
                                         r"x_dot - 1 <= 0: its left side is 1 there"):
        nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau],
                                 initial=[0, 0, 0, 2, 0], final=[1, 0, 0, 0, 0], path_constraints=[x_dot <= 1])


def test_a_path_constraint_with_no_real_value_at_a_fixed_end_is_refused():
    with pytest.raises(ValueError, match=r"initial = \[0\.0, 0\.0, 0\.0\] gives path_constraints\[0\] "
                                         r"\(log\(x\) - 5 <= 0\) no finite real value there"):
        car(path_constraints=["log(x) <= 5"])


def test_free_entries_controls_and_free_ends_leave_a_constraint_unchecked():
    """Only a constraint whose symbols are all states fixed at that end is evaluated there: y free at
    the start, a control in the constraint, no final state at all."""
    car(initial=(0, None, 0), path_constraints=["x**2 + y**2 >= 0.25"])
    car(path_constraints=["x + v >= 0.5"])
    nh.OptimalControlProblem(CAR, cost="time", initial=[3, 0, 0], final=None, path_constraints=[x >= 2.5])


def test_an_end_exactly_on_the_boundary_solves():
    """x >= 0 met with equality at the start, and x >= 0.1 + 0.2 (0.30000000000000004 in floating
    point) at a start x = 0.3: both within the slack, both solve."""
    sol = car(path_constraints=[x >= 0]).solve(nodes=15)
    assert sol.success and sol.y[0].min() >= -1e-7
    sol = car(initial=(0.3, 0, 0), path_constraints=[x >= 0.1 + 0.2]).solve(nodes=15)
    assert sol.success and sol.y[0].min() >= 0.3 - 1e-7


# 2. A System's controls: symbols of its force alone


def test_a_mass_as_a_control_is_refused():
    """The probe's: the sleigh's mass m as a control was accepted (it then varied along the plan, and
    IPOPT's restoration phase failed); a name is matched as the symbol is."""
    for control in (sp.Symbol("m"), "m"):
        with pytest.raises(ValueError, match=r"controls: 'm' appears in the system's metric \(its mass matrix\), not "
                                             r"only in its force"):
            nh.OptimalControlProblem(sleigh(), cost="energy", initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0],
                                     t_final=2.0, controls=[control], control_bounds={"m": (0.5, 2)})


def test_a_symbol_of_the_potential_acts_as_a_force_and_one_of_the_constraints_is_refused():
    """A control in the potential V(q; u) acts through -dV/dq at each instant (Lagrange's equations of
    T - V(q, u(t)) have no term in u'): the plan with g in the potential g y is the plan with the force
    -g on y (it was refused; a push given as a load to from_kanes_method is such a potential). A control
    in the constraints is refused. A torque tau turns the sleigh: without it, from rest at phi = 0 neither
    P nor g turns it (phi' = 0 stays), the goal (1, 0.2, 0.3) is out of reach, and its Hermite-Simpson
    plan (x out to 33, x' to 308) passed as a success whose re-run ends 0.3 from phi; the verdict now
    judges that miss on phi's own range (0.3) and finds no motion."""
    g, c, P, tau = sp.symbols("g c P tau")
    falling = sleigh(potential=g * y, force=[P, 0, tau], parameters={g: 9.81, P: 0.0, tau: 0.0})
    pushed = sleigh(force=[P, -g, tau], parameters={g: 9.81, P: 0.0, tau: 0.0})
    ends = dict(initial=[0, 0, 0, 0, 0], final=[1, 0.2, 0.3, 0, 0])
    for method in ("hermite-simpson", "dmoc"):  # DMOC's discrete Lagrangian too
        plans = [nh.OptimalControlProblem(system, cost=g**2 + P**2 + tau**2, t_final=2.0, controls=[P, g, tau],
                                          **ends).solve(nodes=21, method=method) for system in (falling, pushed)]
        assert all(plan.success for plan in plans)
        assert np.abs(plans[0].simulate().y_final - plans[0].y[:, -1]).max() < 1e-2  # a motion: its re-run ends there
        assert plans[0].objective == pytest.approx(plans[1].objective, rel=1e-8)
        np.testing.assert_allclose(plans[0].u_points, plans[1].u_points, rtol=0, atol=1e-6)
    unturned = sleigh(force=[P, -g, 0], parameters={g: 9.81, P: 0.0})
    out_of_reach = nh.OptimalControlProblem(unturned, cost=g**2 + P**2, t_final=2.0, controls=[P, g], **ends)
    assert not out_of_reach.solve(nodes=21).success
    tilted = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -c * sp.cos(th), 0]]),
                       force=[F * sp.cos(th), F * sp.sin(th), c], parameters={F: 0.0, c: 1.0})
    with pytest.raises(ValueError, match=r"controls: 'c' appears in the system's constraints \(the rows A of "
                                         r"A v = b\), not only in its force"):
        nh.OptimalControlProblem(tilted, cost=F**2, t_final=1.0, controls=[F, c])


def test_a_parameter_outside_the_force_as_a_control_is_refused():
    """A parameter that appears in no expression of the system's force would not act at all."""
    k = sp.Symbol("k")
    spare = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                      force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0, k: 1.0})
    with pytest.raises(ValueError, match=r"controls: 'k' does not appear in the system's force"):
        nh.OptimalControlProblem(spare, cost=F**2 + tau**2, t_final=1.0, controls=[F, k])


def test_force_controls_still_solve():
    """The neighbour that stays: the guide's knife edge pushed along its blade, F = 6 - 12 t."""
    sol = nh.OptimalControlProblem(KNIFE, cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau],
                                   initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0]).solve(nodes=30)
    assert sol.success and abs(sol.objective - 6.0) < 1e-4 and abs(sol.u["F"][0] - 6.0) < 1e-3
