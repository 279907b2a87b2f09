"""The README's claim on a friction run started off the slow manifold (at a velocity in D): in q it
is O(eps^2) from the reduced models of order K >= 1 started at the same state, whatever K, and O(eps)
from the nonholonomic model (the base point of its fast fibre is shifted by O(eps^2))."""

import numpy as np

import nonholo as nh
from nonholo.testing import loglog_slope


def test_friction_started_in_D_is_order_eps_squared_in_q_from_every_reduced_model():
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    y0 = [0, 0, 0, -1.5, 0, 1.0]  # the README's start: the velocity lies in D
    t, opts = np.linspace(0, 10, 101), dict(rtol=1e-11, atol=1e-13)
    ideal = nh.simulate(sleigh.nonholonomic(), (0, 10), y0, t_eval=t, **opts)
    eps_values = [1.6e-2, 8e-3, 4e-3]
    errors = {K: [] for K in (0, 1, 2, 3)}
    for eps in eps_values:
        slippy = nh.simulate(sleigh.friction(eps), (0, 10), y0, t_eval=t, **opts)
        errors[0].append(np.abs(slippy.q - ideal.q).max())
        for K in (1, 2, 3):
            reduced = nh.simulate(sleigh.reduced(eps, order=K), (0, 10), y0, t_eval=t, **opts)
            errors[K].append(np.abs(slippy.q - reduced.q).max())
    assert abs(loglog_slope(eps_values, errors[0]) - 1) < 0.15
    for K in (1, 2, 3):
        assert abs(loglog_slope(eps_values, errors[K]) - 2) < 0.15, (K, errors[K])
        assert errors[K][-1] < errors[0][-1] / 100


def test_reduced_started_at_the_fibre_base_is_order_eps_cubed_after_the_layer():
    """The README: started at ``fibre_base`` (default order), the reduced models of order 2 and 3 are
    O(eps^3) from the friction run once its initial layer has passed (t >= 1 here); over the whole run
    the distance is the base point's O(eps^2) shift itself, at t = 0."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    q0, u0 = [0, 0, 0], [-1.5, 0, 1.0]
    t, opts = np.linspace(0, 10, 101), dict(rtol=1e-12, atol=1e-14)
    late = t >= 1
    eps_values = [1.6e-2, 8e-3, 4e-3]
    after, shift = {2: [], 3: []}, []
    for eps in eps_values:
        slippy = nh.simulate(sleigh.friction(eps), (0, 10), [*q0, *u0], t_eval=t, **opts)
        qb, ub = sleigh.fibre_base(q0, u0, eps)
        shift.append(np.abs(qb - q0).max())
        for K in (2, 3):
            reduced = nh.simulate(sleigh.reduced(eps, order=K), (0, 10), np.r_[qb, ub], t_eval=t, **opts)
            gap = np.abs(slippy.q - reduced.q)
            after[K].append(gap[:, late].max())
            assert gap.max() < 1.01 * shift[-1]  # the largest distance: the shift, at t = 0
    assert abs(loglog_slope(eps_values, shift) - 2) < 0.15
    for K in (2, 3):
        assert abs(loglog_slope(eps_values, after[K]) - 3) < 0.2, (K, after[K])
