"""A run with t_eval=[] has no samples (as solve_ivp's): every output is then empty, (n_t,) = (0,) per
contact or (contacts, 0), like ``result["x"]``. The contact outputs raised IndexError."""

import numpy as np
import pytest
from test_mechanism_contacts import cart, sliding_sideways

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
Y0 = [0, 0, 0, 1.0, 0, 0.4]
LAW = nh.laws.Coulomb(0.5, v_s=1e-3)
MODELS = {
    "nonholonomic": lambda: SLEIGH.nonholonomic(),
    "friction": lambda: SLEIGH.friction(1e-2),
    "reduced": lambda: SLEIGH.reduced(1e-2, order=2),
    "law": lambda: SLEIGH.friction(law=LAW, normal=1.0),
    "law reduced": lambda: SLEIGH.reduced(order=1, law=LAW, normal=1.0),
    "stick-slip": lambda: SLEIGH.stick_slip(0.5, normal=1.0),
}


@pytest.mark.parametrize("kind", MODELS)
def test_every_output_of_a_sleigh_without_samples_is_empty(kind):
    model = MODELS[kind]()
    run = nh.simulate(model, (0, 0.1), Y0, t_eval=[])
    assert run.t.shape == (0,) and run.y.shape == (6, 0)
    names = ["slip", "friction_force"] + (["normal_force"] if kind in ("law", "law reduced", "stick-slip") else [])
    for name in [*run.state_names, *names]:
        assert run[name].shape == (0,), name
    assert run.energy().shape == (0,)
    assert run.velocity.shape == (3, 0)


def test_the_outputs_of_two_contacts_without_samples():
    """A cart whose two wheels repeat the sideways row: per contact, (2, 0)."""
    system = cart(com=(0.0, 0.0, -0.1), normal_coefficient=1e6)
    run = nh.simulate(system.friction(0.1), (0, 0.1), sliding_sideways(), t_eval=[])
    assert run["y_dot"].shape == (0,)
    for name in ("slip", "friction_force"):
        assert run[name].shape == (2, 0), name
    law = system.friction(law=LAW, normal=[3.0, 3.0])
    run = nh.simulate(law, (0, 0.1), sliding_sideways(), t_eval=[])
    for name in ("slip", "friction_force", "normal_force"):
        assert run[name].shape == (2, 0), name
    # with samples, the same outputs have a column each: the slips of the two wheels alike (1, at rest on y)
    full = nh.simulate(system.friction(0.1), (0, 0.1), sliding_sideways(), t_eval=[0.0])
    np.testing.assert_allclose(full["slip"][:, 0], [1.0, 1.0], rtol=1e-12)
