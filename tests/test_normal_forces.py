"""Normal forces from the vertical constraints (nonholo.system.normal_forces): kept (a multiplier) or
eliminated (a Lift), one contact or several, against closed forms and Newton's law."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.contact import Lift
from nonholo.systems.whipple_bicycle import BENCHMARK, upright_state, whipple_bicycle

TIGHT = dict(rtol=1e-11, atol=1e-13)
M, R, A_, C_, G = 1.3, 0.4, 0.05, 0.09, 9.81


def disc(keep_height: bool) -> nh.System:
    """A disc written in SymPy with Euler angles (heading psi, lean theta, spin phi) and the position of
    its centre G: z_G = r cos(theta) eliminated, or z kept as a coordinate with the holonomic
    constraint z - r cos(theta) = 0, whose derivative is the third row."""
    x, y, z, psi, theta, phi = sp.symbols("x y z psi theta phi")
    coords = [x, y, *([z] if keep_height else []), psi, theta, phi]
    vel = sp.symbols([f"{c}_dot" for c in coords])
    dot = dict(zip(coords, vel))
    s, c = sp.sin(theta), sp.cos(theta)
    Rz = sp.Matrix([[sp.cos(psi), -sp.sin(psi), 0], [sp.sin(psi), sp.cos(psi), 0], [0, 0, 1]])
    F = Rz * sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])  # the disc's frame without its spin (axis F e_y)
    omega = F * sp.Matrix([dot[theta], dot[psi] * s + dot[phi], dot[psi] * c])
    height = z if keep_height else R * c
    vG = sp.Matrix([dot[x], dot[y], sum(sp.diff(height, q) * dot[q] for q in coords)])
    v_contact = vG + omega.cross(-R * F * sp.Matrix([0, 0, 1]))
    T = (M * (vG.T * vG)[0] + A_ * dot[theta] ** 2 + C_ * (dot[psi] * s + dot[phi]) ** 2
         + A_ * (dot[psi] * c) ** 2) / 2
    rows = sp.Matrix([v_contact[0], v_contact[1], *([v_contact[2]] if keep_height else [])])
    system = nh.System.from_lagrangian(T - M * G * height, coords, vel, constraints=rows.jacobian(vel))
    if keep_height:
        system = nh.System(coords, system.metric, system.potential, system.constraints, velocities=vel,
                           holonomic=[z - R * c])
        return system.with_normal_force(2, gravity=G, contacts=[[0, 1]])
    return system.with_normal_force(Lift((M, R * c)), gravity=G)


def disc_state(theta, psi_dot, phi_dot, theta_dot=0.0, keep_height=False):
    """[q, v] on the rolling constraint: G's velocity from no slip."""
    system = disc(keep_height)
    q = np.array([0.3, -0.2, *([R * np.cos(theta)] if keep_height else []), 0.7, theta, 0.1])
    v = np.zeros(system.n)
    names = system.coordinate_names
    v[names.index("psi")], v[names.index("theta")], v[names.index("phi")] = psi_dot, theta_dot, phi_dot
    A, _ = system.constraint_matrix(q)
    free = [names.index(n) for n in ("x", "y", *(["z"] if keep_height else []))]
    v[free] = np.linalg.solve(A[:, free], -A @ v)
    return system, np.r_[q, v]


def test_a_disc_falling_over_presses_by_newtons_law_kept_or_eliminated():
    """N = m (z_G'' + g), z_G = r cos(theta), with theta'' from the run's own acceleration; the multiplier
    of the kept height constraint is the same force."""
    eliminated, y0 = disc_state(0.2, 0.0, 2.0, theta_dot=0.5)
    t = np.linspace(0, 0.6, 7)
    run = nh.simulate(eliminated.nonholonomic(), (0, 0.6), y0, t_eval=t, **TIGHT)
    theta, theta_dot = run["theta"], run["theta_dot"]
    theta_ddot = run.acceleration()[eliminated.coordinate_names.index("theta")]
    newton = M * (G - R * (np.cos(theta) * theta_dot**2 + np.sin(theta) * theta_ddot))
    assert np.ptp(newton) > 0.1 * G * M  # far from m g
    np.testing.assert_allclose(run["normal_force"], newton, rtol=1e-12)

    kept, y0k = disc_state(0.2, 0.0, 2.0, theta_dot=0.5, keep_height=True)
    runk = nh.simulate(kept.nonholonomic(), (0, 0.6), y0k, t_eval=t, **TIGHT)
    np.testing.assert_allclose(runk["z"], R * np.cos(runk["theta"]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(runk["normal_force"], run["normal_force"], rtol=1e-8)


def test_kept_and_eliminated_vertical_constraints_give_one_normal_force_at_random_states():
    rng = np.random.default_rng(7)
    eliminated, kept = disc(False).liftoff_margin(), disc(True).liftoff_margin()
    for _ in range(5):
        theta, psi_dot, phi_dot, theta_dot = rng.uniform(-1, 1, 4) * (1.2, 3, 5, 2)
        _, y = disc_state(theta, psi_dot, phi_dot, theta_dot)
        _, yk = disc_state(theta, psi_dot, phi_dot, theta_dot, keep_height=True)
        np.testing.assert_allclose(kept.value(yk[:6], yk[6:]), eliminated.value(y[:5], y[5:]), rtol=1e-11)


def test_a_disc_turning_steadily_presses_by_m_g_and_needs_m_v_squared_over_r():
    """Steady turning at constant lean: z_G'' = 0, so N = m g exactly, and the contact's horizontal force
    turns G on its circle, m |v_G| psi' (= m v^2 / R_G)."""
    theta, psi_dot = 0.3, 1.5
    system, _ = disc_state(theta, psi_dot, 0.0)

    model = system.nonholonomic()

    def lean_acceleration(phi_dot):  # theta'' of the state with this spin rate
        return model.rhs(0.0, disc_state(theta, psi_dot, phi_dot)[1], {})[system.n + 3]

    from scipy.optimize import brentq
    phi_dot = brentq(lean_acceleration, -10.0, -1.0, xtol=1e-14)  # the steady spin (-3.899)
    _, y0 = disc_state(theta, psi_dot, phi_dot)
    run = nh.simulate(system.nonholonomic(), (0, 2), y0, t_eval=[0.0, 1.0, 2.0], **TIGHT)
    np.testing.assert_allclose(run["theta"], theta, rtol=0, atol=1e-8)
    np.testing.assert_allclose(run["normal_force"], M * G, rtol=1e-8)
    speed = np.hypot(run["x_dot"], run["y_dot"])
    np.testing.assert_allclose(run["friction_force"], M * speed * psi_dot, rtol=1e-8)
    assert run["normal_force"].shape == (3,)


def test_a_ball_on_an_incline_presses_by_m_g_cos_alpha_on_every_model():
    alpha, m, r = 0.4, 2.0, 0.3
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(m, np.eye(3) * 0.4 * m * r**2), nh.contact.Sphere(r),
                                    gravity=(G * np.sin(alpha), 0, -G * np.cos(alpha)))
    y0 = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
    for model in (ball.nonholonomic(), ball.friction(1e-4), ball.reduced(1e-4, order=2)):
        run = nh.simulate(model, (0, 1), y0, t_eval=[0.5, 1.0], **TIGHT)
        np.testing.assert_allclose(run["normal_force"], m * G * np.cos(alpha), rtol=1e-8)


def bicycle_loads(p=BENCHMARK):
    """Static loads of the upright bicycle: moments about the rear contact, N_F w = g sum m_b x_b."""
    moment = p["mB"] * p["xB"] + p["mH"] * p["xH"] + p["mF"] * p["w"]
    front = p["g"] * moment / p["w"]
    return p["g"] * (p["mR"] + p["mB"] + p["mH"] + p["mF"]) - front, front


def test_a_bicycle_running_straight_loads_its_wheels_by_the_lever_rule():
    """Two contacts: the rear one eliminated by the rear frame's height (it lifts every body and carries
    the front wheel's row), the front one kept (its normal row's multiplier)."""
    bike = whipple_bicycle()
    assert bike.outputs["normal_force"].tangential == [[0, 1], [2, 3]]
    run = nh.simulate(bike.nonholonomic(), (0, 1), upright_state(bike, 4.0), t_eval=[0.0, 0.5, 1.0], **TIGHT)
    rear, front = bicycle_loads()
    assert run["normal_force"].shape == (2, 3)
    np.testing.assert_allclose(run["normal_force"][0], rear, rtol=1e-10)
    np.testing.assert_allclose(run["normal_force"][1], front, rtol=1e-10)


def test_a_weaving_bicycle_shares_its_weight_and_reports_both_margins():
    """Weaving (a roll rate at 4 m/s): the loads vary, their sum is Newton's law for the whole bicycle,
    sum_b m_b (z_b'' + g), with the heights of the bodies from its poses; the lift-off margin is the
    smaller load."""
    bike = whipple_bicycle()
    t = np.linspace(0, 1, 201)
    run = nh.simulate(bike.nonholonomic(), (0, 1), upright_state(bike, 4.0, roll_rate=0.8), t_eval=t, **TIGHT)
    N = run["normal_force"]
    assert np.ptp(N[1]) > 1.0
    margin = bike.liftoff_margin()
    np.testing.assert_allclose(margin.of(run)[::20], N.min(axis=0)[::20], rtol=1e-10)
    friction = bike.friction_margin(0.8)
    lam = np.array([bike.multipliers(run.q[:, i], run.v[:, i]) for i in range(0, t.size, 20)]).T
    needed = np.minimum(0.8 * N[0, ::20] - np.hypot(lam[0], lam[1]), 0.8 * N[1, ::20] - np.hypot(lam[2], lam[3]))
    np.testing.assert_allclose(friction.of(run)[::20], needed, rtol=1e-9)
    # Newton for the whole bicycle: the heights of the centres of mass from its drawing's poses,
    # differentiated along the run (fourth-order central differences)
    poses = bike.drawing.parts[0]._shapes.poses
    masses = {"rear frame": "mB", "front frame": "mH", "rear wheel": "mR", "front wheel": "mF"}
    params = run.params
    heights = np.array([[poses(run.q[:, i], params)[name][2][2] for i in range(t.size)] for name in masses])
    h = t[1] - t[0]
    z_ddot = (-heights[:, 4:] + 16 * heights[:, 3:-1] - 30 * heights[:, 2:-2] + 16 * heights[:, 1:-3]
              - heights[:, :-4]) / (12 * h**2)
    m = np.array([BENCHMARK[k] for k in masses.values()])
    np.testing.assert_allclose(N.sum(axis=0)[2:-2], m @ (z_ddot + G), rtol=1e-7)


def test_the_normal_force_output_pickles_and_refuses_bad_input():
    system = disc(False)
    back = pickle.loads(pickle.dumps(system))
    _, y = disc_state(0.2, 1.0, 3.0, 0.4)
    np.testing.assert_allclose(back.liftoff_margin().value(y[:5], y[5:]), system.liftoff_margin().value(y[:5], y[5:]),
                               rtol=1e-14)
    plain = disc(False)
    with pytest.raises(ValueError, match="row 7"):
        plain.with_normal_force(7)
    with pytest.raises(TypeError, match="normal must be"):
        plain.with_normal_force("z")
    with pytest.raises(TypeError, match="normal of contact 0"):
        plain.with_normal_force(["z"])
    with pytest.raises(ValueError, match="neither coordinates nor parameters"):
        plain.with_normal_force(Lift((M, sp.Symbol("h"))))
    with pytest.raises(ValueError, match="contacts="):
        plain.with_normal_force([Lift((M, 1)), Lift((M, 1)), Lift((M, 1))])
    with pytest.raises(TypeError, match="bodies"):
        Lift(3.0)


def test_lift_counts_an_applied_vertical_force_given_to_it():
    """An eccentric wheel pushed down at its centre of mass by D: the lifted wheel's coordinates
    eliminate the height, so the system's force (in those coordinates) cannot hold D's vertical
    part; Lift(applied=-D) gives it, and N equals the multiplier of the kept vertical row of the
    same wheel written with its height. Without it (gravity the only vertical force) N is D short."""
    m, R, e, IG, g, D = 1.0, 0.2, 0.05, 0.015, 9.81, 4.0
    x, z, b = sp.symbols("x z b")
    xG, zG = x + e * sp.cos(b), z - e * sp.sin(b)
    J = sp.Matrix([xG, zG]).jacobian([x, z, b])
    kept = nh.System([x, z, b], m * J.T * J + sp.diag(0, 0, IG), potential=m * g * zG,
                     constraints=sp.Matrix([[1, 0, -R], [0, 1, 0]]), force=J.T * sp.Matrix([0, -D]),
                     holonomic=[z - R]).with_normal_force(1, gravity=g, contacts=[[0]])
    zL = R - e * sp.sin(b)
    JL = sp.Matrix([x + e * sp.cos(b), zL]).jacobian([x, b])
    lifted = nh.System([x, b], m * JL.T * JL + sp.diag(0, IG), potential=m * g * zL,
                       constraints=sp.Matrix([[1, -R]]), force=JL.T * sp.Matrix([0, -D]))
    w0, t = 6.0, [0.1, 0.3]
    reference = nh.simulate(kept.nonholonomic(), (0, 0.3), [0, R, 0, R * w0, 0, w0], t_eval=t, rtol=1e-11,
                            atol=1e-13)["normal_force"]
    for applied, short in ((-D, 0.0), (0, D)):
        system = lifted.with_normal_force(nh.contact.Lift((m, zL), applied=applied), gravity=g)
        run = nh.simulate(system.nonholonomic(), (0, 0.3), [0, 0, R * w0, w0], t_eval=t, rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(run["normal_force"], reference - short, rtol=1e-9)
    with pytest.raises(ValueError, match="the applied force uses"):
        lifted.with_normal_force(nh.contact.Lift((m, zL), applied=sp.Symbol("F")), gravity=g)
