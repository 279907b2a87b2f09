"""An event that crosses zero and back within one step of DOP853. An outside probe's oscillator
(x = cos t, y = sin t) with g = sqrt(1.0001 - y^2) - 0.05, which is below zero on (1.5217869, 1.6198057):
DOP853 stepped from 1.477 to 1.873 and reported neither crossing, status 0, no warning (the same crossings
written as 0.9976 - y^2 were found, as were both by Adams, BDF and auto). Where g's slopes at a step's
ends say |g| has a minimum inside, the step is now searched there."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, z = sp.symbols("x y z")
ROOTS = np.array([np.arcsin(np.sqrt(0.9976)), np.pi - np.arcsin(np.sqrt(0.9976))])


def oscillator():
    system = nh.System([x, y, z], sp.eye(3), potential=(x**2 + y**2) / 2, constraints=sp.Matrix([[0, 0, 1]]))
    return system.nonholonomic()


def start(t):
    return [np.cos(t), np.sin(t), 0, -np.sin(t), np.cos(t), 0]


@pytest.mark.parametrize("method", ["dop853", "auto", "adams"])
@pytest.mark.parametrize("direction, found", [(0, ROOTS), (-1, ROOTS[:1]), (1, ROOTS[1:])])
def test_both_crossings_of_a_dip_inside_a_step_are_found(method, direction, found):
    g = sp.sqrt(sp.Rational(10001, 10000) - y**2) - sp.Rational(5, 100)
    run = nh.simulate(oscillator(), (1.4, 2.5), start(1.4), events=nh.Event(g, direction=direction), method=method)
    assert run.success and run.t_events[0] == pytest.approx(found, abs=1e-7)
    # the same g as a callable
    run = nh.simulate(oscillator(), (1.4, 2.5), start(1.4), method=method,
                      events=_callable(lambda t, s: np.sqrt(1.0001 - s[1] ** 2) - 0.05, direction))
    assert run.t_events[0] == pytest.approx(found, abs=1e-7)


@pytest.mark.parametrize("options, within", [({}, 1e-6), ({"method": "dop853"}, 1e-7)])
def test_a_terminal_dip_stops_at_its_first_crossing_backward_too(options, within):
    """The default (Adams with events) stops 5e-7 from the backward root: g = sqrt(1.0001 - y^2) - 0.05 turns
    an error of y near 1 into 20 times that of g, so its roots hold only about 50 rtol in t; DOP853 runs at a
    tenth of rtol."""
    g = sp.sqrt(sp.Rational(10001, 10000) - y**2) - sp.Rational(5, 100)
    forward = nh.simulate(oscillator(), (1.4, 2.5), start(1.4), events=nh.Event(g, terminal=True), **options)
    assert forward.status == 1 and forward.t[-1] == pytest.approx(ROOTS[0], abs=within)
    backward = nh.simulate(oscillator(), (2.5, 1.4), start(2.5), events=nh.Event(g, terminal=True), **options)
    assert backward.status == 1 and backward.t[-1] == pytest.approx(ROOTS[1], abs=within)


def _callable(g, direction):
    g.direction = direction
    return g
