"""Reduced models that pay off: compiled slow-manifold coefficients, the reduced state in a frame
of D, the choice of truncation and the invariance residual (nonholo.models.reduced)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems import disk_exact
from nonholo.models.reduced import choose_order
from nonholo.testing import loglog_slope, random_system


def _point(system, seed, t=0.0):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, system.n)
    return q, system.project(q, rng.uniform(-1, 1, system.n), t)


@pytest.mark.parametrize("seed, affine, force", [(3, False, False), (4, True, False), (5, False, True)])
def test_compiled_coefficients_equal_the_taylor_sweeps_at_random_points(seed, affine, force):
    """h^(1..4) from the compiled tape (traced at one point) equal the Taylor-mode expansion (the
    oracle, redone at each point) at other random points of a random system: metric, potential,
    friction depending on q, affine constraints depending on t, forces depending on v."""
    system = random_system(seed, n=4, k=2, affine=affine, force=force)
    order = 4
    compiled = nh.models.reduced.compiled_slip(system, order)
    assert compiled is not None
    p = system.param_vector()
    for point in range(3):
        t = 0.1 * point
        q, u = _point(system, 100 + point, t)
        expected = system.slip(q, u, order=order, t=t)
        got = compiled.evaluate(t, q, u, p)
        assert np.abs(got - expected).max() <= 1e-10 * (1 + np.abs(expected).max())


@pytest.mark.parametrize("seed, affine, force", [(6, False, False), (7, True, True)])
def test_order_one_split_evaluation_equals_the_direct_one(seed, affine, force):
    """The order-1 right-hand side evaluates the geometry at (q, u) and recomputes only its
    velocity-dependent part at (q, v), v = u + eps h^(1), with G and M factored once; it equals
    the direct path (h^(1) from a compiled tape of order 1, the projection blocks evaluated
    afresh at (q, v)) at random points of random systems with affine constraints and forces
    depending on v. The Jacobian by dual numbers goes through the same split."""
    system = random_system(seed, n=4, k=2, affine=affine, force=force)
    q, u = _point(system, 200 + seed, 0.3)
    compiled = nh._core.CompiledSlip(system.core, 1, 0.0, *_point(system, 300 + seed), system.param_vector())
    split, direct = nh._core.reduced_model(system.core, 1), nh._core.reduced_model(system.core, 1, compiled)
    p = np.r_[system.param_vector(), 0.05]
    y = np.r_[q, u]
    expected = direct.rhs(0.3, y, p)
    assert np.abs(split.rhs(0.3, y, p) - expected).max() <= 1e-12 * (1 + np.abs(expected).max())
    J = direct.jacobian(0.3, y, p)
    assert np.abs(split.jacobian(0.3, y, p) - J).max() <= 1e-10 * (1 + np.abs(J).max())


def test_compiled_slip_is_cached_per_system_and_order():
    sleigh = nh.systems.chaplygin_sleigh()
    assert nh.models.reduced.compiled_slip(sleigh, 2) is nh.models.reduced.compiled_slip(sleigh, 2)
    assert sleigh.reduced(1e-3, order=2).compiled_slip is nh.models.reduced.compiled_slip(sleigh, 2)
    assert nh.models.reduced.compiled_slip(sleigh, nh._core.max_compiled_slip_order + 1) is None


def _body_frame(sleigh):
    """The sleigh's body frame: forward velocity, turning, sideways (global on Q, unlike the
    Voronets frame x' = cot(phi) y', which is singular where tan(phi) = 0)."""
    phi = sleigh.coordinates[2]
    return sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])


def _sleigh_state(sleigh):
    q0 = np.array([0.0, 0.0, 0.3])
    return q0, sleigh.project(q0, np.array([-1.5, 0.0, 1.0]))


@pytest.mark.parametrize("order", [0, 1, 2, 3])
def test_frame_form_equals_coordinate_form(order):
    """The state (q, w) of dimension 2n - k gives the trajectory of the state (q, u): same q and
    the same physical velocity, to the integration tolerance."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_state(sleigh)
    frame_model = sleigh.reduced(1e-2, order=order, velocities="frame", frame=_body_frame(sleigh))
    assert frame_model.n_states == 2 * sleigh.n - sleigh.k
    w0 = frame_model.frame.state(q0, u0)[sleigh.n:]
    t = np.linspace(0, 5, 11)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)
    coords = nh.simulate(sleigh.reduced(1e-2, order=order), (0, 5), np.r_[q0, u0], **kw)
    frame = nh.simulate(frame_model, (0, 5), np.r_[q0, w0], **kw)
    assert coords.method == frame.method == "dop853"  # a cheap right-hand side (test_explicit_rk.py)
    assert np.abs(frame.q - coords.q).max() < 1e-8
    assert np.abs(frame.v - coords.v).max() < 1e-8
    assert np.abs(frame.velocity - coords.velocity).max() < 1e-8
    assert np.allclose(frame["x_dot"], coords["x_dot"], atol=1e-8)  # physical velocity by name
    if order:
        assert np.abs(frame.velocity - frame.v).max() > 1e-6  # the slip is included


def test_frame_form_converges_with_order_K_plus_1():
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_state(sleigh)
    eps_values = [0.02, 0.01, 0.005, 0.0025]
    t = np.linspace(0, 5, 21)
    kw = dict(t_eval=t, rtol=1e-12, atol=1e-14, raise_on_failure=True)
    frame = nh.frames.AnholonomicFrame(sleigh, _body_frame(sleigh))
    w0 = frame.state(q0, u0)[sleigh.n:]
    for K in (0, 1, 2, 3):
        errors = []
        for eps in eps_values:
            v0 = sleigh.on_slow_manifold(q0, u0, eps, order=K + 3)
            full = nh.simulate(sleigh.friction(eps), (0, 5), np.r_[q0, v0], **kw)
            red = nh.simulate(sleigh.reduced(eps, order=K, velocities="frame", frame=frame), (0, 5), np.r_[q0, w0],
                              **kw)
            errors.append(np.abs(red.q - full.q).max())
        assert abs(loglog_slope(eps_values, errors) - (K + 1)) < 0.3, (K, errors)


def test_reduced_models_run_with_a_non_stiff_method_and_say_so():
    """The sleigh's reduced model has a cheap right-hand side: DOP853 (test_explicit_rk.py)."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_state(sleigh)
    sol = nh.simulate(sleigh.reduced(1e-3, order=2), (0, 1), np.r_[q0, u0])
    assert sol.method == "dop853" and sol.stats["n_jac"] == 0
    adams = nh.simulate(sleigh.reduced(1e-3, order=2), (0, 1), np.r_[q0, u0], method="adams")
    assert adams.method == "adams" and adams.stats["n_jac"] == 0
    assert nh.simulate(sleigh.reduced(1e-3, order=2), (0, 1), np.r_[q0, u0], method="bdf").method == "bdf"
    assert nh.simulate(sleigh.friction(1e-3), (0, 1), np.r_[q0, u0]).method == "bdf"


def test_choose_order_rules():
    assert choose_order([1e-2, 1e-4, 1e-3, 1e-2]).order == 2  # the next two terms grow
    assert choose_order([1e-2, 1e-4, 1e-3, 1e-5]).order == 4  # a bump, not divergence: the terms fall again
    assert choose_order([1e-2, 1e-4, 1e-3]).reason == "optimal"  # the last term decides as far as it goes
    assert choose_order([1e-2, 1e-4, 1e-3], final=False).reason == "undecided"  # unless more can be computed
    # a term that vanishes at the state by accident (a force zero at t0) stops nothing: t_2 is not small
    assert choose_order([0.0, 2.8e-5, 1.4e-6, 4.9e-9], tolerance=5.1e-9).order == 4
    assert choose_order([1e-2, 1e-4, 1e-6, 1e-8], tolerance=1e-5).order == 3  # t_3 below the tolerance
    assert choose_order([1e-2, 1e-4, 1e-6]).reason == "max_order"
    # two terms vanishing at once (a force growing like t^2 from zero) stop nothing either
    assert choose_order([0.0, 0.0, 3e-5, 1e-7, 1e-9, 1e-11], tolerance=1e-8).order == 5
    assert choose_order([0.0, 0.0, 3e-5, 1e-7], tolerance=1e-8, final=False).reason == "undecided"


def test_auto_from_rest_under_a_force_growing_like_t_squared():
    """A sleigh with its mass ahead of the blade, in plain SymPy, pushed from rest by a force c t^2:
    h^(1) = h^(2) = 0 at t0. The rule of two terms kept order 1, 650 times less accurate in q (4.8e-5)
    than order 3 against the friction model."""
    x, y, th, t = sp.symbols("x y theta t")
    a = 0.2
    G = sp.Matrix([[1, 0, -a * sp.sin(th)], [0, 1, a * sp.cos(th)], [-a * sp.sin(th), a * sp.cos(th), 1 + a**2]])
    f = t**2
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]), time=t,
                       force=sp.Matrix([f * (sp.cos(th) - sp.sin(th)), f * (sp.sin(th) + sp.cos(th)), f / 2]))
    eps, T, q0 = 1e-2, 2.0, np.zeros(3)
    ref = nh.simulate(sleigh.friction(eps), (0, T), np.r_[q0, sleigh.on_slow_manifold(q0, q0, eps, order=8, t=0.0)],
                      t_eval=[T], method="bdf", rtol=1e-12, atol=1e-14).y[:3, -1]
    errors = {K: np.abs(nh.simulate(sleigh.reduced(eps, order=K), (0, T), np.zeros(6), t_eval=[T], rtol=1e-10,
                                    atol=1e-12).q[:, -1] - ref).max() for K in ("auto", 3)}
    assert errors[3] < 2e-7 and errors["auto"] <= errors[3]


def test_auto_stops_where_the_divergent_disk_series_stops_decreasing():
    """The disk's slow-manifold series in eps has a finite radius of convergence (the slow
    eigenvalue of the exact linear problem meets a fast one, nonholo.systems.disk_exact); at
    eps = 1 with heading rate 3 it is beyond it and the terms eps^k |h^(k)| grow after a few
    orders. order="auto" must stop at the first k with t_(k+1) >= t_k, computed here from the
    Taylor-mode coefficients."""
    disk = nh.systems.vertical_rolling_disk()
    eps, th = 1.0, 0.3
    q0 = np.array([th, 0, 0, 0])
    u0 = np.array([3.0, np.cos(th), np.sin(th), 1.0])
    H = disk.slip(q0, u0, order=16)
    terms = np.array([eps ** (k + 1) * np.abs(H[k]).max() for k in range(16)])
    grows = np.nonzero(terms[1:] >= terms[:-1])[0]
    assert grows.size and terms[-1] > terms[0]  # the series diverges at this eps
    expected = int(grows[0]) + 1
    model = disk.reduced(eps, order="auto").truncated_at(0.0, np.r_[q0, u0])
    assert model.order == expected < 16
    assert model.truncation.reason == "optimal" and "stops decreasing" in str(model.truncation)
    with pytest.warns(nh.SimulationWarning, match="left the range where its expansion in eps is valid"):
        sol = nh.simulate(disk.reduced(eps, order="auto"), (0, 0.1), np.r_[q0, u0], rtol=1e-14, atol=1e-16)
    assert sol.model.order == expected and sol.truncation.order == expected and sol.warnings  # beyond the radius


def test_auto_model_refuses_to_evaluate_before_its_order_is_chosen():
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_state(sleigh)
    with pytest.raises(ValueError, match="order='auto' is chosen at an initial state"):
        sleigh.reduced(1e-3, order="auto").rhs(0.0, np.r_[q0, u0])


def test_slow_manifold_residual_has_order_K_plus_1():
    """|s - eps Qmat (f - u' - s')| for the truncation after h^(K) is O(eps^(K+1))."""
    system = random_system(7, n=4, k=2)
    q, u = _point(system, 1)
    eps_values = [0.02, 0.01, 0.005]
    for K in (0, 1, 2, 3, 6):
        residuals = [np.abs(system.slow_manifold_residual(q, u, eps, order=K)).max() for eps in eps_values]
        assert abs(loglog_slope(eps_values, residuals) - (K + 1)) < 0.3, (K, residuals)


# eps ranges per truncation order K for the disk test below (factor 1.375 each): small enough
# that eps^k |h^(k)| decreases up to k = K + 1 and the next-but-one term of the same family is
# a small correction (the fitted slope stays within 0.2 of K + 1), large enough that the residual
# of order K stays far above the round-off of the exact section (about 1e-17): at K = 16 the
# residual is 5e-15 at eps = 0.12.
DISK_EPS_RANGES = {range(1, 5): (0.05, 0.06, 0.06875), range(5, 9): (0.08, 0.096, 0.11),
                   range(9, 13): (0.11, 0.13, 0.15125), range(13, 17): (0.12, 0.14, 0.165)}


def test_disk_truncations_match_the_exact_slow_manifold():
    """sum_{k<=K} eps^k h^(k) against the exact section (disk_exact) for every K = 1..16: the
    residual's slope in eps is K + 1, and it is smaller than the last term kept in each of the
    two directions below, where the terms eps^k |h^(k)| decrease. The disk's coefficients
    alternate between two directions (odd k the lateral slip (0, sin, -cos, 0), even k the
    forward slip (0, cos/m, sin/m, -R/J), notes/003 section 5.2), so the residual is measured in
    the direction of h^(K+1): in the max norm the other direction's eps^(K+2) h^(K+2), five
    times larger per order at high K, would hide the leading term until eps is so small that the
    residual is below round-off."""
    disk = nh.systems.vertical_rolling_disk()
    m, R, J = (disk_exact.disk_parameters(disk)[k] for k in ("m", "R", "J"))
    th = 0.3
    q0 = np.array([th, 0, 0, 0])
    u0 = np.array([1.0, np.cos(th), np.sin(th), 1.0])
    H = disk.slip(q0, u0, order=16)
    directions = np.c_[[0, np.sin(th), -np.cos(th), 0], [0, np.cos(th) / m, np.sin(th) / m, -R / J]]
    for K in range(1, 17):
        eps_values = next(e for ks, e in DISK_EPS_RANGES.items() if K in ks)
        family = K % 2  # h^(K+1): lateral (column 0) when K + 1 is odd
        residuals = []
        for eps in eps_values:
            terms = [eps ** k * np.abs(H[k - 1]).max() for k in range(1, min(K + 1, 16) + 1)]
            assert np.all(np.diff(terms) < 0), (K, eps, terms)
            error = disk_exact.slow_manifold(q0, u0, eps) - u0 - sum(eps ** k * H[k - 1] for k in range(1, K + 1))
            assert np.abs(error).max() < max(terms[max(K - 2, 0):K]), (K, eps)  # the last kept of each direction
            residuals.append(abs(np.linalg.lstsq(directions, error, rcond=None)[0][family]))
        assert abs(loglog_slope(eps_values, residuals) - (K + 1)) < 0.3, (K, residuals)


def test_auto_order_is_not_stopped_by_a_term_that_vanishes_at_the_start():
    """A knife edge spinning at rest, pushed by F_x = sin(t): h^(1) = 0 at t0 = 0 (the force is),
    and the rule that stopped at one small term kept order 1, 2.0e-4 off the friction model at
    eps = 1e-2 where order 3 is 3.7e-8; started at t0 = 0.01 a 3% bump of the second term stopped it
    at order 1 too. Two terms decide: the default run is now as accurate as the fixed orders."""
    x, y, th, t = sp.symbols("x y theta t")
    knife = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                      force=sp.Matrix([sp.sin(t), 0, 0]))
    q0, u0, eps, T = np.array([0, 0, 0.3]), np.array([0, 0, 0.5]), 1e-2, 3.0
    v0 = knife.on_slow_manifold(q0, u0, eps, order=6, t=0.0)
    ref = nh.simulate(knife.friction(eps), (0, T), np.r_[q0, v0], t_eval=[T], rtol=1e-12, atol=1e-14).y[:3, -1]
    third = nh.simulate(knife.reduced(eps, order=3), (0, T), np.r_[q0, u0], t_eval=[T]).y[:3, -1]
    for t0 in (0.0, 0.01):
        run = nh.simulate(knife.reduced(eps, order="auto"), (t0, T), np.r_[q0, u0], t_eval=[T])
        assert run.truncation.order >= 3, run.truncation
        if t0 == 0.0:
            assert np.abs(run.y[:3, -1] - ref).max() <= np.abs(third - ref).max()
