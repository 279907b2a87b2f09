"""Flags are True or False: a string, a number or a list given for one is a TypeError that names
it (bool("no") is True: dense_output="no" gave dense output, raise_on_failure=2 raised)."""

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
