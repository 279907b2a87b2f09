"""The reduced model of a nonlinear friction law in C++ (nonholo.models.law_core; the core's one reduced
model with its slip from cpp/include/nonholo/law_slow_manifold.hpp) against its Python reference
(nonholo.system.law_slow_manifold, nonholo.models.law_reduced): the slip coefficients and the right-hand
side agree to 1e-12 relative at random states, orders 0..3, on the sleigh, a chain of knife edges and
random systems, under Coulomb, Stribeck, a Magic Formula tire and a law written with Law(...); the
Jacobian (dual numbers through Newton's method and the series) against central differences of the
right-hand side.

One pair is ill-conditioned: the Magic Formula tire on random_system(0) (scale 0.13) at the second
state, where h^(3) of the two implementations differs by 2.2e-12 of its size and a change of the
reference's normal loads by 1e-14 of themselves changes the reference's h^(3) by 2.1e-12. Where the
1e-12 bound fails, the test asks for agreement within twice that spread of the reference itself."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.models.law_core import CoreLawReducedModel
from nonholo.models.law_reduced import LawReducedModel
from nonholo.system.law_slow_manifold import LawSlowManifold
from nonholo.testing import random_system

SLEIGH = nh.systems.chaplygin_sleigh()
CHAIN = nh.systems.knife_edge_chain(3)


def hand_written(mu=0.5, v_s=2e-2):
    """A regularized dry friction of one row written with Law(...), in a form no built-in law has:
    -mu N tanh(s / v_s), saturating at mu N."""
    s, N = sp.Symbol("s", real=True), sp.Symbol("N", positive=True)
    return nh.laws.Law(-mu * N * sp.tanh(s / v_s), slip=s, normal=N, scale=v_s, saturation=mu)


LAWS = {
    "coulomb": (nh.laws.Coulomb(0.5, 2e-2), {}),
    "stribeck": (nh.laws.Stribeck(0.6, 0.4, 2e-2), {}),
    "magic": (nh.laws.MagicFormula(10.0, 1.9, 0.8, 0.2), {"speed": 2.0}),
    "written": (hand_written(), {}),
}
SYSTEMS = {"sleigh": SLEIGH, "chain": CHAIN, "random0": random_system(0), "random1": random_system(1, affine=True,
                                                                                                  force=True)}


def state(system, seed, t=0.3):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, system.n)
    return q, system.project(q, rng.uniform(-1, 1, system.n), t)


def loads(system, law, q, u, t, ratio, extra):
    """Normal loads that put each contact at the friction ratio ``ratio`` at (t, q, u) (the nonlinear
    part of the law in play, inside the cone)."""
    probe = LawSlowManifold(system, law, normal=1.0, **extra)
    rho = probe.friction_ratio(t, q, u, system.param_vector())  # |lambda_c| / (saturation * 1)
    return [max(float(r) / ratio, 1e-3) for r in rho]


def pair(system, law, extra, normal, order):
    expansion = LawSlowManifold(system, law, normal=normal, **extra)
    return CoreLawReducedModel(system, expansion, order), LawReducedModel(system, expansion, order)


@pytest.mark.parametrize("system_name", list(SYSTEMS))
@pytest.mark.parametrize("law_name", list(LAWS))
def test_the_cpp_expansion_is_the_python_reference(system_name, law_name):
    system, (law, extra) = SYSTEMS[system_name], LAWS[law_name]
    t = 0.3
    for seed in range(2):
        q, u = state(system, seed, t)
        normal = loads(system, law, q, u, t, 0.6, extra)
        expansion = LawSlowManifold(system, law, normal=normal, **extra)
        p = system.param_vector()
        H = system.slip(q, u, 4, t=t, law=law, normal=normal, **extra)  # the default: C++
        H_ref = expansion.slip(t, q, u, p, 4)
        differences = [np.abs(H[k] - H_ref[k]).max() / np.abs(H_ref[k]).max() for k in range(4)]
        if max(differences) > 1e-12:  # ill-conditioned: within the reference's own spread at 1e-14 of its input
            nudged = LawSlowManifold(system, law, normal=[x * (1 + 1e-14) for x in normal], **extra)
            H_nudged = nudged.slip(t, q, u, p, 4)
            spread = [np.abs(H_nudged[k] - H_ref[k]).max() / np.abs(H_ref[k]).max() for k in range(4)]
            assert all(d <= max(1e-12, 2 * s) for d, s in zip(differences, spread)), (differences, spread)
        y = np.r_[q, u]
        for order in range(4):
            core, reference = pair(system, law, extra, normal, order)
            f, f_ref = core.rhs(t, y), reference.rhs(t, y)
            np.testing.assert_allclose(f, f_ref, rtol=0, atol=1e-12 * np.abs(f_ref).max())


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_jacobian_by_dual_numbers_is_the_derivative_of_the_right_hand_side(order):
    """Dual numbers through Newton's method (one correction step in dual arithmetic) and the series
    sweeps, against central differences (step 1e-6: error about 1e-10 of the largest entry)."""
    system, law, t = random_system(2, affine=True), nh.laws.Stribeck(0.6, 0.4, 2e-2), 0.3
    q, u = state(system, 3, t)
    model = pair(system, law, {}, loads(system, law, q, u, t, 0.6, {}), order)[0]
    y, h = np.r_[q, u], 1e-6
    J = model.jacobian(t, y)
    fd = np.column_stack([(model.rhs(t, y + h * e) - model.rhs(t, y - h * e)) / (2 * h) for e in np.eye(y.size)])
    np.testing.assert_allclose(J, fd, rtol=0, atol=1e-7 * np.abs(fd).max())


def test_the_default_is_the_cpp_model_and_takes_parameters():
    """system.reduced(order=K, law=...) builds the C++ model; a parameter given at call time (the
    sleigh's mass, which the normal load 9.81 m reads) reaches the law and the dynamics alike."""
    law, normal = nh.laws.Coulomb(0.5, 1e-2), "9.81*m"
    model = SLEIGH.reduced(order=2, law=law, normal=normal)
    assert isinstance(model, CoreLawReducedModel) and model.order == 2 and model.eps == pytest.approx(1e-2)
    reference = LawReducedModel(SLEIGH, LawSlowManifold(SLEIGH, law, normal=normal), 2)
    q, u = state(SLEIGH, 7)
    for params in (None, {"m": 2.0, "a": 0.3}):
        f, f_ref = model.rhs(0.1, np.r_[q, u], params), reference.rhs(0.1, np.r_[q, u], params)
        np.testing.assert_allclose(f, f_ref, rtol=0, atol=1e-12 * np.abs(f_ref).max())
        np.testing.assert_allclose(model.friction_ratio(0.1, np.r_[q, u], params),
                                   reference.friction_ratio(0.1, np.r_[q, u], params), rtol=1e-13)
    assert not np.allclose(model.rhs(0.1, np.r_[q, u]), model.rhs(0.1, np.r_[q, u], {"m": 2.0, "a": 0.3}))


def test_runs_of_the_cpp_model_follow_the_reference_run():
    """nh.simulate on the C++ model (default: DOP853 with the fold event on its dense output, the
    model's right-hand side being cheap against Adams' step; method="adams": CVODE with the same
    event) and on the Python reference (SciPy's DOP853) reach the same state at t = 2 to the tolerance."""
    law, y0 = nh.laws.Stribeck(0.6, 0.4, 1e-2), np.array([0, 0, 0, 1.0, 0, 1.0])
    model = SLEIGH.reduced(order=2, law=law, normal=9.81)
    reference = LawReducedModel(SLEIGH, model.expansion, 2)
    tight = dict(t_eval=[1.0, 2.0], rtol=1e-11, atol=1e-12)
    default = nh.simulate(model, (0, 2), y0, **tight)
    adams = nh.simulate(model, (0, 2), y0, method="adams", **tight)
    python = nh.simulate(reference, (0, 2), y0, **tight)
    assert model.core.explicit_rk_pays
    assert default.method == "dop853" and adams.method == "adams" and python.method == "dop853"
    assert default.method_reason.endswith("DOP853 with its fold event")
    for run in (default, adams):
        assert run.status == 0 and not run.warnings
        np.testing.assert_allclose(run.y, python.y, rtol=0, atol=1e-8)
        np.testing.assert_allclose(run.friction_ratio, python.friction_ratio, rtol=1e-7)
        np.testing.assert_allclose(run.velocity, python.velocity, rtol=0, atol=1e-8)
