"""system.friction(law=...): constraints realized by a friction law of nonholo.laws.

Checked against closed forms: the creep of regularized Coulomb friction for a ball rolling down an
incline, the nonholonomic limit as the regularization v_s -> 0 (first order in v_s), and the linear
law, which is friction(eps) itself."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import loglog_slope

SLEIGH = nh.systems.chaplygin_sleigh()
Y0 = [0, 0, 0, 1.0, 0, 0.5]
TIGHT = dict(rtol=1e-11, atol=1e-13)


def test_the_viscous_law_is_friction_eps():
    by_law = nh.simulate(SLEIGH.friction(law=nh.laws.Viscous(1.0, 1e-3)), (0, 3), Y0, **TIGHT)
    default = nh.simulate(SLEIGH.friction(1e-3), (0, 3), Y0, **TIGHT)
    np.testing.assert_array_equal(by_law.y, default.y)
    assert by_law.method == default.method == "bdf"


def ball_on_incline(alpha=0.3, m=1.0, r=0.1, g=9.81):
    body = nh.bodies.RigidBody(m, np.eye(3) * 0.4 * m * r**2)  # a uniform solid sphere
    ball = nh.contact.roll_on_plane(body, nh.contact.Sphere(r), gravity=(g * np.sin(alpha), 0, -g * np.cos(alpha)))
    return ball, m * g * np.cos(alpha), 2 / 7 * m * g * np.sin(alpha)  # system, N, the friction force rolling needs


@pytest.mark.parametrize("mu", [0.5, 0.2])
def test_coulomb_creep_of_a_ball_on_an_incline_is_the_closed_form(mu):
    ball, N, needed = ball_on_incline()
    v_s = 1e-3
    model = ball.friction(law=nh.laws.Coulomb(mu, v_s=v_s), normal=N)  # the builder groups the two rows
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], omega=[0, 0, 0])
    run = nh.simulate(model, (0, 1.0), y0, t_eval=[1.0], **TIGHT)
    A, _ = ball.constraint_matrix(run.y[:6, -1])
    slip = A @ run.y[6:, -1]
    r = needed / (mu * N)
    np.testing.assert_allclose(np.linalg.norm(slip), v_s * r / np.sqrt(1 - r**2), rtol=1e-6)
    assert abs(slip[1]) < 1e-12 and slip[0] > 0  # down the slope: the contact creeps ahead of rolling


def test_coulomb_friction_tends_to_rolling_at_first_order_in_v_s():
    q_rolling = nh.simulate(SLEIGH.nonholonomic(), (0, 2), Y0, t_eval=[2.0], **TIGHT).y[:3, -1]
    v_s = np.array([4e-3, 2e-3, 1e-3, 5e-4])
    errors = [np.abs(nh.simulate(SLEIGH.friction(law=nh.laws.Coulomb(0.5, v_s=v), normal=9.81), (0, 2), Y0,
                                 t_eval=[2.0], **TIGHT).y[:3, -1] - q_rolling).max() for v in v_s]
    assert abs(loglog_slope(v_s, errors) - 1.0) < 0.1


def test_a_law_written_in_sympy_is_the_built_in_law():
    s, N = sp.symbols("s N", real=True)
    written = nh.laws.Law(-0.5 * N * s / sp.sqrt(s**2 + sp.Float(1e-3) ** 2), slip=s, normal=N)
    a = nh.simulate(SLEIGH.friction(law=written, normal=9.81), (0, 2), Y0, **TIGHT)
    b = nh.simulate(SLEIGH.friction(law=nh.laws.Coulomb(0.5, v_s=1e-3), normal=9.81), (0, 2), Y0, **TIGHT)
    np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-12)
    assert a.stats["n_steps"] == b.stats["n_steps"]


def test_a_model_by_a_law_pickles():
    model = SLEIGH.friction(law=nh.laws.Coulomb(0.5, v_s=1e-3), normal="9.81")
    back = pickle.loads(pickle.dumps(model))
    y = np.random.default_rng(3).normal(size=6)
    np.testing.assert_array_equal(back.rhs(0.0, y), model.rhs(0.0, y))


@pytest.mark.parametrize("call, error, match", [
    (lambda: SLEIGH.friction(1e-3, law=nh.laws.Coulomb(0.5, 1e-3)), ValueError, "eps or law=, not both"),
    (lambda: SLEIGH.friction(law=nh.laws.Coulomb(0.5, 1e-3)), ValueError, "give normal="),
    (lambda: SLEIGH.friction(law=nh.laws.Coulomb(0.5), normal=1.0), ValueError, "set-valued"),
    (lambda: SLEIGH.friction(law=nh.laws.MagicFormula(10, 1.9, 1.0), normal=1.0), ValueError, "give speed="),
    (lambda: SLEIGH.friction(law="coulomb"), TypeError, "law must be a nonholo.laws law"),
    (lambda: SLEIGH.friction(law=nh.laws.Coulomb(0.5, 1e-3), normal=1.0, contacts=[[0], [0]]), ValueError,
     "exactly one contact"),
    (lambda: SLEIGH.friction(law=nh.laws.Coulomb(0.5, 1e-3), normal=[1.0, 2.0]), ValueError, "2 entries for 1"),
    (lambda: SLEIGH.friction(), TypeError, "needs eps"),
    (lambda: SLEIGH.friction(1e-3, normal=1.0), ValueError, "go with law="),
])
def test_bad_arguments_are_named(call, error, match):
    with pytest.raises(error, match=match):
        call()
