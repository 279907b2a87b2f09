"""Contacts at the edge of their cone: no load (normal = 0) and no need (no gravity)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, G, ALPHA = 2.0, 9.81, 0.3


def test_stick_slip_without_load_slides_frictionless_without_a_warning():
    x, y, phi = sp.symbols("x y phi")
    block = nh.System([x, y, phi], sp.diag(M, M, 1.0), potential=-M * G * np.sin(ALPHA) * x,
                      constraints=sp.Matrix([[1, 0, 0], [0, 1, 0]]), contacts=[[0, 1]])
    # pytest turns warnings into errors: the choice of the contact to release divided by its zero cone
    for normal in (0.0, M * G * np.cos(ALPHA)):
        run = nh.simulate(block.stick_slip(0.2, normal=normal), (0, 1), np.zeros(6), t_eval=[1.0])
        mu = 0.2 if normal else 0.0
        assert run["x_dot"][-1] == pytest.approx(G * (np.sin(ALPHA) - mu * np.cos(ALPHA)), rel=1e-7)


def test_margin_at_zero_without_load_is_called_the_edge_of_the_cone():
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, (0.4, 0.4, 0.4)), nh.contact.Sphere(1.0), gravity=0)
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], [0, 1, 0])
    with pytest.warns(nh.SimulationWarning, match="on the edge of its cone") as caught:
        nh.simulate(ball.nonholonomic(), (0, 1), y0, events=nh.Event(ball.friction_margin(0.3)))
    assert not any("needs more friction" in str(w.message) for w in caught)


def test_a_rolling_speed_for_a_law_without_one_is_refused_by_name():
    """Coulomb's force is one of the slip alone: a speed= given to it was accepted and stopped the run
    where the speed reached zero (t = 0.92 for a car braking through standstill), with a tire's
    message; the friction and the reduced model now refuse it, and run without it."""
    x, y, psi = sp.symbols("x y psi")
    xd, yd = sp.symbols("x_dot y_dot")
    car = nh.System([x, y, psi], sp.diag(1500.0, 1500.0, 2500.0), velocities=[xd, yd, sp.Symbol("psi_dot")],
                    constraints=sp.Matrix([[-sp.sin(psi), sp.cos(psi), -1.4], [-sp.sin(psi), sp.cos(psi), 1.2]]))
    forward = sp.cos(psi) * xd + sp.sin(psi) * yd
    law = nh.laws.Coulomb(0.8, v_s=0.01)
    for build in (car.friction, car.reduced):
        with pytest.raises(ValueError, match="speed: the coulomb law does not depend on a rolling speed"):
            build(law=law, normal=7000.0, speed=[forward, forward])
    braked = car.with_force(sp.Matrix([-3000 * sp.cos(psi) * forward, -3000 * sp.sin(psi) * forward, 0]))
    run = nh.simulate(braked.friction(law=law, normal=7000.0), (0, 3), [0, 0, 0, 3.0, 0, 0])
    assert run.success and run.t[-1] == 3.0
