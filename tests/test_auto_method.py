"""method="auto": DOP853 at a tenth of the tolerances for non-stiff runs, with drift control after
its steps and a switch to BDF when Hairer's test finds the run stiff; Adams (with drift control by
projection, tests/test_drift_adams.py, and the same switch, like LSODA) for runs with events or dense output;
BDF for stiff models. Accuracy first: auto's global error is at most that of Adams, BDF and
DOP853 at the same tolerances, and falls in proportion to rtol."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

SLEIGH_Y0 = np.array([0, 0, 0, -1.5, 0, 1.0])


def spring_sleigh(k: float = 1e6, c: float = 1e4) -> nh.System:
    """A Chaplygin sleigh carrying a mass m2 on a stiff damped spring along its axis: the spring's
    fast mode (about -c/m2 = -2e4) is damped, so the motion is slow and the model stiff."""
    x, y, th, s = sp.symbols("x y theta s")
    v = sp.symbols("x_dot y_dot theta_dot s_dot")
    m, inertia, a, m2, k_, c_ = sp.symbols("m I a m2 k c", positive=True)
    q = [x, y, th, s]
    e = sp.Matrix([sp.cos(th), sp.sin(th)])

    def velocity(point):
        return point.jacobian(q) * sp.Matrix(v)

    c1, c2 = sp.Matrix([x, y]) + a * e, sp.Matrix([x, y]) + (2 * a + s) * e
    T = m / 2 * velocity(c1).dot(velocity(c1)) + inertia / 2 * v[2] ** 2 + m2 / 2 * velocity(c2).dot(velocity(c2))
    G = sp.hessian(T, v).applyfunc(sp.simplify)
    A = sp.Matrix([[-sp.sin(th), sp.cos(th), 0, 0]])
    return nh.System(q, G, potential=k_ * s**2 / 2, constraints=A, force=[0, 0, 0, -c_ * v[3]], velocities=v,
                     parameters={m: 1.0, inertia: 1.0, a: 0.2, m2: 0.5, k_: k, c_: c}, name="spring sleigh")


SPRING_Y0 = np.array([0, 0, 0, 0, 1.0, 0, 1.0, 0])


@pytest.fixture(scope="module")
def spring():
    return spring_sleigh().nonholonomic()


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh()


def test_auto_runs_dop853_on_a_nonstiff_constrained_model():
    """The knife-edge chain: DOP853 all the way, more accurate than BDF against a tight reference,
    and every step on the constraint set to a tenth of its own tolerance."""
    system = nh.systems.knife_edge_chain(2)
    model = system.nonholonomic()
    q = np.array([0.0, 0.0, 0.1, 0.2])
    y0 = np.concatenate([q, system.project(q, np.array([1.0, 0.0, 0.3, 0.0]))])
    auto = nh.simulate(model, (0, 2), y0)
    ref = nh.simulate(model, (0, 2), y0, method="dop853", rtol=1e-13, atol=1e-15)
    bdf = nh.simulate(model, (0, 2), y0, method="bdf")
    assert auto.method == "dop853" and auto.stats["n_jac"] == 0 and np.isnan(auto.stats["t_switch"])
    assert "not stiff" in auto.method_reason and bdf.method_reason == "method='bdf' as requested"
    assert np.abs(auto.y[:, -1] - ref.y[:, -1]).max() < np.abs(bdf.y[:, -1] - ref.y[:, -1]).max()
    assert auto.constraint_residual().max() <= 0.1 * 1e-9


def _final_error(model, y0, T, reference, **kwargs):
    return np.abs(nh.simulate(model, (0, T), y0, t_eval=[T], **kwargs).y[:, -1] - reference).max()


SNAKEBOARD_Q, SNAKEBOARD_V = [0, 0, 0, 0, 0.3], [0, 0.5, 1.0, 0.2, 0]


@pytest.mark.parametrize("name", ["sleigh", "snakeboard", "differential drive"])
def test_auto_is_as_accurate_as_the_best_method(name):
    """Issue 28: at rtol 1e-6 and 1e-8 (atol = rtol / 100), auto's global error over [0, 5] is
    at most 3x the smallest of Adams', BDF's and DOP853's (2x is the benchmark's target,
    benchmarks/auto_accuracy.py), and falls in proportion to rtol."""
    if name == "sleigh":
        system, y0 = nh.systems.chaplygin_sleigh(), SLEIGH_Y0
    elif name == "snakeboard":
        system = nh.systems.snakeboard()
        y0 = np.r_[SNAKEBOARD_Q, system.project(SNAKEBOARD_Q, SNAKEBOARD_V)]
    else:
        system = nh.systems.differential_drive()
        q = np.zeros(5)
        y0 = np.r_[q, system.project(q, [0.5, 0, 0.8, 0, 0])]
    model, T = system.nonholonomic(), 5.0
    reference = nh.simulate(model, (0, T), y0, t_eval=[T], method="dop853", rtol=1e-13, atol=1e-16).y[:, -1]
    auto = []
    for rtol in (1e-6, 1e-8):
        errors = {m: _final_error(model, y0, T, reference, rtol=rtol, atol=rtol / 100, method=m)
                  for m in ("auto", "adams", "bdf", "dop853")}
        assert errors["auto"] <= 3 * min(errors[m] for m in ("adams", "bdf", "dop853")), errors
        auto.append(errors["auto"])
    assert 0.7 < np.log10(auto[0] / auto[1]) / 2 < 1.3  # the slope against rtol


def test_auto_keeps_the_energy_of_a_conservative_system_over_long_runs():
    """The vertical disc over t = 1e4 with the defaults: relative energy drift below 100 rtol."""
    disc = nh.systems.vertical_rolling_disk()
    y0 = np.array([0, 0, 0, 0, 0.7, 0.9, 0, 0.9])
    sol = nh.simulate(disc.nonholonomic(), (0, 1e4), y0, t_eval=[1e4])
    E0, E = disc.energy(y0[:4], y0[4:]), disc.energy(sol.y[:4, -1], sol.y[4:, -1])
    assert sol.method == "dop853" and abs(E - E0) / E0 < 100 * 1e-8


def test_sleigh_residual_stays_below_rtol_over_ten_thousand_time_units(sleigh):
    """Issue 13's bound: |A v - b| below 1e-9 relative over 10^4 time units at the default
    tolerances. DOP853 projects after its steps; once the sleigh has settled on its straight
    line, its steps are held by stability (a decaying mode), Hairer's test finds the run stiff,
    and BDF (with CVODE's projection) goes on with long steps."""
    sol = nh.simulate(sleigh.nonholonomic(), (0, 1e4), SLEIGH_Y0)
    assert sol.success and sol.constraint_residual().max() < 1e-9
    assert sol.method.startswith("dop853->bdf") and sol.method.endswith("(stiff)")
    assert sol.stats["n_proj"] > 0 and sol.stats["n_steps"] < 1000


def test_auto_switches_to_bdf_on_a_stiff_spring(spring):
    """A stiff damped spring in a nonholonomic model: auto starts with DOP853, finds it stiff
    (Hairer's test) and goes on with BDF at about BDF's cost in steps, with an event too, and with dense
    output (which DOP853 keeps); Adams alone needs hundreds of thousands of steps."""
    auto = nh.simulate(spring, (0, 10), SPRING_Y0)
    bdf = nh.simulate(spring, (0, 10), SPRING_Y0, method="bdf")
    assert auto.method.startswith("dop853->bdf at t=") and auto.method.endswith("(stiff)")
    assert 0 < auto.stats["t_switch"] < 0.1
    assert auto.stats["n_steps"] < 1.3 * bdf.stats["n_steps"] + 20
    assert np.abs(auto.y[:, -1] - bdf.y[:, -1]).max() < 1e-5 * max(1.0, np.abs(bdf.y[:, -1]).max())
    with_event = nh.simulate(spring, (0, 10), SPRING_Y0, events=nh.Event(sp.Symbol("theta") - 100))
    assert with_event.method.startswith("dop853->bdf at t=") and 0 < with_event.stats["t_switch"] < 0.1
    dense = nh.simulate(spring, (0, 10), SPRING_Y0, dense_output=True)
    assert dense.method.startswith("dop853->bdf at t=") and 0 < dense.stats["t_switch"] < 0.1
    assert np.abs(dense.sol(dense.t) - dense.y).max() < 1e-12  # both kinds of steps kept
    assert np.abs(dense.y[:, -1] - auto.y[:, -1]).max() < 1e-12
    with pytest.warns(nh.SimulationWarning, match="max_steps"):
        adams = nh.simulate(spring, (0, 10), SPRING_Y0, method="adams", max_steps=3000)
    assert adams.status == -1 and adams.method == "adams"


def test_switch_keeps_t_eval_dense_output_and_events(spring):
    """Output across the switch: t_eval from CVODE's interpolants on both sides, the dense
    solution equal to it, an event after the switch where BDF finds it."""
    t = np.linspace(0, 3, 31)
    event = nh.Event(sp.Symbol("theta") - 1, direction=1)
    auto = nh.simulate(spring, (0, 3), SPRING_Y0, t_eval=t, events=event, dense_output=True)
    bdf = nh.simulate(spring, (0, 3), SPRING_Y0, t_eval=t, events=event, method="bdf", rtol=1e-11, atol=1e-13)
    assert auto.stats["t_switch"] < t[1]
    assert np.array_equal(auto.t, t) and np.abs(auto.sol(t) - auto.y).max() < 1e-12
    assert np.abs(auto.y - bdf.y).max() < 1e-5
    assert len(auto.t_events[0]) == len(bdf.t_events[0]) == 1
    assert abs(auto.t_events[0][0] - bdf.t_events[0][0]) < 1e-6


def test_simulate_many_reports_each_run_like_simulate(spring, sleigh):
    Y0 = np.array([SPRING_Y0, SPRING_Y0 * [1, 1, 1, 1, 0.5, 0, 0.5, 0]])
    batch = nh.simulate_many(spring, (0, 2), Y0, threads=2)
    for y0, res in zip(Y0, batch):
        one = nh.simulate(spring, (0, 2), y0)
        assert res.method == one.method and res.method.endswith("(stiff)")
        assert np.array_equal(res.y, one.y)


def test_auto_keeps_bdf_where_adams_does_not_fit(sleigh):
    """Friction (stiff) and constrained models with sensitivities run BDF from the start;
    Adams with sensitivities has no drift control, so asking for it is an error."""
    assert nh.simulate(sleigh.friction(1e-4), (0, 1), SLEIGH_Y0).method == "bdf"
    sens = nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_Y0, sensitivities=["a"])
    assert sens.method == "bdf" and sens.stats["n_proj"] > 0
    with pytest.raises(ValueError, match="drift_control=True with sensitivities"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_Y0, method="adams", drift_control=True,
                    sensitivities=["a"])


@pytest.mark.parametrize("rtol", [1e-8, 1e-10])
def test_auto_switches_where_the_error_estimate_holds_steps_inside_the_stability_region(rtol):
    """The tippe top on viscous contact (an eigenvalue -1.5e5, spinning at 150 rad/s): DOP853's
    error estimate held its steps at h |lambda| = 2.7 (rtol 1e-8) and 1.0 (1e-10), inside the
    stability region, where Hairer's test (h |lambda| > 6.1) never fired; the default run of 10 s
    ran out of max_steps at t = 6.49 (500,000 steps). Steps held by a real, decaying eigenvalue far
    above what accuracy allows now switch the run to BDF, which agrees with a tight reference."""
    from nonholo.bodies import quaternion_from_euler
    from nonholo.contact import rolling_state

    top = nh.systems.tippe_top(friction="viscous")
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
    ref = nh.simulate(top.nonholonomic(), (0, 0.2), y0, t_eval=[0.2], method="bdf", rtol=1e-12, atol=1e-14)
    run = nh.simulate(top.nonholonomic(), (0, 0.2), y0, t_eval=[0.2], rtol=rtol)
    assert run.method.startswith("dop853->bdf") and run.stats["n_steps"] < 3000
    assert np.abs(run.y[:, -1] - ref.y[:, -1]).max() < 100 * rtol * (1 + np.abs(ref.y[:, -1]).max())


@pytest.mark.parametrize("rtol", [1e-2, 1e-5, 1e-8, 1e-10])
def test_auto_keeps_dop853_on_fast_oscillations_and_accurate_steps(rtol):
    """The test of held steps asks for a real, decaying eigenvalue: an undamped oscillator of
    1000 rad/s (h |lambda| up to 1.5 at rtol 1e-2) and the knife-edge chain (a decaying mode at
    0.7-0.9 of what accuracy allows) stay on DOP853 at every tolerance."""
    x = sp.Symbol("x")
    spring = nh.System([x], sp.Matrix([[1]]), potential=sp.Rational(1, 2) * 10**6 * x**2)
    assert nh.simulate(spring.nonholonomic(), (0, 0.05), [1.0, 0.0], rtol=rtol, atol=rtol / 100).method == "dop853"
    chain = nh.systems.knife_edge_chain(8)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(8))]
    y0 = np.r_[q0, chain.project(q0, np.r_[1.0, 0.0, 0.5, np.zeros(7)])]
    assert nh.simulate(chain.nonholonomic(), (0, 5), y0, rtol=rtol, atol=rtol / 100).method == "dop853"


@pytest.mark.parametrize("c", [100.0, 200.0])
def test_dop853_steps_within_its_stability_region_where_the_fast_mode_is_unexcited(c):
    """x'' = -4x - (c/2)(x' + y'), the same in y: eigenvalues -c (about), -4/c and +-2i, and the fast
    mode hardly excited from x' + y' = 0. DOP853's error estimate does not see it, and its steps went
    past the border of the stability region (h lambda up to 26): the values at 21 output points were
    49 to 37,000 times rtol off with no warning (c = 200, rtol 1e-9: 3.7e-5). The stability cap (a
    power iteration's estimate of lambda) keeps them within 20 rtol, by default and with
    method='dop853'; the default still keeps DOP853 on an undamped oscillator of 1000 rad/s (above)."""
    from scipy.linalg import expm

    x, y, xd, yd = sp.symbols("x y x_dot y_dot")
    system = nh.System([x, y], sp.eye(2), potential=2 * (x**2 + y**2), force=-c / 2 * sp.Matrix([xd + yd, xd + yd]))
    M = np.zeros((4, 4))
    M[0, 2] = M[1, 3] = 1
    M[2, 0] = M[3, 1] = -4
    M[2:, 2:] = -c / 2
    y0, t = np.array([1.0, 0.0, 0.5, -0.5]), np.linspace(0, 1, 21)
    exact = np.array([expm(M * s) @ y0 for s in t]).T
    for rtol in (1e-8, 1e-9, 1e-10):
        for method in ("auto", "dop853"):
            run = nh.simulate(system.nonholonomic(), (0, 1), y0, t_eval=t, rtol=rtol, atol=rtol / 100, method=method)
            assert np.abs(run.y - exact).max() < 20 * rtol, (method, rtol, run.method, np.abs(run.y - exact).max())


def test_a_mildly_damped_run_stays_on_dop853_at_its_accuracy():
    """docs/guide/accuracy.md: x'' = -x - y/2, y'' = -x/2 - 100y - 10y' (eigenvalues -5 +- 8.7i, +-i) over
    [0, 10]: at rtol 1e-8 the default's steps were held by the stability cap, its estimate of |lambda|
    inflated by the pair's rotation (a geometric mean of the power iteration's quotients), so it switched to
    BDF and ended 5.7 rtol off. The Ritz values of the invariant plane give |lambda| = 10 exactly; accuracy
    holds the steps, and the default stays on DOP853, 0.18 rtol off; method='dop853' about rtol (1.2)."""
    from scipy.linalg import expm

    x, y, xd, yd = sp.symbols("x y x_dot y_dot")
    K = np.array([[1.0, 0.5], [0.5, 100.0]])
    system = nh.System([x, y], sp.eye(2), potential=(sp.Matrix([x, y]).T * sp.Matrix(K) * sp.Matrix([x, y]))[0] / 2,
                       force=sp.Matrix([0, -10 * yd]))
    J = np.block([[np.zeros((2, 2)), np.eye(2)], [-K, np.diag([0.0, -10.0])]])
    y0, t = np.array([1.0, 0.0, 0.0, 1.0]), np.linspace(0, 10, 201)
    exact = np.array([expm(J * s) @ y0 for s in t]).T
    rtol = 1e-8
    auto = nh.simulate(system.nonholonomic(), (0, 10), y0, t_eval=t, rtol=rtol, atol=rtol / 100)
    explicit = nh.simulate(system.nonholonomic(), (0, 10), y0, t_eval=t, rtol=rtol, atol=rtol / 100, method="dop853")
    assert auto.method == "dop853"
    assert np.abs(auto.y - exact).max() < 0.5 * rtol and np.abs(explicit.y - exact).max() < 3 * rtol


@pytest.mark.parametrize("method", ["auto", "dop853", "adams", "bdf"])
def test_the_last_step_is_reported_by_every_method(sleigh, method):
    """stats["last_step"] was 0 after every DOP853 run (the default's first method): it is the last
    step's signed size, as CVODE's, forward and backward (every step is an output here)."""
    model = sleigh.nonholonomic()
    for span in ((0, 5), (5, 0)):
        run = nh.simulate(model, span, [0, 0, 0, 1, 0, 0.5], method=method)
        assert run.stats["last_step"] == pytest.approx(run.t[-1] - run.t[-2], rel=1e-12), span


def test_an_event_leaves_auto_on_dop853():
    """auto ran Adams whenever the run had an event of the caller's: on an outside probe's sleigh (m = 2,
    I = 0.5, a = 0.3) over t = 2000, whose turning dies out, Adams held a step of 0.016 against a
    turning rate of +-2e-11 (noise below atol) and took 58,731 steps, where without the event auto
    took 71 (DOP853, then BDF); and an event cost 30-60x in accuracy. Events are found on DOP853's
    dense output: the run with an event takes the steps of the run without, and its event times
    agree with a tight reference."""
    model = nh.systems.chaplygin_sleigh(m=2.0, I=0.5, a=0.3).nonholonomic()
    y0 = [0, 0, 0, -1.2, 0, 1.5]
    plain = nh.simulate(model, (0, 2000), y0)
    far = nh.simulate(model, (0, 2000), y0, events=nh.Event("x - 1e6"))
    assert far.method == plain.method and far.stats["n_steps"] == plain.stats["n_steps"] < 200
    event = nh.Event("y + 10")  # the sleigh passes y = -10 (at about t = 13)
    run = nh.simulate(model, (0, 30), y0, events=event)
    reference = nh.simulate(model, (0, 30), y0, events=event, method="dop853", rtol=1e-12, atol=1e-14)
    assert run.method.startswith("dop853") and len(run.t_events[0]) == len(reference.t_events[0]) == 1
    np.testing.assert_allclose(run.t_events[0], reference.t_events[0], rtol=0, atol=1e-7)
    np.testing.assert_allclose(run.y[:, -1], plain_at(model, y0, 30.0), rtol=0, atol=1e-9)


def plain_at(model, y0, T):
    """The state at T of the default run without events."""
    return nh.simulate(model, (0, T), y0).y[:, -1]
