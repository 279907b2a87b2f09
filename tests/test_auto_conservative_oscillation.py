"""method="auto" on a conservative system with a fast, excited oscillation stays on DOP853. An outside
probe's x'' = -x + y/2, y'' = -1e4 y + x/2 (eigenvalues +-i, +-100i; nothing decays) from (1, 0.01, 0, 0)
switched to BDF at rtol 1e-5 to 1e-7 (t = 4.6 at rtol 1e-6): 10x the steps of method="dop853" and 9-47x its
error, the fast oscillation damped. Hairer's quotient |J d| / |d| (and its real part) is inflated up to
h omega^2 by the non-normal Jacobian of an oscillation in (x, x'); a step now counts toward the switch only
where the power iteration's estimate of |lambda| agrees."""

import numpy as np
import pytest
import scipy.linalg as sl
import sympy as sp

import nonholo as nh

x, y = sp.symbols("x y")
Y0 = np.array([1.0, 0.01, 0.0, 0.0])
T = 10.0


def exact(b, times):
    M = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0.5, 0, 0], [0.5, -b, 0, 0]])
    return np.array([sl.expm(M * t) @ Y0 for t in times]).T


@pytest.mark.parametrize("b", [1e4, 1e5])
@pytest.mark.parametrize("rtol", [1e-6, 1e-7])
def test_a_fast_undamped_oscillation_does_not_switch_to_bdf(b, rtol):
    model = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + b * y**2 / 2 - x * y / 2).nonholonomic()
    times = np.linspace(0, T, 101)
    ref = exact(b, times)
    default = nh.simulate(model, (0, T), Y0, t_eval=times, rtol=rtol, atol=rtol / 100)
    plain = nh.simulate(model, (0, T), Y0, t_eval=times, rtol=rtol, atol=rtol / 100, method="dop853")
    assert default.method == "dop853"
    assert np.abs(default.y - ref).max() < 0.3 * np.abs(plain.y - ref).max()
    assert default.stats["n_steps"] < 2 * plain.stats["n_steps"]


def test_a_damped_fast_mode_still_switches():
    """The same with the fast mode damped (y'' = -1e4 y - 200 y' + x/2, eigenvalues about -100 double and
    +-i): steps held by stability, the run goes on with BDF."""
    system = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + 1e4 * y**2 / 2 - x * y / 2,
                       force=sp.Matrix([0, -200 * sp.Symbol("y_dot")]))
    run = nh.simulate(system.nonholonomic(), (0, T), Y0, rtol=1e-6, atol=1e-8)
    assert run.method.startswith("dop853->bdf")


def exact_damped(c, times, y0):
    M = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0.5, 0, 0], [0.5, -1e4, 0, -c]])
    return np.array([sl.expm(M * t) @ y0 for t in times]).T


@pytest.mark.parametrize("c, rtol", [(1.0, 1e-9), (3.0, 1e-8), (10.0, 1e-8), (30.0, 1e-9)])
def test_a_lightly_damped_fast_mode_stays_on_dop853(c, rtol):
    """An outside probe: y'' = -1e4 y - c y' + x/2 (eigenvalues -c/2 +- 100i, 81 to 89.7 degrees from the
    negative axis, and +-i): once the fast mode died out, DOP853's steps sat at the stability border and auto
    went on with BDF, which near the imaginary axis runs at order 1 or 2: 2-4x the steps of method="dop853"
    and 1e2 to 1e6 times its error (c = 10: 20.7 rtol against 1e-5 rtol). A step counts toward the switch
    only where the dominant eigenvalue (the Ritz values of the power iteration) lies in BDF's sector."""
    system = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + 1e4 * y**2 / 2 - x * y / 2,
                       force=sp.Matrix([0, -c * sp.Symbol("y_dot")]))
    y0, times = np.array([1.0, 0.0, 0.0, 0.0]), np.linspace(0, 20, 41)
    ref = exact_damped(c, times, y0)
    default = nh.simulate(system.nonholonomic(), (0, 20), y0, t_eval=times, rtol=rtol, atol=rtol / 100)
    plain = nh.simulate(system.nonholonomic(), (0, 20), y0, t_eval=times, rtol=rtol, atol=rtol / 100,
                        method="dop853")
    assert default.method == "dop853"
    assert np.abs(default.y - ref).max() < rtol  # 1e2-1e6 times the plain run's error after a switch
    assert np.abs(default.y - ref).max() <= 3 * np.abs(plain.y - ref).max() + 1e-12
    assert default.stats["n_steps"] < 1.5 * plain.stats["n_steps"]


def test_a_damped_fast_mode_far_faster_than_the_motion_goes_on_with_bdf():
    """A second probe: y'' = -1e8 y - 2 zeta 1e4 y' + x/2 (zeta 0.1 and 0.2: 84 and 78 degrees, outside BDF4's
    sector) held DOP853 at its stability cap, 127,000-148,000 steps per 50 s, and ran out of max_steps over t = 200
    at the defaults; BDF takes a few thousand. Where the mode is 1000 times faster than the solution moves (here
    1e4), 200 steps at the cap hand the run over; at omega = 100 (above) DOP853 stays. Beyond 88 degrees it stays
    too (BDF stalls there) and a run that spends max_steps says that a fast mode held its steps."""
    for zeta in (0.1, 0.2):
        system = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + 1e8 * y**2 / 2 - x * y / 2,
                           force=sp.Matrix([0, -2 * zeta * 1e4 * sp.Symbol("y_dot")]))
        M = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0.5, 0, 0], [0.5, -1e8, 0, -2 * zeta * 1e4]])
        y0 = np.array([1.0, 1e-3, 0.0, 0.5])
        run = nh.simulate(system.nonholonomic(), (0, 200), y0)
        assert run.method.startswith("dop853->bdf") and run.stats["t_switch"] < 0.2
        assert run.stats["n_steps"] < 10_000
        assert np.abs(run.y_final - sl.expm(M * 200) @ y0).max() < 1e-4  # BDF's accuracy, 1e3 rtol
    light = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + 1e8 * y**2 / 2 - x * y / 2,
                      force=sp.Matrix([0, -100 * sp.Symbol("y_dot")]))  # zeta 0.005, 89.7 degrees
    with pytest.warns(nh.SimulationWarning, match=r"held at DOP853's stability limit by a fast mode \(\|lambda\| "
                                                  r"about (99\d\d|100\d\d)"):
        stopped = nh.simulate(light.nonholonomic(), (0, 20), [1.0, 1e-3, 0.0, 0.5], max_steps=20_000)
    assert stopped.status == -1 and stopped.method == "dop853"


def test_the_stability_cap_does_not_alias_with_a_pair_at_120_degrees():
    """A second probe: DOP853 took 5,149 steps at zeta = 0.5 (an eigenvalue pair at 120 degrees, its cube real)
    and 4,599 at zeta = cos 36 degrees (144), against 1,441 and 1,485 at their neighbours: the cap's estimate of
    |lambda|, a geometric mean of four power-iteration quotients, turned in step with the pair. The Ritz values of
    the nearly invariant plane are the estimate there: every damping ratio takes about as many steps."""
    steps = {}
    for zeta in (0.45, 0.5, 0.55, 0.809016994374947):
        system = nh.System([x, y], sp.eye(2), potential=x**2 / 2 + 1e6 * y**2 / 2 - x * y / 2,
                           force=sp.Matrix([0, -2 * zeta * 1e3 * sp.Symbol("y_dot")]))
        run = nh.simulate(system.nonholonomic(), (0, 5), [1.0, 1e-3, 0.0, 0.5], method="dop853")
        steps[zeta] = run.stats["n_steps"]
    assert max(steps.values()) < 1.15 * min(steps.values()), steps
    default = nh.simulate(system.nonholonomic(), (0, 5), [1.0, 1e-3, 0.0, 0.5])  # switches: the mode is damped
    assert default.method.startswith("dop853->bdf")
