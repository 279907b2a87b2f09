"""Events whose function moves in steps of its rounding: theta - 0.3 changes by one ulp of 0.3 in
4e-17 s at theta' = 1.5, so right after its root it is still exactly zero where CVODE looks again (a
close-root offset later), and theta - 1.5 t, zero but for rounding, stays exactly zero over whole
steps. CVODE stopped such runs with CV_ILL_INPUT ("root found at and very near t") right after a root
it had returned; a run with sensitivities raised, whatever raise_on_failure said."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.errors import SimulationWarning

W = 1.5  # the knife edge's constant turning rate


@pytest.fixture(scope="module")
def knife():
    """A knife edge on a level plane, in plain SymPy: theta(t) = theta0 + theta'(0) t exactly."""
    x, y, th = sp.symbols("x y theta")
    m, J = sp.symbols("m J", positive=True)
    system = nh.System([x, y, th], sp.diag(m, m, J), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                       parameters={m: 1.0, J: 0.5})
    return system, th


@pytest.mark.parametrize("method", ["auto", "bdf", "adams", "dop853"])
@pytest.mark.parametrize("d", [1e-8, 1e-5, 1e-3])
def test_a_root_soon_after_the_start_leaves_the_run_going(knife, method, d):
    system, th = knife
    with warnings.catch_warnings():
        warnings.simplefilter("error", SimulationWarning)
        run = nh.simulate(system.nonholonomic(), (0, 2), [0, 0, 0.3 - d, 0, 0, W], events=nh.Event(th - 0.3),
                          rtol=1e-10, atol=1e-12, method=method)
    assert run.status == 0 and run.t[-1] == 2.0
    assert len(run.t_events[0]) == 1 and abs(run.t_events[0][0] - d / W) < 1e-12


def test_an_event_zero_but_for_rounding_fails_no_run(knife):
    system, th = knife
    t = sp.Symbol("t")
    model = system.nonholonomic()
    run = nh.simulate(model, (0, 5), [0, 0, 0, 0, 0, W], events=nh.Event(th - W * t), rtol=1e-10, atol=1e-12)
    assert run.status == 0 and run.t[-1] == 5.0  # stopped at t = 1.4e-6 before
    assert np.all(np.abs(run.y_events[0][:, 2] - W * run.t_events[0]) < 1e-12)  # crossings of rounding only
    # with sensitivities: an event time whose function is tangent has none (NaN, a warning), and the run
    # ends as any other (it raised IntegrationError, though raise_on_failure is False)
    with pytest.warns(SimulationWarning, match="tangent"):
        run = nh.simulate(model, (0, 5), [0, 0, 0, 0, 0, W], events=nh.Event(th - W * t), sensitivities=["m"],
                          rtol=1e-10, atol=1e-12)
    assert run.status == 0 and run.t[-1] == 5.0
    assert np.isnan(run.t_events_sensitivities[0]).any()
    # an event that crosses: its time sensitivity stays finite (here zero: m moves nothing)
    run = nh.simulate(model, (0, 2), [0, 0, 0, 0, 0, W], events=nh.Event(th - 1.0), sensitivities=["m"],
                      rtol=1e-10, atol=1e-12)
    assert abs(run.t_events[0][0] - 1.0 / W) < 1e-12 and np.abs(run.t_events_sensitivities[0]).max() < 1e-9
