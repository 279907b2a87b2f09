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
    # every collocation point (Hermite-Simpson's midpoints too), where the plan's variables are
    np.testing.assert_array_equal(axes[1].get_lines()[0].get_ydata(), sol.u_points[0])
    np.testing.assert_array_equal(axes[0].get_lines()[0].get_xdata(), sol.t_points)
    np.testing.assert_array_equal(axes[0].get_lines()[0].get_xdata()[::2], sol.t)  # the nodes among them
    assert f"{sol.t_final:.6g}" in axes[0].get_title() and axes[0].get_title().endswith("- a success")
    plt.close("all")


def test_a_control_singular_in_the_cost_is_drawn_as_the_plan_applies_it():
    """The minimum-time car's curvature on its straight is singular (the cost does not weigh it): node and
    midpoint values alternate (+0.042, -0.079, +0.036, -0.068, ...), and the nodes alone drew a dip to
    -0.61 over half a second (an outside probe; the Reeds-Shepp path's kappa is 1, 0, 1, never negative).
    The drawn curvature, integrated by Simpson's rule as the plan does, turns the heading as the plan's."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    plan = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5]).solve(nodes=200)
    line = plan.plot()[1].get_lines()[1]
    t, kappa = line.get_xdata(), line.get_ydata()
    v = plan.u_points[0]
    # Simpson over each interval (node, midpoint, node) of theta' = v kappa
    h = t[2::2] - t[:-2:2]
    turned = np.cumsum(h / 6 * (v[:-2:2] * kappa[:-2:2] + 4 * v[1::2] * kappa[1::2] + v[2::2] * kappa[2::2]))
    np.testing.assert_allclose(turned, plan.y[2, 1:] - plan.y[2, 0], atol=1e-6)
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
