"""Friction laws as values (nonholo.laws): each law against its closed form and its defining properties."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

RNG = np.random.default_rng(11)
LAWS = {
    "viscous": (nh.laws.Viscous(0.7, 1e-3, rows=2), {}),
    "coulomb": (nh.laws.Coulomb(0.6, v_s=1e-3, rows=2), {"N": 9.0}),
    "stribeck": (nh.laws.Stribeck(0.6, 0.4, 0.01, rows=2), {"N": 9.0}),
    "stribeck viscous": (nh.laws.Stribeck(0.6, 0.4, 0.01, viscous=2.0), {"N": 9.0}),
    "magic formula": (nh.laws.MagicFormula(10.0, 1.9, 1.0, 0.97), {"N": 3000.0, "V": 15.0}),
    "brush": (nh.laws.Brush(8.0, 0.9), {"N": 3000.0, "V": 15.0}),
}


@pytest.mark.parametrize("name", LAWS)
def test_every_law_opposes_the_slip_and_stays_in_its_cone(name):
    law, load = LAWS[name]
    for _ in range(40):
        s = RNG.normal(size=law.rows) * 10.0 ** RNG.uniform(-5, 1)
        z = law(s, **load)
        assert z @ s < 0
        if law.saturation is not None:
            assert np.linalg.norm(z) <= float(law.saturation) * load["N"] * (1 + 1e-12)
    np.testing.assert_array_equal(law(np.zeros(law.rows), **load), 0.0)


def test_viscous_is_the_linear_law_of_friction_eps():
    law = nh.laws.Viscous(0.7, 1e-3, rows=2)
    s = RNG.normal(size=2)
    np.testing.assert_allclose(law(s), -(0.7 / 1e-3) * s, rtol=1e-15)
    assert float(law.scale) == 1e-3 and law.saturation is None


def test_coulomb_creep_is_the_steady_slip_in_closed_form():
    law = nh.laws.Coulomb(0.6, v_s=1e-3, rows=2)
    for _ in range(20):
        direction = RNG.normal(size=2)
        r = RNG.uniform(0.01, 0.99)  # |force| / (mu N)
        force = r * 0.6 * 9.0 * direction / np.linalg.norm(direction)
        s = law.steady_slip(force, N=9.0)
        np.testing.assert_allclose(s, law.creep(force, 9.0), rtol=1e-10, atol=1e-16)
        np.testing.assert_allclose(np.linalg.norm(s), 1e-3 * r / np.sqrt(1 - r**2), rtol=1e-10)
        np.testing.assert_allclose(law(s, N=9.0), force, rtol=1e-12)


def test_no_slip_carries_a_force_outside_the_cone():
    law = nh.laws.Coulomb(0.6, v_s=1e-3)
    with pytest.raises(ValueError, match="outside the friction cone"):
        law.steady_slip([0.6 * 9.0 * 1.01], N=9.0)
    with pytest.raises(ValueError, match="outside the friction cone"):
        law.creep([0.6 * 9.0], 9.0)


def test_the_magic_formula_peaks_at_D_N():
    law = nh.laws.MagicFormula(10.0, 1.9, 1.0, 0.97)
    B, C, E = 10.0, 1.9, 0.97
    # the peak: C atan(B a - E (B a - atan(B a))) = pi / 2, solved for the slip angle a
    from scipy.optimize import brentq

    a = brentq(lambda a: C * np.arctan(B * a - E * (B * a - np.arctan(B * a))) - np.pi / 2, 1e-6, 1.0)
    V = 15.0
    np.testing.assert_allclose(law([V * np.tan(a)], N=3000.0, V=V), [-3000.0], rtol=1e-12)
    # cornering stiffness per unit load B C D at zero slip
    x = sp.Symbol("x", real=True)
    dz = float(sp.diff(law.force([x], 1.0, V)[0], x).subs(x, 0))
    np.testing.assert_allclose(dz, -B * C * 1.0 / V, rtol=1e-14)


def _brush_slip(f, c, mu):
    """tan(alpha) of the brush tire's lateral force f N (0 < f < mu): the root of the adhesion cubic."""
    roots = np.roots([c**3 / (27 * mu**2), -(c**2) / (3 * mu), c, -f])
    real = roots[np.abs(roots.imag) < 1e-12].real
    return real[(real > 0) & (real < 3 * mu / c)].min()


def test_the_brush_tire_reaches_full_sliding_smoothly():
    c, mu, V, N = 8.0, 0.9, 1.0, 1.0
    law = nh.laws.Brush(c, mu)
    t_sl = 3 * mu / c
    inside, outside = law([t_sl * (1 - 1e-9)], N=N, V=V), law([t_sl * (1 + 1e-9)], N=N, V=V)
    np.testing.assert_allclose(inside, outside, rtol=1e-8)
    np.testing.assert_allclose(outside, [-mu * N])
    np.testing.assert_allclose(law.steady_slip([-0.5], N=N, V=V), [_brush_slip(0.5, c, mu)], rtol=1e-10)
    slope = sp.lambdify(law.slip, law.slip_jacobian().xreplace({law.normal: N, law.speed: V})[0])
    assert abs(slope(t_sl * (1 - 1e-9))) < 1e-7 and slope(t_sl * (1 + 1e-9)) == 0  # zero slope where sliding starts
    assert slope(0.0) == -c * N / V  # the cornering stiffness at zero slip (the derivative the tapes take)


def test_the_brush_tire_realizes_a_friction_model():
    """Its force is lowered to tapes (the clamp by |.|), and a cart whose lateral slip it damps
    creeps to rest as the hand-written equations do."""
    x, y = sp.symbols("x y")
    cart = nh.System([x, y], sp.eye(2) * 2.0, constraints=[[0, 1]])
    c, mu, N = 8.0, 0.9, 2.0 * 9.81
    model = cart.friction(law=nh.laws.Brush(c, mu), normal=N, speed=cart.velocities[0])
    run = nh.simulate(model, (0, 1), [0, 0, 2.0, 1.5], t_eval=[1.0], rtol=1e-11, atol=1e-13)  # sliding at first

    def by_hand(t, z):
        t_ = min(max(z[3] / z[2], -3 * mu / c), 3 * mu / c)
        force = -N * (c * t_ - c**2 * abs(t_) * t_ / (3 * mu) + c**3 * t_**3 / (27 * mu**2))
        return [z[2], z[3], 0.0, force / 2.0]

    ref = solve_ivp(by_hand, (0, 1), [0, 0, 2.0, 1.5], rtol=1e-12, atol=1e-14, method="DOP853")
    np.testing.assert_allclose(run.y[:, -1], ref.y[:, -1], rtol=0, atol=1e-8)


def test_a_law_written_in_sympy():
    s, N = sp.symbols("s N")
    law = nh.laws.Law(-0.8 * N * sp.tanh(s / 0.01), slip=s, normal=N, scale=0.01, saturation=0.8)
    np.testing.assert_allclose(law([0.02], N=10.0), [-8.0 * np.tanh(2.0)], rtol=1e-15)
    np.testing.assert_allclose(law.steady_slip([-4.0], N=10.0), [0.01 * np.arctanh(0.5)], rtol=1e-12)


def test_set_valued_coulomb_has_no_force_function():
    law = nh.laws.Coulomb(0.5)
    assert law.set_valued and float(law.saturation) == 0.5
    with pytest.raises(ValueError, match="set-valued"):
        law.force([0.1], 1.0)


@pytest.mark.parametrize("make, match", [
    (lambda: nh.laws.Coulomb(-0.5, 1e-3), "mu must be positive"),
    (lambda: nh.laws.Coulomb(0.5, 0.0), "v_s must be positive"),
    (lambda: nh.laws.Viscous(1.0, float("nan")), "eps must be finite"),
    (lambda: nh.laws.Stribeck(0.6, 0.4, 0.01, viscous=-1), "viscous must be nonnegative"),
    (lambda: nh.laws.Law([sp.Symbol("s")], slip=["s", "t"]), "expr has 1 components for 2 slip symbols"),
    (lambda: nh.laws.Coulomb(0.5, 1e-3)([0.1]), "give N"),
    (lambda: nh.laws.Coulomb(0.5, 1e-3, rows=2)([0.1], N=1.0), "s must have 2 components"),
])
def test_bad_arguments_are_named(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_isotropic_laws_take_any_number_of_rows_and_tire_laws_one():
    coulomb = nh.laws.Coulomb(0.6, v_s=1e-3)
    ball = coulomb.for_rows(2)
    assert ball.rows == 2 and coulomb.for_rows(1) is coulomb
    np.testing.assert_allclose(ball([3e-3, 4e-3], N=1.0), -0.6 * np.array([3, 4]) / np.sqrt(26), rtol=1e-14)
    assert nh.laws.Stribeck(0.6, 0.4, 0.01).for_rows(3).rows == 3
    assert nh.laws.Viscous(1.0, 1e-2).for_rows(2).rows == 2
    with pytest.raises(ValueError, match="written for contacts of 1 slip component"):
        nh.laws.MagicFormula(10.0, 1.9, 1.0).for_rows(2)


@pytest.mark.parametrize("B, C, E", [(3.0, 0.9, 0.0), (10.0, 0.5, 0.0), (0.5, 1.9, 0.0), (10.0, 1.9, 0.97),
                                     (3.0, 1.3, -1.0)])
def test_magic_formula_saturation_is_the_largest_force_of_its_slip_angles(B, C, E):
    """The slip angle alpha = atan(s / V) stays below pi/2, so a curve with C < 1 (or a small B)
    never reaches D: B = 3, C = 0.9 peaks at 0.941 D. Its saturation was D, so steady_slip accepted
    forces no slip carries and the reduced model failed inside its step instead of at its fold.
    The saturation is the curve's largest value over [0, pi/2) (D where the peak is reached)."""
    D = 0.8
    law = nh.laws.MagicFormula(B=B, C=C, D=D, E=E)
    alpha = np.linspace(0, np.pi / 2, 2_000_001)  # the supremum over [0, pi/2): the limit at pi/2 included
    x = B * alpha
    largest = D * np.abs(np.sin(C * np.arctan(x - E * (x - np.arctan(x))))).max()
    assert float(law.saturation) == pytest.approx(largest, rel=1e-9)
    assert float(law.saturation) <= D
    N, V = 1000.0, 10.0
    if largest < D * (1 - 1e-6):  # a force between the curve's largest and D N has no slip
        with pytest.raises(ValueError, match="outside the friction cone"):
            law.steady_slip([-(largest + D) / 2 * N], N=N, V=V)
    s = law.steady_slip([-0.9 * largest * N], N=N, V=V)  # below it, one
    assert float(law.force(s, N=N, V=V)[0]) == pytest.approx(-0.9 * largest * N, rel=1e-9)
