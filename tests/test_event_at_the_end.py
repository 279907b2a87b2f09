"""A non-terminal event whose root is the end of the run keeps the run's final state.

Event(t - T) on a run to T: CVODE returns at the root, which is also the end, and the driver took the step for
an event's only (not a sample), so the run had t[-1] < T and no y_final, reported as a success."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


@pytest.mark.parametrize("method", ["auto", "adams", "bdf", "dop853"])
def test_an_event_at_the_end_keeps_the_final_state(method):
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    T = 2.5
    event = nh.Event(sp.Symbol("t") - T)
    run = nh.simulate(sleigh.nonholonomic(), (0, T), y0, events=event, method=method)
    plain = nh.simulate(sleigh.nonholonomic(), (0, T), y0, method=method, t_eval=[T])
    assert run.success and run.t_events[0].tolist() == [T]
    assert run.t[-1] == T and run.y_final is not None
    np.testing.assert_allclose(run.y_final, plain.y[:, -1], rtol=1e-6, atol=1e-8)
