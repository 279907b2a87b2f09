"""Bad input (DESIGN.md section 5): every case raises a clear exception naming the argument."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]
x, y, phi = sp.symbols("x y phi")


# ---------------------------------------------------------------- system definition
def test_unknown_symbol_in_metric_is_named():
    with pytest.raises(nh.ModelError, match="metric contains symbols .*: k"):
        nh.System([x, y], sp.diag(1, sp.Symbol("k")))


def test_unknown_symbol_in_constraints_is_named():
    with pytest.raises(nh.ModelError, match="constraints contains symbols .*: c"):
        nh.System([x, y], sp.eye(2), constraints=[[1, sp.Symbol("c")]])


def test_velocity_in_metric_is_rejected():
    with pytest.raises(nh.ModelError, match="metric contains symbols .*: x_dot"):
        nh.System([x, y], sp.diag(1, 1 + sp.Symbol("x_dot") ** 2))


def test_time_in_constraints_is_rejected():
    with pytest.raises(nh.ModelError, match=r"the time t appears in the constraints: only the affine term b\(q, t\)"):
        nh.System([x, y], sp.eye(2), constraints=[[1, sp.Symbol("t")]])


def test_metric_shape():
    with pytest.raises(ValueError, match=r"metric has shape \(2, 3\), expected \(2, 2\)"):
        nh.System([x, y], sp.ones(2, 3))


def test_constraint_shape():
    with pytest.raises(ValueError, match=r"constraints has shape \(1, 3\), expected \(k, 2\)"):
        nh.System([x, y], sp.eye(2), constraints=[[1, 0, 0]])


def test_too_many_constraints():
    with pytest.raises(ValueError, match="constraints has 2 rows for 2 coordinates"):
        nh.System([x, y], sp.eye(2), constraints=sp.eye(2))


def test_affine_without_constraints():
    with pytest.raises(ValueError, match="affine was given without constraints"):
        nh.System([x, y], sp.eye(2), affine=[1])


def test_coordinates_must_be_symbols():
    with pytest.raises(TypeError, match="coordinates must contain SymPy symbols"):
        nh.System([x, "y"], sp.eye(2))
    with pytest.raises(ValueError, match="coordinates contains repeated symbols"):
        nh.System([x, x], sp.eye(2))


def test_nonsymmetric_metric():
    with pytest.raises(nh.ModelError, match="metric is not symmetric"):
        nh.System([x, y], sp.Matrix([[2, 1], [0, 2]]))


def test_parameter_value_must_be_finite():
    with pytest.raises(ValueError, match="parameter m must be finite"):
        nh.System([x], sp.Matrix([[sp.Symbol("m")]]), parameters={"m": float("nan")})


def test_unsupported_function_is_named():
    with pytest.raises(nh.ModelError, match="metric: unsupported SymPy node Piecewise"):
        nh.System([x], sp.Matrix([[sp.Piecewise((2, x > 0), (1, True))]]))


def test_unsupported_function_names_its_argument_and_what_is_supported():
    """A Heaviside pulse in the force: the message names the force and the functions that compile,
    and a smooth form of the step (it named neither)."""
    t = sp.Symbol("t")
    with pytest.raises(nh.ModelError, match=r"force: unsupported SymPy node Heaviside .* tanh.* \(1 \+ tanh"):
        nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([sp.Heaviside(t - 1)]))
    smooth = nh.System([x], sp.Matrix([[1]]), force=sp.Matrix([(1 + sp.tanh((t - 1) / 1e-3)) / 2]))
    run = nh.simulate(smooth.nonholonomic(), (0, 2), [0, 0], t_eval=[2.0], rtol=1e-10, atol=1e-12)
    assert run["x_dot"][-1] == pytest.approx(1.0, abs=1e-6)  # the unit step's impulse over [1, 2]


def test_lagrangian_not_quadratic():
    xd = sp.Symbol("x_dot")
    with pytest.raises(nh.ModelError, match="not quadratic in the velocities"):
        nh.System.from_lagrangian(xd**4, [x], [xd])


# ---------------------------------------------------------------- data at the initial state
def test_metric_not_positive_definite_at_initial_state():
    system = nh.System([x, y], sp.diag(1, 1 - x**2))  # singular at |x| = 1
    with pytest.raises(nh.ModelError, match=r"metric is not positive definite at q = \[2, 0\]"):
        nh.simulate(system.nonholonomic(), (0, 1), [2.0, 0.0, 0.0, 0.0])


def test_dependent_constraint_rows():
    z = sp.Symbol("z")
    system = nh.System([x, y, z], sp.eye(3), constraints=[[1, x, 0], [1, 1, 0]])  # dependent at x = 1
    with pytest.raises(nh.ModelError, match="constraint rows are linearly dependent"):
        nh.simulate(system.nonholonomic(), (0, 1), [1.0, 0, 0, 0, 0, 0.3])


def test_friction_coefficients_not_positive_definite():
    system = nh.System([x, y], sp.eye(2), constraints=[[1, 0]], friction=-1)
    with pytest.raises(nh.ModelError, match="friction coefficients mu are not symmetric positive definite"):
        nh.simulate(system.friction(0.1), (0, 1), [0, 0, 1.0, 0])


def test_initial_velocity_violates_constraints(sleigh):
    with pytest.raises(ValueError, match=r"y0 violates the constraints A\(q\) v = b"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 0, 1.0, 0])


def test_project_y0_projects_instead(sleigh):
    sol = nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 0.5, 1.0, 0.2], project_y0=True)
    assert sol.success
    assert sol.y[4, 0] == pytest.approx(0.0, abs=1e-14)  # heading phi = 0: no sideways velocity
    assert np.allclose(sol.y[:, 0], [0, 0, 0, 0.5, 0, sol.y[5, 0]])


# ---------------------------------------------------------------- simulate arguments
@pytest.mark.parametrize("y0, match", [
    ([0, 0, 0, 1], r"y0 must have shape \(6,\) ordered as \['x', 'y', 'phi'"),
    ([0, 0, np.nan, -1.5, 0, 1], "y0 contains NaN or inf"),
    ([0, 0, 0, np.inf, 0, 1], "y0 contains NaN or inf"),
    (np.zeros((2, 6)), r"y0 must have shape \(6,\)"),
])
def test_bad_y0(sleigh, y0, match):
    with pytest.raises(ValueError, match=match):
        nh.simulate(sleigh.nonholonomic(), (0, 1), y0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(rtol=0.0), "rtol must be positive"),
    (dict(rtol=-1e-6), "rtol must be positive"),
    (dict(atol=0.0), "atol must be positive"),
    (dict(atol=[1e-8, 1e-8]), r"atol must be a scalar or have shape \(6,\)"),
    (dict(atol=np.nan), "atol must be positive and finite"),
    (dict(method="rk45"), "method must be 'auto', 'bdf', 'adams' or 'dop853'"),
    (dict(max_step=0.0), "max_step must be positive"),
    (dict(max_steps=0), "max_steps must be at least 1"),
    (dict(t_eval=[0.5, 2.0]), r"t_eval must lie within t_span"),
    (dict(t_eval=[0.5, 0.2]), "t_eval must be sorted"),
    (dict(params={"mass": 2.0}), "unknown parameter 'mass'; the parameters are: m, I, a, mu"),
    (dict(params={"m": np.inf}), "parameter m must be finite"),
    (dict(events=[3.0]), r"events\[0\] must be a callable"),
    (dict(events=[nh.Event(sp.Symbol("w"))]), "event 0 contains symbols .*: w"),
])
def test_bad_simulate_arguments(sleigh, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, **kwargs)


@pytest.mark.parametrize("t_span, match", [
    ((0, 0), "t_span must have t0 != tf"),
    ((0, np.inf), "t_span must be finite"),
    ((0,), r"t_span must be a pair"),
    ("ab", r"t_span must be a pair"),
])
def test_bad_t_span(sleigh, t_span, match):
    with pytest.raises(ValueError, match=match):
        nh.simulate(sleigh.nonholonomic(), t_span, Y0)


@pytest.mark.parametrize("eps", [0.0, -1e-3, np.nan, np.inf])
def test_eps_must_be_positive(sleigh, eps):
    with pytest.raises(ValueError, match="eps must be"):
        sleigh.friction(eps)


def test_eps_override_must_be_positive(sleigh):
    with pytest.raises(ValueError, match="eps must be a positive finite number"):
        nh.simulate(sleigh.friction(1e-3), (0, 1), Y0, params={"eps": -1.0})
    with pytest.raises(ValueError, match=r"\(got -1e-09\)"):  # shown as it is, not as -0.000000
        nh.simulate(sleigh.friction(1e-3), (0, 1), Y0, params={"eps": -1e-9})


def test_an_rtol_below_round_off_is_refused_by_name(sleigh):
    """rtol 1e-20: BDF and Adams said CV_TOO_MUCH_ACC at t0; DOP853 (the default's first method) said the step
    collapsed, or with atol 1e-22 (an outside probe) spent 500,000 steps to t = 0.074 and said "raise
    max_steps". A relative tolerance below double precision's resolution (2.2e-16) is refused before the run, by
    every method and every caller of the tolerances; that value itself runs, and so do the defaults."""
    model = sleigh.nonholonomic()
    for method in ("auto", "dop853", "bdf", "adams"):
        with pytest.raises(ValueError, match=r"rtol = 1e-20 is below double precision's resolution 2.22e-16"):
            nh.simulate(model, (0, 1), Y0, rtol=1e-20, atol=1e-22, method=method)
    with pytest.raises(ValueError, match=r"rtol = 1e-17 is below"):
        nh.simulate_many(model, (0, 1), [Y0, Y0], rtol=1e-17)
    assert nh.simulate(model, (0, 1), Y0, rtol=2.3e-16, atol=1e-18).status == 0
    assert nh.simulate(model, (0, 1), Y0).status == 0


def test_an_atol_far_below_round_off_is_named_when_the_run_fails(sleigh):
    """atol 1e-300: every method failed with words that blame the model (a collapsed step, "the
    right-hand side or its scale is not finite", dependent constraint rows); the message names atol.
    The default atol runs, and so does a run that succeeds at a tiny atol (no note on success)."""
    model = sleigh.nonholonomic()
    for method in ("auto", "bdf", "adams", "dop853"):
        with pytest.warns(nh.SimulationWarning):
            run = nh.simulate(model, (0, 5), Y0, atol=1e-300, method=method)
        assert run.status == -1 and "atol = 1e-300 is far below double precision" in run.message, method
    with pytest.warns(nh.SimulationWarning, match="atol = 1e-300 is far below"):
        batch = nh.simulate_many(model, (0, 5), [Y0, Y0], atol=1e-300)
    assert all("atol = 1e-300 is far below" in r.message for r in batch)
    assert nh.simulate(model, (0, 5), Y0).status == 0  # the default atol
    fine = nh.simulate(model, (0, 5), Y0, atol=1e-30)
    assert fine.status == 0 and "atol" not in fine.message


def test_a_compile_cache_that_is_no_path_is_named(sleigh):
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        sleigh.nonholonomic().compile(cache_dir=5)


def test_a_pandas_series_of_the_state_names_is_read_by_name(sleigh):
    """A Series labelled by the state names in another order started the run at the wrong state
    (NumPy reads it by position); it is read by name, in the other form's names too, and other labels
    are refused."""
    import pandas as pd  # a test dependency

    names = ["x", "y", "phi", "x_dot", "y_dot", "phi_dot"]
    model = sleigh.nonholonomic()
    shuffled = pd.Series(dict(zip(names, Y0))).iloc[::-1]
    assert list(shuffled.index) != names
    by_name = nh.simulate(model, (0, 1), shuffled)
    by_position = nh.simulate(model, (0, 1), Y0)  # the default: a list
    np.testing.assert_array_equal(by_name.y, by_position.y)
    assert list(model.state_names) == names
    with pytest.raises(ValueError, match=r"y0 is labelled \['a'"):
        nh.simulate(model, (0, 1), pd.Series(Y0, index=["a", "b", "c", "d", "e", "f"]))
    np.testing.assert_array_equal(nh.simulate(model, (0, 1), pd.Series(Y0)).y, by_position.y)  # positions


def test_model_must_be_a_model(sleigh):
    with pytest.raises(TypeError, match="model must be a nonholo Model"):
        nh.simulate(lambda t, y: y, (0, 1), Y0)


def test_point_queries_check_shapes(sleigh):
    with pytest.raises(ValueError, match=r"q must have shape \(3,\)"):
        sleigh.projectors([0.0, 1.0])
    with pytest.raises(ValueError, match="v contains NaN or inf"):
        sleigh.multipliers([0, 0, 0], [np.nan, 0, 0])


def test_simulate_many_arguments(sleigh):
    model = sleigh.nonholonomic()
    with pytest.raises(ValueError, match=r"Y0 must have shape \(n_runs, 6\)"):
        nh.simulate_many(model, (0, 1), np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"params\['a'\] has 2 values for 3 runs"):
        nh.simulate_many(model, (0, 1), np.tile(Y0, (3, 1)), params={"a": [0.1, 0.2]})
    with pytest.raises(TypeError, match="simulate_many takes symbolic events only"):
        nh.simulate_many(model, (0, 1), np.tile(Y0, (2, 1)), events=lambda t, y: y[0])
    with pytest.raises(ValueError, match="threads must be at least 1"):
        nh.simulate_many(model, (0, 1), np.tile(Y0, (2, 1)), threads=0)


# ---------------------------------------------------------------- solver options, checked in one place
@pytest.mark.parametrize("kwargs, error, match", [
    (dict(first_step=-1.0), ValueError, "first_step must be non-negative"),
    (dict(max_wall_time=-1.0), ValueError, "max_wall_time must be positive"),
    (dict(max_steps=2.5), TypeError, "max_steps must be an integer"),
    (dict(rtol="tight"), TypeError, "rtol must be a real number"),
    (dict(max_step=-np.inf), ValueError, "max_step must be positive"),
])
def test_step_options_name_the_argument(sleigh, kwargs, error, match):
    with pytest.raises(error, match=match):
        nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, **kwargs)
    with pytest.raises(error, match=match):
        nh.simulate_many(sleigh.nonholonomic(), (0, 1), np.tile(Y0, (2, 1)), **kwargs)


@pytest.mark.parametrize("kwargs, t_span, match", [
    (dict(), (1.0, 0.0), r"t_span must run forward \(t0 < tf\)"),
    (dict(), (0.0, np.nan), "t_span must be finite"),
    (dict(newton_tol=0.0), (0.0, 1.0), "newton_tol must be positive"),
    (dict(max_newton_iterations=0), (0.0, 1.0), "max_newton_iterations must be at least 1"),
    (dict(max_wall_time=-2.0), (0.0, 1.0), "max_wall_time must be positive"),
])
def test_discrete_options_are_the_same_checks(sleigh, kwargs, t_span, match):
    with pytest.raises(ValueError, match=match):
        nh.simulate_discrete(sleigh.discrete(0.1), t_span, Y0, **kwargs)


def test_bvp_study_and_fit_options_name_the_argument(sleigh):
    with pytest.raises(ValueError, match="tol must be positive"):
        nh.vakonomic_bvp(sleigh, [0, 0, 0], [1, 0, 0], 1.0, tol=-1.0)
    with pytest.raises(ValueError, match="rtol must be positive"):
        nh.vakonomic_bvp(sleigh, [0, 0, 0], [1, 0, 0], 1.0, rtol=0.0)
    with pytest.raises(ValueError, match="n_points must be at least 2"):
        nh.vakonomic_bvp(sleigh, [0, 0, 0], [1, 0, 0], 1.0, n_points=1)
    with pytest.raises(ValueError, match="t_span must be finite"):
        nh.studies.convergence(sleigh, [1e-2, 1e-3], Y0, (0.0, np.inf), progress=False)
    with pytest.raises(ValueError, match=r"eps_values\[1\] must be positive"):
        nh.studies.convergence(sleigh, [1e-2, -1e-3], Y0, (0.0, 1.0), progress=False)
    with pytest.raises(ValueError, match="atol must be positive"):
        nh.studies.convergence(sleigh, [1e-2, 1e-3], Y0, (0.0, 1.0), atol=0.0, progress=False)
    t_obs = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="rtol must be positive"):
        nh.fit(sleigh.nonholonomic(), t_obs, np.zeros((1, 5)), ["a"], Y0, observe=["x"], rtol=-1.0)
    with pytest.raises(ValueError, match="t_obs must be strictly increasing"):
        nh.fit(sleigh.nonholonomic(), [0, 0.5, 0.2, 0.8, 1.0], np.zeros((1, 5)), ["a"], Y0, observe=["x"])


# ---------------------------------------------------------------- issue 40, finding 11
@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_a_bool_parameter_is_refused_not_taken_as_one(sleigh, value):
    with pytest.raises(TypeError, match="parameter a must be a real number, got the bool"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, params={"a": value})
    with pytest.raises(TypeError, match="parameter a must be a real number, got the bool"):
        nh.System([x, y], sp.eye(2) * sp.Symbol("a"), parameters={"a": value})
    assert nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, params={"a": 1}).success  # an int is a number


def test_one_nan_parameter_fails_only_its_run(sleigh):
    model = sleigh.nonholonomic()
    a = [0.1, np.nan, 0.3, np.inf]
    with pytest.warns(nh.SimulationWarning, match=r"2 of 4 runs failed \(runs \[1, 3\]\); run 1: Run 1 did not start: "
                                                  r"parameter a must be finite, got nan"):
        runs = nh.simulate_many(model, (0, 1), Y0, params={"a": a}, t_eval=[1.0])
    assert [r.status for r in runs] == [0, -1, 0, -1] and "got inf" in runs[3].message
    for i in (0, 2):
        alone = nh.simulate(model, (0, 1), Y0, params={"a": a[i]}, t_eval=[1.0])
        assert np.array_equal(runs[i].y, alone.y)
    with pytest.warns(nh.SimulationWarning, match="1 of 2 runs failed"):  # a sequence of mappings too
        runs = nh.simulate_many(model, (0, 1), [Y0, Y0], params=[{"a": 0.2}, {"a": np.nan}], t_eval=[1.0])
    assert [r.status for r in runs] == [0, -1]
    with pytest.raises(ValueError, match="unknown parameter 'b'"):  # a wrong name is the batch's error
        nh.simulate_many(model, (0, 1), [Y0, Y0], params={"b": [0.2, np.nan]})


@pytest.mark.parametrize("k", [2**31, -(2**31), 2**31 - 1, 10**30])
def test_integer_exponents_beyond_32_bits_are_lowered(k):
    """x**(2**31) dumped pybind11's signature (the tape's integer power holds 32 bits); now it is
    the general power with a constant exponent, the same value in doubles."""
    system = nh.System([x], sp.Matrix([[1]]), potential=x**k / 10**6)
    tape = nh.expressions.lower([x**k], [x]).tape()
    with np.errstate(all="ignore"):
        for point in (0.5, 1.0, -1.0, 1.5):
            assert tape(np.array([point]))[0] == np.power(point, float(k))
    assert system.energy([1.0], [0.0]) == 1e-6


def test_a_velocity_in_the_affine_term_is_named_as_a_velocity():
    """b(q, t) may not depend on velocities: the message said y_dot was 'neither coordinates,
    velocities, the time nor parameters', though it is a velocity."""
    with pytest.raises(nh.ModelError, match=r"affine contains symbols it may not depend on: y_dot \(velocities"):
        nh.System([x, y], sp.eye(2), constraints=[[1, 0]], affine=[sp.Symbol("y_dot")])


def test_a_single_affine_term_may_be_given_as_a_scalar():
    """One constraint's b(q, t) as an expression (cos(t)) raised an unclear TypeError ('Data type not
    understood'); it is that constraint's term. For two constraints a scalar is refused by shape."""
    t = sp.Symbol("t")
    one = nh.System([x, y], sp.eye(2), constraints=[[0, 1]], affine=sp.cos(t), time=t)
    assert one.affine == sp.Matrix([[sp.cos(t)]])
    run = nh.simulate(one.nonholonomic(), (0, 1), [0, 0, 1.0, 1.0], t_eval=[1.0])
    assert run["y"][-1] == pytest.approx(np.sin(1.0), abs=1e-8)  # y' = cos(t) from y(0) = 0
    with pytest.raises(ValueError, match=r"affine must have shape \(2, 1\).*single expression"):
        nh.System([x, y, phi], sp.eye(3), constraints=[[0, 1, 0], [1, 0, 0]], affine=sp.cos(t), time=t)


def test_a_two_dimensional_t_eval_is_refused():
    """t_eval=[[0.5, 1.0]] was flattened silently (SciPy's solve_ivp refuses it); a scalar is one time."""
    free = nh.System([x, y], sp.eye(2))
    with pytest.raises(ValueError, match=r"t_eval must be one-dimensional.*\(1, 2\)"):
        nh.simulate(free.nonholonomic(), (0, 1), [0, 0, 1, 0], t_eval=np.array([[0.5, 1.0]]))
    assert nh.simulate(free.nonholonomic(), (0, 1), [0, 0, 1, 0], t_eval=0.5).t.tolist() == [0.5]


def test_an_unknown_symbol_is_named_with_what_may_be_used_there():
    """The message names what the expression may use in its place: an event may use the time and the
    velocities, a frame's vectors and offset neither (the message said 'neither coordinates, velocities,
    the time nor parameters' of x_dot in the vectors and of t in the offset). with_potential of a list
    names the argument (it raised 'unhashable type: list')."""
    x, y, th, t = sp.symbols("x y theta t")
    knife = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=[[sp.sin(th), -sp.cos(th), 0]], name="knife")
    with pytest.raises(nh.ModelError, match=r"event 0 contains symbols it may not depend on: z \(it may use t, "
                                            r"theta, theta_dot, x, x_dot, y, y_dot;"):
        nh.simulate(knife.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 1], events=nh.Event(sp.Symbol("z") - 1))
    vectors = [[sp.cos(th), 0, 0], [sp.sin(th), 0, 0], [0, 1, 0]]
    with pytest.raises(nh.ModelError, match=r"vectors contains symbols it may not depend on: x_dot \(it may use "
                                            r"theta, x, y;"):
        nh.frames.AnholonomicFrame(knife, [[sp.cos(th) * sp.Symbol("x_dot"), 0, 0], *vectors[1:]])
    with pytest.raises(TypeError, match="potential must be a scalar SymPy expression, got \\[x\\]"):
        knife.with_potential([x])


def test_a_number_given_as_a_string_is_refused_by_name():
    """float("0.2") reads a string: stick_slip('0.2') and friction('1e-3') ran as if given numbers."""
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(TypeError, match="mu_s must be a real number, got the string '0.2'"):
        sleigh.stick_slip("0.2", normal=1.0)
    with pytest.raises(TypeError, match="eps must be a real number, got the string '1e-3'"):
        sleigh.friction("1e-3")
    assert sleigh.stick_slip(0.2, normal=1.0).mu_s == 0.2


def test_model_rhs_and_jacobian_check_given_parameter_values():
    """model.rhs(..., params={'eps': -1}) returned a field that pumps energy (simulate refuses that eps);
    a given eps is checked now, and the defaults and valid values still evaluate."""
    friction = nh.systems.chaplygin_sleigh().friction(0.01)
    y = [0, 0, 0, 0, 1, 0]
    for call in (friction.rhs, friction.jacobian):
        with pytest.raises(ValueError, match=r"eps must be a positive finite number, got -1"):
            call(0, y, params={"eps": -1})
    np.testing.assert_allclose(friction.rhs(0, y, params={"eps": 0.02}), [0, 1, 0, 0, -52, 10], atol=1e-12)
    np.testing.assert_allclose(friction.rhs(0, y), friction.rhs(0, y, params={"eps": 0.01}), atol=0)


def test_a_metric_that_is_not_finite_is_named_so():
    """G = diag(sqrt(x - 1), 1, 1) at x = 0 is NaN: the refusal spoke of Euler angles and a zero mass."""
    x, y, th = sp.symbols("x y theta")
    s = nh.System([x, y, th], sp.diag(sp.sqrt(x - 1), 1, 1), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]))
    with pytest.raises(nh.ModelError, match=r"the metric is not finite at q = \[0, 0, 0\].*G\[0, 0\]"):
        nh.simulate(s.nonholonomic(), (0, 1), [0, 0, 0, 0, 0, 1])
    run = nh.simulate(s.nonholonomic(), (0, 1), [2, 0, 0, 0, 0, 1])  # inside the domain: it runs
    assert run.success


def test_a_frame_written_with_a_parameters_number_is_told_to_use_its_symbol():
    """An outside probe's car with a trailer: a frame written with the numbers of the wheelbase and the hitch
    spans D at those values but not at others, where the check (at values moved about 10%) refused it naming
    values the user never set. The message now says the frame holds at the system's values and asks for the
    symbols; the same frame in the symbols is accepted."""
    x, y, th = sp.symbols("x y theta")
    a = sp.Symbol("a")
    G = sp.Matrix([[1, 0, -a * sp.sin(th)], [0, 1, a * sp.cos(th)], [-a * sp.sin(th), a * sp.cos(th), 1 + a**2]])
    sleigh = nh.System([x, y, th], G, constraints=[[-sp.sin(th), sp.cos(th), -a]], parameters={a: 0.2})

    def frame(offset):  # the blade's direction and the turn about it, then the sideways direction
        return [[sp.cos(th), sp.sin(th), 0], [-offset * sp.sin(th), offset * sp.cos(th), 1],
                [-sp.sin(th), sp.cos(th), 0]]

    with pytest.raises(nh.ModelError, match=r"span D = ker A at the system's parameter values but not at others .* "
                                            r"write the frame in the system's parameter symbols"):
        nh.frames.AnholonomicFrame(sleigh, sp.Matrix(frame(0.2)).T)
    hamel = nh.frames.AnholonomicFrame(sleigh, sp.Matrix(frame(a)).T).hamel()  # the default: the symbols
    assert len(hamel.state_names) == 5  # three coordinates and the two quasi-velocities of D
