"""Discrete nonholonomic mechanics: the general midpoint integrator and the discrete sleigh's
momentum map (Fedorov-Zenkov 2005; oracles of notes/002_discrete_sleigh.md section 6)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import loglog_slope
from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion

# Newton converges to 1e-14 relative per step; over 100-1000 steps round-off accumulates to
# ~1e-13 on O(10) coordinates.
ROUND_OFF = 1e-12


def sleigh_run(J, m, a, h, n_steps, omega0=1.0, v0=-1.0):
    """The general integrator on nh.systems.chaplygin_sleigh from theta = x = y = 0 with forward
    velocity v0 and angular velocity omega0 (continuous data)."""
    system = nh.systems.chaplygin_sleigh(m=m, I=J, a=a)
    return nh.simulate_discrete(system.discrete(h), (0, n_steps * h), [0, 0, 0, v0, 0, omega0])


def paper_start(J, m, a, h, omega0=1.0, v0=-1.0):
    """p^0 = h (I omega0, m v0), I = J + m a^2 (note section 3.6)."""
    return np.array([h * (J + m * a**2) * omega0, h * m * v0])


# ------------------------------------------------------------------ regression values (item 13)
@pytest.mark.parametrize("J, m, a, h, N, q_expected, p_expected", [
    (1, 1, 1, 0.1, 10, (1.16151813040547, -0.360996314204536, -0.0746464187705008),
     (0.239888369478732, 0.0352788498297439)),
    (1, 1, 1, 0.1, 100, (3.09236550436821, -13.7045881794021, 3.13808584251523),
     (0.000163874332187998, 0.173156988904566)),
    (1, 1, 0, 0.1, 100, (9.99999999999998, 0.544928871676192, -1.84214022803846), (0.1, -0.1)),
    (0.7, 1.3, 0.4, 0.05, 200, (5.10323092697853, 0.0120534832404333, -9.00550468467944),
     (0.000223761239006414, 0.0847072236003865)),
])
def test_regression_values(J, m, a, h, N, q_expected, p_expected):
    """Both the closed map (section 3.6) and the general integrator reproduce item 13 to 1e-12."""
    q, p = DiscreteSleigh(m=m, I=J, a=a).trajectory((0, 0, 0), paper_start(J, m, a, h), N)
    assert np.allclose(q[N], q_expected, atol=ROUND_OFF)
    assert np.allclose(p[N], p_expected, atol=ROUND_OFF)
    res = sleigh_run(J, m, a, h, N)
    assert np.allclose(res.q[[2, 0, 1], N], q_expected, atol=ROUND_OFF)


# ------------------------------------------------------------------ general vs reduced (items 1-3)
@pytest.fixture(scope="module")
def unbalanced():
    J, m, a, h, N = 0.7, 1.3, 0.4, 0.05, 200
    res = sleigh_run(J, m, a, h, N)
    q, p = DiscreteSleigh(m=m, I=J, a=a).trajectory((0, 0, 0), paper_start(J, m, a, h), N)
    return res, q, p, h


def test_discrete_constraint_is_exact(unbalanced):
    res, _, _, _ = unbalanced
    theta, x, y = res.q[2], res.q[0], res.q[1]
    D, dx, dy = np.diff(theta), np.diff(x), np.diff(y)
    phi = theta[:-1] + D / 2
    chord = np.hypot(dx, dy)
    assert np.abs(-dx * np.sin(phi) + dy * np.cos(phi)).max() <= 1e-14 * chord.max()
    assert res.stats["max_constraint_residual"] < 1e-13


def test_general_integrator_equals_closed_momentum_map(unbalanced):
    res, q, p, h = unbalanced
    assert np.abs(res.q[[2, 0, 1]].T - q).max() < ROUND_OFF
    assert np.abs(DiscreteSleigh.momenta_from_general(res, h) - p[:-1]).max() < 1e-14


def test_lemma_1(unbalanced):
    """Dx_{k-1} cos theta_k + Dy_{k-1} sin theta_k = Dx_{k-1} cos theta_{k-1} + Dy_{k-1} sin theta_{k-1}."""
    res, _, _, _ = unbalanced
    theta, dx, dy = res.q[2], np.diff(res.q[0]), np.diff(res.q[1])
    lhs = dx * np.cos(theta[1:]) + dy * np.sin(theta[1:])
    rhs = dx * np.cos(theta[:-1]) + dy * np.sin(theta[:-1])
    assert np.abs(lhs - rhs).max() < 1e-14


# ------------------------------------------------------------------ balanced case (item 4, Theorem 5)
def test_balanced_momentum_is_conserved_bit_for_bit():
    P = DiscreteSleigh(m=1.0, I=1.0, a=0.0)
    p0 = np.array([0.1, -0.1])
    orbit = P.orbit(p0, 1000)
    assert np.all(orbit == p0)  # P is the identity, exactly


def test_balanced_contact_point_is_on_a_regular_polygon():
    J, m, h, N = 1.0, 1.0, 0.1, 1000
    res = sleigh_run(J, m, 0.0, h, N)
    theta, x, y = res.q[2], res.q[0], res.q[1]
    D = np.diff(theta)
    assert np.ptp(D) < 1e-13
    chord = np.hypot(np.diff(x), np.diff(y))
    assert np.ptp(chord) < 1e-13
    # circumradius |u|/|sin D| with u = p2/m = h v0 and D = p1/J = h omega0 (paper scaling)
    radius = abs(h * -1.0) / abs(np.sin(h * 1.0))
    # the centre from three vertices; every vertex lies on the circle
    A = np.array([[2 * (x[1] - x[0]), 2 * (y[1] - y[0])], [2 * (x[2] - x[0]), 2 * (y[2] - y[0])]])
    b = np.array([x[1]**2 - x[0]**2 + y[1]**2 - y[0]**2, x[2]**2 - x[0]**2 + y[2]**2 - y[0]**2])
    centre_x, centre_y = np.linalg.solve(A, b)
    assert np.abs(np.hypot(x - centre_x, y - centre_y) - radius).max() < 1e-12
    # the general integrator's momentum is conserved to round-off
    p = DiscreteSleigh.momenta_from_general(res, h)
    assert np.abs(p - p[0]).max() < 1e-14


# ------------------------------------------------------------------ the map P (items 5-10)
def test_equilibria_are_fixed_exactly_and_move_straight():
    P = DiscreteSleigh(m=1.3, I=0.7, a=0.4)
    p = np.array([0.0, 0.3])
    assert np.array_equal(P(p), p)
    q, _ = P.trajectory((0.2, 0, 0), p, 5)
    steps = np.diff(q[:, 1:], axis=0)
    assert np.allclose(np.hypot(*steps.T), 0.3 / 1.3, atol=1e-15)
    assert np.allclose(q[:, 0], 0.2)


@pytest.mark.parametrize("J, m, a, p2, expected", [
    (0.7, 1.3, 0.4, 0.5, 0.8015873), (0.7, 1.3, 0.4, -0.5, 1.2475248),
    (1, 1, 1, 0.5, 0.7777778), (1, 1, 1, -0.5, 1.2857143), (1, 1, 1, 3.6, 0.0526316), (1, 1, 1, 6, -0.2),
])
def test_linearization_at_equilibria(J, m, a, p2, expected):
    """Theorem 6: DP(0, p2) = diag(lambda1, 1), lambda1 = (2I - a p2)/(2I + a p2)."""
    P = DiscreteSleigh(m=m, I=J, a=a)
    h = 1e-6
    point = np.array([0.0, p2])
    jac = np.column_stack([(P(point + h * e) - P(point - h * e)) / (2 * h) for e in np.eye(2)])
    assert np.allclose(jac, np.diag([expected, 1.0]), atol=2e-7)  # 7 printed digits; FD error ~1e-10
    assert P.linearization(p2)[0, 0] == pytest.approx(expected, abs=5e-8)
    assert abs(np.linalg.det(jac) - 1.0) > 0.1  # not volume preserving (Corollary 2)


def test_reversibility_and_monotonicity():
    P = DiscreteSleigh(m=1.3, I=0.7, a=0.4)
    R = np.array([1.0, -1.0])
    rng = np.random.default_rng(0)
    for p in rng.uniform(-0.3, 0.3, size=(10, 2)):
        assert np.allclose(P.inverse(P(p)), p, atol=1e-16)
        assert np.allclose(P.inverse(p), R * P(R * p), atol=1e-16)
        assert P(p)[1] >= p[1]  # p2 increases (a > 0)


def test_heteroclinic_limits_are_symmetric():
    P = DiscreteSleigh(m=1.0, I=1.0, a=1.0)
    forward = P.orbit([0.15, 0.0], 4000)
    backward = P.orbit([0.15, 0.0], 4000, backward=True)
    beta = forward[-1, 1]
    assert beta > 0 and abs(forward[-1, 0]) < 1e-12 and abs(backward[-1, 0]) < 1e-12
    assert backward[-1, 1] == pytest.approx(-beta, abs=1e-12)
    assert np.all(np.diff(forward[:, 1]) >= 0)


def test_total_turning_angle_converges_with_order_2():
    """From the cusp p0 = (h sqrt(I m), 0) the total turn tends to pi sqrt(I/(m a^2)) (item 12)."""
    P = DiscreteSleigh(m=1.0, I=1.0, a=1.0)
    target = np.pi * np.sqrt(P.J / (P.m * P.a**2))
    errors = []
    hs = [0.4, 0.2, 0.1, 0.05]
    for h in hs:
        p0 = np.array([h * np.sqrt(P.J * P.m), 0.0])
        n = int(60 / h)
        forward, _ = P.trajectory((0, 0, 0), p0, n)
        backward = P.orbit(p0, n, backward=True)
        # the turn before the cusp: the rotations of the steps that end in p^0, p^-1, ...
        turned_before = sum(P.rotation(*p) for p in backward[1:])
        errors.append(abs(forward[-1, 0] + turned_before - target))
    slope = loglog_slope(hs, errors)
    assert abs(slope - 2) < 0.1
    assert errors[2] == pytest.approx(4.6e-4, rel=0.1)  # note item 12: 4.6e-4 at h = 0.1


# ------------------------------------------------------------------ order 2 (item 11)
def continuous_sleigh(J, m, a, t, omega0=1.0, v0=-1.0):
    """(theta, v, omega) of the nonholonomic sleigh, J the inertia about the centre of mass
    (the paper's naming; nonholo.systems.chaplygin_sleigh.exact)."""
    u, w, theta = SleighMotion(m, J, a, v0, omega0)(t)
    return theta, u, w


def test_order_2_against_the_continuous_solution():
    J, m, a, T = 0.7, 1.3, 0.4, 10.0
    system = nh.systems.chaplygin_sleigh(m=m, I=J, a=a)
    ref = nh.simulate(system.nonholonomic(), (0, T), [0, 0, 0, -1.0, 0, 1.0], t_eval=np.linspace(0, T, 65),
                      rtol=1e-13, atol=1e-14)
    q_err, p_err = [], []
    Ns = [64, 128, 256, 512]
    for N in Ns:
        h = T / N
        res = sleigh_run(J, m, a, h, N)
        stride = N // 64
        theta_ex, u_ex, w_ex = continuous_sleigh(J, m, a, res.t[::stride])
        q_err.append(max(np.abs(res.q[2, ::stride] - theta_ex).max(), np.abs(res.q[:2, ::stride] - ref.q[:2]).max()))
        p = DiscreteSleigh.momenta_from_general(res, h) / h
        I = J + m * a**2
        p_err.append(np.abs(p[::stride] - np.column_stack([I * w_ex, m * u_ex])[:-1]).max())
    assert abs(loglog_slope(Ns, q_err) + 2) < 0.1
    assert abs(loglog_slope(Ns, p_err) + 2) < 0.1


# ------------------------------------------------------------------ the general integrator elsewhere
def test_vertical_disk_order_2_and_exact_discrete_constraint():
    disk = nh.systems.vertical_rolling_disk()
    th = 0.3
    y0 = [th, 0, 0, 0, 0.7, np.cos(th) * 1.2, np.sin(th) * 1.2, 1.2]
    T = 6.0
    ref = nh.simulate(disk.nonholonomic(), (0, T), y0, t_eval=np.linspace(0, T, 31), rtol=1e-13, atol=1e-14)
    errors = []
    Ns = [60, 120, 240, 480]
    for N in Ns:
        res = nh.simulate_discrete(disk.discrete(T / N), (0, T), y0)
        assert res.success and res.stats["max_constraint_residual"] < 1e-13
        errors.append(np.abs(res.y[:, :: N // 30] - ref.y).max())
    assert abs(loglog_slope(Ns, errors) + 2) < 0.1


def test_affine_constraints_and_forces_are_supported():
    """x' = y (the affine two-line example of notes/001 item 11) with a viscous force: order 2."""
    x, y = sp.symbols("x y")
    xd, yd = sp.symbols("x_dot y_dot")
    system = nh.System([x, y], sp.eye(2), y**2 / 2, constraints=[[1, 0]], affine=[y],
                       force=[-xd / 5, -yd / 5], velocities=[xd, yd])
    y0 = [0.2, 0.7, 0.7, 0.3]
    T = 3.0
    ref = nh.simulate(system.nonholonomic(), (0, T), y0, t_eval=[T], rtol=1e-13, atol=1e-14)
    errors = [np.abs(nh.simulate_discrete(system.discrete(T / N), (0, T), y0).y[:, -1] - ref.y[:, -1]).max()
              for N in (50, 100, 200, 400)]
    assert abs(loglog_slope([50, 100, 200, 400], errors) + 2) < 0.15


def test_newton_failure_is_reported():
    """A step far too large for the Lagrangian's branch: status -1, the time, and why."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=1.0)
    with pytest.warns(nh.SimulationWarning, match="Newton"):
        res = nh.simulate_discrete(sleigh.discrete(8.0), (0, 80.0), [0, 0, 0, 3.0, 0, 4.0], max_newton_iterations=8)
    assert res.status == -1 and "step" in res.message
    assert res.t[-1] == res.t_last < 80.0


def test_discrete_arguments_are_checked():
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(ValueError, match="h must be positive"):
        sleigh.discrete(0.0)
    with pytest.raises(ValueError, match="not a whole number of steps"):
        nh.simulate_discrete(sleigh.discrete(0.3), (0, 1.0), [0, 0, 0, 1.0, 0, 0])
    with pytest.raises(ValueError, match="violates the constraints"):
        nh.simulate_discrete(sleigh.discrete(0.25), (0, 1.0), [0, 0, 0, 0, 1.0, 0])


def test_a_step_into_a_rank_loss_ends_the_run_with_the_steps_before_it():
    """The constraint rows z' = 0 and x y' = 0 turn dependent at x = 0: the discrete run that reaches
    x = 0 at t = 1 ends there with status -1 and its nine steps kept, as simulate's run does (it raised
    ModelError and lost them)."""
    x, y, z = sp.symbols("x y z")
    system = nh.System([x, y, z], sp.eye(3), constraints=sp.Matrix([[0, 0, 1], [0, x, 0]]))
    with pytest.warns(nh.SimulationWarning, match="failed at step 9"):
        run = nh.simulate_discrete(system.discrete(0.1), (0, 2), [-1, 0, 0, 1, 0, 0])
    assert run.status == -1 and "linearly dependent" in run.message
    np.testing.assert_allclose(run.t, np.linspace(0, 0.9, 10), atol=1e-12)
    np.testing.assert_allclose(run.q[0], -1 + run.t, atol=1e-12)  # uniform motion along x before it
    with pytest.raises(nh.ModelError, match="linearly dependent"):  # a start at the rank loss: as simulate
        nh.simulate_discrete(system.discrete(0.1), (0, 2), [0, 0, 0, 1, 0, 0])
