"""A normal load given as an expression of the state (lift: N = m g cos(a) - c x'^2) that reaches zero:
the contact lifts off and a friction model no longer holds. The stick-slip model and a system realized
by a friction law (system.friction(law=...)) used to run on with N < 0, the "friction" -mu N s/|s| then
pushing along the slip; now the run stops where N reaches zero, with status 1, the flag
NORMAL_LOAD_NEGATIVE, a SimulationWarning naming the contact and the time, and a start with N < 0
is refused.

The ball slides down the incline from rest (mu = 0.05 < 2/7 tan(a)): v' = g (sin a - mu cos a) +
(mu c / m) v^2 = A + B v^2, so v = sqrt(A / B) tan(sqrt(A B) t), and N = 0 at v* = sqrt(m g cos(a) / c),
t* = atan(v* sqrt(B / A)) / sqrt(A B)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, R, G, ALPHA, MU, C = 1.0, 0.1, 9.81, 0.3, 0.05, 0.5
AT_REST = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
TIGHT = dict(rtol=1e-10, atol=1e-12)
A_ = G * (np.sin(ALPHA) - MU * np.cos(ALPHA))
B_ = MU * C / M
V_STAR = np.sqrt(M * G * np.cos(ALPHA) / C)
T_STAR = np.arctan(V_STAR * np.sqrt(B_ / A_)) / np.sqrt(A_ * B_)


def incline():
    return nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R),
                                    gravity=(G * np.sin(ALPHA), 0, -G * np.cos(ALPHA)))


def lift():
    return M * G * np.cos(ALPHA) - C * sp.Symbol("x_dot") ** 2


def sliding_speed(t):
    return np.sqrt(A_ / B_) * np.tan(np.sqrt(A_ * B_) * t)


@pytest.mark.parametrize("kwargs, tol", [(TIGHT, 1e-8), ({}, 1e-6)])
def test_a_stick_slip_run_stops_where_the_normal_load_reaches_zero(kwargs, tol):
    assert T_STAR == pytest.approx(1.678485, abs=1e-6)
    t = np.linspace(0, 4, 9)
    with pytest.warns(nh.SimulationWarning, match=r"normal load of contact 0 reached zero at t = 1\.678"):
        run = nh.simulate(incline().stick_slip(MU, normal=lift()), (0, 4), AT_REST, t_eval=t, **kwargs)
    assert run.status == 1 and run.success and run.modes == ["slip"]  # it ran on to t = 4 before
    assert "normal load of contact 0 reached zero" in run.message and run.warnings == [run.message]
    np.testing.assert_allclose(run.t, t[t <= T_STAR])  # no sample past the lift-off
    np.testing.assert_allclose(run["x_dot"], sliding_speed(run.t), rtol=tol, atol=tol)
    slide = run.phases[-1]
    np.testing.assert_allclose(slide.t_last, T_STAR, rtol=tol)
    np.testing.assert_allclose(slide.y_final[6], V_STAR, rtol=tol)
    assert M * G * np.cos(ALPHA) - C * slide.y_final[6] ** 2 == pytest.approx(0, abs=10 * tol)


@pytest.mark.parametrize("kwargs, tol", [(TIGHT, 1e-6), ({}, 1e-5)])
def test_a_law_model_stops_where_the_normal_load_reaches_zero(kwargs, tol):
    """The regularized Coulomb law (v_s = 1e-6) slides as the set-valued one to O(v_s / slip)."""
    model = incline().friction(law=nh.laws.Coulomb(MU, v_s=1e-6), normal=lift())
    with pytest.warns(nh.SimulationWarning, match="normal load of contact 0 reached zero at t = "):
        run = nh.simulate(model, (0, 4), AT_REST, **kwargs)
    assert run.status == 1 and run.flag_name == "NORMAL_LOAD_NEGATIVE" and run.warnings == [run.message]
    assert run.t_events == []  # the stop's own event is not one of the caller's
    np.testing.assert_allclose(run.t_last, T_STAR, rtol=tol)
    np.testing.assert_allclose(run.t[-1], T_STAR, rtol=tol)
    assert M * G * np.cos(ALPHA) - C * run.y_final[6] ** 2 == pytest.approx(0, abs=1e-6)
    assert np.all(M * G * np.cos(ALPHA) - C * run["x_dot"] ** 2 >= -1e-6)  # it never ran with N < 0
    # the caller's events come after it, and keep their indices
    mark = nh.Event(sp.Symbol("x_dot") - 1.0)
    with pytest.warns(nh.SimulationWarning, match="normal load"):
        marked = nh.simulate(model, (0, 4), AT_REST, events=[mark], **kwargs)
    assert len(marked.t_events) == 1 and len(marked.t_events[0]) == 1
    np.testing.assert_allclose(sliding_speed(marked.t_events[0][0]), 1.0, rtol=1e-4)


def test_a_batch_of_law_runs_stops_each_where_its_load_reaches_zero():
    model = incline().friction(law=nh.laws.Coulomb(MU, v_s=1e-6), normal=lift())
    with pytest.warns(nh.SimulationWarning, match="2 of 2 runs"):
        runs = nh.simulate_many(model, (0, 4), np.array([AT_REST, AT_REST]), threads=1, **TIGHT)
    for run in runs:
        assert run.status == 1 and run.flag_name == "NORMAL_LOAD_NEGATIVE" and run.t_events == []
        np.testing.assert_allclose(run.t_last, T_STAR, rtol=1e-6)


def test_a_start_with_a_negative_load_is_refused():
    y0 = AT_REST.copy()
    y0[6] = 1.2 * V_STAR
    with pytest.raises(ValueError, match="normal load of contact 0 is N = .* < 0 at the start"):
        nh.simulate(incline().stick_slip(MU, normal=lift()), (0, 1), y0)
    with pytest.raises(ValueError, match="normal load of contact 0 is N = .* < 0 at the start"):
        nh.simulate(incline().friction(law=nh.laws.Coulomb(MU, v_s=1e-3), normal=lift()), (0, 1), y0)


def test_a_load_that_stays_positive_changes_nothing():
    """Downforce, N = m g + c x'^2: no stop, no warning, no event in the result."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))
    load = M * G + C * sp.Symbol("x_dot") ** 2
    y0 = np.r_[0, 0, 1, 0, 0, 0, 3.0, np.zeros(5)]
    run = nh.simulate(ball.stick_slip(0.2, normal=load), (0, 2), y0, **TIGHT)
    assert run.status == 0 and run.modes == ["slip", "stick"] and run.warnings == []
    law = nh.simulate(ball.friction(law=nh.laws.Coulomb(0.2, v_s=1e-3), normal=load), (0, 2), y0, **TIGHT)
    assert law.status == 0 and law.t_events == [] and law.flag_name != "NORMAL_LOAD_NEGATIVE"
