"""The Voronets frame evaluated numerically (B = -A_s^-1 A_r by LU, dB/dq by implicit
differentiation) against the symbolic frame and finite differences, and the frame form of the
reduced model on it against the coordinate form."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.errors import ModelError
from nonholo.system.frames import AnholonomicFrame, voronets_split
from nonholo.testing import random_system


def _numpy_voronets(system, solved, q):
    """X(q) of the Voronets frame from A(q) by numpy (the oracle)."""
    A = system.constraint_matrix(q)[0]
    n, k = system.n, system.k
    free = [i for i in range(n) if i not in solved]
    B = -np.linalg.solve(A[:, solved], A[:, free])
    X = np.zeros((n, n))
    X[free, range(n - k)] = 1.0
    X[np.ix_(solved, range(n - k))] = B
    X[solved, range(n - k, n)] = 1.0
    return X


@pytest.mark.parametrize("seed, n, k", [(11, 5, 3), (12, 6, 4)])
def test_numeric_voronets_frame_and_its_derivatives_at_random_points(seed, n, k):
    """X from the C++ LU solve equals numpy's solve, and dX/dq^l (implicit differentiation)
    equals central differences of it, at random points of random systems."""
    system = random_system(seed, n=n, k=k)
    frame = AnholonomicFrame(system)
    assert frame.form == "numeric" and frame.core.voronets and frame.solved == voronets_split(system)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        q = rng.uniform(-1, 1, n)
        X, dX = frame.core.evaluate(q, system.param_vector())
        assert np.abs(X - _numpy_voronets(system, frame.solved, q)).max() < 1e-12 * (1 + np.abs(X).max())
        for l in range(n):
            e, h = np.eye(n)[l], 1e-6
            X_plus, X_minus = (_numpy_voronets(system, frame.solved, q + s * h * e) for s in (1, -1))
            fd = (X_plus - X_minus) / (2 * h)
            assert np.abs(dX[l] - fd).max() < 1e-7 * (1 + np.abs(dX[l]).max()), l


def test_numeric_and_symbolic_frames_agree_on_the_disk():
    """Same split, same X, dX, structure functions and Hamel vector field; ``vectors`` of the
    numeric frame is the symbolic matrix, built on demand."""
    disk = nh.systems.vertical_rolling_disk()
    numeric, symbolic = AnholonomicFrame(disk), AnholonomicFrame(disk, form="symbolic")
    assert numeric.vectors == symbolic.vectors
    rng = np.random.default_rng(5)
    p = disk.param_vector()
    for _ in range(3):
        q = rng.uniform(-1, 1, disk.n)
        for a, b in zip(numeric.core.evaluate(q, p), symbolic.core.evaluate(q, p)):
            assert np.abs(a - b).max() < 1e-12
        assert np.abs(numeric.structure_functions(q) - symbolic.structure_functions(q)).max() < 1e-12
        y = np.r_[q, rng.normal(size=numeric.rank)]
        assert np.abs(numeric.hamel().rhs(0.0, y) - symbolic.hamel().rhs(0.0, y)).max() < 1e-12


def test_frame_choices_and_bad_input():
    disk = nh.systems.vertical_rolling_disk()
    theta, x, y, phi = disk.coordinates
    assert AnholonomicFrame(disk, solved=[y, x]).solved == [1, 2]
    with pytest.raises(ValueError, match="form"):
        AnholonomicFrame(disk, form="exact")
    with pytest.raises(ValueError, match="solved"):
        AnholonomicFrame(disk, solved=[x])
    with pytest.raises(ModelError, match="singular"):
        AnholonomicFrame(disk, solved=[theta, x])  # theta appears in no constraint
    # a split singular at some q (phi' = -y' / (R sin(theta)) where theta = 0) fails there, naming the block
    frame = AnholonomicFrame(disk, solved=[x, phi])
    with pytest.raises(ModelError, match="A_s"):
        frame.core.evaluate(np.zeros(disk.n), disk.param_vector())


def test_numeric_frame_models_pickle():
    chain = nh.systems.knife_edge_chain(3)
    model = chain.reduced(1e-3, order=1, velocities="frame")
    clone = pickle.loads(pickle.dumps(model))
    q = np.r_[0.1, 0.2, 0.3 * np.arange(3)]
    y = np.r_[q, 0.7, -0.4]
    assert clone.frame.form == "numeric" and clone.frame.solved == model.frame.solved
    assert np.array_equal(clone.rhs(0.0, y), model.rhs(0.0, y))
    hamel = pickle.loads(pickle.dumps(model.frame.hamel()))
    assert np.array_equal(hamel.rhs(0.0, y), model.frame.hamel().rhs(0.0, y))


def _frame_vs_coordinates(system, q0, u0, eps, order, T):
    frame_model = system.reduced(eps, order=order, velocities="frame")
    assert frame_model.n_states == 2 * system.n - system.k
    w0 = frame_model.frame.state(q0, u0)[system.n:]
    t = np.linspace(0, T, 11)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)
    coords = nh.simulate(system.reduced(eps, order=order), (0, T), np.r_[q0, u0], **kw)
    frame = nh.simulate(frame_model, (0, T), np.r_[q0, w0], **kw)
    scale = 1 + np.abs(coords.velocity).max()
    assert np.abs(frame.q - coords.q).max() < 1e-8 * scale
    assert np.abs(frame.velocity - coords.velocity).max() < 1e-8 * scale
    assert np.abs(frame.velocity - frame.v).max() > 1e-3 * eps * scale  # the slip is included


@pytest.mark.parametrize("order", [1, 2])
def test_frame_form_equals_coordinate_form_on_the_chain(order):
    """Knife-edge chain N = 4: state 2n - k = 8 instead of 12, same trajectory."""
    chain = nh.systems.knife_edge_chain(4)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(4))]
    u0 = chain.project(q0, np.r_[1.0, 0.0, 0.5, 0.0, 0.0, 0.0])
    _frame_vs_coordinates(chain, q0, u0, 1e-2, order, 2.0)


def test_frame_form_equals_coordinate_form_on_a_random_system():
    """A random system (q-dependent metric, constraints, friction, potential), n = 5, k = 3."""
    system = random_system(21, n=5, k=3)
    rng = np.random.default_rng(21)
    q0 = rng.uniform(-0.5, 0.5, 5)
    u0 = system.project(q0, rng.normal(size=5))
    _frame_vs_coordinates(system, q0, u0, 1e-2, 1, 1.0)


def test_polar_disk_with_random_parameters_frame_form():
    """The polar disk (a system the frame tests name nowhere else) with random parameters:
    frame form of order 2 equals the coordinate form."""
    rng = np.random.default_rng(8)
    m, R, inertia, J, mu = np.round(rng.uniform([0.5, 0.5, 0.1, 0.2, 0.5], [2.0, 2.0, 0.5, 1.0, 2.0]), 2)
    system = nh.systems.polar_disk(m=m, R=R, I=inertia, J=J, mu=mu)
    q0 = np.r_[0.3, 1.5, 0.2, -0.4]
    u0 = system.project(q0, rng.normal(size=system.n))
    _frame_vs_coordinates(system, q0, u0, 1e-2, 2, 1.0)


def test_chain_frame_form_builds_at_eight_and_sixteen_links():
    """The frame form of the N = 8 and N = 16 chains (whose symbolic Voronets frame does not
    finish) builds, and its right-hand side gives the coordinate form's q' and u'_r."""
    for N in (8, 16):
        chain = nh.systems.knife_edge_chain(N)
        model = chain.reduced(1e-4, order=1, velocities="frame")
        q = np.r_[0.1, -0.2, 0.2 * np.cos(np.arange(N))]
        w = np.array([1.0, 0.3])
        u = model.coordinate_velocity(q, w)
        assert np.abs(chain.constraint_matrix(q)[0] @ u).max() < 1e-12
        dy = model.rhs(0.0, np.r_[q, w])
        dy_coords = chain.reduced(1e-4, order=1).rhs(0.0, np.r_[q, u])
        free = [i for i in range(chain.n) if i not in model.frame.solved]
        assert np.abs(dy[: chain.n] - dy_coords[: chain.n]).max() < 1e-12 * (1 + np.abs(dy_coords).max())
        assert np.abs(dy[chain.n:] - dy_coords[chain.n:][free]).max() < 1e-10 * (1 + np.abs(dy_coords).max())


def test_user_frames_keep_working():
    """A frame given by expressions is compiled from them, as before."""
    sleigh = nh.systems.chaplygin_sleigh()
    phi = sleigh.coordinates[2]
    body = sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])
    model = sleigh.reduced(1e-2, order=1, velocities="frame", frame=body)
    assert model.frame.form == "symbolic" and not model.frame.core.voronets and model.frame.vectors == body


def test_numeric_frame_form_converges_with_order_K_plus_1():
    """Reduced models in the disk's numeric Voronets frame against the friction model started on
    the slow manifold: error slope K + 1 in eps for K = 0..3."""
    from nonholo.testing import loglog_slope

    disk = nh.systems.vertical_rolling_disk()
    th = 0.3
    q0 = np.array([th, 0.0, 0.0, 0.0])
    u0 = disk.project(q0, np.array([1.0, np.cos(th), np.sin(th), 1.0]))
    eps_values = [0.02, 0.01, 0.005, 0.0025]
    # rtol 1e-13: at 1e-12 the friction run's own error (~2.5e-11) is most of K = 3's 1.3e-11 at eps 0.0025
    # (3.9e-11 refreshing the Jacobian every step, 3.5e-11 with jacobian_frequency=20: slope 3.68 / 3.73);
    # at 1e-13 the slope is 4.15 with either
    kw = dict(t_eval=np.linspace(0, 3, 13), rtol=1e-13, atol=1e-15, raise_on_failure=True)
    frame = AnholonomicFrame(disk)
    w0 = frame.state(q0, u0)[disk.n:]
    fulls = {eps: nh.simulate(disk.friction(eps), (0, 3), np.r_[q0, disk.on_slow_manifold(q0, u0, eps, order=6)],
                              **kw) for eps in eps_values}
    for K in (0, 1, 2, 3):
        errors = [np.abs(nh.simulate(disk.reduced(eps, order=K, velocities="frame", frame=frame), (0, 3),
                                     np.r_[q0, w0], **kw).q - fulls[eps].q).max() for eps in eps_values]
        assert abs(loglog_slope(eps_values, errors) - (K + 1)) < 0.3, (K, errors)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_frame_form_jacobian_equals_central_differences(order):
    """The Jacobian (dual numbers through the LU solve for B) of the frame form on a chain."""
    chain = nh.systems.knife_edge_chain(3)
    model = chain.reduced(1e-2, order=order, velocities="frame")
    y = np.r_[0.1, 0.2, 0.3, 0.1, -0.2, 0.7, -0.4]
    J, h = model.jacobian(0.0, y), 1e-6
    fd = np.array([(model.rhs(0.0, y + h * e) - model.rhs(0.0, y - h * e)) / (2 * h) for e in np.eye(y.size)]).T
    assert np.abs(J - fd).max() < 1e-7 * (1 + np.abs(J).max())


def test_split_skips_coordinates_the_constraints_leave_out():
    """A rolling disc in (yaw, lean, spin, x, y): the constraints x' = r cos(yaw) spin',
    y' = r sin(yaw) spin' leave yaw and lean out, so the block of the first two coordinates is zero
    at every point. Its score was 0/0 (NaN), which no comparison rejects, and the split took it;
    now it scores 0 and (x, y) are solved for, so the default kinematic system builds and steers."""
    yaw, lean, spin, x, y = sp.symbols("yaw lean spin x y")
    r = 0.3
    q = [yaw, lean, spin, x, y]
    A = sp.Matrix([[0, 0, -r * sp.cos(yaw), 1, 0], [0, 0, -r * sp.sin(yaw), 0, 1]])
    disc = nh.System(q, sp.diag(1, 1, 1, 2, 2), constraints=A)
    assert voronets_split(disc) == [3, 4]
    kinematic = disc.kinematic()
    assert [str(c) for c in kinematic.controls] == ["yaw_dot", "lean_dot", "spin_dot"]
    f = np.asarray(kinematic.vector_field(np.array([0.4, 0.1, 0.0, 0.0, 0.0]), np.array([0.0, 0.0, 2.0])),
                   dtype=float)
    assert np.allclose(f, [0, 0, 2.0, 2 * r * np.cos(0.4), 2 * r * np.sin(0.4)], atol=1e-14)
    # a split named by the user that is zero everywhere is refused, naming it
    with pytest.raises(ModelError, match="cannot be solved for"):
        voronets_split(disc, ["yaw", "lean"])


def test_split_judged_at_unit_quaternions():
    """A ball rolling on a plane in (x, y, q0..q3), the quaternion a unit-norm group: the split is
    judged at attitudes (the random samples normalized, the origin's at the identity). Judged at
    raw q in [-pi, pi]^6 it solved for (q0, q3), whose block vanishes at the identity attitude: the
    kinematic system divided by q1^2 + q2^2 there, and an optimal control problem from rest failed in
    its default guess (NaN). Now (x, y) are solved for (A_s = I), regular at every attitude."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.4), nh.contact.Sphere(1.0))
    assert voronets_split(ball) == [0, 1]
    frame = AnholonomicFrame(ball)
    for q in ([0, 0, 1, 0, 0, 0], [0.3, -0.2, 0.0, 0.6, 0.0, 0.8]):
        X, _ = frame.core.evaluate(np.array(q, dtype=float), ball.param_vector())
        assert np.all(np.isfinite(X))
        A = ball.constraint_matrix(np.array(q, dtype=float))[0]
        assert np.abs(A @ X[:, :ball.n - ball.k]).max() < 1e-14


def test_a_frames_maps_refuse_bad_points_by_name():
    """frame.state at a NaN q returned NaN, and a q' or v of the wrong length gave a bare matmul
    error; the sleigh's default frame maps a point on C as before."""
    from nonholo.system.frames import AnholonomicFrame

    frame = AnholonomicFrame(nh.systems.chaplygin_sleigh())
    state = frame.state([0, 0, 0.3], [np.cos(0.3), np.sin(0.3), 0.5])
    assert np.allclose(frame.velocity(state[:3], state[3:]), [np.cos(0.3), np.sin(0.3), 0.5])
    with pytest.raises(ValueError, match="q contains NaN"):
        frame.state([0, 0, np.nan], [1, 0, 0])
    with pytest.raises(ValueError, match="v_alpha must have shape"):
        frame.velocity([0, 0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="qdot must have shape"):
        frame.quasi_velocities([0, 0, 0], [1, 0])
