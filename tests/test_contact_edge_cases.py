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
