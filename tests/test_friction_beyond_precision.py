"""A friction model stiffer than double precision resolves on its run warns: the run succeeds (status 0)
with a wrong motion. The Chaplygin sleigh over t in [0, 1] against the nonholonomic limit: eps 1e-16
8e-8 off (silent, right), 1e-22 1.6e-3, 1e-30 5e4 off, both with status 0 and no word before. A long
run whose steps are short against its interval stays silent where it is right (eps 1e-12 over 10^6 s:
2.8e-7 relative, as at 1e-10)."""

import warnings

import numpy as np
import pytest

import nonholo as nh

Y0 = [0, 0, 0, -1.5, 0, 1.0]


def run(eps, T=1.0):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = nh.simulate(nh.systems.chaplygin_sleigh().friction(eps), (0, T), Y0)
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("eps", [1e-22, 1e-30])
def test_an_eps_beyond_double_precision_warns(eps):
    result, messages = run(eps)
    assert result.status == 0
    assert any("stiffer than double precision resolves on this run" in m for m in messages)
    assert any("stiffer than double precision" in m for m in result.warnings)


def test_a_long_run_at_a_small_eps_that_is_right_is_silent():
    result, messages = run(1e-12, T=1e6)
    assert result.status == 0 and not messages and not result.warnings


def test_the_default_range_and_a_resolvable_eps_run_silently_and_right():
    limit = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 1), Y0, rtol=1e-10, atol=1e-12)
    for eps in (1e-3, 1e-16):
        result, messages = run(eps)
        assert not messages and not result.warnings
        if eps == 1e-16:
            assert np.abs(result.y[:3, -1] - limit.y[:3, -1]).max() < 1e-6
