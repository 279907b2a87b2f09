"""simulate's arguments on a system the other tests do not use (a knife edge under a torque,
theta = t^2 / 2 from rest): a count beyond 64 bits, params that are not a mapping and flags that
are not booleans refused by name; the event direction of a backward run is the sign of dg/dt."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


@pytest.fixture(scope="module")
def knife():
    x, y, th, tau = sp.symbols("x y theta tau")
    system = nh.System([x, y, th], sp.diag(2, 2, 1), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                       force=[0, 0, tau], parameters={tau: 1.0})
    return system.nonholonomic()


def test_counts_flags_and_params_are_refused_by_name(knife):
    y0 = [0, 0, 0, 1, 0, 0]
    for steps in (10**30, 1e20):
        with pytest.raises(ValueError, match="max_steps must be at most"):
            nh.simulate(knife, (0, 1), y0, max_steps=steps)
    with pytest.raises(TypeError, match="params must be a mapping"):
        nh.simulate(knife, (0, 1), y0, params=[2.0])
    with pytest.raises(TypeError, match="params must be a mapping"):
        knife.rhs(0.0, y0, params=[2.0])
    off = [0, 0, 0, 1, 1, 0]  # v off the constraint set
    with pytest.raises(TypeError, match="project_y0 must be True or False"):
        nh.simulate(knife, (0, 1), off, project_y0="no")  # bool("no") is True: it was projected
    with pytest.raises(TypeError, match="drift_control must be True or False"):
        nh.simulate(knife, (0, 1), y0, drift_control="no")
    with pytest.raises(TypeError, match="project_y0"):
        nh.simulate_many(knife, (0, 1), [y0, y0], project_y0="yes")
    # the defaults: a state off the constraints is refused, projected when asked
    with pytest.raises(ValueError, match="violates the constraints"):
        nh.simulate(knife, (0, 1), off)
    run = nh.simulate(knife, (0, 1), off, project_y0=np.bool_(True))
    assert np.allclose(run.y[3:, 0], [1, 0, 0])


def test_a_backward_runs_event_direction_is_the_sign_of_dg_dt(knife):
    """theta = t^2 / 2 from rest under unit torque; over (0, -10) the event theta = 2 is met at
    t = -2, where d(theta)/dt = t < 0: direction -1 (g decreasing in time) catches it, 1 does not
    (solve_ivp, following the integration, would say the opposite)."""
    y0 = [0, 0, 0, 0, 0, 0]
    theta = sp.Symbol("theta")
    caught = nh.simulate(knife, (0, -10), y0, events=nh.Event(theta - 2, direction=-1), rtol=1e-10, atol=1e-12)
    assert caught.t_events[0] == pytest.approx([-2.0], abs=1e-8)
    missed = nh.simulate(knife, (0, -10), y0, events=nh.Event(theta - 2, direction=1), rtol=1e-10, atol=1e-12)
    assert missed.t_events[0].size == 0
    # forward, the same crossing at t = 2 increases: direction 1
    forward = nh.simulate(knife, (0, 10), y0, events=nh.Event(theta - 2, direction=1), rtol=1e-10, atol=1e-12)
    assert forward.t_events[0] == pytest.approx([2.0], abs=1e-8)


def test_a_discrete_run_beyond_max_steps_is_refused_before_it_starts():
    """Every step of simulate_discrete is stored: h = 1e-8 over (0, 1e3) filled the memory, h = 1e-20
    gave the binding's signature dump (more than 2^63 steps)."""
    sleigh = nh.systems.chaplygin_sleigh()
    for h in (1e-20, 1e-8):
        with pytest.raises(ValueError, match="more than max_steps"):
            nh.simulate_discrete(sleigh.discrete(h), (0, 1e3), [0, 0, 0, 1, 0, 0])
    run = nh.simulate_discrete(sleigh.discrete(0.01), (0, 1), [0, 0, 0, 1, 0, 0])
    assert run.success and run.t.size == 101
