"""A normal load or a rolling speed given as a 0-d NumPy array (np.array(9.81)) is one value, as a
NumPy scalar is: friction(law=...), stick_slip, friction_margin and reduced(law=...) raised
TypeError: len() of unsized object. An array of more dimensions is refused by name."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

MU, N = 0.5, 9.81


def block(force=0):
    x, y = sp.symbols("x y")
    return nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[1, 0]]), force=sp.Matrix([force, 0]))


def test_a_block_sliding_to_rest_under_a_0d_load():
    """Coulomb's force mu N stops a unit mass from speed 1 at t = 1/(mu N), after 1/(2 mu N)."""
    run = nh.simulate(block().stick_slip(np.array(MU), normal=np.array(N)), (0, 1), [0, 0, 1, 0])
    assert [s[1:] for s in run.switches] == [("slip", "stick")]
    np.testing.assert_allclose(run.switches[0][0], 1 / (MU * N), rtol=1e-7)
    np.testing.assert_allclose(run["x"][-1], 1 / (2 * MU * N), rtol=1e-7)


def test_the_margin_of_a_stuck_block_under_a_0d_load():
    """A block held by its constraint against a force 2 needs the force 2: the margin is mu N - 2."""
    system = block(2)
    margin = system.friction_margin(MU, normal=np.array(N))
    run = nh.simulate(system.nonholonomic(), (0, 1), [0, 0, 0, 0.3], t_eval=[0, 0.5, 1])
    np.testing.assert_allclose(margin.of(run), MU * N - 2, rtol=1e-12)
    np.testing.assert_allclose(margin.value([0, 0], [0, 0.3]), MU * N - 2, rtol=1e-12)


@pytest.mark.parametrize("load", [np.array(N), np.float32(N), [np.array(N)]], ids=["0d", "float32", "list of 0d"])
def test_a_law_under_a_0d_load_is_the_law_under_the_number(load):
    """Coulomb's law regularized at v_s: the same model as normal=9.81."""
    law = nh.laws.Coulomb(MU, v_s=1e-3)
    y0 = [0, 0, 1.0, 0]
    expected = nh.simulate(block().friction(law=law, normal=N), (0, 0.1), y0, t_eval=[0.1])
    run = nh.simulate(block().friction(law=law, normal=load), (0, 0.1), y0, t_eval=[0.1])
    np.testing.assert_allclose(run.y, expected.y, rtol=1e-6 if isinstance(load, np.float32) else 1e-14)
    # far above v_s the force is mu N: the speed falls linearly
    np.testing.assert_allclose(run["x_dot"], 1 - MU * N * 0.1, rtol=1e-6)
    reduced = block().reduced(order=1, law=law, normal=load)
    assert reduced is not None


def test_a_0d_rolling_speed():
    law = nh.laws.MagicFormula(10, 1.9, 1.0)
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = [0, 0, 0, 1.0, 0.01, 0.2]
    expected = nh.simulate(sleigh.friction(law=law, normal=1.0, speed=2.0), (0, 0.5), y0, t_eval=[0.5])
    run = nh.simulate(sleigh.friction(law=law, normal=np.array(1.0), speed=np.array(2.0)), (0, 0.5), y0,
                      t_eval=[0.5])
    np.testing.assert_allclose(run.y, expected.y, rtol=1e-14)


@pytest.mark.parametrize("what", ["normal", "speed"])
def test_an_array_of_two_dimensions_is_refused_by_name(what):
    law = nh.laws.MagicFormula(10, 1.9, 1.0)
    kwargs = {"normal": 1.0, "speed": 2.0, what: np.array([[1.0]])}
    with pytest.raises(ValueError, match=what):
        nh.systems.chaplygin_sleigh().friction(law=law, **kwargs)
