"""The examples of "When does rolling without slipping break?" against their closed forms: the
single-track car on Magic Formula tires (the linear bicycle model's yaw-rate gain at small slip,
the departure quadratic in the steering angle, saturation) and the tippe top inverting under
regularized Coulomb friction with Jellett's integral conserved."""

import importlib

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import quaternion_from_euler, rotation_matrices
from nonholo.contact import rolling_state
from nonholo.systems.tippe_top import jellett

car_module = importlib.import_module("nonholo.systems.single_track_car")
M, I_Z, L_F, L_R, G = 1500.0, 2500.0, 1.2, 1.4, 9.81
L = L_F + L_R
N_F, N_R = M * G * L_R / L, M * G * L_F / L
FRONT, REAR = nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9), nh.laws.MagicFormula(B=12.0, C=1.3, D=0.9)


def stiffness(law, N):
    return N * float(law.B * law.C * law.D)


def steady_gain(U, delta, laws=(REAR, FRONT), T=30.0):
    """(r / delta, forward speed u) of the car on Magic Formula tires after T seconds."""
    car = nh.systems.single_track_car(m=M, I_z=I_Z, l_f=L_F, l_r=L_R, delta=delta, U=U)
    psi, x_dot, y_dot, psi_dot, d = (car.symbol(n) for n in ("psi", "x_dot", "y_dot", "psi_dot", "delta"))
    speed = [sp.cos(psi) * x_dot + sp.sin(psi) * y_dot,
             sp.cos(psi + d) * x_dot + sp.sin(psi + d) * y_dot + L_F * sp.sin(d) * psi_dot]
    law = list(laws) if laws[0] is not laws[1] else laws[0]  # one law for both axles: the default form
    run = nh.simulate(car.friction(law=law, normal=[N_R, N_F], speed=speed), (0, T), [0, 0, 0, U, 0, 0],
                      t_eval=[T - 1, T], rtol=1e-10, atol=1e-12)
    assert abs(run["psi_dot"][1] - run["psi_dot"][0]) < 1e-8  # steady
    u = np.cos(run["psi"][-1]) * run["x_dot"][-1] + np.sin(run["psi"][-1]) * run["y_dot"][-1]
    return run["psi_dot"][-1] / delta, u


def linear_gain(u, laws=(REAR, FRONT)):
    return car_module.yaw_rate_gain(u, M, L_F, L_R, stiffness(laws[1], N_F), stiffness(laws[0], N_R))


def test_the_magic_formula_car_has_the_linear_bicycle_gain_at_small_slip_and_departs_quadratically():
    U = 25.0
    errors = []
    for delta in (1e-3, 2e-3, 4e-3):
        gain, u = steady_gain(U, delta)
        errors.append(gain / linear_gain(u) - 1)
    assert abs(errors[0]) < 1e-4
    slope = np.polyfit(np.log([1e-3, 2e-3, 4e-3]), np.log(np.abs(errors)), 1)[0]
    assert 1.8 < slope < 2.2, slope  # the Magic Formula's cubic term: a relative departure ~ delta^2
    assert errors[0] < 0  # the tires saturate: less force than the linear law, a smaller gain


def test_the_same_tires_per_unit_load_make_a_neutral_car():
    # one law for both axles under the static loads: C_f / N_f = C_r / N_r, K_us = 0, r / delta = U / L
    gain, u = steady_gain(20.0, 1e-3, laws=(FRONT, FRONT))
    np.testing.assert_allclose(gain, u / L, rtol=1e-6)  # measured 1.2e-7
    np.testing.assert_allclose(linear_gain(u, (FRONT, FRONT)), u / L, rtol=1e-12)


def test_a_saturating_front_tire_cuts_the_gain():
    gain, u = steady_gain(30.0, 0.04)
    assert gain < 0.9 * linear_gain(u)


def test_laws_per_contact_are_checked():
    car = nh.systems.single_track_car()
    with pytest.raises(ValueError, match="law has 3 laws for 2 contacts"):
        car.friction(law=[REAR, FRONT, FRONT], normal=1.0, speed=10.0)
    with pytest.raises(TypeError, match=r"law\[1\]"):
        car.friction(law=[REAR, "front"], normal=1.0, speed=10.0)


def test_a_tippe_top_inverts_under_regularized_coulomb_friction_keeping_jellett_integral():
    m, R, alpha = 0.015, 0.02, 0.3
    I3 = 0.4 * m * R**2
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=0.95 * I3)
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
    model = top.friction(law=nh.laws.Coulomb(0.3, v_s=1e-2), normal=m * 9.81)
    run = nh.simulate(model, (0, 4), y0, t_eval=np.linspace(0, 4, 81), rtol=1e-8, atol=1e-10)
    axis = rotation_matrices(run.q[2:6])[:, 2, 2]  # cos(theta) of the symmetry axis
    assert axis[0] > 0.99 and axis[-1] < -0.99  # theta from 0.1 rad to beyond 172 degrees
    J = jellett(run)
    assert np.abs(J / J[0] - 1).max() < 1e-8  # measured 5e-10 at rtol 1e-8
