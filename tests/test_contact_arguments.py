"""Bad input to the rolling-contact builders and the friction laws is refused by name, before anything
is built (ValueError or TypeError, never a bare NumPy or SymPy error, never silent acceptance); valid
input still builds and runs.

- roll_on_plane(friction="viscous"/"coulomb"): friction_coefficient >= 0 and eps > 0, finite, also as
  a runtime parameter (params={"eps": ...}), as system.friction(eps) checks its eps;
- nonholo.laws: a NumPy NaN or inf (float32, longdouble) refused like a Python one;
- RigidBody: NaN/inf mass, inertia, centre of mass; inertia symmetric positive semi-definite (a thin
  disc and a point mass are bodies; rolling needs a positive definite inertia);
- Sphere, Disc, Ellipsoid, Paraboloid: finite positive lengths;
- rolling_state: each argument's shape and finiteness.
"""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Disc, Ellipsoid, Paraboloid, Sphere, roll_on_plane, rolling_state

M, R, G = 1.0, 0.1, 9.81
Y0 = np.r_[0, 0, 1, 0, 0, 0, 3.0, 0, 0, 0, 0, 0]  # sliding at 3 m/s, no spin


def solid_ball(**kwargs):
    return roll_on_plane(RigidBody(M, np.eye(3) * 0.4 * M * R**2), Sphere(R), **kwargs)


# ------------------------------------------------------------------ 1. friction coefficient and eps
@pytest.mark.parametrize("friction", ["viscous", "coulomb"])
@pytest.mark.parametrize("kwargs, match", [
    (dict(friction_coefficient=-0.2), "friction_coefficient must be non-negative"),
    (dict(friction_coefficient=np.nan), "friction_coefficient must be finite"),
    (dict(friction_coefficient=np.float32("nan")), "friction_coefficient must be finite"),
    (dict(eps=-1e-3), "eps must be positive"),
    (dict(eps=0.0), "eps must be positive"),
    (dict(eps=np.inf), "eps must be positive and finite"),
    (dict(eps=np.float32("nan")), "eps must be positive and finite"),
])
def test_roll_on_plane_refuses_bad_friction_arguments(friction, kwargs, match):
    with pytest.raises(ValueError, match=match):
        solid_ball(friction=friction, **kwargs)


@pytest.mark.parametrize("eps", [True, "1e-3", sp.Symbol("e")])
def test_roll_on_plane_eps_must_be_a_number(eps):
    with pytest.raises(TypeError, match="eps must be a positive number"):
        solid_ball(friction="viscous", eps=eps)


@pytest.mark.parametrize("mu", [0.0, -0.2])
def test_friction_coefficient_of_the_constraint_rows_must_be_positive(mu):
    """friction=None: mu is the coefficient of friction(eps), which a zero mu leaves singular."""
    with pytest.raises(ValueError, match="friction_coefficient must be positive"):
        solid_ball(friction_coefficient=mu)


@pytest.mark.parametrize("friction", ["viscous", "coulomb"])
@pytest.mark.parametrize("eps", [-1e-3, 0.0])
def test_simulate_refuses_a_non_positive_eps_parameter(friction, eps):
    """eps is a parameter of the system (not the friction model's own, which the core checks): the
    system checks it wherever values are given, as system.friction(eps) checks its eps."""
    model = solid_ball(friction=friction, friction_coefficient=0.2).nonholonomic()
    with pytest.raises(ValueError, match="eps must be positive and finite.*in params"):
        nh.simulate(model, (0, 0.01), Y0, params={"eps": eps})
    with pytest.raises(ValueError, match="eps must be positive"):
        model.rhs(0.0, Y0, params={"eps": eps})
    with pytest.raises(ValueError, match="eps must be positive"):
        pickle.loads(pickle.dumps(model)).rhs(0.0, Y0, params={"eps": eps})
    with pytest.raises(ValueError, match="eps must be positive.*in parameters"):
        model.system.with_parameters({"eps": eps})
    with pytest.raises(ValueError, match="eps must be positive"):  # as the constrained system's friction model
        solid_ball().friction(eps)


def test_symbolic_quantities_are_checked_at_the_parameters():
    """A mass, radius or friction coefficient given as a symbol is checked at its default and at
    the values of every run."""
    m, r, mu = sp.symbols("m r mu")
    body = RigidBody(m, sp.diag(*[2 * m * r**2 / 5] * 3))
    ball = roll_on_plane(body, Sphere(r), friction="viscous", friction_coefficient=mu,
                         parameters={m: M, r: R, mu: 0.2}, eps=1e-2)
    model = ball.nonholonomic()
    for params, match in [({"r": -0.1}, "radius = r must be positive.*r=-0.1"),
                          ({"m": 0.0}, "mass = m must be positive"),
                          ({"mu": -0.2}, "friction_coefficient = mu must be non-negative")]:
        with pytest.raises(ValueError, match=match):
            nh.simulate(model, (0, 0.01), Y0, params=params)
    with pytest.raises(ValueError, match="radius = r must be positive.*at parameters r=-0.1"):
        roll_on_plane(body, Sphere(r), parameters={m: M, r: -0.1})
    run = nh.simulate(model, (0, 0.01), Y0, params={"mu": 0.0})  # frictionless: slides on at 3 m/s
    assert run["x_dot"][-1] == pytest.approx(3.0, rel=1e-12)
    assert type(pickle.loads(pickle.dumps(ball))).__name__ == "RollingSystem"


def test_bowling_ball_under_the_coulomb_force_still_runs():
    """The valid path: a ball launched sliding at v0 without spin under regularized Coulomb friction
    rolls from t = 2 v0 / (7 mu g) on at 5/7 v0 (up to the regularization eps)."""
    mu, v0 = 0.2, 3.0
    ball = solid_ball(friction="coulomb", friction_coefficient=mu, eps=1e-4)
    run = nh.simulate(ball.nonholonomic(), (0, 1), Y0, t_eval=[1.0], rtol=1e-9, atol=1e-12)
    assert run.status == 0
    assert run["x_dot"][-1] == pytest.approx(5 / 7 * v0, rel=1e-3)
    viscous = nh.simulate(solid_ball(friction="viscous", eps=1e-3).nonholonomic(), (0, 0.5), Y0, t_eval=[0.5],
                          params={"eps": 1e-3}, rtol=1e-9, atol=1e-12)
    assert viscous["x_dot"][-1] == pytest.approx(5 / 7 * v0, rel=1e-3)


# ------------------------------------------------------------------ 2. laws: NumPy NaN and inf
NUMPY_NAN = [np.float32("nan"), np.longdouble("nan"), np.float16("inf"), np.array(np.float32("nan"))]


@pytest.mark.parametrize("bad", NUMPY_NAN, ids=["float32 nan", "longdouble nan", "float16 inf", "0-d nan"])
@pytest.mark.parametrize("make, name", [
    (lambda x: nh.laws.Coulomb(0.2, v_s=x), "v_s"),
    (lambda x: nh.laws.Coulomb(x, v_s=1e-3), "mu"),
    (lambda x: nh.laws.Viscous(x, 1e-2), "mu"),
    (lambda x: nh.laws.Viscous(1.0, x), "eps"),
    (lambda x: nh.laws.Stribeck(0.3, 0.2, x), "v_s"),
    (lambda x: nh.laws.Stribeck(0.3, 0.2, 0.1, viscous=x), "viscous"),
    (lambda x: nh.laws.Stribeck(0.3, 0.2, 0.1, regularization=x), "regularization"),
    (lambda x: nh.laws.MagicFormula(10, 1.9, 1.0, E=x), "E"),
    (lambda x: nh.laws.MagicFormula(10, 1.9, 1.0, relaxation_length=x), "relaxation_length"),
    (lambda x: nh.laws.Brush(x, 1.0), "c"),
    (lambda x: nh.laws.Law([x], slip="s"), "expr"),
    (lambda x: nh.laws.Law(-sp.Symbol("s"), slip="s", scale=x), "scale"),
    (lambda x: nh.laws.Coulomb(0.2, v_s=1e-2)([0.1], N=x), "N"),
    (lambda x: nh.laws.Coulomb(0.2, v_s=1e-2).force([x], N=1.0), "s"),
])
def test_laws_refuse_numpy_nan_and_inf_by_name(bad, make, name):
    with pytest.raises(ValueError, match=f"^{name} must be finite"):
        make(bad)


def test_law_parameters_must_be_finite_and_valid_laws_evaluate():
    k, s = sp.symbols("k s")
    law = nh.laws.Law(-k * s, slip=s)
    with pytest.raises(ValueError, match="parameters\\['k'\\] must be finite"):
        law([0.1], parameters={"k": np.float32("nan")})
    assert law([0.1], parameters={"k": 2.0})[0] == pytest.approx(-0.2)
    coulomb = nh.laws.Coulomb(np.float32(0.5), v_s=np.float64(1e-3))
    s_ = 0.1
    assert coulomb([s_], N=10.0)[0] == pytest.approx(-0.5 * 10 * s_ / np.sqrt(s_**2 + 1e-6), rel=1e-6)


# ------------------------------------------------------------------ 3. rigid bodies
@pytest.mark.parametrize("make, error, match", [
    (lambda: RigidBody(1.0, np.eye(3) * np.nan), ValueError, "inertia.* must be finite"),
    (lambda: RigidBody(1.0, np.diag([1.0, np.inf, 1.0])), ValueError, "inertia.* must be finite"),
    (lambda: RigidBody(1.0, (1.0, np.float32("nan"), 1.0)), ValueError, r"inertia\[1\] must be finite"),
    (lambda: RigidBody(np.nan, (1, 1, 1)), ValueError, "mass must be finite"),
    (lambda: RigidBody(np.float32("nan"), (1, 1, 1)), ValueError, "mass must be finite"),
    (lambda: RigidBody(np.inf, (1, 1, 1)), ValueError, "mass must be finite"),
    (lambda: RigidBody(0.0, (1, 1, 1)), ValueError, "mass must be positive"),
    (lambda: RigidBody(True, (1, 1, 1)), TypeError, "mass"),
    (lambda: RigidBody(1.0, (1, 1, 1), com_offset=(0, 0, np.nan)), ValueError, r"com_offset\[2\] must be finite"),
    (lambda: RigidBody(1.0, [[1, 0.1, 0], [0, 1, 0], [0, 0, 1]]), ValueError, "inertia must be a symmetric"),
    (lambda: RigidBody(1.0, (1, -1, 1)), ValueError, "inertia must have no negative principal moment"),
    (lambda: RigidBody(1.0, "abc"), ValueError, "inertia must be"),
    (lambda: RigidBody(1.0, np.ones((2, 2))), ValueError, "inertia must be 3 principal moments"),
])
def test_rigid_body_refuses_bad_values_by_name(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_valid_bodies_are_accepted():
    """A thin disc (I3 = I1 + I2, the triangle inequality at equality), a thin rod and a point mass
    are bodies (positive semi-definite inertia); a rolling body needs a positive definite one."""
    disc = RigidBody(M, np.diag([0.25, 0.25, 0.5]) * M * R**2)
    assert np.allclose(np.array(disc.inertia, dtype=float), np.diag([0.25, 0.25, 0.5]) * M * R**2)
    RigidBody(M, (1.0, 1.0, 0.0))  # a thin rod along z
    point = RigidBody(M, (0, 0, 0))
    assert point.inertia == sp.zeros(3)
    m, r = sp.symbols("m r")
    RigidBody(m, sp.diag(m * r**2 / 4, m * r**2 / 4, m * r**2 / 2), com_offset=sp.Matrix([0, 0, -r / 2]))
    with pytest.raises(ValueError, match="body inertia must be positive definite for a body rolling"):
        roll_on_plane(point, Sphere(R))
    # the thin disc rolls upright, one radius per radian
    wheel = roll_on_plane(disc, Disc(R, axis=(0, 1, 0)))
    y0 = rolling_state(wheel, [1, 0, 0, 0], [0, 10.0, 0])
    run = nh.simulate(wheel.nonholonomic(), (0, 0.1), y0, t_eval=[0.1], rtol=1e-10, atol=1e-12)
    assert run["x"][-1] == pytest.approx(10.0 * R * 0.1, rel=1e-6)


# ------------------------------------------------------------------ 4. surfaces
@pytest.mark.parametrize("make, match", [
    (lambda: Sphere(np.nan), "radius must be finite"),
    (lambda: Sphere(np.float32("nan")), "radius must be finite"),
    (lambda: Sphere(-0.1), "radius must be positive"),
    (lambda: Sphere(0.0), "radius must be positive"),
    (lambda: Sphere(0.1, center=(0, np.inf, 0)), r"center\[1\] must be finite"),
    (lambda: Sphere(0.1, center=(0, 0)), "center must have three components"),
    (lambda: Disc(-0.1), "radius must be positive"),
    (lambda: Disc(np.inf), "radius must be finite"),
    (lambda: Disc(0.1, axis=(0, 0, 0)), "axis must be a nonzero direction"),
    (lambda: Disc(0.1, axis=(0, np.nan, 0)), r"axis\[1\] must be finite"),
    (lambda: Ellipsoid(0.2, -0.03, 0.02), "b must be positive"),
    (lambda: Ellipsoid(0.2, 0.03, np.nan), "c must be finite"),
    (lambda: Paraboloid(0.0, 1.0), "rho1 must be positive"),
    (lambda: Paraboloid(1.0, np.float32("inf")), "rho2 must be finite"),
])
def test_surfaces_refuse_bad_lengths_by_name(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_disc_axis_is_made_unit():
    """The support map assumes a unit axis: a longer one is scaled (it gave a complex contact point)."""
    n = sp.Matrix([0, 0.6, -0.8])  # tilted towards the axis
    assert list(Disc(R, axis=(0, 2, 0)).axis) == [0, 1, 0]
    expected = Disc(R, axis=(0, 1, 0)).support(n)
    assert [float(c) for c in Disc(R, axis=(0, 2, 0)).support(n)] == pytest.approx([float(c) for c in expected])
    assert [float(c) for c in expected] == pytest.approx([0, 0, -R])


def test_ball_on_an_incline_accelerates_at_five_sevenths_g_sin_alpha():
    """The valid default path: a solid ball rolling down an incline (tilted gravity) accelerates at
    5/7 g sin(alpha); its centre stays one radius above the plane."""
    alpha = 0.3
    ball = solid_ball(gravity=(G * np.sin(alpha), 0, -G * np.cos(alpha)))
    y0 = rolling_state(ball, [1, 0, 0, 0], [0, 0, 0])
    run = nh.simulate(ball.nonholonomic(), (0, 1), y0, t_eval=[1.0], rtol=1e-10, atol=1e-12)
    assert run["x_dot"][-1] == pytest.approx(5 / 7 * G * np.sin(alpha), rel=1e-8)
    assert run["z"][-1] == pytest.approx(R, rel=1e-10)


# ------------------------------------------------------------------ 5. rolling_state
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(velocity=[1, 2, 3]), ValueError, r"velocity must be 2 finite numbers.*shape \(2,\), got shape \(3,\)"),
    (dict(velocity=[np.nan, 0]), ValueError, "velocity must be 2 finite numbers"),
    (dict(velocity=[np.inf, 0]), ValueError, "velocity must be 2 finite numbers"),
    (dict(velocity=["a", 0]), TypeError, "velocity must be 2 finite numbers"),
    (dict(velocity=5.0), ValueError, "velocity must be 2 finite numbers"),
    (dict(x=np.nan), ValueError, "x must be a finite number"),
    (dict(y=[1, 2]), ValueError, "y must be a finite number"),
    (dict(x="0"), TypeError, "x must be a finite number"),
    (dict(omega=[0, 1]), ValueError, r"omega must be 3 finite numbers.*got shape \(2,\)"),
    (dict(omega=[0, np.nan, 0]), ValueError, "omega must be 3 finite numbers"),
    (dict(quaternion=[1, 0, 0]), ValueError, "quaternion must be 4 finite numbers"),
    (dict(quaternion=[0, 0, 0, 0]), ValueError, "quaternion must be 4 finite numbers, not all zero"),
    (dict(quaternion=[1, 0, np.nan, 0]), ValueError, "quaternion must be 4 finite numbers"),
    (dict(params={"g": np.nan}), ValueError, "parameter g must be finite"),
])
def test_rolling_state_refuses_bad_arguments_by_name(kwargs, error, match):
    ball = nh.systems.chaplygin_ball()
    arguments = dict(quaternion=[1, 0, 0, 0], omega=[0, 1, 0]) | kwargs
    with pytest.raises(error, match=match):
        rolling_state(ball, **arguments)


def test_rolling_state_valid_calls():
    ball = solid_ball()
    with pytest.raises(TypeError, match="system must be a system of nonholo.contact.roll_on_plane"):
        rolling_state(nh.systems.chaplygin_sleigh(), [1, 0, 0, 0], [0, 1, 0])
    rolling = rolling_state(ball, [2, 0, 0, 0], [0, 10.0, 0], x=1.0, y=np.float32(2.0))
    assert rolling[:6] == pytest.approx([1, 2, 1, 0, 0, 0])
    assert rolling[6:8] == pytest.approx([10.0 * R, 0])  # no slip: x' = Omega_y r
    sliding = rolling_state(ball, [1, 0, 0, 0], [0, 0, 0], velocity=(3.0, -1.0))
    assert sliding == pytest.approx(np.r_[0, 0, 1, 0, 0, 0, 3.0, -1.0, 0, 0, 0, 0])


def test_numpy_scalars_of_other_precisions_convert_as_python_floats():
    """SymPy takes a float32 NaN for a ratio ("cannot convert NaN to integer ratio"): every caller
    of to_sympy then failed before its own check could name the argument."""
    from nonholo.expressions.parsing import to_sympy

    assert to_sympy(np.float32("nan"), "x") is sp.nan
    assert to_sympy(np.longdouble("inf"), "x") is sp.oo
    assert float(to_sympy(np.float32(0.5), "x")) == 0.5
    with pytest.raises(ValueError, match="mu"):
        nh.laws.Coulomb(np.float32("nan"))


def test_principal_moments_meet_the_triangle_inequality():
    """I_3 <= I_1 + I_2 for every mass distribution (I_1 + I_2 - I_3 = 2 sum m z^2 in principal
    axes); (1, 1, 5) was accepted. A flat body (equality) and a thin rod stay valid."""
    with pytest.raises(ValueError, match="triangle inequality"):
        nh.bodies.RigidBody(1, (1, 1, 5))
    nh.bodies.RigidBody(1, (0.25, 0.25, 0.5))  # a thin disc: equality
    nh.bodies.RigidBody(1, (1.0, 1.0, 0.0))  # a thin rod along z
    nh.bodies.RigidBody(1, np.diag([0.2, 0.3, 0.5]) + 1e-17)  # equality to rounding


def test_an_inertia_symmetric_to_rounding_is_accepted_and_symmetrized():
    """A tensor rotated numerically, Q diag(...) Q^T, is symmetric only to rounding (8.7e-19 here):
    it was refused as not symmetric. It is accepted and symmetrized; an asymmetry above rounding
    (1e-9 relative) and a symbolic one are still refused."""
    c, s = np.cos(0.7), np.sin(0.7)
    Q = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ np.array([[1, 0, 0], [0, np.cos(0.3), -np.sin(0.3)],
                                                               [0, np.sin(0.3), np.cos(0.3)]])
    rotated = Q @ np.diag([0.02, 0.035, 0.045]) @ Q.T
    assert not np.array_equal(rotated, rotated.T)  # the case: rounding makes it asymmetric
    body = RigidBody(1.0, rotated)
    I = np.array(body.inertia, dtype=float)
    assert np.array_equal(I, I.T) and np.allclose(I, rotated, rtol=0, atol=1e-17)
    tilted = rotated.copy()
    tilted[0, 1] += 1e-9 * np.abs(rotated).max()
    with pytest.raises(ValueError, match="inertia must be a symmetric"):
        RigidBody(1.0, tilted)
    a = sp.Symbol("a", positive=True)
    with pytest.raises(ValueError, match="inertia must be a symmetric"):
        RigidBody(1.0, sp.Matrix([[1, a / 10, 0], [0, 1, 0], [0, 0, 1]]))
    # a symbolic tensor symmetric once simplified is accepted
    RigidBody(1.0, sp.Matrix([[1, sp.sin(a)**2 + sp.cos(a)**2 - 1, 0], [0, 1, 0], [0, 0, 1]]))
