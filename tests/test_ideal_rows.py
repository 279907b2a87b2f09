"""Constraint rows that no friction realizes: a System whose contacts leave a row out keeps it as an
ideal constraint in stick-slip runs and friction margins; built-in systems whose rows are one
physical contact group them, so that their cone bounds the force's magnitude at every heading."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.ball_on_turntable import ball_state

M, R, I, J, K, G, MU, C = 1.0, 0.5, 0.0625, 0.125, 0.2, 9.81, 0.3, 2.0


def geared_disk(contacts):
    """A vertical disk rolling on a plane, braked by a torque -C t, that drives through an ideal gear
    an odometer wheel of inertia K: s' = R phi' is a joint, no contact."""
    theta, x, y, phi, s, t = sp.symbols("theta x y phi s t")
    A = sp.Matrix([[0, 1, 0, -R * sp.cos(theta), 0], [0, 0, 1, -R * sp.sin(theta), 0], [0, 0, 0, -R, 1]])
    return nh.System([theta, x, y, phi, s], sp.diag(I, M, M, J, K), constraints=A, time=t,
                     force=sp.Matrix([0, 0, 0, -C * t, 0]), contacts=contacts, name="geared disk")


def test_a_row_left_out_of_the_contacts_is_held_in_every_mode():
    disk = geared_disk([[0, 1]])
    w0, heading = 8.0, 0.7
    y0 = [heading, 0, 0, 0, 0, 0, R * np.cos(heading) * w0, R * np.sin(heading) * w0, w0, R * w0]
    # rolling: (m R^2 + J + K R^2) phi'' = -C t, the contact's force m R |phi''| reaches mu m g at
    onset = MU * G * (M * R**2 + J + K * R**2) / (R * C)
    run = nh.simulate(disk.stick_slip(MU, normal=M * G), (0, 5), y0, rtol=1e-11, atol=1e-13)
    assert len(run.switches) >= 1 and run.switches[0][0] == pytest.approx(onset, rel=1e-7)
    gear = run.v[4] - R * run.v[3]  # the joint holds through the slip that follows
    assert np.abs(gear).max() < 1e-8 * np.abs(run.v[4]).max()
    margin = nh.simulate(disk.nonholonomic(), (0, 5), y0, rtol=1e-11, atol=1e-13,
                         events=nh.Event(disk.friction_margin(MU, normal=M * G), terminal=True))
    assert margin.t_events[0][0] == pytest.approx(onset, rel=1e-7)
    # a row twice, or a row that does not exist, is still refused by name
    for bad in ([[0, 1], [1]], [[0, 3]]):
        with pytest.raises(ValueError, match="contacts must group each of the 3 constraint rows in at most one"):
            geared_disk(bad)


@pytest.mark.parametrize("heading", [0.0, np.pi / 4])
def test_vertical_rolling_disk_has_one_round_cone_by_default(heading):
    """One contact of two rows: the brake's onset does not depend on the heading (it came sqrt(2)
    late at pi/4 with a square cone of one row per world axis)."""
    disk = nh.systems.vertical_rolling_disk(m=M, R=R, I=I, J=J).with_force(sp.Matrix([0, 0, 0, -C * sp.Symbol("t")]))
    w0 = 8.0
    y0 = [heading, 0, 0, 0, 0, R * np.cos(heading) * w0, R * np.sin(heading) * w0, w0]
    onset = MU * M * G * (M * R**2 + J) / (M * R * C)
    run = nh.simulate(disk.stick_slip(MU, normal=M * G), (0, 5), y0, rtol=1e-11, atol=1e-13)
    assert run.switches[0][0] == pytest.approx(onset, rel=1e-7)


def test_ball_on_turntable_quaternion_row_is_no_contact():
    """A ball at rest on a table turning at Omega: its centre circles at 2/7 Omega and the friction
    force is constant, (2/7) m Omega^2 x0, below mu m g: it rolls for ever, and its margin is constant.
    The quaternion's row q . q' = 0 had a cone of its own, which 'slipped' at t = 0.83."""
    m, r, omega, x0, mu = 0.1, 0.02, 3.0, 0.3, 0.2
    ball = nh.systems.ball_on_turntable(m=m, r=r, Omega=omega, g=G)
    y0 = ball_state(ball, x0, 0.0, 0.0, omega * x0)
    rolling = nh.simulate(ball.nonholonomic(), (0, 2), y0, t_eval=[0, 1, 2], rtol=1e-11, atol=1e-13)
    margin = ball.friction_margin(mu, normal=m * G).of(rolling)
    np.testing.assert_allclose(margin, mu * m * G - 2 / 7 * m * omega**2 * x0, rtol=1e-8)
    run = nh.simulate(ball.stick_slip(mu, normal=m * G), (0, 2), y0, rtol=1e-10, atol=1e-12)
    assert run.switches == []
    np.testing.assert_allclose(run.q[:2, -1], rolling.q[:2, -1], atol=1e-7)
