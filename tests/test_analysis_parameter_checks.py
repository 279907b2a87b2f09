"""linearize and steady_motions check the state and parameter values as a run's start does: eps <= 0
or a friction coefficient mu < 0 is no friction model, and gave the sleigh's an eigenvalue +10.6."""

import numpy as np
import pytest

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
STATE = [0, 0, 0, 1, 0, 0]


@pytest.mark.parametrize("params, error, message", [({"eps": -0.1}, ValueError, "eps must be a positive"),
                                                    ({"mu": -1.0}, ValueError, r"parameter mu = -1 contradicts its "
                                                                                r"symbol's assumptions")])
def test_analyses_refuse_what_simulate_refuses(params, error, message):
    model = SLEIGH.friction(0.1)
    with pytest.raises(error, match=message):
        nh.simulate(model, (0, 1), STATE, params=params)
    with pytest.raises(error, match=message):
        nh.linearize(model, STATE, params=params)
    with pytest.raises(error, match=message):
        nh.steady_motions(SLEIGH, STATE, model=model, params=params)


def test_the_defaults_still_linearize():
    lin = nh.linearize(SLEIGH.friction(0.1), STATE)
    assert lin.is_stable()
    assert np.all(lin.physical_eigenvalues.real < 0)
