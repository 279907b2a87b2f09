"""Bad input found by fuzzing the public API, refused with a message that names the argument (each was
accepted and gave a wrong or meaningless answer, or failed with an unrelated error)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh()


def test_an_extension_does_not_change_an_existing_default_silently(sleigh):
    """with_force(..., parameters={"a": 5}) moved the sleigh's offset a from 0.2 to 5, metric and all."""
    damping = [-sp.Symbol("a") * sleigh.symbol("x_dot"), 0, 0]
    with pytest.raises(ValueError, match=r"parameters: a \(0.2 -> 5\) is already a parameter .*with_parameters"):
        sleigh.with_force(damping, parameters={"a": 5})
    with pytest.raises(ValueError, match="with_potential's parameters"):
        sleigh.with_potential(sleigh.symbol("m") * sleigh.symbol("x"), parameters={"m": 0})
    same = sleigh.with_force([-sp.Symbol("c") * sleigh.symbol("x_dot"), 0, 0], parameters={"c": 5, "a": 0.2})
    assert same.param_vector() == [*sleigh.param_vector(), 5.0]  # a new symbol, and an unchanged default
    assert sleigh.with_parameters({"a": 5}).param_vector()[2] == 5.0  # the way to change one


@pytest.mark.parametrize("t_span", ["01", (True, 2), (0, "1")])
def test_t_span_is_two_numbers(sleigh, t_span):
    with pytest.raises(ValueError, match="t_span must be a pair"):
        nh.simulate(sleigh.nonholonomic(), t_span, [0, 0, 0, 1, 0, 0.5])


@pytest.mark.parametrize("options, match", [({"max_wall_time": 0}, "max_wall_time must be positive")])
def test_solver_options_that_control_nothing_are_refused(sleigh, options, match):
    with pytest.raises(ValueError, match=match):
        nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0.5], **options)


def test_dense_output_at_nan_is_refused(sleigh):
    run = nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0.5], dense_output=True)
    assert np.all(np.isfinite(run.sol(0.5)))
    with pytest.raises(ValueError, match="t must be finite"):
        run.sol(np.nan)


def test_a_convergence_study_needs_distinct_eps(sleigh):
    with pytest.raises(ValueError, match="eps_values must be distinct"):
        nh.studies.convergence(sleigh, [1e-2, 1e-2], [0, 0, 0, 1, 0, 0.5], (0, 1), orders=(0, 1))


def test_kinematic_controls_sampled_backwards_and_t_eval_outside_are_refused():
    """Samples given with decreasing times gave x(1) = 1e-11 (np.interp's undefined order) for 0.5."""
    car = nh.systems.kinematic_car()
    with pytest.raises(ValueError, match="sample times must be finite and increasing"):
        car.simulate((0, 1), [0, 0, 0], ([1, 0], [[1, 0], [0, 0]]))
    run = car.simulate((0, 1), [0, 0, 0], ([0, 1], [[0, 1], [0, 0]]))
    assert run.y[0, -1] == pytest.approx(0.5, rel=1e-8)
    with pytest.raises(ValueError, match="t_eval"):
        car.simulate((0, 1), [0, 0, 0], ([0, 1], [[0, 1], [0, 0]]), t_eval=[5])
    with pytest.raises(ValueError, match="rtol"):
        car.simulate((0, 1), [0, 0, 0], ([0, 1], [[0, 1], [0, 0]]), rtol=-1)


def test_speed_frame_of_a_system_without_one_says_so(sleigh):
    with pytest.raises(ValueError, match="has no velocity frame of its own"):
        sleigh.speed_frame()


def test_sizes_that_cannot_be_held_are_refused_before_the_work():
    """A sweep of 10^8 points ran until memory gave out (about 2.5 KB a point); vakonomic_bvp with n_points = 1e10
    shot first and then failed with a raw MemoryError."""
    with pytest.raises(ValueError, match=r"grid: the outer product of \['a', 'b'\] has 1e\+10 points"):
        nh.sweep(lambda a, b: a, {"a": np.arange(10**5), "b": np.arange(10**5)}, progress=False)
    assert nh.sweep(lambda a: 2 * a, {"a": [1, 2]}, progress=False).values["value"].tolist() == [2, 4]
    with pytest.raises(ValueError, match="n_points = 10000000000 samples"):
        nh.vakonomic_bvp(nh.systems.heisenberg(), [0, 0, 0], [1, 0, 0.1], 1.0, n_points=10**10)


def test_dense_output_evaluates_many_times_at_once(sleigh):
    """result.sol at 20,001 times looped in Python (164 ms for a run of 3 ms); the values are CVODE's, as at
    t_eval (to rounding)."""
    t = np.linspace(0, 20, 2001)
    run = nh.simulate(sleigh.nonholonomic(), (0, 20), [0, 0, 0, 1, 0, 0.5], dense_output=True, t_eval=t)
    np.testing.assert_allclose(run.sol(t), run.y, rtol=0, atol=1e-12)
    np.testing.assert_allclose(run.sol(7.3), run.sol(np.array([7.3]))[:, 0], rtol=0, atol=0)


def test_a_parameter_that_breaks_the_metric_is_named_with_its_value(sleigh):
    """params={"m": -1} read as a fault of the model at q = 0 ("the metric is not positive definite"), with no word
    of the parameters."""
    with pytest.raises(nh.ModelError, match=r"parameter m = -1 contradicts its symbol's assumptions"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0.5], params={"m": -1})
