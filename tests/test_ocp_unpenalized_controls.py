"""Controls that the cost does not contain and nothing bounds (forces under cost="energy", the kinetic
energy) make the problem singular in them: an outside probe's rolling disc under two torques, rest to
rest, fell in cost as the nodes doubled (1.045, 1.036, 1.032) with torques of 25, 53 and 3300 (its
infimum needs impulses), each "Optimal Solution Found.", and nothing warned. The problem says so when
it is built, and says nothing where a bound, a penalty or a path constraint restrains them."""

import warnings

import pytest
import sympy as sp

import nonholo as nh

x, F = sp.symbols("x F")


def pushed_mass():
    """x'' = F: a unit mass pushed along a line."""
    return nh.System([x], sp.Matrix([[1]]), force=[F], parameters={F: 0.0})


def problem(**kwargs):
    return nh.OptimalControlProblem(pushed_mass(), t_final=1.0, controls=[F], initial=[0, 0], final=[1, 0],
                                    **kwargs)


def test_energy_with_an_unbounded_force_warns():
    with pytest.warns(UserWarning, match=r"cost='energy' does not contain the controls \['F'\], which no bound "
                                         r"restrains: the problem is singular in them"):
        problem(cost="energy")
    x_dot = sp.Symbol("x_dot")
    with pytest.warns(UserWarning, match=r"the cost does not contain the controls \['F'\]"):
        problem(cost=x_dot**2)


@pytest.mark.parametrize("kwargs", [dict(cost="energy", control_bounds={"F": (-10, 10)}),
                                    dict(cost=F**2 / 2), dict(cost="energy", path_constraints=[F**2 <= 100])])
def test_restrained_controls_do_not_warn(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = problem(**kwargs).solve(nodes=21)
    assert sol.success


def test_each_control_is_weighed_on_its_own():
    """A second-round probe: with cost F**2 a torque tau unbounded and absent from the cost went unwarned,
    while a cost x**2 warned of it."""
    th, tau = sp.symbols("theta tau")
    spinner = nh.System([x, th], sp.eye(2), force=[F, tau], parameters={F: 0.0, tau: 0.0})
    with pytest.warns(UserWarning, match=r"does not contain the controls \['tau'\]"):
        nh.OptimalControlProblem(spinner, cost=F**2, t_final=1.0, controls=[F, tau], initial=[0] * 4,
                                 final=[1, 1, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nh.OptimalControlProblem(spinner, cost=F**2 + tau**2, t_final=1.0, controls=[F, tau], initial=[0] * 4,
                                 final=[1, 1, 0, 0])


def test_the_default_cost_of_a_kinematic_system_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        heis = nh.systems.heisenberg().kinematic()
        nh.OptimalControlProblem(heis, cost="energy", t_final=1.0, initial=[0, 0, 0], final=[1.0, 0.5, 0.3])
        car = nh.systems.kinematic_car(turning_radius=1.0)
        nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5])
