"""Events on models whose state holds another velocity than q': the quasi-velocities of Kane's
speeds, a reduced model's u (q' = u + s adds the slip). A symbolic event g(t, q, q') sees the
physical velocity q', and the sensitivity of its time differentiates q' through the model's map
(the frame, the slip), not the state's own velocity block."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh
from nonholo.testing import kane_skate

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def sprung_skate():
    """The skate of nonholo.testing (speeds u1 forward in N.x and u3 = theta'; u2 dependent) with a
    torsion spring k and inertia J_z: theta' = w0 cos(omega t), omega = sqrt(k / J_z)."""
    k, F, Jz = sp.symbols("k F J_z")
    km, (push, torque) = kane_skate(1, Jz)
    theta = me.dynamicsymbols("theta")
    return nh.System.from_kanes_method(km, parameters={k: 2.0, F: 0.3, Jz: 0.5},
                                       specified={push: F, torque: -k * theta})


@pytest.mark.parametrize("event", ["theta_dot", "u3"])
def test_event_time_sensitivity_in_kanes_speeds_is_the_closed_form(sprung_skate, event):
    """Default model (Kane's speeds, state [x, y, theta, u1, u3]): theta' = 0 first at
    t* = (pi / 2) sqrt(J_z / k), so dt*/dk = -t* / (2 k), dt*/dJ_z = t* / (2 J_z), dt*/dF = 0.
    Before, the event's derivative read the 5 states as [q, q'] of 6 (past the end of the state)."""
    model = sprung_skate.nonholonomic()
    assert model.state_names == ["x", "y", "theta", "u1", "u3"]
    r = nh.simulate(model, (0, 1.5), [0, 0, 0, 1.0, 0.8], events=nh.Event(sp.Symbol(event)),
                    sensitivities=["k", "F", "J_z"], rtol=1e-10, atol=1e-12)
    t_star = np.pi / 2 * np.sqrt(0.5 / 2.0)
    np.testing.assert_allclose(r.t_events[0], [t_star], rtol=1e-8)
    np.testing.assert_allclose(r.t_events_sensitivities[0][0], [-t_star / 4.0, 0.0, t_star / 1.0], atol=1e-7)


@pytest.fixture(scope="module")
def sprung_knife():
    x, y, th = sp.symbols("x y theta")
    return nh.System([x, y, th], sp.diag(1, 1, 0.5), potential=x**2, constraints=[[sp.sin(th), -sp.cos(th), 0]])


@pytest.mark.parametrize("velocities", ["coordinates", "frame"])
def test_reduced_model_events_see_the_physical_velocity(sprung_knife, velocities):
    """Event(y' - 0.3) on the reduced model fires where its own reported y' (u + s) is 0.3, and at
    the friction model's times to the truncation's O(eps^4) (1e-4 at eps = 0.05). Before, it fired
    where the state's u_y was 0.3: 0.054 early, at every order."""
    eps, q0, u0 = 0.05, [0, 0, 0], [1, 0, 1]
    event = nh.Event(sp.Symbol("y_dot") - 0.3)
    friction = nh.simulate(sprung_knife.friction(eps), (0, 3),
                           np.r_[q0, sprung_knife.on_slow_manifold(q0, u0, eps, order=4)], events=event,
                           rtol=1e-11, atol=1e-12)
    model = sprung_knife.reduced(eps, order=3, velocities=velocities)
    reduced = nh.simulate(model, (0, 3), np.r_[q0, u0], events=event, rtol=1e-11, atol=1e-12)
    assert reduced.t_events[0].size == friction.t_events[0].size == 4
    np.testing.assert_allclose(reduced.t_events[0], friction.t_events[0], atol=2e-4)
    at_events = nh.simulate(model, (0, 3), np.r_[q0, u0], t_eval=reduced.t_events[0], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(at_events["y_dot"], 0.3, atol=1e-8)


@pytest.fixture(scope="module")
def sprung_sleigh():
    x, y, ph, m, inertia, a, k, c = sp.symbols("x y phi m I a k c")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(ph)], [0, m, m * a * sp.cos(ph)],
                   [-m * a * sp.sin(ph), m * a * sp.cos(ph), inertia + m * a**2]])
    return nh.System([x, y, ph], G, potential=k * ph**2 / 2, constraints=sp.Matrix([[-sp.sin(ph), sp.cos(ph), 0]]),
                     force=sp.Matrix([0, 0, -c * sp.Symbol("phi_dot")]),
                     parameters={m: 1.3, inertia: 0.7, a: 0.25, k: 0.8, c: 0.15})


@pytest.mark.parametrize("velocities", ["coordinates", "frame"])
def test_reduced_model_event_time_sensitivity_agrees_with_differences(sprung_sleigh, velocities):
    """dt*/dk of Event(phi' - 0.3 phi) on the reduced model of order 2, in both forms, against a
    central difference of the event times (the frame form's was -1 against -0.65, with the wrong sign
    for this event)."""
    model = sprung_sleigh.reduced(1e-2, order=2, velocities=velocities)
    y0 = [0.1, -0.2, 0.3, np.cos(0.3) * 1.1, np.sin(0.3) * 1.1, 0.6]
    event = nh.Event(sp.Symbol("phi_dot") - 0.3 * sp.Symbol("phi"))
    r = nh.simulate(model, (0, 6), y0, events=event, sensitivities=["k"], rtol=1e-10, atol=1e-12)
    h = 1e-6
    up, down = (nh.simulate(model, (0, 6), y0, events=event, params={"k": 0.8 + s}, rtol=1e-12, atol=1e-14)
                for s in (h, -h))
    assert r.t_events[0].size == 2
    np.testing.assert_allclose(r.t_events_sensitivities[0][:, 0], (up.t_events[0] - down.t_events[0]) / (2 * h),
                               atol=2e-6)
