"""nh.fit's statistics and guards on the knife edge pushed by a force F along its blade and a
torque tau (mass m, inertia J): observations of weight 0 count in no degree of freedom, parameters
the data cannot identify (only F/m and tau/J reach x, y) get inf covariance and an OptimizeWarning,
trial points out of the physical range (J < 0) are rejected steps, an observe callable's Jacobian
is shape-checked, and a parameter both fitted and fixed is refused by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import OptimizeWarning

import nonholo as nh

X, Y, TH, M, J, F, TAU = sp.symbols("x y theta m J F tau")
Y0 = [0, 0, 0, 1.0, 0, 0.4]
T_OBS = np.linspace(0, 3, 16)


@pytest.fixture(scope="module")
def knife():
    system = nh.System([X, Y, TH], sp.diag(M, M, J), constraints=sp.Matrix([[sp.sin(TH), -sp.cos(TH), 0]]),
                       force=sp.Matrix([F * sp.cos(TH), F * sp.sin(TH), TAU]),
                       parameters={M: 2.0, J: 0.5, F: 0.7, TAU: 0.3})
    return system.nonholonomic()


@pytest.fixture(scope="module")
def noisy_xy(knife):
    """x, y of a run with F = 0.9, tau = 0.2 at T_OBS, plus Gaussian noise of 0.01."""
    clean = nh.simulate(knife, (0, 3), Y0, t_eval=T_OBS, params={"F": 0.9, "tau": 0.2}, rtol=1e-12, atol=1e-14)
    xy = np.vstack([clean["x"], clean["y"]])
    return xy + 0.01 * np.random.default_rng(5).standard_normal(xy.shape)


def quiet_fit(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error", OptimizeWarning)  # these fits identify every parameter
        return nh.fit(*args, **kwargs)


# ------------------------------------------------------------------ 1. weight 0 is no observation
def test_weight_zero_observations_count_in_no_degree_of_freedom(knife, noisy_xy):
    """The second half of the samples at weight 0 (and a wrong value there) gives the estimates and
    the standard errors of the fit with those samples left out: s^2 = r.r / (16 - 2), not / (32 - 2)."""
    start = {"F": 0.7, "tau": 0.3}
    w = np.ones_like(noisy_xy)
    w[:, 8:] = 0.0
    masked = noisy_xy.copy()
    masked[:, 8:] = 123.0
    weighted = quiet_fit(knife, T_OBS, masked, start, Y0, observe=["x", "y"], weights=w)
    left_out = quiet_fit(knife, T_OBS[:8], noisy_xy[:, :8], start, Y0, observe=["x", "y"], t_span=(0, 3))
    np.testing.assert_allclose(weighted.x, left_out.x, rtol=1e-10)
    np.testing.assert_allclose(list(weighted.stderr.values()), list(left_out.stderr.values()), rtol=1e-10)
    # the identity of the module docstring: s^2 (J^T W J)^-1 with n = 16 observations of nonzero weight
    r, jac = weighted.residuals, weighted.jacobian
    np.testing.assert_allclose(weighted.covariance, r @ r / (16 - 2) * np.linalg.inv(jac.T @ jac), rtol=1e-12)


def test_no_degree_of_freedom_left_gives_inf_covariance_and_a_warning(knife, noisy_xy):
    """Two observations of nonzero weight for two parameters leave nothing to estimate s^2 from
    (curve_fit: inf and OptimizeWarning); absolute_sigma needs no s^2 and stays finite."""
    w = np.zeros_like(noisy_xy)
    w[:, 8] = 1.0
    with pytest.warns(OptimizeWarning, match=r"more observations of nonzero weight \(2\) than identified "
                                              r"parameters \(2\)"):
        res = nh.fit(knife, T_OBS, noisy_xy, {"F": 0.7, "tau": 0.3}, Y0, observe=["x", "y"], weights=w)
    assert np.all(np.isinf(res.covariance))
    absolute = quiet_fit(knife, T_OBS, noisy_xy, {"F": 0.7, "tau": 0.3}, Y0, observe=["x", "y"], weights=w,
                         absolute_sigma=True)
    jac = absolute.jacobian
    np.testing.assert_allclose(absolute.covariance, np.linalg.inv(jac.T @ jac), rtol=1e-12)


# ------------------------------------------------------------------ 2. identifiability
def test_unidentified_parameters_get_inf_covariance_and_a_warning_naming_them(knife, noisy_xy):
    """F and m enter x, y only as F/m: their covariance entries are inf and a warning says so;
    tau stays identified with the standard error of the fit with m held at its estimate (the same
    data, the same column space of the Jacobian, the same n - rank degrees of freedom)."""
    bounds = ([0.01, 0.01, -5], [10, 10, 5])
    with pytest.warns(OptimizeWarning, match=r"\['F', 'm'\] are not identified.*F and m enter only in a combination"):
        res = nh.fit(knife, T_OBS, noisy_xy, {"F": 0.7, "m": 2.0, "tau": 0.3}, Y0, observe=["x", "y"],
                     bounds=bounds)
    assert "F and m enter only in a combination" in res.message
    assert repr(res).endswith(f"message={res.message!r})")  # whole: it was cut mid-word before the warning
    assert np.all(np.isinf(res.covariance[:2, :])) and np.all(np.isinf(res.covariance[:, :2]))
    assert np.isfinite(res.covariance[2, 2]) and res.stderr["tau"] > 0
    p = res.params
    reduced = quiet_fit(knife, T_OBS, noisy_xy, {"F": p["F"], "tau": 0.3}, Y0, observe=["x", "y"],
                        fixed={"m": p["m"]})
    assert abs(reduced.params["F"] / p["m"] - p["F"] / p["m"]) < 1e-6  # the estimate stays: one point of the set
    np.testing.assert_allclose(res.stderr["tau"], reduced.stderr["tau"], rtol=1e-6)


def test_two_unidentified_combinations_are_named_apart(knife, noisy_xy):
    """F, m, tau, J: only F/m and tau/J reach x, y; the warning groups the parameters by the
    null directions that couple them (the projector onto the null space is block diagonal)."""
    with pytest.warns(OptimizeWarning, match="F and m enter only in a combination; tau and J enter only in a "
                                             "combination"):
        res = nh.fit(knife, T_OBS, noisy_xy, {"F": 0.7, "m": 2.0, "tau": 0.3, "J": 0.5}, Y0, observe=["x", "y"],
                     bounds=(0.01, 10))
    assert np.all(np.isinf(res.covariance))


# ------------------------------------------------------------------ 3. trial points out of range
@pytest.fixture(scope="module")
def theta_j01(knife):
    """theta of a noise-free run with J = 0.1."""
    return nh.simulate(knife, (0, 3), Y0, t_eval=T_OBS, params={"J": 0.1}, rtol=1e-12, atol=1e-14)["theta"][None]


@pytest.mark.parametrize("options", [None, {"method": "dogbox"}])
def test_a_trial_point_with_negative_inertia_is_a_rejected_step(knife, theta_j01, options):
    """From J = 2 the first Gauss-Newton step overshoots below J = 0 (metric not positive definite):
    the trust region (trf by default, or dogbox) rejects it, shrinks, and reaches the true J = 0.1."""
    res = quiet_fit(knife, T_OBS, theta_j01, {"J": 2.0}, Y0, observe=["theta"], least_squares_options=options)
    assert res.success and abs(res.params["J"] - 0.1) < 1e-8


def test_out_of_range_at_the_start_or_with_lm_is_an_error_naming_it(knife, theta_j01):
    with pytest.raises(nh.ModelError, match=r"not positive definite.*at the starting point of the fit, "
                                            r"\{'J': -1.0\}"):
        nh.fit(knife, T_OBS, theta_j01, {"J": -1.0}, Y0, observe=["theta"])
    with pytest.raises(ValueError, match=r"method='lm' is out of the model's range \(the metric is not positive "
                                         r"definite.*use method 'trf'.*bounds") as info:
        nh.fit(knife, T_OBS, theta_j01, {"J": 2.0}, Y0, observe=["theta"], least_squares_options=dict(method="lm"))
    assert isinstance(info.value.__cause__, nh.ModelError)


# ------------------------------------------------------------------ 4. observe's Jacobian
def xy_observer(transpose: bool):
    def observe(res):
        jac = np.transpose(res.sensitivities[[0, 1]], (0, 2, 1)).reshape(-1, res.sensitivities.shape[1])
        return np.vstack([res["x"], res["y"]]), (jac.T if transpose else jac)
    return observe


@pytest.mark.parametrize("start", [{"tau": 0.25, "F": 0.6}, {"tau": 0.25}])
def test_observe_jacobian_of_the_wrong_shape_is_refused(knife, noisy_xy, start):
    n = len(start)
    with pytest.raises(ValueError, match=rf"Jacobian the observe callable returns must have the shape .* = "
                                         rf"\(32, {n}\).*got shape \({n}, 32\)"):
        nh.fit(knife, T_OBS, noisy_xy, start, Y0, observe=xy_observer(transpose=True))
    by_callable = quiet_fit(knife, T_OBS, noisy_xy, start, Y0, observe=xy_observer(transpose=False))
    by_name = quiet_fit(knife, T_OBS, noisy_xy, start, Y0, observe=["x", "y"])
    np.testing.assert_array_equal(by_callable.x, by_name.x)


# ------------------------------------------------------------------ 5. fitted and fixed
@pytest.mark.parametrize("key", ["tau", TAU])
def test_a_parameter_both_fitted_and_fixed_is_refused_by_name(knife, noisy_xy, key):
    with pytest.raises(ValueError, match=r"\['tau'\] are given both in params \(to fit\) and in fixed"):
        nh.fit(knife, T_OBS, noisy_xy, {"tau": 0.25, "F": 0.6}, Y0, observe=["x", "y"], fixed={key: 1.0, "m": 2.0})


def test_a_fit_result_reads_short_and_draws_unfitted_data_hollow():
    """The repr names the estimates (it dumped 4,000 characters of arrays); plot() draws observations
    of weight 0 hollow, apart from the fitted data."""
    import matplotlib

    matplotlib.use("Agg")
    model = nh.systems.chaplygin_sleigh(a=0.3).nonholonomic()
    t_obs, y0 = np.linspace(0, 3, 7), [0, 0, 0, 1, 0, 1]
    observed = nh.simulate(model, (0, 3), y0, t_eval=t_obs)["phi_dot"][None]
    weights = np.ones_like(observed)
    weights[0, 2] = 0.0
    observed[0, 2] += 5.0  # an outlier left out
    result = nh.fit(model, t_obs, observed, {"a": 0.2}, y0, observe=["phi_dot"], weights=weights, compile=False)
    assert result.params["a"] == pytest.approx(0.3, rel=1e-8)
    assert len(repr(result)) < 300 and "a=0.3" in repr(result)
    ax = result.plot()
    hollow = [line for line in ax.lines if line.get_markerfacecolor() == "none"]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [t_obs[2]]


def test_a_fit_stopped_by_failing_trial_runs_says_so():
    """An outside probe's sleigh with its blade at an angle beta (row [-sin(phi + beta), cos(phi + beta), 0]),
    fitted in a reduced model's frame form: its runs with sensitivities stop where the frame must be re-split,
    later for smaller beta, so the fit's trial points toward the truth 0.2 failed and it stopped at
    beta = 0.039 with a message blaming a chaotic cost. It now says the trial runs failed, and why; the
    default model (the coordinates) fits beta to 1e-9."""
    x, y, phi, m, inertia, a, beta = sp.symbols("x y phi m I a beta")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), inertia + m * a**2]])
    blade = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi + beta), sp.cos(phi + beta), 0]]),
                      parameters={m: 1.3, inertia: 0.7, a: 0.25, beta: 0.0})
    y0 = np.r_[0.0, 0.0, 0.1, blade.project([0.0, 0.0, 0.1], [1.0, 0.3, 0.8])]
    truth = nh.simulate(blade.nonholonomic(), (0, 3), y0, t_eval=T_OBS, params={"beta": 0.2, "a": 0.25},
                        project_y0=True, rtol=1e-12, atol=1e-12)
    data = np.vstack([truth["x"], truth["y"]])
    start = {"beta": 0.0, "a": 0.3}
    fitted = nh.fit(blade.nonholonomic(), T_OBS, data, start, y0, observe=["x", "y"])
    assert fitted.success and abs(fitted.params["beta"] - 0.2) < 1e-8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        framed = nh.fit(blade.reduced(0.01, order=0, velocities="frame"), T_OBS, data, start, y0, observe=["x", "y"])
    assert any(issubclass(w.category, OptimizeWarning) and "were rejected because the simulation failed"
               in str(w.message) for w in caught)
    assert not framed.success and abs(framed.params["beta"] - 0.2) > 0.1
    assert "must be re-chosen" in framed.message and "not at a minimum" in framed.message
