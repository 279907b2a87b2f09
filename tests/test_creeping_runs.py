"""A run that spends its max_steps creeping towards a point it cannot pass is told so, not to raise
max_steps: an outside probe's Suslov body in Euler angles (psi, theta, phi), started at theta = 1e-4
turning towards theta = 0, where its angles are singular, took 500,000 steps to reach t = 9.8e-5 of 5
(the step never fell to round-off relative to t, so the collapse test did not fire). A run that uses
its steps at an even pace still hears "raise max_steps"."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

psi, th, phi = sp.symbols("psi theta phi")
v = sp.symbols("psi_dot theta_dot phi_dot")
INERTIA = sp.Matrix([[2.0, 0, 0.3], [0, 3.0, 0.2], [0.3, 0.2, 4.0]])
JW = sp.Matrix([[sp.sin(th) * sp.sin(phi), sp.cos(phi), 0], [sp.sin(th) * sp.cos(phi), -sp.sin(phi), 0],
                [sp.cos(th), 0, 1]])  # body angular velocity = JW (psi', theta', phi')
SUSLOV = nh.System([psi, th, phi], JW.T * INERTIA * JW, constraints=JW[2, :])  # no spin about the third axis


def start(theta0: float, w1: float, w2: float) -> list:
    J = np.array(JW.subs({psi: 0, th: theta0, phi: 0}).evalf(), dtype=float)
    return [0.0, theta0, 0.0, *np.linalg.solve(J, [w1, w2, 0.0])]


def test_a_run_creeping_to_the_singular_angle_says_so():
    with pytest.warns(nh.SimulationWarning, match="the steps shrink"):
        run = nh.simulate(SUSLOV.nonholonomic(), (0, 5), start(1e-4, -1.0, 0.0), max_steps=20000)
    assert run.status == -1 and run.t_last < 1e-4 and run.flag_name == "CV_TOO_MUCH_WORK"
    assert "raising max_steps will not help" in run.message and "raise max_steps" not in run.message
    assert "the first 10000 advanced t by" in run.message


def test_a_run_at_an_even_pace_is_told_to_raise_max_steps():
    with pytest.warns(nh.SimulationWarning, match="raise max_steps"):
        run = nh.simulate(SUSLOV.nonholonomic(), (0, 1e4), start(1.0, 1.0, -0.5), max_steps=2000)
    assert run.status == -1 and "the steps shrink" not in run.message


def test_adams_out_of_steps_on_a_smooth_run_hears_of_the_default_first():
    """Adams' advice on a model that is not stiff named only method='bdf' "if the problem is stiff": an
    outside probe's rolling disc (not stiff: BDF stopped earlier still) ran out at t = 5934 of 1e4 where the
    default finished in 243,000 steps. It now names method='auto' first."""
    with pytest.warns(nh.SimulationWarning, match="raise max_steps"):
        run = nh.simulate(SUSLOV.nonholonomic(), (0, 1e4), start(1.0, 1.0, -0.5), max_steps=2000, method="adams")
    assert run.status == -1 and "method='auto' (DOP853 takes fewer steps on a smooth run" in run.message
    default = nh.simulate(SUSLOV.nonholonomic(), (0, 50), start(1.0, 1.0, -0.5), max_steps=2000)
    adams = nh.simulate(SUSLOV.nonholonomic(), (0, 50), start(1.0, 1.0, -0.5), max_steps=20000, method="adams")
    assert default.success and default.stats["n_steps"] < adams.stats["n_steps"]


def test_auto_out_of_steps_in_adams_is_not_told_to_use_auto():
    """A strong damping (c = 1e4) with sensitivities at rtol 1e-10: "auto" runs Adams (sensitivities), whose
    stiffness test did not fire, and an outside probe's fit spent 500,000 steps per trial point; the advice
    said "use method='auto'", the method that ran. It names bdf. (Adams now finds that run stiff after 400
    steps held by the damping and goes on with BDF, tests/test_auto_stiff_sensitivities.py; the advice is
    that of any Adams run of "auto" out of steps: an oscillator over 1e4 periods' worth of time.)"""
    xs, xd, k, c = sp.symbols("x x_dot k c")
    damped = nh.System([xs], sp.Matrix([[1]]), potential=k * xs**2 / 2, force=sp.Matrix([-c * xd]), velocities=[xd],
                       parameters={k: 2e3, c: 1e4}).nonholonomic()
    options = dict(rtol=1e-10, atol=1e-12, sensitivities=["k"])
    oscillator = nh.System([xs], sp.Matrix([[1]]), potential=k * xs**2 / 2, parameters={k: 1.0}).nonholonomic()
    with pytest.warns(nh.SimulationWarning, match="'auto' ran Adams here"):
        run = nh.simulate(oscillator, (0, 1e4), [1.0, 0.0], max_steps=2000, **options)
    assert run.status == -1 and "method='bdf'" in run.message and "use method='auto'" not in run.message
    slow, fast = (-1e4 + np.sqrt(1e8 - 8e3)) / 2, (-1e4 - np.sqrt(1e8 - 8e3)) / 2  # x(0) = 1, x'(0) = 0
    exact = (-fast * np.exp(5 * slow) + slow * np.exp(5 * fast)) / (slow - fast)  # 0.3679: e^(-1), nearly
    for method in ("bdf", "auto"):
        damped_run = nh.simulate(damped, (0, 5), [1.0, 0.0], method=method, **options)
        assert damped_run.success and damped_run["x"][-1] == pytest.approx(exact, rel=1e-8)
    assert damped_run.method.startswith("adams->bdf")
