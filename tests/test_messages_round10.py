"""Round 10 messages: bad input raises ValueError or TypeError naming the argument.

A non-finite law argument was a TypeError "mu must be real, got inf"; a law argument whose derived
constant leaves double precision named an internal quantity ("saturation must be real") or nothing
("force: non-finite constant -1e600"); a quaternion of entries 1e200 overflowed its norm and failed
as a metric not positive definite; model.rhs at a NaN state blamed the metric; the plot functions
raised bare AttributeErrors; a drawing of another system a bare KeyError; split_at answered at
NaN and outside the run; tippe_top took alpha outside (0, 1); nh.simulate of a discrete model did
not point to nh.simulate_discrete.
"""

import matplotlib
import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import RigidBody, rotation_matrices
from nonholo.contact import Sphere, roll_on_plane, rolling_state

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

INF, NAN = float("inf"), float("nan")
Y0 = [0, 0, 0, -1.5, 0, 1.0]


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh()


@pytest.fixture(scope="module")
def sleigh_run(sleigh):
    return nh.simulate(sleigh.nonholonomic(), (0, 1), Y0)


@pytest.fixture(scope="module")
def ball():
    return roll_on_plane(RigidBody(1.0, (0.4, 0.4, 0.4)), Sphere(1.0))


# ---------------------------------------------------------------- 1. non-finite law arguments

@pytest.mark.parametrize("make, message", [
    (lambda: nh.laws.Coulomb(INF, 0.01), r"^mu must be finite and positive, got inf$"),
    (lambda: nh.laws.Coulomb(np.float64(-INF), 0.01), r"^mu must be finite and positive, got -inf$"),
    (lambda: nh.laws.Coulomb(0.5, INF), r"^v_s must be finite and positive, got inf$"),
    (lambda: nh.laws.Viscous(INF, 1.0), r"^mu must be finite and positive"),
    (lambda: nh.laws.Viscous(1.0, INF), r"^eps must be finite and positive"),
    (lambda: nh.laws.Stribeck(INF, 0.3, 0.01), r"^mu_s must be finite and positive"),
    (lambda: nh.laws.Stribeck(0.5, 0.3, 0.01, viscous=INF), r"^viscous must be finite and nonnegative"),
    (lambda: nh.laws.Stribeck(0.5, 0.3, 0.01, regularization=INF), r"^regularization must be finite and positive"),
    (lambda: nh.laws.MagicFormula(INF, 1.9, 1.0), r"^B must be finite and positive"),
    (lambda: nh.laws.MagicFormula(10, 1.9, 1.0, E=-INF), r"^E must be finite, got -inf"),
    (lambda: nh.laws.MagicFormula(10, 1.9, 1.0, rows=2, longitudinal=(INF, 1.9, 1.0, 0),
                                  combined=(1, 1, 1, 1, 1, 1)), r"^longitudinal's Bx must be finite and positive"),
    (lambda: nh.laws.Brush(INF, 1.0), r"^c must be finite and positive"),
    (lambda: nh.laws.Brush(10.0, sp.oo), r"^mu must be finite and positive"),
    (lambda: nh.laws.MagicFormula(10, 1.9, 1.0, relaxation_length=INF),
     r"^relaxation_length must be finite and positive"),
])
def test_a_non_finite_law_argument_is_a_value_error_naming_it(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_finite_law_arguments_still_build():
    assert float(nh.laws.Coulomb(0.5, 0.01).saturation) == 0.5
    assert nh.laws.Stribeck(0.5, 0.3, 0.01, viscous=0.1).viscous == 0.1
    assert nh.laws.MagicFormula(10, 1.9, 1.0, E=-2.0).E == -2.0
    with pytest.raises(TypeError, match="mu must be real"):  # a complex number is still the wrong type
        nh.laws.Coulomb(1 + 2j, 0.01)


# ---------------------------------------------------------------- 2. derived constants beyond double precision

@pytest.mark.parametrize("make, message", [
    (lambda: nh.laws.Stribeck(0.5, 0.3, 0.01, regularization=1e-300),
     r"^regularization = 1e-300 is too small: \(regularization \* v_s\)\*\*2 = .* underflows to 0 in double precision"),
    (lambda: nh.laws.Stribeck(0.5, 0.3, 1e-300), r"^v_s = 1e-300 is too small: 1 / v_s\*\*2 = .* overflows"),
    (lambda: nh.laws.Stribeck(0.5, 0.3, 1e200), r"^v_s = 1e\+200 is too large: 1 / v_s\*\*2 = .* underflows"),
    (lambda: nh.laws.Coulomb(0.5, 1e-200), r"^v_s = 1e-200 is too small: v_s\*\*2"),
    (lambda: nh.laws.Viscous(1e200, 1e-200), r"is too (large|small): mu / eps = .* overflows"),
    (lambda: nh.laws.MagicFormula(1e200, 1.9, 1e200), r"^B = 1e\+200 is too large: B \* C \* D"),
    (lambda: nh.laws.Brush(1e-110, 1.0), r"^c = 1e-110 is too small: c\*\*3 / \(27 mu\*\*2\)"),
])
def test_a_law_argument_whose_constant_leaves_double_precision_is_named(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_law_of_a_tiny_stribeck_velocity_is_refused_at_construction_not_when_lowered(sleigh):
    with pytest.raises(ValueError, match=r"^v_s = 1e-300 is too small"):
        sleigh.friction(law=nh.laws.Stribeck(0.5, 0.3, 1e-300), normal=9.81)
    law = nh.laws.Stribeck(0.5, 0.3, 1e-3, regularization=1e-6)  # small but representable
    assert 0.49 < float(law.saturation) <= 0.5
    assert sleigh.friction(law=law, normal=9.81).n_states == 6


def test_a_user_law_with_a_constant_beyond_double_precision_names_expr():
    s = sp.Symbol("s")
    with pytest.raises(ValueError, match=r"^expr has the constant -1\.000E\+400, which overflows in double precision"):
        nh.laws.Law(-sp.Float("1e400") * s, slip=s)
    assert nh.laws.Law(-sp.Float("1e100") * s, slip=s).rows == 1


# ---------------------------------------------------------------- 3. quaternion of any finite size

@pytest.mark.parametrize("scale", [1e200, 1e-320])
def test_rolling_state_scales_any_finite_nonzero_quaternion(ball, scale):
    unit = rolling_state(ball, [np.sqrt(0.5), np.sqrt(0.5), 0, 0], [0, 1, 0])
    assert np.allclose(rolling_state(ball, [scale, scale, 0, 0], [0, 1, 0]), unit, atol=1e-15)
    assert np.allclose(rotation_matrices(np.array([scale, scale, 0, 0])), rotation_matrices([1.0, 1.0, 0, 0]))
    with pytest.raises(ValueError, match="quaternion must be 4 finite numbers, not all zero"):
        rolling_state(ball, [0, 0, 0, 0], [0, 1, 0])
    with pytest.raises(ValueError, match="quaternion must be 4 finite numbers"):
        rolling_state(ball, [INF, 0, 0, 0], [0, 1, 0])


# ---------------------------------------------------------------- 4. model.rhs at a non-finite state

def test_rhs_and_jacobian_refuse_a_non_finite_state(sleigh):
    model = sleigh.nonholonomic()
    with pytest.raises(ValueError, match=r"^y contains NaN or inf \(in x, y, phi, x_dot, y_dot, phi_dot\)"):
        model.rhs(0.0, [NAN] * 6)
    with pytest.raises(ValueError, match=r"^y contains NaN or inf \(in phi_dot\)"):
        model.jacobian(0.0, [0, 0, 0, 0, 1, INF])
    assert np.all(np.isfinite(model.rhs(0.0, Y0)))


# ---------------------------------------------------------------- 5. plots and animations

@pytest.mark.parametrize("call, error, message", [
    (lambda r: nh.plot.trajectory("not a result"), TypeError, r"^result must be a simulation result .*got str"),
    (lambda r: nh.plot.states(None), TypeError, r"^result must be a simulation result .*got NoneType"),
    (lambda r: nh.plot.eigenvalues(None), TypeError, r"^path must be an EigenvaluePath .*got NoneType"),
    (lambda r: nh.plot.convergence("x"), TypeError, r"^study must be a ConvergenceStudy .*got str"),
    (lambda r: r.animate(ax="x"), TypeError, r"^ax must be a matplotlib Axes or None, got str"),
])
def test_plots_name_a_wrong_argument(sleigh_run, call, error, message):
    with pytest.raises(error, match=message):
        call(sleigh_run)
    plt.close("all")


def test_plots_of_a_result_still_draw(sleigh_run):
    fig, ax = plt.subplots()
    assert nh.plot.trajectory(sleigh_run, ax=ax).get_xdata().size == sleigh_run.t.size
    assert len(nh.plot.states(sleigh_run, ax=ax)) == 3
    assert sleigh_run.animate(ax=ax, frames=3).n_frames == 3
    plt.close("all")


def test_a_drawing_of_another_system_says_the_systems_do_not_match(sleigh, ball):
    run = nh.simulate(ball.nonholonomic(), (0, 1), rolling_state(ball, [1, 0, 0, 0], [0, 1, 0]))
    with pytest.raises(ValueError, match=r"^the drawing's system does not match the result's .*the parameter 'a'"):
        run.animate(drawing=sleigh.drawing, frames=3)
    with pytest.raises(TypeError, match=r"^ax must be a 3-D matplotlib Axes \(projection='3d'\)"):
        run.animate(ax=plt.figure().add_subplot(), frames=3)
    assert run.animate(frames=3).n_frames == 3
    plt.close("all")


# ---------------------------------------------------------------- 6. split_at in the run only

def test_split_at_refuses_nan_and_times_outside_the_run(sleigh):
    run = nh.simulate(sleigh.reduced(0.01, order=2, velocities="frame"), (0, 3), Y0)
    for t in (NAN, -1.0, 100.0):
        with pytest.raises(ValueError, match=r"^t must be a time of the run, in \[0\.0, 3\.0\], got"):
            run.split_at(t)
    with pytest.raises(TypeError, match="^t must be a real number"):
        run.split_at("1")
    assert run.split_at(1.5) == run.split_at(np.float64(1.5)) and run.split_at(3.0)


# ---------------------------------------------------------------- 7. tippe top alpha

@pytest.mark.parametrize("alpha", [1.5, 1.0, 0.0, -0.3, NAN])
def test_tippe_top_alpha_outside_0_1_is_refused(alpha):
    with pytest.raises(ValueError, match=r"^alpha must be in \(0, 1\): the centre of mass lies alpha R below"):
        nh.systems.tippe_top(alpha=alpha)


def test_tippe_top_alpha_inside_builds():
    assert nh.systems.tippe_top(alpha=0.9).parameters[sp.Symbol("alpha")] == 0.9


# ---------------------------------------------------------------- 8. a discrete model in nh.simulate

def test_simulate_of_a_discrete_model_points_to_simulate_discrete(sleigh):
    with pytest.raises(TypeError, match=r"got DiscreteModel; a discrete model runs with nh\.simulate_discrete"):
        nh.simulate(sleigh.discrete(0.01), (0, 0.1), Y0)
    with pytest.raises(TypeError, match=r"got str$"):
        nh.simulate("model", (0, 0.1), Y0)
    assert nh.simulate_discrete(sleigh.discrete(0.01), (0, 0.1), Y0).t[-1] == pytest.approx(0.1)
