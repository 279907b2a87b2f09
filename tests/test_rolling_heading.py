"""result["heading"] of a rolling body keeps the turns made between samples far apart.

A disc in steady circular rolling at lean 1 rad turns its heading at Omega = 4 rad/s: +40 rad over 10 s.
Sampled once a second (4 rad between samples, more than pi), numpy's unwrap of the samples chose the wrong
branch at every step and gave -22.8 rad. A Chaplygin ball spinning on the spot at 5 rad/s (the heading of its
body x axis) likewise."""

import numpy as np
import pytest

import nonholo as nh
from nonholo.bodies import quaternion_from_matrix
from nonholo.contact import rolling_state


def circling_disc(lean: float = 1.0, Omega: float = 4.0):
    """The built-in disc (m = r = 1, A = 1/4, C = 1/2) in steady circling: the spin about its axis from the
    balance of the gyroscopic and gravity moments, w3 = (A Omega sin(lean) - m g r tan(lean) / Omega) / (C + m r^2)."""
    m, r, A, C, g = 1.0, 1.0, 0.25, 0.5, 9.81
    disc = nh.systems.rolling_disc()
    axis = np.array([np.cos(lean), 0, np.sin(lean)])
    ex = np.array([0, 1.0, 0])
    R = np.column_stack([ex, axis, np.cross(ex, axis)])
    w3 = (A * Omega * np.sin(lean) - m * g * r * np.tan(lean) / Omega) / (C + m * r * r)
    body_rate = R.T @ (Omega * np.array([0, 0, 1.0]) + (w3 - Omega * np.sin(lean)) * axis)
    return disc, rolling_state(disc, quaternion_from_matrix(R), body_rate)


@pytest.mark.parametrize("samples", [11, 21, 1001])
def test_the_heading_of_a_circling_disc_turns_40_rad_in_10_s(samples):
    disc, y0 = circling_disc()
    run = nh.simulate(disc.nonholonomic(), (0, 10), y0, t_eval=np.linspace(0, 10, samples))
    heading = run["heading"]
    np.testing.assert_allclose(heading - heading[0], 4.0 * run.t, atol=1e-6)


def test_the_heading_of_a_spinning_ball_sampled_once_a_second():
    ball = nh.systems.chaplygin_ball()
    y0 = rolling_state(ball, [1, 0, 0, 0], [0, 0, 5.0])
    run = nh.simulate(ball.nonholonomic(), (0, 10), y0, t_eval=np.linspace(0, 10, 11))
    np.testing.assert_allclose(run["heading"], 5.0 * run.t, atol=1e-6)
    # without the times (a caller of the output itself) it is numpy's unwrap of the samples
    heading = ball.outputs["heading"](run.q, run.velocity, run._system_params())
    np.testing.assert_allclose(heading, np.unwrap(np.angle(np.exp(5j * run.t))), atol=1e-6)
