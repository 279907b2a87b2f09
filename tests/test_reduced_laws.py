"""Reduced models on the slow manifold of a nonlinear friction law: system.reduced(order=K, law=...)
and system.slip(q, u, order, law=...) (nonholo.system.law_slow_manifold).

Checked against: the C++ recursion of the linear law (a linear law written by hand goes through the
series arithmetic of the nonlinear laws), the friction model of the law started on its slow manifold
(error O(v_s^(K+1))), the closed-form creep of regularized Coulomb friction, and the fold of the
manifold at the edge of the friction cone."""

import functools
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system.law_realization import viscous_coefficients
from nonholo.testing import loglog_slope, random_system

SLEIGH = nh.systems.chaplygin_sleigh()
TIGHT = dict(rtol=1e-11, atol=1e-12)


def random_point(system, seed, t=0.0):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, system.n)
    return q, system.project(q, rng.uniform(-1, 1, system.n), t)


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_viscous_through_law_is_the_existing_reduced_model(order):
    """Viscous(mu, eps) with the sleigh's own mu = 1: the same model as reduced(eps), bit for bit."""
    eps = 1e-2
    by_law, default = SLEIGH.reduced(order=order, law=nh.laws.Viscous(1.0, eps)), SLEIGH.reduced(eps, order=order)
    assert by_law.order == default.order == order
    for seed in range(3):
        q, u = random_point(SLEIGH, seed)
        np.testing.assert_array_equal(by_law.rhs(0.3, np.r_[q, u]), default.rhs(0.3, np.r_[q, u]))
        if order:
            np.testing.assert_array_equal(SLEIGH.slip(q, u, order, law=nh.laws.Viscous(1.0, eps)),
                                          SLEIGH.slip(q, u, order))


@pytest.mark.parametrize("seed, affine, force", [(0, False, False), (1, True, False), (2, True, True)])
def test_a_linear_law_written_by_hand_gives_the_recursion_of_the_linear_law(seed, affine, force):
    """The series arithmetic of the nonlinear laws (a Law, not a Viscous: the general path) against the
    C++ Taylor recursion of the linear law, K = 1..3, on random systems (affine constraints, forces)."""
    system = random_system(seed, affine=affine, force=force)
    s = sp.Symbol("s", real=True)
    mu, eps = 1.7, 1e-2
    written = nh.laws.Law(-(mu / eps) * s, slip=s, scale=eps)
    reference = viscous_coefficients(system, nh.laws.Viscous(mu, eps))
    q, u = random_point(system, seed, 0.4)
    H = system.slip(q, u, 3, t=0.4, law=written)
    H_ref = reference.slip(q, u, 3, t=0.4)
    for k in range(3):
        np.testing.assert_allclose(H[k], H_ref[k], rtol=0, atol=1e-11 * np.abs(H_ref[k]).max())
    y = np.r_[q, u]
    np.testing.assert_allclose(system.reduced(order=2, law=written).rhs(0.4, y),
                               reference.reduced(eps, order=2).rhs(0.4, y), rtol=1e-11, atol=1e-12)


def coulomb_by_hand(mu, v_s, rows):
    s = sp.symbols(f"w1:{rows + 1}", real=True)
    N = sp.Symbol("load", positive=True)
    norm = sp.sqrt(sum(x**2 for x in s) + v_s**2)
    return nh.laws.Law([-mu * N * x / norm for x in s], slip=s, normal=N, scale=v_s, saturation=mu)


@functools.lru_cache(maxsize=None)  # one system: its series data are built once (about 10 s)
def ball_on_incline(alpha=0.3, m=1.0, r=0.1, g=9.81):
    body = nh.bodies.RigidBody(m, np.eye(3) * 0.4 * m * r**2)  # a uniform solid sphere
    ball = nh.contact.roll_on_plane(body, nh.contact.Sphere(r), gravity=(g * np.sin(alpha), 0, -g * np.cos(alpha)))
    return ball, m * g * np.cos(alpha), 2 / 7 * m * g * np.sin(alpha)  # system, N, the friction force rolling needs


def test_a_coulomb_law_written_by_hand_is_the_built_in_one():
    """The knife edge (one row) and the rolling ball (a contact of two rows, isotropic)."""
    for system, N in ((SLEIGH, 9.81), (ball_on_incline()[0], ball_on_incline()[1])):
        contact_rows = len(system.contacts[0]) if system.contacts else 1
        q, u = random_point(system, 5)
        if system is not SLEIGH:
            y0 = nh.contact.rolling_state(system, [0.9, 0.1, -0.2, 0.3], omega=[0.4, -1.0, 0.2])
            q, u = y0[: system.n], y0[system.n:]
        built_in = system.slip(q, u, 3, law=nh.laws.Coulomb(0.5, 1e-2), normal=N)
        written = system.slip(q, u, 3, law=coulomb_by_hand(0.5, 1e-2, contact_rows), normal=N)
        np.testing.assert_allclose(written, built_in, rtol=1e-12, atol=1e-14 * np.abs(built_in).max())


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_reduced_sleigh_under_coulomb_converges_with_order_K_plus_1(order):
    """Against friction(law=Coulomb) started on its slow manifold (system.slip(..., law=) to order 3):
    the error at t = 2 falls like v_s^(K+1). The normal load m g, written in the sleigh's parameter m."""
    q, u, N = np.zeros(3), np.array([1.0, 0.0, 1.0]), "9.81*m"
    v_s = np.array([0.04, 0.02, 0.01])
    errors = []
    for v in v_s:
        law = nh.laws.Coulomb(0.5, v)
        H = SLEIGH.slip(q, u, 3, law=law, normal=N)
        start = u + sum(v ** (k + 1) * H[k] for k in range(3))
        friction = nh.simulate(SLEIGH.friction(law=law, normal=N), (0, 2), np.r_[q, start], t_eval=[2.0], **TIGHT)
        reduced = nh.simulate(SLEIGH.reduced(order=order, law=law, normal=N), (0, 2), np.r_[q, u], t_eval=[2.0],
                              **TIGHT)
        assert reduced.success and not reduced.warnings
        errors.append(np.abs(reduced.y[:3, -1] - friction.y[:3, -1]).max())
    assert abs(loglog_slope(v_s, errors) - (order + 1)) < 0.3, errors


@pytest.mark.slow
def test_the_expansion_holds_at_order_three():
    """K = 3 (the series arithmetic at degree 2): slope 4 (measured 4.00), started at order 5, rtol 1e-13."""
    q, u, N = np.zeros(3), np.array([1.0, 0.0, 1.0]), 9.81
    v_s, errors, tight = np.array([0.04, 0.02, 0.01]), [], dict(t_eval=[2.0], rtol=1e-13, atol=1e-14)
    for v in v_s:
        law = nh.laws.Coulomb(0.5, v)
        H = SLEIGH.slip(q, u, 5, law=law, normal=N)
        start = np.r_[q, u + sum(v ** (k + 1) * H[k] for k in range(5))]
        friction = nh.simulate(SLEIGH.friction(law=law, normal=N), (0, 2), start, **tight)
        reduced = nh.simulate(SLEIGH.reduced(order=3, law=law, normal=N), (0, 2), np.r_[q, u], **tight)
        errors.append(np.abs(reduced.y[:3, -1] - friction.y[:3, -1]).max())
    assert abs(loglog_slope(v_s, errors) - 4) < 0.3, errors


@pytest.mark.parametrize("mu", [0.5, pytest.param(0.2, marks=pytest.mark.slow)])
def test_creep_of_a_ball_on_an_incline_from_the_friction_and_the_order_one_model(mu):
    """Steady slip v_s r / sqrt(1 - r^2), r = lambda / (mu N) = (2/7) m g sin(alpha) / (mu N)."""
    ball, N, needed = ball_on_incline()
    v_s = 1e-3
    law = nh.laws.Coulomb(mu, v_s=v_s)
    r = needed / (mu * N)
    creep = v_s * r / np.sqrt(1 - r**2)
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], omega=[0, 0, 0])
    n = ball.n
    friction = nh.simulate(ball.friction(law=law, normal=N), (0, 1.0), y0, t_eval=[1.0], **TIGHT)
    A, _ = ball.constraint_matrix(friction.y[:n, -1])
    np.testing.assert_allclose(np.linalg.norm(A @ friction.y[n:, -1]), creep, rtol=1e-6)
    model = ball.reduced(order=1, law=law, normal=N)
    reduced = nh.simulate(model, (0, 1.0), y0, t_eval=[0.5, 1.0], **TIGHT)
    for j in range(2):
        q, u = reduced.y[:n, j], reduced.y[n:, j]
        A, _ = ball.constraint_matrix(q)
        slip = A @ model.slip(reduced.t[j], q, u)
        np.testing.assert_allclose(np.linalg.norm(slip), creep, rtol=1e-6)
        assert slip[0] > 0 and abs(slip[1]) < 1e-12 * creep  # down the slope, ahead of rolling
    np.testing.assert_allclose(reduced.friction_ratio, r, rtol=1e-9)  # the ratio it reports


def test_the_leading_slip_of_a_stribeck_law_is_its_steady_slip():
    """Order 1 under Stribeck friction (no closed form): the slip eps h^(1) is the steady slip of the law
    under the force rolling needs, (-(2/7) m g sin(alpha), 0) (Law.steady_slip, Newton on z itself)."""
    ball, N, needed = ball_on_incline()
    law = nh.laws.Stribeck(0.6, 0.4, 1e-2)
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], omega=[0, 0, 0])
    q, u = y0[: ball.n], y0[ball.n:]
    eps = float(law.scale)
    A, _ = ball.constraint_matrix(q)
    slip = A @ (eps * ball.slip(q, u, 1, law=law, normal=N)[0])
    np.testing.assert_allclose(slip, law.for_rows(2).steady_slip([-needed, 0.0], N=N), rtol=1e-9, atol=1e-15)


def test_the_run_warns_and_stops_at_the_fold_of_the_slow_manifold():
    """A falling normal load N = 2.5 - 0.5 t pushes |lambda| / (mu N) of the sleigh's blade to 1: the
    run warns, reports the ratio and stops at RATIO_STOP, short of the fold; a run that stays well
    inside the cone does not warn."""
    from nonholo.models.law_reduced import RATIO_STOP, RATIO_THRESHOLD

    law = nh.laws.Coulomb(0.5, 1e-2)
    model = SLEIGH.reduced(order=1, law=law, normal="2.5 - 0.5*t")
    y0 = [0, 0, 0, 1.0, 0, 1.0]
    with pytest.warns(nh.SimulationWarning) as record:
        run = nh.simulate(model, (0, 2.5), y0, t_eval=np.linspace(0, 2.5, 26))
    # near the fold the law's slope, the fast rate, falls to the slow ones: both checks say so
    assert {"fold", "outside the range"} <= {key for w in record for key in ("fold", "outside the range")
                                            if key in str(w.message)}
    assert run.spectral_gap["delta"][0] < 0.01 < 0.1 < run.spectral_gap["delta"][-1]
    assert run.status == 1 and run.flag_name == "SLOW_MANIFOLD_FOLD" and 1.5 < run.t_last < 2.5
    assert run.friction_ratio.shape == (1, run.t.size) and np.all(np.diff(run.friction_ratio[0]) > 0)
    assert RATIO_THRESHOLD < run.friction_ratio.max() < RATIO_STOP
    np.testing.assert_allclose(model.friction_ratio(run.t_last, run.y_final), RATIO_STOP, rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        calm = nh.simulate(SLEIGH.reduced(order=1, law=law, normal=9.81), (0, 1), y0, t_eval=[1.0])
    assert calm.status == 0 and calm.friction_ratio.max() < 0.2 and not calm.warnings


def test_outside_the_cone_there_is_no_slow_manifold():
    q, u = np.zeros(3), np.array([1.0, 0.0, 1.0])
    with pytest.raises(nh.ModelError, match="friction cone"):
        SLEIGH.slip(q, u, 1, law=nh.laws.Coulomb(0.5, 1e-2), normal=1.0)
    with pytest.raises(nh.ModelError, match="folds"):
        nh.simulate(SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, 1e-2), normal=1.0), (0, 1), np.r_[q, u])


@pytest.mark.parametrize("call, error, match", [
    (lambda: SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5), normal=9.81), ValueError, "law: .*set-valued"),
    (lambda: SLEIGH.slip([0, 0, 0], [1, 0, 0], 1, law=nh.laws.Coulomb(0.5), normal=9.81), ValueError,
     "law: .*set-valued"),
    (lambda: SLEIGH.reduced(1e-3, order=1, law=nh.laws.Coulomb(0.5, 1e-2), normal=9.81), ValueError,
     "eps = 0.001 and law"),
    (lambda: SLEIGH.reduced(1e-3, order=1, law=nh.laws.Viscous(1.0, 1e-2)), ValueError, "disagree"),
    (lambda: SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, 1e-2)), ValueError, "give normal="),
    (lambda: SLEIGH.reduced(order=1), TypeError, "needs eps"),
    (lambda: SLEIGH.reduced(1e-3, normal=9.81), ValueError, "go with law="),
    (lambda: SLEIGH.reduced(order="auto", law=nh.laws.Coulomb(0.5, 1e-2), normal=9.81), ValueError, "fixed order"),
    (lambda: SLEIGH.reduced(order=1, law="coulomb"), TypeError, "law must be a nonholo.laws law"),
    (lambda: SLEIGH.reduced(order=1, law=nh.laws.Law(-sp.Symbol("s"), slip="s", scale="0.01*(1 + x**2)")),
     ValueError, "law: the scale .* depends on the state"),
])
def test_bad_input_names_the_argument(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_start_off_the_constraint_set_is_refused_or_projected():
    model = SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, 1e-2), normal=9.81)
    off = [0, 0, 0.3, 1.0, 0.2, 1.0]
    with pytest.raises(ValueError, match="the velocity part u of y0 must lie on the constraint set"):
        nh.simulate(model, (0, 0.1), off)
    run = nh.simulate(model, (0, 0.1), off, project_y0=True, t_eval=[0.0])
    np.testing.assert_allclose(run.y[3:, 0], SLEIGH.project(off[:3], off[3:]), rtol=0, atol=1e-15)


def test_simulate_many_refuses_the_python_model_naming_it():
    from nonholo.models.law_reduced import LawReducedModel

    model = SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, 1e-2), normal=9.81)
    reference = LawReducedModel(SLEIGH, model.expansion, 1)
    with pytest.raises(TypeError, match="model: the Python reference of the reduced model of a law"):
        nh.simulate_many(reference, (0, 1), [[0, 0, 0, 1.0, 0, 1.0]])


def test_eps_equal_to_the_law_scale_is_accepted():
    a = SLEIGH.reduced(1e-2, order=1, law=nh.laws.Coulomb(0.5, 1e-2), normal=9.81)
    assert a.eps == pytest.approx(1e-2) and a.order == 1
