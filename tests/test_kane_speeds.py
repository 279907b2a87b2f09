"""Kane's speeds as the state of systems from System.from_kanes_method (issue 28).

The oracle is a ball rolling on a table turning at Omega, built with SymPy's KanesMethod
(nh.systems.ball_on_turntable_kane): its
attitude in ZXZ Euler angles (singular where sin(q2) = 0), its independent speeds the spatial
angular velocity (u1, u2, u3), its centre velocity (u4, u5) dependent through the affine rolling
constraint v_contact = Omega e_z x (x, y). Checked: the state is km's speeds (to rounding against
kane_speeds of q'), the motion is the q'-form's, the linearization at rest at the centre has the
circling frequency Omega I / (I + m r^2) of Lewis and Murray, events, batches and sensitivities
work, and near the Euler-angle singularity the speeds take about as many steps as an explicit
integration of km's own equations, where q' takes many more.
"""

import pickle
import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

import nonholo as nh
from nonholo.expressions.mechanics import kane_qdot, kane_speeds

PARAMS = {"m": 1.0, "r": 0.5, "I": 0.1, "Omega": 2.0}
Q0 = [0.3, -0.2, 0.4, 0.9, 0.1]           # x, y, q1, q2, q3
U0 = [0.7, -1.1, 0.4]                      # spatial angular velocity


@pytest.fixture(scope="module")
def km():
    return nh.systems.ball_on_turntable_kane()[0]


@pytest.fixture(scope="module")
def ball(km):
    return nh.System.from_kanes_method(km, PARAMS)


def qdot_state(km, q, u_ind):
    """[q, q'] with the dependent speeds from the constraints (km's u_dep = A_rs u_ind + e)."""
    u = np.r_[u_ind, 0.0, 0.0]
    x, y = q[:2]
    om, r = PARAMS["Omega"], PARAMS["r"]
    u[3], u[4] = r * u[1] - om * y, -r * u[0] + om * x  # v_centre = w x (r e_z) + Omega e_z x (x, y)
    return np.r_[q, kane_qdot(km, q, u, PARAMS)]


def test_default_state_is_kanes_independent_speeds(ball):
    model = ball.nonholonomic()
    assert isinstance(model, nh.FrameModel) and model.kind == "hamel"
    assert model.state_names == ["x", "y", "q1", "q2", "q3", "u1", "u2", "u3"]
    assert ball.nonholonomic(form="qdot").state_names == ["x", "y", "q1", "q2", "q3", "x_dot", "y_dot",
                                                          "q1_dot", "q2_dot", "q3_dot"]
    with pytest.raises(ValueError, match="form must be 'qdot' or 'speeds'"):
        ball.nonholonomic(form="u")
    # displayed as what it is (it read "hamel", the equations' name); the coordinate form as before
    assert repr(model).startswith("<nonholo.Model nonholonomic in Kane's speeds of ")
    assert repr(ball.nonholonomic(form="qdot")).startswith("<nonholo.Model nonholonomic of ")


def test_result_speeds_are_kanes_speeds_of_qdot(km, ball):
    """result["u1"] .. ["u3"] (states) and ["u4"], ["u5"] (dependent, derived) equal km's speeds
    computed from q and q' = X_D(q) u + w0(q) to rounding, along a run; the motion is the
    q'-form's to the integration error."""
    sol = nh.simulate(ball.nonholonomic(), (0, 3), np.r_[Q0, U0], t_eval=np.linspace(0, 3, 31), rtol=1e-11,
                      atol=1e-13)
    assert sol.success
    for i in range(sol.t.size):
        u = kane_speeds(km, sol.q[:, i], sol.velocity[:, i], PARAMS)
        got = [sol[f"u{j}"][i] for j in range(1, 6)]
        np.testing.assert_allclose(got, u, rtol=0, atol=1e-12 * (1 + np.abs(u).max()))
    ref = nh.simulate(ball.nonholonomic(form="qdot"), (0, 3), qdot_state(km, Q0, U0), t_eval=sol.t, rtol=1e-11,
                      atol=1e-13)
    np.testing.assert_allclose(sol.q, ref.q, rtol=0, atol=1e-7)
    np.testing.assert_allclose(sol["u1"], ref["u1"], rtol=0, atol=1e-7)  # the speeds of the q'-form by name
    # y0 may also be given as [q, q'] (mapped to the speeds)
    again = nh.simulate(ball.nonholonomic(), (0, 3), qdot_state(km, Q0, U0), t_eval=sol.t, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(again.y[:, 0], sol.y[:, 0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(again.y, sol.y, rtol=0, atol=1e-8)


def test_linearization_at_rest_circles_at_lewis_murray_frequency(ball, km):
    """At rest at the table's centre (an equilibrium of both forms) the physical eigenvalues are
    +-i Omega I / (I + m r^2) (the ball's centre circles; Lewis-Murray section 3.2) in Kane's speeds
    as in q'."""
    rest = np.r_[0.0, 0.0, 0.4, 0.9, 0.1]
    expected = PARAMS["Omega"] * PARAMS["I"] / (PARAMS["I"] + PARAMS["m"] * PARAMS["r"] ** 2)
    lin = nh.linearize(ball.nonholonomic(), np.r_[rest, 0, 0, 0])
    lam = lin.physical_eigenvalues
    np.testing.assert_allclose(np.sort(lam.imag), [-expected, expected], rtol=1e-10)
    assert np.abs(lam.real).max() < 1e-10
    lam_q = nh.linearize(ball.nonholonomic(form="qdot"), np.r_[rest, np.zeros(5)]).physical_eigenvalues
    np.testing.assert_allclose(np.sort(lam_q.imag), np.sort(lam.imag), rtol=1e-10)


def test_event_in_a_speed_by_name_and_batches(ball):
    model = ball.nonholonomic()
    u1 = sp.Symbol("u1")
    sol = nh.simulate(model, (0, 5), np.r_[Q0, U0], events=nh.Event(u1 - 0.2, terminal=True), rtol=1e-10,
                      atol=1e-12)
    assert sol.status == 1 and abs(sol.y_events[0][0][5] - 0.2) < 1e-9
    # an event in a dependent speed (derived from q and q'), in either form
    u4 = sp.Symbol("u4")
    dep = nh.simulate(model, (0, 5), np.r_[Q0, U0], events=nh.Event(u4, terminal=True), rtol=1e-10, atol=1e-12)
    assert dep.status == 1 and abs(dep["u4"][-1]) < 1e-8
    runs = nh.simulate_many(model, (0, 2), np.r_[Q0, U0], params={"Omega": [1.0, 2.0]}, t_eval=[2.0], rtol=1e-10,
                            atol=1e-12)
    one = nh.simulate(model, (0, 2), np.r_[Q0, U0], params={"Omega": 1.0}, t_eval=[2.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(runs[0].y, one.y)
    assert abs(runs[1].y[0, -1] - runs[0].y[0, -1]) > 1e-3


def test_sensitivities_and_pickling(ball):
    model = ball.nonholonomic()
    y0 = np.r_[Q0, U0]
    sol = nh.simulate(model, (0, 1), y0, t_eval=[1.0], sensitivities=["Omega"], rtol=1e-10, atol=1e-12)
    h = 1e-5
    plus, minus = (nh.simulate(model, (0, 1), y0, t_eval=[1.0], params={"Omega": 2.0 + s}, rtol=1e-12,
                               atol=1e-14).y[:, -1] for s in (h, -h))
    np.testing.assert_allclose(sol.sensitivities[:, 0, -1], (plus - minus) / (2 * h), rtol=0, atol=1e-6)
    clone = pickle.loads(pickle.dumps(model))
    assert clone.state_names == model.state_names
    np.testing.assert_array_equal(clone.rhs(0.0, y0), model.rhs(0.0, y0))
    assert pickle.loads(pickle.dumps(ball)).speeds[0] == ["u1", "u2", "u3"]


def km_equations(km):
    """y' = f(t, y) of km's own equations in [q, u] (mass_matrix_full, forcing_full), lambdified."""
    q, u = list(km.q), list(km.u)
    syms = [sp.Symbol(f"s{i}") for i in range(len(q) + len(u))]
    rule = dict(zip(q + u, syms))
    consts = [sp.Symbol(name) for name in PARAMS]
    M = sp.lambdify([syms, consts], km.mass_matrix_full.xreplace(rule), "numpy")
    F = sp.lambdify([syms, consts], km.forcing_full.xreplace(rule), "numpy")
    p = list(PARAMS.values())

    def f(t, y):
        return np.linalg.solve(np.asarray(M(y, p), float), np.asarray(F(y, p), float).ravel())
    return f


def test_near_the_euler_angle_singularity_speeds_take_the_steps_of_kanes_equations(km, ball):
    """Rolling over the table's pole of the ZXZ chart (|sin q2| down to 0.005): q' has 1/sin(q2)
    terms in its dynamics and their derivatives, Kane's speeds only in the kinematics. At rtol 1e-8
    the model in speeds with DOP853 takes the steps of solve_ivp's DOP853 on km's own equations
    (the same equations in the same variables; at most 1.5x), the default (DOP853 at a tenth of the
    tolerances) at most 1.5x its steps, and the q'-form, with the same default, at least 1.3x the
    steps of the speeds (90 against 139 at rtol 1e-8 when written; Adams took 393 against 1177)."""
    q0, u_ind = np.r_[0.2, 0.1, 0.3, 0.3, 0.0], np.r_[-1.0, 0.1, 0.0]
    rtol, atol, span = 1e-8, 1e-10, (0.0, 2.0)
    y_qdot = qdot_state(km, q0, u_ind)
    u_full = kane_speeds(km, q0, y_qdot[5:], PARAMS)
    model = ball.nonholonomic()
    auto = nh.simulate(model, span, np.r_[q0, u_ind], rtol=rtol, atol=atol)
    explicit = nh.simulate(model, span, np.r_[q0, u_ind], rtol=rtol, atol=atol, method="dop853")
    assert auto.success and explicit.success and np.abs(np.sin(auto.q[3])).min() < 0.01
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = nh.simulate(ball.nonholonomic(form="qdot"), span, y_qdot, rtol=rtol, atol=atol)
    ref = solve_ivp(km_equations(km), span, np.r_[q0, u_full], method="DOP853", rtol=rtol, atol=atol)
    print(f"steps (right-hand sides): speeds {auto.stats['n_steps']} ({auto.stats['n_rhs']}), speeds dop853 "
          f"{explicit.stats['n_steps']} ({explicit.stats['n_rhs']}), q' {slow.stats['n_steps']} "
          f"({slow.stats['n_rhs']}), solve_ivp DOP853 on km {ref.t.size - 1} ({ref.nfev})")
    assert explicit.stats["n_steps"] <= 1.5 * (ref.t.size - 1)
    assert auto.stats["n_steps"] <= 1.5 * (ref.t.size - 1)
    assert slow.stats["n_steps"] >= 1.3 * auto.stats["n_steps"]
    # the same method on the same equations: the same solution to rounding amplified along the run;
    # the default against a tight solution: its global error near the singularity (3e-5 here)
    np.testing.assert_allclose(explicit.y[:5, -1], ref.y[:5, -1], rtol=0, atol=1e-6)
    tight = solve_ivp(km_equations(km), span, np.r_[q0, u_full], method="DOP853", rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(auto.y[:5, -1], tight.y[:5, -1], rtol=0, atol=1e-4)


def test_time_dependent_kinematics_fall_back_to_qdot_with_the_reason():
    km_t, _ = nh.systems.ball_on_turntable_kane(time_dependent_table=True)
    with pytest.warns(UserWarning, match="integrates q' .*depend on time explicitly"):
        system = nh.System.from_kanes_method(km_t, PARAMS)
    assert system.speeds is None and system.nonholonomic().kind == "nonholonomic"
    with pytest.raises(nh.ModelError, match="state='speeds' is not available: .*depend on time"):
        nh.System.from_kanes_method(km_t, PARAMS, state="speeds")
    with pytest.raises(ValueError, match="form='speeds' needs a velocity frame"):
        system.nonholonomic(form="speeds")


def test_analysis_calls_take_the_state_as_q_and_qdot(ball, km):
    """linearize, tangent_space, steady_motions and eigenvalue_path accept [q, q'] for the model in
    speeds, mapped as simulate maps y0: the same results as from [q, u_ind]."""
    model = ball.nonholonomic()
    rest = np.r_[0.0, 0.0, 0.4, 0.9, 0.1]
    in_speeds, in_qdot = np.r_[rest, 0, 0, 0], np.r_[rest, np.zeros(5)]
    lam = nh.linearize(model, in_speeds).physical_eigenvalues
    lin = nh.linearize(model, in_qdot)
    np.testing.assert_array_equal(lin.state, in_speeds)
    np.testing.assert_allclose(lin.physical_eigenvalues, lam, rtol=0, atol=1e-14)
    T, names = nh.stability.tangent_space(model, in_qdot)
    assert (T, names)[1] == nh.stability.tangent_space(model, in_speeds)[1]
    # a moving state: [q, q'] with q' = X_D u + w0 maps back to u
    y = qdot_state(km, Q0, U0)
    tangent = nh.stability.tangent_space
    np.testing.assert_allclose(tangent(model, y)[0], tangent(model, np.r_[Q0, U0])[0], rtol=0, atol=1e-12)
    steady = nh.steady_motions(ball, in_qdot)
    assert steady.state.shape == (8,) and np.abs(steady.state[5:]).max() < 1e-10
    several = nh.steady_motions(ball, np.array([in_qdot, in_qdot]))
    assert len(several) == 1
    path = nh.eigenvalue_path(model, "Omega", [1.0, 2.0], in_qdot)
    expected = [om * PARAMS["I"] / (PARAMS["I"] + PARAMS["m"] * PARAMS["r"] ** 2) for om in (1.0, 2.0)]
    for row, e in zip(path.eigenvalues, expected):
        physical = row[np.abs(row) > 1e-9]
        np.testing.assert_allclose(np.sort(physical.imag), [-e, e], rtol=1e-10)
    path2 = nh.eigenvalue_path(model, "Omega", [1.0, 2.0], np.array([in_qdot, in_qdot]))
    np.testing.assert_allclose(path2.eigenvalues, path.eigenvalues, rtol=0, atol=1e-14)
    # off the constraints: refused with the reason
    with pytest.raises(ValueError, match="violates the constraints"):
        nh.linearize(model, np.r_[rest, 1.0, 0, 0, 0, 0])


def test_wrong_y0_messages_name_the_qdot_form(ball):
    """A wrong y0 of the model in speeds is explained with both forms, [q, u_ind] and [q, q']."""
    model = ball.nonholonomic()
    for call in (lambda y: nh.simulate(model, (0, 1), y), lambda y: nh.linearize(model, y),
                 lambda y: nh.simulate_many(model, (0, 1), np.array([y, y]))):
        with pytest.raises(ValueError, match=r"\[q, q'\]") as info:
            call(np.zeros(7))
        message = str(info.value)
        assert "(q, u)" not in message and "10" in message and "u1" in message


def test_a_qdot_start_at_other_parameter_values_names_project_y0(ball, km):
    """[q, q'] on the constraints at Omega = 2, run at Omega = 2.5: off them there, refused with the
    remedy (it read "qdot violates the constraints" only); project_y0=True starts from the projection,
    the default Omega starts as given."""
    model, y0 = ball.nonholonomic(), qdot_state(km, Q0, U0)
    with pytest.raises(ValueError, match=r"constraint quasi-velocities are .* Pass project_y0=True"):
        nh.simulate(model, (0, 1), y0, params={"Omega": 2.5})
    assert nh.simulate(model, (0, 1), y0, params={"Omega": 2.5}, project_y0=True).success
    assert nh.simulate(model, (0, 1), y0).success


def disc_with_speeds_in(frame_name: str, values=(1.0, 1.0, 1.0)):
    """SymPy's rolling disc (yaw q1, lean q2, spin q3, contact point q4, q5) with the angular speeds
    taken in the frame ``frame_name`` ("L": the lean frame, SymPy's example; "R": the wheel's) and
    the rolling condition written through v2pt_theory, whose velocities are in q'; ``values`` the
    radius, mass and gravity (r, m, g)."""
    from sympy.physics import mechanics as me

    q1, q2, q3, q4, q5 = me.dynamicsymbols("q1:6")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    F = {"L": L, "R": R}[frame_name]
    w = R.ang_vel_in(N)
    R.set_ang_vel(N, u1 * F.x + u2 * F.y + u3 * F.z)
    kd = [(R.ang_vel_in(N) - w).dot(e) for e in F]
    C = me.Point("O").locatenew("C", q4 * N.x + q5 * N.y)
    C.set_vel(N, u4 * N.x + u5 * N.y)
    kd += [q4.diff() - u4, q5.diff() - u5]
    D = C.locatenew("D", r * L.z)
    D.v2pt_theory(C, N, L)
    slip = D.vel(N) + R.ang_vel_in(N).cross(-r * L.z)
    km = me.KanesMethod(N, q_ind=[q1, q2, q3, q4, q5], u_ind=[u1, u2, u3], u_dependent=[u4, u5], kd_eqs=kd,
                        velocity_constraints=[slip.dot(Y.x), slip.dot(Y.y)])
    km.kanes_equations([me.RigidBody("disc", D, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), D))],
                       [(D, -m * g * Y.z)])
    return nh.System.from_kanes_method(km, dict(zip((r, m, g), values)))


def test_speeds_in_the_wheel_frame_run_from_the_upright_disc():
    """SymPy puts its q'(u), solved by an LU without pivoting, into constraints written in q': with
    the angular speeds in the wheel's frame the constraint coefficients were 0/0 wherever the lean
    or the spin is 0 (r / (-sin q3 - cos(q3)^2 / sin q3) among them), so the upright disc stopped at
    t = 0 ('the frame X(q) of the Hamel model is nearly singular'), a [q, q'] start gave 'y0
    contains NaN' and the q' model 'constraint rows linearly dependent'. Those removable 0/0 are
    cancelled; the motion is the one with the speeds in the lean frame (SymPy's own choice)."""
    lean, wheel = disc_with_speeds_in("L"), disc_with_speeds_in("R")
    for q0 in ([0, 0, 0, 0, 0], [0.5, 0.3, 0.0, 0, 0], [0.5, 0.0, 0.4, 0, 0]):
        q0 = np.array(q0, dtype=float)
        qdot = lean.speed_frame().velocity(q0, [0.4, 3.0, 0.2])  # a rolling q', from the lean frame's speeds
        y0 = np.r_[q0, qdot]
        reference = nh.simulate(lean.nonholonomic(), (0, 1), y0, t_eval=[1.0], rtol=1e-10, atol=1e-12)
        for model in (wheel.nonholonomic(), wheel.nonholonomic(form="qdot")):
            run = nh.simulate(model, (0, 1), y0, t_eval=[1.0], rtol=1e-10, atol=1e-12)
            assert run.status == 0, run.message
            np.testing.assert_allclose(run.q, reference.q, rtol=0, atol=1e-8)


def test_a_singular_speed_choice_stops_with_advice_that_works():
    """A skate with x' independent and y' dependent (y' = tan(theta) x'): its speeds are singular at
    theta = pi/2, where a turning run stops (FRAME_SINGULAR). The message advised system.nonholonomic(),
    the model that had just stopped (a KanesMethod system integrates its speeds by default); it now
    names form="qdot", which runs through."""
    km, (F, tau) = nh.testing.kane_skate(mass=1.0, inertia=0.1)  # unpushed
    Fs, taus = sp.symbols("F tau")
    skate = nh.System.from_kanes_method(km, {Fs: 0.0, taus: 0.0}, specified={F: Fs, tau: taus})
    y0 = [0, 0, 1.2, np.cos(1.2), np.sin(1.2), 1.0]  # [q, q']: forward along the blade, turning through pi/2
    with pytest.warns(nh.SimulationWarning, match=r'form="qdot"'):
        stopped = nh.simulate(skate.nonholonomic(), (0, 1), y0)
    assert stopped.flag_name == "FRAME_SINGULAR" and 0.3 < stopped.t_last < 0.4  # theta = pi/2 at 0.371
    through = nh.simulate(skate.nonholonomic(form="qdot"), (0, 1), y0, t_eval=[1.0])
    assert through.status == 0 and through["theta"][-1] == pytest.approx(2.2, abs=1e-8)
    # started at theta = pi/2 itself (an outside probe): y0's q' is on the constraints (x' = 0, y' = 1), but
    # the speeds cannot hold it; the error said q' violated the constraints and advised project_y0=True
    upright = [0, 0, np.pi / 2, 0.0, 1.0, 0.5]
    A, b = skate.constraint_matrix(upright[:3], 0.0)
    assert abs(A @ upright[3:] - b).max() < 1e-15
    for call in (lambda: nh.simulate(skate.nonholonomic(), (0, 1), upright),
                 lambda: nh.simulate(skate.nonholonomic(), (0, 1), [0, 0, np.pi / 2, 0.0, 0.5]),  # [q, u] alike
                 lambda: nh.simulate(skate.nonholonomic(), (0, 1), upright, project_y0=True),
                 lambda: nh.linearize(skate.nonholonomic(), upright)):
        with pytest.raises(nh.ModelError, match=r'is singular at q = .*form="qdot"') as info:
            call()
        assert "project_y0" not in str(info.value) and "violates" not in str(info.value)
    x1 = nh.simulate(skate.nonholonomic(form="qdot"), (0, 1), upright, t_eval=[1.0])["x"][-1]
    assert x1 == pytest.approx(2 * (np.cos(0.5) - 1), abs=1e-8)  # x' = cos(pi/2 + t/2): x = 2 (cos(t/2) - 1)


def ball_in_a_bowl(rho: float):
    """A ball of radius 0.1 rolling inside a spherical bowl, its centre on the sphere of radius rho:
    z = -sqrt(rho^2 - x^2 - y^2), defined only for x^2 + y^2 < rho^2."""
    x, y = me.dynamicsymbols("x y")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    m, r, g = sp.symbols("m r g")
    N, B = me.ReferenceFrame("N"), me.ReferenceFrame("B")
    B.set_ang_vel(N, u1 * N.x + u2 * N.y + u3 * N.z)
    z = -sp.sqrt(rho**2 - x**2 - y**2)
    O = me.Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", x * N.x + y * N.y + z * N.z)
    G.set_vel(N, u4 * N.x + u5 * N.y + (sp.diff(z, x) * u4 + sp.diff(z, y) * u5) * N.z)
    contact = G.vel(N) + B.ang_vel_in(N).cross(r * (x * N.x + y * N.y + z * N.z) / rho)
    km = me.KanesMethod(N, [x, y], [u1, u2, u3], kd_eqs=[x.diff() - u4, y.diff() - u5], u_dependent=[u4, u5],
                        velocity_constraints=[contact.dot(N.x), contact.dot(N.y)])
    inertia = sp.Rational(2, 5) * m * r**2
    km.kanes_equations([me.RigidBody("ball", G, B, m, (me.inertia(N, inertia, inertia, inertia), G))],
                       [(G, -m * g * N.z)])
    return nh.System.from_kanes_method(km, {m: 1.0, r: 0.1, g: 9.81})


def test_a_system_defined_on_part_of_the_plane_builds_in_speeds():
    """The frame's check sampled q in [-1, 1]^n, outside the bowl (x^2 + y^2 > 0.81), and raised 'the
    metric is not positive definite' at a point nobody gave; it now samples inside the system's domain.
    The bottom's small oscillations: omega^2 = 5 g / (7 rho), in speeds as in q'."""
    bowl = ball_in_a_bowl(0.9)
    expected = np.sqrt(5 * 9.81 / (7 * 0.9))
    for model in (bowl.nonholonomic(), bowl.nonholonomic(form="qdot")):
        lam = nh.linearize(model, np.zeros(model.n_states)).physical_eigenvalues
        np.testing.assert_allclose(np.sort(np.abs(lam.imag))[-1], expected, rtol=1e-9)


def test_speeds_that_turn_with_a_cyclic_coordinate_point_to_the_coordinate_form():
    """The disc with its speeds in the wheel's frame, rolling upright at spin 6: its equations in those
    speeds contain the spin angle q3, so cyclic=["q3", "q4", "q5"] is refused. The refusal only said
    "drop them from cyclic", after the first message had sent the user to cyclic=; it names the
    coordinate form, where the linearization gives the hand-derived +-8.40856706i
    (lambda^2 = (m g r - C (C + m r^2) W^2 / A) / (A + m r^2), A = m r^2 / 4, C = m r^2 / 2)."""
    wheel = disc_with_speeds_in("R", values=(0.5, 2.0, 9.81))
    with pytest.raises(ValueError, match=r"drop them from cyclic\. .*form='qdot'"):
        nh.linearize(wheel.nonholonomic(), np.r_[0, 0, 0, 0, 0, 0, 6.0, 0], cyclic=["q3", "q4", "q5"])
    r, m, g, W = 0.5, 2.0, 9.81, 6.0
    A, C = m * r**2 / 4, m * r**2 / 2
    expected = np.sqrt(-(m * g * r - C * (C + m * r**2) * W**2 / A) / (A + m * r**2))
    lin = nh.linearize(wheel.nonholonomic(form="qdot"), np.r_[0, 0, 0, 0, 0, 0, 0, W, r * W, 0],
                       cyclic=["q3", "q4", "q5"])
    np.testing.assert_allclose(sorted(lin.physical_eigenvalues.imag), [-expected, expected], rtol=1e-9)
    assert np.allclose(lin.physical_eigenvalues.real, 0, atol=1e-9)
