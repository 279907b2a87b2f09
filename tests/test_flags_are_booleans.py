"""Flags are True or False: a string, a number or a list given for one is a TypeError that names
it (bool("no") is True: dense_output="no" gave dense output, raise_on_failure=2 raised)."""

import numpy as np
import pytest

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
Y0 = [0, 0, 0, 1, 0, 1]


@pytest.mark.parametrize("name", ["raise_on_failure", "dense_output", "progress", "sensitivity_error_control"])
@pytest.mark.parametrize("value", ["no", 2, [], 1.0])
def test_simulate_refuses_a_flag_that_is_not_a_boolean(name, value):
    with pytest.raises(TypeError, match=name):
        nh.simulate(SLEIGH.nonholonomic(), (0, 1), Y0, **{name: value})


@pytest.mark.parametrize("name", ["raise_on_failure", "progress", "sensitivity_error_control"])
def test_simulate_many_refuses_a_flag_that_is_not_a_boolean(name):
    with pytest.raises(TypeError, match=name):
        nh.simulate_many(SLEIGH.nonholonomic(), (0, 1), [Y0, Y0], **{name: "yes"})


def test_the_defaults_and_booleans_run():
    default = nh.simulate(SLEIGH.nonholonomic(), (0, 1), Y0)
    assert default.success and default.sol is None
    dense = nh.simulate(SLEIGH.nonholonomic(), (0, 1), Y0, dense_output=True, raise_on_failure=True)
    assert dense.success and dense.sol is not None
    assert all(r.success for r in nh.simulate_many(SLEIGH.nonholonomic(), (0, 1), [Y0, Y0], raise_on_failure=False))


def test_the_other_flags_are_booleans_too():
    import sympy as sp

    model = SLEIGH.nonholonomic()
    with pytest.raises(TypeError, match="fuse"):
        model.compile(fuse="no")
    x, y, xd, yd = sp.symbols("x y x_dot y_dot")
    with pytest.raises(TypeError, match="simplify"):
        nh.System.from_lagrangian((xd ** 2 + yd ** 2) / 2, [x, y], [xd, yd], simplify="yes")
    assert nh.System.from_lagrangian((xd ** 2 + yd ** 2) / 2, [x, y], [xd, yd]).n == 2  # the default
    with pytest.raises(TypeError, match="progress"):
        nh.sweep(lambda a: a, {"a": [1, 2]}, progress="no")
    with pytest.raises(TypeError, match="absolute_sigma"):
        nh.fit(model, [0.5, 1.0], np.zeros((6, 2)), {"a": 0.2}, Y0, absolute_sigma="no")
    problem = nh.OptimalControlProblem(nh.systems.kinematic_car(), cost="time", initial=[0, 0, 0], final=[2, 0, 0])
    with pytest.raises(TypeError, match="raise_on_failure"):
        problem.solve(nodes=10, raise_on_failure="no")
