"""A custom Surface's support map is checked where a rolling body is built (an outside probe: a twisted map
and an inside-out one, -n, were accepted; the model of the first moved its 'contact' point vertically at up to
2.5 m/s, the second put the centre of mass below the plane it rolls on). A true support map moves its contact
point tangent to the surface and gives the surface's point farthest along n."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Surface, roll_on_plane, rolling_state

BODY = RigidBody(1.0, (0.4, 0.4, 0.4))


@pytest.mark.parametrize("support, words", [
    (lambda n: sp.Matrix([n[1], -n[0], n[2]]), "not tangent to the surface"),
    (lambda n: -n, "farther along n"),
    (lambda n: 2 * n + sp.Matrix([n[0] ** 2, 0, 0]), "not tangent"),
])
def test_a_map_that_is_no_support_map_is_refused(support, words):
    with pytest.raises(ValueError, match=words) as info:
        roll_on_plane(BODY, Surface(support, "custom"))
    assert "'custom'" in str(info.value)


def test_a_mechanism_checks_its_contacts_surfaces():
    from nonholo.multibody import Mechanism

    mech = Mechanism(BODY, name="ball")
    mech.roll_on_plane("ball", Surface(lambda n: -n, "inside out"))
    with pytest.raises(ValueError, match="'inside out'"):
        mech.system()


def test_a_custom_support_map_that_is_one_rolls_as_the_built_in_sphere():
    """r_c(n) = c + r n with the radius a parameter: accepted (checked at its value), and the same motion as
    Sphere(0.5, c)."""
    r = sp.Symbol("r")
    c = sp.Matrix([0.1, 0.0, -0.05])
    custom = roll_on_plane(BODY, Surface(lambda n: c + r * n, "mine"), parameters={r: 0.5})
    builtin = roll_on_plane(BODY, nh.contact.Sphere(0.5, c))
    q0 = [1, 0, 0, 0]
    a = nh.simulate(custom.nonholonomic(), (0, 2), rolling_state(custom, q0, omega=[0.3, 1, 2]))
    b = nh.simulate(builtin.nonholonomic(), (0, 2), rolling_state(builtin, q0, omega=[0.3, 1, 2]))
    np.testing.assert_allclose(a.y_final, b.y_final, atol=1e-7)
