"""Round 9 of bad input to simulate and simulate_many: each refusal names the argument, and
sizes whose outputs cannot be held are refused before anything is allocated."""

import numpy as np
import pytest

import nonholo as nh

Y0 = [0.0, 0.0, 0.0, 1.0, 0.0, 1.0]


@pytest.fixture(scope="module")
def model():
    return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic()


# ---------------------------------------------------------------- memory of the outputs
def test_huge_t_eval_is_refused_before_allocating(model):
    huge = np.broadcast_to([0.5], (2 * 10**11,))  # 1.6 TB of output: no copy is made
    with pytest.raises(ValueError, match="t_eval"):
        nh.simulate(model, (0, 1), Y0, t_eval=huge)


def test_huge_t_eval_is_refused_in_simulate_many(model):
    huge = np.broadcast_to([0.5], (2 * 10**10,))
    with pytest.raises(ValueError, match="t_eval"):
        nh.simulate_many(model, (0, 1), [Y0, Y0], t_eval=huge, compile=False)


def test_huge_batch_of_states_is_refused(model):
    huge = np.broadcast_to(np.asarray(Y0), (10**12, 6))
    with pytest.raises(ValueError, match="Y0"):
        nh.simulate_many(model, (0, 1), huge, compile=False)


def test_huge_batch_of_params_is_refused(model):
    huge = np.broadcast_to([1.0], (10**12,))
    with pytest.raises(ValueError, match="params"):
        nh.simulate_many(model, (0, 1), Y0, params={"m": huge}, compile=False)


def test_batch_times_t_eval_is_refused(model):
    # each alone is small; the batch's outputs (runs x states x times) are not
    times = np.broadcast_to([0.5], (10**7,))
    Y = np.broadcast_to(np.asarray(Y0), (10**5, 6))
    with pytest.raises(ValueError, match="t_eval"):
        nh.simulate_many(model, (0, 1), Y, t_eval=times, compile=False)


def test_normal_sizes_still_run(model):
    r = nh.simulate(model, (0, 1), Y0, t_eval=np.linspace(0, 1, 1001))
    assert r.success and r.y.shape == (6, 1001)
    rs = nh.simulate_many(model, (0, 1), np.broadcast_to(np.asarray(Y0), (3, 6)), t_eval=[0.5, 1.0], compile=False)
    assert [x.y.shape for x in rs] == [(6, 2)] * 3
    rs = nh.simulate_many(model, (0, 1), Y0, params={"m": [1.0, 2.0]}, compile=False)
    assert len(rs) == 2 and all(x.success for x in rs)


# ---------------------------------------------------------------- t_span
@pytest.mark.parametrize("t_span", [np.array(1.0), 1.0, {8, 1}, frozenset({0, 1}), (0, 10**400), (10**400, 1)])
def test_t_span_refusals_name_it(model, t_span):
    with pytest.raises((ValueError, TypeError), match="t_span"):
        nh.simulate(model, t_span, Y0)
    with pytest.raises((ValueError, TypeError), match="t_span"):
        nh.simulate_many(model, t_span, [Y0], compile=False)


def test_t_span_of_numpy_values_still_works(model):
    assert nh.simulate(model, np.array([0.0, 1.0]), Y0).success
    assert nh.simulate(model, (np.int64(0), np.float32(1)), Y0).success


# ---------------------------------------------------------------- y0 and Y0
@pytest.mark.parametrize("y0", [[0, 0, 0, 1, 0, 10**400], [0, 0, 0, 1, 0, [1, 2]], [0, 0, 0, 1, 0, "1"],
                                [0, 0, 0, 1, 0, True], [0.0, 0.0, 0.0, 1.0, 0.0, np.True_]])
def test_y0_refusals_name_it(model, y0):
    with pytest.raises((ValueError, TypeError), match="y0"):
        nh.simulate(model, (0, 1), y0)


@pytest.mark.parametrize("Y0s", [[Y0, Y0[:5]], [Y0, [0, 0, 0, 1, 0, 10**400]], [Y0, [0, 0, 0, 1, 0, "1"]],
                                 [Y0, [0, 0, 0, 1, 0, False]]])
def test_Y0_refusals_name_it(model, Y0s):
    with pytest.raises((ValueError, TypeError), match="Y0"):
        nh.simulate_many(model, (0, 1), Y0s, compile=False)


# ---------------------------------------------------------------- t_eval
@pytest.mark.parametrize("t_eval", ["abc", "0.5", {0.5}, {"a": 0.5}, [0.5 + 1j], [0.5, "0.7"], [True],
                                    [0.5, True], [10**400], b"x"])
def test_t_eval_refusals_name_it(model, t_eval):
    with pytest.raises((ValueError, TypeError), match="t_eval"):
        nh.simulate(model, (0, 1), Y0, t_eval=t_eval)


def test_t_eval_of_ints_still_works(model):
    r = nh.simulate(model, (0, 2), Y0, t_eval=[0, 1, 2])
    assert r.success and list(r.t) == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------- params
@pytest.mark.parametrize("params", [{"m": 10**400}, {"m": "1"}, {"m": True}])
def test_params_refusals_name_the_parameter(model, params):
    with pytest.raises((ValueError, TypeError), match="m"):
        nh.simulate(model, (0, 1), Y0, params=params)


def test_batch_params_blame_the_bad_value(model):
    with pytest.raises((ValueError, TypeError), match=r"params\['m'\].*'nan'") as info:
        nh.simulate_many(model, (0, 1), Y0, params={"m": [1.0, "nan"]}, compile=False)
    assert "'1.0'" not in str(info.value)


def test_batch_params_huge_int_is_named(model):
    with pytest.raises((ValueError, TypeError), match=r"params\['m'\]"):
        nh.simulate_many(model, (0, 1), Y0, params={"m": [1.0, 10**400]}, compile=False)


def test_batch_params_nan_still_fails_its_own_run(model):
    with pytest.warns(nh.SimulationWarning):
        rs = nh.simulate_many(model, (0, 1), Y0, params={"m": [1.0, np.nan]}, compile=False)
    assert rs[0].success and rs[1].status == -1


def test_numbers_of_other_kinds_are_numbers():
    """SymPy's numbers, Fraction and Decimal in y0 and t_eval are the floats they equal (an object
    array of them was refused once strings and bools were)."""
    from decimal import Decimal
    from fractions import Fraction

    import sympy as sp

    model = nh.systems.chaplygin_sleigh().nonholonomic()
    plain = nh.simulate(model, (0, 1), [0, 0, 0, 0.5, 0, 1], t_eval=[0.5, 1.0])
    for half in (sp.Rational(1, 2), sp.Float(0.5), Fraction(1, 2), Decimal("0.5")):
        run = nh.simulate(model, (0, 1), [0, 0, 0, half, 0, 1], t_eval=[half, 1])
        np.testing.assert_array_equal(run.y, plain.y)
