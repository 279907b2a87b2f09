"""A law's largest force: where the constraint force needs more, no slip carries it, and the slip
of the slow manifold is an error, not the slip at the law's peak. The sleigh's blade (m = I = 1,
a = 0.2) at q = 0, u = (1, 0, 1) needs lambda = m I u w / (I + m a^2) = 1 / 1.04, and its lateral
slip at q = 0 is law.scale h^(1)_y."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
Q, U = np.zeros(3), np.array([1.0, 0.0, 1.0])
NEEDED = 1.0 / 1.04


def stribeck_curve(mu_s, mu_k, delta, x):
    return (mu_k + (mu_s - mu_k) * np.exp(-x * x)) * x / np.sqrt(x * x + delta * delta)


@pytest.mark.parametrize("zero", [0, 0.0, np.float64(0.0), sp.Float(0), sp.Integer(0)])
def test_stribeck_without_viscous_friction_however_zero_is_written(zero):
    """An outside probe: viscous=0.0 (or np.float64(0.0), sp.Float(0)) gave saturation None and no disc
    range, where viscous=0 (and the default) gave the curve's peak, 0.495565 at mu_s 0.5, mu_k 0.3:
    SymPy's Float(0.0) != 0 is True. Every zero is now the law without the viscous term; a positive
    viscous coefficient still has no saturation."""
    default = nh.laws.Stribeck(0.5, 0.3, 0.1)
    law = nh.laws.Stribeck(0.5, 0.3, 0.1, viscous=zero)
    assert float(law.saturation) == float(default.saturation) == pytest.approx(0.495565087382, abs=1e-10)
    assert law.disc_range and default.disc_range
    viscous = nh.laws.Stribeck(0.5, 0.3, 0.1, viscous=0.2)
    assert viscous.saturation is None and not viscous.disc_range


@pytest.mark.parametrize("mu_s, mu_k, delta", [(0.5, 0.3, 0.01), (0.5, 0.3, 0.5), (0.3, 0.5, 0.01), (0.8, 0.1, 0.1)])
def test_stribeck_saturation_is_the_curves_peak(mu_s, mu_k, delta):
    """The largest |z| / N over the slips (a dense grid of the curve, and its limit mu_k), not
    max(mu_s, mu_k): the regularization takes off the top (0.99113 mu_s at the defaults)."""
    law = nh.laws.Stribeck(mu_s, mu_k, 0.01, regularization=delta)
    x = np.concatenate([np.geomspace(1e-8, 50.0, 400001)])
    peak = max(stribeck_curve(mu_s, mu_k, delta, x).max(), mu_k)
    np.testing.assert_allclose(float(law.saturation), peak, rtol=1e-9)
    assert float(law.saturation) <= max(mu_s, mu_k)
    sigma = np.array([0.01 * x[np.argmax(stribeck_curve(mu_s, mu_k, delta, x))]])
    assert abs(law(sigma, N=1.0)[0]) <= float(law.saturation) * (1 + 1e-12)


def test_stribeck_slip_below_its_peak_carries_the_force_and_above_it_is_an_error():
    law = nh.laws.Stribeck(0.5, 0.3, 0.01)
    peak = float(law.saturation)
    assert 0.4955 < peak < 0.4956
    N = NEEDED / (0.99 * peak)
    sigma = float(law.scale) * SLEIGH.slip(Q, U, 1, law=law, normal=N)[0][1]
    np.testing.assert_allclose(abs(law([sigma], N=N)[0]), NEEDED, rtol=1e-12)
    # 0.995 of max(mu_s, mu_k) N: above the curve's peak (the slip returned there missed by 3.7e-3)
    with pytest.raises(nh.ModelError, match="folds"):
        SLEIGH.slip(Q, U, 1, law=law, normal=NEEDED / (0.995 * 0.5))


def test_a_law_past_its_peak_has_no_slip():
    """A law that rises and falls, |z| <= N / 2 (at s = 0.01), with no saturation declared: at 1.2 and
    2 times its peak, Newton stalls at the peak, and the slip is an error (before: the peak's slip,
    carrying 0.80 and 0.48 of the force, and a reduced run to the end with status 0)."""
    s, N = sp.symbols("s N")
    x = s / 0.01
    law = nh.laws.Law(-0.5 * N * x * sp.exp((1 - x**2) / 2), slip=s, normal=N, scale=0.01)
    below = NEEDED / (0.5 * 0.9)
    sigma = 0.01 * SLEIGH.slip(Q, U, 1, law=law, normal=below)[0][1]
    np.testing.assert_allclose(abs(law([sigma], N=below)[0]), NEEDED, rtol=1e-12)
    np.testing.assert_allclose(abs(sigma), law.steady_slip([-NEEDED], N=below)[0], rtol=1e-10)
    for ratio in (1.2, 2.0):
        normal = NEEDED / (0.5 * ratio)
        with pytest.raises(nh.ModelError, match="no slip"):
            SLEIGH.slip(Q, U, 1, law=law, normal=normal)
        # the friction ratio, |f| over the law's own peak, is the ratio itself: the start is refused
        model = SLEIGH.reduced(order=1, law=law, normal=normal)
        np.testing.assert_allclose(model.friction_ratio(0.0, np.r_[Q, U]), [ratio], rtol=1e-10)
        with pytest.raises(nh.ModelError, match=f"y0: the friction ratio .* is {ratio:g} at the start"):
            nh.simulate(model, (0, 1), np.r_[Q, U])
