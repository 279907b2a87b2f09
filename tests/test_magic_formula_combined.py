"""Pacejka's Magic Formula with combined slip (nh.laws.MagicFormula(..., rows=2)): the pure curves at
kappa = 0 and alpha = 0 in closed form, a force that opposes the slip and stays within the peaks at
random slips, and its arguments named when they are wrong."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

LATERAL, LONGITUDINAL = (10.0, 1.9, 1.0, 0.2), (12.0, 1.65, 1.1, -0.5)
WEIGHTS = (13.0, 9.7, 1.0, 10.6, 7.8, 1.0)
V = 5.0


def curve(B, C, D, E, x):
    return D * np.sin(C * np.arctan(B * x - E * (B * x - np.arctan(B * x))))


def largest_norm(law) -> float:
    """max |z| / N over all slips, by SciPy from many starts (independent of the law's own search)."""
    from scipy.optimize import minimize

    force = sp.lambdify(list(law.slip), list(law.expr.xreplace({law.normal: 1, law.speed: 1})), "numpy")

    def minus(x):  # x = (arctan kappa, alpha) at V = 1
        return -np.hypot(*force(-np.tan(x[0]), np.tan(x[1])))

    edge = np.pi / 2 - 1e-9
    starts = np.random.default_rng(0).uniform(-edge, edge, size=(40, 2))
    found = [minimize(minus, x0, method="L-BFGS-B", bounds=[(-edge, edge)] * 2) for x0 in starts]
    return -min(r.fun for r in found)


@pytest.fixture(scope="module")
def tire():
    return nh.laws.MagicFormula(*LATERAL, rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS)


@pytest.mark.parametrize("x", [1e-3, 0.1, -0.4, 2.0, -30.0])
def test_pure_slips_give_the_pure_curves(tire, x):
    N = 2.5
    z = tire([0.0, x], N=N, V=V)  # kappa = 0: the lateral curve of the slip angle, no longitudinal force
    np.testing.assert_allclose(z, [0.0, -N * curve(*LATERAL, np.arctan(x / V))], rtol=1e-13, atol=1e-15)
    single = nh.laws.MagicFormula(*LATERAL)  # the one-row law is the same lateral curve
    np.testing.assert_allclose(z[1], single([x], N=N, V=V)[0], rtol=1e-13)
    z = tire([x, 0.0], N=N, V=V)  # alpha = 0: the longitudinal curve of kappa = -s_x / V
    np.testing.assert_allclose(z, [N * curve(*LONGITUDINAL, -x / V), 0.0], rtol=1e-13, atol=1e-15)


def test_combined_slip_reduces_each_force_and_opposes_the_slip(tire):
    rng = np.random.default_rng(5)
    for _ in range(300):
        s = rng.normal(size=2) * 10 ** rng.uniform(-3, 1)
        z = tire(s, N=1.0, V=V)
        pure = np.abs([tire([s[0], 0.0], N=1.0, V=V)[0], tire([0.0, s[1]], N=1.0, V=V)[1]])
        assert np.all(np.abs(z) <= pure * (1 + 1e-12))  # the weights lie in (0, 1]
        assert z @ s <= 1e-12 * np.linalg.norm(z) * np.linalg.norm(s)
    assert np.all(np.abs(tire([0.3, 0.3], N=1.0, V=V)) < np.abs([tire([0.3, 0], N=1.0, V=V)[0],
                                                               tire([0, 0.3], N=1.0, V=V)[1]]))
    assert float(tire.saturation) > 1.1  # the norm exceeds both peaks (D = 1, Dx = 1.1) where both slips are large
    assert float(tire.saturation) == pytest.approx(largest_norm(tire), rel=1e-7)
    assert float(tire.scale.subs(tire.speed, 1)) == pytest.approx(1 / (12 * 1.65 * 1.1))
    f = tire([0.2, -0.1], N=1.0, V=V)
    np.testing.assert_allclose(tire.steady_slip(f, N=1.0, V=V), [0.2, -0.1], rtol=1e-10)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(rows=2), ValueError, "rows=2 needs longitudinal"),
    (dict(rows=2, longitudinal=(1, 1, 1), combined=WEIGHTS), TypeError, "longitudinal must be a sequence"),
    (dict(rows=2, longitudinal=(1, 1, -1, 0), combined=WEIGHTS), ValueError, "longitudinal's Dx must be positive"),
    (dict(rows=2, longitudinal=(1, 1, 1, 2), combined=WEIGHTS), ValueError, "Ex must be at most 1"),
    (dict(rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS[:5]), TypeError, "combined must be a sequence"),
    (dict(rows=2, longitudinal=LONGITUDINAL, combined=(1, -1, 1, 1, 0, 1)), ValueError, "r_Bx2 must be nonnegative"),
    (dict(rows=3, longitudinal=LONGITUDINAL, combined=WEIGHTS), ValueError, "rows must be 1"),
    (dict(longitudinal=LONGITUDINAL), ValueError, "rows=2"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        nh.laws.MagicFormula(*LATERAL, **kwargs)


def wheel():
    """A wheel on the plane with its spin: q = (x, y, theta, phi), the longitudinal row
    cos(theta) x' + sin(theta) y' - R phi' and the lateral row -sin(theta) x' + cos(theta) y', one
    contact."""
    x, y, th, ph = q = sp.symbols("x y theta phi")
    m, J, Jw, R = 2.0, 0.1, 0.02, 0.3
    A = sp.Matrix([[sp.cos(th), sp.sin(th), 0, -R], [-sp.sin(th), sp.cos(th), 0, 0]])
    return nh.System(list(q), sp.diag(m, m, J, Jw), constraints=A), m


def test_a_wheel_under_combined_slip_comes_to_rolling_and_its_reduced_model_follows(tire):
    system, m = wheel()
    model = system.friction(law=tire, normal=m * 9.81, speed=V, contacts=[[0, 1]])
    y0 = np.r_[0, 0, 0.2, 0, 5.0, 0.4, 0.3, 15.0]  # sliding forward and sideways, spinning too slowly
    run = nh.simulate(model, (0, 1.0), y0, t_eval=np.linspace(0, 1, 101), rtol=1e-10, atol=1e-12)
    assert run.success
    A, _ = system.constraint_matrix(run.y[:4, -1])
    q, v = run.y[:4, -1], run.y[4:, -1]
    slip = A @ v
    assert np.linalg.norm(slip) < 0.05 * np.linalg.norm(A @ y0[4:])  # the initial slip has decayed to creep
    # the creep that remains is the slow manifold's (the yaw rate needs a lateral force): order 1
    reduced = system.reduced(order=1, law=tire, normal=m * 9.81, speed=V, contacts=[[0, 1]])
    u = system.project(q, v)
    np.testing.assert_allclose(A @ reduced.slip(1.0, q, u), slip, rtol=1e-3, atol=1e-3 * np.linalg.norm(slip))
    energy = np.asarray(model.energy(run.t, run.y))
    assert np.all(np.diff(energy) <= 1e-9 * energy[0])  # friction dissipates


def test_saturation_is_the_largest_force_of_weakly_coupled_slips():
    """With weak combined-slip weights both components reach their peaks at once: |z| / N near sqrt(2),
    and steady_slip finds the slip of a force the law gives there (it refused it as 'outside the cone'
    when the saturation was max(D, Dx) = 1)."""
    weak = nh.laws.MagicFormula(10, 1.3, 1.0, 0, rows=2, longitudinal=(12, 1.6, 1.0, 0),
                                combined=(0.1, 0.0, 1.0, 0.1, 0.0, 1.0))
    assert float(weak.saturation) == pytest.approx(largest_norm(weak), rel=1e-7)
    z = weak([-4.0, 4.0], N=1.0, V=20.0)
    assert 1.3 < np.linalg.norm(z) <= float(weak.saturation)
    s = weak.steady_slip(0.99 * z, N=1.0, V=20.0)
    np.testing.assert_allclose(weak(s, N=1.0, V=20.0), 0.99 * z, rtol=1e-9)
    D = sp.Symbol("D", positive=True)  # symbolic factors: an upper bound
    assert nh.laws.MagicFormula(10, 1.3, D, 0, rows=2, longitudinal=(12, 1.6, 1.0, 0),
                                combined=WEIGHTS).saturation == sp.sqrt(D**2 + 1.0)


def test_weights_that_push_along_the_slip_are_refused():
    """C_xa = 3 turns the longitudinal force along the slip where both slips are large: z . s > 0 at
    s = (-0.75, 0.65), a tire that feeds energy in. The check sampled the axes and two random
    directions and let it through; it samples every 5 degrees now."""
    with pytest.raises(ValueError, match="expr must oppose the slip"):
        nh.laws.MagicFormula(10, 1.3, 1.0, 0, rows=2, longitudinal=(12, 1.6, 1.0, 0),
                             combined=(13, 9.7, 3.0, 10.6, 7.8, 1.0))
    tire = nh.laws.MagicFormula(*LATERAL, rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS)  # the default's kind
    assert tire([-0.75, 0.65], N=1.0, V=1.0) @ np.array([-0.75, 0.65]) < 0
