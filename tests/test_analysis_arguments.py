"""The analysis entry points' arguments: complex sweep results stay complex, tolerances and
parameter mappings are refused by name, approximate [q, q'] guesses of steady motions for a model
in Kane's speeds, steady motions deduplicated modulo the cyclic coordinates, fit's observations and
weights checked by name, and a state of a Kane model's own length read as that model's state."""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh
from nonholo.analysis.states import model_state
from test_stability import spring_sleigh

ROOT = Path(__file__).resolve().parents[1]
STRAIGHT = [0, 0, 0, 1.0, 0, 0]  # the sleigh gliding straight ahead at unit speed


@pytest.fixture(scope="module")
def sleigh_model(sleigh):
    return sleigh.nonholonomic()


def kane_sleigh(state: str = "speeds"):
    """The Chaplygin sleigh (m = I = 1, a = 0.2) from KanesMethod: u1 forward, u3 turning, u2 dependent."""
    x, y, th = me.dynamicsymbols("x y theta")
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    m, I, a = sp.symbols("m I a")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, u3 * N.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * B.x + u2 * B.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    kd = [x.diff() - (u1 * sp.cos(th) - u2 * sp.sin(th)), y.diff() - (u1 * sp.sin(th) + u2 * sp.cos(th)),
          th.diff() - u3]
    km = me.KanesMethod(N, [x, y, th], [u1, u3], kd_eqs=kd, u_dependent=[u2], velocity_constraints=[u2])
    km.kanes_equations([me.RigidBody("b", G, B, m, (me.inertia(B, 0, 0, I), G))], [])
    return nh.System.from_kanes_method(km, {m: 1.0, I: 1.0, a: 0.2}, state=state)


@pytest.fixture(scope="module")
def kane_speeds():
    return kane_sleigh()


@pytest.fixture(scope="module")
def kane_qdot():
    return kane_sleigh("qdot")


# ------------------------------------------------------------------ 1. sweeps keep complex results
def test_sweep_keeps_complex_numpy_results_as_complex():
    def spectrum(c):
        lam = np.array([-c + 1j, -c - 1j])
        return {"lam": lam, "first": lam[0], "real": c}

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: nothing is cast to real
        res = nh.sweep(spectrum, {"c": [0.1, 0.2]}, progress=False, threads=1)
    assert res["lam"].dtype == np.complex128 and res["first"].dtype == np.complex128
    assert res["real"].dtype == np.float64  # the default: numbers give floats
    np.testing.assert_array_equal(res["lam"], [[-0.1 + 1j, -0.1 - 1j], [-0.2 + 1j, -0.2 - 1j]])
    np.testing.assert_array_equal(res["first"], [-0.1 + 1j, -0.2 + 1j])


def test_sweep_gives_python_complex_a_complex_array_not_objects():
    res = nh.sweep(lambda c: complex(-c, 1.0), {"c": [0.1, 0.2]}, progress=False, threads=1)
    assert res["value"].dtype == np.complex128
    np.testing.assert_array_equal(res["value"], [-0.1 + 1j, -0.2 + 1j])
    nested = nh.sweep(lambda c: [complex(-c, 1.0), 2.0], {"c": [0.5]}, progress=False, threads=1)
    assert nested["value"].dtype == np.complex128 and nested["value"].shape == (1, 2)


def test_sweep_column_complex_when_any_point_is_complex():
    """np.linalg.eigvals returns real arrays when every eigenvalue is real: the overdamped points
    are real, the underdamped complex, and the column is complex at every point alike."""
    res = nh.sweep(lambda c: np.linalg.eigvals([[0.0, 1.0], [-1.0, -c]]), {"c": [0.1, 3.0]}, progress=False,
                   threads=1)
    assert res["value"].dtype == np.complex128
    under = np.sort_complex(res["value"][0])
    np.testing.assert_allclose(under, [-0.05 - np.sqrt(0.9975) * 1j, -0.05 + np.sqrt(0.9975) * 1j], rtol=1e-14)
    over = np.sort(res["value"][1].real)
    np.testing.assert_allclose(over, [(-3 - np.sqrt(5)) / 2, (-3 + np.sqrt(5)) / 2], rtol=1e-14)
    assert np.all(res["value"][1].imag == 0)


def test_sweep_complex_column_fills_failed_points_with_nan():
    def f(c):
        if c > 0.15:
            raise RuntimeError("no value here")
        return complex(-c, 1.0)

    with pytest.warns(nh.errors.SweepWarning, match="did not finish"):
        res = nh.sweep(f, {"c": [0.1, 0.2]}, progress=False, threads=1)
    assert res["value"].dtype == np.complex128
    assert res["value"][0] == -0.1 + 1j and np.isnan(res["value"][1])


def test_sweep_of_linearized_eigenvalues_keeps_the_oscillation():
    x, xd, c, k = sp.symbols("x x_dot c k")
    osc = nh.System.from_lagrangian((xd**2 - k * x**2) / 2, [x], [xd], force=[-c * xd],
                                    parameters={c: 0.0, k: 1.0}).nonholonomic()

    def eig(c, k):
        return {"lam": nh.linearize(osc, [0.0, 0.0], params={"c": c, "k": k}).physical_eigenvalues}

    res = nh.sweep(eig, {"c": [0.1, 0.2], "k": [1.0, 4.0]}, progress=False, threads=1)
    assert res["lam"].dtype == np.complex128 and res["lam"].shape == (2, 2, 2)
    for i, cv in enumerate([0.1, 0.2]):
        for j, kv in enumerate([1.0, 4.0]):
            expected = -cv / 2 + np.array([1j, -1j]) * np.sqrt(4 * kv - cv**2) / 2
            np.testing.assert_allclose(res["lam"][i, j], expected, rtol=1e-12)


# ------------------------------------------------------------------ 2. tolerances and params by name
BAD_TOLERANCES = [np.nan, np.inf, 0.0, -1e-8]


def test_linearize_default_checks_and_eigenvalue(sleigh_model):
    lin = nh.linearize(sleigh_model, STRAIGHT)
    assert lin.n_zero == 4
    np.testing.assert_allclose(lin.physical_eigenvalues.real, [-0.2 / 1.04], rtol=1e-12)
    with pytest.raises(ValueError, match="not on the constraint set"):
        nh.linearize(sleigh_model, [0, 0, 0, 1.0, 0.7, 0.5])


@pytest.mark.parametrize("bad", BAD_TOLERANCES)
@pytest.mark.parametrize("name", ["steady_tol", "zero_tol"])
def test_linearize_refuses_bad_tolerances_by_name(sleigh_model, name, bad):
    with pytest.raises(ValueError, match=f"{name} must be positive and finite"):
        nh.linearize(sleigh_model, [0, 0, 0, 1.0, 0.7, 0.5], **{name: bad})


@pytest.mark.parametrize("params", [[0.3], (("a", 0.3),), "a", 0.3])
def test_analysis_calls_refuse_params_that_are_not_a_mapping(sleigh, sleigh_model, params):
    match = "params must be a mapping name -> value"
    with pytest.raises(TypeError, match=match):
        nh.linearize(sleigh_model, STRAIGHT, params=params)
    with pytest.raises(TypeError, match=match):
        nh.stability.tangent_space(sleigh_model, STRAIGHT, params=params)
    with pytest.raises(TypeError, match=match):
        nh.steady_motions(sleigh, [0, 0, 0.3, 1, 0.2, 0.1], params=params)
    with pytest.raises(TypeError, match=match):
        nh.steady_motions(sleigh, [[0, 0, 0.3, 1, 0.2, 0.1]] * 2, params=params)
    with pytest.raises(TypeError, match=match):
        nh.eigenvalue_path(sleigh_model, "a", [0.1, 0.2], STRAIGHT, params=params)
    with pytest.raises(TypeError, match=match):
        nh.critical_values(sleigh_model, "a", [0.1, 0.2], STRAIGHT, params=params)
    with pytest.raises(TypeError, match=match):
        nh.vakonomic_bvp(sleigh, [0, 0, 0], [1, 0, 0], 1.0, params=params)


def test_mapping_params_still_accepted(sleigh, sleigh_model):
    lin = nh.linearize(sleigh_model, STRAIGHT, params={"a": 0.4})
    np.testing.assert_allclose(lin.physical_eigenvalues.real, [-0.4 / 1.16], rtol=1e-12)
    sm = nh.steady_motions(sleigh, [0, 0, 0.3, 1, 0.2, 0.1], fixed={"x_dot": 1.0}, params={"a": 0.4})
    assert abs(sm.state[5]) < 1e-12 and abs(sm.state[4] - np.tan(sm.state[2])) < 1e-12


@pytest.mark.parametrize("bad", BAD_TOLERANCES)
def test_steady_motions_refuses_bad_tol_by_name(sleigh, bad):
    with pytest.raises(ValueError, match="tol must be positive and finite"):
        nh.steady_motions(sleigh, [0, 0, 0.3, 1.0, 0.2, 0.1], tol=bad)
    with pytest.raises(ValueError, match="tol must be positive and finite"):
        nh.steady_motions(sleigh, [[0, 0, 0.3, 1.0, 0.2, 0.1]] * 2, tol=bad)


def test_steady_motions_refuses_bad_max_iterations(sleigh):
    with pytest.raises(ValueError, match="max_iterations"):
        nh.steady_motions(sleigh, [0, 0, 0.3, 1.0, 0.2, 0.1], max_iterations=0)


@pytest.mark.parametrize("bad", BAD_TOLERANCES)
def test_eigenvalue_path_and_critical_values_refuse_bad_tolerances(sleigh_model, bad):
    with pytest.raises(ValueError, match="stability_tol must be positive and finite"):
        nh.eigenvalue_path(sleigh_model, "a", [0.1, 0.2], STRAIGHT, stability_tol=bad)
    with pytest.raises(ValueError, match="xtol must be positive and finite"):
        nh.critical_values(sleigh_model, "a", [0.1, 0.2], STRAIGHT, xtol=bad)
    with pytest.raises(ValueError, match="steady_tol must be positive and finite"):
        nh.eigenvalue_path(sleigh_model, "a", [0.1, 0.2], STRAIGHT, steady_tol=bad)
    with pytest.raises(ValueError, match="zero_tol must be positive and finite"):
        nh.eigenvalue_path(sleigh_model, "a", [0.1, 0.2], STRAIGHT, zero_tol=bad)


def test_eigenvalue_path_default_tolerances(sleigh_model):
    path = nh.eigenvalue_path(sleigh_model, "a", [0.1, 0.2], STRAIGHT)
    np.testing.assert_allclose(path.physical[:, 0].real, [-0.1 / 1.01, -0.2 / 1.04], rtol=1e-12)
    assert nh.critical_values(path) == []


@pytest.mark.parametrize("bad", [np.nan, np.inf, -1e-9])
def test_is_stable_refuses_bad_tol(sleigh_model, bad):
    lin = nh.linearize(sleigh_model, STRAIGHT)
    assert lin.is_stable() and lin.is_stable(0.0)
    with pytest.raises(ValueError, match="tol must be non-negative and finite"):
        lin.is_stable(bad)


def test_fit_refuses_fixed_that_is_not_a_mapping(sleigh_model):
    t_obs = np.linspace(0, 1, 3)
    with pytest.raises(TypeError, match="fixed must be a mapping name -> value"):
        nh.fit(sleigh_model, t_obs, np.zeros((1, 3)), {"a": 0.2}, [0, 0, 0, 1, 0, 1], observe=["phi_dot"],
               fixed=[("m", 1.0)], compile=False)


def test_convergence_refuses_params_that_are_not_a_mapping(sleigh):
    with pytest.raises(TypeError, match="params must be a mapping name -> value"):
        nh.analysis.studies.convergence(sleigh, [0.1, 0.01], STRAIGHT, (0, 1), params=[0.3], progress=False)


# ------------------------------------------------------------------ 3. approximate guesses, Kane's speeds
ROUGH = [0, 0, 0.3, 1.0, 0.25, 0.05]  # [x, y, theta, x', y', theta']: y' off the no-slip constraint


def test_steady_motions_qdot_model_solves_the_rough_guess(kane_qdot):
    sm = nh.steady_motions(kane_qdot, ROUGH, fixed={"x_dot": 1.0})
    np.testing.assert_allclose(sm.state[[2, 3, 4]], [0.288401, 1.0, 0.296673], atol=1e-6)
    assert abs(sm.state[5]) < 1e-12
    assert abs(sm.state[4] - np.tan(sm.state[2])) < 1e-12  # on the no-slip constraint


def test_steady_motions_speeds_model_takes_a_rough_q_qdot_guess(kane_speeds):
    sm = nh.steady_motions(kane_speeds, ROUGH)
    assert sm.model.state_names == ["x", "y", "theta", "u1", "u3"]
    assert sm.state[2] == 0.3 and abs(sm.state[4]) < 1e-12  # heading kept, turning rate to zero
    assert sm.residual < 1e-12
    # the constraint component dropped: u1 starts at x' cos(theta) + y' sin(theta)
    assert 1.0 < sm.state[3] < np.cos(0.3) + 0.25 * np.sin(0.3) + 1e-12
    fixed = nh.steady_motions(kane_speeds, ROUGH, fixed={"u1": 1.0})
    np.testing.assert_allclose(fixed.state, [0, 0, 0.3, 1.0, 0.0], rtol=0, atol=1e-12)
    assert fixed.drift == pytest.approx({"x": np.cos(0.3), "y": np.sin(0.3)}, rel=1e-12)


def test_steady_motions_speeds_model_several_guesses_one_rough(kane_speeds):
    exact = [0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]  # on the constraint set, steady
    found = nh.steady_motions(kane_speeds, [ROUGH, exact])
    assert len(found) == 2
    np.testing.assert_allclose(found[1].state, [0, 0, 0.3, 1.0, 0.0], rtol=0, atol=1e-15)
    assert found[1].iterations == 0


def test_steady_motions_a_guess_that_cannot_be_used_is_one_failure(kane_speeds):
    bad = [np.nan, 0, 0.3, 1.0, 0.2, 0.1]
    found = nh.steady_motions(kane_speeds, [bad, ROUGH])
    assert len(found) == 1 and found[0].state[2] == 0.3
    with pytest.raises(nh.SteadyMotionError, match=r"any of the 2 guesses \(guess\[0\] contains NaN.*guess\[1\]"):
        nh.steady_motions(kane_speeds, [bad, ROUGH], max_iterations=1)
    with pytest.raises(ValueError, match="guess contains NaN or inf"):
        nh.steady_motions(kane_speeds, bad)


def test_linearize_still_requires_q_qdot_on_the_constraint_set(kane_speeds):
    model = kane_speeds.nonholonomic()
    with pytest.raises(ValueError, match=r"y given as \[q, q'\].*violates the constraints"):
        nh.linearize(model, ROUGH)
    lin = nh.linearize(model, [0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0])
    np.testing.assert_allclose(lin.physical_eigenvalues.real, [-0.2 / 1.04], rtol=1e-10)


def test_reduced_model_in_a_frame_linearizes_and_takes_rough_guesses(sleigh):
    """The frame form of the reduced model (state [q, w]) has no velocity constraint rows: its
    linearization is the coordinate form's, and a rough [q, q'] guess is mapped as for Kane's speeds."""
    on = [0, 0, 0.3, np.cos(0.3), np.sin(0.3), 0.0]
    frame0 = nh.linearize(sleigh.reduced(0.01, 0, velocities="frame"), on)
    np.testing.assert_allclose(frame0.physical_eigenvalues.real, [-0.2 / 1.04], rtol=1e-10)
    assert frame0.n_zero == 4
    frame1 = nh.linearize(sleigh.reduced(0.01, 1, velocities="frame"), on)
    coords1 = nh.linearize(sleigh.reduced(0.01, 1), on)
    np.testing.assert_allclose(frame1.physical_eigenvalues, coords1.physical_eigenvalues, rtol=1e-8)
    assert abs(frame1.physical_eigenvalues[0] - frame0.physical_eigenvalues[0]) > 1e-4  # order 1 differs
    model = sleigh.reduced(0.01, 0, velocities="frame")
    sm = nh.steady_motions(sleigh, ROUGH, model=model)
    assert sm.state.shape == (5,) and sm.residual < 1e-12 and abs(sm.state[4]) < 1e-12
    assert len(nh.steady_motions(sleigh, [ROUGH, np.r_[3.0, ROUGH[1:]]], model=model)) == 1


# ------------------------------------------------------------------ 4. distinct modulo cyclic coordinates
def test_steady_motions_distinct_modulo_cyclic_coordinates(sleigh):
    found = nh.steady_motions(sleigh, [[0, 0, 0.3, 1, 0.2, 0.1], [5.0, -2.0, 0.3, 1, 0.2, 0.1]],
                              fixed={"x_dot": 1.0})
    assert len(found) == 1
    np.testing.assert_allclose(found[0].state, [0, 0, 0.277021, 1.0, 0.284332, 0.0], atol=1e-6)
    # straight motions at x' = 1 are a family in phi: the member found is the one nearest the guess
    # (to the iteration's tolerance), and its drift is its own velocity along the blade
    state = found[0].state
    assert found[0].drift == pytest.approx({"x": 1.0, "y": state[4]}, rel=1e-12)
    assert state[4] == pytest.approx(np.tan(state[2]), rel=1e-12)


def test_steady_motions_keeps_motions_that_differ_in_other_components(sleigh):
    found = nh.steady_motions(sleigh, [[0, 0, 0.3, 1, 0.2, 0.1], [1.0, 1.0, -0.5, 1, -0.5, 0.1]],
                              fixed={"x_dot": 1.0})
    assert len(found) == 2
    np.testing.assert_allclose([sm.state[2] for sm in found], [0.277021, -0.512295], atol=1e-6)


# ------------------------------------------------------------------ 5. fit: observations and weights
@pytest.fixture(scope="module")
def sleigh_data(sleigh_model):
    t_obs, y0 = np.linspace(0, 5, 6), [0, 0, 0, 1, 0, 1]
    obs = nh.simulate(sleigh_model, (0, 5), y0, t_eval=t_obs, params={"a": 0.3})["phi_dot"][None].copy()
    return t_obs, y0, obs


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_fit_refuses_non_finite_observations_by_name(sleigh_model, sleigh_data, bad):
    t_obs, y0, obs = sleigh_data
    obs = obs.copy()
    obs[0, 3] = bad
    with pytest.raises(ValueError, match=r"y_obs contains NaN or inf \(1 of 6 values, at the indices \(0, 3\)\)"):
        nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe=["phi_dot"], compile=False)


def test_fit_missing_value_by_weight_zero(sleigh_model, sleigh_data):
    t_obs, y0, obs = sleigh_data
    plain = nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe=["phi_dot"], compile=False)
    assert plain.success and abs(plain.params["a"] - 0.3) < 1e-6
    obs = obs.copy()
    obs[0, 3] = 100.0  # a wrong value, weighted out
    w = np.ones_like(obs)
    w[0, 3] = 0.0
    res = nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe=["phi_dot"], weights=w, compile=False)
    assert res.success and abs(res.params["a"] - 0.3) < 1e-6


def test_fit_names_weights_of_the_wrong_shape(sleigh_model, sleigh_data):
    t_obs, y0, obs = sleigh_data
    with pytest.raises(ValueError, match=r"weights must have the shape of y_obs, \(1, 6\).*got shape \(2,\)"):
        nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe=["phi_dot"], weights=[1.0, 2.0], compile=False)
    per_time = nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe=["phi_dot"], weights=np.full(6, 4.0),
                      compile=False)
    assert abs(per_time.params["a"] - 0.3) < 1e-6


def test_fit_names_times_bounds_and_a_terminal_event(sleigh_model, sleigh_data):
    """What fit is given is named: an unsorted or single t_obs (it said t_eval, t_span), a start outside its
    bounds (SciPy's "Initial guess is outside of provided bounds"), observations after a terminal event
    (it said the observed values have shape (1, 3)); one state name as a string is a list of one, as params."""
    t_obs, y0, obs = sleigh_data
    fit = functools.partial(nh.fit, sleigh_model, params={"a": 0.2}, y0=y0, observe=["phi_dot"], compile=False)
    with pytest.raises(ValueError, match=r"t_obs must be strictly increasing .* t_obs\[2\] = 2, t_obs\[3\] = 1"):
        fit(t_obs[[0, 1, 2, 1, 4, 5]], obs)
    with pytest.raises(ValueError, match=r"t_obs holds one time \(5\): give t_span=\(t0, 5\)"):
        fit([5.0], obs[:, -1:])
    with pytest.raises(ValueError, match=r"the start a = 0.2 lies outside its bounds \(0.25, 0.5\)"):
        fit(t_obs, obs, bounds=(0.25, 0.5))
    phi = sleigh_model.system.coordinates[2]
    with pytest.raises(ValueError, match=r"a terminal event stopped the simulation at t = .* \(3 of 6, from t = 3\)"):
        fit(t_obs, obs, events=nh.Event(phi - 2.0, terminal=True))
    single = nh.fit(sleigh_model, t_obs, obs, {"a": 0.2}, y0, observe="phi_dot", compile=False)
    assert single.success and abs(single.params["a"] - 0.3) < 1e-6  # the default keeps working: a = 0.3


# ------------------------------------------------------------------ 6. a Kane model's own length decides
@pytest.fixture(scope="module")
def cart_pendulum():
    """A cart with a pendulum in Kane's speeds u1 (the bob's horizontal speed), u2 = l theta': no
    dependent speeds, so [q, u] and [q, q'] both have length 2n = 4."""
    x, th = me.dynamicsymbols("x theta")
    u1, u2 = me.dynamicsymbols("u1 u2")
    M, m, l, g = sp.symbols("M m l g")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Axis", [th, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    Pc = O.locatenew("Pc", x * N.x)
    Pb = Pc.locatenew("Pb", -l * A.y)
    kd = [u1 - (x.diff() + l * sp.cos(th) * th.diff()), u2 - l * th.diff()]
    Pc.set_vel(N, (u1 - sp.cos(th) * u2) * N.x)
    A.set_ang_vel(N, u2 / l * N.z)
    Pb.v2pt_theory(Pc, N, A)
    km = me.KanesMethod(N, [x, th], [u1, u2], kd_eqs=kd)
    km.kanes_equations([me.Particle("cart", Pc, M), me.Particle("bob", Pb, m)], [(Pb, -m * g * N.y)])
    vals = {M: 2.0, m: 0.5, l: 1.5, g: 9.81}
    return (nh.System.from_kanes_method(km, vals).nonholonomic(),
            nh.System.from_kanes_method(km, vals, state="qdot").nonholonomic())


def test_state_of_the_models_own_length_is_the_models_state(cart_pendulum):
    speeds, qdot = cart_pendulum
    y = np.array([0.0, 0.2, 0.0, 1.0])
    assert speeds.n_states == 2 * speeds.system.n == 4
    np.testing.assert_array_equal(model_state(speeds, y), y)  # read as [q, u], never mapped
    mapped = speeds.frame.state(y[:2], y[2:])  # the documented way for a [q, q']
    np.testing.assert_allclose(mapped, [0.0, 0.2, 1.5 * np.cos(0.2), 1.5], rtol=1e-14)
    a = nh.simulate(qdot, (0, 1), y, t_eval=[1.0])
    b = nh.simulate(speeds, (0, 1), mapped, t_eval=[1.0])
    np.testing.assert_allclose([b["x"][-1], b["theta"][-1]], [a["x"][-1], a["theta"][-1]], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose([a["x"][-1], a["theta"][-1]], [0.374333, -0.069095], atol=1e-6)


def test_the_length_rule_is_documented():
    assert "is always the model's state" in " ".join(model_state.__doc__.split())
    for doc in (nh.linearize.__doc__, nh.steady_motions.__doc__):
        assert "always the model's state" in " ".join(doc.split())
    guide = " ".join((ROOT / "docs" / "guide" / "defining_a_system.md").read_text().split())
    assert "a state of the model's own length is always `[q, u_ind]`" in guide
    assert "`model.frame.state(q, qdot)`" in guide


def test_steady_motions_in_quasi_velocities_stay_near_the_guess():
    """A sleigh on a torsion spring (k phi^2 / 2): its straight motions at phi = 0 are a family in the
    speed. In the reduced model's frame form (state (q, w)) the residual depends weakly on the speed
    near phi = 0, and the least-squares Newton steps walked along the family: the speed 1.2 of the
    guess came back as 3.39 at order 1 and 24.8 at order 2 (1.2 in the coordinate form). The steps
    are now pulled back toward the guess within the family."""
    spring = spring_sleigh()
    guess = [0.1, 0, 0.05, 1.2, 0.1, 0.0]  # [q, q']
    for order in (1, 2):
        for velocities in ("frame", "coordinates"):
            found = nh.steady_motions(spring, guess, model=spring.reduced(1e-2, order, velocities=velocities))
            assert abs(found.state[2]) < 1e-9  # phi = 0
            assert found.drift["x"] == pytest.approx(1.2, rel=1e-2)  # the guess's speed, to the slip's O(eps)


def test_a_system_given_where_its_model_is_asked_for_is_named():
    """linearize, eigenvalue_path and critical_values of a System raised AttributeError ('System' object
    has no attribute 'system' / 'params'); they name the argument and what it takes."""
    sleigh = nh.systems.chaplygin_sleigh()
    y = [0, 0, 0, 1, 0, 0]
    for call, argument in ((lambda: nh.linearize(sleigh, y), "model"),
                           (lambda: nh.eigenvalue_path(sleigh, "a", [0.1, 0.2], y), "model"),
                           (lambda: nh.critical_values(sleigh, "a", [0.1, 0.2], y), "path_or_model")):
        with pytest.raises(TypeError, match=f"{argument} must be a model of a system .* got a System"):
            call()
    assert nh.linearize(sleigh.nonholonomic(), y).eigenvalues.size == 5


def test_convergence_takes_the_highest_orders_and_names_one_beyond(sleigh):
    """orders=[15] and [16] are valid (the series has 16 orders): they were refused as 'order ... got 17'
    (the start's order, max(orders) + 2, unclamped); 17 is refused naming orders[0]."""
    for K in (15, 16):
        study = nh.analysis.studies.convergence(sleigh, [1e-2, 1e-3], [0, 0, 0, -1.5, 0, 1.0], (0, 0.2), [K],
                                                progress=False)
        assert np.isfinite(study.errors[K]).all() and max(study.errors[K]) < 1e-6
    with pytest.raises(ValueError, match=r"orders\[0\] must be an integer from 0 to 16, got 17"):
        nh.analysis.studies.convergence(sleigh, [1e-2, 1e-3], STRAIGHT, (0, 0.2), [17], progress=False)
