"""Reduced models on the slow manifold: measured convergence orders K + 1 against the friction
model (notes/003 section 5.3, notes/000 section 6 T1), and initial data (Caratheodory)."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import loglog_slope

ORDERS = (0, 1, 2, 3)
SLOPE_BAND = 0.3  # the band; measured slopes sit within 0.16 of K + 1


def polar_disk():
    """The disk with polar position (notes/003 section 4.9): non-flat metric and a potential."""
    theta, r, psi, phi = sp.symbols("theta r psi phi")
    G = sp.diag(0.25, 1, r**2, 0.5)
    A = sp.Matrix([[0, sp.cos(psi), -r * sp.sin(psi), -sp.cos(theta)],
                   [0, sp.sin(psi), r * sp.cos(psi), -sp.sin(theta)]])
    V = sp.Rational(35, 100) * r**2 + sp.Rational(3, 10) * sp.cos(theta)
    return nh.System([theta, r, psi, phi], G, V, A, friction=1.0, name="polar disk")


def _rolling(system, q, w_theta, w_phi):
    """The velocity on D with the given heading and rolling rates (first and last coordinates)."""
    A, _ = system.constraint_matrix(q)
    middle = np.linalg.solve(A[:, 1:3], -(A[:, 0] * w_theta + A[:, 3] * w_phi))
    return np.array([w_theta, *middle, w_phi])


CASES = {
    # system, y0 = [q0, u0], interval, eps values (four, a factor 2 apart, in the asymptotic regime)
    "sleigh": (nh.systems.chaplygin_sleigh, lambda s: [0, 0, 0, -1.5, 0, 1.0], 5.0, [0.02, 0.01, 0.005, 0.0025]),
    "disk": (nh.systems.vertical_rolling_disk,
             lambda s: [0.3, 0, 0, 0, *_rolling(s, [0.3, 0, 0, 0], 1.0, 1.0)], 4.0, [0.04, 0.02, 0.01, 0.005]),
    "polar disk": (polar_disk, lambda s: [0.4, 1.5, 0.2, 0, *_rolling(s, [0.4, 1.5, 0.2, 0], 0.8, 1.2)], 1.0,
                   [0.08, 0.04, 0.02, 0.01]),
}


@pytest.fixture(scope="module", params=list(CASES))
def study(request):
    factory, y0, T, eps = CASES[request.param]
    system = factory()
    return nh.studies.convergence(system, eps, y0(system), (0.0, T), orders=ORDERS, progress=False)


def test_reduced_models_converge_with_order_K_plus_1(study):
    for K in ORDERS:
        assert abs(study.slopes[K] - (K + 1)) < SLOPE_BAND, study.table()
    # and each order improves on the previous one at the smallest eps
    errors_at_smallest = [study.errors[K][-1] for K in ORDERS]
    assert all(a > 10 * b for a, b in zip(errors_at_smallest, errors_at_smallest[1:]))


def test_truncated_slip_residual_has_order_K_plus_1(study):
    """|P_perp v - v_b - sum_{k<=K} eps^k h^(k)| along the friction model is O(eps^(K+1))."""
    for K in ORDERS:
        assert abs(study.slip_slopes[K] - (K + 1)) < SLOPE_BAND


def test_convergence_plot(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    factory, y0, T, eps = CASES["sleigh"]
    system = factory()
    result = nh.studies.convergence(system, eps[:3], y0(system), (0, 2.0), orders=(0, 1), progress=False)
    fig, ax = plt.subplots()
    nh.plot.convergence(result, ax=ax)
    fig.savefig(tmp_path / "convergence.png")
    plt.close(fig)
    assert (tmp_path / "convergence.png").stat().st_size > 5000
    assert len(ax.get_legend().get_texts()) == 2


def test_caratheodory_start():
    """Start the friction disk off the slow manifold (forward and lateral slip). The limit started
    from the naive data (heading and rolling rates kept, the slip dropped) is wrong by O(1); from
    the projection P v (Eldering section 7 item 2) by O(eps); from the base point of the fast
    fibre with its first-order correction (System.fibre_base) by O(eps^2)."""
    disk = nh.systems.vertical_rolling_disk()
    q0 = np.array([0.3, 0.0, 0.0, 0.0])
    v0 = _rolling(disk, q0, 1.0, 1.0) + np.array([0, 0.4 * np.cos(0.3) - 0.2 * np.sin(0.3),
                                                  0.4 * np.sin(0.3) + 0.2 * np.cos(0.3), 0])
    naive = _rolling(disk, q0, v0[0], v0[3])
    projected = disk.project(q0, v0)
    kw = dict(t_eval=np.linspace(0.5, 3, 26), rtol=1e-12, atol=1e-14)
    errors = {"naive": [], "projected": [], "fibre": []}
    eps_values = [0.02, 0.01, 0.005, 0.0025]
    for eps in eps_values:
        full = nh.simulate(disk.friction(eps), (0, 3), np.r_[q0, v0], **kw)
        reduced = disk.reduced(eps, order=1)
        q_f, u_f = disk.fibre_base(q0, v0, eps, order=1)
        starts = [("naive", np.r_[q0, naive]), ("projected", np.r_[q0, projected]), ("fibre", np.r_[q_f, u_f])]
        for name, start in starts:
            red = nh.simulate(reduced, (0, 3), start, **kw)
            errors[name].append(np.abs(red.q - full.q).max())
    slope = {k: loglog_slope(eps_values, v) for k, v in errors.items()}
    assert min(errors["naive"]) > 0.05 and abs(slope["naive"]) < 0.2  # O(1): does not go away
    assert abs(slope["projected"] - 1) < SLOPE_BAND
    assert abs(slope["fibre"] - 2) < SLOPE_BAND
    assert errors["fibre"][-1] < errors["projected"][-1] / 20


def test_reduced_model_pickles_with_its_order():
    sleigh = nh.systems.chaplygin_sleigh()
    model = sleigh.reduced(1e-2, order=3)
    y0 = [0, 0, 0, -1.5, 0, 1.0]
    run = lambda m: nh.simulate(m, (0, 1), y0, t_eval=[1.0]).y  # noqa: E731
    first = run(model)  # before pickling: a BDF run's measured Jacobian cost travels with the copy
    clone = pickle.loads(pickle.dumps(model))
    assert clone.order == 3 and clone.eps == 1e-2 and clone.kind == "reduced"
    np.testing.assert_array_equal(clone.core.measured_jacobian_cost, model.core.measured_jacobian_cost)
    assert np.array_equal(first, run(clone))


def test_on_slow_manifold_has_the_slip_of_the_friction_model():
    """Started on the manifold of order 4, the friction sleigh shows no initial layer: its slip
    after a few fast time constants equals the manifold's to O(eps^5)."""
    sleigh = nh.systems.chaplygin_sleigh()
    eps, q0, u0 = 0.01, np.zeros(3), np.array([-1.5, 0, 1.0])
    v0 = sleigh.on_slow_manifold(q0, u0, eps, order=4)
    full = nh.simulate(sleigh.friction(eps), (0, 0.1), np.r_[q0, v0], t_eval=np.linspace(0, 0.1, 11),
                       rtol=1e-13, atol=1e-15)
    for q, v in zip(full.q.T, full.v.T):
        u = sleigh.project(q, v)
        manifold = sleigh.on_slow_manifold(q, u, eps, order=4)
        assert np.abs(v - manifold).max() < 50 * eps**5


def test_reduced_result_velocity_includes_the_slip():
    """result.velocity of a reduced model is u + sum eps^k h^(k): close to the friction model's
    velocity (O(eps^(K+1))), unlike the state u itself (O(eps))."""
    sleigh = nh.systems.chaplygin_sleigh()
    eps, y0 = 0.01, [0, 0, 0, -1.5, 0, 1.0]
    t = np.linspace(0, 3, 7)
    red = nh.simulate(sleigh.reduced(eps, order=2), (0, 3), y0, t_eval=t, rtol=1e-11, atol=1e-13)
    v0 = sleigh.on_slow_manifold(np.zeros(3), np.array(y0[3:]), eps, order=4)
    full = nh.simulate(sleigh.friction(eps), (0, 3), np.r_[np.zeros(3), v0], t_eval=t, rtol=1e-11, atol=1e-13)
    assert np.abs(red.velocity - full.v).max() < 1e-4 < np.abs(red.v - full.v).max()
    assert np.allclose(red.energy(), full.energy(), atol=1e-4)


def test_system_parameter_named_eps_is_rejected_by_models_with_their_own_eps():
    x, y = sp.symbols("x y")
    e = sp.Symbol("eps")
    system = nh.System([x, y], sp.diag(1, 1 + e), constraints=[[1, 0]], parameters={e: 0.1})
    assert system.nonholonomic().params["eps"] == 0.1
    with pytest.raises(ValueError, match="parameters named \\['eps'\\]"):
        system.friction(1e-3)
