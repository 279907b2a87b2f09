"""The highest documented order of a reduced model runs: order 16 (``_core.max_slow_manifold_order``)
built, but simulate refused it ("the slow-manifold order must be between 0 and 16", from the validity
check, which evaluates the term after the model's). At that order the last kept term stands in for
the first dropped one."""

import numpy as np

import nonholo as nh
from nonholo import _core

Y0 = [0, 0, 0, 1, 0, 1]


def test_the_highest_order_runs_and_is_checked():
    sleigh = nh.systems.chaplygin_sleigh()
    top = _core.max_slow_manifold_order
    runs = {order: nh.simulate(sleigh.reduced(0.01, order=order), (0, 1), Y0, t_eval=[1], rtol=1e-12, atol=1e-14)
            for order in (1, top - 1, top)}  # 1: the default
    assert all(run.success and run.validity.valid for run in runs.values())
    np.testing.assert_allclose(runs[top].y, runs[top - 1].y, atol=1e-12)
    np.testing.assert_allclose(runs[top].y, runs[1].y, atol=1e-3)
    assert nh.simulate(sleigh.reduced(0.01, order="auto", max_order=top), (0, 1), Y0).success
    assert all(run.success for run in nh.simulate_many(sleigh.reduced(0.01, order=top), (0, 1), [Y0, Y0]))
