"""Tire laws with a relaxation length (nh.laws.MagicFormula(..., relaxation_length=sigma)): the friction
model carries a deflection a per slip component, a' = s - |V| a / sigma, and the force is the law's
at the transient slip angle atan(a / sigma). Checked against the equations written by hand and
integrated by SciPy, at the steady state against the law without relaxation, at V = 0 against the
conserved energy of the spring the tire becomes, and with its arguments named when they are wrong."""

import pickle

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad, solve_ivp

import nonholo as nh

G = 9.81
LATERAL, LONGITUDINAL = (10.0, 1.9, 1.0, 0.2), (12.0, 1.65, 1.1, -0.5)
WEIGHTS = (13.0, 9.7, 1.0, 10.6, 7.8, 1.0)


def cart(m=2.0):
    """A point mass on the plane whose lateral velocity y' is the slip of one tire; its rolling
    speed is x'."""
    x, y = sp.symbols("x y")
    return nh.System([x, y], sp.eye(2) * m, constraints=[[0, 1]], name="cart"), m


def test_a_relaxed_tire_runs_its_equations_written_by_hand():
    system, m = cart()
    sigma, N = 0.5, m * G
    law = nh.laws.MagicFormula(*LATERAL, relaxation_length=sigma)
    model = system.friction(law=law, normal=N, speed=system.velocities[0])
    assert model.state_names == ["x", "y", "deflection_0_integral", "x_dot", "y_dot", "deflection_0"]
    B, C, D, E = LATERAL

    def by_hand(t, z):
        _, _, xd, yd, a = z
        alpha = np.arctan(a / sigma)  # the transient slip angle
        force = -N * D * np.sin(C * np.arctan(B * alpha - E * (B * alpha - np.arctan(B * alpha))))
        return [xd, yd, 0.0, force / m, yd - abs(xd) * a / sigma]

    times = np.linspace(0, 2, 41)
    for V0, s0 in ((3.0, 0.2), (-2.0, 0.5), (0.4, -1.5)):  # forward, reversing, sliding at low speed
        run = nh.simulate(model, (0, 2), [0, 0, V0, s0], t_eval=times, rtol=1e-11, atol=1e-13)  # undeflected
        ref = solve_ivp(by_hand, (0, 2), [0, 0, V0, s0, 0], t_eval=times, rtol=1e-12, atol=1e-14, method="DOP853")
        np.testing.assert_allclose(run.y[[0, 1, 3, 4, 5]], ref.y, rtol=0, atol=1e-8)
        assert np.max(np.abs(run.y[5])) > 1e-3  # the deflection moved
        # the outputs: the tire force is the law's at the deflection, the slip is y'
        a = run["deflection_0"]
        expected = [abs(float(law.relaxed_force([x], N=N, V=V0)[0])) for x in a]
        np.testing.assert_allclose(run["friction_force"], expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(run["slip"], np.abs(run["y_dot"]), rtol=1e-14, atol=0)
        # the energy is the mechanical one (the deflection's auxiliary coordinate adds none)
        np.testing.assert_allclose(run.energy(), 0.5 * m * (run["x_dot"] ** 2 + run["y_dot"] ** 2), rtol=1e-13)


def test_the_relaxed_force_is_the_static_law_at_the_slip_V_a_over_sigma():
    law = nh.laws.MagicFormula(*LATERAL, rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS,
                               relaxation_length=(0.3, 0.6))
    rng = np.random.default_rng(4)
    for _ in range(5):
        a, V, N = rng.normal(size=2) * 0.2, rng.uniform(0.5, 20), rng.uniform(1, 5)
        relaxed = np.array([float(z) for z in law.relaxed_force(list(a), N=N, V=V)])
        np.testing.assert_allclose(relaxed, law.static(V * a / np.array([0.3, 0.6]), N=N, V=V), rtol=1e-12)
        np.testing.assert_allclose(law(V * a, N=N, V=V), law.static(V * a, N=N, V=V), rtol=0)  # the steady law
    # at V = 0 the force stays finite: a spring of stiffness N B C D / sigma at small deflection
    z0 = float(law.relaxed_force([0, 1e-7], N=2.0, V=0)[1])
    np.testing.assert_allclose(z0, -2.0 * np.prod(LATERAL[:3]) * 1e-7 / 0.6, rtol=1e-6)


def test_the_combined_relaxed_wheel_runs_its_equations_written_by_hand():
    """A wheel with its spin, q = (x, y, theta, phi), rows (longitudinal, lateral) relaxed over
    (0.3, 0.6), its rolling speed R phi'."""
    x, y, th, ph = q = sp.symbols("x y theta phi")
    m, J, Jw, R, sigma = 2.0, 0.1, 0.02, 0.3, np.array([0.3, 0.6])
    A = sp.Matrix([[sp.cos(th), sp.sin(th), 0, -R], [-sp.sin(th), sp.cos(th), 0, 0]])
    system = nh.System(list(q), sp.diag(m, m, J, Jw), constraints=A)
    law = nh.laws.MagicFormula(*LATERAL, rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS,
                               relaxation_length=tuple(sigma))
    N = m * G
    model = system.friction(law=law, normal=N, speed=R * system.velocities[3], contacts=[[0, 1]])
    mass = np.array([m, m, J, Jw])
    sx, sy, speed = sp.symbols("s_x s_y V")
    static = sp.lambdify([sx, sy, speed], list(law.static.force([sx, sy], N, speed)))  # the steady law

    def by_hand(t, z):
        qq, v, a = z[:4], z[4:8], z[8:]
        Aq = np.array([[np.cos(qq[2]), np.sin(qq[2]), 0, -R], [-np.sin(qq[2]), np.cos(qq[2]), 0, 0]])
        V = R * v[3]
        force = np.array(static(*(V * a / sigma), V), dtype=float)  # the law at the slip V a / sigma
        return np.r_[v, Aq.T @ force / mass, Aq @ v - abs(V) * a / sigma]

    y0 = np.r_[0, 0, 0.2, 0, 5.0, 0.4, 0.3, 15.0]
    times = np.linspace(0, 0.5, 11)
    run = nh.simulate(model, (0, 0.5), y0, t_eval=times, rtol=1e-11, atol=1e-13)
    ref = solve_ivp(by_hand, (0, 0.5), np.r_[y0, 0, 0], t_eval=times, rtol=1e-12, atol=1e-14, method="DOP853")
    np.testing.assert_allclose(run.y[[0, 1, 2, 3, 6, 7, 8, 9, 10, 11]], ref.y, rtol=0, atol=1e-8)


def _steady_car(laws, T=30.0, U=20.0, delta=0.02):
    m, I_z, l_f, l_r = 1500.0, 2500.0, 1.2, 1.4
    car = nh.systems.single_track_car(m=m, I_z=I_z, l_f=l_f, l_r=l_r, delta=delta, U=U)
    psi, x_dot, y_dot, psi_dot, d = (car.symbol(n) for n in ("psi", "x_dot", "y_dot", "psi_dot", "delta"))
    speed = [sp.cos(psi) * x_dot + sp.sin(psi) * y_dot,
             sp.cos(psi + d) * x_dot + sp.sin(psi + d) * y_dot + l_f * sp.sin(d) * psi_dot]
    loads = [m * G * l_f / (l_f + l_r), m * G * l_r / (l_f + l_r)]
    model = car.friction(law=laws, normal=loads, speed=speed)
    run = nh.simulate(model, (0, T), [0, 0, 0, U, 0, 0], t_eval=[T - 1, T], rtol=1e-10, atol=1e-12)
    return run, model


def test_in_a_steady_turn_the_relaxed_tires_give_the_steady_laws_force():
    """The single-track car in a steady turn: the relaxed tires' yaw rate and slips are the static
    tires', and each deflection is sigma s / |V|."""
    rear, front = nh.laws.MagicFormula(B=12.0, C=1.3, D=0.9), nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9)
    static, _ = _steady_car([rear, front])  # the default: no relaxation
    sigmas = (0.4, 0.7)
    relaxed, model = _steady_car([nh.laws.MagicFormula(B=12.0, C=1.3, D=0.9, relaxation_length=sigmas[0]),
                                  nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9, relaxation_length=sigmas[1])])
    assert model.system.lag_states == 2
    def body(run):  # yaw rate, forward and lateral speed (the heading differs by the transient)
        psi, xd, yd = run["psi"][-1], run["x_dot"][-1], run["y_dot"][-1]
        return np.array([run["psi_dot"][-1], np.cos(psi) * xd + np.sin(psi) * yd, -np.sin(psi) * xd + np.cos(psi) * yd])

    np.testing.assert_allclose(body(relaxed), body(static), rtol=1e-7, atol=1e-9)
    assert abs(relaxed["psi_dot"][-1] - relaxed["psi_dot"][0]) < 1e-8  # steady
    np.testing.assert_allclose(relaxed["slip"][:, -1], static["slip"][:, -1], rtol=1e-6)
    # the deflection is sigma s / |V| per tire
    q, v = relaxed.q[:, -1], relaxed.velocity[:, -1]
    psi, xd, yd, r = q[2], v[0], v[1], v[2]
    d = 0.02
    V = [np.cos(psi) * xd + np.sin(psi) * yd, np.cos(psi + d) * xd + np.sin(psi + d) * yd + 1.2 * np.sin(d) * r]
    s = np.array([-np.sin(psi) * xd + np.cos(psi) * yd - 1.4 * r,
                  -np.sin(psi + d) * xd + np.cos(psi + d) * yd + 1.2 * np.cos(d) * r])
    np.testing.assert_allclose(np.abs(s), static["slip"][:, -1], rtol=1e-6)
    np.testing.assert_allclose(v[-2:], np.array(sigmas) * s / np.abs(V), rtol=1e-6)


def test_at_rest_the_relaxed_tire_holds_a_side_load_as_a_spring():
    """V = 0: the static law divides by V; the relaxed tire is a spring, y = a, and the motion
    conserves 1/2 m y'^2 + U(a) - F a with U' the tire force."""
    system, m = cart()
    sigma, N, F = 0.5, m * G, 0.5 * m * G * LATERAL[2]  # half the peak force
    law = nh.laws.MagicFormula(*LATERAL, relaxation_length=sigma)
    pushed = system.with_force([0, F])
    model = pushed.friction(law=law, normal=N, speed=system.velocities[0])
    run = nh.simulate(model, (0, 3), [0, 0, 0, 0], t_eval=np.linspace(0, 3, 61), rtol=1e-11, atol=1e-13)
    assert run.success and np.all(np.isfinite(run.y))
    np.testing.assert_allclose(run["y"], run["deflection_0"], atol=1e-9)  # a' = y' at V = 0
    a = sp.Symbol("a")
    force = sp.lambdify(a, -law.relaxed_force([a], N=N, V=0)[0])  # U'(a), the spring's force
    energy = [0.5 * m * yd**2 + quad(force, 0, x, epsabs=1e-14, epsrel=1e-13)[0] - F * x
              for x, yd in zip(run["deflection_0"], run["y_dot"])]
    np.testing.assert_allclose(energy, 0.0, atol=1e-8 * F * sigma)
    assert 0 < run["y"].max() < sigma  # it holds: bounded, no creep
    static = pushed.friction(law=law.static, normal=N, speed=system.velocities[0])
    with pytest.raises(Exception):  # the static law at V = 0 divides by zero
        nh.simulate(static, (0, 3), [0, 0, 0, 0], rtol=1e-11, atol=1e-13)


def test_a_relaxed_model_pickles_and_takes_a_full_state():
    system, m = cart()
    law = nh.laws.Brush(8.0, 0.9, relaxation_length=0.4)
    model = system.friction(law=law, normal=m * G, speed=system.velocities[0])
    short = nh.simulate(model, (0, 1), [0, 0, 2.0, 0.3], rtol=1e-10, atol=1e-12)
    full = nh.simulate(model, (0, 1), [0, 0, 0, 2.0, 0.3, 0], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(short.y, full.y)
    again = pickle.loads(pickle.dumps(model))
    assert again.system.lag_states == 1
    np.testing.assert_array_equal(nh.simulate(again, (0, 1), [0, 0, 2.0, 0.3], rtol=1e-10, atol=1e-12).y, short.y)
    many = nh.simulate_many(model, (0, 1), [[0, 0, 2.0, 0.3], [0, 0, 1.0, -0.2]], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(many[0].y[:, -1], short.y[:, -1], rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="deflection_0"):  # neither [q, v] nor the full state: the names
        nh.simulate(model, (0, 1), [0, 0, 2.0], rtol=1e-10)


@pytest.mark.parametrize("make, match", [
    (lambda: nh.laws.MagicFormula(*LATERAL, relaxation_length=0), "relaxation_length must be positive"),
    (lambda: nh.laws.MagicFormula(*LATERAL, relaxation_length=-0.3), "relaxation_length must be positive"),
    (lambda: nh.laws.MagicFormula(*LATERAL, relaxation_length=float("nan")), "relaxation_length must be"),
    (lambda: nh.laws.MagicFormula(*LATERAL, relaxation_length=(0.3, 0.4)), "relaxation_length has 2 lengths for 1"),
    (lambda: nh.laws.Law(-sp.Symbol("s"), slip="s", relaxation_length=0.3),
     "relaxation_length needs a law of the slip angle"),
    (lambda: nh.laws.Law(-sp.Symbol("s") / sp.Symbol("V") ** 2, slip="s", speed="V", relaxation_length=0.3),
     "not finite at V = 0"),
])
def test_bad_relaxations_are_named(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_the_default_has_no_relaxation_and_the_expansions_refuse_one():
    law = nh.laws.MagicFormula(*LATERAL)
    assert law.relaxation_length is None and law.static is law
    with pytest.raises(ValueError, match="no relaxation length"):
        law.relaxed_force([0.1], N=1, V=1)
    relaxed = nh.laws.MagicFormula(*LATERAL, relaxation_length=0.5)
    assert relaxed.static.relaxation_length is None and relaxed.relaxation_length == (0.5,)
    system, m = cart()
    for call in (lambda: system.reduced(order=1, law=relaxed, normal=m * G, speed=system.velocities[0]),
                 lambda: system.slip([0, 0], [1.0, 0], order=1, law=relaxed, normal=m * G, speed=system.velocities[0])):
        with pytest.raises(ValueError, match="law.static"):
            call()
    with pytest.raises(ValueError, match="relaxation_length must be finite and positive"):
        nh.laws.MagicFormula(*LATERAL, relaxation_length=float("inf"))
    # a relaxation length may be a parameter of the system: unknown, it is named; given, it is used
    symbolic = nh.laws.MagicFormula(*LATERAL, relaxation_length="sigma")
    with pytest.raises(ValueError, match="sigma"):
        system.friction(law=symbolic, normal=m * G, speed=system.velocities[0])
    with_sigma = system.with_force([0, 0], parameters={"sigma": 0.5})
    y0 = [0, 0, 3.0, 0.2]
    by_parameter = nh.simulate(with_sigma.friction(law=symbolic, normal=m * G, speed=system.velocities[0]),
                               (0, 1), y0, rtol=1e-10, atol=1e-12, t_eval=[1.0])
    by_number = nh.simulate(system.friction(law=relaxed, normal=m * G, speed=system.velocities[0]),
                            (0, 1), y0, rtol=1e-10, atol=1e-12, t_eval=[1.0])
    np.testing.assert_allclose(by_parameter.y, by_number.y, rtol=1e-12, atol=1e-14)


def test_a_rolling_body_keeps_its_own_outputs_under_relaxed_tires():
    """A ball of roll_on_plane under a relaxed combined-slip law: its own outputs (derived from its
    motion, accelerations included) are evaluated on its own coordinates, and the tangential force
    they derive, m |a_xy|, is the relaxed law's force at the deflections; also after pickling."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.004), nh.contact.Sphere(0.1))
    law = nh.laws.MagicFormula(*LATERAL, rows=2, longitudinal=LONGITUDINAL, combined=WEIGHTS, relaxation_length=0.1)
    model = pickle.loads(pickle.dumps(ball.friction(law=law, normal=G, speed=1.0)))
    y0 = np.r_[0, 0, 1, 0, 0, 0, 3.0, 0, 0, 0, 0, 0]  # sliding at 3 m/s without spin
    run = nh.simulate(model, (0, 0.5), y0, t_eval=np.linspace(0.1, 0.5, 5), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(run["normal_force"], G, rtol=1e-9)  # m (g + z''), z constant
    a = run.y[[-2, -1]]  # the deflections
    by_law = [np.linalg.norm([float(z) for z in law.relaxed_force(list(x), N=G, V=1.0)]) for x in a.T]
    np.testing.assert_allclose(run["friction_force"], by_law, rtol=1e-7)
    assert np.min(by_law) > 0.1 * G  # the contact pushes


def test_a_law_parameter_named_like_a_deflection_is_kept():
    a_1, s, V, d = sp.symbols("a_1 s V d")
    law = nh.laws.Law(-a_1 * sp.atan(s / V), slip=s, speed=V, relaxation_length=0.5)
    assert law.relaxed_force([d], V=2.0)[0] == -a_1 * sp.atan(2.0 * d)
