"""Outside probes of round 17 on the analysis calls: a tire law's model analysed at a negative rolling
speed (refused, as simulate refuses it as y0, not linearized into a sign-flipped spectrum), a fit that
stopped on its step tolerance where the gradient was not small (success False, not a standard error of
4.6e-29), eigenvalue-path errors that name the value they failed at and carry the path so far,
complex observations and string tolerances refused by name, one friction coefficient per contact,
and the refusals naming the model kind that was passed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import OptimizeWarning

import nonholo as nh

# the single-track car straight ahead (steer 0) with magic-formula tires: a push 1500 (U - u) holds the speed U
X, Y, PSI, XD, YD, RD = sp.symbols("x y psi x_dot y_dot psi_dot")
U, G = sp.symbols("U g")
MASS, IZ, A_CG, B_CG = 1500.0, 2500.0, 1.2, 1.4
SPEED = sp.cos(PSI) * XD + sp.sin(PSI) * YD


@pytest.fixture(scope="module")
def car():
    constraints = sp.Matrix([[-sp.sin(PSI), sp.cos(PSI), -B_CG], [-sp.sin(PSI), sp.cos(PSI), A_CG]])
    return nh.System([X, Y, PSI], sp.diag(MASS, MASS, IZ), constraints=constraints, velocities=[XD, YD, RD],
                     force=sp.Matrix([sp.cos(PSI), sp.sin(PSI), 0]) * 1500.0 * (U - SPEED),
                     parameters={U: 20.0, G: 9.81})


@pytest.fixture(scope="module")
def tires(car):
    """The friction model of the car's two tires (rear, front), rolling speed u as given (signed), normal
    loads m g b / L, m g a / L with g a parameter."""
    laws = [nh.laws.MagicFormula(B=12.0, C=1.3, D=0.9), nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9)]
    L = A_CG + B_CG
    return car.friction(law=laws, normal=[MASS * G * A_CG / L, MASS * G * B_CG / L], speed=[SPEED, SPEED])


def ahead(u):
    return [0, 0, 0, u, 0, 0]


# ---------------------------------------------------------------- a tire law where it does not hold
def test_linearize_refuses_a_tire_law_at_a_negative_rolling_speed_as_simulate_does(tires):
    with pytest.raises(ValueError, match="rolling speed of contact 0 is V = -20"):
        nh.simulate(tires, (0, 1), ahead(-20.0), params={"U": -20.0})
    with pytest.raises(ValueError, match=r"^y: the rolling speed of contact 0 is V = -20 <= 0") as err:
        nh.linearize(tires, ahead(-20.0), params={"U": -20.0})
    assert "friction (magic formula law) model does not hold there" in str(err.value)
    forward = nh.linearize(tires, ahead(20.0))  # the default: the car ahead at U = 20, stable
    assert forward.is_stable() and forward.physical_eigenvalues.size == 3


def test_the_check_uses_the_parameter_values_given(tires):
    """g = -9.81 given as params makes the tires' loads negative: refused with those values."""
    assert nh.linearize(tires, ahead(20.0), params={"g": 9.81}).is_stable()
    with pytest.raises(ValueError, match=r"^y: the normal load of contact 0 is N = -\d"):
        nh.linearize(tires, ahead(20.0), params={"g": -9.81})


def test_eigenvalue_path_and_critical_values_refuse_negative_speeds_naming_the_value(tires):
    values = np.linspace(-30.0, -10.0, 3)
    with pytest.raises(ValueError, match=r"^at U = -30: y: the rolling speed of contact 0 is V = -30"):
        nh.eigenvalue_path(tires, "U", values, ahead)
    with pytest.raises(ValueError, match=r"^at U = -30: y: the rolling speed"):
        nh.critical_values(tires, "U", values, ahead)
    path = nh.eigenvalue_path(tires, "U", -values[::-1], ahead)  # ahead at 10, 20, 30: the default, stable
    assert path.stable.all() and nh.critical_values(path) == []


def test_steady_motions_refuse_a_guess_and_a_motion_at_a_negative_speed(tires):
    with pytest.raises(ValueError, match=r"^guess: the rolling speed of contact 0 is V = -20"):
        nh.steady_motions(tires.system, ahead(-20.0), model=tires, params={"U": -20.0})
    found = nh.steady_motions(tires.system, ahead(-20.0), model=tires, fixed={"x_dot": 20.0})  # fixed: ahead
    np.testing.assert_allclose(found.state, ahead(20.0), atol=1e-9)
    with pytest.raises(nh.SteadyMotionError, match="no steady motion found from any of the 2 guesses.*guess\\[1\\]: "
                                                   "the rolling speed"):
        nh.steady_motions(tires.system, [ahead(19.0), ahead(-20.0)], model=tires, params={"U": -20.0})


def test_a_refusal_names_the_friction_model_of_a_law_not_the_nonholonomic_one(tires):
    with pytest.raises(ValueError, match="not a steady motion of the friction \\(magic formula law\\) model") as err:
        nh.linearize(tires, [0, 0, 0, 20.0, 0.5, 0.2])
    assert "nonholonomic" not in str(err.value) and "(checked)" not in str(err.value)
    lin = nh.linearize(tires, ahead(20.0))
    assert "friction (magic formula law) model" in repr(lin)


# ---------------------------------------------------------------- fit: a stop that is no minimum
def chain(n: int = 6):
    """A chain of n masses with quartic springs to the ground (chaotic): coupling k."""
    qs = sp.symbols(f"q0:{n}")
    k = sp.Symbol("k")
    V = sum(k * (qs[i + 1] - qs[i]) ** 2 / 2 for i in range(n - 1)) + k * qs[0] ** 2 / 2 + sum(q**4 for q in qs)
    y0 = np.zeros(2 * n)
    y0[n - 1] = 1.0
    return nh.System(list(qs), sp.eye(n), potential=V, parameters={k: 1.0}).nonholonomic(), y0, [str(q) for q in qs]


def test_a_fit_over_a_chaotic_horizon_is_not_reported_a_success(sleigh):
    """A chain of 6 masses fitted over t = 400 stops at its start (nfev 2) with a gradient far from zero:
    success False and a warning. The defaults, well-posed fits, still succeed without one: the chain over
    t = 5, and the sleigh's fit of its docstring to exact and to noisy data."""
    model, y0, names = chain()
    t_obs = np.linspace(0, 400, 50)
    data = nh.simulate(model, (0, 400), y0, t_eval=t_obs, params={"k": 1.3}).y[:6]
    with pytest.warns(OptimizeWarning, match="the steps shrank where the gradient did not"):
        res = nh.fit(model, t_obs, data, {"k": 0.7}, y0, observe=names, compile=False)
    assert not res.success and "the steps shrank where the gradient did not" in res.message
    g = res.jacobian.T @ res.residuals
    assert abs(g[0]) * 0.7 > res.cost  # what the test saw: far from stationary
    assert not np.isfinite(res.stderr["k"]) or res.stderr["k"] >= np.spacing(res.x[0])
    t_short = np.linspace(0, 5, 50)  # the default: a short horizon, well posed
    short = nh.simulate(model, (0, 5), y0, t_eval=t_short, params={"k": 1.3}).y[:6]
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptimizeWarning)
        good = nh.fit(model, t_short, short, {"k": 0.7}, y0, observe=names, compile=False)
    assert good.success and abs(good.params["k"] - 1.3) < 1e-6 and np.isfinite(good.stderr["k"])
    rolling = sleigh.nonholonomic()
    t_obs, y0 = np.linspace(0, 5, 6), [0, 0, 0, 1, 0, 1]
    exact = nh.simulate(rolling, (0, 5), y0, t_eval=t_obs, params={"a": 0.3})["phi_dot"][None]
    noisy = exact + 1e-3 * np.random.default_rng(17).standard_normal(exact.shape)
    for data in (exact, noisy):
        with warnings.catch_warnings():
            warnings.simplefilter("error", OptimizeWarning)
            res = nh.fit(rolling, t_obs, data, {"a": 0.2}, y0, observe=["phi_dot"], compile=False)
        assert res.success and abs(res.params["a"] - 0.3) < 1e-2
        assert np.spacing(0.3) < res.stderr["a"] < 1e-2


def test_a_standard_error_below_the_spacing_of_its_estimate_is_not_reported(sleigh):
    """Weights 1e40 (sigma 1e-20) taken as exact: a standard error of 1e-20 at a = 0.3, below its
    spacing 5.6e-17, is NaN with a warning; with weights 1 (the default) it is finite."""
    model = sleigh.nonholonomic()
    t_obs, y0 = np.linspace(0, 5, 6), [0, 0, 0, 1, 0, 1]
    data = nh.simulate(model, (0, 5), y0, t_eval=t_obs, params={"a": 0.3})["phi_dot"][None]
    with pytest.warns(OptimizeWarning, match="below the floating-point spacing of their estimates"):
        res = nh.fit(model, t_obs, data, {"a": 0.2}, y0, observe=["phi_dot"], weights=1e40, absolute_sigma=True,
                     compile=False)
    assert np.isnan(res.stderr["a"]) and np.isnan(res.covariance).all()
    plain = nh.fit(model, t_obs, data, {"a": 0.2}, y0, observe=["phi_dot"], absolute_sigma=True, compile=False)
    assert np.isfinite(plain.stderr["a"]) and plain.stderr["a"] > np.spacing(0.3)


# ---------------------------------------------------------------- fit's arguments
def test_fit_refuses_complex_observations_and_string_tolerances_by_name(sleigh):
    model = sleigh.nonholonomic()
    t_obs, y0 = np.linspace(0, 3, 7), [0, 0, 0, -1.5, 0, 1.0]
    data = nh.simulate(model, (0, 3), y0, t_eval=t_obs, params={"a": 0.3}).y[:2]
    with pytest.raises(TypeError, match="y_obs must be real"):
        nh.fit(model, t_obs, data + 0.5j, {"a": 0.2}, y0, observe=["x", "y"], compile=False)
    with pytest.raises(TypeError, match="weights must be real"):
        nh.fit(model, t_obs, data, {"a": 0.2}, y0, observe=["x", "y"], weights=1 + 1j, compile=False)
    with pytest.raises(TypeError, match="t_obs must be real"):
        nh.fit(model, t_obs + 1e-3j, data, {"a": 0.2}, y0, observe=["x", "y"], compile=False)
    with pytest.raises(TypeError, match="atol must be a positive number or one per state, got '1e-10'"):
        nh.fit(model, t_obs, data, {"a": 0.2}, y0, observe=["x", "y"], atol="1e-10", compile=False)
    with pytest.raises(TypeError, match="atol must be a positive number or one per state"):
        nh.simulate(model, (0, 3), y0, atol="1e-10")  # simulate alike (it read the string as the number)
    with pytest.raises(TypeError, match="atol must be a positive number or one per state"):
        nh.fit(model, t_obs, data, {"a": 0.2}, y0, observe=["x", "y"], atol=np.array(["1e-12"] * 6), compile=False)
    res = nh.fit(model, t_obs, data + 0j, {"a": 0.2}, y0, observe=["x", "y"], atol=1e-12, compile=False)
    assert res.success and abs(res.params["a"] - 0.3) < 1e-6  # a complex array with zero imaginary part is real


# ---------------------------------------------------------------- eigenvalue_path errors
def test_an_eigenvalue_path_error_names_the_value_and_keeps_the_path_so_far(sleigh):
    model = sleigh.nonholonomic()

    def turning_at_half(u):
        return [0, 0, 0, u, 0, 0.1 * (u == 0.5)]  # not steady at u = 0.5

    values = np.linspace(-1, 1, 5)
    with pytest.raises(ValueError, match=r"^at u = 0\.5: y is not a steady motion of the nonholonomic model") as err:
        nh.eigenvalue_path(model, "u", values, turning_at_half)
    assert "(checked)" not in str(err.value)
    assert isinstance(err.value.__cause__, ValueError) and str(err.value.__cause__).startswith("y is not a steady")
    np.testing.assert_array_equal(err.value.partial.values, [-1, -0.5, 0])
    assert err.value.partial.eigenvalues.shape[0] == 3
    path = nh.eigenvalue_path(model, "u", values, lambda u: [0, 0, 0, u, 0, 0])  # the default: steady everywhere
    assert path.values.size == 5 and path.stable.tolist() == [False, False, True, True, True]


def test_an_error_of_the_state_function_keeps_its_type_and_names_the_value(sleigh):
    model = sleigh.nonholonomic()

    def state(a):
        if a > 0.15:
            raise ZeroDivisionError("no table beyond 0.15")
        return [0, 0, 0, 1.0, 0, 0]

    with pytest.raises(ZeroDivisionError, match=r"^at a = 0\.2: no table beyond 0\.15") as err:
        nh.eigenvalue_path(model, "a", [-0.2, -0.1, 0.1, 0.2], state)
    np.testing.assert_array_equal(err.value.partial.values, [-0.2, -0.1, 0.1])
    with pytest.raises(ZeroDivisionError, match=r"^at speed = 2: no table") as err:  # a label: the path so far too
        nh.eigenvalue_path(model, "speed", [0.5, 1.0, 2.0], lambda s: state(0.1 * s))
    np.testing.assert_array_equal(err.value.partial.values, [0.5, 1.0])


def test_critical_values_name_the_value_between_the_samples_where_the_state_fails(sleigh):
    model = sleigh.nonholonomic()
    samples = [-0.2, -0.1, 0.1, 0.2]

    def state(a):
        if a not in samples:
            raise KeyError(f"no state tabulated at {a}")
        return [0, 0, 0, 1.0, 0, 0]

    path = nh.eigenvalue_path(model, "a", samples, state)
    with pytest.raises(KeyError, match=r"^\"at a = [-.\de]+: 'no state tabulated at") as err:
        nh.critical_values(path)
    assert err.value.partial == []
    (change,) = nh.critical_values(model, "a", samples, lambda a: [0, 0, 0, 1.0, 0, 0])  # the default
    assert change.kind == "divergence" and abs(change.value) < 1e-9


# ---------------------------------------------------------------- friction margin: one mu per contact
def test_friction_margin_takes_one_mu_per_contact(car):
    L = A_CG + B_CG
    loads = [MASS * 9.81 * A_CG / L, MASS * 9.81 * B_CG / L]
    q, v = [0, 0, 0.1], [20.0, 0.3, 0.2]
    each = car.friction_margin(mu=[0.8, 0.3], normal=loads)  # the front's margin the smaller
    scaled = car.friction_margin(mu=1.0, normal=[0.8 * loads[0], 0.3 * loads[1]])
    assert each.value(q, v) == pytest.approx(scaled.value(q, v), rel=1e-12)
    one = car.friction_margin(mu=0.8, normal=loads)  # the default: one mu for both
    assert car.friction_margin(mu=[0.8, 0.8], normal=loads).value(q, v) == pytest.approx(one.value(q, v), rel=1e-12)
    assert each.value(q, v) != pytest.approx(one.value(q, v), rel=1e-6)
    with pytest.raises(ValueError, match="mu has 3 entries for 2 contacts"):
        car.friction_margin(mu=[0.8, 0.9, 1.0], normal=loads)
    with pytest.raises(ValueError, match=r"mu\[1\] must be positive"):
        car.friction_margin(mu=[0.8, -0.3], normal=loads)


def test_fit_a_parameter_of_the_holonomic_constraints_from_the_defaults():
    """A pendulum's length l in h = (x^2 + y^2 - l^2) / 2 fitted from the defaults: every trial value of l
    moved the circle the start must be on, and the first trial run was refused ('y0 violates the holonomic
    constraints'); the trial runs now start from y0 projected onto their own h, as for a parameter of A."""
    x, y, l = sp.symbols("x y l")
    pendulum = nh.System([x, y], sp.eye(2), potential=9.81 * y, constraints=sp.Matrix([[x, y]]),
                         parameters={l: 1.0}, holonomic=[(x**2 + y**2 - l**2) / 2])

    def start(length, angle=0.4):
        return [length * np.sin(angle), -length * np.cos(angle), 0.0, 0.0]

    t_obs = np.linspace(0, 2, 11)
    data = nh.simulate(pendulum.nonholonomic(), (0, 2), start(1.05), t_eval=t_obs, params={"l": 1.05},
                       rtol=1e-11, atol=1e-12).y[:2]
    res = nh.fit(pendulum.nonholonomic(), t_obs, data, {"l": 1.0}, start(1.0), observe=["x", "y"])
    assert res.success and abs(res.params["l"] - 1.05) < 1e-7


def test_a_fit_stopped_at_its_bounds_with_the_gradient_pointing_out_is_a_minimum():
    """A sleigh with drag fitted to noisy data with c bounded below 0.15 (truth 0.1): least_squares' trust
    region stopped c 1.7e-12 above its bound, SciPy's active mask (xtol wide) did not mark it held, and the
    fit read "not stationary" though the gradient there points out of the box (a second-round probe). A
    parameter within AT_BOUND of a bound its gradient points out of is held; one whose gradient points
    inward, or away from any bound, is still tested."""
    from nonholo.analysis.fit_quality import held_at_bounds

    x, y, th = sp.symbols("x y theta")
    m, I, a, c, d, F0 = sp.symbols("m I a c d F0")
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(th)], [0, m, m * a * sp.cos(th)],
                   [-m * a * sp.sin(th), m * a * sp.cos(th), I + m * a**2]])
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       force=[-c * xd + F0 * sp.cos(th), -c * yd + F0 * sp.sin(th), -d * thd],
                       parameters={m: 1.0, I: 0.2, a: 0.3, c: 0.1, d: 0.05, F0: 0.2})
    model, y0, t = sleigh.nonholonomic(), [0, 0, 0, 1.0, 0, 0.8], np.linspace(0, 10, 101)
    truth = nh.simulate(model, (0, 10), y0, t_eval=t)
    rng = np.random.default_rng(0)
    rng.standard_normal((3, 101)), rng.standard_normal((3, 101))
    observed = ["theta", "theta_dot", "x"]
    data = np.array([truth[n] for n in observed]) + 0.05 * rng.standard_normal((3, 101))
    lb, ub = np.array([0, 0, 0.15, 0]), np.array([1, 1, 1, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        res = nh.fit(model, t, data, {"I": 0.25, "a": 0.15, "c": 0.2, "d": 0.1}, y0, observe=observed,
                     bounds=(lb, ub))
    assert res.success and "not stationary" not in res.message
    assert res.params["c"] == pytest.approx(0.15, abs=1e-9)
    # a -> 1 is held too; I -> 0, where the cost is flat in I (I + m a^2 ~ 1): the sign of its gradient there
    # is at the simulations' rounding (+0.0245 and -0.569 as DOP853's steps were rounded to the time's doubles),
    # and with it whether the bound holds I
    assert {"a", "c"} <= set(res.at_bounds) <= {"I", "a", "c"} and "c = 0.15 at its lower bound" in res.message
    x_ = np.array([0.15 + 1e-12, 0.5, 1.0 - 1e-11, 0.5])
    g = np.array([146.0, 3.0, -1.8, -2.0])
    held = held_at_bounds(x_, g, np.ones(4), (np.array([0.15, 0, 0, 0]), np.array([1, 1, 1, 1])))
    assert held.tolist() == [True, False, True, False]
    assert not held_at_bounds(x_, -g, np.ones(4), (np.array([0.15, 0, 0, 0]), np.array([1, 1, 1, 1]))).any()
    assert not held_at_bounds(x_, g, np.ones(4), (np.full(4, -np.inf), np.full(4, np.inf))).any()  # no bounds
