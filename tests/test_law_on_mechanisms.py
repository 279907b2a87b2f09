"""A mechanism (nh.multibody: the Whipple bicycle) realized by a friction law or run as stick-slip:
each wheel's two tangential rows are one contact (an isotropic cone), and the normal row of the
front wheel (the height of its support point) stays a constraint with its holonomic constraint.
Each row was its own contact before: the front wheel's vertical row took a Coulomb force that
cannot carry the load, and the wheel sank 0.98 m in 1 s with status 0."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.whipple_bicycle import upright_state


@pytest.fixture(scope="module")
def bike():
    system = nh.systems.whipple_bicycle()
    rolling = nh.simulate(system.nonholonomic(), (0, 1), upright_state(system, 4.6, roll_rate=0.3), t_eval=[1.0],
                          rtol=1e-10, atol=1e-12)
    return system, rolling, sp.lambdify(system.coordinates, system.holonomic[0])


def test_the_bicycle_records_its_contacts_rows(bike):
    system, _, _ = bike
    assert system.friction_contacts == [[0, 1], [2, 3]] and system.normal_rows == [4]
    import pickle

    again = pickle.loads(pickle.dumps(system))
    assert again.friction_contacts == [[0, 1], [2, 3]] and again.normal_rows == [4]


def test_a_friction_law_keeps_the_front_wheel_on_the_ground(bike):
    system, rolling, height = bike
    y0 = upright_state(system, 4.6, roll_rate=0.3)
    for normal in (800.0, [612.8, 309.3]):  # one load, or one per wheel
        model = system.friction(law=nh.laws.Coulomb(0.8, v_s=1e-3), normal=normal)
        run = nh.simulate(model, (0, 1), y0, t_eval=[1.0])
        assert run.success
        assert abs(height(*run.q[:, -1])) < 1e-8  # was -0.979 m
        assert abs(run["roll"][-1] - rolling["roll"][-1]) < 1e-3  # a creep of v_s = 1e-3 from the rolling motion
    with pytest.raises(ValueError, match="normal has 5 entries for 2 contacts"):
        system.friction(law=nh.laws.Coulomb(0.8, v_s=1e-3), normal=[612.8, 612.8, 309.3, 309.3, 309.3])


def test_stick_slip_keeps_the_normal_row_in_every_mode(bike):
    system, rolling, height = bike
    run = nh.simulate(system.stick_slip(0.8, normal=[612.8, 309.3]), (0, 1), upright_state(system, 4.6, roll_rate=0.3),
                      rtol=1e-10, atol=1e-12)
    assert run.modes == ["stick,stick"]
    assert abs(height(*run.y_final[: system.n])) < 1e-9
    assert np.abs(run.y_final - rolling.y[:, -1]).max() < 1e-8


def test_a_tire_laws_rolling_speed_must_stay_positive():
    """A single-track car reversing at 5 m/s on Magic Formula tires with speed= its forward speed u
    (negative): atan(s / V) flips, the law pushed along the slip and a 1 cm/s sideways kick grew to
    6.09 m/s in 1 s, status 0. Refused at the start; a car braking through V = 0 stops there with
    status 1 and a warning; the speed's magnitude runs backwards, the kick decaying."""
    car = nh.systems.single_track_car(delta=0.0, U=-5.0)
    psi, xd, yd = (car.symbol(s) for s in ("psi", "x_dot", "y_dot"))
    u = sp.cos(psi) * xd + sp.sin(psi) * yd
    law, N = nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9), 1500 * 9.81 / 2
    back = [0, 0, 0, -5.0, 0.01, 0]
    with pytest.raises(ValueError, match="rolling speed of contact 0 is V = -5"):
        nh.simulate(car.friction(law=law, normal=N, speed=u), (0, 1), back)
    run = nh.simulate(car.friction(law=law, normal=N, speed=-u), (0, 3), back, t_eval=[3.0])
    lateral = -np.sin(run["psi"]) * run["x_dot"] + np.cos(run["psi"]) * run["y_dot"]
    assert run.success and abs(lateral[-1]) < 1e-3
    # forward at 0.5 m/s, pushed backwards by the car's speed controller towards U = -5: V reaches 0
    with pytest.warns(nh.SimulationWarning, match="rolling speed of contact 0 reached zero"):
        stopped = nh.simulate(car.friction(law=law, normal=N, speed=u), (0, 10), [0, 0, 0, 0.5, 0.0, 0])
    assert stopped.status == 1 and stopped.flag_name == "ROLLING_SPEED_NEGATIVE"
    assert abs(np.cos(stopped.y_final[2]) * stopped.y_final[3] + np.sin(stopped.y_final[2]) * stopped.y_final[4]) < 1e-6
