"""The reduced models use the friction coefficients mu: with a constant mu = c I the linear law
-(1/eps) A^T mu A v is that of mu = I at eps / c, so reduced(eps) of the first is reduced(eps / c) of
the second, to rounding. Before, a system without parameters had its mu taken as already factored
on a fresh workspace (the cache's key, the empty parameter vector, matched): mu = 100 I ran as I."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, ph = sp.symbols("x y phi")


def sleigh(friction, a=0.2, parameters=None):
    G = sp.Matrix([[1, 0, -a * sp.sin(ph)], [0, 1, a * sp.cos(ph)], [-a * sp.sin(ph), a * sp.cos(ph), 1 + a**2]])
    return nh.System([x, y, ph], G, constraints=[[-sp.sin(ph), sp.cos(ph), 0]], friction=friction,
                     parameters=parameters)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("velocities", ["coordinates", "frame"])
@pytest.mark.parametrize("with_parameters", [False, True])
def test_a_constant_friction_coefficient_scales_eps(order, velocities, with_parameters):
    a = sp.Symbol("a") if with_parameters else 0.2
    params = {a: 0.2} if with_parameters else None
    y0, opts = [0, 0, 0, 1, 0, 1], dict(t_eval=[1.0, 2.0], rtol=1e-11, atol=1e-13)
    scaled = nh.simulate(sleigh(100.0, a, params).reduced(1e-2, order=order, velocities=velocities), (0, 2), y0, **opts)
    unit = nh.simulate(sleigh(1.0, a, params).reduced(1e-4, order=order, velocities=velocities), (0, 2), y0, **opts)
    np.testing.assert_allclose(scaled.y, unit.y, rtol=0, atol=1e-9)
    plain = nh.simulate(sleigh(1.0, a, params).reduced(1e-2, order=order, velocities=velocities), (0, 2), y0, **opts)
    assert np.abs(plain.y - unit.y).max() > 1e-3  # what mu = 100 ran as before


def test_the_reduced_model_follows_the_friction_model_with_its_coefficients():
    system = sleigh(100.0)
    u0, eps = [1.0, 0.0, 1.0], 1e-2
    start = np.r_[0, 0, 0, system.on_slow_manifold([0, 0, 0], u0, eps, order=3)]
    friction = nh.simulate(system.friction(eps), (0, 2), start, t_eval=[2.0], rtol=1e-11, atol=1e-13)
    reduced = nh.simulate(system.reduced(eps, order=2), (0, 2), [0, 0, 0, *u0], t_eval=[2.0], rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(reduced.y[:3], friction.y[:3], atol=1e-9)  # O((eps / 100)^3)
