"""Findings of a probe of the stability API (nh.critical_values, SteadyMotion.linearize, eigenvectors,
argument errors), each against a closed form on a system written in plain SymPy here.

Oracles:
- the sleeping Lagrange top (fixed point, pivot-to-centre-of-mass l, I1 about the pivot): stable iff
  I3^2 W^2 > 4 I1 m g l, where its two imaginary pairs i (I3 W +- sqrt(I3^2 W^2 - 4 I1 m g l)) / (2 I1)
  collide at i I3 W / (2 I1) (a Krein collision, Hamiltonian-Hopf);
- an axisymmetric ball of radius r rolling without slip, its centre of mass l above its centre (h = r + l
  above the contact), spinning upright: stable iff W > 2 sqrt((I1 + m h^2) m g l) / (I3 + m r h)
  (Routh's condition);
- the Chaplygin sleigh gliding straight at speed u: one eigenvalue -m a u / (I + m a^2);
- the upright rolling disc (Kane's method, lean-frame speeds) at spin w: lambda^2 = 4 g / (5 r) - 12 w^2 / 5.
"""

import warnings

import numpy as np
import pytest
import sympy as sp
from sympy.physics import mechanics as me

import nonholo as nh

TOP = {"I1": 2.0, "I3": 1.0, "m": 1.0, "g": 9.81, "l": 0.5}
BALL = {"m": 1.0, "I1": 0.5, "I3": 0.4, "r": 1.0, "l": 0.3, "g": 9.81}


def _rotations():
    def Rx(t):
        return sp.Matrix([[1, 0, 0], [0, sp.cos(t), -sp.sin(t)], [0, sp.sin(t), sp.cos(t)]])

    def Ry(t):
        return sp.Matrix([[sp.cos(t), 0, sp.sin(t)], [0, 1, 0], [-sp.sin(t), 0, sp.cos(t)]])

    return Rx, Ry


@pytest.fixture(scope="module")
def top():
    """Lagrange top about its pivot, R = Rx(alpha) Ry(beta) Rz(psi) (psi, the spin, cyclic)."""
    Rx, Ry = _rotations()
    al, be, ps = sp.symbols("alpha beta psi")
    qd = sp.symbols("alpha_dot beta_dot psi_dot")
    I1, I3, m, g, l = sp.symbols("I1 I3 m g l")
    R = Rx(al) * Ry(be)
    w = qd[0] * sp.Matrix([1, 0, 0]) + qd[1] * (Rx(al) * sp.Matrix([0, 1, 0])) + qd[2] * (R * sp.Matrix([0, 0, 1]))
    T = (w.T * R * sp.diag(I1, I1, I3) * R.T * w)[0] / 2
    V = m * g * l * (R * sp.Matrix([0, 0, 1]))[2]
    values = {I1: TOP["I1"], I3: TOP["I3"], m: TOP["m"], g: TOP["g"], l: TOP["l"]}
    return nh.System([al, be, ps], sp.hessian(T, qd), V, parameters=values, velocities=list(qd)).nonholonomic()


@pytest.fixture(scope="module")
def ball():
    """Axisymmetric ball rolling on a plane in (x, y, alpha, beta, psi), R = Rx(alpha) Ry(beta) Rz(psi),
    centre of mass l along its axis from its centre."""
    Rx, Ry = _rotations()
    x, y, al, be, ps = sp.symbols("x y alpha beta psi")
    qd = sp.symbols("x_dot y_dot alpha_dot beta_dot psi_dot")
    m, I1, I3, r, l, g = sp.symbols("m I1 I3 r l g")
    ez = sp.Matrix([0, 0, 1])
    R = Rx(al) * Ry(be)
    w = qd[2] * sp.Matrix([1, 0, 0]) + qd[3] * (Rx(al) * sp.Matrix([0, 1, 0])) + qd[4] * (R * ez)
    q = [x, y, al, be, ps]
    cm = sp.Matrix([x, y, r]) + l * (R * ez)
    vcm = cm.applyfunc(lambda e: sum(sp.diff(e, qi) * vi for qi, vi in zip(q, qd)))
    T = m / 2 * (vcm.T * vcm)[0] + (w.T * R * sp.diag(I1, I1, I3) * R.T * w)[0] / 2
    slip = sp.Matrix([qd[0], qd[1], 0]) + w.cross(-r * ez)
    A = sp.Matrix([slip[0], slip[1]]).jacobian(qd)
    values = {m: BALL["m"], I1: BALL["I1"], I3: BALL["I3"], r: BALL["r"], l: BALL["l"], g: BALL["g"]}
    return nh.System(q, sp.hessian(T, qd), m * g * cm[2], constraints=A, parameters=values).nonholonomic()


@pytest.fixture(scope="module")
def sleigh():
    x, y, phi, m, I, a = sp.symbols("x y phi m I a")  # noqa: E741
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    return nh.System([x, y, phi], G, constraints=A, parameters={m: 1.0, I: 1.0, a: 0.2})


def top_spin(W):
    return [0, 0, 0, 0, 0, W]


def ball_spin(W):
    return np.r_[np.zeros(9), W]


def top_critical_spin(l=TOP["l"]):
    return 2 * np.sqrt(TOP["I1"] * TOP["m"] * TOP["g"] * l) / TOP["I3"]


def ball_critical_spin():
    m, I1, I3, r, l, g = (BALL[k] for k in ("m", "I1", "I3", "r", "l", "g"))
    h = r + l
    return 2 * np.sqrt((I1 + m * h**2) * m * g * l) / (I3 + m * r * h)


# --------------------------------------------------------------------------- Krein collisions
def test_the_sleeping_top_gains_stability_at_its_krein_collision(top):
    """The sleeping top's two imaginary pairs collide at W_c = 2 sqrt(I1 m g l) / I3 = 6.26418 and
    split off the axis below it. The boundary was refined by Brent's method on the tracked
    eigenvalue's real part, zero up to rounding on the stable side, and then dropped: no critical
    value on linspace(1, 10, 10) although path.stable flips. Now located on the number of growing
    modes, to xtol, and named a Krein collision, not a Hopf crossing."""
    Wc = top_critical_spin()
    for grid in (np.linspace(1, 10, 10), np.linspace(1, 10, 37), np.linspace(5, 7, 3)):
        path = nh.eigenvalue_path(top, "W", grid, top_spin)
        assert path.stable.tolist() == list(grid > Wc)
        (crossing,) = nh.critical_values(path)
        assert crossing.kind == "krein" and crossing.direction == "stabilizing"
        assert crossing.value == pytest.approx(Wc, rel=1e-9)
        # the double pair i I3 W_c / (2 I1), seen from within xtol of the collision (a sqrt(xtol) split)
        assert crossing.eigenvalue.imag == pytest.approx(TOP["I3"] * Wc / (2 * TOP["I1"]), rel=1e-5)
        assert abs(crossing.eigenvalue.real) < 1e-8
    # xtol: to that tolerance, and still a double pair (the default above)
    (coarse,) = nh.critical_values(top, "W", np.linspace(1, 10, 10), top_spin, xtol=1e-6)
    assert coarse.kind == "krein" and abs(coarse.value - Wc) < 1e-5
    # along the pivot distance at W = 8: destabilizing at l_c = I3^2 W^2 / (4 I1 m g)
    (crossing,) = nh.critical_values(top, "l", np.linspace(0.1, 3.0, 12), top_spin(8.0))
    assert crossing.kind == "krein" and crossing.direction == "destabilizing"
    assert crossing.value == pytest.approx(TOP["I3"] ** 2 * 64 / (4 * TOP["I1"] * TOP["m"] * TOP["g"]), rel=1e-9)


def test_the_spinning_heavy_ball_gains_stability_at_its_krein_collision(ball):
    """The ball (centre of mass 0.3 above its centre) spinning upright is stable above Routh's
    W_c = 2 sqrt((I1 + m h^2) m g l) / (I3 + m r h) = 2.98674581. critical_values gave 3.25 'hopf'
    (a sample) on linspace(1, 5.5, 5), 3.0769 on 14 points, and nothing on 8."""
    Wc = ball_critical_spin()
    for n in (5, 6, 8, 14):
        path = nh.eigenvalue_path(ball, "W", np.linspace(1.0, 5.5, n), ball_spin)
        (crossing,) = nh.critical_values(path)
        assert crossing.kind == "krein" and crossing.direction == "stabilizing", n
        assert crossing.value == pytest.approx(Wc, rel=1e-9), n
        assert abs(crossing.eigenvalue.real) < 1e-8


def test_hopf_and_divergence_crossings_keep_their_kind_and_place():
    """Guards for the verdict-based location: a damped oscillator's pair crossing the axis at c = 0 is
    a Hopf crossing even with a sample at the crossing (the pair sits on the axis there), to 1e-12;
    an oscillator x'' = -k x diverges at k = 0; two oscillators whose frequencies cross do not
    change stability (a collision of pairs that pass each other is no Krein boundary)."""
    x, xd, c, k = sp.symbols("x x_dot c k")
    damped = nh.System.from_lagrangian((xd**2 - x**2) / 2, [x], [xd], force=[-c * xd], parameters={c: 0.0})
    for grid in (np.linspace(-1, 1, 5), np.linspace(-0.73, 0.61, 7), np.linspace(-1, 0, 3)):
        (crossing,) = nh.critical_values(damped.nonholonomic(), "c", grid, np.zeros(2))
        assert crossing.kind == "hopf" and crossing.direction == "stabilizing"
        assert abs(crossing.value) < 1e-12 and crossing.eigenvalue.imag == pytest.approx(1.0, abs=1e-10)
    spring = nh.System.from_lagrangian((xd**2 - k * x**2) / 2, [x], [xd], parameters={k: 1.0})
    for grid in (np.linspace(-1, 1, 5), np.linspace(-1, 1, 4)):
        (crossing,) = nh.critical_values(spring.nonholonomic(), "k", grid, np.zeros(2))
        assert crossing.kind == "divergence" and crossing.direction == "stabilizing" and abs(crossing.value) < 1e-12
    y, yd, p = sp.symbols("y y_dot p")
    pair = nh.System.from_lagrangian((xd**2 + yd**2 - x**2 - p**2 * y**2) / 2, [x, y], [xd, yd], parameters={p: 1.0})
    assert nh.critical_values(pair.nonholonomic(), "p", np.linspace(0.5, 1.5, 11), np.zeros(4)) == []


# --------------------------------------------------------------------------- eigenvectors
@pytest.mark.parametrize("W", [4.6, 2.9867458075696964])
def test_eigenvectors_are_finite_where_the_shift_is_an_exact_eigenvalue(ball, W):
    """At W = 4.6 the inverse iteration's shift, the exact eigenvalue +-0.42753i, made A - lambda I
    singular to working precision: the solution overflowed ('overflow encountered in dot') and the
    two columns came back NaN. Also at the collision as critical_values refines it, where the
    pairs are double (NaN there in the probe's copy of this ball)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lin = nh.linearize(ball, ball_spin(W))
    assert np.all(np.isfinite(lin.eigenvectors))
    assert np.allclose(np.linalg.norm(lin.eigenvectors, axis=0), 1.0)
    ind = [lin.model.state_names.index(nm) for nm in lin.coordinates]
    for lam, v in zip(lin.physical_eigenvalues, lin.eigenvectors[:, lin.n_zero:].T):
        x = v[ind]
        residual = np.linalg.norm(lin.A @ x - lam * x) / np.linalg.norm(x)
        assert residual < (1e-9 if W == 4.6 else 1e-6), (lam, residual)


# --------------------------------------------------------------------------- SteadyMotion.linearize
def test_steady_motion_linearize_uses_its_params(sleigh):
    """A sleigh with its mass centre behind the knife edge (a = -0.2) gliding forward is unstable,
    -m a u / (I + m a^2) = +0.1923; sm.linearize() used the model's a = +0.2 and called it stable."""
    u = 1.0
    straight = [0, 0, 0, u, 0, 0]
    behind = nh.steady_motions(sleigh, straight, fixed={"x_dot": u}, params={"a": -0.2})
    lin = behind.linearize()
    assert lin.params["a"] == -0.2 and behind.params == {"a": -0.2}
    np.testing.assert_allclose(lin.physical_eigenvalues, [0.2 * u / (1 + 0.04)], rtol=1e-10)
    assert not lin.is_stable()
    # the default: the model's own a = 0.2, stable
    ahead = nh.steady_motions(sleigh, straight, fixed={"x_dot": u})
    assert ahead.params is None
    np.testing.assert_allclose(ahead.linearize().physical_eigenvalues, [-0.2 * u / 1.04], rtol=1e-10)
    # params given to linearize override the steady motion's, name by name
    other = behind.linearize(params={"a": 0.5})
    assert other.params["a"] == 0.5 and other.params["m"] == 1.0
    np.testing.assert_allclose(other.physical_eigenvalues, [-0.5 * u / 1.25], rtol=1e-10)


def _kane_disc():
    """SymPy's rolling disc (Kane's method, lean-frame speeds u1..u3, contact point q4, q5), r = m = g = 1."""
    q1, q2, q3, q4, q5 = me.dynamicsymbols("q1:6")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w_R = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    kd = [(R.ang_vel_in(N) - w_R).dot(e) for e in L] + [q4.diff() - u4, q5.diff() - u5]
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", q4 * N.x + q5 * N.y)
    C.set_vel(N, u4 * N.x + u5 * N.y)
    D = C.locatenew("D", r * L.z)
    D.v2pt_theory(C, N, L)
    slip = D.vel(N) + R.ang_vel_in(N).cross(-r * L.z)
    km = me.KanesMethod(N, q_ind=[q1, q2, q3, q4, q5], u_ind=[u1, u2, u3], u_dependent=[u4, u5], kd_eqs=kd,
                        velocity_constraints=[slip.dot(Y.x), slip.dot(Y.y)])
    body = me.RigidBody("disc", D, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), D))
    km.kanes_equations([body], [(D, -m * g * Y.z)])
    return nh.System.from_kanes_method(km, {r: 1.0, m: 1.0, g: 1.0}).nonholonomic()


def test_steady_motion_linearize_uses_its_cyclic_coordinates():
    """A leaning disc circling with its yaw q1 named cyclic (its lean-frame speeds leave q1 out of the
    default set): sm.linearize() dropped cyclic= and refused the state ('not a steady motion:
    d(q1)/dt = -0.103')."""
    disc = _kane_disc()
    cyclic = ["q1", "q3", "q4", "q5"]
    circling = nh.steady_motions(disc, np.r_[0, 0.3, 0, 0, 0, 0.1, 2.0, 0.5], fixed={"q2": 0.3, "u2": 2.0},
                                 cyclic=cyclic)
    lin = circling.linearize()
    assert circling.cyclic == cyclic and "q1" in circling.drift
    ref = nh.linearize(disc, circling.state, cyclic=cyclic)
    np.testing.assert_allclose(lin.physical_eigenvalues, ref.physical_eigenvalues, atol=1e-12)
    assert sum(z.kind == "cyclic" for z in lin.zero_modes) == 4
    # the default cyclic set: the upright disc rolling straight, lambda^2 = 4/5 - 12 w^2/5
    w = 2.0
    upright = nh.steady_motions(disc, np.r_[0, 0, 0, 0, 0, 0, w, 0], fixed={"q1": 0, "q2": 0, "u1": 0, "u2": w})
    assert upright.cyclic is None
    lam = upright.linearize().physical_eigenvalues
    np.testing.assert_allclose(sorted(lam.imag), [-np.sqrt(12 * w**2 / 5 - 4 / 5), np.sqrt(12 * w**2 / 5 - 4 / 5)],
                               rtol=1e-10)


# --------------------------------------------------------------------------- argument errors
def test_bad_arguments_are_named(sleigh):
    """'could not convert string to float' for y or t, 'values must be a 1-D array ... got shape ()'
    for critical_values without a parameter, values and state, and a silently constant path for a
    parameter name the model does not have with a callable state."""
    model = sleigh.nonholonomic()
    straight = [0, 0, 0, 1.0, 0, 0]
    with pytest.raises(TypeError, match="y must be an array of real numbers"):
        nh.linearize(model, "abc")
    with pytest.raises(TypeError, match="t must be a real number"):
        nh.linearize(model, straight, t="a")
    assert nh.linearize(model, straight, t=0.0).physical_eigenvalues.size == 1  # the default t too
    with pytest.raises(TypeError, match="parameter, values, state not given"):
        nh.critical_values(model)
    with pytest.raises(TypeError, match="state not given"):
        nh.critical_values(model, "a", np.linspace(-0.5, 0.5, 5))
    with pytest.raises(ValueError, match="'aa' is not a parameter of the model"):
        nh.eigenvalue_path(model, "aa", [0.1, 0.2], lambda v: straight)
    # a label whose state changes with the value is a path (the default use of a label)
    path = nh.eigenvalue_path(model, "speed", [0.5, 1.0], lambda u: [0, 0, 0, u, 0, 0])
    np.testing.assert_allclose(path.physical[:, 0].real, [-0.1 / 1.04, -0.2 / 1.04], rtol=1e-10)


@pytest.mark.parametrize("k", [1.0, 1e9])
def test_slow_instability_of_a_stiff_system_is_no_zero_mode(k):
    """A sleigh (m = 1, I = 1, a = 0.2) backing up at u = -0.005 and carrying a decoupled spring of
    stiffness k: the straight motion is unstable, eigenvalue m a |u| / (I + m a^2) = 9.6e-4 whatever k.
    At k = 1e9 (|A| = 1e9) the zero test s <= 1e-12 |A| took it for a zero mode and called the motion
    stable; the test now also asks s <= 1e-12 || |B| |w| ||, the rounding of B w."""
    x, y, phi, z = sp.symbols("x y phi z")
    m, I, a, u = 1.0, 1.0, 0.2, -0.005
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi), 0], [0, m, m * a * sp.cos(phi), 0],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2, 0], [0, 0, 0, 1]])
    sleigh = nh.System([x, y, phi, z], G, k * z**2 / 2, sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0, 0]]))
    lin = nh.linearize(sleigh.nonholonomic(), [0, 0, 0, 0, u, 0, 0, 0])
    assert not lin.is_stable()
    real = lin.physical_eigenvalues[np.abs(lin.physical_eigenvalues.imag) < 1e-9].real
    assert real.size == 1 and real[0] == pytest.approx(m * a * abs(u) / (I + m * a**2), rel=1e-8)
    np.testing.assert_allclose(np.sort(np.abs(lin.physical_eigenvalues.imag))[-2:], np.sqrt(k), rtol=1e-9)


def test_steady_motions_takes_the_model_of_a_law_built_from_the_system():
    """system.friction(law=...) builds its model on a system with the rows replaced by the law's force:
    steady_motions(system, guess, model=that) refused it as 'built from another system'."""
    x, y, psi = sp.symbols("x y psi")
    xd, yd = sp.symbols("x_dot y_dot")
    car = nh.System([x, y, psi], sp.diag(1500.0, 1500.0, 2500.0), velocities=[xd, yd, sp.Symbol("psi_dot")],
                    constraints=sp.Matrix([[-sp.sin(psi), sp.cos(psi), -1.4], [-sp.sin(psi), sp.cos(psi), 1.2]]))
    forward = sp.cos(psi) * xd + sp.sin(psi) * yd
    law = car.friction(law=nh.laws.MagicFormula(12, 1.3, 0.9), normal=[6800.0, 7900.0], speed=[forward, forward])
    guess = [0, 0, 0, 19.0, 0.3, 0.01]
    given = nh.steady_motions(car, guess, model=law, fixed={"x_dot": 20.0})
    alone = nh.steady_motions(law, guess, fixed={"x_dot": 20.0})
    np.testing.assert_allclose(given.state, alone.state, atol=1e-12)
    assert given.state[3] == 20.0 and abs(given.state[4]) < 1e-5  # straight ahead: no side slip
    other = nh.System([x, y, psi], sp.diag(1.0, 1.0, 1.0), constraints=sp.Matrix([[-sp.sin(psi), sp.cos(psi), 0]]))
    with pytest.raises(ValueError, match="model was built from another system"):
        nh.steady_motions(other, guess, model=law)


def test_a_quaternion_body_guessed_rolling_converges_to_rest_with_a_warning():
    """A rolling disc built with roll_on_plane, guessed rolling at spin 4: no rolling motion is steady in
    its quaternion coordinates, and Newton converged silently to the disc at rest; it now warns."""
    disc = nh.systems.rolling_disc()
    guess = nh.contact.rolling_state(disc, [1, 0, 0, 0], omega=[0, 4.0, 0])
    with pytest.warns(nh.SimulationWarning, match=r"converged to rest from a guess moving at 4: the attitude"):
        rest = nh.steady_motions(disc, guess)
    assert np.abs(rest.state[6:]).max() < 1e-12
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # at rest from rest: nothing to say
        nh.steady_motions(disc, nh.contact.rolling_state(disc, [1, 0, 0, 0], omega=[0, 0, 0]))


def test_a_failed_search_names_the_coordinates_it_lets_move():
    """The sleigh turning at a constant rate moves phi, which the equations contain: no steady motion is
    found, and the message now names the cyclic coordinates and cyclic=[...]."""
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(nh.SteadyMotionError, match=r"The coordinates free to move are \['x', 'y'\] \(cyclic\).*"
                                                   r"cyclic=\[\.\.\.\]"):
        nh.steady_motions(sleigh.nonholonomic(), [0, 0, 0, 0.5, 0, 1.0], fixed={"phi_dot": 1.0})


def test_a_spin_in_an_attitude_chart_is_named_as_a_cyclic_candidate():
    """Routh's sphere (centre of mass 0.3 above the centre) spinning upright at 10 in the attitude
    (yaw, roll, pitch): the yaw moves, the equations contain it (the chart), and linearize's refusal did
    not say that cyclic= names it (an outside reader's); it does, and named, the spin is stable (its
    critical spin is 2.61): four imaginary eigenvalues."""
    mech = nh.multibody.Mechanism(nh.bodies.RigidBody(1.0, (0.4, 0.4, 0.6), com_offset=(0, 0, 0.3)), "ball",
                                  attitude=(("yaw", "z"), ("roll", "x"), ("pitch", "y")))
    mech.roll_on_plane("ball", nh.surfaces.Sphere(1.0))
    ball = mech.system(gravity=9.81)
    y = nh.multibody.assemble(ball, np.zeros(5), np.r_[0, 0, 10.0, 0, 0], free=["yaw_dot", "roll_dot", "pitch_dot"])
    with pytest.raises(ValueError, match=r"d\(yaw\)/dt = 10.*where the motion of \['yaw'\] is a symmetry.*cyclic="):
        nh.linearize(ball.nonholonomic(), y)
    lin = nh.linearize(ball.nonholonomic(), y, cyclic=["x", "y", "yaw"])
    physical = lin.physical_eigenvalues
    assert physical.size == 4 and np.abs(physical.real).max() < 1e-12 and lin.is_stable()


def test_a_search_that_leaves_the_model_says_where_it_went():
    """An outside probe's ball with a quaternion attitude, a forward speed fixed: the Newton steps took the
    quaternion to a norm of 7e6, and a ModelError about Euler angles came out of steady_motions. Rolling
    moves the attitude: no steady motion, said as SteadyMotionError with the quaternion's norm. From the
    ball at rest, with nothing fixed, the search still finds rest."""
    from nonholo.analysis.stability.steady import SteadyMotionError
    from nonholo.bodies import RigidBody
    from nonholo.contact import roll_on_plane, rolling_state

    ball = roll_on_plane(RigidBody(1.0, (0.4, 0.4, 0.4)), nh.surfaces.Sphere(1.0), gravity=9.81)
    rolling = rolling_state(ball, [1, 0, 0, 0], omega=[0, 1, 0])
    with pytest.raises(SteadyMotionError, match=r"unit-norm coordinates \['q0', 'q1', 'q2', 'q3'\] of norm [0-9.e+]+: "
                                                r"rolling moves the attitude"):
        nh.steady_motions(ball, rolling, fixed={"x_dot": 1.0})
    rest = nh.steady_motions(ball, rolling_state(ball, [1, 0, 0, 0], omega=[0, 0, 0]))
    np.testing.assert_allclose(rest.state[-6:], 0, atol=1e-12)
