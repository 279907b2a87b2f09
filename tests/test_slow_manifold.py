"""The slow-manifold expansion h^(k): closed forms of the papers (corrected), identities at random
points of random systems, an independent symbolic derivation, and the exact slow manifold of the
vertical disk to high order."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import loglog_slope
from conftest import IDENTITY_TOL, cached_reference, random_system
from nonholo.expressions.slow_manifold import slip_symbolic
from nonholo.systems import disk_exact as dx

# Closed forms are exact rational/trigonometric expressions; the AD series evaluates them with
# O(10) floating-point operations per coefficient and order: 1e-10 leaves room for cancellation.
CLOSED_FORM_TOL = 1e-10


# ------------------------------------------------------------------ sleigh (Eldering 2016)
def _sleigh_constants(m=1.0, I=1.0, a=0.2):
    J = I + m * a**2
    return J, m * a / J, J / (I * m)  # J, k, alpha


def test_sleigh_first_and_second_order_are_eldering_H1_H2(sleigh):
    """h^(1) = H1 f_2, h^(2) = H2 f_2 with H1 = -(I m/(I + m a^2)) u psi,
    H2 = (a psi^3 - 2 k u^2 psi)/alpha^2 and the frame vector f_2 = (-sin phi, cos phi, -k)
    (notes/000 sections 2.4, 3.4, 5 item 8; Eldering's h^(2) is 2 H2)."""
    J, k, alpha = _sleigh_constants()
    rng = np.random.default_rng(11)
    for _ in range(10):
        x, y, phi, u, psi = rng.uniform(-2, 2, 5)
        q = [x, y, phi]
        u_vec = [u * np.cos(phi), u * np.sin(phi), psi]  # on D: omega = psi there
        H = sleigh.slip(q, u_vec, order=2)
        f2 = np.array([-np.sin(phi), np.cos(phi), -k])
        assert np.allclose(H[0], -(1.0 * 1.0 / J) * u * psi * f2, atol=CLOSED_FORM_TOL)
        assert np.allclose(H[1], (0.2 * psi**3 - 2 * k * u**2 * psi) / alpha**2 * f2, atol=CLOSED_FORM_TOL)


# ------------------------------------------------------------------ disk (Gzenda-Chhabra)
def _disk_vD(theta, w_theta, w_phi, R=1.0):
    return np.array([w_theta, R * np.cos(theta) * w_phi, R * np.sin(theta) * w_phi, w_phi])


def disk_closed_forms(theta, w_theta, w_phi):
    """h^(1), corrected h^(2) and h^(3) of notes/003 section 5.2 (nonholo.systems.disk_exact)."""
    return dx.slip_coefficients(theta, w_theta, w_phi)[:3]


def test_disk_closed_forms(disk):
    rng = np.random.default_rng(12)
    for _ in range(10):
        theta, w_theta, w_phi = rng.uniform(-2, 2, 3)
        q = [theta, *rng.uniform(-1, 1, 3)]
        H = disk.slip(q, _disk_vD(theta, w_theta, w_phi), order=3)
        for ours, paper in zip(H, disk_closed_forms(theta, w_theta, w_phi)):
            assert np.allclose(ours, paper, atol=CLOSED_FORM_TOL)


def test_disk_printed_h2_has_the_wrong_sign(disk):
    """Gzenda-Chhabra eq. (86) prints +m^2 R J^2/(mu^2 (J + m R^2)^2) (...): the opposite of ours."""
    theta, w_theta, w_phi = 0.7, 1.3, -0.8
    h2 = disk.slip([theta, 0, 0, 0], _disk_vD(theta, w_theta, w_phi), order=2)[1]
    printed = -disk_closed_forms(theta, w_theta, w_phi)[1]
    assert np.allclose(h2, -printed, atol=CLOSED_FORM_TOL)
    assert np.abs(h2 - printed).max() > 0.1


def _exact_disk_slip(theta, w_theta, w_phi, eps):
    """The exact slow manifold of the disk minus u (nonholo.systems.disk_exact, notes/003 section 4.8)."""
    u = _disk_vD(theta, w_theta, w_phi)
    return dx.slow_manifold([theta, 0.0, 0.0, 0.0], u, eps) - u


@pytest.mark.parametrize("order", [1, 2, 3, 4, 5, 6, 7, 8])
def test_disk_expansion_of_any_order_against_exact_slow_manifold(disk, order):
    """|h_eps - sum_{k<=K} eps^k h^(k)| = O(eps^(K+1)) against the exact manifold, for every
    order up to the maximum. eps spans [0.04, 0.16]: small enough for the asymptotic regime,
    large enough that the residual of order 8 (~eps^9) stays above round-off (~1e-16)."""
    theta, w_theta, w_phi = 0.4, 0.9, 1.1
    H = disk.slip([theta, 0.1, -0.2, 0.3], _disk_vD(theta, w_theta, w_phi), order=order)
    eps_values = np.array([0.16, 0.1, 0.065, 0.04])
    residuals = []
    for eps in eps_values:
        truncated = sum(eps ** (k + 1) * H[k] for k in range(order))
        residuals.append(np.abs(_exact_disk_slip(theta, w_theta, w_phi, eps) - truncated).max())
    slope = loglog_slope(eps_values, residuals)
    # every h^(k) of the disk is nonzero (odd orders lateral, even orders forward slip), so the
    # residual of the truncation after K is eps^(K+1) h^(K+1) + ...: slope K + 1
    assert abs(slope - (order + 1)) < 0.3


def test_disk_fourth_order_closed_form(disk):
    """h^(4) = alpha b4 (0, cos/m, sin/m, -R/J), b4 = -J^2 R m^5 Omega^4 (m^2 R^4 + 2 m J R^2 - J^2)
    / (mu^4 (J + m R^2)^4) (notes/003 section 4.8, exact eigen-analysis), alpha = v_phi on D."""
    m, R, J, mu = 1.0, 1.0, 0.5, 1.0
    theta, w_theta, w_phi = -0.6, 1.4, 0.7
    h4 = disk.slip([theta, 0, 0, 0], _disk_vD(theta, w_theta, w_phi), order=4)[3]
    expected = dx.slip_coefficients(theta, w_theta, w_phi, dict(m=m, R=R, J=J, mu=mu))[3]
    assert np.allclose(h4, expected, atol=CLOSED_FORM_TOL)


# ------------------------------------------------------------------ generic identities
@pytest.fixture(scope="module", params=[21, 22])
def generic(request):
    return random_system(request.param, n=4, k=2, potential=True, affine=True, force=True)


def _random_point(system, rng, t=0.3):
    q = rng.uniform(-1, 1, system.n)
    u = system.project(q, rng.uniform(-1, 1, system.n), t)
    return q, u


def test_coefficients_lie_in_D_perp(generic):
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, u = _random_point(generic, rng)
        P, _ = generic.projectors(q)
        H = generic.slip(q, u, order=5, t=0.3)
        for h in H:
            assert np.abs(P @ h).max() < IDENTITY_TOL * max(1.0, np.abs(h).max())


def test_first_order_slip_gives_the_constraint_force(generic):
    """FR# h^(1) = -G^-1 A^T lambda(u): the leading friction force is the ideal constraint force
    (Gzenda-Chhabra Remark 12), here with potential, affine constraint and velocity-dependent force."""
    rng = np.random.default_rng(4)
    for _ in range(3):
        q, u = _random_point(generic, rng)
        h1 = generic.slip(q, u, order=1, t=0.3)[0]
        lam = generic.multipliers(q, u, 0.3)
        G = generic.metric_at(q)
        A, _ = generic.constraint_matrix(q, 0.3)
        assert np.allclose(generic.friction_operator(q) @ h1, -np.linalg.solve(G, A.T @ lam), atol=IDENTITY_TOL)


@pytest.fixture(scope="module")
def symbolic_friendly():
    """Every term the expansion must handle (q-dependent metric, potential, affine constraint
    depending on q and t, force depending on q, v and t, q-dependent friction), on a system
    small enough for SymPy's inverses: G diagonal, one constraint."""
    x, y, th = sp.symbols("x y theta")
    vx, vy, vth = sp.symbols("x_dot y_dot theta_dot")
    t = sp.Symbol("t")
    G = sp.diag(1 + x**2 / 4, 2 + sp.sin(y) / 2, 3 + sp.cos(th))
    A = sp.Matrix([[sp.sin(th), -sp.cos(th), sp.Rational(3, 10) + x / 5]])
    b = sp.Matrix([sp.cos(t) * x / 5])
    V = x**2 * y / 2 + sp.cos(th)
    F = sp.Matrix([-vx / 5 + sp.sin(t) / 10, -vy / 5, -vth * x / 10])
    mu = sp.Matrix([[1 + y**2 / 2]])
    return nh.System([x, y, th], G, V, A, b, mu, F, velocities=[vx, vy, vth], time=t, name="symbolic friendly")


@pytest.mark.slow
def test_numeric_and_symbolic_slip_agree(symbolic_friendly):
    """Two independent implementations: C++ Taylor arithmetic along the slow trajectory, and
    SymPy's expansion of the invariance equation in eps (nonholo.expressions.slow_manifold)."""
    system = symbolic_friendly
    H_sym = slip_symbolic(system, order=2, simplify=False)
    f = sp.lambdify([*system.coordinates, *system.velocities, system.time], H_sym, "numpy", cse=True)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, u = _random_point(system, rng, t=0.7)
        H = system.slip(q, u, order=2, t=0.7)
        sym = [np.asarray(h, dtype=float).ravel() for h in f(*q, *u, 0.7)]
        assert np.allclose(H[0], sym[0], atol=1e-11)
        assert np.allclose(H[1], sym[1], atol=1e-10)


@pytest.mark.slow
def test_symbolic_disk_coefficients_simplify_to_the_corrected_closed_forms(disk):
    H = slip_symbolic(disk, order=2)
    theta, x, y, phi = disk.coordinates
    v_theta, v_x, v_y, v_phi = disk.velocities
    m, R, I, J, mu = disk.parameters
    on_D = {v_x: R * sp.cos(theta) * v_phi, v_y: R * sp.sin(theta) * v_phi}
    h1 = (m * R / mu) * v_theta * v_phi * sp.Matrix([0, sp.sin(theta), -sp.cos(theta), 0])
    h2 = -(m**2 * R * J**2 / (mu**2 * (J + m * R**2) ** 2)) * v_theta**2 * v_phi * sp.Matrix(
        [0, sp.cos(theta), sp.sin(theta), -m * R / J])
    assert sp.simplify(H[0].subs(on_D) - h1) == sp.zeros(4, 1)
    assert sp.simplify(H[1].subs(on_D) - h2) == sp.zeros(4, 1)


# ------------------------------------------------------------------ reduced dynamics
def _first_order_term(model, y, t=0.0):
    """The eps-coefficient of the reduced vector field (q', u') with u = P v + v_b. For velocity-independent forces the
    projected acceleration is quadratic in (u, s) and s = eps h^(1) at order 1, so the field is
    a quadratic polynomial in eps and the central difference at eps = +-1 is exact."""
    return (model.rhs(t, y, {"eps": 1.0}) - model.rhs(t, y, {"eps": -1.0})) / 2


@pytest.fixture(scope="module")
def polar_disk():
    """The disk with polar position coordinates and a potential (notes/003 section 4.9): a
    non-flat metric and a potential, the terms the paper's own example never exercises."""
    return nh.systems.polar_disk()


def _covariant_calculus(system):
    """Gzenda-Chhabra's objects (their eqs. (4)-(6), (29)-(33), (67)) in SymPy, independently of
    nonholo's implementation: (q, w, Gam, cov_T, P_perp, P, Qmat, gradV, h1, D^V h1, nabla^H h1)."""
    q = sp.Matrix(system.coordinates)
    w = sp.Matrix(system.velocities)
    n = system.n
    G, A, V = sp.Matrix(system.metric), sp.Matrix(system.constraints), system.potential
    Ginv = G.inv()
    gamma = [[[sum(Ginv[i, l] * (G[j, l].diff(q[k]) + G[k, l].diff(q[j]) - G[j, k].diff(q[l])) / 2 for l in range(n))
               for k in range(n)] for j in range(n)] for i in range(n)]

    def Gam(X):  # matrix [Gamma(q, X)]_{ij} = Gamma^i_kj X^k
        return sp.Matrix(n, n, lambda i, j: sum(gamma[i][k][j] * X[k] for k in range(n)))

    Pperp = Ginv * A.T * (A * Ginv * A.T).inv() * A
    P = sp.eye(n) - Pperp
    mu = sp.Matrix(system.friction_coefficients)
    Qmat = Ginv * A.T * (A * Ginv * A.T).inv() * mu.inv() * (A * Ginv * A.T).inv() * A
    gradV = Ginv * sp.Matrix([V.diff(qi) for qi in q])

    def cov_T(T, X):  # (nabla_X T)
        return sum((T.diff(q[k]) * X[k] for k in range(n)), sp.zeros(n, n)) + Gam(X) * T - T * Gam(X)

    h1 = Qmat * (cov_T(Pperp, w) * w - Pperp * gradV)                       # (67)
    Dv_h1 = h1.jacobian(w)
    nablaH_h1 = h1.jacobian(q) * w + Gam(w) * h1 - Dv_h1 * Gam(w) * w
    return q, w, Gam, cov_T, Pperp, P, Qmat, gradV, h1, Dv_h1, nablaH_h1


def _gzenda_chhabra_68(calculus):
    """h^(2) of Gzenda-Chhabra's general eq. (68), evaluated at w = vD:
        Qmat [(nabla_h1 P_perp)(vD) + (nabla_vD P_perp)(h1)] - Qmat [D^V h1((nabla_vD P)(vD)) - D^V h1(P gradV)]
        - Qmat [nabla^H_vD h1 (vD)]."""
    q, w, Gam, cov_T, Pperp, P, Qmat, gradV, h1, Dv_h1, nablaH_h1 = calculus
    return (Qmat * (cov_T(Pperp, h1) * w + cov_T(Pperp, w) * h1)
            - Qmat * (Dv_h1 * (cov_T(P, w) * w) - Dv_h1 * (P * gradV)) - Qmat * nablaH_h1)


@pytest.fixture(scope="module")
def gzenda_chhabra_formulas(polar_disk):
    """h1 (67), the eps-term of (71) with dh1/dt, and h2 (68) on the polar disk, one lambdified
    function (the SymPy expressions are large; built once for the module)."""
    def derive():  # about a minute of SymPy, cached (conftest.cached_reference)
        calculus = _covariant_calculus(polar_disk)
        h1, accel, h1_dot = _gzenda_chhabra_71_correction(calculus)
        exprs = [h1, accel, h1_dot, _gzenda_chhabra_68(calculus)]
        return exprs, sp.cse(exprs)

    exprs, common = cached_reference("gzenda_chhabra_68_polar_disk", derive, __file__,
                                     nh.systems.polar_disk.__code__.co_filename)
    args = [*polar_disk.coordinates, *polar_disk.velocities]
    return sp.lambdify(args, exprs, "numpy", cse=lambda _: common)


@pytest.mark.slow
def test_general_eq_68_is_h2_on_a_curved_metric_with_a_potential(polar_disk, gzenda_chhabra_formulas):
    """Gzenda-Chhabra's general (68), written out with covariant derivatives, equals nonholo's
    h^(2) (Taylor arithmetic through the tape) on the polar disk: Christoffel symbols and a
    potential, both of which the paper's disk example lacks. Each group of terms matters."""
    rng = np.random.default_rng(11)
    for _ in range(4):
        q = np.array([rng.uniform(-1, 1), rng.uniform(1, 2), rng.uniform(-1, 1), rng.uniform(-1, 1)])
        u = polar_disk.project(q, rng.uniform(-1, 1, 4))
        H = polar_disk.slip(q, u, order=2)
        h1, _, _, h2 = (np.asarray(x, dtype=float).ravel() for x in gzenda_chhabra_formulas(*q, *u))
        assert np.allclose(H[0], h1, atol=1e-12)
        assert np.allclose(H[1], h2, atol=1e-11) and np.abs(h2).max() > 1e-2


def _gzenda_chhabra_71_correction(calculus):
    """The eps-term of Gzenda-Chhabra eq. (71), written with covariant derivatives:
        -2 Gamma(vD) h1 + nabla^H_vD h1 (vD) - [(nabla_vD P_perp)(h1) + (nabla_h1 P_perp)(vD)]
        + D^V h1 [(nabla_vD P)(vD) - P gradV],   and   dq/dt correction h1.
    (71) is the acceleration of the full velocity v = vD + eps h1; nonholo's reduced model
    integrates vD = P v, whose eps-term is smaller by dh1/dt along the zeroth-order flow (69),
    also returned."""
    q, w, Gam, cov_T, Pperp, P, Qmat, gradV, h1, Dv_h1, nablaH_h1 = calculus
    accel = (-2 * Gam(w) * h1 + nablaH_h1 - (cov_T(Pperp, w) * h1 + cov_T(Pperp, h1) * w)
             + Dv_h1 * (cov_T(P, w) * w - P * gradV))
    nonholonomic = -Gam(w) * w - cov_T(Pperp, w) * w - P * gradV  # (69)
    h1_dot = h1.jacobian(q) * w + Dv_h1 * nonholonomic
    return h1, accel, h1_dot


@pytest.mark.slow
def test_first_order_reduced_dynamics_equals_eq_71(polar_disk, gzenda_chhabra_formulas):
    model = polar_disk.reduced(0.1, order=1)
    rng = np.random.default_rng(6)
    for _ in range(3):
        q = np.array([rng.uniform(-1, 1), rng.uniform(1, 2), rng.uniform(-1, 1), rng.uniform(-1, 1)])
        u = polar_disk.project(q, rng.uniform(-1, 1, 4))
        ours = _first_order_term(model, np.r_[q, u])
        h1, accel, h1_dot, _ = (np.asarray(x, dtype=float).ravel() for x in gzenda_chhabra_formulas(*q, *u))
        assert np.allclose(ours[:4], h1, atol=1e-11)
        assert np.allclose(ours[4:] + h1_dot, accel, atol=1e-10)
        assert np.abs(h1_dot).max() > 1e-2  # the two accelerations do differ


def test_disk_first_order_dynamics_is_corrected_eq_89(disk):
    """v_phi' = -eps m^2 R^2 v_theta^2 v_phi/(mu (J + m R^2)) (|v_phi| decays); the printed (89)
    has the opposite sign, which would make the energy grow. (89) is the acceleration of the full
    velocity v = vD + eps h1: the reduced model's d(vD)/dt plus eps dh1/dt,
    dh1/dt = (m R/mu) v_theta^2 v_phi (0, cos, sin, 0)."""
    m, R, J, mu = 1.0, 1.0, 0.5, 1.0
    model = disk.reduced(0.1, order=1)
    theta, w_theta, w_phi = 0.5, 0.8, 1.2
    y = np.r_[theta, 0, 0, 0, _disk_vD(theta, w_theta, w_phi)]
    term = _first_order_term(model, y)
    assert term[7] == pytest.approx(-(m**2) * R**2 * w_theta**2 * w_phi / (mu * (J + m * R**2)), abs=1e-12)
    c, s = np.cos(theta), np.sin(theta)
    corrected = m * R * J / (mu * (J + m * R**2)) * w_phi * w_theta**2 * np.array([0, c, s, -m * R / J])
    h1_dot = (m * R / mu) * w_theta**2 * w_phi * np.array([0, c, s, 0])
    assert np.allclose(term[4:] + h1_dot, corrected, atol=1e-12)
    assert np.abs(term[4:] + h1_dot + corrected).max() > 0.1  # the printed sign is not what we get


def test_sleigh_first_order_heading_term_has_eldering_corrected_sign(sleigh):
    """X^(1)_phi = +I m^2 a/(I + m a^2)^2 u psi (Eldering section 7.1 prints a minus)."""
    model = sleigh.reduced(0.1, order=1)
    J, k, _ = _sleigh_constants()
    phi, u, psi = 0.3, -1.1, 0.9
    term = _first_order_term(model, [0, 0, phi, u * np.cos(phi), u * np.sin(phi), psi])
    assert term[2] == pytest.approx(+1.0 * 1.0 * 0.2 / J**2 * u * psi, abs=1e-12)
    # the u and psi components: X^(1)_u = I m (m a^2 - I)/J^2 u psi^2, X^(1)_psi = -I m^3 a^2/J^3 u^2 psi;
    # the reduced state is u (cos phi, sin phi) + psi e_phi, so X^(1)_u = (u_x', u_y') . (cos, sin)
    assert term[3] * np.cos(phi) + term[4] * np.sin(phi) == pytest.approx((0.04 - 1.0) / J**2 * u * psi**2, abs=1e-12)
    assert term[5] == pytest.approx(-(0.04) / J**3 * u**2 * psi, abs=1e-12)


def test_order_zero_reduced_model_is_nonholonomic(generic):
    rng = np.random.default_rng(7)
    q, u = _random_point(generic, rng)
    y = np.r_[q, u]
    assert np.allclose(generic.reduced(0.05, order=0).rhs(0.3, y), generic.nonholonomic().rhs(0.3, y), atol=1e-13)


def test_velocity_dependent_force_is_supported():
    """A viscous force F = -c v on the disk: the slip expansion includes it (no rejection)."""
    theta, x, y, phi = sp.symbols("theta x y phi")
    vt, vx, vy, vp = sp.symbols("theta_dot x_dot y_dot phi_dot")
    F = -sp.Rational(1, 5) * sp.Matrix([vt, vx, vy, vp])
    G = sp.diag(0.25, 1, 1, 0.5)
    A = sp.Matrix([[0, 1, 0, -sp.cos(theta)], [0, 0, 1, -sp.sin(theta)]])
    system = nh.System([theta, x, y, phi], G, constraints=A, force=F, velocities=[vt, vx, vy, vp])
    H = system.slip([0.3, 0, 0, 0], _disk_vD(0.3, 0.7, 1.1), order=3)
    sym = slip_symbolic(system, order=2, simplify=False)
    f = sp.lambdify([theta, x, y, phi, vt, vx, vy, vp], sym, "numpy")
    ref = [np.asarray(h, dtype=float).ravel() for h in f(0.3, 0, 0, 0, *_disk_vD(0.3, 0.7, 1.1))]
    assert np.allclose(H[0], ref[0], atol=1e-12) and np.allclose(H[1], ref[1], atol=1e-12)
    assert np.abs(H[1]).max() > 1e-3  # the force changes the second-order slip


def test_orders_above_the_maximum_are_rejected(sleigh):
    with pytest.raises(ValueError, match="order must be between 0 and 16"):
        sleigh.reduced(0.1, order=17)
    # max_order by name: order "auto" computes the terms 1..max_order (0 failed in simulate, naming no argument)
    with pytest.raises(ValueError, match="max_order must be between 1 and 16, got 0"):
        sleigh.reduced(0.1, order="auto", max_order=0)
    with pytest.raises(ValueError, match="u must lie on the constraint set"):
        sleigh.slip([0, 0, 0], [0, 1.0, 0], order=1)
