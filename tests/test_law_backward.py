"""Runs of friction laws backward in time stop where a load, a rolling speed or the fold margin falls to zero
in the run's direction (their events fired only where the quantity fell in t, so backward runs went through),
and a reduced model of a law reports the normal load it was given. Systems written here; closed forms and an
independent SciPy integration."""

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

x, y, t = sp.symbols("x y t")


def _run(model, t_span, y0):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = nh.simulate(model, t_span, y0, rtol=1e-10, atol=1e-12)
    return run, [str(w.message) for w in caught if issubclass(w.category, nh.SimulationWarning)]


def test_a_load_falling_to_zero_backward_stops_the_run():
    """A block sliding on Coulomb friction with the load N = m g (t - 1): going back from t = 3 the load falls
    to zero at t = 1; the run went on to t = 0 through a negative load."""
    block = nh.System([x, y], sp.diag(1.0, 1.0), constraints=sp.Matrix([[1, 0]]), time=t)
    law = nh.laws.Coulomb(0.3, v_s=1e-2)
    back, caught = _run(block.friction(law=law, normal=9.81 * (t - 1)), (3, 0), [0, 0, 1.0, 0])
    assert back.flag_name == "NORMAL_LOAD_NEGATIVE" and back.t_last == pytest.approx(1.0, abs=1e-9)
    assert any("normal load of contact 0" in m for m in caught)
    ahead, _ = _run(block.friction(law=law, normal=9.81 * (1 - t)), (0, 3), [0, 0, 1.0, 0])
    assert ahead.flag_name == "NORMAL_LOAD_NEGATIVE" and ahead.t_last == pytest.approx(1.0, abs=1e-9)


def test_a_rolling_speed_falling_to_zero_backward_stops_the_run():
    """A tire pushed forward by 1 N from V = 1: back in time V = 1 + t reaches zero at t = -1."""
    block = nh.System([x, y], sp.diag(1.0, 1.0), constraints=sp.Matrix([[0, 1]]), force=sp.Matrix([1.0, 0]))
    tire = block.friction(law=nh.laws.MagicFormula(B=10, C=1.3, D=0.9), normal=9.81, speed=block.symbol("x_dot"))
    back, _ = _run(tire, (0, -2), [0, 0, 1.0, 0.1])
    assert back.flag_name == "ROLLING_SPEED_NEGATIVE" and back.t_last == pytest.approx(-1.0, abs=1e-9)
    ahead, _ = _run(tire, (0, 2), [0, 0, 1.0, 0.1])
    assert ahead.success and ahead.t_last == 2.0


def test_the_fold_of_a_reduced_law_model_stops_a_backward_run():
    """A Chaplygin sleigh (m = I = 1, a = 0.2) on a Coulomb knife edge (mu = 0.03, N = 9.81): the order-0 reduced
    model follows the nonholonomic motion, whose friction ratio lambda / (mu N) with lambda = m I u w / (I + m a^2)
    reaches 0.999 going back from t = 9.5 at t = 8.79212 (SciPy on the body-frame equations). The backward run
    went through ratios up to 1.68 and stopped at t = 1.14, where the ratio falls back through 0.999."""
    X, Y, P, m, I, a = sp.symbols("X Y P m I a")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(P)], [0, m, m * a * sp.cos(P)], [-m * a * sp.sin(P), m * a * sp.cos(P),
                                                                            I + m * a**2]])
    sleigh = nh.System([X, Y, P], G, constraints=sp.Matrix([[-sp.sin(P), sp.cos(P), 0]]),
                       parameters={m: 1.0, I: 1.0, a: 0.2})
    end = nh.simulate(sleigh.nonholonomic(), (0, 9.5), [0, 0, 0, 0.1, 0, 1.0], rtol=1e-12, atol=1e-14).y[:, -1]

    def body(_, z):  # z = [x, y, phi, u (forward speed), w (yaw rate)]
        return [z[3] * np.cos(z[2]), z[3] * np.sin(z[2]), z[4], 0.2 * z[4] ** 2, -0.2 * z[3] * z[4] / 1.04]

    def ratio(_, z):
        return z[3] * z[4] / 1.04 / (0.03 * 9.81) - 0.999

    u = np.cos(end[2]) * end[3] + np.sin(end[2]) * end[4]
    reference = solve_ivp(body, (9.5, 0), [*end[:3], u, end[5]], rtol=1e-12, atol=1e-14, events=ratio)
    crossing = reference.t_events[0][0]
    assert crossing == pytest.approx(8.79212, abs=1e-5)
    model = sleigh.reduced(order=0, law=nh.laws.Coulomb(0.03, v_s=1e-3), normal=9.81)
    back, _ = _run(model, (9.5, 0), end)
    assert back.flag_name == "SLOW_MANIFOLD_FOLD" and back.t_last == pytest.approx(crossing, abs=1e-6)
    assert back["normal_force"] == pytest.approx(np.full(back.t.size, 9.81))  # the load it was given
