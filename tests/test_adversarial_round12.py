"""Findings of an outside adversarial probe (round 12): a reduced law run's friction ratio follows edits of
``result.y`` as its velocity does; a model's rhs names ``t`` when it is no number; a callable ``observe`` of
nh.fit that returns no pair (values, jacobian) is named; a sweep's KeyError lists its values."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th, m, I, a = sp.symbols("x y theta m I a")
METRIC = sp.Matrix([[m, 0, -m * a * sp.sin(th)], [0, m, m * a * sp.cos(th)],
                    [-m * a * sp.sin(th), m * a * sp.cos(th), I + m * a**2]])
SLEIGH = nh.System([x, y, th], METRIC, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                   parameters={m: 1.0, I: 1.0, a: 0.2})
Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]


@pytest.fixture(scope="module")
def coulomb_run():
    model = SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, v_s=0.01), normal=9.81)
    return model, nh.simulate(model, (0, 1), [0, 0, 0, 1.0, 0, 1.0], t_eval=[0, 0.5, 1.0])


def test_the_friction_ratio_follows_an_edit_of_y_as_the_velocity_does(coulomb_run):
    """It was a plain attribute set by the run: after ``r.y[3:] *= 1.5`` the velocity was computed again and
    the friction ratio kept the values of the samples before the edit."""
    model, r = coulomb_run
    ran = r.friction_ratio
    assert ran.shape == (1, 3) and np.all(np.isfinite(ran))
    assert r.friction_ratio is ran  # unedited: the run's own array
    np.testing.assert_array_equal(ran, model.friction_ratio(r.t, r.y))
    kept = r.y.copy()
    try:
        r.y[3:, :] *= 1.5
        edited = r.friction_ratio
        np.testing.assert_array_equal(edited, model.friction_ratio(r.t, r.y))
        assert not np.allclose(edited, ran)
    finally:
        r.y[:] = kept
    np.testing.assert_array_equal(r.friction_ratio, ran)


def test_a_run_without_a_law_has_no_friction_ratio():
    r = nh.simulate(SLEIGH.nonholonomic(), (0, 0.5), Y0, t_eval=[0, 0.5])
    assert not hasattr(r, "friction_ratio")


@pytest.mark.parametrize("make", [lambda: SLEIGH.nonholonomic(), lambda: SLEIGH.reduced(0.01, order=1),
                                  lambda: SLEIGH.reduced(order=1, law=nh.laws.Coulomb(0.5, v_s=0.01), normal=9.81)])
def test_rhs_and_jacobian_name_t_when_it_is_no_number(make):
    """It was float()'s "could not convert string to float: 'zero'"."""
    model = make()
    y0 = np.r_[Y0[:3], 1.0, 0.0, 1.0]
    for method in (model.rhs, model.jacobian):
        with pytest.raises(TypeError, match=r"^t must be a real number, got the string 'zero'"):
            method("zero", y0)
        with pytest.raises(TypeError, match=r"^t must be a real number"):
            method(None, y0)
        assert np.all(np.isfinite(method(np.float64(0.5), y0)))


@pytest.fixture(scope="module")
def fit_data():
    model = SLEIGH.nonholonomic()
    t_obs = np.linspace(0, 2, 9)
    data = nh.simulate(model, (0, 2), Y0, t_eval=t_obs, params={"a": 0.25})
    return model, t_obs, data.y[:2]


@pytest.mark.parametrize("observe, got", [
    (lambda r: r.y[:3], r"got an array of shape \(3, 9\)"),
    (lambda r: r.y[:2], r"got an array of shape \(2, 9\)"),
    (lambda r: (r.y[:2],), r"got a tuple of length 1"),
    (lambda r: 1.0, r"got float 1.0"),
    (lambda r: (r.y[:2], "jacobian"), r"its values or jacobian are no arrays of real numbers"),
])
def test_a_callable_observe_that_returns_no_pair_is_named(fit_data, observe, got):
    """It was "too many values to unpack (expected 2)" (or an unpacking of the array's two rows)."""
    model, t_obs, y_obs = fit_data
    with pytest.raises(TypeError, match=r"observe\(result\) must return a pair \(values, jacobian\): values of the "
                                        r"shape of y_obs \(2, 9\) and the jacobian of shape \(values.size, n_params\) "
                                        rf"= \(18, 1\); {got}"):
        nh.fit(model, t_obs, y_obs, {"a": 0.2}, Y0, observe=observe, compile=False)


def test_a_callable_observe_whose_values_have_another_shape_is_named(fit_data):
    model, t_obs, y_obs = fit_data

    def observe(r):
        jac = np.transpose(r.sensitivities[:3], (0, 2, 1)).reshape(-1, r.sensitivities.shape[1])
        return r.y[:3], jac

    with pytest.raises(ValueError, match=r"^observe\(result\) must return \(values, jacobian\) with values of the "
                                         r"shape of y_obs: the observed values have shape \(3, 9\)"):
        nh.fit(model, t_obs, y_obs, {"a": 0.2}, Y0, observe=observe, compile=False)


def test_a_sweep_names_its_values_for_a_missing_key():
    """It was a bare KeyError: 'zz'."""
    result = nh.sweep(lambda a: {"p": a, "q": 2 * a}, {"a": [1, 2]}, progress=False)
    np.testing.assert_array_equal(result["q"], [2.0, 4.0])
    with pytest.raises(KeyError, match=r"no value named 'zz'; values are \['p', 'q'\]; the grid's axes \['a'\] are "
                                       r"in result.coords"):
        result["zz"]


@pytest.mark.parametrize("method", ["auto", "bdf"])
def test_a_span_beyond_what_the_solvers_can_hold_is_refused(method):
    """An outside probe: a sleigh run to t = 1e200 ended with every state at 0, status 0, no warning (BDF's
    first step estimate overflowed: a step to 7.4e79). Spans reaching beyond 1e150 are refused by name;
    one to 1e30 runs, its energy kept."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    y0 = [0, 0, 0, -1.5, 0, 1.0]
    with pytest.raises(ValueError, match=r"t_span = \(0, 1e\+200\) reaches beyond 1e\+150"):
        nh.simulate(model, (0, 1e200), y0, method=method)
    far = nh.simulate(model, (0, 1e30), y0, method=method)
    assert far.status == 0
    energy = far.energy()
    assert abs(energy[-1] - energy[0]) < 1e-6 * energy[0]
