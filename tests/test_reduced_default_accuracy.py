"""The default integration of a reduced model is accurate to its tolerance, not only to its truncation.

A reduced model of order K is O(eps^(K+1)) from the friction model; integrated with DOP853 at the
requested tolerances and without drift control (the default until 2026-12-06), the run itself was
600 times rtol off on the Chaplygin sleigh over t = 20 (6.0e-6 in y at rtol 1e-8, orders 0 to 3
alike), above the truncation error from order 2 on (1.3e-7 at eps = 1e-3), where the docs said the
truncation dominated. The nonholonomic model, the same equations at order 0, was 4e-8 off: auto
runs it at a tenth of the tolerances with drift control after its steps (u stays on D, the fibre
base of the slow manifold; the projection removes the error's component off D). Reduced models now
run the same way."""

import numpy as np
import pytest

import nonholo as nh

EPS, T = 1e-3, 20.0
Y0 = [0, 0, 0, -1.5, 0, 1.0]
T_OUT = np.linspace(0, T, 41)


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)


@pytest.fixture(scope="module")
def friction_reference(sleigh):
    """The friction model at rtol 1e-13, started on its slow manifold (the order-6 velocity)."""
    v0 = sleigh.reduced(EPS, order=6).velocity(0.0, np.array(Y0, dtype=float))
    return nh.simulate(sleigh.friction(EPS), (0, T), np.r_[Y0[:3], v0], t_eval=T_OUT, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("order", [0, 2, 3])
def test_the_default_run_is_within_its_tolerance_of_the_exact_reduced_flow(sleigh, order):
    model = sleigh.reduced(EPS, order=order)
    default = nh.simulate(model, (0, T), Y0, t_eval=T_OUT)
    tight = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, rtol=1e-13, atol=1e-15)
    assert default.method == "dop853" and default.success
    error = np.abs(default.q - tight.q).max() / np.abs(tight.q).max()
    assert error < 1e-8, error  # rtol, relative to the largest coordinate (it was 3.6e-7)
    # the option: without drift control the same run is 10 times further off
    loose = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, drift_control=False)
    assert np.abs(loose.q - tight.q).max() / np.abs(tight.q).max() > 3 * error


def test_at_order_two_the_truncation_dominates_the_default_run(sleigh, friction_reference):
    """The error against the friction model is the truncation's, O(eps^3), not the integration's."""
    model = sleigh.reduced(EPS, order=2)
    default = nh.simulate(model, (0, T), Y0, t_eval=T_OUT)
    tight = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, rtol=1e-13, atol=1e-15)
    truncation = np.abs(tight.q - friction_reference.q).max()
    assert 1e-8 < truncation < 1e-6, truncation
    assert np.abs(default.q - friction_reference.q).max() < 1.5 * truncation


@pytest.mark.parametrize("batch", [False, True])
def test_an_event_keeps_the_default_run_and_its_accuracy(sleigh, batch):
    """An outside probe: any event (one that never fired) switched auto on a reduced model from DOP853 at
    a tenth of the tolerances to Adams at them, 6-55x farther off (the nonholonomic model kept DOP853).
    Events are found on DOP853's dense output on every non-stiff model."""
    import sympy as sp

    model = sleigh.reduced(EPS, order=2)
    crossing = nh.Event(sp.Symbol("phi") - 1.0)  # phi(t) passes 1 once
    never = nh.Event(sp.Symbol("phi") - 100.0)
    tight = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, events=crossing, rtol=1e-13, atol=1e-15)
    if batch:
        plain, with_events = nh.simulate_many(model, (0, T), [Y0], t_eval=T_OUT)[0], \
            nh.simulate_many(model, (0, T), [Y0], t_eval=T_OUT, events=[never, crossing])[0]
    else:
        plain = nh.simulate(model, (0, T), Y0, t_eval=T_OUT)
        with_events = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, events=[never, crossing])
    assert plain.method == with_events.method == "dop853"
    np.testing.assert_array_equal(with_events.q, plain.q)  # the events cost no accuracy
    assert np.abs(with_events.q - tight.q).max() / np.abs(tight.q).max() < 1e-8
    assert with_events.t_events[0].size == 0 and with_events.t_events[1].size == 1
    assert abs(with_events.t_events[1][0] - tight.t_events[0][0]) < 1e-8
    adams = nh.simulate(model, (0, T), Y0, t_eval=T_OUT, events=crossing, method="adams")  # what auto ran
    assert np.abs(adams.q - tight.q).max() > 3 * np.abs(with_events.q - tight.q).max()
