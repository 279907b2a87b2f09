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
    with pytest.raises(ValueError, match=r"law: the coulomb law at the parameters mu = -0.3: mu must be positive"):
        nh.simulate(model, (0, 2), Y0, params={"mu": -0.3})
    with pytest.raises(ValueError, match=r"mu = -0.3"):
        model.rhs(0.0, Y0, params={"mu": -0.3})
    again = nh.simulate(model, (0, 2), Y0, params={"mu": 0.5})  # a refused run leaves nothing behind
    assert again.success and energy(again)[-1] < energy(again)[0]


def test_a_law_negative_at_the_systems_values_is_refused_when_built():
    with pytest.raises(ValueError, match=r"coulomb law at the parameters mu = 0.3: mu must be positive, got -4.7"):
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
    with pytest.raises(ValueError, match=r"mu = -0.2: mu must be positive"):
        moved.param_vector()


def test_a_built_in_laws_own_checks_hold_at_a_runs_values():
    """A second probe: Coulomb(mu, v_s) with a symbolic v_s crashed friction() (AttributeError: 'float' object has
    no attribute 'is_number'); Stribeck run at mu_k = -0.1 was accepted and pumped energy in (the sign check
    sampled slips up to v_s, where the coefficient is still positive); a run at v_s = 0 ran 500,000 steps and
    blamed the coordinates, MagicFormula's D = 0 raised "Cannot convert complex to float". A built-in law's
    constructor checks its numbers at the run's values, and the sign check samples slips up to 100 v_s."""
    v_s, mu_k, D = sp.symbols("v_s mu_k D")
    sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                       parameters={mu: 0.3, v_s: 0.05, mu_k: 0.2, D: 1.0})
    coulomb = sleigh.friction(law=nh.laws.Coulomb(mu, v_s), normal=9.81)
    assert nh.simulate(coulomb, (0, 1), Y0).success
    with pytest.raises(ValueError, match=r"law: the coulomb law at the parameters .*v_s = 0: v_s must be positive"):
        nh.simulate(coulomb, (0, 1), Y0, params={"v_s": 0.0})
    stribeck = sleigh.friction(law=nh.laws.Stribeck(0.7, mu_k, v_s), normal=9.81)
    run = nh.simulate(stribeck, (0, 1), Y0)
    assert run.success and run.energy()[-1] < run.energy()[0]
    with pytest.raises(ValueError, match=r"mu_k = -0.1"):
        nh.simulate(stribeck, (0, 1), Y0, params={"mu_k": -0.1})
    tire = nh.laws.Law(-D * sp.Symbol("N") * sp.tanh(sp.Symbol("s") / 0.1), slip=sp.Symbol("s"),
                       normal=sp.Symbol("N"), scale=0.1 / D)
    model = sleigh.friction(law=tire, normal=9.81)
    with pytest.raises(ValueError, match=r"D = 0: its scale 0.1/D is zoo there"):
        nh.simulate(model, (0, 1), Y0, params={"D": 0.0})
    with pytest.raises(ValueError, match=r"D = -1: .*must be positive and finite|D = -1: expr must oppose"):
        nh.simulate(model, (0, 1), Y0, params={"D": -1.0})
    assert nh.simulate(model, (0, 1), Y0, params={"D": 2.0}).success


def test_a_tire_law_with_parameters_runs_its_constructors_checks_at_a_runs_values():
    """A second probe: MagicFormula and Brush with coefficients as parameters skipped their constructors' checks
    at a run's values (only Viscous, Coulomb and Stribeck kept their arguments): C = 2.5 got the general 'expr must
    oppose the slip', E = 1.01 ran, mu_b = 0 stopped at t = 0 with a right-hand side not finite, c_b = 1e300 too,
    printing 54 warnings. Each is now the constructor's own message, naming the parameters and their values."""
    C, E, c, mu_b = sp.symbols("C E c mu_b")
    tires = SLEIGH.with_parameters({"C": 1.3, "E": 0.0, "c": 8.0, "mu_b": 0.9}, new=True)
    speed = sp.cos(phi) * sp.Symbol("x_dot") + sp.sin(phi) * sp.Symbol("y_dot")
    magic = tires.friction(law=nh.laws.MagicFormula(10.0, C, 0.9, E), normal=9.81, speed=speed)
    brush = tires.friction(law=nh.laws.Brush(c, mu_b), normal=9.81, speed=speed)
    start = [0, 0, 0, 1.0, 0.0, 0.5]
    for model in (magic, brush):  # the default: the system's values run
        assert nh.simulate(model, (0, 1), start).success
    for model, params, match in ((magic, {"C": 2.5}, r"C = 2.5 \(with B = 10, E = 0\) turns the force"),
                                 (magic, {"E": 1.01}, r"E must be at most 1 .* got 1.01"),
                                 (brush, {"mu_b": 0.0}, r"mu must be positive, got 0"),
                                 (brush, {"c": 1e300}, r"c = 1e\+300 is too large")):
        with pytest.raises(ValueError, match=rf"law: the (magic formula|brush) law at the parameters .*{match}"):
            nh.simulate(model, (0, 1), start, params=params)
    with pytest.raises(ValueError, match="written for contacts of 1 slip component"):
        nh.laws.MagicFormula(10.0, C, 0.9).for_rows(2)
