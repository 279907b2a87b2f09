"""The Whipple bicycle built from bodies and contacts (nonholo.multibody), against the benchmark
of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463, 2007) and against the
independent build of SymPy's KanesMethod (tests/test_bicycle_kane.py).
"""

import re

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.builders.multibody import Mechanism, Revolute, assemble
from nonholo.systems.whipple_bicycle import upright_state, whipple_bicycle

# Meijaard et al. 2007, section 4 and table 2 (14 digits)
WEAVE_SPEED, CAPSIZE_SPEED = 4.29238253634111, 6.02426201538837
TABLE_2 = {
    0.0: [-5.53094371765393, -3.13164324790656, 3.13164324790656, 5.53094371765393],
    4.0: [-12.15861426576447, -1.42944427361326, 0.41325331521125 - 3.07910818603206j,
          0.41325331521125 + 3.07910818603206j],
    5.0: [-14.07838969279822, -0.32286642900409, -0.77534188219585 - 4.46486771378823j,
          -0.77534188219585 + 4.46486771378823j],
    10.0: [-24.62459635017404, 0.16105338653172, -3.72016840437287 - 10.90681139476287j,
           -3.72016840437287 + 10.90681139476287j],
}


@pytest.fixture(scope="module")
def bicycle():
    return whipple_bicycle()


@pytest.fixture(scope="module")
def model(bicycle):
    return bicycle.nonholonomic()


def _sorted(lam):
    lam = np.asarray(lam, complex)
    return lam[np.lexsort((lam.imag, lam.real))]


@pytest.mark.parametrize("speed", sorted(TABLE_2))
def test_upright_eigenvalues_are_the_benchmark_table(bicycle, model, speed):
    """Straight upright running: four physical eigenvalues (weave pair or the two inverted
    pendulum modes, capsize, castering) equal to the table's 14 digits to 1e-8 (absolute); the
    zero modes include the four cyclic coordinates x, y and the wheel angles (absent from the
    expressions: the wheels are described in their frames' axes)."""
    lin = nh.linearize(model, upright_state(bicycle, speed))
    lam = lin.physical_eigenvalues
    assert lam.size == 4
    assert sum(z.multiplicity for z in lin.zero_modes if z.kind == "cyclic") == 4
    assert np.abs(_sorted(lam) - _sorted(TABLE_2[speed])).max() < 1e-8


def test_position_is_the_rear_contact_point(bicycle):
    """x, y locate Meijaard's rear contact point P: leaning and turning (yaw' != 0) at speed v
    with the roll and steer held, P moves at v along the heading (the rear hub would not)."""
    y = upright_state(bicycle, 5.0, roll=0.3, steer=0.2)
    names = bicycle.coordinate_names
    assert abs(y[bicycle.n + names.index("yaw")]) > 0.5
    assert y[bicycle.n + names.index("x")] == pytest.approx(5.0, abs=1e-12)
    assert abs(y[bicycle.n + names.index("y")]) < 1e-12


def test_weave_and_capsize_speeds_are_the_benchmark(bicycle, model):
    found = nh.critical_values(model, "speed", np.linspace(3.0, 7.0, 9), lambda v: upright_state(bicycle, v))
    assert [c.kind for c in found] == ["hopf", "divergence"]
    assert [c.direction for c in found] == ["stabilizing", "destabilizing"]
    assert abs(found[0].value - WEAVE_SPEED) < 1e-8 and abs(found[1].value - CAPSIZE_SPEED) < 1e-8


# ---------------------------------------------------------------- nonlinear runs
def _roll(bicycle, result):
    return result.q[bicycle.coordinate_names.index("roll")]


def test_self_stable_at_4_6_m_s(bicycle, model):
    """In the stable speed range (4.29 < v < 6.02 m/s) a roll-rate kick dies out."""
    res = nh.simulate(model, (0.0, 12.0), upright_state(bicycle, 4.6, roll_rate=0.5), rtol=1e-9, atol=1e-11,
                      t_eval=np.linspace(0, 12, 601))
    roll = np.abs(_roll(bicycle, res))
    assert roll[:100].max() > 0.02 and roll[-100:].max() < 0.1 * roll[:100].max()
    assert np.abs(res.constraint_residual()).max() < 1e-8


def test_falls_at_2_m_s(bicycle, model):
    """Below the weave speed the same kick grows until the bicycle falls over."""
    roll = sp.Symbol("roll")
    res = nh.simulate(model, (0.0, 10.0), upright_state(bicycle, 2.0, roll_rate=0.5), rtol=1e-9, atol=1e-11,
                      events=[nh.Event(roll**2 - 0.5**2, terminal=True)])
    assert abs(_roll(bicycle, res)[-1]) == pytest.approx(0.5, abs=1e-6) and res.t[-1] < 10.0


# ---------------------------------------------------------------- the general mechanism
def test_cart_with_two_wheels_rolls_straight_and_turns_on_the_spot():
    """A two-wheeled cart (chassis below the axle, wheels on revolute joints): the second wheel's
    contact fixes the roll; equal wheel speeds roll it straight (x' = -r theta'), opposite ones
    turn it on the spot (yaw' = r theta' / b), and energy is conserved."""
    r, b = 0.2, 0.3
    cart = Mechanism(nh.bodies.RigidBody(5.0, (0.2, 0.1, 0.25), (0.0, 0.0, -0.1)), "chassis")
    for side, s in (("left", 1), ("right", -1)):
        cart.add(f"{side} wheel", nh.bodies.RigidBody(0.5, (0.005, 0.01, 0.005)), "chassis",
                 Revolute("y", (0, s * b, 0), f"theta_{side[0]}"))
        cart.roll_on_plane(f"{side} wheel", nh.surfaces.Disc(r, axis=(0, 1, 0)))
    system = cart.system()
    assert system.coordinate_names == ["x", "y", "yaw", "roll", "pitch", "theta_l", "theta_r"]
    # the two wheels' sideways no-slip rows coincide (both say the axle moves along the heading): one is dropped
    assert system.k == 4 and len(system.holonomic) == 1
    q = np.zeros(7)
    free = ["pitch_dot", "theta_l_dot", "theta_r_dot"]
    straight = assemble(system, q, np.r_[0, 0, 0, 0, 0, 2.0, 2.0], dependent=["roll"], free=free)
    assert straight[7] == pytest.approx(r * 2.0, rel=1e-12) and abs(straight[9]) < 1e-12
    spin = assemble(system, q, np.r_[0, 0, 0, 0, 0, 1.0, -1.0], dependent=["roll"], free=free)
    assert spin[9] == pytest.approx(-r / b, rel=1e-12) and abs(spin[7]) < 1e-12
    rocking = assemble(system, q, np.r_[0, 0, 0, 0, 0.5, 2.0, 1.0], dependent=["roll"], free=free)
    res = nh.simulate(system.nonholonomic(), (0, 3), rocking, rtol=1e-10, atol=1e-12)
    E = res.energy()
    assert np.abs(E - E[0]).max() < 1e-8 * abs(E[0])


def test_bad_input_names_the_argument():
    body = nh.bodies.RigidBody(1.0, (1, 1, 1))
    with pytest.raises(TypeError, match="root"):
        Mechanism("chassis")
    with pytest.raises(ValueError, match="down"):
        Mechanism(body, down="x")
    mech = Mechanism(body, "chassis")
    with pytest.raises(ValueError, match="parent"):
        mech.add("wheel", body, "nowhere", Revolute("y", (0, 0, 0), "theta"))
    with pytest.raises(ValueError, match="unique"):
        mech.add("wheel", body, "chassis", Revolute("y", (0, 0, 0), "yaw"))
    with pytest.raises(ValueError, match="axis"):
        mech.add("wheel", body, "chassis", Revolute((0, 0, 0), (0, 0, 0), "theta"))
    with pytest.raises(ValueError, match="contact"):
        mech.system()
    with pytest.raises(ValueError, match="unknown bicycle parameters"):
        whipple_bicycle(wheel_base=1.0)
    with pytest.raises(ValueError, match="rF must be a positive"):
        whipple_bicycle(rF=-0.35)


def test_tricycle_two_holonomic_contacts_conserve_energy():
    """A tricycle (rear axle with two wheels, a steered front wheel on a fork): the second and
    third contacts fix roll and pitch (two holonomic constraints), two degrees of freedom of
    velocity remain (drive and steer); energy is conserved and h(q) stays at integration error."""
    r, b = 0.2, 0.3
    tri = Mechanism(nh.bodies.RigidBody(10.0, (0.5, 1.0, 1.2), (0.3, 0.0, 0.1)), "chassis")
    for side, s in (("left", 1), ("right", -1)):
        tri.add(side, nh.bodies.RigidBody(0.5, (0.005, 0.01, 0.005)), "chassis",
                Revolute("y", (0, s * b, 0), f"theta_{side[0]}"))
        tri.roll_on_plane(side, nh.surfaces.Disc(r, axis=(0, 1, 0)))
    tri.add("fork", nh.bodies.RigidBody(1.0, (0.01, 0.01, 0.01), (0, 0, -0.05)), "chassis",
            Revolute("z", (0.8, 0, 0.1), "steer"))
    tri.add("front", nh.bodies.RigidBody(0.5, (0.005, 0.01, 0.005)), "fork", Revolute("y", (0, 0, -0.1), "theta_f"))
    tri.roll_on_plane("front", nh.surfaces.Disc(r, axis=(0, 1, 0)))
    system = tri.system()
    assert system.n - system.k == 2 and len(system.holonomic) == 2
    names = system.coordinate_names
    q, v = np.zeros(system.n), np.zeros(system.n)
    q[names.index("steer")], v[names.index("theta_l")], v[names.index("steer")] = 0.3, 3.0, 0.5
    y0 = assemble(system, q, v, dependent=["roll", "pitch"], free=["theta_l_dot", "steer_dot"])
    res = nh.simulate(system.nonholonomic(), (0, 3), y0, rtol=1e-10, atol=1e-12)
    E = res.energy()
    assert res.status == 0 and np.abs(E - E[0]).max() < 1e-8 * E[0]
    h = sp.lambdify(system.coordinates, list(system.holonomic))
    assert max(np.abs(h(*qt)).max() for qt in res.q.T) < 1e-8
    assert abs(res.q[names.index("yaw"), -1]) > 0.5  # it turned


def test_friction_realization_tends_to_the_rolling_bicycle():
    """system.friction(eps) with a stiff normal coefficient (the front wheel's normal row): the
    contact height stays at O(eps / mu_n) and the run tends to the nonholonomic one as eps -> 0."""
    bike = whipple_bicycle(normal_coefficient=1e4)
    y0 = upright_state(bike, 4.6, roll_rate=0.5)
    h = sp.lambdify(bike.coordinates, bike.holonomic[0])
    i = bike.coordinate_names.index("roll")
    rolling = nh.simulate(bike.nonholonomic(), (0, 5), y0, rtol=1e-10, atol=1e-12).q[i, -1]
    errors = []
    for eps in (1e-3, 1e-5):
        res = nh.simulate(bike.friction(eps), (0, 5), y0, rtol=1e-9, atol=1e-11)
        assert max(abs(h(*q)) for q in res.q.T) < 1.0 * eps
        errors.append(abs(res.q[i, -1] - rolling))
    assert errors[1] < 0.02 * errors[0]


def test_bicycle_animates_and_pickles(bicycle, model):
    """The mechanism's drawing (wheels as discs, frames as sticks) animates a run and pickles."""
    import pickle

    res = nh.simulate(model, (0, 1), upright_state(bicycle, 4.0, roll_rate=0.3), t_eval=np.linspace(0, 1, 5))
    anim = res.animate(frames=3)
    assert anim.n_frames == 3 and len(re.findall(r"frames\[\d+\] = ", anim.to_jshtml())) == 3
    clone = pickle.loads(pickle.dumps(bicycle))
    shapes = clone.drawing.shapes(res.q[:, -1], 1.0, {})
    # rear frame, front frame (sticks and centres of mass), two wheels (disc and spokes): drawn z up
    assert [s.kind for s in shapes] == ["line", "dot", "line", "dot", "polygon", "line", "polygon", "line"]
    assert shapes[1].points[0, 2] > 0.5  # the rider's centre of mass is above the ground


def test_one_body_mechanism_is_the_rolling_disc():
    """A uniform disc as a mechanism of one body (yaw, roll, spin about its axle): upright rolling
    becomes stable at the closed-form spin sqrt(m g r A / (C (C + m r^2)))."""
    from nonholo.systems.rolling_disc import upright_critical_spin

    m, r, g = 1.0, 0.5, 9.81
    A, C = m * r**2 / 4, m * r**2 / 2
    disc = Mechanism(nh.bodies.RigidBody(m, (A, C, A)), "disc", attitude=(("yaw", "z"), ("roll", "x"), ("spin", "y")))
    disc.roll_on_plane("disc", nh.surfaces.Disc(r, axis=(0, 1, 0)))
    system = disc.system(gravity=g)
    assert system.coordinate_names == ["x", "y", "yaw", "roll", "spin"] and system.k == 2 and not system.holonomic

    def upright(w):
        return assemble(system, np.zeros(5), np.r_[0, 0, 0, 0, w], free=["yaw_dot", "roll_dot", "spin_dot"])

    assert upright(2.0)[5] == pytest.approx(r * 2.0, rel=1e-14)  # x' = r spin'
    found = nh.critical_values(system.nonholonomic(), "spin", np.linspace(1.0, 6.0, 11), upright)
    assert len(found) == 1 and found[0].direction == "stabilizing"
    assert abs(found[0].value - upright_critical_spin(m, r, A, C, g)) < 1e-9


def test_ellipsoid_mechanism_reverses_like_the_rattleback():
    """Kane and Levinson's rattleback as a one-body mechanism in Euler angles (yaw, roll, pitch;
    the ellipsoid through the general support map r_c(R^T down)): from their initial data the
    spin about the body's vertical axis reverses at 2.3527310191 s, the time of the quaternion
    model and of the independent Kane build (benchmarks/rolling_bodies.py)."""
    from nonholo.builders.bodies import rotation_matrices
    from nonholo.builders.contact import body_angular_velocity
    from nonholo.systems.rattleback import KANE_LEVINSON as p
    from nonholo.systems.rattleback import kane_levinson_state

    inertia = p["m"] * np.array([[p["A"], -p["D"], 0], [-p["D"], p["B"], 0], [0, 0, p["C"]]])
    mech = Mechanism(nh.bodies.RigidBody(p["m"], inertia, (0, 0, -p["h"])), "rattleback")
    mech.roll_on_plane("rattleback", nh.surfaces.Ellipsoid(p["a"], p["b"], p["c"]))
    system = mech.system(gravity=p["g"])
    y_ref = kane_levinson_state(nh.systems.rattleback())
    R = rotation_matrices(y_ref[2:6])  # = Rz(yaw) Rx(roll) Ry(pitch)
    roll, pitch, yaw = np.arcsin(R[2, 1]), np.arctan2(-R[2, 0], R[2, 2]), np.arctan2(-R[0, 1], R[1, 1])

    def rates_to_omega(roll, pitch):  # body angular velocity = W (yaw', roll', pitch')
        return np.array([[-np.cos(roll) * np.sin(pitch), np.cos(pitch), 0.0], [np.sin(roll), 0.0, 1.0],
                         [np.cos(roll) * np.cos(pitch), np.sin(pitch), 0.0]])

    omega = body_angular_velocity(y_ref[:6, None], y_ref[6:, None])[:, 0]
    rates = np.linalg.solve(rates_to_omega(roll, pitch), omega)
    y0 = assemble(system, [0, 0, yaw, roll, pitch], np.r_[0, 0, rates], free=["yaw_dot", "roll_dot", "pitch_dot"])
    t = np.linspace(2.34, 2.36, 2001)
    res = nh.simulate(system.nonholonomic(), (0, 2.36), y0, t_eval=t, rtol=1e-11, atol=1e-13)
    w3 = np.array([rates_to_omega(q[3], q[4])[2] @ v[2:] for q, v in zip(res.q.T, res.v.T)])
    k = np.nonzero((w3[:-1] > 0) & (w3[1:] <= 0))[0][0]
    reversal = t[k] - w3[k] * (t[k + 1] - t[k]) / (w3[k + 1] - w3[k])
    assert abs(reversal - 2.3527310191) < 1e-7  # as the benchmark checks the two other builds
