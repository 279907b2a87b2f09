"""Every state of a model has a name of its own: a coordinate named like another's velocity, or like
one of a model's own states, is refused by name (it made one symbol of two, or r[name] read the
wrong row)."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh


def system(names, velocities=None):
    q = sp.symbols(names)
    return nh.System(q, sp.eye(3), constraints=sp.Matrix([[0, 1, q[0]]]), velocities=velocities)


def test_coordinate_named_like_a_default_velocity_is_refused():
    with pytest.raises(ValueError, match=r"the velocities \['x_dot'\] have the names of coordinates"):
        system(["x", "x_dot", "phi"])
    named = system(["x", "x_dot", "phi"], velocities=sp.symbols("v_x v_xd v_phi"))  # named by the user: fine
    assert named.nonholonomic().state_names == ["x", "x_dot", "phi", "v_x", "v_xd", "v_phi"]
    plain = system(["x", "y", "phi"])  # the default names
    run = nh.simulate(plain.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0])
    assert run["x_dot"][-1] == pytest.approx(1.0) and run["x"][-1] == pytest.approx(1.0)


@pytest.mark.parametrize("names, kind", [(["x", "u_x", "phi"], "reduced"), (["x", "y", "lambda_0"], "vakonomic")])
def test_coordinate_named_like_a_models_own_state_is_refused(names, kind):
    s = system(names)
    with pytest.raises(ValueError, match=f"the {kind} model of .* would name two states"):
        s.reduced(1e-3) if kind == "reduced" else s.vakonomic()
    assert s.nonholonomic().n_states == 6 and np.unique(s.friction(1e-3).state_names).size == 6


def test_the_lagrange_adapter_names_the_fix_it_has():
    """from_lagranges_method takes no velocities=: the message says to rename the coordinate."""
    x, xd = me.dynamicsymbols("x x_dot")
    m, k = sp.symbols("m k")
    lm = me.LagrangesMethod(m * (x.diff() ** 2 + xd.diff() ** 2) / 2 - k * (x**2 + 2 * xd**2) / 2, [x, xd])
    lm.form_lagranges_equations()
    with pytest.raises(ValueError, match="rename the coordinate"):
        nh.System.from_lagranges_method(lm, {m: 1.0, k: 1.0})
