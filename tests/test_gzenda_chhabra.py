"""Gzenda-Chhabra's vertical rolling disk (notes/003_gzenda_chhabra.md sections 4-5): the
symbolic geometric objects against the C++ ones, the printed Qmat (82) against Lemma 4, the
stiff friction disk against its exact matrix-exponential solution, the exact slow manifold,
the reduced models against their closed forms, and the note's table of section 4.9."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import loglog_slope
from nonholo.expressions import geometry_symbolic
from nonholo.systems import disk_exact as dx

# Pointwise linear algebra on O(1), well-conditioned matrices (the disk's M has condition
# number below 10): round-off of a few solves.
POINT_TOL = 1e-12
# nh.simulate at rtol 1e-12, atol 1e-14 reaches 0.6e-10 .. 1.5e-10 max abs error on the disk's
# state over t in [0, 4] for eps from 0.2 down to 1e-8, on and off the slow manifold (measured
# against the 30-digit matrix exponential); the issue asks for 1e-9.
STIFF_RTOL, STIFF_ATOL, STIFF_TOL = 1e-12, 1e-14, 1e-9
# The note's section 4.9 table (its own RK4 runs, dt <= eps/50): eps -> (lateral slip/eps,
# forward slip/eps^2, err0(q), err1(q), err1_paper(q), err0(v_phi), err1(v_phi), err1_paper(v_phi)).
NOTE_TABLE = {
    0.2: (-0.593, -0.199, 1.21, 2.28e-2, 2.60, 0.421, 7.2e-3, 1.13),
    0.1: (-0.769, -0.257, 0.655, 6.41e-3, 1.27, 0.235, 1.15e-3, 0.541),
    0.05: (-0.876, -0.292, 0.342, 1.87e-3, 0.630, 0.125, 1.63e-4, 0.268),
    0.025: (-0.936, -0.312, 0.175, 5.15e-4, 0.315, 0.0645, 2.17e-5, 0.134),
}
THETA0, T = 0.3, 4.0


@pytest.fixture(scope="module")
def disk():
    return nh.systems.vertical_rolling_disk()


def _on_D(theta, w_theta, w_phi, R=1.0):
    return np.array([w_theta, R * np.cos(theta) * w_phi, R * np.sin(theta) * w_phi, w_phi])


def _note_start():
    """The note's run: theta0 = 0.3, x0 = y0 = phi0 = 0, v_theta = 1, v_phi^D = 1."""
    return np.array([THETA0, 0, 0, 0]), _on_D(THETA0, 1.0, 1.0)


# ------------------------------------------------------------------ geometry_symbolic
def _polar_disk():
    return nh.systems.polar_disk(spring=0.35, tilt=0.0)


def _skew_system():
    """Non-diagonal q-dependent metric, q-dependent friction coefficient, one constraint."""
    x, y, z = sp.symbols("x y z")
    c = sp.Symbol("c", positive=True)
    G = sp.Matrix([[2 + sp.sin(y), x / 5, 0], [x / 5, 1 + x**2 / 4, sp.cos(z) / 5], [0, sp.cos(z) / 5, 3]])
    A = sp.Matrix([[sp.sin(z), -sp.cos(z), c + x / 5]])
    return nh.System([x, y, z], G, x * y, A, friction=sp.Matrix([[1 + y**2 / 2]]), parameters={c: 0.3})


@pytest.mark.slow
@pytest.mark.parametrize("case", ["disk", "sleigh", "polar disk", "skew"])
def test_geometry_symbolic_equals_the_numerical_objects(case, disk):
    """The SymPy objects (simplified for the disk, raw for the others) against System's C++ ones
    at random points: flat and curved metrics, non-diagonal metric, q-dependent friction."""
    system = {"disk": lambda: disk, "sleigh": lambda: nh.systems.chaplygin_sleigh(), "polar disk": _polar_disk,
              "skew": _skew_system}[case]()
    geometry = geometry_symbolic(system, simplify=case == "disk")
    names = ["P", "P_perp", "FR", "Qmat"]
    f = sp.lambdify([*system.coordinates, *system.parameters],
                    [geometry[nm] for nm in names] + [geometry["christoffel"].tolist()], "numpy", cse=True)
    rng = np.random.default_rng(7)
    christoffel_seen = 0.0
    for _ in range(5):
        q = rng.uniform(-1, 1, system.n)
        if case == "polar disk":
            q[1] = rng.uniform(0.5, 2.0)  # r > 0
        values = [np.asarray(v, dtype=float) for v in f(*q, *system.parameters.values())]
        P, P_perp = system.projectors(q)
        numeric = [P, P_perp, system.friction_operator(q), system.qmat(q), system.christoffel(q)]
        for name, sym, num in zip(names + ["christoffel"], values, numeric):
            assert np.allclose(sym, num, atol=POINT_TOL * (1 + np.abs(num).max()), rtol=0), name
        christoffel_seen = max(christoffel_seen, np.abs(numeric[-1]).max())
    if case in ("sleigh", "polar disk", "skew"):
        assert christoffel_seen > 0.1  # the Christoffel comparison is not between zeros


# ------------------------------------------------------------------ eq. (82) and Lemma 4
def _printed_82(theta, m=1.0, R=1.0, J=0.5):
    """Qmat as printed in eq. (82): no prefactor, +J^2 R cos(theta) in the (x, phi) entry."""
    c, s = np.cos(theta), np.sin(theta)
    g = m * R**2 + 2 * J
    return np.array([[0, 0, 0, 0],
                     [0, J**2 + g * m * R**2 * s**2, -0.5 * g * m * R**2 * np.sin(2 * theta), J**2 * R * c],
                     [0, -0.5 * g * m * R**2 * np.sin(2 * theta), J**2 + g * m * R**2 * c**2, -J**2 * R * s],
                     [0, -m * R * J * c, -m * R * J * s, m * R**2 * J]])


def test_printed_qmat_82_fails_lemma_4_and_ours_satisfies_it(disk):
    """Lemma 4: Qmat FR# = P_perp. The printed (82) fails it by O(1); each of the two corrections
    (the prefactor m/(mu (J + m R^2)^2), the sign of the (x, phi) entry) alone still fails; both
    together give nonholo's Qmat, which satisfies Qmat FR# = FR# Qmat = P_perp."""
    m, R, J, mu = 1.0, 1.0, 0.5, 1.0
    prefactor = m / (mu * (J + m * R**2) ** 2)
    rng = np.random.default_rng(8)
    for theta in rng.uniform(-np.pi, np.pi, 5):
        q = np.array([theta, *rng.uniform(-1, 1, 3)])
        FR, Q = disk.friction_operator(q), disk.qmat(q)
        _, P_perp = disk.projectors(q)
        assert np.allclose(Q @ FR, P_perp, atol=POINT_TOL) and np.allclose(FR @ Q, P_perp, atol=POINT_TOL)
        printed = _printed_82(theta)
        sign_fixed = printed.copy()
        sign_fixed[1, 3] *= -1
        for wrong in (printed, prefactor * printed, sign_fixed):
            assert np.abs(wrong @ FR - P_perp).max() > 0.05
        assert np.allclose(prefactor * sign_fixed, Q, atol=POINT_TOL)


def _vanishes(matrix, theta) -> bool:
    """Every entry is zero as a function of theta: polynomial in (cos, sin) after expand_trig,
    reduced modulo cos^2 + sin^2 - 1 (an exact decision, unlike sympy.simplify's heuristics)."""
    c, s = sp.symbols("_c _s")

    def reduce(e):
        e = sp.expand(sp.expand_trig(e)).subs({sp.cos(theta): c, sp.sin(theta): s})
        return sp.rem(sp.expand(sp.numer(sp.together(e))), s**2 + c**2 - 1, s)

    return all(reduce(e) == 0 for e in matrix)


@pytest.mark.slow
def test_symbolic_qmat_is_the_corrected_82(disk):
    """geometry_symbolic's Qmat (unsimplified: the decision below needs no simplification) is
    m/(mu (J + m R^2)^2) times (82) with the (x, phi) sign fixed,
    Qmat FR# = P_perp holds identically, and the printed bracket fails it identically."""
    theta = disk.coordinates[0]
    m, R, I, J, mu = disk.parameters
    c, s = sp.cos(theta), sp.sin(theta)
    g = m * R**2 + 2 * J
    bracket = sp.Matrix([[0, 0, 0, 0],
                         [0, J**2 + g * m * R**2 * s**2, -g * m * R**2 * sp.sin(2 * theta) / 2, -J**2 * R * c],
                         [0, -g * m * R**2 * sp.sin(2 * theta) / 2, J**2 + g * m * R**2 * c**2, -J**2 * R * s],
                         [0, -m * R * J * c, -m * R * J * s, m * R**2 * J]])
    corrected = m / (mu * (J + m * R**2) ** 2) * bracket
    geometry = geometry_symbolic(disk, simplify=False)
    Q, FR, P_perp = geometry["Qmat"], geometry["FR"], geometry["P_perp"]
    assert _vanishes(Q - corrected, theta)
    assert _vanishes(Q * FR - P_perp, theta) and _vanishes(FR * Q - P_perp, theta)
    printed = bracket.copy()
    printed[1, 3] = -printed[1, 3]
    assert not _vanishes(printed * FR - P_perp, theta)
    assert not _vanishes(m / (mu * (J + m * R**2) ** 2) * printed * FR - P_perp, theta)


# ------------------------------------------------------------------ the exact stiff disk
def _hand_written_83(y, eps, m=1.0, R=1.0, J=0.5, mu=1.0):
    """Eqs. (83)-(84) (typos v_v, rho corrected), written out: the oracle's independent check."""
    theta, _, _, _, vt, vx, vy, vp = y
    c, s = np.cos(theta), np.sin(theta)
    return np.array([vt, vx, vy, vp, 0.0, -(mu / eps) * (vx - R * c * vp) / m, -(mu / eps) * (vy - R * s * vp) / m,
                     -(mu / eps) * (-R * c * vx - R * s * vy + R**2 * vp) / J])


def test_matrix_exponential_solves_eq_83():
    """The oracle satisfies (83)-(84) (central differences of the exact solution, step 1e-6:
    error O(1e-12 |y'''|)), dissipates energy at the rate (mu/eps)(s_f^2 + w^2), and its two
    precisions agree where the double one is accurate."""
    eps, h = 0.1, 1e-6
    y0 = np.r_[0.4, 0.1, -0.2, 0.3, 0.8, 0.5, -0.7, 1.1]  # off D: both slips nonzero
    for t in (0.05, 0.7, 2.0):
        y = dx.stiff_solution([t - h, t, t + h], y0, eps)
        derivative = (y[:, 2] - y[:, 0]) / (2 * h)
        assert np.allclose(derivative, _hand_written_83(y[:, 1], eps), atol=1e-7)
        energy = [0.5 * (0.25 * yy[4] ** 2 + yy[5] ** 2 + yy[6] ** 2 + 0.5 * yy[7] ** 2) for yy in y.T]
        w, s_f = dx.slips(y[:, 1])
        assert (energy[2] - energy[0]) / (2 * h) == pytest.approx(-(1 / eps) * (s_f**2 + w**2), abs=1e-7)
    t = np.linspace(0, 4, 5)
    assert np.abs(dx.stiff_solution(t, y0, eps, precision="double")
                  - dx.stiff_solution(t, y0, eps, precision="high")).max() < 1e-13


@pytest.mark.parametrize("eps", [0.1, 1e-3, 1e-6])
@pytest.mark.parametrize("start", ["slow manifold", "off the manifold"])
def test_stiff_disk_matches_the_matrix_exponential(disk, eps, start):
    """nh.simulate(disk.friction(eps)) against the exact solution, max abs error over the
    whole state at 11 times in [0, 4] below 1e-9, from eps = 0.1 to the stiff eps = 1e-6 (fast
    time constant eps m J/(mu (J + m R^2)) = 3.3e-7), with and without an initial layer."""
    q0, u0 = _note_start()
    v0 = disk.on_slow_manifold(q0, u0, eps, order=3) if start == "slow manifold" else u0 + [0, 0.3, -0.2, 0.1]
    t = np.linspace(0, T, 11)
    sol = nh.simulate(disk.friction(eps), (0, T), np.r_[q0, v0], t_eval=t, rtol=STIFF_RTOL, atol=STIFF_ATOL,
                      raise_on_failure=True)
    exact = dx.stiff_solution(t, np.r_[q0, v0], eps)
    assert np.abs(sol.y - exact).max() < STIFF_TOL
    assert np.abs(exact[1:3, -1]).max() > 0.3  # the disk did move


def test_stiff_disk_with_other_parameters():
    """Every parameter in its place: m = 2, R = 0.5, J = 0.3, mu = 1.7 (eps = 1e-4), both ways."""
    params = dict(m=2.0, R=0.5, I=0.4, J=0.3, mu=1.7)
    disk = nh.systems.vertical_rolling_disk(**params)
    eps, t = 1e-4, np.linspace(0, 3, 7)
    y0 = np.r_[-0.8, 0.2, 0.1, 0.0, 1.4, 0.3, -0.5, 0.9]
    sol = nh.simulate(disk.friction(eps), (0, 3), y0, t_eval=t, rtol=STIFF_RTOL, atol=STIFF_ATOL)
    assert np.abs(sol.y - dx.stiff_solution(t, y0, eps, params=params)).max() < STIFF_TOL
    y = dx.stiff_solution([0.4 - 1e-6, 0.4, 0.4 + 1e-6], y0, eps, params=params)
    rhs = _hand_written_83(y[:, 1], eps, **{k: params[k] for k in ("m", "R", "J", "mu")})
    assert np.allclose((y[:, 2] - y[:, 0]) / 2e-6, rhs, atol=1e-6 * (1 + np.abs(rhs).max()))


# ------------------------------------------------------------------ the exact slow manifold
def test_exact_slow_manifold_against_its_series_and_nonholo():
    """The slow eigenvector's coefficients beta = eps^2 b2 + eps^4 b4 + O(eps^6), gamma = eps g1
    + eps^3 g3 + O(eps^5), the rate lambda = eps l1 + eps^3 l3 + O(eps^5) (note section 4.8):
    the residuals after the series scale with the next power of eps."""
    m, R, J, mu, omega = 1.0, 1.0, 0.5, 1.0, 1.3
    S = J + m * R**2
    g1, b2 = -R * m * omega / mu, -J**2 * R * m**3 * omega**2 / (mu**2 * S**2)
    g3 = -R * m**3 * omega**3 * (m**2 * R**4 + m * J * R**2 - J**2) / (mu**3 * S**2)
    b4 = -J**2 * R * m**5 * omega**4 * (m**2 * R**4 + 2 * m * J * R**2 - J**2) / (mu**4 * S**4)
    eps_values = np.array([0.04, 0.02, 0.01, 0.005])
    res = {"gamma": [], "beta": [], "rate": []}
    for eps in eps_values:
        sec = dx.slow_section(eps, omega)
        res["gamma"].append(abs(sec.gamma - eps * g1 - eps**3 * g3))
        res["beta"].append(abs(sec.beta - eps**2 * b2 - eps**4 * b4))
        res["rate"].append(abs(sec.rate - dx.slow_rate_series(eps, omega)))
    slopes = {k: loglog_slope(eps_values, v) for k, v in res.items()}
    assert abs(slopes["gamma"] - 5) < 0.2 and abs(slopes["beta"] - 6) < 0.2 and abs(slopes["rate"] - 5) < 0.2
    # Omega = 0: the slow manifold is D itself (the rolling momentum is conserved)
    assert dx.slow_section(0.1, 0.0).beta == 0 and dx.slow_section(0.1, 0.0).gamma == 0


def test_friction_disk_started_on_the_exact_manifold_stays_on_it(disk):
    """No initial layer at all: at every time, v = slow_manifold(q, P v) and the rolling rate
    decays as exp(lambda t), to the integration tolerance, also at a stiff eps."""
    q0, u0 = _note_start()
    for eps in (0.2, 1e-4):
        v0 = dx.slow_manifold(q0, u0, eps)
        t = np.linspace(0, T, 5)
        sol = nh.simulate(disk.friction(eps), (0, T), np.r_[q0, v0], t_eval=t, rtol=STIFF_RTOL, atol=STIFF_ATOL)
        alpha = dx.rolling_speed(sol.y)
        assert np.allclose(alpha, np.exp(dx.slow_rate(eps, 1.0) * t), atol=1e-10)
        for q, v in zip(sol.q.T, sol.v.T):
            assert np.abs(v - dx.slow_manifold(q, disk.project(q, v), eps)).max() < 1e-10


# ------------------------------------------------------------------ reduced models: (89) corrected
# eps = 0.2 at order 0 is outside the expansion's range (a first term of 0.19 |u|) on purpose: the
# closed forms and the note's table are checked there, and nonholo says so with a SimulationWarning
OUTSIDE_RANGE = pytest.mark.filterwarnings("ignore:the reduced model:nonholo.errors.SimulationWarning")


@OUTSIDE_RANGE
def test_reduced_models_are_the_closed_forms_and_printed_89_grows(disk):
    """nonholo's reduced models of order 0 and 1 are the closed forms of note section 4.8 (the
    circle; the inward spiral of the corrected (89)/(90)) to 1e-9. With the printed sign of (89)
    |v_phi| and the energy grow, and the model is worse than order 0 against the exact stiff disk."""
    q0, u0 = _note_start()
    y0 = np.r_[q0, u0]
    t = np.linspace(0, T, 9)
    for eps in (0.2, 0.05):
        for order in (0, 1):
            sol = nh.simulate(disk.reduced(eps, order=order), (0, T), y0, t_eval=t, rtol=STIFF_RTOL, atol=STIFF_ATOL)
            assert np.abs(sol.y - dx.reduced_closed_form(t, y0, eps, order)).max() < 1e-9
        printed = dx.reduced_closed_form(t, y0, eps, 1, printed=True)
        corrected = dx.reduced_closed_form(t, y0, eps, 1)
        energy = lambda y: 0.5 * (0.25 * y[4] ** 2 + (0.5 + 1.0) * y[7] ** 2)  # noqa: E731 (on D)
        assert np.all(np.diff(energy(printed)) > 0) and np.all(np.diff(energy(corrected)) < 0)
        full = dx.stiff_solution([T], np.r_[q0, disk.on_slow_manifold(q0, u0, eps, order=3)], eps)[:, 0]
        err = lambda y: np.linalg.norm(y[1:4, -1] - full[1:4])  # noqa: E731
        assert err(printed) > err(dx.reduced_closed_form(t, y0, eps, 0)) > err(corrected)


def _note_row(disk, eps):
    """One row of the note's table, recomputed: full model by nh.simulate (on the order-3
    manifold), reduced models by nh.simulate, the printed (89) by its closed form."""
    q0, u0 = _note_start()
    y0 = np.r_[q0, u0]
    v0 = disk.on_slow_manifold(q0, u0, eps, order=3)
    kw = dict(t_eval=[0, T], rtol=STIFF_RTOL, atol=STIFF_ATOL, raise_on_failure=True)
    full = nh.simulate(disk.friction(eps), (0, T), np.r_[q0, v0], **kw).y[:, -1]
    lateral, forward = dx.slips(full)
    alpha = dx.rolling_speed(full)
    models = [nh.simulate(disk.reduced(eps, order=K), (0, T), y0, **kw).y[:, -1] for K in (0, 1)]
    models.append(dx.reduced_closed_form([T], y0, eps, 1, printed=True)[:, 0])
    err_q = [np.linalg.norm(y[1:4] - full[1:4]) for y in models]
    err_v = [abs(y[7] - alpha) for y in models]
    return (lateral / eps, forward / eps**2, *err_q, *err_v)


@OUTSIDE_RANGE
@pytest.mark.parametrize("eps", list(NOTE_TABLE))
def test_the_notes_table_is_reproduced(disk, eps):
    """Every entry of note section 4.9's table to the digits printed (relative 1%: the note's
    RK4 at dt <= eps/50 and its three significant digits)."""
    ours = _note_row(disk, eps)
    for name, a, b in zip(["lat/eps", "fwd/eps^2", "err0 q", "err1 q", "err1_paper q", "err0 v", "err1 v",
                           "err1_paper v"], ours, NOTE_TABLE[eps]):
        assert a == pytest.approx(b, rel=0.01), name


def test_convergence_orders_of_the_table(disk):
    """err0 = O(eps), err1 = O(eps^2) in position and O(eps^3) in v_phi (l2 = 0), the printed
    (89) only O(eps) (slopes over eps = 0.1 .. 0.0125, band 0.15)."""
    eps_values = np.array([0.1, 0.05, 0.025, 0.0125])
    rows = np.array([_note_row(disk, eps) for eps in eps_values])
    slope = lambda col: loglog_slope(eps_values, rows[:, col])  # noqa: E731
    for col, expected in [(2, 1), (3, 2), (4, 1), (5, 1), (6, 3), (7, 1)]:
        assert abs(slope(col) - expected) < 0.15, (col, slope(col))
    # the slips: lateral/eps -> -(m R/mu) Omega = -1, forward/eps^2 -> -1/3 (alpha(T) -> 1)
    assert rows[-1, 0] == pytest.approx(-np.exp(-0.0125 * 4 / 1.5), rel=1e-3)
    assert rows[-1, 1] == pytest.approx(-np.exp(-0.0125 * 4 / 1.5) / 3, rel=1e-2)


def _lemma2_defect(system, q, v, eps, order=2):
    """H_perp(H_perp v) - H_perp v and H_eps(H_perp v) for H_eps(v) = P v + h_eps(P v) (eq. (46)) and
    H_perp = id - H_eps (Remark 6, Lemma 2); h_eps truncated at ``order``."""
    P, _ = system.projectors(q)

    def H(w):
        return system.on_slow_manifold(q, P @ w, eps, order=order)

    perp = v - H(v)
    return (perp - H(perp)) - perp, H(perp)


def test_lemma_2_fails_when_h_eps_of_zero_is_not_zero():
    """Lemma 2 (H_perp = id - H_eps is a projection complementary to H_eps) treats H_eps as linear.
    In fact H_eps(H_perp v) = h_eps(0_q): with a potential h^(1)(0_q) = -Qmat P_perp gradV != 0 and
    H_perp o H_perp = H_perp - h_eps(0_q), an O(eps) defect; without a potential it vanishes."""
    eps, rng = 0.1, np.random.default_rng(4)
    with_potential, without = nh.systems.polar_disk(), nh.systems.polar_disk(spring=0.0, tilt=0.0)
    for _ in range(3):
        q = np.array([rng.uniform(-1, 1), rng.uniform(1, 2), rng.uniform(-1, 1), rng.uniform(-1, 1)])
        v = rng.uniform(-1, 1, 4)
        defect, image = _lemma2_defect(with_potential, q, v, eps)
        h0 = with_potential.on_slow_manifold(q, np.zeros(4), eps, order=2)     # h_eps(0_q)
        assert np.allclose(image, h0, atol=1e-14) and np.allclose(defect, -h0, atol=1e-14)
        assert np.abs(h0).max() > 0.02
        assert np.abs(with_potential.slip(q, np.zeros(4), order=1)[0]).max() > 0.2      # h^(1)(0_q) != 0
        defect, image = _lemma2_defect(without, q, v, eps)
        assert np.abs(defect).max() < 1e-14 and np.abs(image).max() < 1e-14
