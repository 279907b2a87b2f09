"""In a string expression every name is a symbol, matched by name, but pi and oo: a parameter named
E was read as Euler's number (a spring E x^2 / 2 with E = 100 oscillated at sqrt(e), and
params={"E": 400} changed nothing), and "I*phi_dot" as the imaginary unit (refused as complex)."""

import numpy as np
import sympy as sp

import nonholo as nh

x, y, E, I = sp.symbols("x y E I")


def test_a_parameter_named_E_in_a_string_is_the_parameter():
    spring = nh.System([x, y], sp.eye(2), potential="E*x**2/2", parameters={E: 100})
    for params, omega in [(None, 10.0), ({"E": 400}, 20.0)]:
        run = nh.simulate(spring.nonholonomic(), (0, 1), [1, 0, 0, 0], t_eval=[1], params=params, rtol=1e-10,
                          atol=1e-12)
        np.testing.assert_allclose(run["x"], np.cos(omega), atol=1e-7)


def test_I_is_a_symbol_and_pi_the_constant():
    wheel = nh.System([x, y], sp.diag(1, I), potential="(1 - cos(pi*x))", parameters={I: 2.0})
    assert wheel.potential == 1 - sp.cos(sp.pi * x)
    run = nh.simulate(wheel.nonholonomic(), (0, 2), [0, 0, 0, 0.5], events=nh.Event("I*y - 0.5"))  # I y = t
    np.testing.assert_allclose(run.t_events[0], [0.5], rtol=1e-9)
