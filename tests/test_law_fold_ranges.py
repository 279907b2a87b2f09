"""The fold of a law's slow manifold where the law's range is not a disc: the friction ratio of a law's
reduced model is |lambda| over the law's own largest force in the direction of lambda, so a run stops
at the fold of an elliptic Coulomb law (mu_x = 0.8, mu_y = 0.3, its saturation mu_x: the ratio was
|lambda| / (mu_x N), at most 0.379 at the fold, and the run went past it to CV_TOO_MUCH_WORK after
50 s) and of a Stribeck law with a viscous term (no saturation: its ratio was NaN throughout).

The references are independent: the elliptic cone (lambda_x / mu_x)^2 + (lambda_y / mu_y)^2 = N^2
in closed form, with lambda from the saddle-point system G a - A^T lambda = r, A a = -A' v solved
here with NumPy and the nonholonomic motion integrated by SciPy; the Stribeck curve's peak on a dense
grid, and the belt's needed force k x + k2 (x - y) from SciPy."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import nonholo as nh
from nonholo.models.law_reduced import RATIO_STOP

M, INERTIA, J, R, GRAVITY, SLOPE = 2.0, 0.2, 0.05, 0.3, 9.81, 0.25
MU_X, MU_Y, V_S = 0.8, 0.3, 1e-3
N = M * GRAVITY * np.cos(SLOPE)
Y0 = np.array([0, 0, -np.pi / 2, 0, 0.0, -1.0, 0.3, 1.0 / 0.3])


def rolling_disc():
    """A disc rolling without side slip on a slope (x, y, heading phi, rolling angle theta), two rows."""
    x, y, phi, theta = sp.symbols("x y phi theta")
    A = sp.Matrix([[sp.cos(phi), sp.sin(phi), 0, -R], [-sp.sin(phi), sp.cos(phi), 0, 0]])
    return nh.System([x, y, phi, theta], sp.diag(M, M, INERTIA, J), potential=M * GRAVITY * np.sin(SLOPE) * y,
                     constraints=A, contacts=[[0, 1]])


def elliptic_law():
    s1, s2, normal = sp.symbols("s1 s2 N", real=True)
    d = sp.sqrt(MU_X**2 * s1**2 + MU_Y**2 * s2**2 + (0.3 * V_S) ** 2)
    return nh.laws.Law([-normal * MU_X**2 * s1 / d, -normal * MU_Y**2 * s2 / d], slip=[s1, s2], normal=normal,
                       scale=V_S, saturation=MU_X)


def multipliers(state):
    """lambda of the no-slip motion at [q, u] (NumPy): G a - A^T lambda = r, A a = -A' v, G constant."""
    phi, v = state[2], state[4:]
    G = np.diag([M, M, INERTIA, J])
    A = np.array([[np.cos(phi), np.sin(phi), 0, -R], [-np.sin(phi), np.cos(phi), 0, 0]])
    A_dot = v[2] * np.array([[-np.sin(phi), np.cos(phi), 0, 0], [-np.cos(phi), -np.sin(phi), 0, 0]])
    r = np.array([0.0, -M * GRAVITY * np.sin(SLOPE), 0.0, 0.0])
    K = np.block([[G, -A.T], [A, np.zeros((2, 2))]])
    solution = np.linalg.solve(K, np.r_[r, -A_dot @ v])
    return solution[:4], solution[4:]


def elliptic_ratio(state):
    lam = multipliers(state)[1]
    return np.hypot(lam[0] / MU_X, lam[1] / MU_Y) / N


def nonholonomic_reference(level):
    """The time where the elliptic ratio of the nonholonomic motion from Y0 reaches ``level`` (SciPy)."""
    def event(t, state):
        return elliptic_ratio(state) - level

    event.terminal = True
    run = solve_ivp(lambda t, state: np.r_[state[4:], multipliers(state)[0]], (0, 5), Y0, method="DOP853",
                    rtol=1e-12, atol=1e-13, events=event)
    return run.t_events[0][0]


def test_the_ratio_of_an_elliptic_law_is_its_elliptic_cone():
    """At states of the run, the ratio is the elliptic gauge, not |lambda| / (mu_x N) (0.3786 at the fold)."""
    model = rolling_disc().reduced(order=1, law=elliptic_law(), normal=N)
    run = nh.simulate(model, (0, 1.8), Y0, t_eval=np.linspace(0, 1.8, 19), rtol=1e-10, atol=1e-12)
    expected = np.array([elliptic_ratio(state) for state in run.y.T])
    np.testing.assert_allclose(run.friction_ratio[0], expected, rtol=1e-9)
    p = model.param_vector()
    python = [model.expansion.friction_ratio(t, state[:4], state[4:], p)[0] for t, state in zip(run.t, run.y.T)]
    np.testing.assert_allclose(python, expected, rtol=1e-9)  # the Python reference, the same way


def test_a_reduced_run_stops_at_the_fold_of_an_elliptic_law():
    """The probe's disc: the elliptic cone is left at t = 2.098203 (SciPy); the run stops where the ratio
    reaches RATIO_STOP, within O(v_s) of the nonholonomic motion's time for that ratio, at once."""
    assert nonholonomic_reference(1.0) == pytest.approx(2.098203, abs=1e-6)
    stop = nonholonomic_reference(RATIO_STOP)
    model = rolling_disc().reduced(order=1, law=elliptic_law(), normal=N)
    with pytest.warns(nh.SimulationWarning, match="close to the fold"):
        run = nh.simulate(model, (0, 3), Y0, t_eval=np.linspace(0, 3, 301), rtol=1e-10, atol=1e-12)
    assert run.status == 1 and run.flag_name == "SLOW_MANIFOLD_FOLD", run.message
    assert "no slip of the law carries it" in run.message
    assert run.t_last == pytest.approx(stop, abs=2e-3) and run.stats["n_steps"] < 2000
    np.testing.assert_allclose(elliptic_ratio(run.y_final), RATIO_STOP, rtol=1e-6)
    assert np.all(run.t <= run.t_last)


def stribeck_belt():
    x, y = sp.symbols("x y")
    return nh.System([x, y], sp.diag(1.0, 0.5), potential=10.0 * x**2 / 2 + 4.0 * (x - y) ** 2 / 2,
                     constraints=sp.Matrix([[1, 0]]), affine=sp.Matrix([0.5]))


def test_a_stribeck_law_with_a_viscous_term_has_a_ratio_and_a_fold():
    """Stribeck(0.6, 0.4, v_s=0.01, viscous=0.5) has no saturation (its force grows again past its peak)
    but its slow manifold folds at the peak: the ratio is the needed force over the peak (a dense grid
    of the curve), and the run stops where it reaches RATIO_STOP (the belt's needed force
    k x + k2 (x - y) of the stuck block against the peak, SciPy), where it ended with
    STEP_SIZE_COLLAPSED, its ratio NaN."""
    law = nh.laws.Stribeck(0.6, 0.4, v_s=0.01, viscous=0.5)
    assert law.saturation is None
    normal = 9.81
    force = sp.lambdify(law.slip[0], law.expr[0].xreplace({law.normal: normal}), "numpy")
    slips = np.geomspace(1e-7, 1.0, 2000001)
    curve = -force(slips)
    first = np.argmax(np.diff(curve) < 0)
    peak = curve[first]
    np.testing.assert_allclose(peak, 5.8389, rtol=1e-4)

    def belt(t, state):  # the block stuck to the belt (x' = 0.5), the second mass on its spring
        return [0.5, state[3], 0.0, -4.0 * (state[1] - state[0]) / 0.5]

    def needed(state):
        return 10.0 * state[0] + 4.0 * (state[0] - state[1])

    reference = solve_ivp(belt, (0, 3), [0, 0, 0.5, 0], method="DOP853", rtol=1e-12, atol=1e-13, dense_output=True)
    model = stribeck_belt().reduced(order=1, law=law, normal=normal)
    times = np.linspace(0, 0.5, 6)
    ratio = model.friction_ratio(times, reference.sol(times))
    np.testing.assert_allclose(ratio[0], [abs(needed(reference.sol(t))) / peak for t in times], rtol=1e-6)
    stop = brentq(lambda t: abs(needed(reference.sol(t))) - RATIO_STOP * peak, 0.1, 3)
    with pytest.warns(nh.SimulationWarning, match="close to the fold"):
        run = nh.simulate(model, (0, 3), [0.0, 0.0, 0.5, 0.0], rtol=1e-10, atol=1e-12)
    assert run.flag_name == "SLOW_MANIFOLD_FOLD", run.message
    assert run.t_last == pytest.approx(stop, abs=1e-3)
    np.testing.assert_allclose(abs(needed(run.y_final)), RATIO_STOP * peak, rtol=1e-6)


def test_a_law_that_fills_its_disc_gives_the_ratio_the_search_finds():
    """Coulomb's law fills the disc of radius mu N (nh.laws.Coulomb.disc_range): its friction ratio is
    |lambda| / (mu N) at once, without the search along the law that an elliptic law needs (the fold event
    at every step cost 5.6 us against 1.2 us). The same law written as a Law of one's own is searched: both
    give the same ratio along a run, in C++ and in the Python reference, and |lambda| / (mu N) from NumPy."""
    s1, s2, normal = sp.symbols("s1 s2 N", real=True)
    d = sp.sqrt(s1**2 + s2**2 + V_S**2)
    own = nh.laws.Law([-0.5 * normal * s1 / d, -0.5 * normal * s2 / d], slip=[s1, s2], normal=normal, scale=V_S,
                      saturation=0.5)
    builtin = nh.laws.Coulomb(0.5, V_S, rows=2)
    assert builtin.disc_range and not own.disc_range
    disc = rolling_disc()
    models = [disc.reduced(order=1, law=law, normal=N) for law in (builtin, own)]
    run = nh.simulate(models[0], (0, 1.5), Y0, t_eval=np.linspace(0, 1.5, 7))
    ratios = [m.friction_ratio(run.t, run.y)[0] for m in models]
    np.testing.assert_allclose(ratios[0], ratios[1], rtol=1e-9)
    q, u = run.y[:4, 3], run.y[4:, 3]
    np.testing.assert_allclose(ratios[0][3], np.linalg.norm(multipliers(run.y[:, 3])[1]) / (0.5 * N), rtol=1e-8)
    python = [m.expansion.friction_ratio(run.t[3], q, u, m.param_vector())[0] for m in models]
    np.testing.assert_allclose(python, ratios[0][3], rtol=1e-8)
