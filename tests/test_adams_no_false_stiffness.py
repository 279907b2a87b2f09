"""Adams keeps a non-stiff run on Adams however long it is (method="adams"; "auto" runs DOP853 here, events and all).

A forced Chaplygin sleigh written here (its eigenvalues about 1.3), with one non-terminal event, over t = 1000:
a stiffness test that counted a mode held near the border of Adams' explicit predictor as stiff (reverted)
took its oscillatory modes for decaying ones and switched to BDF at t = 39: 36,000 steps and an error 1,200
times rtol, against 20,000 Adams steps 55 times closer to a DOP853 run at rtol 1e-12."""

import numpy as np
import sympy as sp

import nonholo as nh


def test_a_long_non_stiff_run_with_an_event_stays_on_adams():
    x, y, p, t = sp.symbols("x y p t")
    xd, yd, pd = sp.symbols("xd yd pd")
    m, I, a = 1.0, 0.3, 0.25  # noqa: E741
    G = sp.Matrix([[m, 0, -m * a * sp.sin(p)], [0, m, m * a * sp.cos(p)], [-m * a * sp.sin(p), m * a * sp.cos(p),
                                                                          I + m * a**2]])
    force = sp.Matrix([sp.cos(2 * t) * sp.cos(p) - 0.05 * xd, sp.cos(2 * t) * sp.sin(p) - 0.05 * yd,
                       0.3 * sp.sin(t / 2)])
    sleigh = nh.System([x, y, p], G, 0, sp.Matrix([[-sp.sin(p), sp.cos(p), 0]]), force=force,
                       velocities=[xd, yd, pd], time=t)
    model, y0, events = sleigh.nonholonomic(), [0, 0, 0, 1.0, 0, 0.5], [nh.Event(pd)]
    reference = nh.simulate(model, (0, 1000), y0, events=events, method="dop853", rtol=1e-12, atol=1e-14)
    run = nh.simulate(model, (0, 1000), y0, events=events)  # the default: DOP853, as without the event
    adams = nh.simulate(model, (0, 1000), y0, events=events, method="adams")
    assert run.success and run.method == "dop853" and adams.success and adams.method == "adams"
    assert np.abs(adams.y_final - reference.y_final).max() < 1e-3
    assert len(adams.t_events[0]) == len(reference.t_events[0])
    assert np.abs(run.y_final - reference.y_final).max() < 1e-3
    assert len(run.t_events[0]) == len(reference.t_events[0])
