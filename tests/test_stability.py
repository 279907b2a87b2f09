"""Stability of steady motions: nh.linearize, nh.steady_motions, nh.eigenvalue_path, nh.critical_values.

Oracles: the upright rolling disc's characteristic polynomial (from the linearized Kane equations,
below), the sleigh's eigenvalues (notes/000_eldering.md (T6)), similarity invariance under the
choice of independent coordinates and under changes of coordinates, the nonlinear simulation
(second-order error of the linear prediction), and measured slopes in eps.
"""

import numpy as np
import pytest
import sympy as sp
from scipy.linalg import expm
from scipy.optimize import linear_sum_assignment
from sympy.physics import mechanics as me
from test_mechanics import rolling_disc_with_contact_point

import nonholo as nh
from nonholo.testing import loglog_slope

# Eigenvalues of matrices with entries O(1), computed with the zero modes deflated exactly: a few
# hundred units of round-off.
EIG_TOL = 1e-10


# --------------------------------------------------------------------------- the upright disc
@pytest.fixture(scope="module")
def disc():
    """SymPy's rolling disc (Kane's method, contact point coordinates q4, q5, no-slip conditions as
    velocity constraints for u_dependent), r = m = g = 1: yaw q1, lean q2, spin q3."""
    km, (r, m, g), _ = rolling_disc_with_contact_point()
    return nh.System.from_kanes_method(km, {r: 1.0, m: 1.0, g: 1.0}, name="rolling disc", state="qdot")


@pytest.fixture(scope="module")
def polar_disc():
    """The same disc with the contact point in polar coordinates (rho, alpha) about the origin and
    the heading psi relative to alpha (yaw = alpha + psi): circles about the origin are steady."""
    psi, q2, q3, rho, alpha = me.dynamicsymbols("psi q2 q3 rho alpha")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [alpha + psi, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    kd = [(R.ang_vel_in(N) - w_R).dot(e) for e in L] + [rho.diff() - u4, alpha.diff() - u5]
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", rho * sp.cos(alpha) * N.x + rho * sp.sin(alpha) * N.y)
    C.set_vel(N, C.pos_from(O).dt(N))
    D = C.locatenew("D", r * L.z)
    D.v2pt_theory(C, N, L)
    slip = D.vel(N) + R.ang_vel_in(N).cross(-r * L.z)
    body = me.RigidBody("disc", D, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), D))
    km = me.KanesMethod(N, q_ind=[psi, q2, q3, rho, alpha], u_ind=[u1, u2, u3], u_dependent=[u4, u5], kd_eqs=kd,
                        velocity_constraints=[slip.dot(Y.x), slip.dot(Y.y)])
    km.kanes_equations([body], [(D, -m * g * Y.z)])
    return nh.System.from_kanes_method(km, {r: 1.0, m: 1.0, g: 1.0}, name="rolling disc, polar contact point",
                                       state="qdot")


def circling(polar_disc, lean=0.1, w=2.0):
    """A leaning disc circling the origin (psi = pi/2: rolling along e_alpha) with spin rate w."""
    guess = np.r_[np.pi / 2, lean, 0, 5.0, 0, 0, 0, w, 0, w / 5]
    return nh.steady_motions(polar_disc, guess, fixed={"psi": np.pi / 2, "q2": lean, "q3_dot": w})


def upright(system, w, yaw=0.4, params=None):
    """The upright disc rolling straight with spin rate w (speed r w)."""
    guess = np.r_[yaw, 0, 0, 0, 0, 0, 0, w, w, 0]
    fixed = {"q1": yaw, "q1_dot": 0.0, "q2": 0.0, "q2_dot": 0.0, "q3_dot": w}
    return nh.steady_motions(system, guess, fixed=fixed, params=params).state


def disc_char_roots(w, r=1.0, g=1.0):
    """Roots of the closed-form characteristic polynomial lambda^6 (lambda^2 - 4 g/(5 r) + 12 w^2/5).

    Linearizing SymPy's Kane equations of the disc (test_kane.py: u1' = (6 u2 u3 r - u3^2 r tan q2
    + 4 g sin q2)/(5 r), u3' = u1 (-2 u2 + u3 tan q2), q2' = u1) about q2 = u1 = u3 = 0, u2 = w
    gives q2'' = 4 g/(5 r) q2 + 6 w/5 u3, u3' = -2 w q2', so lambda^2 = 4 g/(5 r) - 12 w^2/5; the
    six zeros are the drifts of x, y and the spin, the speed, the heading and the slow turn.
    Critical spin rate: w^2 = g/(3 r), 1/sqrt(3) for r = g = 1.
    """
    s = np.sqrt(complex(4 * g / (5 * r) - 12 * w**2 / 5))
    return np.r_[np.zeros(6), s, -s]


def _same_spectrum(a, b, tol=EIG_TOL):
    """The two spectra agree to tol, eigenvalue by eigenvalue (optimal matching)."""
    a, b = np.asarray(a, complex), np.asarray(b, complex)
    assert a.shape == b.shape
    rows, cols = linear_sum_assignment(np.abs(a[:, None] - b[None, :]))
    assert np.abs(a[rows] - b[cols]).max() < tol, (a, b)


@pytest.mark.parametrize("w", [0.2, 0.45, 0.7, 1.0, 2.5])
def test_upright_disc_eigenvalues_match_closed_form(disc, w):
    lin = nh.linearize(disc.nonholonomic(), upright(disc, w))
    assert lin.A.shape == (8, 8) and lin.basis.shape == (10, 8)
    assert np.all(lin.eigenvalues[:6] == 0)
    _same_spectrum(lin.eigenvalues, disc_char_roots(w))
    # eigenvectors in the full state, tangent to the constraint set, A-invariant
    for lam, x in zip(lin.physical_eigenvalues, lin.eigenvectors[:, 6:].T):
        xi = x[[disc.state_names().index(c) for c in lin.coordinates]]
        assert np.abs(lin.A @ xi - lam * xi).max() < EIG_TOL


def test_upright_disc_zero_modes_are_classified(disc):
    lin = nh.linearize(disc.nonholonomic(), upright(disc, 1.0))
    kinds = [(z.kind, z.multiplicity) for z in lin.zero_modes]
    assert kinds == [("cyclic", 1)] * 3 + [("conserved", 1), ("family", 1), ("chain", 1)]
    assert [z.reason.split(":")[0] for z in lin.zero_modes[:3]] == [f"cyclic coordinate q{i}" for i in (3, 4, 5)]
    assert "energy" in lin.zero_modes[3].reason
    assert lin.classification[-1][:2] == ("physical", 2)
    assert lin.is_stable() and not nh.linearize(disc.nonholonomic(), upright(disc, 0.3)).is_stable()


def test_upright_disc_critical_speed(disc):
    """Stable above w = sqrt(g/(3 r)), for two parameter sets, to 1e-9."""
    model = disc.nonholonomic()
    for r, g in [(1.0, 1.0), (0.5, 9.81)]:
        params = {"r": r, "g": g}
        wc = np.sqrt(g / (3 * r))
        path = nh.eigenvalue_path(model, "spin rate", np.linspace(0.5 * wc, 1.6 * wc, 13),
                                  lambda w: upright(disc, w, params=params), params=params)
        assert list(path.stable) == list(path.values > wc)
        (crit,) = nh.critical_values(path)
        assert abs(crit.value - wc) < 1e-9
        assert crit.kind == "divergence" and crit.direction == "stabilizing"
    assert abs(np.sqrt(1 / 3) - 1 / np.sqrt(3)) < 1e-15  # SymPy's test_kane.py value for r = g = m = 1


def test_spectrum_does_not_depend_on_the_independent_coordinates(disc, sleigh):
    y = upright(disc, 0.9)
    auto = nh.linearize(disc.nonholonomic(), y)
    chosen = ["q1", "q2", "q3", "q4", "q5", "q1_dot", "q2_dot", "q3_dot"]  # Kane's u_ind
    other = nh.linearize(disc.nonholonomic(), y, independent=chosen)
    assert other.coordinates == chosen and auto.coordinates != chosen
    _same_spectrum(auto.eigenvalues, other.eigenvalues)
    # the two matrices are similar through the bases: A2 = S2 T1 A1 (S2 T1)^-1
    S = auto.basis[[disc.state_names().index(c) for c in chosen]]
    assert np.abs(other.A - S @ auto.A @ np.linalg.inv(S)).max() < 1e-11
    ys = np.r_[0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]
    for model in (sleigh.nonholonomic(), sleigh.vakonomic(), sleigh.reduced(1e-2, order=2)):
        state = np.r_[ys, 0.0] if model.kind == "vakonomic" else ys
        a = nh.linearize(model, state)
        b = nh.linearize(model, state, independent=[c if c != "x_dot" else "y_dot" for c in a.coordinates])
        _same_spectrum(a.eigenvalues, b.eigenvalues)


# --------------------------------------------------------------------------- changes of coordinates
def sleigh_at_centre_of_mass(a=0.2):
    """The sleigh in the coordinates (X, Y) of its centre of mass, from its Lagrangian."""
    X, Y, phi, Xd, Yd, pd = sp.symbols("X Y phi X_dot Y_dot phi_dot")
    m, I, a_ = sp.symbols("m I a")
    L = m * (Xd**2 + Yd**2) / 2 + I * pd**2 / 2
    # the contact point (X, Y) - a e(phi) does not slip sideways
    A = [[-sp.sin(phi), sp.cos(phi), -a_]]
    return nh.System.from_lagrangian(L, [X, Y, phi], [Xd, Yd, pd], constraints=A, parameters={m: 1.0, I: 1.0, a_: a})


@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_spectrum_invariant_under_a_change_of_coordinates(sleigh, kind):
    """Contact point (x, y) vs centre of mass (X, Y) = (x, y) + a e(phi): same steady motion,
    same spectrum and zero-mode structure."""
    com = sleigh_at_centre_of_mass()
    phi, u = 0.3, 1.2
    y_contact = np.r_[0, 0, phi, u * np.cos(phi), u * np.sin(phi), 0]
    y_com = np.r_[0.2 * np.cos(phi), 0.2 * np.sin(phi), phi, u * np.cos(phi), u * np.sin(phi), 0]
    models = (sleigh.nonholonomic(), com.nonholonomic()) if kind == "nonholonomic" else \
        (sleigh.friction(1e-3), com.friction(1e-3))
    a, b = (nh.linearize(mdl, y) for mdl, y in zip(models, (y_contact, y_com)))
    _same_spectrum(a.eigenvalues, b.eigenvalues, EIG_TOL * (1e3 if kind == "friction" else 1))
    assert [(z.kind, z.multiplicity) for z in a.zero_modes] == [(z.kind, z.multiplicity) for z in b.zero_modes]
    k = 1.0 * 0.2 / (1.0 + 1.0 * 0.04)  # m a/(I + m a^2): the sleigh's nonholonomic eigenvalue -k u
    if kind == "nonholonomic":
        assert abs(a.physical_eigenvalues[0] + k * u) < EIG_TOL


def test_pendulum_cartesian_and_polar_with_and_without_the_holonomic_constraint():
    """A unit pendulum as the planar particle's leaf r = 1 (Cartesian) and in polar coordinates,
    at the bottom: +-i sqrt(g); without declaring h = 0 the leaves r = const add a zero mode."""
    g = 9.81
    cart = nh.systems.planar_particle(g, "friction")
    r, th, rd, thd = sp.symbols("r theta r_dot theta_dot")
    g_ = sp.Symbol("g")
    polar = nh.System.from_lagrangian((rd**2 + r**2 * thd**2) / 2 - g_ * r * sp.sin(th), [r, th], [rd, thd],
                                      constraints=[[1, 0]], parameters={g_: g})
    x, y = sp.symbols("x y")
    cart_h = nh.System(cart.coordinates, cart.metric, cart.potential, cart.constraints, parameters=cart.parameters,
                       holonomic=[x**2 + y**2 - 1])
    polar_h = nh.System(polar.coordinates, polar.metric, polar.potential, polar.constraints,
                        parameters=polar.parameters, holonomic=[r - 1])
    bottom_c, bottom_p = [0.0, -1.0, 0.0, 0.0], [1.0, -np.pi / 2, 0.0, 0.0]
    expect = [1j * np.sqrt(g), -1j * np.sqrt(g)]
    for system, y0 in [(cart_h, bottom_c), (polar_h, bottom_p)]:
        lin = nh.linearize(system.nonholonomic(), y0)
        assert lin.A.shape == (2, 2) and lin.n_zero == 0
        _same_spectrum(lin.eigenvalues, expect)
    for system, y0 in [(cart, bottom_c), (polar, bottom_p)]:
        lin = nh.linearize(system.nonholonomic(), y0)
        # the neighbouring leaf r = const is a steady state at another (conserved) energy
        assert lin.A.shape == (3, 3) and [z.kind for z in lin.zero_modes] == ["conserved"]
        _same_spectrum(lin.eigenvalues, [0, *expect])


def test_disc_in_polar_contact_coordinates(disc, polar_disc):
    """At rest upright: the same spectrum as in Cartesian contact coordinates. Circling: alpha is
    cyclic (found numerically: the unsimplified expressions contain it), and the translations of
    the circle, no symmetry of polar coordinates, appear as the pair +-i alpha'."""
    a = nh.linearize(disc.nonholonomic(), np.r_[0.3, 0, 0, 1.0, 0.5, 0, 0, 0, 0, 0])
    b = nh.linearize(polar_disc.nonholonomic(), np.r_[np.pi / 2, 0, 0, 1.0, 0.3 - np.pi / 2, 0, 0, 0, 0, 0])
    _same_spectrum(a.eigenvalues, b.eigenvalues)
    _same_spectrum(a.physical_eigenvalues, [np.sqrt(4 / 5), -np.sqrt(4 / 5)])
    motion = circling(polar_disc)
    assert set(motion.drift) == {"q3", "alpha"}
    lin = motion.linearize()
    Omega = motion.drift["alpha"]
    slow = lin.physical_eigenvalues[np.argsort(np.abs(lin.physical_eigenvalues))[:2]]
    _same_spectrum(slow, [1j * Omega, -1j * Omega])


def test_circling_disc_floquet_multipliers_in_cartesian_coordinates(disc, polar_disc):
    """In Cartesian contact coordinates the circling disc is periodic (its heading turns): the
    monodromy matrix over one revolution, by central differences of the nonlinear flow, has the
    multipliers exp(lambda T) of the polar linearization (the +-i alpha' pair gives 1)."""
    motion = circling(polar_disc, lean=0.5, w=1.0)
    lin = motion.linearize()
    psi, lean, spin, rho, alpha, psid, leand, spind, rhod, alphad = motion.state
    y0 = np.r_[alpha + psi, lean, spin, rho * np.cos(alpha), rho * np.sin(alpha), alphad + psid, leand, spind,
               rhod * np.cos(alpha) - rho * np.sin(alpha) * alphad, rhod * np.sin(alpha) + rho * np.cos(alpha) * alphad]
    period = 2 * np.pi / abs(alphad)
    model = disc.nonholonomic()
    basis, names = nh.stability.tangent_space(model, y0)
    ind = [model.state_names.index(c) for c in names]
    h, columns = 1e-5, []
    for j in range(basis.shape[1]):
        ends = []
        for sign in (1, -1):
            z = y0 + sign * h * basis[:, j]
            z[5:] = disc.project(z[:5], z[5:])
            ends.append(nh.simulate(model, (0, period), z, t_eval=[period], rtol=1e-12, atol=1e-14).y[:, -1])
        columns.append((ends[0] - ends[1])[ind] / (2 * h))
    multipliers = np.linalg.eigvals(np.array(columns).T)
    predicted = np.exp(lin.physical_eigenvalues * period)
    far = predicted[np.abs(predicted - 1) > 0.1]
    assert far.size == 2
    for mu in far:
        assert np.abs(multipliers - mu).min() < 1e-5
    assert np.allclose(np.exp(lin.physical_eigenvalues[np.abs(predicted - 1) <= 0.1] * period), 1.0, atol=1e-9)


# --------------------------------------------------------------------------- the nonlinear motion
@pytest.mark.parametrize("which", ["sleigh", "disc", "circling disc", "friction sleigh", "vakonomic sleigh",
                                   "reduced sleigh"])
def test_linearization_predicts_the_departure_to_second_order(sleigh, disc, polar_disc, which):
    """y(t) - [y*(t) + T exp(A t) xi0 delta]: O(delta^2); measured ratio for delta and delta/2."""
    straight = np.r_[0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]
    system, y_star, model = {
        "sleigh": lambda: (sleigh, straight, sleigh.nonholonomic()),
        "disc": lambda: (disc, upright(disc, 1.0), disc.nonholonomic()),
        "circling disc": lambda: (polar_disc, circling(polar_disc).state, polar_disc.nonholonomic()),
        "friction sleigh": lambda: (sleigh, straight, sleigh.friction(1e-2)),
        "vakonomic sleigh": lambda: (sleigh, np.r_[straight, 0.0], sleigh.vakonomic()),
        "reduced sleigh": lambda: (sleigh, straight, sleigh.reduced(1e-2, order=1)),
    }[which]()
    lin = nh.linearize(model, y_star)
    drift = model.rhs(0.0, y_star)
    xi0 = np.random.default_rng(3).normal(size=lin.A.shape[0])
    t = np.linspace(0.0, 3.0, 31)
    n = system.n
    errors = []
    for delta in (2e-3, 1e-3):
        y0 = y_star + delta * lin.basis @ xi0
        if model.constrained:  # back onto the constraint set: an O(delta^2) change
            y0[n:2 * n] = system.project(y0[:n], y0[n:2 * n])
        sol = nh.simulate(model, (0.0, 3.0), y0, t_eval=t, rtol=1e-12, atol=1e-14)
        linear = np.array([y_star + s * drift + delta * lin.basis @ (expm(lin.A * s) @ xi0) for s in t]).T
        errors.append(np.abs(sol.y - linear).max())
    assert 3.6 < errors[0] / errors[1] < 4.4


# --------------------------------------------------------------------------- friction and reduced models
def test_friction_sleigh_slow_and_fast_eigenvalues(sleigh):
    """notes/000_eldering.md (T6): mu^2 + rho mu + a u/(I eps) = 0, rho = (I + m a^2)/(I m eps);
    slow -> -k u with slope 1 in eps, fast ~ -alpha/eps."""
    m, I, a, u = 1.0, 1.0, 0.2, 1.0
    y = np.r_[0, 0, 0.3, u * np.cos(0.3), u * np.sin(0.3), 0.0]
    nh_slow = nh.linearize(sleigh.nonholonomic(), y).physical_eigenvalues[0].real
    eps = np.array([1e-2, 1e-3, 1e-4, 1e-5, 1e-6])
    slow, fast = [], []
    for e in eps:
        lin = nh.linearize(sleigh.friction(e), y)
        assert [(z.kind, z.multiplicity) for z in lin.zero_modes] == \
            [("cyclic", 1), ("cyclic", 1), ("conserved", 1), ("family", 1)]
        s, f = sorted(lin.physical_eigenvalues.real, reverse=True)
        rho = (I + m * a**2) / (I * m * e)
        roots = np.roots([1.0, rho, a * u / (I * e)])
        assert abs(s - roots.max()) < 1e-9 * abs(s) and abs(f - roots.min()) < 1e-9 * abs(f)
        slow.append(s)
        fast.append(f)
    assert abs(loglog_slope(eps, np.array(slow) - nh_slow) - 1.0) < 0.02
    assert abs(loglog_slope(eps, fast) + 1.0) < 0.01
    assert abs(fast[-1] * eps[-1] + (I + m * a**2) / (I * m)) < 1e-5


@pytest.mark.parametrize("order", [1, 2])
def test_reduced_model_eigenvalue_error_has_order_k_plus_one(sleigh, order):
    y = np.r_[0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]
    eps = np.array([1e-1, 3e-2, 1e-2, 3e-3])
    err = [nh.linearize(sleigh.reduced(e, order=order), y).physical_eigenvalues[0].real
           - max(nh.linearize(sleigh.friction(e), y).physical_eigenvalues.real) for e in eps]
    assert abs(loglog_slope(eps, err) - (order + 1)) < 0.15


# --------------------------------------------------------------------------- constructors, inputs, paths
def test_kane_configuration_constraint_and_lagrange_holonomic_constraint():
    """A pendulum of length 2 as a particle with q_dependent y (Kane) and with hol_coneqs
    (Lagrange): the linearization lives on h(q) = 0, eigenvalues +-i sqrt(g/2)."""
    m, g, ell = sp.symbols("m g ell")
    values = {m: 1.0, g: 9.81, ell: 2.0}
    expect = [1j * np.sqrt(9.81 / 2), -1j * np.sqrt(9.81 / 2)]
    N = me.ReferenceFrame("N")
    x, y = me.dynamicsymbols("x y")
    ux, uy = me.dynamicsymbols("u_x u_y")
    bob = me.Point("bob")
    bob.set_vel(N, ux * N.x + uy * N.y)
    circle = x**2 + y**2 - ell**2
    km = me.KanesMethod(N, [x], [ux], kd_eqs=[x.diff() - ux, y.diff() - uy], q_dependent=[y],
                        configuration_constraints=[circle], u_dependent=[uy], velocity_constraints=[x * ux + y * uy])
    km.kanes_equations([me.Particle("p", bob, m)], [(bob, -m * g * N.y)])
    kane = nh.System.from_kanes_method(km, values, state="qdot")
    lm = me.LagrangesMethod(m * (x.diff() ** 2 + y.diff() ** 2) / 2 - m * g * y, [x, y], hol_coneqs=[circle])
    lm.form_lagranges_equations()
    lagrange = nh.System.from_lagranges_method(lm, values)
    for system in (kane, lagrange):
        assert system.holonomic is not None
        lin = nh.linearize(system.nonholonomic(), [0.0, -2.0, 0.0, 0.0])
        assert lin.basis.shape == (4, 2) and lin.n_zero == 0
        _same_spectrum(lin.eigenvalues, expect)
    with pytest.raises(ValueError, match="not on the constraint set"):
        nh.linearize(kane.nonholonomic(), [0.0, -2.1, 0.0, 0.0])
    # in Kane's independent speed u_x (state [x, y, u_x]): h(q) = 0 restricts the perturbations alike
    speeds = nh.System.from_kanes_method(km, values).nonholonomic()
    assert speeds.state_names == ["x", "y", "u_x"]
    lin = nh.linearize(speeds, [0.0, -2.0, 0.0])
    assert lin.basis.shape == (3, 2) and lin.n_zero == 0
    _same_spectrum(lin.eigenvalues, expect)
    with pytest.raises(ValueError, match="not on the constraint set"):
        nh.linearize(speeds, [0.0, -2.1, 0.0])


def test_input_matrix_is_the_derivative_in_the_input_parameters(sleigh):
    x, y, phi = sleigh.coordinates
    tau, c = sp.symbols("tau c")
    pushed = nh.System(sleigh.coordinates, sleigh.metric, constraints=sleigh.constraints,
                       force=[c, 0, tau], parameters={**sleigh.parameters, tau: 0.0, c: 0.0})
    state = np.r_[0, 0, 0.0, 1.0, 0.0, 0.0]
    for model in (pushed.nonholonomic(), pushed.friction(1e-2), pushed.reduced(1e-2, order=1)):
        lin = nh.linearize(model, state)
        assert lin.inputs == ["tau", "c"]  # the parameters in the force only, in the system's order
        ind = [model.state_names.index(s) for s in lin.coordinates]
        for j, p in enumerate(lin.inputs):
            h = 1e-6
            fd = (model.rhs(0, state, {p: h}) - model.rhs(0, state, {p: -h}))[ind] / (2 * h)
            assert np.abs(lin.B[:, j] - fd).max() < 1e-8
    assert nh.linearize(sleigh.nonholonomic(), state).B is None


def test_eigenvalue_path_follows_modes_through_a_crossing():
    """Two oscillators, frequencies 1 and p: columns keep +-i and +-i p across p = 1 (a sort by
    imaginary part would swap them)."""
    x, y, xd, yd, p = sp.symbols("x y x_dot y_dot p")
    osc = nh.System.from_lagrangian((xd**2 + yd**2 - x**2 - p**2 * y**2) / 2, [x, y], [xd, yd],
                                    parameters={p: 1.0})
    values = np.linspace(0.5, 1.5, 11)
    path = nh.eigenvalue_path(osc.nonholonomic(), "p", values, np.zeros(4))
    cols = path.physical
    fixed = [j for j in range(4) if np.allclose(np.abs(cols[:, j]), 1.0)]
    moving = [j for j in range(4) if np.allclose(np.abs(cols[:, j]), values)]
    assert len(fixed) == 2 and len(moving) == 2
    assert nh.critical_values(path) == []


def test_hopf_crossing_of_a_damped_oscillator():
    """x'' + c x' + x = 0 (force -c x'): eigenvalues -c/2 +- i sqrt(1 - c^2/4), a complex pair
    crossing the imaginary axis at c = 0."""
    x, xd, c = sp.symbols("x x_dot c")
    osc = nh.System.from_lagrangian((xd**2 - x**2) / 2, [x], [xd], force=[-c * xd], parameters={c: 0.0})
    (crit,) = nh.critical_values(osc.nonholonomic(), "c", np.linspace(-0.73, 0.61, 7), np.zeros(2))
    assert crit.kind == "hopf" and crit.direction == "stabilizing"
    assert abs(crit.value) < 1e-10 and abs(abs(crit.eigenvalue.imag) - 1.0) < 1e-10


def test_steady_motions_finds_and_reports(sleigh):
    sm = nh.steady_motions(sleigh, [0, 0, 0.3, 0.9, 0.2, 0.1], fixed={"x_dot": 1.0})
    assert sm.residual < 1e-12 and sm.iterations <= 8
    q, v = sm.state[:3], sm.state[3:]
    assert abs(v[2]) < 1e-14 and abs(-np.sin(q[2]) * v[0] + np.cos(q[2]) * v[1]) < 1e-14
    assert set(sm.drift) == {"x", "y"}
    many = nh.steady_motions(sleigh, [[0, 0, 0.3, 1, 0.2, 0.1], [0, 0, 0.3, 1, 0.2, 0.1], [0, 0, -1, 1, 0, 0]],
                             fixed={"x_dot": 1.0})
    assert len(many) == 2
    with pytest.raises(nh.SteadyMotionError, match="no steady motion.*phi_dot"):
        nh.steady_motions(sleigh, [0, 0, 0.3, 1, 0.2, 0.1], fixed={"phi_dot": 0.5}, max_iterations=10)


# --------------------------------------------------------------------------- bad input
def test_bad_input_is_named(sleigh):
    model = sleigh.nonholonomic()
    good = np.r_[0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]
    with pytest.raises(ValueError, match="not on the constraint set"):
        nh.linearize(model, np.r_[0, 0, 0.3, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"not a steady motion.*d\(phi"):
        nh.linearize(model, np.r_[0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.5])
    with pytest.raises(ValueError, match="unknown parameter 'mass'"):
        nh.linearize(model, good, params={"mass": 2.0})
    with pytest.raises(ValueError, match="shape"):
        nh.linearize(model, good[:5])
    with pytest.raises(ValueError, match="must name 5 state components"):
        nh.linearize(model, good, independent=["x", "y"])
    with pytest.raises(ValueError, match="must name 6 state components"):
        nh.linearize(sleigh.friction(1e-3), good, independent=["x", "y"])
    with pytest.raises(ValueError, match="not state names"):
        nh.linearize(model, good, independent=["x", "y", "phi", "x_dot", "speed"])
    with pytest.raises(ValueError, match="cannot be solved from the constraints"):
        nh.linearize(model, good, independent=["y", "phi", "x_dot", "y_dot", "phi_dot"])
    with pytest.raises(ValueError, match="given as cyclic, but the .*equations depend on them"):
        nh.linearize(model, good, cyclic=["x", "y", "phi"])
    with pytest.raises(ValueError, match="not parameters of the model"):
        nh.linearize(model, good, inputs=["torque"])
    with pytest.raises(ValueError, match="not a parameter of the model"):
        nh.eigenvalue_path(model, "speed", [1.0, 2.0], good)
    with pytest.raises(ValueError, match="strictly increasing"):
        nh.eigenvalue_path(model, "m", [2.0, 1.0], good)
    path = nh.eigenvalue_path(model, "m", [1.0, 2.0], np.array([good, good]))
    with pytest.raises(ValueError, match="needs state as a callable"):
        nh.critical_values(path)
    # a label that is no parameter, with one state per value: the states carry it (it was refused)
    speeds = [0.5, 1.0, 2.0]
    labelled = nh.eigenvalue_path(model, "speed", speeds, [[0, 0, 0, U, 0, 0] for U in speeds])
    growth = [-0.2 * U / 1.04 for U in speeds]  # -m a U / (I + m a^2), the sleigh's one physical mode
    np.testing.assert_allclose(labelled.physical[:, 0].real, growth, rtol=1e-10)
    with pytest.raises(ValueError, match="not state names"):
        nh.steady_motions(sleigh, good, fixed={"speed": 1.0})
    t, x, xd = sp.symbols("t x x_dot")
    forced = nh.System([x], [[1]], force=[sp.sin(t)], velocities=[xd], time=t)
    with pytest.raises(ValueError, match="depends on time explicitly"):
        nh.linearize(forced.nonholonomic(), [0.0, 0.0])


def spring_sleigh(torques: bool = False) -> nh.System:
    """A Chaplygin sleigh (m = 2, I = 0.5, a = 0.3) on a torsion spring k phi^2 / 2 (k = 1.5); with
    ``torques`` also a constant torque written twice, as the potential e phi and as the force -tau
    (e = tau = 0)."""
    x, y, phi = sp.symbols("x y phi")
    m, I, a, k, e, tau = sp.symbols("m I a k e tau")
    s, c = sp.sin(phi), sp.cos(phi)
    G = sp.Matrix([[m, 0, -m * a * s], [0, m, m * a * c], [-m * a * s, m * a * c, I + m * a**2]])
    values = {m: 2.0, I: 0.5, a: 0.3, k: 1.5}
    if not torques:
        return nh.System([x, y, phi], G, potential=k * phi**2 / 2, constraints=sp.Matrix([[-s, c, 0]]),
                         parameters=values)
    return nh.System([x, y, phi], G, potential=k * phi**2 / 2 + e * phi, constraints=sp.Matrix([[-s, c, 0]]),
                     force=sp.Matrix([0, 0, -tau]), parameters={**values, e: 0.0, tau: 0.0})


def test_an_input_in_the_potential_gets_its_column():
    """A constant torque written as the potential e phi and one written as the force -tau act alike:
    both columns of B are -1/J in the phi_dot row (J = I + m a^2). The exact branch took dF/de only
    and gave e a zero column, for the nonholonomic and the friction model; inputs in the force
    alone keep the exact branch."""
    sleigh = spring_sleigh(torques=True)
    y0 = np.array([0, 0, 0, 1.0, 0, 0])
    for model in (sleigh.nonholonomic(), sleigh.friction(1e-3)):
        lin = nh.linearize(model, y0, inputs=["e", "tau"])
        np.testing.assert_allclose(lin.B[:, 0], lin.B[:, 1], rtol=1e-8, atol=1e-10)
        h = 1e-6
        column = (model.rhs(0, y0, {"e": h}) - model.rhs(0, y0, {"e": -h})) / (2 * h)
        assert np.abs(column).max() > 1  # a torque, not nothing
    assert nh.linearize(sleigh.nonholonomic(), y0, inputs=["e"]).B[-1, 0] == pytest.approx(-1 / (0.5 + 2 * 0.09))


def test_a_slow_unstable_mode_of_a_stiff_friction_model_counts_as_unstable():
    """The sleigh backing up at U = -0.005 grows at -m a U / (I + m a^2) = +9.6e-4, the same on the
    nonholonomic and the friction models. At eps 1e-6 the fast mode (-1.04e6) made the threshold
    tol * max|A| = 1.04e-3, so the motion counted stable and critical_values put the crossing at
    U = -0.0054 (an eigenvalue +1.04e-3, no zero crossing). Each eigenvalue's threshold now follows
    how far relative changes of the matrix's entries move it: the crossing is at U = 0."""
    sleigh = nh.systems.chaplygin_sleigh(m=1, I=1, a=0.2)
    growth = 1 * 0.2 * 0.005 / (1 + 1 * 0.2**2)
    for model in (sleigh.nonholonomic(), sleigh.friction(1e-3), sleigh.friction(1e-6)):
        backing = nh.linearize(model, [0, 0, 0, -0.005, 0, 0])
        assert backing.max_real == pytest.approx(growth, rel=1e-5)
        assert not backing.is_stable()
        assert nh.linearize(model, [0, 0, 0, 0.005, 0, 0]).is_stable()  # forward: stable, the default too
        path = nh.eigenvalue_path(model, "U", np.linspace(-0.01, 0.01, 5), lambda U: [0, 0, 0, U, 0, 0])
        assert path.stable.tolist() == [False, False, True, True, True]
        (crossing,) = nh.critical_values(path)
        assert crossing.kind == "divergence" and abs(crossing.value) < 1e-12


def test_a_hopf_crossing_found_from_a_real_pair_on_a_coarse_grid_is_one_hopf():
    """A sleigh on a torsion spring: s^2 + (m a U / J) s + k / J = 0, a complex pair through the
    imaginary axis at U = 0, real at U = -5. On the grid (-5, 1, 5) the kind was taken from the real
    end: two 'divergence' entries with a complex eigenvalue, at -1.1e-8. Now one Hopf at 0."""
    spring = spring_sleigh()
    omega = np.sqrt(1.5 / (0.5 + 2.0 * 0.09))
    for values in ([-5.0, 1.0, 5.0], np.linspace(-5, 5, 6)):
        path = nh.eigenvalue_path(spring.nonholonomic(), "U", values, lambda U: [0, 0, 0, U, 0, 0])
        (crossing,) = nh.critical_values(path)
        assert crossing.kind == "hopf" and abs(crossing.value) < 1e-10
        assert crossing.eigenvalue.imag == pytest.approx(omega, rel=1e-10)


# --------------------------------------------------------------------------- quaternion bodies
def test_steady_motions_and_linearize_keep_a_body_quaternion_on_the_unit_sphere():
    """The expressions of a body built on a quaternion are invariant under q -> s q, so without
    |q| = 1 among the equations Newton slid along the scaling: the tippe top at rest with a tiny
    spin returned q = (-1.7e-8, 0, 0, 0) as a steady motion, and the linearization kept the scaling
    (and the conserved radial rate q . q') as zero modes."""
    from nonholo.builders.bodies import quaternion_from_euler
    from nonholo.builders.contact import rolling_state

    for body, guess in ((nh.systems.tippe_top(), ([1, 0, 0, 0], [0, 0, 0.01])),
                        (nh.systems.rattleback(), (quaternion_from_euler(0, 0.005, 0), [0, 0, 0]))):
        sm = nh.steady_motions(body, rolling_state(body, *guess))
        q = sm.state[2:6]
        assert abs(np.linalg.norm(q) - 1.0) < 1e-12 and abs(abs(q[0]) ** 2 + q[3] ** 2 - 1.0) < 1e-9  # upright
        assert np.abs(sm.state[6:]).max() < 1e-9 and abs(q @ sm.state[8:12]) < 1e-12
        lin = sm.linearize()
        # 12 states - 2 rolling rows - |q| = 1 - q . q' = 0: m = 8 (it was 10, with the scaling)
        assert len(lin.coordinates) == 8
        assert len(lin.physical_eigenvalues) == 4 and np.abs(lin.physical_eigenvalues.real).max() < 1e-9
        assert np.abs(lin.physical_eigenvalues.imag).min() > 1.0  # oscillations about the rest state


def test_a_coordinate_named_cyclic_must_be_a_symmetry_near_the_state_too():
    """A top spinning in place: the yaw column of the friction model's Jacobian vanishes where
    x' = y' = 0, but x' and y' are states there that rotate with the yaw, so the yaw is no symmetry.
    Named cyclic, it gave +48.8 +- 41.3i for a spin the nonlinear run keeps; now refused. In the
    rolling model x' and y' follow from the constraints, and the yaw moves only x and y: accepted,
    with the neutral spectrum the run shows (the tilt stays at 1.6e-6 from 1e-6 over 0.5 s)."""
    from nonholo.builders.multibody import Mechanism, assemble

    m, R, alpha = 0.015, 0.02, 0.3
    I3 = 0.4 * m * R**2
    mech = Mechanism(nh.bodies.RigidBody(m, (0.95 * I3, 0.95 * I3, I3), (0, 0, -alpha * R)), "top")
    mech.roll_on_plane("top", nh.surfaces.Sphere(R))
    top = mech.system(gravity=9.81)
    y = assemble(top, np.r_[0, 0, 0, np.pi, 0], np.r_[0, 0, 150.0, 0, 0], free=["yaw_dot", "roll_dot", "pitch_dot"])
    with pytest.raises(ValueError, match=r"\['yaw'\] were given as cyclic.*near y"):
        nh.linearize(top.friction(1e-3), y, cyclic=["x", "y", "yaw"])
    with pytest.raises(ValueError, match="not a steady motion"):  # the default: the yaw is no cyclic coordinate
        nh.linearize(top.friction(1e-3), y)
    lin = nh.linearize(top.nonholonomic(), y, cyclic=["x", "y", "yaw"])
    assert len(lin.physical_eigenvalues) == 4 and np.abs(lin.physical_eigenvalues.real).max() < 1e-8
    run = nh.simulate(top.nonholonomic(), (0, 0.5), y + np.eye(len(y))[3] * 1e-6)
    assert np.abs(run.y[3] - np.pi).max() < 3e-6  # neutral: no growth


def test_critical_values_on_coarse_grids_report_only_the_published_crossings():
    """The benchmark bicycle (Meijaard et al. 2007): weave 4.2923825 and capsize 6.0242620 m/s are
    the only stability changes for v > 0 (and their mirror images for v < 0). On a grid 3.3 m/s
    apart the capsize eigenvalue (0.044 at 6.33) was tracked with a structural zero, and on one 2.5
    m/s apart across 0 the real modes that merge into the weave were paired wrongly: crossings at
    6.333 and 9.667 (divergence), 1.214 and 1.425 m/s, where nothing crosses."""
    from nonholo.systems.whipple_bicycle import upright_state

    bike = nh.systems.whipple_bicycle()
    weave, capsize = 4.29238253634111, 6.02426201538837
    kinds = {weave: "hopf", capsize: "divergence"}
    for grid, expected in ((np.linspace(3, 13, 4), [weave, capsize]),
                           (np.linspace(-10, 10, 9), [-capsize, -weave, weave, capsize])):
        found = nh.critical_values(bike.nonholonomic(), "speed", grid, lambda v: upright_state(bike, v))
        np.testing.assert_allclose([c.value for c in found], expected, rtol=1e-9)
        assert [c.kind for c in found] == [kinds[abs(v)] for v in expected]
