"""Rigid bodies rolling on a plane (nonholo.bodies, nonholo.contact and the built-in 3-D systems):
first integrals and closed forms at random initial data, the unit-norm projection, the
inversion condition of the tippe top and the same body through sympy.physics.mechanics (the
rattleback: tests/test_rattleback.py)."""

import importlib
import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.builders.bodies import (RigidBody, euler_from_quaternion, quaternion_from_euler, quaternion_from_matrix,
                            quaternion_rates, quaternion_with_down, rotation_matrices)
from nonholo.builders.contact import Ellipsoid, Sphere, body_angular_velocity, roll_on_plane, rolling_state
from nonholo.systems.chaplygin_ball import chaplygin_density, contact_angular_momentum
from nonholo.systems.tippe_top import inverts, jellett
from nonholo.testing import kanes_rolling_body, rolling_vector_field_difference

disc_module = importlib.import_module("nonholo.systems.rolling_disc")

# Integrations of conservative models at rtol 1e-12 keep their first integrals to a few 1e-12
# over the O(5) time units used here; 1e-10 (the figure) leaves a factor of 10.
INTEGRAL_TOL = 1e-10

@pytest.fixture(scope="module")
def ball():
    return nh.systems.chaplygin_ball(m=1.0, r=0.5, inertia=(0.2, 0.3, 0.45))


@pytest.fixture(scope="module")
def disc():
    return nh.systems.rolling_disc()


def _random_attitude(rng):
    return quaternion_from_euler(*rng.uniform(-np.pi, np.pi, 3) * [1, 0.45, 1])


@pytest.mark.parametrize("seed", [0, 1])
def test_chaplygin_ball_energy_and_contact_momentum(ball, seed):
    rng = np.random.default_rng(seed)
    y0 = rolling_state(ball, _random_attitude(rng), rng.normal(size=3) * 2)
    r = nh.simulate(ball.nonholonomic(), (0, 5), y0, rtol=1e-12, atol=1e-14)
    E, K = r.energy(), contact_angular_momentum(r)
    assert np.abs(E - E[0]).max() < INTEGRAL_TOL * abs(E[0])
    assert np.abs(K - K[:, :1]).max() < INTEGRAL_TOL * np.linalg.norm(K[:, 0])
    assert r.constraint_residual().max() < 1e-12
    assert r.unit_norm_residual().max() < 1e-14


def _ball_reduced(ball, y):
    """(M, gamma_1, gamma_2): contact angular momentum and downward vertical in body axes."""
    p = ball.parameters
    m, r = (float(p[sp.Symbol(n)]) for n in ("m", "r"))
    I = np.diag([float(p[sp.Symbol(n)]) for n in ("I1", "I2", "I3")])
    gamma = -rotation_matrices(y[2:6])[2]
    omega = body_angular_velocity(y[:6, None], y[6:, None])[:, 0]
    M = I @ omega + m * r**2 * (omega - gamma * (gamma @ omega))
    return np.r_[M, gamma[:2]], (m, r, I)


def _ball_state(ball, z, m, r, I):
    gamma = np.r_[z[3:], -np.sqrt(1 - z[3] ** 2 - z[4] ** 2)]
    omega = np.linalg.solve(I + m * r**2 * (np.eye(3) - np.outer(gamma, gamma)), z[:3])
    return rolling_state(ball, quaternion_with_down(gamma), omega)


def test_chaplygin_ball_invariant_measure_on_a_cloud(ball):
    """The flow of (M, gamma) preserves rho d^3M dsigma(gamma), rho Chaplygin's density; in the
    chart (M, gamma_1, gamma_2), dsigma = d gamma_1 d gamma_2 / |gamma_3|. A cloud of 10 states
    (central differences, step h) gives the Jacobian determinant of the time-T map."""
    rng = np.random.default_rng(4)
    y0 = rolling_state(ball, _random_attitude(rng), rng.normal(size=3))
    z0, (m, r, I) = _ball_reduced(ball, y0)
    model, T, h = ball.nonholonomic(), 1.5, 1e-5

    def flow(z):
        res = nh.simulate(model, (0, T), _ball_state(ball, z, m, r, I), t_eval=[T], rtol=1e-12, atol=1e-14)
        return _ball_reduced(ball, res.y[:, -1])[0]

    D = np.stack([(flow(z0 + h * e) - flow(z0 - h * e)) / (2 * h) for e in np.eye(5)], axis=1)
    zT = flow(z0)

    def density(z, with_rho=True):
        gamma = np.r_[z[3:], -np.sqrt(1 - z[3] ** 2 - z[4] ** 2)]
        rho = (1 - m * r**2 * gamma @ np.linalg.solve(I + m * r**2 * np.eye(3), gamma)) ** -0.5
        return (rho if with_rho else 1.0) / abs(gamma[2])

    # |det|: the chart's orientation flips when gamma_3 changes sign along the way. Central
    # differences of an rtol-1e-12 flow with h = 1e-5 carry errors ~1e-7 per entry.
    det = abs(np.linalg.det(D))
    assert abs(det * density(zT) / density(z0) - 1) < 1e-5
    # the density matters: without it the volume is not conserved
    assert abs(det * density(zT, False) / density(z0, False) - 1) > 1e-3
    # the result-level helper gives the same rho
    res = nh.simulate(model, (0, T), y0, t_eval=[0, T], rtol=1e-10, atol=1e-12)
    assert chaplygin_density(res)[0] == pytest.approx(density(z0) * abs(-np.sqrt(1 - z0[3] ** 2 - z0[4] ** 2)),
                                                      rel=1e-12)


def test_quaternion_norm_held_over_ten_thousand_rotations(ball):
    """A ball spinning at one turn per unit time for 10^4 turns: with the position projection
    the quaternion norm at every step stays 1 to 1e-12 (loose rtol: the norm is the subject);
    without it the norm drifts far beyond that."""
    omega = 2 * np.pi * np.array([0.36, 0.48, 0.8])  # |omega| = 2 pi
    y0 = rolling_state(ball, quaternion_from_euler(0.3, 0.2, 0.1), omega)
    r = nh.simulate(ball.nonholonomic(), (0, 1e4), y0, rtol=1e-2, atol=1e-4, max_steps=10**6)
    assert r.success
    assert r.unit_norm_residual().max() < 1e-12
    free = nh.simulate(ball.nonholonomic(), (0, 1e2), y0, rtol=1e-3, atol=1e-6, drift_control=False,
                       method="bdf")
    assert free.unit_norm_residual().max() > 1e-8


def _lean_crossing_frequency(t, lean):
    c = lean - 0.5 * (lean.max() + lean.min())
    i = np.nonzero(np.sign(c[:-1]) != np.sign(c[1:]))[0]
    tz = t[i] - c[i] * (t[i + 1] - t[i]) / (c[i + 1] - c[i])
    return np.pi / np.mean(np.diff(tz))


@pytest.mark.parametrize("factor", [1.3, 2.0])
def test_rolling_disc_lean_frequency_matches_closed_form(disc, factor):
    rng = np.random.default_rng(int(10 * factor))
    params = {"m": rng.uniform(0.5, 2), "r": rng.uniform(0.5, 1.5), "g": 9.81}
    # a thinner or thicker disc: A near m r^2 / 4 and C <= 2 A (the triangle inequality of any body)
    params["A"] = params["m"] * params["r"] ** 2 * 0.25 * rng.uniform(0.9, 1.1)
    params["C"] = 2 * params["A"] * rng.uniform(0.9, 1.0)
    args = [params[k] for k in ("m", "r", "A", "C", "g")]
    w = factor * disc_module.upright_critical_spin(*args)
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 1e-5), [0, w, 0], params=params)
    t = np.linspace(0, 12, 6001)
    r = nh.simulate(disc.nonholonomic(), (0, 12), y0, t_eval=t, params=params, rtol=1e-11, atol=1e-13)
    lean = r["lean"]
    assert np.abs(lean).max() < 1e-4  # stable
    assert _lean_crossing_frequency(t, lean) == pytest.approx(disc_module.lean_frequency(w, *args), rel=1e-4)


def test_rolling_disc_falls_below_critical_spin(disc):
    args = disc.param_vector()
    w = 0.8 * disc_module.upright_critical_spin(*args)
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 1e-5), [0, w, 0])
    r = nh.simulate(disc.nonholonomic(), (0, 8), y0, t_eval=np.linspace(0, 8, 81), rtol=1e-10, atol=1e-12)
    assert np.abs(r["lean"]).max() > 0.1  # grew by four orders of magnitude


def test_rolling_disc_long_run_energy_and_contact_residual(disc):
    y0 = rolling_state(disc, quaternion_from_euler(0.2, 0.4, 0.3), [0.3, 4.0, 1.0])
    r = nh.simulate(disc.nonholonomic(), (0, 20), y0, rtol=1e-11, atol=1e-13)
    E = r.energy()
    assert np.abs(E - E[0]).max() < 1e-8 * abs(E[0])
    assert r.constraint_residual().max() < 1e-12
    assert r["slip"].max() < 1e-11
    assert r.unit_norm_residual().max() < 1e-14


def test_tippe_top_inversion_condition_both_sides():
    """With sliding (viscous) friction a random top (mass, radius, alpha) inverts for a random
    I1/I3 inside 1 - alpha < I1/I3 < 1 + alpha, keeps spinning on its round end below the
    window and stops short of the inverted state above it; Jellett's integral is conserved in
    every run to a few times the integration tolerance; rolling without slip never inverts."""
    rng = np.random.default_rng(4)
    m, R, alpha = rng.uniform(0.01, 0.03), rng.uniform(0.015, 0.03), rng.uniform(0.2, 0.4)
    I3 = 0.4 * m * R**2
    below, inside, above = (1 - alpha - rng.uniform(0.08, 0.15), rng.uniform(1 - alpha / 2, 1 + alpha / 3),
                            1 + alpha + rng.uniform(0.08, 0.15))
    e3_end = {}
    for ratio in (below, inside, above):
        top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=ratio * I3)
        y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
        r = nh.simulate(top.friction(1.0), (0, 2.5), y0, t_eval=np.linspace(0, 2.5, 26), rtol=1e-9, atol=1e-11)
        J = jellett(r)
        assert np.abs(J - J[0]).max() < 1e-7 * abs(J[0])  # measured 2e-10 .. 2e-8 at rtol 1e-9
        e3_end[ratio] = rotation_matrices(r.q[2:6])[-1, 2, 2]
        assert (e3_end[ratio] < -0.99) == inverts(ratio * I3, I3, alpha), (ratio, e3_end[ratio])
    assert e3_end[below] > 0.99  # stays spinning on its round end
    assert e3_end[above] > -0.9  # does not reach the inverted state
    coulomb = nh.systems.tippe_top(friction="coulomb", friction_coefficient=0.3, eps=1e-2)
    y0 = rolling_state(coulomb, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
    r = nh.simulate(coulomb.nonholonomic(), (0, 3), y0, t_eval=np.linspace(0, 3, 31), rtol=1e-9, atol=1e-11)
    J = jellett(r)
    assert np.abs(J - J[0]).max() < 1e-7 * abs(J[0])
    assert rotation_matrices(r.q[2:6])[-1, 2, 2] < -0.95  # regularized Coulomb sliding inverts it too
    top = nh.systems.tippe_top()
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0])
    r = nh.simulate(top.nonholonomic(), (0, 2.5), y0, t_eval=np.linspace(0, 2.5, 26), rtol=1e-9, atol=1e-11)
    assert rotation_matrices(r.q[2:6])[:, 2, 2].min() > 0.9
    J = jellett(r)
    assert np.abs(J - J[0]).max() < 1e-7 * abs(J[0])


def test_same_body_through_kanes_method_gives_the_same_vector_field():
    """A sphere with an offset centre of mass and a full inertia tensor, built twice: by
    sympy.physics.mechanics (the oracle) and by nh.bodies / nh.contact."""
    m, rad, g = sp.symbols("m r g")
    c = sp.Matrix([0.1, -0.05, -0.3]) * rad
    inertia = m * rad**2 * sp.Matrix([[0.3, 0.02, -0.01], [0.02, 0.25, 0.03], [-0.01, 0.03, 0.4]])
    values = {m: 1.3, rad: 0.7, g: 9.81}
    oracle = kanes_rolling_body(lambda gamma: rad * gamma, c, inertia, m, g, values)
    mine = roll_on_plane(RigidBody(m, inertia, com_offset=c), Sphere(rad), gravity=g, parameters=values)
    assert rolling_vector_field_difference(oracle, mine, n_states=5, seed=7) < 1e-12
    # the check can fail: a body with another centre of mass rolls with other velocities
    other = roll_on_plane(RigidBody(m, inertia, com_offset=1.01 * c), Sphere(rad), gravity=g, parameters=values)
    with pytest.raises(AssertionError, match="no-slip velocities differ"):
        rolling_vector_field_difference(oracle, other, n_states=1, seed=7)


def test_builtin_systems_pickle():
    """Built-in 3-D systems survive pickling with their unit-norm group and display outputs
    (their build times are measured in benchmarks/rolling_bodies.py)."""
    for factory in (nh.systems.chaplygin_ball, nh.systems.rolling_disc, nh.systems.tippe_top):
        copy = pickle.loads(pickle.dumps(factory()))
        assert copy.unit_norm == [[2, 3, 4, 5]]
        assert set(copy.outputs) >= {"roll", "pitch", "yaw", "z", "slip"}


def test_euler_angles_and_quaternions_round_trip():
    rng = np.random.default_rng(2)
    for _ in range(10):
        yaw, pitch, roll = rng.uniform(-3, 3), rng.uniform(-1.5, 1.5), rng.uniform(-3, 3)
        q = quaternion_from_euler(yaw, pitch, roll)
        angles = euler_from_quaternion(q[:, None])
        assert [angles[k][0] for k in ("yaw", "pitch", "roll")] == pytest.approx([yaw, pitch, roll], abs=1e-12)
        R = rotation_matrices(q)
        assert np.abs(quaternion_from_matrix(R) - q * np.sign(q[0])).max() < 1e-12
        gamma = rng.normal(size=3)
        gamma /= np.linalg.norm(gamma)
        assert -rotation_matrices(quaternion_with_down(gamma))[2] == pytest.approx(gamma, abs=1e-12)
        omega = rng.normal(size=3)
        E = np.array([[-q[1], q[0], q[3], -q[2]], [-q[2], -q[3], q[0], q[1]], [-q[3], q[2], -q[1], q[0]]])
        assert 2 * E @ quaternion_rates(q, omega) == pytest.approx(omega, abs=1e-12)


def test_rolling_bad_input():
    with pytest.raises(ValueError, match="mass"):
        RigidBody(-1.0, (1, 1, 1))
    with pytest.raises(ValueError, match="inertia"):
        RigidBody(1.0, (1, 1))
    with pytest.raises(ValueError, match="positive definite"):
        RigidBody(1.0, (1, -1, 1))
    with pytest.raises(ValueError, match="com_offset"):
        RigidBody(1.0, (1, 1, 1), com_offset=(0, 0))
    with pytest.raises(TypeError, match="surface"):
        roll_on_plane(RigidBody(1.0, (1, 1, 1)), "sphere")
    with pytest.raises(ValueError, match="friction"):
        roll_on_plane(RigidBody(1.0, (1, 1, 1)), Ellipsoid(1, 2, 3), friction="dry")
    with pytest.raises(ValueError, match="unknown rattleback"):
        nh.systems.rattleback(width=1)
    ball = nh.systems.chaplygin_ball()
    with pytest.raises(ValueError, match="quaternion"):
        rolling_state(ball, [0, 0, 0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="omega"):
        rolling_state(ball, [1, 0, 0, 0], [1, 2])
    with pytest.raises(ValueError, match="unit_norm"):
        nh.System(sp.symbols("a b"), sp.eye(2), unit_norm=[["a", "c"]])
    with pytest.raises(KeyError, match="outputs"):
        nh.simulate(ball.nonholonomic(), (0, 0.1), rolling_state(ball, [1, 0, 0, 0], [1, 0, 0]))["nope"]


def test_hamel_model_in_body_angular_velocity_matches(ball):
    """The quasi-velocities of nh.contact.body_frame are the body angular velocity (and the
    radial rate, 0): the Hamel model follows the nonholonomic one in (q, q')."""
    from nonholo.builders.contact import body_frame

    y0 = rolling_state(ball, quaternion_from_euler(0.3, 0.2, 0.1), [1.0, 2.0, 3.0])
    hamel = body_frame(ball).hamel()
    r = nh.simulate(hamel, (0, 3), np.r_[y0[:6], 1.0, 2.0, 3.0, 0.0], t_eval=[0, 3], rtol=1e-12, atol=1e-14)
    ref = nh.simulate(ball.nonholonomic(), (0, 3), y0, t_eval=[0, 3], rtol=1e-12, atol=1e-14)
    assert np.abs(r.q[:, -1] - ref.q[:, -1]).max() < 1e-9
    assert r.y[6:9, -1] == pytest.approx([ref[f"omega_{i}"][-1] for i in (1, 2, 3)], abs=1e-9)
    assert abs(r.y[9, -1]) < 1e-12
    assert r.unit_norm_residual().max() < 1e-14
    with pytest.raises(ValueError, match="roll_on_plane"):
        body_frame(nh.systems.chaplygin_sleigh())


@pytest.mark.parametrize("surface", [Sphere(0.5, center=(0.05, -0.02, 0.1)), Ellipsoid(0.3, 0.2, 0.1),
                                     nh.contact.Paraboloid(0.4, 0.15), nh.contact.Disc(0.4, axis=(1.0, 0.0, 0.0))],
                         ids=["sphere", "ellipsoid", "paraboloid", "disc"])
def test_contact_point_is_at_rest_vertically_and_energy_is_kept(surface):
    """No slip is imposed horizontally only: the vertical velocity of the body's material point
    at the contact, z_G' + [R (Omega x d)]_z, vanishes by the support property; and a rolling
    run keeps its energy."""
    from nonholo.builders.contact import contact_geometry

    body = RigidBody(1.2, np.diag([0.05, 0.06, 0.04]) + 0.003, com_offset=(0.01, 0.02, -0.03))
    system = roll_on_plane(body, surface)
    quat = sp.symbols("a0:4")
    geo = contact_geometry(body, surface, quat)
    d_f = sp.lambdify([quat], geo["d"], "numpy")
    z_f = sp.lambdify([quat], geo["z"], "numpy")
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = quaternion_with_down(np.r_[rng.normal(size=2) * 0.2, -1.0])
        y = rolling_state(system, q, rng.normal(size=3))
        h = 1e-6
        z_dot = (z_f(y[2:6] + h * y[8:12]) - z_f(y[2:6] - h * y[8:12])) / (2 * h)
        omega = body_angular_velocity(y[:6, None], y[6:, None])[:, 0]
        vertical = z_dot + (rotation_matrices(y[2:6]) @ np.cross(omega, np.asarray(d_f(y[2:6]), float).ravel()))[2]
        assert abs(vertical) < 1e-8 * (1 + np.abs(omega).max())
    r = nh.simulate(system.nonholonomic(), (0, 0.5), y, rtol=1e-11, atol=1e-13)  # before a disc falls flat
    E = r.energy()
    assert np.abs(E - E[0]).max() < 1e-8 * abs(E[0])


def test_slow_manifold_and_discrete_integrator_apply_to_a_rolling_body(ball):
    """A rolling body is an ordinary System: the order-1 slow-manifold model follows its viscous
    friction realization to O(eps^2) while the rolling model is O(eps) off (fitted orders over
    eps = 1e-2, 5e-3), and the midpoint discrete Lagrange-d'Alembert integrator converges at
    order 2 in h, holds the constraints to round-off and keeps |q| = 1 without projection."""
    from nonholo.integrate.discrete import simulate_discrete

    y0 = rolling_state(ball, quaternion_from_euler(0.3, 0.2, 0.1), [1.0, 2.0, 3.0])
    t = np.linspace(0, 1, 11)
    rolling = nh.simulate(ball.nonholonomic(), (0, 1), y0, t_eval=t, rtol=1e-11, atol=1e-13).q
    off_rolling, off_reduced = [], []
    for eps in (1e-2, 5e-3):
        sliding = nh.simulate(ball.friction(eps), (0, 1), y0, t_eval=t, rtol=1e-11, atol=1e-13).q
        reduced = nh.simulate(ball.reduced(eps, order=1), (0, 1), y0, t_eval=t, rtol=1e-11, atol=1e-13).q
        off_rolling.append(np.abs(sliding - rolling).max())
        off_reduced.append(np.abs(sliding - reduced).max())
    assert np.log2(off_rolling[0] / off_rolling[1]) == pytest.approx(1.0, abs=0.1)  # measured 1.00
    assert np.log2(off_reduced[0] / off_reduced[1]) == pytest.approx(2.0, abs=0.2)  # measured 1.97
    end = nh.simulate(ball.nonholonomic(), (0, 2), y0, t_eval=[0, 2], rtol=1e-12, atol=1e-14).q[:, -1]
    errors = []
    for h in (0.02, 0.01):
        r = simulate_discrete(ball.discrete(h), (0, 2), y0)
        errors.append(np.abs(r.q[:, -1] - end).max())
        assert r.constraint_residual().max() < 1e-14
        assert np.abs(np.linalg.norm(r.q[2:6], axis=0) - 1).max() < 1e-13
    assert np.log2(errors[0] / errors[1]) == pytest.approx(2.0, abs=0.1)  # measured 2.00


def test_stability_tools_give_the_rocking_frequencies_at_rest():
    """nh.stability.linearize of a rolling body at rest on its lowest point: the rocking modes
    against the closed form det(K - w^2 M) = 0 with K = m g diag(rho_x - H, rho_y - H) (rho the
    radii of curvature at the contact, H the height of the centre of mass above it) and
    M = I_tilt + m H^2 (rotation about the contact point). Random tippe top and rattleback."""
    rng = np.random.default_rng(8)
    m, R, alpha = rng.uniform(0.01, 0.03), rng.uniform(0.015, 0.03), rng.uniform(0.2, 0.4)
    I3 = 0.4 * m * R**2
    I1 = rng.uniform(0.8, 1.2) * I3
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I1=I1, I3=I3)
    H = R - alpha * R
    expected = np.sqrt(m * 9.81 * (R - H) / (I1 + m * H**2))
    lam = nh.stability.linearize(top.nonholonomic(), rolling_state(top, [1, 0, 0, 0], [0, 0, 0])).eigenvalues
    assert np.sort(lam.imag[lam.imag > 1e-6]) == pytest.approx([expected] * 2, rel=1e-10)
    assert np.abs(lam.real).max() < 1e-10 * expected

    p = {"a": rng.uniform(0.1, 0.3), "b": rng.uniform(0.03, 0.04), "c": rng.uniform(0.015, 0.02),
         "h": rng.uniform(0.003, 0.008), "A": rng.uniform(1.5e-4, 2.5e-4), "B": rng.uniform(1.4e-3, 1.8e-3),
         "D": rng.uniform(-3e-5, 3e-5)}
    p["C"] = p["A"] + p["B"]
    rb = nh.systems.rattleback(**p)
    H = p["c"] - p["h"]
    K = 9.81 * np.diag([p["b"] ** 2 / p["c"] - H, p["a"] ** 2 / p["c"] - H])  # tilt about body x, body y
    M = np.array([[p["A"] + H**2, -p["D"]], [-p["D"], p["B"] + H**2]])  # per unit mass; I_12 = -D here
    expected = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    lam = nh.stability.linearize(rb.nonholonomic(), rolling_state(rb, [1, 0, 0, 0], [0, 0, 0])).eigenvalues
    assert np.sort(lam.imag[lam.imag > 1e-6]) == pytest.approx(expected, rel=1e-10)
