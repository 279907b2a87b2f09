"""Round 16 of the optimal control probe: the arguments of sol.track (a feedforward input named twice,
samples, the tolerances, a law that is no law), KinematicSystem's bounds, rates and non-finite
expressions, and end states given as SymPy numbers such as pi."""

import math

import pytest
import sympy as sp

import nonholo as nh
from nonholo.control import tracking

X, Y, TH, F, TAU = sp.symbols("X Y TH F TAU")
KNIFE = nh.System([X, Y, TH], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(TH), -sp.cos(TH), 0]]),
                  force=[F * sp.cos(TH), F * sp.sin(TH), TAU], parameters={F: 0.0, TAU: 0.0})
x, v = sp.symbols("x v")


@pytest.fixture(scope="module")
def plan():
    """The knife edge's least-energy plan on its kinematic system, from (0, 0, 0) to (1, 0.3, 0.5)."""
    sol = nh.OptimalControlProblem(KNIFE.kinematic(), cost="energy", t_final=2.0, initial=[0, 0, 0],
                                   final=[1, 0.3, 0.5]).solve(nodes=11)
    assert sol.success
    return sol


# ---------------------------------------------------------------- sol.track

def test_track_refuses_a_feedforward_input_named_twice(plan):
    """feedforward=["F", "F"] solved F twice and left the torque at 0: max_error 0.308 where
    ["F", "TAU"] tracks to 0.00028, with no word of it."""
    with pytest.raises(ValueError, match=r"^feedforward names 'F' twice"):
        plan.track(KNIFE, 1e-3, feedforward=["F", "F"])
    with pytest.raises(ValueError, match=r"^feedforward names \['F'\], which inputs gives already"):
        plan.track(KNIFE, 1e-3, inputs={"F": 0}, feedforward=["F", "TAU"])


@pytest.mark.parametrize("samples, error, message", [
    (0, ValueError, "samples must be at least 2"), (1, ValueError, "samples must be at least 2"),
    (1.5, TypeError, "samples must be an integer"), (True, TypeError, "samples must be an integer"),
    ("400", TypeError, "samples must be an integer"),
])
def test_track_refuses_a_bad_samples(plan, samples, error, message):
    """samples=0 and samples=1.5 were taken (as 3 samples per mesh interval), a count that is none."""
    with pytest.raises(error, match=f"^{message}"):
        plan.track(KNIFE, 1e-3, feedforward=["F", "TAU"], samples=samples)


def test_track_refuses_more_samples_than_it_takes(plan):
    with pytest.raises(ValueError, match=f"^samples must be at most {tracking.MAX_SAMPLES}"):
        plan.track(KNIFE, 1e-3, feedforward=["F", "TAU"], samples=10**12)


@pytest.mark.parametrize("options, name", [
    (dict(rtol=-1), "rtol"), (dict(rtol=math.nan), "rtol"), (dict(rtol=0.0), "rtol"),
    (dict(atol=-1), "atol"), (dict(atol=[1e-9, -1e-9, 1e-9, 1e-9, 1e-9, 1e-9]), "atol"),
])
def test_track_refuses_tolerances_that_are_not_positive(plan, options, name):
    """rtol=-1 reached SciPy: "TypeError: '<' not supported between instances of 'complex' and 'float'"."""
    with pytest.raises(ValueError, match=f"^{name} must be positive and finite"):
        plan.track(KNIFE, 1e-3, feedforward=["F", "TAU"], **options)


def test_track_refuses_a_law_that_is_no_law_as_system_friction_does(plan):
    """law="coulomb" failed with AttributeError "'str' object has no attribute 'set_valued'"."""
    with pytest.raises(TypeError, match=r"^law must be a nonholo.laws law \(Viscous, Coulomb"):
        KNIFE.friction(law="coulomb", normal=9.81)
    with pytest.raises(TypeError, match=r"^law must be a nonholo.laws law \(Viscous, Coulomb"):
        plan.track(KNIFE, law="coulomb", normal=9.81)
    with pytest.raises(TypeError, match=r"^law\[0\] must be a nonholo.laws law"):
        plan.track(KNIFE, law=["coulomb"], normal=9.81)


def test_track_refuses_normal_and_speed_with_eps(plan):
    """normal= went unused, with no word, by the linear realization of eps (System.friction refuses it)."""
    with pytest.raises(ValueError, match="^normal and speed go with law="):
        plan.track(KNIFE, 1e-3, feedforward=["F", "TAU"], normal=9.81)


# ---------------------------------------------------------------- KinematicSystem

@pytest.mark.parametrize("bounds", [("a", 1), (0, 1, 2), 1, (None, 1), ("0", "1"), (True, 2)])
@pytest.mark.parametrize("what", ["control_bounds", "state_bounds"])
def test_kinematic_system_refuses_a_bound_that_is_no_pair_of_numbers(what, bounds):
    """Raw Python errors ("could not convert string to float", "too many values to unpack", "cannot
    unpack non-iterable int"), or a string's numbers read; OptimalControlProblem names the bound."""
    name = "v" if what == "control_bounds" else "x"
    with pytest.raises(ValueError, match=rf"^{what}\['{name}'\] must be a pair \(lo, hi\)"):
        nh.KinematicSystem([x], [v], [v], **{what: {name: bounds}})


@pytest.mark.parametrize("rate", ["fast", True, sp.Symbol("a")])
def test_rate_limited_refuses_a_rate_that_is_no_positive_number(rate):
    """rates={"v": "fast"} failed with "could not convert string to float: 'fast'"; True passed as 1."""
    with pytest.raises(ValueError, match=r"^rates\['v'\] must be a"):
        nh.KinematicSystem([x], [v], [v]).rate_limited({"v": rate})


@pytest.mark.parametrize("kwargs, name", [
    (dict(rhs=[v * sp.nan]), "rhs"), (dict(rhs=[sp.zoo * v]), "rhs"), (dict(rhs=[v + sp.oo]), "rhs"),
    (dict(rhs=[v * sp.Float("1e600")]), "rhs"), (dict(rhs=[v], metric=[[sp.nan]]), "metric"),
    (dict(rhs=[v], energy=sp.nan * v**2), "energy"),
])
def test_kinematic_system_refuses_non_finite_expressions_when_built(kwargs, name):
    """Such a system was built, and refused only at a solve: ModelError "non-finite constant nan in
    an expression", naming nothing."""
    with pytest.raises(ValueError, match=f"^{name}"):
        nh.KinematicSystem([x], [v], **kwargs)


# ---------------------------------------------------------------- end states

UNICYCLE = nh.KinematicSystem([X, Y, TH], [v, sp.Symbol("w")], [v * sp.cos(TH), v * sp.sin(TH), sp.Symbol("w")])


@pytest.mark.parametrize("value", [sp.pi, sp.sqrt(2), sp.pi / 4 + sp.Rational(1, 3), sp.exp(sp.I * sp.pi / 3)
                                   + sp.exp(-sp.I * sp.pi / 3)])
def test_end_states_take_any_real_sympy_number(value):
    """initial=[0, 0, sp.pi] was refused ("must be a real number, got pi") while Rational(3, 2) passed;
    what is no real number is refused still, naming the entry."""
    problem = nh.OptimalControlProblem(UNICYCLE, cost="energy", t_final=1.0, initial=[0, 0, value],
                                       final=[1, 0, value])
    assert problem.initial[2] == problem.final[2] == pytest.approx(complex(value.evalf()).real, abs=0, rel=1e-15)
    assert isinstance(problem.initial[2], float) and isinstance(problem.final[2], float)
    for bad in (sp.I, sp.Symbol("a"), 1 + sp.I, sp.zoo, sp.Matrix([1])):
        with pytest.raises(TypeError, match=r"^initial\[2\] must be a real number"):
            nh.OptimalControlProblem(UNICYCLE, cost="energy", t_final=1.0, initial=[0, 0, bad], final=[1, 0, 0])


@pytest.mark.parametrize("value", [sp.oo, -sp.oo, sp.nan])
def test_end_states_refuse_sympy_infinities_and_nan_as_numbers_not_finite(value):
    """sp.oo and sp.nan were refused as no real number (TypeError), where float("inf") and NaN are
    refused as numbers that are not finite (ValueError)."""
    with pytest.raises(ValueError, match=r"^final\[0\] must be a finite number"):
        nh.OptimalControlProblem(UNICYCLE, cost="energy", t_final=1.0, initial=[0, 0, 0], final=[value, 0, 0])


def test_a_guess_at_a_singular_point_is_named_by_its_state_not_an_internal_grid():
    """x' = v / x from x = 0: the line starts where the dynamics are not finite. The message said "point 0
    of 201" whatever the nodes (5, 50, 400): 201 is the grid on which the default start looks at the line
    first. It names the state."""
    x, v = sp.symbols("x v")
    system = nh.KinematicSystem([x], [v], [v / x])
    for nodes in (5, 50):
        with pytest.raises(nh.ModelError) as err:
            nh.OptimalControlProblem(system, cost="energy", t_final=1, initial=[0], final=[1]).solve(nodes=nodes)
        assert "{'x': 0.0}" in str(err.value) and " of 201" not in str(err.value)
