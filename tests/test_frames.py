"""Anholonomic frames (Mestdag-Crampin 2010): the oracles of notes/004_anholonomic_frames.md
section 5, items 1-20."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system.frames import AnholonomicFrame
from nonholo.systems import disk_exact as dx
from conftest import central_difference

# The note's reference disk: M = 2, R = 0.5, rolling inertia 0.25, heading inertia 0.125. In
# nh.systems.vertical_rolling_disk the heading angle is theta (the note's ph) with inertia I, the
# rolling angle is phi (the note's th) with inertia J.
M, RAD, I_ROLL, J_HEAD = 2.0, 0.5, 0.25, 0.125
KW = dict(rtol=1e-13, atol=1e-14)  # tight: the comparisons below are at 1e-10


@pytest.fixture(scope="module")
def disk():
    return nh.systems.vertical_rolling_disk(m=M, R=RAD, I=J_HEAD, J=I_ROLL)


@pytest.fixture(scope="module")
def frame(disk):
    return AnholonomicFrame(disk)  # the paper's frame: X1 = d/dtheta, X2 = d/dphi + R cos d/dx + R sin d/dy


def _disk_start(frame, heading=0.7, rolling=0.3, w_heading=0.9, w_rolling=1.3, centre=(0.1, -0.2)):
    """State [q, v1, v2] on the circle of the note's item 2 (centre given, not the start)."""
    q0 = dx.rolling_circle(0.0, heading, rolling, w_heading, w_rolling, centre, RAD)
    return np.array([*q0, w_heading, w_rolling])


def _closed_form(t, heading=0.7, rolling=0.3, w_heading=0.9, w_rolling=1.3, centre=(0.1, -0.2)):
    """q(t) on the circle of the note's item 2 (nonholo.systems.disk_exact, order 0)."""
    q0 = _disk_start(None, heading, rolling, w_heading, w_rolling, centre)[:4]
    u0 = [w_heading, RAD * np.cos(heading) * w_rolling, RAD * np.sin(heading) * w_rolling, w_rolling]
    q = dx.reduced_closed_form(t, [*q0, *u0], params=dict(m=M, R=RAD, I=J_HEAD, J=I_ROLL))[:4]
    return q if np.ndim(t) else q[:, 0]


# ------------------------------------------------------------------ items 1-4: the nonholonomic disk
def test_hamel_reproduces_the_closed_form_and_invariants(frame):
    t = np.linspace(0, 5, 21)
    sol = nh.simulate(frame.hamel(), (0, 5), _disk_start(frame), t_eval=t, **KW)
    assert np.abs(sol.q - _closed_form(t)).max() < 1e-10
    assert np.allclose(sol["v1"], 0.9, atol=1e-12) and np.allclose(sol["v2"], 1.3, atol=1e-12)
    energy = 0.5 * (I_ROLL + M * RAD**2) * 1.3**2 + 0.5 * J_HEAD * 0.9**2
    assert energy == pytest.approx(0.684375)
    assert np.allclose(sol.energy(), energy, atol=1e-12)
    qdot = np.array([frame.velocity(q, v) for q, v in zip(sol.q.T, sol.y[4:].T)]).T
    assert np.allclose(np.hypot(qdot[1], qdot[2]), RAD * 1.3, atol=1e-12)


def test_multipliers_and_newton_euler_reactions(disk, frame):
    """lambda = M R th' ph' n, and rho, nu of note item 4 satisfy the five projected
    Newton-Euler equations (section 2.2) along the motion."""
    y = _disk_start(frame)
    q, v = y[:4], y[4:]
    ph, th_dot, ph_dot = q[0], v[1], v[0]  # heading, rolling rate, heading rate
    n_vec = np.array([-np.sin(ph), np.cos(ph)])
    lam = disk.multipliers(q, frame.velocity(q, v))
    assert np.allclose(lam, M * RAD * th_dot * ph_dot * n_vec, atol=1e-13)
    assert np.allclose(frame.multipliers(q, v), lam, atol=1e-13)  # X_x, X_y are coordinate fields
    xddot, yddot = nh.simulate(disk.nonholonomic(), (0, 1e-9), np.r_[q, frame.velocity(q, v)]).model.rhs(0, np.r_[
        q, frame.velocity(q, v)])[5:7]
    rho = (I_ROLL + M * RAD**2) * th_dot * ph_dot / RAD
    nu1, nu2 = (I_ROLL / RAD) * th_dot * ph_dot * np.sin(ph), -(I_ROLL / RAD) * th_dot * ph_dot * np.cos(ph)
    residuals = [M * xddot - (nu1 - rho * np.sin(ph)), M * yddot - (nu2 + rho * np.cos(ph)),
                 0.0 - (-RAD * nu1 * np.cos(ph) - RAD * nu2 * np.sin(ph)),  # I th'' = 0
                 I_ROLL * th_dot * ph_dot - (-RAD * nu2 * np.cos(ph) + RAD * nu1 * np.sin(ph))]
    assert np.allclose(residuals, 0, atol=1e-12)


# ------------------------------------------------------------------ items 5-8: frame objects
def test_structure_functions_of_the_disk(frame):
    rng = np.random.default_rng(1)
    for q in rng.uniform(-2, 2, size=(4, 4)):
        R = frame.structure_functions(q)
        expected = np.zeros((4, 4, 4))
        # [X1, X2] = -R sin(theta) d/dx + R cos(theta) d/dy = -R sin X3 + R cos X4 (X3 = d/dx, X4 = d/dy)
        expected[2, 0, 1], expected[3, 0, 1] = -RAD * np.sin(q[0]), RAD * np.cos(q[0])
        expected[:, 1, 0] = -expected[:, 0, 1]
        assert np.allclose(R, expected, atol=1e-14)


def _lift_identities(frame, rng):
    """X_i^C(v^j) = -R^j_ik v^k and X_i^V(v^j) = delta^j_i at a random point (q, q'), with
    v^j = Theta^j_l(q) q'^l and X^C(f) = X^s df/dq^s + (dX^l/dq^s) q'^s df/dq'^l."""
    n = frame.n
    q, qdot = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    X, dX = frame._core.evaluate(q, frame.system.param_vector())
    Theta = np.linalg.inv(X)
    dv_dq = central_difference(lambda z: np.linalg.solve(frame.matrix(z), qdot), q)  # d v^j / dq^s
    complete = np.einsum("si,js->ji", X, dv_dq) + np.einsum("sli,s,jl->ji", dX, qdot, Theta)  # dX[s] = dX/dq^s
    v = Theta @ qdot
    R = frame.structure_functions(q)
    assert np.allclose(complete, -np.einsum("jik,k->ji", R, v), atol=1e-8)
    assert np.allclose(Theta @ X, np.eye(n), atol=1e-12)  # X_i^V(v^j) = Theta^j_l X_i^l = delta


def test_lift_identities_on_several_frames(frame):
    rng = np.random.default_rng(2)
    _lift_identities(frame, rng)
    x, y, z = sp.symbols("x y z")
    particle = nh.System([x, y, z], sp.eye(3), constraints=[[-y, 0, 1]])
    _lift_identities(AnholonomicFrame(particle), rng)
    # a random polynomial frame on R^3 (no constraint)
    free = nh.System([x, y, z], sp.eye(3))
    poly = sp.Matrix([[1 + x**2 / 4, y / 3, 0], [x * z / 5, 1, y**2 / 7], [0, x / 2, 2 + z**2 / 3]])
    _lift_identities(AnholonomicFrame(free, poly), rng)


def test_frame_hessian_and_schur_complement(disk, frame):
    q = np.array([0.7, 0.1, -0.2, 0.3])
    X = frame.matrix(q)
    G = X.T @ disk.metric_at(q) @ X  # G_ij = X_i^V X_j^V L
    c, s = np.cos(q[0]), np.sin(q[0])
    expected = np.array([[J_HEAD, 0, 0, 0], [0, I_ROLL + M * RAD**2, M * RAD * c, M * RAD * s],
                         [0, M * RAD * c, M, 0], [0, M * RAD * s, 0, M]])
    assert np.allclose(G, expected, atol=1e-14)
    schur = G[2:, 2:] - G[2:, :2] @ np.linalg.solve(G[:2, :2], G[:2, 2:])
    assert np.linalg.det(schur) == pytest.approx(M**2 * I_ROLL / (I_ROLL + M * RAD**2)) == pytest.approx(4 / 3)


def test_multipliers_are_the_frame_components_of_the_constraint_force(disk, frame):
    """Gamma(X_i^V L) - X_i^C L = X_i^j E_j with E = lambda_a theta^a: X_alpha . E = 0 and
    X_a . E = lambda_a."""
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 2)
        qdot = frame.velocity(q, v)
        A, _ = disk.constraint_matrix(q)
        E = A.T @ disk.multipliers(q, qdot)
        X = frame.matrix(q)
        assert np.allclose(X[:, :2].T @ E, 0, atol=1e-13)
        assert np.allclose(X[:, 2:].T @ E, frame.multipliers(q, v), atol=1e-13)


# ------------------------------------------------------------------ items 9-12: the criterion
def test_criterion_holds_for_the_disk_and_gives_fernandez_bloch(disk, frame):
    m = next(s for s in disk.parameters if s.name == "m")
    R, I, J = (next(s for s in disk.parameters if s.name == nm) for nm in ("R", "I", "J"))
    th, x, y, ph = disk.coordinates
    vth, vx, vy, vph = disk.velocities
    result = frame.criterion([m * vx, m * vy])
    assert result.holds
    assert np.abs(result.residual_1).max() < 1e-13 and np.abs(result.residual_2).max() < 1e-13
    fernandez_bloch = (-m * (vx**2 + vy**2) / 2 + I * vth**2 / 2 + J * vph**2 / 2
                       + m * R * vph * (sp.cos(th) * vx + sp.sin(th) * vy))
    assert sp.simplify(result.lagrangian - fernandez_bloch) == 0
    assert sp.simplify(result.hessian_det - I * m**2 * (J + m * R**2)) == 0  # the note's J M^2 (I + M R^2)
    assert result.regular and result.signature == (2, 2)  # regular but indefinite


def test_fernandez_bloch_flow_keeps_C_and_reproduces_the_disk(disk, frame):
    result = frame.criterion([next(s for s in disk.parameters if s.name == "m") * v for v in disk.velocities[1:3]])
    fb = nh.System.from_lagrangian(result.lagrangian, disk.coordinates, disk.velocities,
                                   parameters=disk.parameters, indefinite_metric=True, name="Fernandez-Bloch")
    y = _disk_start(frame)
    qdot = frame.velocity(y[:4], y[4:])
    t = np.linspace(0, 5, 11)
    sol = nh.simulate(fb.nonholonomic(), (0, 5), np.r_[y[:4], qdot], t_eval=t, **KW)
    assert np.abs(sol.q - _closed_form(t)).max() < 1e-9  # on C: the nonholonomic circle
    # dLtilde/dx' + M v^x = 0 identically, so off C the constraint velocities stay constant
    off = np.r_[y[:4], qdot + np.array([0, 0.2, -0.1, 0])]
    sol = nh.simulate(fb.nonholonomic(), (0, 5), off, t_eval=t, **KW)
    vx = sol["x_dot"] - RAD * np.cos(sol["theta"]) * sol["phi_dot"]
    vy = sol["y_dot"] - RAD * np.sin(sol["theta"]) * sol["phi_dot"]
    assert np.allclose(vx, 0.2, atol=1e-9) and np.allclose(vy, -0.1, atol=1e-9)


def test_criterion_fails_for_the_nonholonomic_particle():
    """z' = y x' (note section 4.4): lambda_3 = x' y'/(1 + y^2); with phi = p_3 = y x' condition 2
    holds but condition 1 leaves (-y x' y', y x'^2); no Lagrangian L - Phi v^3 works."""
    x, y, z = sp.symbols("x y z")
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot")
    particle = nh.System([x, y, z], sp.eye(3), constraints=[[-y, 0, 1]], velocities=[xd, yd, zd])
    frame = AnholonomicFrame(particle, sp.Matrix([[1, 0, 0], [0, 1, 0], [y, 0, 1]]))
    rng = np.random.default_rng(4)
    q, v = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 2)
    assert frame.multipliers(q, v) == pytest.approx([v[0] * v[1] / (1 + q[1] ** 2)], abs=1e-14)
    result = frame.criterion([y * xd])
    assert not result.holds and result.lagrangian is None
    qs, vs = result.points[:, :3], result.points[:, 3:]
    expected = np.column_stack([-qs[:, 1] * vs[:, 0] * vs[:, 1], qs[:, 1] * vs[:, 0] ** 2])
    assert np.allclose(result.residual_1, expected, atol=1e-13)
    assert np.abs(result.residual_2).max() < 1e-13
    assert not frame.criterion([0 * x]).holds  # phi = 0 passes condition 1 but lambda_3 != 0


def test_lagrangians_of_the_associated_systems():
    """Item 12: the Euler-Lagrange equations of Ltilde_6a, Ltilde_6b (any k) and Ltilde_7 are
    the systems (6), (6), (7), with the Hessian determinants of note section 4.1."""
    t = sp.Symbol("t")
    x, y, th, ph = (sp.Function(nm)(t) for nm in ("x", "y", "th", "ph"))
    k = sp.Symbol("k", nonzero=True)
    d = sp.diff
    L6a = d(ph, t) ** 2 / 2 + k * (d(th, t) ** 2 / d(ph, t) + d(x, t) ** 2 / (sp.cos(ph) * d(ph, t))
                                   + d(y, t) ** 2 / (sp.sin(ph) * d(ph, t)))
    L6b = d(ph, t) ** 2 / 2 + d(th, t) ** 2 / 2 - k * (d(x, t) ** 2 / (sp.cos(ph) * d(ph, t))
                                                      + d(y, t) ** 2 / (sp.sin(ph) * d(ph, t)))
    L7 = (d(ph, t) ** 2 / 2 + d(th, t) ** 2 / 2
          + ((d(x, t) ** 2 - d(y, t) ** 2) * sp.cos(ph) + 2 * d(x, t) * d(y, t) * sp.sin(ph)) / (2 * d(ph, t)))
    system6 = {d(th, t, 2): 0, d(ph, t, 2): 0, d(x, t, 2): -sp.tan(ph) * d(x, t) * d(ph, t),
               d(y, t, 2): d(y, t) * d(ph, t) / sp.tan(ph)}
    system7 = {d(th, t, 2): 0, d(ph, t, 2): 0, d(x, t, 2): -d(y, t) * d(ph, t), d(y, t, 2): d(x, t) * d(ph, t)}
    for L, target in [(L6a, system6), (L6b, system6), (L7, system7)]:
        equations = [sp.euler_equations(L, [x, y, th, ph], t)[i].lhs for i in range(4)]
        solved = sp.solve(equations, list(target), dict=True)
        assert len(solved) == 1
        for key, value in target.items():
            assert sp.simplify(solved[0][key] - value) == 0


# ------------------------------------------------------------------ items 13-16: vakonomic
def _vakonomic_state(frame, mu):
    return np.r_[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, mu]  # theta=ph=0, phi=th=0, heading rate 0, rolling rate 1


def test_vakonomic_with_the_section_mu_reproduces_the_nonholonomic_line(frame):
    t = np.linspace(0, 2, 5)
    sol = nh.simulate(frame.vakonomic(), (0, 2), _vakonomic_state(frame, [M * RAD, 0.0]), t_eval=t, **KW)
    assert np.allclose(sol.q[:, -1], [0, 1.0, 0, 2.0], atol=1e-12)  # (ph, x, y, th) = (0, 1, 0, 2)
    assert np.allclose(sol.y[6:, -1], [1.0, 0.0], atol=1e-12)


def test_vakonomic_reference_numbers(frame):
    """Item 14 at t = 2 with mu(0) = (1.0, 0.5), to 1e-8 (the note's RK4 agrees to 1e-11)."""
    sol = nh.simulate(frame.vakonomic(), (0, 2), _vakonomic_state(frame, [1.0, 0.5]), t_eval=[0, 2], **KW)
    heading, x, y, rolling, w_heading, w_rolling, mu1, mu2 = sol.y[:, -1]
    expected = dict(x=0.336478505773, y=0.426386469489, th=1.615371093124, ph=2.625536269471,
                    th_dot=0.835515354182, ph_dot=1.345914023092, mu1=-0.726707802822, mu2=0.912288341324)
    ours = dict(x=x, y=y, th=rolling, ph=heading, th_dot=w_rolling, ph_dot=w_heading, mu1=mu1, mu2=mu2)
    for key in expected:
        assert ours[key] == pytest.approx(expected[key], abs=1e-8), key
    # heading acceleration at t = 0: R th' (c1 sin ph - c2 cos ph)/J = 2 with c = (0, -0.5)
    assert frame.vakonomic().rhs(0, _vakonomic_state(frame, [1.0, 0.5]))[4] == pytest.approx(2.0, abs=1e-14)


def test_vakonomic_invariants(frame):
    """c1, c2, K, E, N of note section 2.8 stay constant for arbitrary mu(0)."""
    y0 = np.r_[0.4, 0.2, -0.1, 0.3, 0.7, 1.1, 0.3, -0.8]
    sol = nh.simulate(frame.vakonomic(), (0, 5), y0, t_eval=np.linspace(0, 5, 26), **KW)
    ph, x, y, th, ph_dot, th_dot, mu1, mu2 = sol.y
    xd, yd = RAD * np.cos(ph) * th_dot, RAD * np.sin(ph) * th_dot
    c1, c2 = M * xd - mu1, M * yd - mu2
    K = I_ROLL * th_dot + RAD * (mu1 * np.cos(ph) + mu2 * np.sin(ph))
    E = 0.5 * (I_ROLL + M * RAD**2) * th_dot**2 + 0.5 * J_HEAD * ph_dot**2
    N = J_HEAD * ph_dot + x * c2 - y * c1
    for invariant in (c1, c2, K, E, N):
        assert np.ptp(invariant) < 1e-10


def test_vakonomic_section_is_invariant_iff_the_criterion_holds(disk, frame):
    """Item 16: with phi satisfying the criterion, mu = phi along a nonholonomic motion solves
    the vakonomic equations (the disk); for the particle, mu(0) = phi(0) leaves the motion."""
    y = _disk_start(frame)
    qdot = frame.velocity(y[:4], y[4:])
    vak = nh.simulate(frame.vakonomic(), (0, 3), np.r_[y, M * qdot[1], M * qdot[2]], t_eval=[3.0], **KW)
    assert np.abs(vak.q[:, -1] - _closed_form(3.0)).max() < 1e-10
    x, yy, z = sp.symbols("x y z")
    particle = nh.System([x, yy, z], sp.eye(3), constraints=[[-yy, 0, 1]])
    pframe = AnholonomicFrame(particle, sp.Matrix([[1, 0, 0], [0, 1, 0], [yy, 0, 1]]))
    start = np.array([0.1, 0.5, 0.0, 0.8, 0.3])
    nonholonomic = nh.simulate(pframe.hamel(), (0, 3), start, t_eval=[3.0], **KW)
    vakonomic = nh.simulate(pframe.vakonomic(), (0, 3), np.r_[start, start[1] * start[3]], t_eval=[3.0], **KW)
    assert np.abs(vakonomic.q[:, -1] - nonholonomic.q[:, -1]).max() > 1e-3


# ------------------------------------------------------------------ items 17-20: generic sanity
def test_coordinate_frame_without_constraints_is_euler_lagrange():
    x, y = sp.symbols("x y")
    system = nh.System([x, y], sp.Matrix([[2 + sp.sin(y), 0], [0, 1 + x**2]]), x**2 * y)
    frame = AnholonomicFrame(system)
    y0 = np.array([0.3, -0.2, 0.5, 0.7])
    t = np.linspace(0, 3, 7)
    hamel = nh.simulate(frame.hamel(), (0, 3), y0, t_eval=t, **KW)
    euler_lagrange = nh.simulate(system.nonholonomic(), (0, 3), y0, t_eval=t, **KW)
    assert np.abs(hamel.y - euler_lagrange.y).max() < 1e-10


def test_energy_is_conserved_by_hamel_and_vakonomic_flows():
    system = _non_chaplygin()
    frame = AnholonomicFrame(system, _non_chaplygin_frame(system))
    y0 = np.array([0.2, -0.3, 0.1, 0.4, -0.6])
    sol = nh.simulate(frame.hamel(), (0, 4), y0, t_eval=np.linspace(0, 4, 9), **KW)
    E = np.array([system.energy(q, frame.velocity(q, v)) for q, v in zip(sol.q.T, sol.y[3:].T)])
    assert np.ptp(E) < 1e-10
    vak = nh.simulate(frame.vakonomic(), (0, 4), np.r_[y0, 0.7], t_eval=np.linspace(0, 4, 9), **KW)
    E = np.array([system.energy(q, frame.velocity(q, v)) for q, v in zip(vak.q.T, vak.y[3:5].T)])
    assert np.ptp(E) < 1e-10


def test_frame_independence(disk, frame):
    """Two different frames adapted to D give the same q(t) to 1e-10, and multipliers that
    transform as lambda_c = lambda^coord_b A^b_c."""
    th, x, y, ph = disk.coordinates
    R = next(s for s in disk.parameters if s.name == "R")
    X1, X2 = sp.Matrix([1, 0, 0, 0]), sp.Matrix([0, R * sp.cos(th), R * sp.sin(th), 1])
    other = AnholonomicFrame(disk, sp.Matrix.hstack(X1 + X2, X2 - X1 / 2 + sp.sin(th) * X1,
                                                    sp.Matrix([0, 1, 1, 0]), sp.Matrix([0, 1, -1, 1])))
    y = _disk_start(frame)
    qdot = frame.velocity(y[:4], y[4:])
    t = np.linspace(0, 5, 11)
    a = nh.simulate(frame.hamel(), (0, 5), y, t_eval=t, **KW)
    b = nh.simulate(other.hamel(), (0, 5), other.state(y[:4], qdot), t_eval=t, **KW)
    assert np.abs(a.q - b.q).max() < 1e-10
    q, v_other = b.q[:, 5], b.y[4:, 5]
    X = other.matrix(q)
    A, _ = disk.constraint_matrix(q)
    coordinate = disk.multipliers(q, X[:, :2] @ v_other)
    assert np.allclose(other.multipliers(q, v_other), (A @ X[:, 2:]).T @ coordinate, atol=1e-12)


def _non_chaplygin():
    """Note item 20: L = 1/2 (r1'^2 + 2 r2'^2 + s'^2 + r1' s') - r1 s, s' = s r2 r1' + (sin s + r1) r2'."""
    r1, r2, s = sp.symbols("r1 r2 s")
    G = sp.Matrix([[1, 0, sp.Rational(1, 2)], [0, 2, 0], [sp.Rational(1, 2), 0, 1]])
    A = sp.Matrix([[-s * r2, -(sp.sin(s) + r1), 1]])
    return nh.System([r1, r2, s], G, r1 * s, A, name="non-Chaplygin")


def _non_chaplygin_frame(system):
    r1, r2, s = system.coordinates
    return sp.Matrix([[1, 0, 0], [0, 1, 0], [s * r2, sp.sin(s) + r1, 1]])


def test_generic_non_chaplygin_system():
    """Item 20: structure functions R^3_12, R^3_31, R^3_32; the Hamel equations and multiplier
    satisfy the coordinate Lagrange-d'Alembert equations at random points, and the vakonomic frame
    equations the coordinate vakonomic equations (two independent implementations)."""
    system = _non_chaplygin()
    frame = AnholonomicFrame(system, _non_chaplygin_frame(system))
    hamel, vak = frame.hamel(), frame.vakonomic()
    rng = np.random.default_rng(5)
    for _ in range(5):
        q, v, mu = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 2), rng.uniform(-1, 1)
        r1, r2, s = q
        R = frame.structure_functions(q)
        assert R[2, 0, 1] == pytest.approx(1 + s * r2 * np.cos(s) - s - r2 * np.sin(s) - r1 * r2, abs=1e-13)
        assert R[2, 2, 0] == pytest.approx(r2, abs=1e-13) and R[2, 2, 1] == pytest.approx(np.cos(s), abs=1e-13)
        X = frame.matrix(q)
        qdot = X[:, :2] @ v
        # nonholonomic: the coordinate acceleration of the frame model = Lagrange-d'Alembert's
        f = hamel.rhs(0, np.r_[q, v])
        qddot = central_difference(lambda z: frame.matrix(z)[:, :2] @ v, q) @ qdot + X[:, :2] @ f[3:]
        assert np.allclose(qddot, system.nonholonomic().rhs(0, np.r_[q, qdot])[3:], atol=1e-8)
        A, _ = system.constraint_matrix(q)
        assert frame.multipliers(q, v) == pytest.approx((A @ X[:, 2:])[0, 0] * system.multipliers(q, qdot), abs=1e-12)
        # vakonomic: mu is the coordinate multiplier lambda (same one-form theta^3 = A)
        g = vak.rhs(0, np.r_[q, v, mu])
        qddot = central_difference(lambda z: frame.matrix(z)[:, :2] @ v, q) @ qdot + X[:, :2] @ g[3:5]
        coordinate = system.vakonomic().rhs(0, np.r_[q, qdot, mu])
        assert np.allclose(qddot, coordinate[3:6], atol=1e-8)
        assert g[5] == pytest.approx(coordinate[6], abs=1e-10)


def test_a_frame_offset_must_satisfy_the_constraints_for_every_parameter_and_time():
    """A sleigh on a belt moving at c: A = (-sin phi, cos phi, 0), b = -c sin phi, offset w0 = (c, 0, 0).
    Written with the number 0.7 instead of c, the offset was accepted and a run at c = 1.2 followed
    the wrong constraint (its residual read 0); with b = -(c0 + acc t) sin phi it matched b at t = 0
    only. Both are refused; the offset written with c runs at c = 1.2 as the coordinate model does."""
    x, y, phi, c, acc, t = sp.symbols("x y phi c acc t")
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)],
                   [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), 1.04]])
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    X = sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])

    def belt(b, offset, **params):
        return nh.System([x, y, phi], G, constraints=A, affine=sp.Matrix([b]), parameters=params,
                         speeds=(["w1", "w2"], X, sp.Matrix([offset, 0, 0])))

    with pytest.raises(nh.ModelError, match="symbols, not their values"):
        belt(-c * sp.sin(phi), 0.7, c=0.7).nonholonomic()  # the default model: in the speeds
    with pytest.raises(nh.ModelError, match="depends on time"):
        belt(-(c + acc * t) * sp.sin(phi), c, c=0.7, acc=0.5).nonholonomic()
    good = belt(-c * sp.sin(phi), c, c=0.7)
    y0 = [0, 0, 0, 0.4, 0, 1.0]
    speeds = nh.simulate(good.nonholonomic(), (0, 3), y0, params={"c": 1.2}, rtol=1e-10, atol=1e-12)
    plain = nh.System([x, y, phi], G, constraints=A, affine=sp.Matrix([-c * sp.sin(phi)]), parameters={c: 0.7})
    coords = nh.simulate(plain.nonholonomic(), (0, 3), y0, params={"c": 1.2}, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(speeds.q[:, -1], coords.q[:, -1], atol=1e-7)


def test_a_frame_of_constraints_that_depend_on_time_is_refused_with_the_route_that_works():
    """A sleigh on a belt accelerating, b = -(c + acc t) sin phi: a frame offset with the time, and a
    Voronets frame of the affine rows, are refused with the time named and q' named as the model;
    that model runs (its residual at the end below 1e-9)."""
    x, y, phi, c, acc, t = sp.symbols("x y phi c acc t")
    G = sp.diag(1, 1, 1)
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    b = -(c + acc * t) * sp.sin(phi)
    X = sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])
    belt = nh.System([x, y, phi], G, constraints=A, affine=sp.Matrix([b]), parameters={c: 0.7, acc: 0.5}, time=t)
    with pytest.raises(ValueError, match=r"offset depends on the time t.*form='qdot'"):
        AnholonomicFrame(belt, X, offset=sp.Matrix([c + acc * t, 0, 0]))
    with pytest.raises(ValueError, match=r"this b depends on the time t.*form='qdot'"):
        AnholonomicFrame(belt)
    run = nh.simulate(belt.nonholonomic(form="qdot"), (0, 2), [0, 0, 0, 0.7, 0, 1.0])  # v = c at t = 0
    assert run.success and np.abs(run.constraint_residual()).max() < 1e-9
    default = nh.simulate(belt.nonholonomic(), (0, 2), [0, 0, 0, 0.7, 0, 1.0])  # the default model: the same
    np.testing.assert_allclose(default.y_final, run.y_final, atol=1e-7)
