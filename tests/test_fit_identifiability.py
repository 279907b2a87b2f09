"""A parameter the observations do not depend on is refused before the fit, also where its computed
sensitivities are round-off rather than exact zeros: a knife edge's path does not depend on its mass
(x = sin t, y = 1 - cos t for any m), and the fit of m from 1.3 ended at 0.975 with success, from 3
at 3.75, from 0.2 at a NaN trial point."""

import warnings

import numpy as np
import pytest
import sympy as sp
from scipy.optimize import OptimizeWarning

import nonholo as nh

x, y, th, m, I, k = sp.symbols("x y theta m I k")


def knife(extra=0):
    """G = diag(m, m, I); with extra, a torsion spring k theta^2 / 2 that the path does depend on."""
    return nh.System([x, y, th], sp.diag(m, m, I), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                     potential=k * th**2 / 2 * extra, parameters={m: 1.0, I: 0.5, k: 2.0})


T = np.linspace(0, 2, 9)
Y0 = [0, 0, 0, 1, 0, 1]


@pytest.mark.parametrize("start", [{"m": 1.3}, {"m": 3.0}, {"m": 0.2}, {"m": 1.3, "I": 0.7}])
def test_a_parameter_the_path_does_not_depend_on_is_refused(start):
    model = knife().nonholonomic()
    data = nh.simulate(model, (0, 2), Y0, t_eval=T).y[:2]
    np.testing.assert_allclose(data, [np.sin(T), 1 - np.cos(T)], atol=1e-6)
    with pytest.raises(ValueError, match=rf"do not depend on {list(start)!r}".replace("[", r"\[").replace("]", r"\]")):
        nh.fit(model, T, data, start, Y0, observe=["x", "y"])


def test_a_parameter_the_path_does_depend_on_is_fitted_beside():
    """With a torsion spring the heading, and with it the path, depends on k / I: k is fitted, m still
    refused, and the default fit (no options) recovers k."""
    model = knife(extra=1).nonholonomic()
    data = nh.simulate(model, (0, 2), Y0, t_eval=T, rtol=1e-12, atol=1e-14).y[:2]
    fitted = nh.fit(model, T, data, {"k": 1.5}, Y0, observe=["x", "y"])
    assert fitted.success and fitted.params["k"] == pytest.approx(2.0, rel=1e-6)
    with pytest.raises(ValueError, match=r"do not depend on \['m'\]"):
        nh.fit(model, T, data, {"k": 1.5, "m": 1.2}, Y0, observe=["x", "y"])


@pytest.mark.parametrize("c", [1e-10, 3e-11])
def test_a_small_but_real_effect_is_fitted(c):
    """x'' = -c x' from (0, 1) over [0, 10]: x = -expm1(-c t) / c; c = 1e-10 moves x(10) by 5e-9, which the
    integration at the fit's rtol 1e-10 resolves; the refusal took 10 times the tolerances and refused it."""
    s = sp.Symbol("x")
    damped = nh.System([s], sp.Matrix([[1]]), force=[-k * sp.Symbol("x_dot")], parameters={k: c})
    t = np.linspace(0, 10, 11)
    data = (-np.expm1(-c * t) / c)[None, :]
    fitted = nh.fit(damped.nonholonomic(), t, data, {"k": 2 * c}, [0.0, 1.0], observe=["x"])
    assert fitted.params["k"] == pytest.approx(c, rel=1e-2)


def _damped(c_value):
    """x'' = -c x' - x."""
    c, xs, xd = sp.symbols("c x x_dot")
    return nh.System([xs], sp.Matrix([[1]]), force=[-c * xd - xs], velocities=[xd], parameters={c: c_value})


def _free_decay(t, c_value):
    w = np.sqrt(1 - c_value**2 / 4)
    return np.exp(-c_value * t / 2) * (np.cos(w * t) + c_value / (2 * w) * np.sin(w * t))


def test_an_estimate_the_integration_moves_is_told():
    """An outside probe's damping c = 1e-8 fitted to the closed form of x'' = -c x' - x over 20 s: 9.415e-9,
    5.8 % off, with a standard error of 3.6e-11 and no word (the integration's error grows along the run
    as a phase, which the standard error reads as scatter; here 3 %). A run at rtol / 100 measures it,
    and the message and a warning say how far it moves c; at rtol 1e-12 the estimate is within 1 %."""
    t = np.linspace(0, 20, 81)
    data = _free_decay(t, 1e-8)[None, :]
    model = _damped(3e-8).nonholonomic()
    with pytest.warns(OptimizeWarning, match=r"the integration's error moves the estimates: with rtol=1e-12 "
                                             r"\(the states observed, without sensitivities\) they would move c "
                                             r"by \+") as caught:
        loose = nh.fit(model, t, data, ["c"], [1.0, 0.0], observe=["x"])
    off = 1e-8 - loose.params["c"]
    assert off > 0.01 * 1e-8 and off > 10 * loose.stderr["c"]  # 3 % off, 60 standard errors
    told = float(str(caught[0].message).split("move c by ")[1].split(" ")[0])
    assert told == pytest.approx(off, rel=0.2) and "tighten rtol" in loose.message
    tight = nh.fit(model, t, data, ["c"], [1.0, 0.0], observe=["x"], rtol=1e-12, atol=1e-14)
    assert tight.params["c"] == pytest.approx(1e-8, rel=0.01)


def test_the_tighter_run_is_accurate_where_the_runs_with_sensitivities_are_not():
    """Another probe's c = 1e-9 over 200 s (32 periods): the fit's runs carry sensitivities (Adams), which at
    rtol 1e-12 were 4000x less accurate than a run without them (5.5e-9 in x against 1.4e-12): the
    tighter run, with sensitivities too, measured the Adams run's own error, and the default fit (0.05%
    off, under the 0.1% share) was told c would move by -5.8e-11 (6%; +5.4e-12 from another start) and to
    tighten rtol, which made it 100x worse. The states observed now come from a run without sensitivities
    (DOP853): no note by default; a fit at rtol 1e-12 (6% off) is told how far, checked at rtol 1e-13."""
    t = np.linspace(0, 200, 401)
    data = _free_decay(t, 1e-9)[None, :]
    model = _damped(1e-9).nonholonomic()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = nh.fit(model, t, data, ["c"], [1.0, 0.0], observe=["x"])
    assert abs(default.params["c"] - 1e-9) < 1e-3 * 1e-9
    with pytest.warns(OptimizeWarning, match=r"with rtol=1e-13 .* would move c by") as caught:
        tight = nh.fit(model, t, data, {"c": 3e-9}, [1.0, 0.0], observe=["x"], rtol=1e-12)
    off = 1e-9 - tight.params["c"]
    told = float(str(caught[0].message).split("move c by ")[1].split(" ")[0])
    assert abs(off) > 0.01 * 1e-9 and told == pytest.approx(off, rel=0.2)


def test_a_damping_the_integration_resolves_warns_nothing():
    """The same fit of c = 0.1 (by default): the integration's share is 1e-8 of it."""
    t = np.linspace(0, 20, 81)
    model = _damped(0.3).nonholonomic()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = nh.fit(model, t, _free_decay(t, 0.1)[None, :], ["c"], [1.0, 0.0], observe=["x"])
    assert fitted.success and fitted.params["c"] == pytest.approx(0.1, rel=1e-6)


def test_a_state_observed_twice_is_refused():
    """An outside probe's observe=["x", "x"] was taken: its two rows of y_obs weighed x double."""
    t = np.linspace(0, 2, 9)
    model = _damped(0.3).nonholonomic()
    data = _free_decay(t, 0.3)[None, :]
    with pytest.raises(ValueError, match=r"observe names \['x'\] more than once"):
        nh.fit(model, t, np.vstack([data, data]), ["c"], [1.0, 0.0], observe=["x", "x"])
    assert nh.fit(model, t, data, ["c"], [1.0, 0.0], observe=["x"]).success  # the default path


def test_a_jacobian_that_is_not_finite_is_named_so():
    """An outside probe's observe callable returning a NaN Jacobian was told its columns are "zero"."""
    t = np.linspace(0, 2, 9)
    model = _damped(0.3).nonholonomic()
    data = _free_decay(t, 0.3)

    def observe(result):
        return result.y[0], np.full((result.t.size, 1), np.nan)

    with pytest.raises(ValueError, match=r"not finite \(NaN or inf\) in the columns of \['c'\]"):
        nh.fit(model, t, data, ["c"], [1.0, 0.0], observe=observe)
