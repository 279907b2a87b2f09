"""Reduced models of tire laws whose rolling speed is a function of the state: the single-track car
on Magic Formula tires, one law per axle (system.reduced(order=K, law=[rear, front], speed=...)).

The expansion is in the scale per unit speed, 1 / (B C D) of the first axle's law; against the
friction model of the same laws, the steady yaw rate of order K converges like (1 / B)^(K+1), and
the run warns where the friction model's time scales are too close for the expansion (at highway
speed on this car), where the reduced model is indeed far off."""

import math
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.models.law_reduced import RATIO_THRESHOLD
from nonholo.testing import loglog_slope

G, M, L_F, L_R = 9.81, 1500.0, 1.2, 1.4
L = L_F + L_R
LOADS = [M * G * L_F / L, M * G * L_R / L]  # rear, front
OPTS = dict(rtol=1e-10, atol=1e-12)


def car_and_laws(stiffer=1.0, U=20.0, delta=0.02):
    car = nh.systems.single_track_car(m=M, l_f=L_F, l_r=L_R, delta=delta, U=U)
    psi, x_dot, y_dot, psi_dot, d = (car.symbol(n) for n in ("psi", "x_dot", "y_dot", "psi_dot", "delta"))
    speed = [sp.cos(psi) * x_dot + sp.sin(psi) * y_dot,
             sp.cos(psi + d) * x_dot + sp.sin(psi + d) * y_dot + L_F * sp.sin(d) * psi_dot]
    laws = [nh.laws.MagicFormula(B=12.0 * stiffer, C=1.3, D=0.9), nh.laws.MagicFormula(B=10.0 * stiffer, C=1.3, D=0.9)]
    q = np.zeros(3)
    y0 = np.r_[q, car.project(q, np.array([U, 0.0, U * np.tan(delta) / L]))]  # turning without slip
    return car, laws, dict(normal=LOADS, speed=speed), y0


def yaw_rate(model, y0, T=10.0, params=None):
    return nh.simulate(model, (0, T), y0, t_eval=[T], params=params, **OPTS)["psi_dot"][-1]


def test_the_reduced_car_converges_with_order_K_plus_1_in_the_inverse_stiffness():
    """The stiffness factor k a parameter of the car (B = 12 k and 10 k): one model per order, run at
    k = 2, 4, 8; the error of the steady yaw rate falls like k^-(K+1) (measured slopes 0.93, 1.92,
    2.94)."""
    car, _, kw, y0 = car_and_laws()
    car = car.with_force([0, 0, 0], parameters={"k": 1.0})
    k = car.symbol("k")
    laws = [nh.laws.MagicFormula(B=12.0 * k, C=1.3, D=0.9), nh.laws.MagicFormula(B=10.0 * k, C=1.3, D=0.9)]
    friction = car.friction(law=laws, **kw)
    stiffness = np.array([2.0, 4.0, 8.0])
    reference = [yaw_rate(friction, y0, params={"k": x}) for x in stiffness]
    for order in (0, 1, 2):
        reduced = car.reduced(order=order, law=laws, **kw)
        np.testing.assert_allclose(reduced.eps, 1 / (12.0 * 1.3 * 0.9), rtol=1e-14)  # per unit speed, at k = 1
        errors = [abs(yaw_rate(reduced, y0, params={"k": x}) - r) for x, r in zip(stiffness, reference)]
        assert abs(loglog_slope(1 / stiffness, errors) - (order + 1)) < 0.3, (order, errors)


def test_the_reduced_car_warns_where_its_time_scales_merge():
    """At 10 m/s the fast (slip) and slow rates are 13 times apart and order 1 is within 1 %; at
    30 m/s only 2.4 times, the run warns, and its yaw rate is off by about a half. The friction
    ratio stays far from the cone's edge in both (the fold is not what goes wrong here)."""
    car, laws, kw, y0 = car_and_laws(U=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        slow = nh.simulate(car.reduced(order=1, law=laws, **kw), (0, 10), y0, t_eval=[10.0], **OPTS)
    assert not slow.warnings and np.all(slow.spectral_gap["delta"] < 0.1)
    assert abs(slow["psi_dot"][-1] / yaw_rate(car.friction(law=laws, **kw), y0) - 1) < 0.01
    car, laws, kw, y0 = car_and_laws(U=30.0)
    with pytest.warns(nh.SimulationWarning, match="outside the range where its expansion holds"):
        fast = nh.simulate(car.reduced(order=1, law=laws, **kw), (0, 10), y0, t_eval=[10.0], **OPTS)
    # only the time scales say so: the friction ratio stays below its own warning threshold
    assert np.all(fast.spectral_gap["delta"] > 0.3) and fast.friction_ratio.max() < RATIO_THRESHOLD
    assert len(fast.warnings) == 1
    assert abs(fast["psi_dot"][-1] / yaw_rate(car.friction(law=laws, **kw), y0) - 1) > 0.3


def test_one_law_per_contact_is_checked():
    car, laws, kw, y0 = car_and_laws()
    with pytest.raises(ValueError, match="3 laws for 2 contacts"):
        car.reduced(order=1, law=laws + laws[:1], **kw)
    with pytest.raises(ValueError, match="empty list"):
        car.reduced(order=1, law=[], **kw)
    with pytest.raises(TypeError, match=r"law\[1\] must be a nonholo.laws law"):
        car.slip(y0[:3], y0[3:], 1, law=[laws[0], "tire"], **kw)


def test_the_reduced_models_of_a_tire_law_keep_its_rolling_speed_positive():
    """A single-track car in plain SymPy on Magic Formula tires, each tire's speed its signed rolling
    speed. Braked by a constant force from 10 m/s, the friction model stops where a speed reaches zero
    (t about 5); the reduced model ran on through the reversal to t = 10 with status 0. Reversing at
    -8 m/s, the friction model refuses the start; the reduced model ran with the forward formula's yaw
    rate, r / delta = -2.971 for the reversing bicycle's -3.191."""
    x, y, psi = sp.symbols("x y psi")
    xd, yd, pd = sp.symbols("x_dot y_dot psi_dot")
    m, Iz, lf, lr, delta, g = 1500.0, 2500.0, 1.2, 1.4, 0.05, 9.81
    A = sp.Matrix([[-sp.sin(psi), sp.cos(psi), -lr],
                   [-sp.sin(psi + delta), sp.cos(psi + delta), lf * math.cos(delta)]])
    brake = sp.Matrix([sp.cos(psi), sp.sin(psi), 0]) * (-3000.0)
    car = nh.System([x, y, psi], sp.diag(m, m, Iz), constraints=A, force=brake, velocities=[xd, yd, pd])
    Vr = sp.cos(psi) * xd + sp.sin(psi) * yd
    Vf = sp.cos(psi + delta) * xd + sp.sin(psi + delta) * yd + lf * math.sin(delta) * pd
    L = lf + lr
    tires = dict(law=[nh.laws.MagicFormula(12.0, 1.3, 0.9), nh.laws.MagicFormula(10.0, 1.3, 0.9)],
                 normal=[m * g * lf / L, m * g * lr / L], speed=[Vr, Vf])
    start = np.r_[0, 0, 0, car.project([0, 0, 0], [10.0, 0, 10 * delta / L])]
    with pytest.warns(nh.SimulationWarning, match="rolling speed of contact . reached zero"):
        friction = nh.simulate(car.friction(**tires), (0, 10), start)
    with pytest.warns(nh.SimulationWarning, match="rolling speed of contact . reached zero"):
        reduced = nh.simulate(car.reduced(order=1, **tires), (0, 10), start)
    assert reduced.flag_name == friction.flag_name == "ROLLING_SPEED_NEGATIVE"
    assert abs(reduced.t_last - 10 * m / 3000) < 0.05 and abs(reduced.t_last - friction.t_last) < 0.01
    with pytest.raises(ValueError, match=r"rolling speed of contact 0 is V = -7.99\d* <= 0 at the start"):
        nh.simulate(car.reduced(order=1, **tires), (0, 1), np.r_[0, 0, 0, -8.0, 0, -8 * delta / L],
                    project_y0=True)


def test_the_car_gives_its_wheels_rolling_speeds_to_a_tire_law():
    """An outside probe: a tire law on the single-track car needed the wheels' rolling speeds written by hand
    (the front wheel's l_f sin(delta) psi' an easy term to drop). The car knows them (car.rolling_speeds):
    they are speed= by default, for the friction and the reduced models, in the car's symbols (a run at another
    l_f moves them too, where a hand-written number stayed)."""
    car, laws, options, y0 = car_and_laws(U=10.0)
    for build in (car.friction, lambda **kw: car.reduced(order=1, **kw)):
        given = yaw_rate(build(law=laws, **options), y0)
        default = yaw_rate(build(law=laws, normal=LOADS), y0)
        assert default == pytest.approx(given, rel=1e-12)
    moved = nh.systems.single_track_car(m=M, l_f=1.3, l_r=1.3, delta=0.02, U=10.0)
    at_params = yaw_rate(car.friction(law=laws, normal=LOADS), y0, params={"l_f": 1.3, "l_r": 1.3})
    assert at_params == pytest.approx(yaw_rate(moved.friction(law=laws, normal=LOADS), y0), rel=1e-12)
    dropped = [options["speed"][0], options["speed"][1] - L_F * sp.sin(car.symbol("delta")) * car.symbol("psi_dot")]
    off = yaw_rate(car.friction(law=laws, normal=LOADS, speed=dropped), y0)
    assert abs(off - yaw_rate(car.friction(law=laws, normal=LOADS), y0)) > 1e-9  # the term the default keeps


def test_rolling_speeds_that_do_not_fit_the_contacts_are_named():
    """A second probe: rolling speeds of another length (carried after with_constraints, or set by hand) failed with
    "speed has 1 entries for 2 contacts", naming an argument never passed; set as a NumPy array they broke every
    with_* method (its truth value). The message names rolling_speeds; an array is carried like a list."""
    car, laws, options, y0 = car_and_laws(U=10.0)
    car.rolling_speeds = car.rolling_speeds[:1]
    with pytest.raises(ValueError, match=r"rolling_speeds give 1 speed\(s\) for 2 contacts"):
        car.friction(law=laws, normal=LOADS)
    with pytest.raises(ValueError, match=r"rolling_speeds give 1 speed\(s\) for 2 contacts"):
        car.reduced(order=1, law=laws, normal=LOADS)
    car.rolling_speeds = np.array([10.0, 10.0])  # constant speeds, as an array
    moved = car.with_parameters({"U": 10.0})
    assert list(moved.rolling_speeds) == [10.0, 10.0]
    assert yaw_rate(moved.friction(law=laws, normal=LOADS), y0) == pytest.approx(
        yaw_rate(car.friction(law=laws, normal=LOADS, speed=[10.0, 10.0]), y0), rel=1e-12)
