"""SymPy's Whipple bicycle (built as sympy/physics/mechanics/tests/test_kane3.py builds it) through
System.from_kanes_method with the default check_kinematics.

The model builds the rear wheel's rolling into its kinematics (the rear contact point has zero
velocity, the wheel centre gets its velocity from v2pt_theory with the wheel's frame), the front
contact point's velocity is the one of the front wheel's material point there, and the wheel spins
u3, u6 have no coordinates. Oracle: the eigenvalues of the upright, straight motion at 5 m/s of
the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463, 2007, table 2).

The system's default model integrates Kane's independent speeds (the Hamel model of the frame
q' = X_D(q) u_ind + w0(q)), whose dependent speeds are solved numerically (a pivoted LU of the
constraint coefficients C_dep at each evaluation): a symbolic solve gave 0/0 at the upright state
q = 0 (issue 40). The tests use that default; the q' model (``form="qdot"``) is checked where it is
the subject (its Jacobian, its vector field against the bicycle built from bodies).
"""

import numpy as np
import pytest

import sympy as sp

import nonholo as nh
from nonholo.builders.multibody import assemble
from nonholo.expressions.mechanics import kane_qdot
from nonholo.systems.whipple_bicycle import upright_state, whipple_bicycle, whipple_bicycle_kane

pytestmark = pytest.mark.slow  # SymPy's KanesMethod bicycle: about 15 s to build

# Meijaard et al. 2007, table 2 (v = 5 m/s): weave pair, capsize, castor.
BENCHMARK_EIGENVALUES_5MS = np.array([-14.07838969279822, -0.77534188219585 + 4.46486771378823j,
                                      -0.77534188219585 - 4.46486771378823j, -0.32286642900409])


@pytest.fixture(scope="module")
def bicycle():
    km, values = whipple_bicycle_kane(wheel_angles=False)
    return km, values, nh.System.from_kanes_method(km, values, name="Whipple bicycle")


def test_bicycle_is_accepted_with_wheel_angles_as_auxiliary_coordinates(bicycle):
    km, values, system = bicycle
    assert system.coordinate_names == ["q1", "q2", "q5", "q4", "u3_integral", "u6_integral"]
    assert system.k == 3  # the front contact: two no-slip conditions and the normal velocity


def upright(km, values, speed=5.0):
    """[q, q'] of the upright, straight run at ``speed`` (wheel spins speed / radius)."""
    q0 = np.zeros(6)
    u0 = np.array([0.0, speed / 0.3, 0.0, 0.0, 0.0, speed / 0.35])  # u_ind + u_dep = u2, u3, u5, u1, u4, u6
    return np.r_[q0, kane_qdot(km, q0, u0, values)]


def test_bicycle_upright_eigenvalues_match_the_benchmark_in_kanes_speeds(bicycle):
    """nh.linearize of the default model (Kane's speeds) at the upright state, given as [q, q']:
    the benchmark's four eigenvalues (weave, capsize, castor) within 1e-8; the frame is regular
    there (no NaN, as the symbolic solve had)."""
    km, values, system = bicycle
    model = system.nonholonomic()
    assert model.kind == "hamel" and model.state_names[6:] == ["u2", "u3", "u5"]
    X = system.speed_frame().matrix(np.zeros(6))
    assert np.all(np.isfinite(X)) and abs(np.linalg.det(X)) > 1e-3
    y0 = upright(km, values)
    lin = nh.linearize(model, y0)
    np.testing.assert_allclose(lin.state, system.speed_frame().state(y0[:6], y0[6:]), rtol=0, atol=1e-14)
    physical = np.sort_complex(lin.physical_eigenvalues)
    expected = np.sort_complex(BENCHMARK_EIGENVALUES_5MS)
    assert physical.size == 4 and np.abs(physical - expected).max() < 1e-8
    # the same from the state in speeds
    again = nh.linearize(model, lin.state)
    assert np.abs(np.sort_complex(again.physical_eigenvalues) - expected).max() < 1e-8


def test_bicycle_upright_jacobian_of_the_qdot_model_has_the_benchmark_eigenvalues(bicycle):
    """The q' model (form="qdot"): its Jacobian at the upright state has the benchmark's four
    eigenvalues to 1e-9 relative (the table's 14 digits); the other eight (yaw, the wheel angles,
    the pitch fixed by the contact, the directions off the constraints) are zero."""
    km, values, system = bicycle
    y0 = upright(km, values)
    model = system.nonholonomic(form="qdot")
    A, b = system.constraint_matrix(y0[:6])
    assert np.abs(A @ y0[6:] - b).max() < 1e-14
    eig = np.linalg.eigvals(model.jacobian(0.0, y0))
    # zero eigenvalues in Jordan blocks of size 2 come out as +-sqrt(round-off), about 1e-8
    physical = np.sort_complex(eig[np.abs(eig) > 1e-3])
    assert physical.size == 4 and np.abs(eig[np.abs(eig) <= 1e-3]).max() < 1e-6
    expected = np.sort_complex(BENCHMARK_EIGENVALUES_5MS)
    assert np.abs(physical - expected).max() < 1e-9 * np.abs(expected).max()


def test_bicycle_runs_in_kanes_speeds_from_a_perturbed_upright_state(bicycle):
    """A 2 s run of the default model from the upright state at 5 m/s with a roll rate of 0.5 rad/s,
    given as [q, q'], agrees with the q' model's within 1e-8 (coordinates and velocities), and the
    speeds of the result are Kane's."""
    km, values, system = bicycle
    frame = system.speed_frame()
    y0 = upright(km, values)
    u_ind = frame.state(y0[:6], y0[6:])[6:]  # u2 (roll rate), u3 (rear wheel), u5 (steer rate)
    u_ind[0] = 0.5
    y_qdot = np.r_[y0[:6], frame.velocity(y0[:6], u_ind)]
    model, ref_model = system.nonholonomic(), system.nonholonomic(form="qdot")
    t_eval = np.linspace(0.0, 2.0, 21)
    sol = nh.simulate(model, (0.0, 2.0), y_qdot, t_eval=t_eval, rtol=1e-12, atol=1e-12)
    ref = nh.simulate(ref_model, (0.0, 2.0), y_qdot, t_eval=t_eval, rtol=1e-12, atol=1e-12)
    assert sol.success and ref.success
    assert np.abs(sol.q[1]).max() > 1e-2  # it does roll
    assert np.abs(sol.q - ref.q).max() < 1e-8
    assert np.abs(sol.velocity - ref.velocity).max() < 1e-8
    np.testing.assert_allclose(sol["u1"], ref["u1"], rtol=0, atol=1e-8)


def test_whipple_bicycle_kane_with_wheel_angles_is_regular_upright():
    """nh.systems.whipple_bicycle_kane() (wheel angles as coordinates) through from_kanes_method with
    the defaults: the frame at q = 0 is finite (it had 9 NaN entries), and a run starts there."""
    km, values = whipple_bicycle_kane()
    system = nh.System.from_kanes_method(km, values, check_kinematics=False)
    model = system.nonholonomic()
    frame = system.speed_frame()
    q0 = np.zeros(system.n)
    assert np.all(np.isfinite(frame.matrix(q0)))
    v = np.zeros(system.n - system.k)
    v[list(model.state_names[system.n:]).index("u2")] = 0.3  # a roll rate
    sol = nh.simulate(model, (0.0, 0.5), np.r_[q0, v], rtol=1e-10, atol=1e-10)
    assert sol.success and sol.t[-1] == 0.5 and np.all(np.isfinite(sol.y))


def test_steer_torque_and_the_rear_contact_velocity():
    """whipple_bicycle_kane(steer_torque=True): the torque T_delta (a parameter, 0 by default) turns
    the fork in the steer angle's sense, and with it at 0 the upright straight run stays upright and
    straight; km.rear_contact_velocity is r_R (u3 + u4) (cos q1, sin q1), the speed along the heading."""
    km, values = whipple_bicycle_kane(steer_torque=True)
    system = nh.System.from_kanes_method(km, values, check_kinematics=False)
    model = system.nonholonomic()
    names = model.state_names
    y0 = np.zeros(len(names))
    y0[names.index("u3")] = 5.0 / 0.3  # 5 m/s
    free = nh.simulate(model, (0.0, 0.2), y0, rtol=1e-10, atol=1e-12)
    pushed = nh.simulate(model, (0.0, 0.2), y0, params={"T_delta": 1.0}, rtol=1e-10, atol=1e-12)
    assert np.abs(free["q5"]).max() < 1e-12 and np.abs(free["q2"]).max() < 1e-12
    assert pushed["q5"][-1] > 1e-3 and pushed["u5"][-1] > 0
    xd, yd = (sp.sympify(e).subs(values) for e in km.rear_contact_velocity)
    q1, u3, u4 = (sp.Function(nm)(sp.Symbol("t")) for nm in ("q1", "u3", "u4"))
    expected = [0.3 * (u3 + u4) * sp.cos(q1), 0.3 * (u3 + u4) * sp.sin(q1)]
    assert all(sp.simplify(a - b) == 0 for a, b in zip((xd, yd), expected))


# ---------------------------------------------------------------- the same bicycle from bodies and contacts
@pytest.fixture(scope="module")
def bodies():
    return whipple_bicycle()


# Kane's coordinates [q1, q2, q5, q4, u3_integral, u6_integral] (yaw, roll, steer, pitch, the rear
# and front wheel angles; z up, y left, steer about the steering axis pointing down) from those of
# the bicycle built from bodies (Meijaard's axes: z down, y right)
KANE_FROM_MEIJAARD = (("yaw", -1), ("roll", 1), ("steer", 1), ("pitch", -1), ("theta_R", -1), ("theta_F", -1))


def _to_kane(bodies, y):
    n = bodies.n
    idx = [bodies.coordinate_names.index(c) for c, _ in KANE_FROM_MEIJAARD]
    sign = np.array([s for _, s in KANE_FROM_MEIJAARD], float)
    return np.r_[sign * y[idx], sign * y[n + np.array(idx)]]


def _random_state(bodies, rng):
    names = bodies.coordinate_names
    q, v = np.zeros(bodies.n), np.zeros(bodies.n)
    for c, lo, hi in (("yaw", -3, 3), ("roll", -0.6, 0.6), ("steer", -0.8, 0.8), ("theta_R", -3, 3),
                      ("theta_F", -3, 3), ("x", -2, 2), ("y", -2, 2)):
        q[names.index(c)] = rng.uniform(lo, hi)
    for c in ("roll", "steer", "theta_R"):
        v[names.index(c)] = rng.uniform(-3, 3)
    return assemble(bodies, q, v, dependent=["pitch"], free=["roll_dot", "steer_dot", "theta_R_dot"])


def test_bodies_and_kane_builds_have_the_same_constraint_set_and_vector_field(bicycle, bodies):
    """At random states of the bicycle built from bodies and contacts (nonholo.multibody), mapped
    to Kane's coordinates: Kane's holonomic and velocity constraints hold, and the accelerations
    agree to 1e-12 (relative; they differ by about 1e-14)."""
    km, values, ksys = bicycle
    kmodel, model = ksys.nonholonomic(form="qdot"), bodies.nonholonomic()
    h = sp.lambdify([*ksys.coordinates, *ksys.parameters], sp.Matrix(ksys.holonomic))
    rng = np.random.default_rng(18)
    for _ in range(5):
        y = _random_state(bodies, rng)
        yk = _to_kane(bodies, y)
        assert abs(float(np.asarray(h(*yk[:6], *ksys.param_vector())).reshape(-1)[0])) < 1e-12
        A, b = ksys.constraint_matrix(yk[:6])
        assert np.abs(A @ yk[6:] - b).max() < 1e-12
        f = model.rhs(0.0, y)
        fk = kmodel.rhs(0.0, yk)
        mapped = _to_kane(bodies, f)
        assert np.abs(mapped - fk).max() < 1e-12 * max(1.0, np.abs(fk).max())


def test_bodies_and_kane_builds_have_the_same_linearization(bicycle, bodies):
    """The physical eigenvalues of the upright run at 3 m/s (weave unstable) agree to 1e-10."""
    km, values, ksys = bicycle
    lam = nh.linearize(bodies.nonholonomic(), upright_state(bodies, 3.0)).physical_eigenvalues
    yk = _to_kane(bodies, upright_state(bodies, 3.0))
    lam_k = nh.linearize(ksys.nonholonomic(), yk).physical_eigenvalues
    assert np.abs(np.sort_complex(lam) - np.sort_complex(lam_k)).max() < 1e-10 * np.abs(lam).max()
