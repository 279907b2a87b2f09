"""Every model pickles one way: as the factory call that made it (nonholo.system.recipes).

Unpickling makes the system (or frame) again and calls the same factory with the same arguments:
the model that comes back evaluates the same vector field, bit for bit, for every kind."""

import pickle

import numpy as np
import pytest

import nonholo as nh
from nonholo.models.model import Model

SLEIGH = nh.systems.chaplygin_sleigh()
FRAME = nh.frames.AnholonomicFrame(SLEIGH)

FACTORIES = {
    "nonholonomic": lambda: SLEIGH.nonholonomic(),
    "nonholonomic sparse": lambda: SLEIGH.nonholonomic(sparse=True),
    "friction": lambda: SLEIGH.friction(1e-3),
    "friction sparse": lambda: SLEIGH.friction(1e-3, sparse=True),
    "vakonomic": lambda: SLEIGH.vakonomic(),
    "reduced": lambda: SLEIGH.reduced(1e-2, order=2),
    "reduced auto": lambda: SLEIGH.reduced(1e-2, order="auto"),
    "reduced frame": lambda: SLEIGH.reduced(1e-2, order=1, velocities="frame"),
    "hamel": lambda: FRAME.hamel(),
    "frame vakonomic": lambda: FRAME.vakonomic(),
    "extended system": lambda: SLEIGH.with_force([0, 0, "0.3"]).friction(1e-2),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_a_model_comes_back_as_its_factory_made_it(name):
    model = FACTORIES[name]()
    back = pickle.loads(pickle.dumps(model))
    assert type(back) is type(model) and back.state_names == model.state_names
    owner, factory, args, kwargs = back.recipe
    assert (factory, args, kwargs) == model.recipe[1:]
    if model.recipe[3].get("order") == "auto":
        return  # the order is chosen at a run's initial state: no vector field before it
    y = np.random.default_rng(7).normal(size=model.n_states)
    np.testing.assert_array_equal(back.rhs(0.3, y), model.rhs(0.3, y))


def test_the_discrete_model_comes_back():
    model = SLEIGH.discrete(0.01)
    back = pickle.loads(pickle.dumps(model))
    assert back.h == 0.01 and back.recipe[1:] == ("discrete", (0.01,), {})
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    a, b = nh.simulate_discrete(model, (0, 0.5), y0), nh.simulate_discrete(back, (0, 0.5), y0)
    np.testing.assert_array_equal(a.y, b.y)


def test_the_order_chosen_by_a_run_is_kept_when_its_model_is_pickled():
    auto = SLEIGH.reduced(1e-2, order="auto")
    chosen = auto.truncated_at(0.0, [0, 0, 0, 1.0, 0, 0.5], tolerance=1e-8)
    back = pickle.loads(pickle.dumps(chosen))
    assert back.order == chosen.order and back.recipe[3]["order"] == chosen.order


def test_a_model_made_outside_a_factory_says_why_it_does_not_pickle():
    core = SLEIGH.friction(1e-3).core
    bare = Model(SLEIGH, "friction", core, {"eps": 1e-3})
    with pytest.raises(pickle.PicklingError, match="not made by a factory"):
        pickle.dumps(bare)
