"""A friction law whose coefficient is a parameter is checked where it is used: at the system's values when
the friction model is built, and at a run's values. An outside probe's sleigh on Coulomb(mu, 0.01) run with
params={"mu": -0.3} gained energy 56-fold (0.196 -> 10.99 over 2 s) with no word, and Coulomb(mu - 5, 0.01)
(-4.7 at the defaults) was accepted; Coulomb(-0.3, 0.01) was refused."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, phi, mu = sp.symbols("x y phi mu")
G = sp.Matrix([[1, 0, -0.3 * sp.sin(phi)], [0, 1, 0.3 * sp.cos(phi)],
               [-0.3 * sp.sin(phi), 0.3 * sp.cos(phi), 0.2 + 0.09]])
SLEIGH = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]), parameters={mu: 0.3})
Y0 = [0, 0, 0, 0.5, 0.2, 0.4]


def energy(run):
    return run.energy()


def test_a_negative_coefficient_at_a_runs_values_is_refused_naming_it():
    model = SLEIGH.friction(law=nh.laws.Coulomb(mu, 0.01), normal=9.81)
    run = nh.simulate(model, (0, 2), Y0)  # the default: mu = 0.3 dissipates
    e = energy(run)
    assert run.success and e[-1] < e[0]
    with pytest.raises(ValueError, match=r"law: the coulomb law at the parameters mu = -0.3: expr must oppose"):
        nh.simulate(model, (0, 2), Y0, params={"mu": -0.3})
    with pytest.raises(ValueError, match=r"mu = -0.3"):
        model.rhs(0.0, Y0, params={"mu": -0.3})
    again = nh.simulate(model, (0, 2), Y0, params={"mu": 0.5})  # a refused run leaves nothing behind
    assert again.success and energy(again)[-1] < energy(again)[0]


def test_a_law_negative_at_the_systems_values_is_refused_when_built():
    with pytest.raises(ValueError, match=r"coulomb law at the parameters mu = 0.3: expr must oppose"):
        SLEIGH.friction(law=nh.laws.Coulomb(mu - 5, 0.01), normal=9.81)
    with pytest.raises(ValueError, match=r"(?i)stribeck law at the parameters mu = 0.3"):
        SLEIGH.friction(law=nh.laws.Stribeck(mu - 1, 0.1, 0.01), normal=9.81)
    assert SLEIGH.friction(law=nh.laws.Stribeck(mu, 0.1, 0.01), normal=9.81) is not None


def test_a_sweep_over_other_parameters_checks_each_law_once():
    m = sp.Symbol("m")
    sleigh = nh.System([x, y, phi], G * m, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                       parameters={mu: 0.3, m: 1.0})
    law = nh.laws.Coulomb(mu, 0.01)
    model = sleigh.friction(law=law, normal=9.81)
    for mass in (1.0, 2.0, 3.0):
        model.rhs(0.0, Y0, params={"m": mass})
    assert law._checked_values == {(0.3,)}
    np.testing.assert_array_equal(model.rhs(0.0, Y0), model.rhs(0.0, Y0, params={"mu": 0.3}))


def test_defaults_moved_by_with_parameters_are_checked_too():
    model = SLEIGH.friction(law=nh.laws.Coulomb(mu, 0.01), normal=9.81)
    moved = model.system.with_parameters({"mu": -0.2})
    with pytest.raises(ValueError, match=r"mu = -0.2: expr must oppose"):
        moved.param_vector()
