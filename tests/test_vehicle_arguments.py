"""The vehicle systems and the mechanism builder refuse impossible arguments by name, at once.

The rule: a bad value raises ValueError or TypeError naming the argument before anything is
built; never a bare ZeroDivisionError or KeyError, never a hang in the integrator, never a silent
result. Each group also runs a valid call against a number known in closed form or from the
literature (the benchmark bicycle's weave speed, the single-track car's yaw-rate gain, ...).
"""

import importlib
import math
import time

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import brentq

import nonholo as nh
from nonholo.builders.multibody import Mechanism, Revolute, assemble
from nonholo.control.kinematic import KinematicSystem
from nonholo.systems.whipple_bicycle import upright_state

car_module = importlib.import_module("nonholo.systems.single_track_car")
NAN, INF = math.nan, math.inf
BAD = (ValueError, TypeError)


# ---------------------------------------------------------------- the linear Whipple bicycle

@pytest.mark.parametrize("kwargs, name", [
    (dict(w=NAN), "w"), (dict(w=0.0), "w"), (dict(w=-1.02), "w"), (dict(w=True), "w"), (dict(w=INF), "w"),
    (dict(c=NAN), "c"), (dict(c="0.08"), "c"), (dict(lam=NAN), "lam"), (dict(lam=math.pi / 2), "lam"),
    (dict(g=NAN), "g"), (dict(g=0.0), "g"), (dict(g=-9.81), "g"), (dict(speed=True), "speed"),
    (dict(max_torque=NAN), "max_torque"), (dict(max_torque=True), "max_torque"),
])
def test_linear_bicycle_refuses_bad_arguments_by_name(kwargs, name):
    """w = NaN built and then hung in simulate; w = 0 gave psi' = zoo (...) and KeyError 'ComplexInfinity'."""
    with pytest.raises(BAD, match=rf"^{name}\b"):
        nh.systems.whipple_bicycle_linear(**kwargs)


def _weave_real_part(speed: float) -> float:
    """The largest real part of the oscillatory (weave) eigenvalues of the roll-steer block at ``speed``."""
    ks = nh.systems.whipple_bicycle_linear(speed=speed)
    J = np.array(ks.rhs[:4, :].jacobian(ks.states[:4]).subs({s: 0 for s in ks.states + ks.controls}), dtype=float)
    eig = np.linalg.eigvals(J)
    return float(max(e.real for e in eig if abs(e.imag) > 1e-9))


def test_linear_bicycle_default_weave_speed_and_a_self_stable_run():
    """The weave speed of the benchmark (Meijaard et al. 2007, 4.29238253634111 m/s): the weave
    pair crosses the imaginary axis there; at 5 m/s (self-stable) a roll of 0.1 rad decays."""
    weave = brentq(_weave_real_part, 4.0, 4.5, xtol=1e-12)
    assert weave == pytest.approx(4.29238253634111, abs=1e-8)
    ks = nh.systems.whipple_bicycle_linear()
    run = ks.simulate((0, 10), [0.1, 0, 0, 0, 0, 0], lambda t: [0.0])
    assert run.success and np.all(np.isfinite(run.y_final))
    assert abs(run.y_final[0]) < 0.01


# ---------------------------------------------------------------- KinematicSystem.simulate

def test_kinematic_simulate_refuses_a_non_finite_start():
    car = nh.systems.kinematic_car()
    with pytest.raises(ValueError, match="y0 must be finite"):
        car.simulate((0, 1), [0, NAN, 0], lambda t: [1.0, 0.5])
    with pytest.raises(ValueError, match="controls must be finite"):
        car.simulate((0, 1), [0, 0, 0], lambda t: [1.0, NAN])
    with pytest.raises(ValueError, match="controls give 1 values"):
        car.simulate((0, 1), [0, 0, 0], lambda t: [1.0])
    y, w = sp.symbols("y w")
    with pytest.raises(ValueError, match=r"f\(y0, w\(t0\)\).*not finite at the start"):
        KinematicSystem([y], [w], [w / y]).simulate((0, 1), [0.0], lambda t: [1.0])
    with pytest.raises(ValueError, match="right-hand side .* is not finite"):  # a symbolic zoo: was KeyError
        KinematicSystem([y], [w], [sp.zoo * w]).simulate((0, 1), [0.0], lambda t: [1.0])


def test_kinematic_simulate_stops_when_the_rhs_turns_non_finite():
    """A NaN derivative during the run made DOP853 shrink its step forever; now the run ends,
    success False, with the time in the message."""
    car = nh.systems.kinematic_car()
    start = time.perf_counter()
    run = car.simulate((0, 1), [0, 0, 0], lambda t: [1.0, NAN if t > 0.5 else 0.5])
    assert time.perf_counter() - start < 10
    assert not run.success and run.status == -1 and "non-finite" in run.message and run.y_final is None
    y, w = sp.symbols("y w")
    with pytest.warns(RuntimeWarning):  # sqrt of a negative number, past y = 1 (reached at t = 2)
        run = KinematicSystem([y], [w], [sp.sqrt(1 - y)]).simulate((0, 3), [0.0], lambda t: [0.0])
    assert not run.success and "non-finite" in run.message
    good = car.simulate((0, 1), [0, 0, 0], lambda t: [1.0, 0.5], t_eval=[1.0])  # a circle of radius 2
    assert good.success
    np.testing.assert_allclose(good.y_final, [2 * np.sin(0.5), 2 * (1 - np.cos(0.5)), 0.5], atol=1e-9)


# ---------------------------------------------------------------- the single-track car

@pytest.mark.parametrize("kwargs, name", [
    (dict(l_f=-1.2), "l_f"), (dict(l_f=1.2, l_r=-1.2), "l_r"), (dict(l_f=0.0, l_r=0.0), "the wheelbase"),
    (dict(k_d=-1500.0), "k_d"), (dict(m=NAN), "m"), (dict(m=-1500.0), "m"), (dict(I_z=0.0), "I_z"),
    (dict(C_f=-8e4), "C_f"), (dict(C_r=0.0), "C_r"), (dict(U=NAN), "U"), (dict(delta=INF), "delta"),
    (dict(m=True), "m"),
])
def test_single_track_car_refuses_bad_arguments_by_name(kwargs, name):
    with pytest.raises(BAD, match=rf"^{name}\b"):
        nh.systems.single_track_car(**kwargs)


CAR = (1500.0, 1.2, 1.4, 8e4, 8e4)  # m, l_f, l_r, C_f, C_r: the default car


@pytest.mark.parametrize("call, name", [
    (lambda: car_module.tire_eps(-10.0, 8e4, 8e4), "U"),
    (lambda: car_module.tire_eps(0.0, 8e4, 8e4), "U"),
    (lambda: car_module.tire_eps(NAN, 8e4, 8e4), "U"),
    (lambda: car_module.tire_eps(10.0, NAN, 8e4), "C_f"),
    (lambda: car_module.understeer_gradient(1500, 0.0, 0.0, 8e4, 8e4), "the wheelbase"),
    (lambda: car_module.understeer_gradient(-1500, 1.2, 1.4, 8e4, 8e4), "m"),
    (lambda: car_module.understeer_gradient(1500, 1.2, 1.4, -8e4, 8e4), "C_f"),
    (lambda: car_module.understeer_gradient(1500, -1.2, 1.4, 8e4, 8e4), "l_f"),
    (lambda: car_module.characteristic_speed(NAN, 1.2, 1.4, 8e4, 8e4), "m"),
    (lambda: car_module.characteristic_speed(1500, 1.2, 1.4, 0.0, 8e4), "C_f"),
    (lambda: car_module.characteristic_speed(1500, 1.2, 1.4, 8e4, True), "C_r"),
    (lambda: car_module.yaw_rate_gain(10.0, 1500, 1.2, 1.4, -8e4, 8e4), "C_f"),
    (lambda: car_module.yaw_rate_gain(NAN, *CAR), "U"),
    (lambda: car_module.yaw_rate_gain("10", *CAR), "U"),
    (lambda: car_module.reduced_yaw_rate_gain(10.0, -1, *CAR), "order"),
    (lambda: car_module.reduced_yaw_rate_gain(10.0, 1, 1500, 1.2, 1.4, 8e4, NAN), "C_r"),
])
def test_single_track_functions_refuse_bad_arguments_by_name(call, name):
    """Were: ZeroDivisionError (L = 0, C_f = 0), NaN back (m = NaN), a negative eps (U < 0), and
    negative stiffnesses or masses accepted."""
    with pytest.raises(BAD, match=rf"^{name}\b"):
        call()


def test_single_track_steady_yaw_rate_gain_at_10_m_per_s():
    """r / delta = v / (L (1 + K v^2 / L)), K = (m / L)(l_r / C_f - l_f / C_r), of the default car:
    the formula, and the friction model run to steady state on linear tires."""
    m, l_f, l_r, C_f, C_r = CAR
    L = l_f + l_r
    K = m / L * (l_r / C_f - l_f / C_r)
    assert car_module.understeer_gradient(*CAR) == pytest.approx(K, rel=1e-14)
    assert car_module.yaw_rate_gain(10.0, *CAR) == pytest.approx(10.0 / (L * (1 + K * 100.0 / L)), rel=1e-14)
    assert car_module.yaw_rate_gain(10.0, *CAR) == pytest.approx(3.644008409250176, rel=1e-12)
    gains = car_module.yaw_rate_gain(np.array([5.0, 10.0]), *CAR)
    np.testing.assert_allclose(gains, [car_module.yaw_rate_gain(5.0, *CAR), car_module.yaw_rate_gain(10.0, *CAR)])
    car = nh.systems.single_track_car()  # delta = 0.01, U = 10
    run = nh.simulate(car.friction(car_module.tire_eps(10.0, C_f, C_r)), (0, 40), [0, 0, 0, 10, 0, 0], t_eval=[40.0],
                      rtol=1e-11, atol=1e-12, project_y0=True)
    u = run["x_dot"][-1] * np.cos(run["psi"][-1]) + run["y_dot"][-1] * np.sin(run["psi"][-1])
    assert run["psi_dot"][-1] / 0.01 == pytest.approx(u / L / (1 + K * 10.0 * u / L), rel=1e-3)


def test_single_track_oversteer_and_neutral_limits_are_documented_values():
    """characteristic_speed of an oversteering car is its critical speed, where the steady gain
    diverges (inf, not a ZeroDivisionError); a neutral-steering car has none (inf)."""
    over = (1200.0, 1.0, 1.5, 9.0e4, 5.0e4)
    K = car_module.understeer_gradient(*over)
    assert K < 0
    v_crit = car_module.characteristic_speed(*over)
    assert v_crit == pytest.approx(math.sqrt(2.5 / -K), rel=1e-14)
    assert car_module.yaw_rate_gain(v_crit, *over) == math.inf
    assert car_module.characteristic_speed(1500.0, 1.3, 1.3, 8e4, 8e4) == math.inf
    assert car_module.tire_eps(10.0, 8e4, 8e4) == pytest.approx(1.25e-4, rel=1e-14)


# ---------------------------------------------------------------- the platoon

@pytest.mark.parametrize("kwargs, name", [
    (dict(L=-1.0), "L"), (dict(L=0.0), "L"), (dict(k=-20.0), "k"), (dict(mu=0.0), "mu"), (dict(m=NAN), "m"),
    (dict(I=True), "I"), (dict(d=-0.1), "d"), (dict(k=INF), "k"),
])
def test_platoon_refuses_bad_arguments_by_name(kwargs, name):
    with pytest.raises(BAD, match=rf"^{name}\b"):
        nh.systems.platoon(3, **kwargs)


def test_platoon_in_line_at_rest_length_drives_uniformly():
    """Springs at their rest length, robots in a line along their headings: each moves at its speed."""
    system = nh.systems.platoon(2)
    y0 = system.initial_state(speed=1.0, perturbation=0.0)
    np.testing.assert_allclose(y0[:6], [0, 0, 0, -1.0, 0, 0])
    run = nh.simulate(system.nonholonomic(), (0, 1), y0, t_eval=[1.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(run.q[:, -1], [1.0, 0, 0, 0.0, 0, 0], atol=1e-9)


# ---------------------------------------------------------------- Mechanism and the Whipple bicycle

def _disc() -> Mechanism:
    mech = Mechanism(nh.bodies.RigidBody(2.0, (0.045, 0.09, 0.045)), "disc",
                     attitude=(("yaw", "z"), ("roll", "x"), ("spin", "y")))
    mech.roll_on_plane("disc", nh.surfaces.Disc(0.3, axis=(0, 1, 0)))
    return mech


@pytest.mark.parametrize("joint, name", [
    (Revolute("y", (0, NAN, 0), "th"), "joint 'th': origin"), (Revolute("y", (0, INF, 0), "th"), "joint 'th': origin"),
    (Revolute((NAN, 1, 0), (0, 0, 0), "th"), "joint 'th': axis"),
])
def test_revolute_refuses_non_finite_origin_and_axis_by_name(joint, name):
    """Was: ModelError "non-finite constant nan in an expression", naming nothing."""
    with pytest.raises(ValueError, match=f"^{name}"):
        _disc().add("p", nh.bodies.RigidBody(1.0, (1, 1, 1)), "disc", joint)


@pytest.mark.parametrize("kwargs, name, error", [
    (dict(gravity=NAN), "gravity", ValueError), (dict(gravity=-9.81), "gravity", ValueError),
    (dict(gravity=True), "gravity", TypeError), (dict(friction_coefficient=-1.0), "friction_coefficient", ValueError),
    (dict(friction_coefficient=0.0), "friction_coefficient", ValueError),
    (dict(friction_coefficient=NAN), "friction_coefficient", ValueError),
    (dict(normal_coefficient=-1.0), "normal_coefficient", ValueError),
])
def test_mechanism_system_refuses_bad_gravity_and_coefficients(kwargs, name, error):
    """gravity is g along ``down``, a magnitude: -9.81 pulled the mechanism off the plane and was accepted."""
    with pytest.raises(error, match=f"^{name}"):
        _disc().system(**kwargs)


def test_mechanism_rolling_disc_carries_its_weight():
    """The valid call: an upright disc rolling straight at spin rate -10 rad/s moves at r * 10
    m/s and its contact carries m g."""
    system = _disc().system(gravity=9.81)
    y0 = assemble(system, np.zeros(5), np.r_[0, 0, 0, 0, -10.0], free=["yaw_dot", "roll_dot", "spin_dot"])
    run = nh.simulate(system.nonholonomic(), (0, 1), y0, t_eval=[0, 1.0], rtol=1e-10, atol=1e-12)
    assert run.q[0, -1] == pytest.approx(-3.0, abs=1e-9)
    np.testing.assert_allclose(run["normal_force"], 2.0 * 9.81, rtol=1e-9)


@pytest.mark.parametrize("kwargs, name, error", [
    (dict(w=True), "w", TypeError), (dict(c=NAN), "c", ValueError), (dict(lam=NAN), "lam", ValueError),
    (dict(lam=math.pi / 2), "lam", ValueError), (dict(xB=INF), "xB", ValueError), (dict(mB="85"), "mB", TypeError),
    (dict(IRxx=-0.06), "mR, IRxx, IRyy", ValueError),
])
def test_whipple_bicycle_refuses_bad_parameters_by_name(kwargs, name, error):
    with pytest.raises(error, match=rf"bicycle parameters? {name}\b"):
        nh.systems.whipple_bicycle(**kwargs)


@pytest.fixture(scope="module")
def bike():
    return nh.systems.whipple_bicycle()


@pytest.mark.parametrize("kwargs, name", [
    (dict(speed=NAN), "speed"), (dict(speed=True), "speed"), (dict(speed=5.0, roll=INF), "roll"),
    (dict(speed=5.0, steer_rate=NAN), "steer_rate"),
])
def test_upright_state_refuses_non_finite_values_by_name(bike, kwargs, name):
    """upright_state(bike, nan) returned NaN velocities."""
    with pytest.raises(BAD, match=rf"^{name}\b"):
        upright_state(bike, **kwargs)


def test_upright_state_of_the_benchmark_bicycle(bike):
    """At 5 m/s: the rear contact moves at 5 m/s, the wheels spin at -v / r (r_R = 0.3, r_F = 0.35)."""
    velocities = dict(zip(bike.velocity_names, upright_state(bike, 5.0)[bike.n:]))
    assert velocities["x_dot"] == pytest.approx(5.0, abs=1e-12)
    assert velocities["theta_R_dot"] == pytest.approx(-5.0 / 0.3, rel=1e-12)
    assert velocities["theta_F_dot"] == pytest.approx(-5.0 / 0.35, rel=1e-12)
    assert abs(velocities["y_dot"]) < 1e-12 and abs(velocities["roll_dot"]) < 1e-12
