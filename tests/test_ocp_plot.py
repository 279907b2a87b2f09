"""sol.plot(): a plan's states and controls against time (the docs probe found no way to draw a plan
but by hand)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import nonholo as nh  # noqa: E402


@pytest.fixture(scope="module")
def sol():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    return nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5]).solve(nodes=60)


def test_the_default_draws_the_states_and_the_controls(sol):
    axes = sol.plot()
    assert len(axes) == 2
    assert [line.get_label() for line in axes[0].get_lines()] == list(sol.state_names)
    assert [line.get_label() for line in axes[1].get_lines()] == ["v", "kappa"]
    np.testing.assert_array_equal(axes[1].get_lines()[0].get_ydata(), sol.u["v"])
    np.testing.assert_array_equal(axes[0].get_lines()[0].get_xdata(), sol.t)
    assert f"{sol.t_final:.6g}" in axes[0].get_title()
    plt.close("all")


def test_names_on_given_axes_and_bad_arguments(sol):
    fig, ax = plt.subplots()
    assert sol.plot(["x", "kappa"], ax=ax) is ax and len(ax.get_lines()) == 2
    with pytest.raises(KeyError, match="neither a state"):
        sol.plot(["w"], ax=ax)
    with pytest.raises(ValueError, match="pass names="):
        sol.plot(ax=ax)
    with pytest.raises(TypeError, match="solution must be an optimal control solution"):
        nh.plot.plan("sol")
    plt.close("all")
