"""Round 9 of bad input to a SimulationResult: indexing by what is no name is a TypeError that says
results are indexed by names; ``sol`` is None (documented) without dense output."""

import numpy as np
import pytest

import nonholo as nh


@pytest.fixture(scope="module")
def result():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    return nh.simulate(model, (0, 1), [0, 0, 0, 1, 0, 1], t_eval=[0, 0.5, 1])


@pytest.mark.parametrize("key", [slice(0, 2), 0, np.int64(1), (0, 1), [0, 1], None, 1.5])
def test_results_are_indexed_by_names(result, key):
    with pytest.raises(TypeError, match=r"indexed by .*name.*'x'.*'x_dot'") as info:
        result[key]
    assert "unhashable" not in str(info.value)


def test_names_still_index(result):
    np.testing.assert_array_equal(result["x"], result.y[0])
    assert result["phi_dot"].shape == (3,)
    with pytest.raises(KeyError, match="no state named 'nope'"):
        result["nope"]


def test_sol_is_none_without_dense_output_and_documented(result):
    assert result.sol is None
    doc = type(result).__doc__
    assert "sol : " in doc and "dense_output=True" in doc[doc.index("sol : "):]
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    dense = nh.simulate(model, (0, 1), [0, 0, 0, 1, 0, 1], dense_output=True)
    assert dense.sol is not None and np.shape(dense.sol(0.5)) == (6,)
