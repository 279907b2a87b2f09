"""The explicit Runge-Kutta pair DOP853 (Dormand-Prince 8(5,3), cpp/src/explicit_rk.cpp) and its
choice for the reduced models (method "dop853", ReducedModel.method)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion
from nonholo.testing import loglog_slope, random_system

# the parameters of chaplygin_sleigh() (SleighMotion needs them)
M, INERTIA, A = 1.0, 1.0, 0.2


def _sleigh_start(sleigh, u=-1.5, w=1.0, phi=0.4):
    """(q, v) of the nonholonomic sleigh with body velocities u (forward), w (turning rate)."""
    q = np.array([0.0, 0.0, phi])
    v = np.array([u * np.cos(phi), u * np.sin(phi), w])
    return q, sleigh.project(q, v)


def test_dop853_has_order_8_on_the_exact_sleigh():
    """Fixed steps h (first_step = max_step = h, tolerance never binding): the error at t = 1.6
    against the closed-form nonholonomic sleigh (the reduced model of order 0) falls like h^8
    (measured slope 7.7; the smallest error 2e-14, above round-off)."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_start(sleigh)
    model = sleigh.reduced(1e-3, order=0)
    _, w_exact, phi_exact = SleighMotion(M, INERTIA, A, -1.5, 1.0, 0.4)(np.array([1.6]))
    steps = [0.8, 0.4, 0.2, 0.1]
    errors = []
    for h in steps:
        sol = nh.simulate(model, (0, 1.6), np.r_[q0, u0], t_eval=[1.6], method="dop853", rtol=1e3, atol=1e3,
                          first_step=h, max_step=h, raise_on_failure=True)
        assert sol.stats["n_steps"] == round(1.6 / h) and sol.stats["n_err_test_fails"] == 0
        errors.append(max(abs(sol["phi"][-1] - phi_exact[0]), abs(sol.v[2, -1] - w_exact[0])))
    assert abs(loglog_slope(steps, errors) - 8) < 0.5, errors


def test_dop853_dense_output_and_tolerance_on_the_exact_sleigh():
    """Adaptive steps at rtol 1e-10: the output times come from the dense output of order 7 (most
    fall inside steps) and agree with the closed form to ~the tolerance; so does a backward run."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_start(sleigh)
    model = sleigh.reduced(1e-3, order=0)
    t = np.linspace(0, 5, 41)
    sol = nh.simulate(model, (0, 5), np.r_[q0, u0], t_eval=t, method="dop853", rtol=1e-10, atol=1e-12,
                      raise_on_failure=True)
    assert sol.method == "dop853" and sol.stats["n_steps"] < 40  # most outputs are interpolated
    _, w, phi = SleighMotion(M, INERTIA, A, -1.5, 1.0, 0.4)(t)
    assert np.abs(sol["phi"] - phi).max() < 1e-8 and np.abs(sol.v[2] - w).max() < 1e-8
    back = nh.simulate(model, (5, 0), sol.y[:, -1], t_eval=[5.0, 2.5, 0.0], method="dop853", rtol=1e-10,
                       atol=1e-12, raise_on_failure=True)
    assert np.abs(back.y[:, -1] - sol.y[:, 0]).max() < 1e-7
    assert np.abs(back.y[:, 1] - sol.y[:, 20]).max() < 1e-7


@pytest.mark.parametrize("seed", [11, 12])
def test_dop853_equals_adams_on_random_reduced_models(seed):
    """Both methods at rtol 1e-11 give the same trajectory of an order-1 reduced model of a
    random system (q-dependent metric, constraints and friction, a potential)."""
    system = random_system(seed, n=4, k=2)
    rng = np.random.default_rng(seed)
    q0 = rng.uniform(-0.5, 0.5, system.n)
    u0 = system.project(q0, rng.uniform(-1, 1, system.n))
    model = system.reduced(0.01, order=1)
    t = np.linspace(0, 2, 9)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)
    rk = nh.simulate(model, (0, 2), np.r_[q0, u0], method="dop853", **kw)
    adams = nh.simulate(model, (0, 2), np.r_[q0, u0], method="adams", **kw)
    assert rk.method == "dop853" and adams.method == "adams"
    assert np.abs(rk.y - adams.y).max() < 1e-8 * (1 + np.abs(adams.y).max())


def test_reduced_models_choose_the_method_by_their_cost_and_say_so():
    """A cheap right-hand side (the sleigh, order 1) runs with DOP853, an expensive one (the
    16-link chain, order 2) with Adams; the choice is ReducedModel.method (the core's cost model
    against Adams' per-step overhead), reported in result.method; sensitivities make it Adams, events and
    dense output do not (DOP853 finds events on its interpolant, and keeps it)."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_start(sleigh)
    cheap = sleigh.reduced(1e-3, order=1)
    assert cheap.core.explicit_rk_pays and cheap.method == "dop853"
    assert cheap.core.rhs_cost_ns > 0
    sol = nh.simulate(cheap, (0, 1), np.r_[q0, u0])
    assert sol.method == "dop853" and sol.stats["n_jac"] == 0 and sol.success
    assert nh.simulate(cheap, (0, 1), np.r_[q0, u0], dense_output=True).method == "dop853"
    event = nh.simulate(cheap, (0, 1), np.r_[q0, u0], events=lambda t, y: t - 0.5)
    assert event.method == "dop853" and len(event.t_events[0]) == 1
    assert nh.simulate(cheap, (0, 1), np.r_[q0, u0], method="adams").method == "adams"

    chain = nh.systems.knife_edge_chain(16)
    heavy = chain.reduced(1e-4, order=2)
    assert heavy.core.rhs_cost_ns > cheap.core.rhs_cost_ns * 20
    assert not heavy.core.explicit_rk_pays and heavy.method == "adams"
    # the stiff friction model never
    assert not sleigh.friction(1e-3).core.explicit_rk_pays


def test_dop853_refuses_what_it_does_not_do():
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_start(sleigh)
    model = sleigh.reduced(1e-3, order=1)
    y0 = np.r_[q0, u0]
    # a stiff model is sent to BDF: Adams, explicit too, failed on it with CV_TOO_MUCH_WORK
    with pytest.raises(ValueError, match="dop853.*stiff models: use method='bdf'"):
        nh.simulate(sleigh.friction(1e-3), (0, 1), y0, method="dop853")
    with pytest.raises(ValueError, match="method must be"):
        nh.simulate(model, (0, 1), y0, method="rk4")


def test_dop853_reports_a_failure_with_max_steps():
    sleigh = nh.systems.chaplygin_sleigh()
    q0, u0 = _sleigh_start(sleigh)
    with pytest.warns(nh.SimulationWarning):
        sol = nh.simulate(sleigh.reduced(1e-3, order=1), (0, 5), np.r_[q0, u0], method="dop853", max_steps=3)
    assert sol.status == -1 and "max_steps" in sol.message and sol.t_last < 5


def test_dop853_drift_control_keeps_the_constraints_and_unit_norm():
    """Drift control after accepted steps: the sleigh's |A v - b| stays below rtol / 10 of its
    scale at every step, the Chaplygin ball's quaternion at unit norm to rtol / 10; without it
    both drift further over the same run."""
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = np.array([0, 0, 0, -1.5, 0, 1.0])
    kept = nh.simulate(sleigh.nonholonomic(), (0, 200), y0, method="dop853", rtol=1e-6, atol=1e-8)
    free = nh.simulate(sleigh.nonholonomic(), (0, 200), y0, method="dop853", rtol=1e-6, atol=1e-8,
                       drift_control=False)
    assert kept.stats["n_proj"] > 0 and free.stats["n_proj"] == 0
    assert kept.constraint_residual().max() <= 1e-7 < free.constraint_residual().max()
    from nonholo.builders.bodies import quaternion_from_euler
    from nonholo.builders.contact import rolling_state

    ball = nh.systems.chaplygin_ball()
    b0 = rolling_state(ball, quaternion_from_euler(0.2, 0.3, 0.1), [1.0, -0.5, 2.0])
    rolled = nh.simulate(ball.nonholonomic(), (0, 100), b0, method="dop853", rtol=1e-6, atol=1e-8)
    norm = np.linalg.norm(rolled.q[2:6], axis=0)
    assert rolled.stats["n_proj"] > 0 and np.abs(norm - 1).max() <= 1e-7


NAN_AT_Y0 = """
import sympy as sp, nonholo as nh, warnings
x = sp.Symbol("x")
model = nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([sp.sqrt(x)])).nonholonomic()
for method in ("auto", "dop853", "adams", "bdf"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = nh.simulate(model, (0, 1), [-1.0, 0.0], method=method)
    assert sol.status == -1 and "not finite" in sol.message and "t = 0" in sol.message, sol.message
    assert sol.stats["n_rhs"] <= 5 and len(caught) == 1, sol.stats
    try:
        nh.simulate(model, (0, 1), [-1.0, 0.0], method=method, raise_on_failure=True)
    except nh.IntegrationError as exc:
        assert "not finite" in str(exc)
    else:
        raise AssertionError("no IntegrationError")
print("ok")
"""


def test_a_right_hand_side_not_finite_at_y0_fails_at_once_for_every_method():
    """The NaN at y0 (sqrt(-1)) once made DOP853's first step retry forever under method='auto';
    run in a subprocess with a timeout, so that a regression fails instead of hanging the suite."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", NAN_AT_Y0], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_dop853_rejected_attempts_count_against_max_steps():
    """A run whose every attempt is rejected (the right-hand side not finite just after y0) ends
    after a bounded number of attempts (at most 60 in a row, and max_steps in all), with the reason."""
    x = sp.Symbol("x")
    t = sp.Symbol("t")
    # finite at t = 0 only: every attempted stage at t > 0 is NaN
    model = nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([sp.sqrt(-t)]), time=t).nonholonomic()
    for method in ("dop853", "auto"):
        with pytest.warns(nh.SimulationWarning, match="not finite"):
            sol = nh.simulate(model, (0, 1), [0.0, 0.0], method=method, max_steps=40)
        assert sol.status == -1 and sol.t_last == 0.0 and sol.stats["n_rhs"] < 60 * 13, sol.message


def test_the_dense_solution_of_dop853_is_its_interpolant_and_auto_keeps_dop853_for_it():
    """An outside probe: dense_output=True made auto run Adams at the tolerances, 40-380x farther off than its
    DOP853 (a pendulum over t = 20 at rtol 1e-8: 3.4e-9 -> 1.3e-6), and method="dop853" refused it although
    its order-7 interpolant already served t_eval and events. Each DOP853 step now stores that interpolant as
    the derivatives at its end (CVODE's form); result.sol equals it: at the steps, where the run's samples are,
    and between them, forward and backward, to a terminal event."""
    from scipy.integrate import solve_ivp

    theta = sp.Symbol("theta")
    pendulum = nh.System([theta], sp.Matrix([[1.0]]), potential=-9.81 * sp.cos(theta)).nonholonomic()
    y0, times = [2.0, 0.0], np.linspace(0, 20, 2001)
    exact = solve_ivp(lambda t, y: [y[1], -9.81 * np.sin(y[0])], (0, 20), y0, method="DOP853", rtol=1e-13,
                      atol=1e-14, dense_output=True).sol
    default = nh.simulate(pendulum, (0, 20), y0, dense_output=True)
    adams = nh.simulate(pendulum, (0, 20), y0, dense_output=True, method="adams")
    assert default.method == "dop853"
    assert np.abs(default.sol(default.t) - default.y).max() < 1e-14
    dense_error = np.abs(default.sol(times) - exact(times)).max()
    assert dense_error < 1e-7 and dense_error < 1.5 * np.abs(default.y - exact(default.t)).max() + 1e-9
    assert np.abs(adams.sol(times) - exact(times)).max() > 100 * dense_error  # what auto ran before
    sampled = nh.simulate(pendulum, (0, 20), y0, t_eval=times[1::7], method="dop853")  # the same interpolant
    plain = nh.simulate(pendulum, (0, 20), y0, dense_output=True, method="dop853")
    assert np.abs(plain.sol(times[1::7]) - sampled.y).max() < 1e-13
    back = nh.simulate(pendulum, (20, 0), plain.y[:, -1], dense_output=True, method="dop853")
    assert np.abs(back.sol(times) - plain.sol(times)).max() < 1e-4  # two runs' errors, each about 1e-5
    stop = nh.simulate(pendulum, (0, 20), y0, dense_output=True, events=nh.Event(theta, terminal=True))
    t_stop = stop.t_events[0][0]
    assert stop.sol.t_max == t_stop and abs(stop.sol(t_stop)[0]) < 1e-12
    assert np.abs(stop.sol(t_stop / 2) - exact(t_stop / 2)).max() < 1e-7
