"""Contacts of mechanisms and rolling bodies (nh.multibody, nh.contact): repeated contact rows dropped
before the System is built (a tripod, a four-wheeled cart, three wheels on one axle), statically
indeterminate normal loads refused by name, a viscous law that keeps a mechanism's normal rows, a
runtime parameter eps that cannot take the place of a user's symbol, and gravity and disc-axis
arguments checked at the parameters' values, and friction on every contact's own rows where the
System keeps one of two repeated rows (the second wheel of a cart on one axle).

Each test failed before its fix: the mechanisms raised 'constraints has 8 rows for 8 coordinates'
(and 11 for 10), the viscous law let the loaded wheel roll the cart over, a sphere of radius eps = 1
rolled with radius 0.001, an upward gravity given by a symbol glued the body to the plane with
normal_force -9.81, Disc(r, axis=(0, k, 0)) raised a bare TypeError and gravity=np.array(9.81) was
refused as 'must have 3 components', and the cart's right wheel had no sideways friction (under a
law, in stick-slip, in friction(eps) and in its friction margin)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody
from nonholo.contact import Disc, Sphere, roll_on_plane, rolling_state
from nonholo.multibody import Mechanism, Revolute, assemble
from nonholo.system.law_realization import viscous_coefficients

G = 9.81


def cart(com=(0.0, 0.08, -0.1), **kwargs):
    """The two-wheeled cart of the Mechanism docstring: wheels of radius 0.2 at y = +-0.3 on an axle
    along y, a 5 kg chassis whose centre of mass is at ``com``."""
    mech = Mechanism(RigidBody(5.0, (0.2, 0.1, 0.25), com), "chassis")
    for side, s in (("left", 1), ("right", -1)):
        mech.add(side, wheel(), "chassis", Revolute("y", (0, s * 0.3, 0), f"theta_{side[0]}"))
        mech.roll_on_plane(side, Disc(0.2, axis=(0, 1, 0)))
    return mech.system(gravity=G, **kwargs)


def wheel():
    return RigidBody(0.5, (0.005, 0.01, 0.005))


# ---------------------------------------------------------------- repeated rows (more than two contacts)
def test_a_tripods_loads_are_its_statics():
    """A table on three feet (spheres on revolute joints): one foot's sideways row repeats the others'
    and is dropped before the System is built; the three loads are the statics of the table,
    sum N = W and sum N p = sum m g p_G (moments about the origin)."""
    M, m, feet, com = 4.0, 0.3, [(0.5, 0.0), (-0.2, 0.35), (-0.25, -0.3)], (0.1, 0.05, 0.15)
    mech = Mechanism(RigidBody(M, (0.1, 0.2, 0.25), com), "table")
    for i, (X, Y) in enumerate(feet):
        mech.add(f"foot{i}", RigidBody(m, (0.001, 0.001, 0.001)), "table", Revolute("y", (X, Y, 0), f"th{i}"))
        mech.roll_on_plane(f"foot{i}", Sphere(0.05))
    system = mech.system(gravity=G)
    assert (system.n, system.k, len(system.holonomic)) == (8, 7, 2)
    assert system.friction_contacts == [[0, 1], [2, 3], [5]] and system.normal_rows == [4, 6]
    y0 = assemble(system, np.zeros(8), np.zeros(8), dependent=["roll", "pitch"], free=["th0_dot"])
    run = nh.simulate(system.nonholonomic(), (0, 0.1), y0, t_eval=[0, 0.1], rtol=1e-11, atol=1e-12)
    P = np.array(feet).T
    statics = np.linalg.solve(np.vstack([np.ones(3), P]),
                              np.r_[(M + 3 * m) * G, M * G * np.array(com[:2]) + m * G * P.sum(axis=1)])
    assert np.abs(run["normal_force"] - statics[:, None]).max() < 1e-9


@pytest.fixture(scope="module")
def four_wheels():
    """A four-wheeled cart: a rear axle on the chassis, a front axle steered as a whole about the
    vertical through (L, 0, 0)."""
    mech = Mechanism(RigidBody(5.0, (0.2, 0.3, 0.4), (0.3, 0, 0)), "chassis")
    for i, Y in enumerate((0.3, -0.3)):
        mech.add(f"rear{i}", wheel(), "chassis", Revolute("y", (0, Y, 0), f"thr{i}"))
        mech.roll_on_plane(f"rear{i}", Disc(0.2))
    mech.add("axle", RigidBody(0.5, (0.01, 0.001, 0.01)), "chassis", Revolute("z", (0.8, 0, 0), "steer"))
    for i, Y in enumerate((0.3, -0.3)):
        mech.add(f"front{i}", wheel(), "axle", Revolute("y", (0, Y, 0), f"thf{i}"))
        mech.roll_on_plane(f"front{i}", Disc(0.2))
    return mech.system()


def test_a_four_wheeled_cart_turns_about_its_rear_axle(four_wheels):
    """The fourth wheel's height repeats the others' (dropped with its holonomic constraint), each
    axle's second sideways row repeats its first: 8 independent rows of 11. Steered by delta, the
    cart turns at yaw' = x' tan(delta) / L (the front axle moves along its heading)."""
    system, L, delta = four_wheels, 0.8, 0.3
    assert (system.n, system.k, len(system.holonomic)) == (10, 8, 2)
    assert system.friction_contacts == [[0, 1], [2], [4, 5], [7]] and system.normal_rows == [3, 6]
    q = np.zeros(system.n)
    q[system.coordinate_names.index("steer")] = delta
    v = np.zeros(system.n)
    v[0] = 1.0
    y0 = assemble(system, q, v, dependent=["roll", "pitch"], free=["x_dot", "steer_dot"])
    assert abs(y0[system.n + 2] - np.tan(delta) / L) < 1e-12
    run = nh.simulate(system.nonholonomic(), (0, 0.5), y0, t_eval=[0.5], rtol=1e-11, atol=1e-12)
    assert run.success and abs(run["yaw"][-1] - 0.5 * np.tan(delta) / L) < 1e-9


def test_four_wheels_loads_are_statically_indeterminate(four_wheels):
    """Four contacts under one rigid frame: the data fix the loads' resultant, not each share. Asked
    for, the normal force says so by name instead of giving a number."""
    system = four_wheels
    run = nh.simulate(system.nonholonomic(), (0, 0.1), np.zeros(2 * system.n), t_eval=[0, 0.1])
    with pytest.raises(ValueError, match=r"contacts \['rear0', 'rear1', 'front0', 'front1'\] .* statically "
                                         r"indeterminate: the height of 'front1' repeats"):
        run["normal_force"]
    with pytest.raises(ValueError, match="statically indeterminate"):
        system.friction_margin(0.5)
    margin = system.friction_margin(0.5, normal=5.0)  # loads given: the margin is defined
    assert np.isfinite(margin.of(run)).all()


def test_three_wheels_on_one_axle():
    """A roller on three coaxial wheels: one height constraint (the roll), one sideways row."""
    mech = Mechanism(RigidBody(5.0, (0.2, 0.1, 0.25), (0, 0, -0.1)), "chassis")
    for i, Y in enumerate((0.3, 0.0, -0.3)):
        mech.add(f"w{i}", wheel(), "chassis", Revolute("y", (0, Y, 0), f"th{i}"))
        mech.roll_on_plane(f"w{i}", Disc(0.2))
    system = mech.system()
    assert (system.n, system.k, system.friction_contacts, system.normal_rows) == (8, 5, [[0, 1], [2], [4]], [3])
    assert sp.simplify(system.holonomic[0] + 0.3 * sp.sin(system.symbol("roll"))) == 0


# ---------------------------------------------------------------- a viscous law on a mechanism
def test_a_viscous_law_keeps_the_normal_rows_coefficient():
    """friction(law=Viscous(mu, eps)) is friction(eps) with mu on the contacts' tangential rows (the
    sideways row twice: both wheels'); the normal row keeps normal_coefficient (it took mu, and the
    loaded right wheel let the cart roll)."""
    system = cart(normal_coefficient=1e4)
    law = nh.laws.Viscous(2.0, 1e-3)
    assert sp.Matrix(viscous_coefficients(system, law).friction_coefficients) == sp.diag(2.0, 4.0, 2.0, 1e4)
    same = cart(friction_coefficient=2.0, normal_coefficient=1e4).friction(1e-3)
    model = system.friction(law=law)
    y = np.random.default_rng(1).uniform(-0.3, 0.3, 14)
    assert np.abs(model.rhs(0.0, y) - same.rhs(0.0, y, {"eps": 1e-3})).max() < 1e-9


# ---------------------------------------------------------------- roll_on_plane's arguments
@pytest.mark.parametrize("friction", ["viscous", "coulomb"])
def test_eps_of_the_friction_force_takes_no_users_symbol(friction):
    """A sphere of radius eps = 1 rolled with radius 0.001 (the friction's eps took its place): refused,
    as system.friction(eps) refuses a system parameter named eps."""
    eps = sp.Symbol("eps")
    ball = RigidBody(1.0, (0.4, 0.4, 0.4))
    with pytest.raises(ValueError, match="the surface and parameters use a symbol named eps"):
        roll_on_plane(ball, Sphere(eps), friction=friction, parameters={eps: 1.0})
    with pytest.raises(ValueError, match="^parameters use a symbol named eps"):
        roll_on_plane(ball, Sphere(1.0), friction=friction, parameters={"eps": 1.0})
    rolling = roll_on_plane(ball, Sphere(eps), parameters={eps: 1.0})  # no friction force: eps is the user's
    run = nh.simulate(rolling.nonholonomic(), (0, 2), rolling_state(rolling, [1, 0, 0, 0], [0, 1, 0]),
                      t_eval=[2.0], rtol=1e-10, atol=1e-12)
    assert abs(run["x"][-1] - 2.0) < 1e-9  # x = r omega t


def test_gravity_is_checked_at_the_parameters_values():
    ball, g = RigidBody(1.0, (0.4, 0.4, 0.4)), sp.Symbol("g")
    with pytest.raises(ValueError, match=r"-gravity\[2\] = -g must be non-negative .* got -9.81 at parameters g=9.81"):
        roll_on_plane(ball, Sphere(1.0), gravity=[0, 0, g], parameters={g: 9.81})
    down = roll_on_plane(ball, Sphere(1.0), gravity=[0, 0, -g], parameters={g: 9.81})
    y0 = rolling_state(down, [1, 0, 0, 0], [0, 0, 0])
    assert abs(nh.simulate(down.nonholonomic(), (0, 1), y0, t_eval=[1.0])["normal_force"][-1] - 9.81) < 1e-9
    with pytest.raises(ValueError, match=r"-gravity\[2\] = g must be non-negative .* at params g=-9.81"):
        nh.simulate(down.nonholonomic(), (0, 1), y0, params={"g": -9.81})
    scalar = roll_on_plane(ball, Sphere(1.0), gravity=np.array(9.81))  # a 0-d array is g
    y0 = rolling_state(scalar, [1, 0, 0, 0], [0, 0, 0])
    assert abs(nh.simulate(scalar.nonholonomic(), (0, 1), y0, t_eval=[1.0])["normal_force"][-1] - 9.81) < 1e-12
    mech = Mechanism(RigidBody(1.0, (0.4, 0.4, 0.4)), "ball")
    mech.roll_on_plane("ball", Sphere(1.0))
    with pytest.raises(ValueError, match="gravity = g = -9.81 at the parameters' values must be >= 0"):
        mech.system(gravity=g, parameters={g: -9.81})


def test_a_disc_axis_given_by_a_parameter():
    """Disc(r, axis=(0, k, 0)): the heading of its rolling direction e x e_z is 0 for k = 1 and pi for
    k = -1 (a runtime parameter); an upright disc keeps lean 0."""
    k = sp.Symbol("k")
    disc = roll_on_plane(RigidBody(1.0, (0.25, 0.5, 0.25)), Disc(1.0, axis=(0, k, 0)), parameters={k: 1.0})
    y0 = rolling_state(disc, [1, 0, 0, 0], [0, 1.0, 0])
    for value, heading in ((1.0, 0.0), (-1.0, np.pi)):
        run = nh.simulate(disc.nonholonomic(), (0, 1), y0, t_eval=[0, 1.0], params={"k": value}, rtol=1e-10,
                          atol=1e-12)
        assert np.abs(np.angle(np.exp(1j * (run["heading"] - heading)))).max() < 1e-9  # modulo 2 pi
        assert np.abs(run["lean"]).max() < 1e-9
        assert abs(run["x"][-1] - 1.0) < 1e-9  # x = r omega t


# ---------------------------------------------------------------- friction on repeated rows
def sliding_sideways():
    y0 = np.zeros(14)
    y0[8] = 1.0  # y' = 1 m/s, nothing else moving
    return y0


@pytest.mark.parametrize("model", ["Coulomb", "stick_slip"])
def test_both_wheels_of_a_cart_resist_sliding_sideways(model):
    """Sliding sideways at 1 m/s with Coulomb friction mu = 0.5 on both wheels (loads W / 2 each): the
    cart decelerates at mu g, y'(0.1) = 1 - 0.5 g 0.1 (it decelerated at mu g / 2: the right wheel's
    sideways row, a repeat of the left's, was no row of the law or of the stick-slip model)."""
    system = cart(com=(0.0, 0.0, -0.1))
    W = 6.0 * G
    if model == "Coulomb":
        run = nh.simulate(system.friction(law=nh.laws.Coulomb(0.5, v_s=1e-4), normal=[W / 2, W / 2]), (0, 0.1),
                          sliding_sideways(), t_eval=[0.1], rtol=1e-10, atol=1e-12)
        assert abs(run["y_dot"][-1] - (1 - 0.5 * G * 0.1)) < 1e-6
    else:
        run = nh.simulate(system.stick_slip(0.5, normal=[W / 2, W / 2]), (0, 0.1), sliding_sideways(), rtol=1e-10,
                          atol=1e-12)
        assert run.modes == ["slip,slip"] and abs(run["y_dot"][-1] - (1 - 0.5 * G * 0.1)) < 1e-9
        assert np.allclose(run["friction_force"][:, -1], 0.5 * W / 2)


def test_friction_eps_counts_both_sideways_rows():
    """friction(eps): mu T^T diag(mu) T on the kept rows is the linear law of all five rows (the
    sideways row twice); with a stiff normal row (the cart stays level) y' = exp(-2 mu t / (eps M))
    (it was exp(-mu t / (eps M)) to within the roll: 0.7016 for 0.7165 at t = 0.1, eps = 0.1)."""
    system = cart(com=(0.0, 0.0, -0.1), normal_coefficient=1e6)
    assert sp.Matrix(system.friction_coefficients) == sp.diag(1.0, 2.0, 1.0, 1e6)
    assert system.contact_slip_rows.contacts == [[0, 1], [2, 3]] and system.contact_slip_rows.repeated == [1]
    run = nh.simulate(system.friction(0.1), (0, 0.1), sliding_sideways(), t_eval=[0.1], rtol=1e-10, atol=1e-12)
    assert abs(run["y_dot"][-1] - np.exp(-2 * 0.1 / (0.1 * 6.0))) < 1e-5
    assert np.allclose(run["slip"][:, -1], run["slip"][0, -1])  # both wheels slip sideways alike
    import pickle

    again = pickle.loads(pickle.dumps(system))
    assert again.contact_slip_rows.combination == system.contact_slip_rows.combination


@pytest.fixture(scope="module")
def turning():
    """The cart of the Mechanism docstring turning on the spot (wheels at +-3 rad/s, yaw rate 2): the
    chassis' centre of mass, c = 0.08 off the axle's middle along it, needs M_c Omega^2 c = 1.6 N
    sideways, shared by both wheels; the loads are the statics with the centripetal moment."""
    system = cart()
    y0 = assemble(system, np.zeros(7), np.r_[0, 0, 0, 0, 0, 3.0, -3.0], dependent=["roll"],
                  free=["pitch_dot", "theta_l_dot", "theta_r_dot"])
    omega = abs(y0[9])
    W, moment = 6.0 * G, 5.0 * 0.08 * (G + omega**2 * (0.2 - 0.1)) / 0.3
    return system, y0, [(W + moment) / 2, (W - moment) / 2], 5.0 * omega**2 * 0.08


def test_a_turning_cart_sticks_while_both_cones_carry_the_force(turning):
    """Both cones together carry the 1.6 N for mu >= 1.6 / (N_l + N_r) = 0.0272: at mu = 0.035 the cart
    rolls on (it slid: only the left wheel's cone counted, mu >= 0.0442), at mu = 0.02 both wheels slide.
    The force is split in proportion to the loads; the margin is N_r (mu - 1.6 / W)."""
    system, y0, loads, needed = turning
    W = sum(loads)
    run = nh.simulate(system.stick_slip(0.035, normal=loads), (0, 0.5), y0, rtol=1e-10, atol=1e-12)
    assert run.modes == ["stick,stick"] and not run.switches
    assert np.allclose(run["friction_force"][:, -1], [needed * N / W for N in loads], rtol=1e-9)
    assert nh.simulate(system.stick_slip(0.02, normal=loads), (0, 0.5), y0, rtol=1e-10, atol=1e-12).modes[0] \
        == "slip,slip"
    rolling = nh.simulate(system.nonholonomic(), (0, 0.5), y0, t_eval=[0, 0.5], rtol=1e-10, atol=1e-12)
    assert np.allclose(rolling["normal_force"][:, 0], loads, rtol=1e-9)
    assert np.allclose(rolling["friction_force"][:, 0], [needed * N / W for N in loads], rtol=1e-9)
    for margin in (system.friction_margin(0.035, normal=loads), system.friction_margin(0.035)):
        assert np.allclose(margin.of(rolling), loads[1] * (0.035 - needed / W), rtol=1e-9)


def test_the_second_wheel_sticks_alone_on_its_own_rows(turning):
    """The left wheel spun up (slipping forward) slides while the right one sticks: that mode keeps the
    right wheel's sideways row, which the System dropped, and its slip stays zero; both then stick."""
    system, y0, _, _ = turning
    y0 = y0.copy()
    y0[7 + 5] += 1.0
    model = system.stick_slip(0.3, normal=[30.0, 29.0])
    run = nh.simulate(model, (0, 1), y0, rtol=1e-10, atol=1e-12)
    assert run.success and run.modes == ["slip,stick", "stick,stick"]
    phase = run.phases[0]
    assert max(np.abs(model.slips(t, phase.y[:, i])[1]).max() for i, t in enumerate(phase.t)) < 1e-10
    assert abs(run["friction_force"][0, 0] - 0.3 * 30.0) < 1e-12


def test_models_on_the_systems_rows_alone_refuse_a_repeated_contact():
    """reduced(law=...) realizes friction on the System's rows (its slow manifold): it would leave the
    right wheel's sideways friction out, and says so."""
    with pytest.raises(ValueError, match="rows of contact 'right' of 'mechanism' repeat other contacts'"):
        cart().reduced(law=nh.laws.Coulomb(0.5, v_s=1e-2), normal=30.0)


def test_without_the_rows_combination_the_linear_law_refuses(monkeypatch):
    """Where the repeated rows' combination T of the kept ones cannot be built, friction(eps) (and the
    split of a shared force) would leave the repeated contact out: refused by name; a law, on every
    contact's own rows, needs no T."""
    import nonholo.builders.multibody as multibody

    monkeypatch.setattr(multibody, "row_combination", lambda *args: (None, [np.eye(5)[:, [0, 1, 2, 4]]]))
    system = cart(com=(0.0, 0.0, -0.1))
    for call in (lambda: system.friction(0.1), lambda: system.reduced(0.1),
                 lambda: system.friction_margin(0.5, normal=30.0)):
        with pytest.raises(ValueError, match="contact 'right' repeat other contacts'"):
            call()
    with pytest.raises(ValueError, match="contacts= groups the System's rows .* contact 'right'"):
        system.friction(law=nh.laws.Coulomb(0.5, v_s=1e-4), normal=30.0, contacts=[[0, 1], [2]])
    W = 6.0 * G
    run = nh.simulate(system.friction(law=nh.laws.Coulomb(0.5, v_s=1e-4), normal=W / 2), (0, 0.1),
                      sliding_sideways(), t_eval=[0.1], rtol=1e-10, atol=1e-12)
    assert abs(run["y_dot"][-1] - (1 - 0.5 * G * 0.1)) < 1e-6


def test_a_mechanisms_lengths_masses_and_wheel_inertias_are_checked_at_the_parameters_values():
    """A disc of symbolic radius rw on a revolute axle: rw = -0.5 at build time or at run time is
    refused by name (it rolled backwards below the plane, energy -4.155), as roll_on_plane refuses it;
    so is a negative mass, and a rolling wheel without inertia (the metric failed at pivot 5, naming no
    body)."""
    rw, mw = sp.symbols("rw mw")

    def mechanism(wheel_body):
        mech = Mechanism(RigidBody(3.0, (0.07, 0.05, 0.06), (0, 0, -0.1)), "chassis")
        mech.add("disc", wheel_body, "chassis", Revolute("y", (0, 0, 0), "theta"))
        mech.roll_on_plane("disc", Disc(rw, axis=(0, 1, 0)))
        return mech

    disc = RigidBody(mw, (0.005, 0.01, 0.005))
    with pytest.raises(ValueError, match=r"radius of 'disc' = rw must be positive and finite, got -0.5"):
        mechanism(disc).system(gravity=G, parameters={rw: -0.5, mw: 1.0})
    with pytest.raises(ValueError, match=r"mass of 'disc' = mw must be positive and finite, got -1"):
        mechanism(disc).system(gravity=G, parameters={rw: 0.5, mw: -1.0})
    system = mechanism(disc).system(gravity=G, parameters={rw: 0.5, mw: 1.0})
    with pytest.raises(ValueError, match=r"radius of 'disc' = rw must be positive and finite, got -0.5 at params"):
        nh.simulate(system.nonholonomic(), (0, 1), np.zeros(2 * system.n), params={"rw": -0.5})
    run = nh.simulate(system.nonholonomic(), (0, 1), np.zeros(2 * system.n))  # the default: at rest, upright
    assert run.success and np.abs(run.q).max() < 1e-12
    with pytest.raises(ValueError, match=r"inertia of 'disc' must be positive definite for a body rolling"):
        mechanism(RigidBody(0.5, (0.0, 0.0, 0.0))).system(gravity=G, parameters={rw: 0.5})
