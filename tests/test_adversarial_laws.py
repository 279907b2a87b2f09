"""Adversarial input to the friction-law API (issue 43): nh.laws, system.friction(law=, normal=),
system.reduced/slip(law=), system.stick_slip, the margins and roll_on_plane(gravity=). Each bad value
is refused with an exception naming the argument; nothing hangs; a stick-slip run that starts at the
edge of the friction cone switches where the physics says."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

L = nh.laws
s, N = sp.symbols("s N")
Y0 = [0, 0, 0, 1, 0, 1]


# ------------------------------------------------------------------ the laws' parameters
@pytest.mark.parametrize("bad", [True, 1j, [1, 2], sp.Symbol("x") > 1])
@pytest.mark.parametrize("make", [lambda v: L.Coulomb(v, 0.01), lambda v: L.Coulomb(0.5, v),
                                  lambda v: L.Viscous(v, 1.0), lambda v: L.Stribeck(0.6, 0.4, v),
                                  lambda v: L.MagicFormula(v, 1.9, 1.0), lambda v: L.Brush(10.0, v)])
def test_law_parameters_that_are_not_real_numbers_are_named(make, bad):
    with pytest.raises((TypeError, ValueError), match=r"\b(mu|v_s|eps|B|c)\b.*must"):
        make(bad)


@pytest.mark.parametrize("rows", [0, -1, 2.5, "2", True, 10**7])
def test_contact_rows_must_be_a_small_positive_integer(rows):
    """Before: 0, -1 and 2.5 gave a law silently; 10**7 hung building symbols."""
    with pytest.raises((TypeError, ValueError), match="rows"):
        L.Coulomb(0.5, 0.01, rows=rows)
    with pytest.raises((TypeError, ValueError), match="rows"):
        L.Coulomb(0.5, 0.01).for_rows(rows)


def test_a_magic_formula_with_curvature_above_one_is_refused():
    """E > 1 turns the force along the slip near the peak (z s > 0): anti-friction."""
    with pytest.raises(ValueError, match="E must be at most 1"):
        L.MagicFormula(10, 1.9, 1.0, 2.0)
    law = L.MagicFormula(10, 1.9, 1.0, 1.0)
    assert law([0.05], N=1.0, V=1.0)[0] < 0


@pytest.mark.parametrize("kwargs, match", [(dict(scale=-1), "scale"), (dict(scale=0), "scale"),
                                           (dict(saturation=-1), "saturation"),
                                           (dict(saturation=math.nan), "saturation"),
                                           (dict(normal=2.0), "normal"), (dict(normal=s), "normal")])
def test_law_metadata_is_checked(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        L.Law(-N * s, slip=s, **kwargs)


@pytest.mark.parametrize("expr", [s, math.nan, sp.zoo * s])
def test_a_law_that_pushes_along_the_slip_or_is_not_finite_is_refused(expr):
    with pytest.raises(ValueError, match="expr"):
        L.Law(expr, slip=s)


@pytest.mark.parametrize("slip", [1, None, s + 1])
def test_slip_that_is_not_symbols_is_named(slip):
    with pytest.raises(TypeError, match="slip"):
        L.Law(-s, slip=slip)


# ------------------------------------------------------------------ evaluating a law
@pytest.mark.parametrize("kwargs, match", [(dict(s=[math.nan], N=1.0), "s"), (dict(s=["a"], N=1.0), "s"),
                                           (dict(s=[0.1], N="a"), "N"), (dict(s=[0.1], N=-1.0), "N"),
                                           (dict(s=[0.1], N=1.0, parameters=[1, 2]), "parameters")])
def test_evaluating_a_law_checks_its_arguments(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        L.Coulomb(0.5, 0.01)(**kwargs)


@pytest.mark.parametrize("kwargs, match", [(dict(force=[0.1]), "N"), (dict(force=[0.1], N=0.0), "N"),
                                           (dict(force=[0.1], N=-1.0), "N"), (dict(force=[math.nan], N=1.0), "force"),
                                           (dict(force=[0.1], N=1.0, tol=-1.0), "tol")])
def test_steady_slip_checks_its_arguments(kwargs, match):
    with pytest.raises((TypeError, ValueError), match=match):
        L.Coulomb(0.5, 0.01).steady_slip(**kwargs)


def test_steady_slip_of_a_law_with_zero_slope_at_zero_slip():
    """z = -N s^3 has zero slope at s = 0 (Newton from the linearization divided by zero): the
    slip carrying f solves -s^3 = f, s = -f^(1/3)."""
    law = L.Law(-N * s**3, slip=s, normal=N)
    assert law.steady_slip([0.1], N=1.0)[0] == pytest.approx(-0.1 ** (1 / 3), rel=1e-12)
    assert law.steady_slip([-0.008], N=2.0)[0] == pytest.approx(0.004 ** (1 / 3), rel=1e-12)
    assert law.steady_slip([0.0], N=1.0)[0] == 0.0
    coulomb = L.Coulomb(0.5, 0.01)  # the default path: the closed form of the creep
    assert coulomb.steady_slip([0.3], N=1.0)[0] == pytest.approx(coulomb.creep([0.3], 1.0)[0], rel=1e-12)


@pytest.mark.parametrize("law", [L.Law(-N * s / sp.sqrt(1 + s**2), slip=s, normal=N),
                                 L.Law(-N * sp.tanh(s), slip=s, normal=N)])
def test_steady_slip_without_a_solution_says_so(law):
    with pytest.raises(ValueError, match="no slip carries"):
        law.steady_slip([1.5], N=1.0)


def test_tire_laws_need_a_positive_speed():
    mf = L.MagicFormula(10, 1.9, 1.0, 0.97)
    for V in (None, 0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="V"):
            mf.steady_slip([0.3], N=1.0, V=V)
        with pytest.raises(ValueError, match="V"):
            mf([0.3], N=1.0, V=V)
    assert mf([0.0], N=1.0, V=1.0)[0] == 0.0


def test_set_valued_coulomb_has_no_steady_slip_or_creep():
    for call in (lambda law: law.steady_slip([0.1], N=1.0), lambda law: law.creep([0.1], 1.0)):
        with pytest.raises(ValueError, match="set-valued"):
            call(L.Coulomb(0.5))


def test_creep_checks_its_arguments():
    law = L.Coulomb(0.5, 0.01)
    for force, load in (([0.1], -1.0), ([0.1], 0.0), ([math.nan], 1.0)):
        with pytest.raises(ValueError, match="N|force"):
            law.creep(force, load)


# ------------------------------------------------------------------ laws on systems
@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)


@pytest.mark.parametrize("normal, error", [(-1.0, ValueError), (math.nan, ValueError), (math.inf, ValueError),
                                           (True, TypeError), ("abc", ValueError), (sp.Symbol("zzz"), ValueError)])
@pytest.mark.parametrize("use", ["friction", "reduced", "stick_slip", "friction_margin"])
def test_a_normal_load_that_is_negative_or_not_finite_is_named(sleigh, use, normal, error):
    """Before: normal=-1 built a friction model that pushes along the slip (and a stick-slip model
    that never left rolling); NaN failed deep in the lowering without naming the argument."""
    law = L.Coulomb(0.5, 0.01)
    build = {"friction": lambda: sleigh.friction(law=law, normal=normal),
             "reduced": lambda: sleigh.reduced(order=1, law=law, normal=normal),
             "stick_slip": lambda: sleigh.stick_slip(0.5, normal=normal),
             "friction_margin": lambda: sleigh.friction_margin(0.3, normal=normal)}[use]
    with pytest.raises(error, match="normal"):
        build()


def test_a_zero_load_is_a_contact_without_friction(sleigh):
    """N = 0 is allowed: the Coulomb force vanishes and nothing dissipates the sleigh's energy,
    which a load of 1 does."""
    energy = {}
    for load in (0.0, 1.0):
        run = nh.simulate(sleigh.friction(law=L.Coulomb(0.5, 0.01), normal=load), (0, 1), Y0, rtol=1e-10, atol=1e-12)
        energy[load] = run.energy()
    assert np.ptp(energy[0.0]) < 1e-8 * energy[0.0][0]
    assert energy[1.0][-1] < energy[1.0][0] - 1e-2


@pytest.mark.parametrize("speed", [0.0, -1.0, math.nan])
def test_a_tire_speed_that_is_not_positive_is_named(sleigh, speed):
    with pytest.raises(ValueError, match="speed"):
        sleigh.friction(law=L.MagicFormula(10, 1.9, 1.0), normal=1.0, speed=speed)


@pytest.mark.parametrize("contacts", [[[0.5]], [[True]]])
def test_contact_rows_must_be_integers(sleigh, contacts):
    with pytest.raises(TypeError, match="contacts"):
        sleigh.friction(law=L.Coulomb(0.5, 0.01), normal=1.0, contacts=contacts)


def test_a_law_parameter_the_system_lacks_is_named(sleigh):
    law = L.Law(-sp.Symbol("k") * s, slip=s, scale=1)
    with pytest.raises(ValueError, match="law.*k"):
        sleigh.friction(law=law)


@pytest.mark.parametrize("value", [True, np.bool_(True)])
def test_bools_are_not_coefficients(sleigh, value):
    for build in (lambda: sleigh.stick_slip(value, normal=1.0), lambda: sleigh.friction_margin(value, normal=1.0)):
        with pytest.raises(TypeError, match="mu"):
            build()


@pytest.mark.parametrize("gravity, match", [((math.nan, 0, -9.81), "gravity"), ((math.inf, 0, -9.81), "gravity"),
                                            ((1j, 0, -9.81), "gravity"), (math.nan, "gravity"),
                                            (-9.81, "gravity"), ((0, 0, 9.81), "gravity")])
def test_gravity_that_is_not_finite_or_lifts_the_body_is_named(gravity, match):
    """A negative scalar g (gravity along +z) or a vector with g_z > 0 lifts the body off the plane
    it is said to roll on: refused instead of a run with a negative normal force."""
    with pytest.raises((TypeError, ValueError), match=match):
        nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3)), nh.contact.Sphere(0.1), gravity=gravity)


def test_margin_arguments_are_checked(sleigh):
    margin = sleigh.friction_margin(0.3, normal=1.0)
    with pytest.raises(ValueError, match="unknown parameter 'zzz'"):
        margin.value([0, 0, 0], [1, 0, 1], params={"zzz": 1.0})
    with pytest.raises(TypeError, match="result"):
        margin.of("abc")
    with pytest.raises(TypeError, match="system"):
        nh.Margin(None, "friction", 0.3, 1.0)
    # the margin of the sleigh at (u, omega) = (1, 1): mu N - m I u omega / (I + m a^2)
    assert margin.value([0, 0, 0], [1, 0, 1]) == pytest.approx(0.3 - 1 / 1.04, rel=1e-12)


# ------------------------------------------------------------------ stick-slip runs
def test_stick_slip_refuses_unknown_parameters_and_bad_tolerances(sleigh):
    model = sleigh.stick_slip(0.5, normal=1.0)
    with pytest.raises(ValueError, match="unknown parameter 'zzz'"):
        nh.simulate(model, (0, 1), Y0, params={"zzz": 1.0})
    with pytest.raises(ValueError, match="rtol"):
        nh.simulate(model, (0, 1), Y0, rtol=-1.0)


def test_stick_slip_honours_raise_on_failure(sleigh):
    model = sleigh.stick_slip(0.5, normal=1.0)
    with pytest.warns(nh.SimulationWarning, match="max_steps"):
        failed = nh.simulate(model, (0, 1), Y0, max_steps=1)
    assert failed.status == -1 and not failed.success
    with pytest.raises(nh.IntegrationError, match="max_steps"), pytest.warns(nh.SimulationWarning):
        nh.simulate(model, (0, 1), Y0, max_steps=1, raise_on_failure=True)
    assert np.array_equal(failed.y_final, failed.y[:, -1])


def test_stick_slip_starting_at_the_edge_of_the_cone_slides_when_the_force_grows(sleigh):
    """The sleigh at u = omega = 1 needs the lateral force m I u omega / (I + m a^2) = 1/1.04, growing
    (d(u omega)/dt = a omega^3 - m a u^2 omega / (I + m a^2) > 0). With mu_s N exactly that force it
    must slide at once, as with mu_s a hair below; before, the margin's root at t0 was not reported
    and the run rolled without slipping to the end (mu_k = 0.8 / 1.04 below mu_s)."""
    edge = 1 / 1.04
    runs = {f: nh.simulate(sleigh.stick_slip(edge * f, mu_k=0.8 * edge, normal=1.0), (0, 2), Y0, rtol=1e-10,
                           atol=1e-12) for f in (1.0, 1 - 1e-9)}
    for f, run in runs.items():
        assert run.success
        assert run.modes[0] == "slip" or run.switches[0][1:] == ("stick", "slip") and run.switches[0][0] < 1e-6
        assert all(a != b for _, a, b in run.switches)  # no spurious slip -> slip switches
    assert np.allclose(runs[1.0].y_final, runs[1 - 1e-9].y_final, rtol=0, atol=1e-6)
    inside = nh.simulate(sleigh.stick_slip(edge * 1.5, mu_k=0.8 * edge, normal=1.0), (0, 2), Y0, rtol=1e-10,
                         atol=1e-12)
    assert inside.switches == [] and inside.modes == ["stick"]


def test_a_magic_formula_whose_force_turns_along_the_slip_names_C():
    """An outside probe: MagicFormula(10, 2.5, 1.0) was refused by the general check, 'expr must oppose the
    slip ... at s = [0.444]', which names neither C nor what to do. C atan(B a - E (B a - atan(B a))) passes
    pi at a slip angle of 0.3078 rad (sin(2.5 atan(10 a)) = 0 there), beyond which the force pushes along the
    slip; at most 2.084 for B = 10, E = 0 (pi / atan(5 pi)), and 2 for a slip ratio, which is unbounded."""
    import math

    a = 0.3078
    assert 2.5 * math.atan(10 * a) == pytest.approx(math.pi, abs=1e-3)
    with pytest.raises(ValueError, match=r"C = 2.5 \(with B = 10, E = 0\) turns the force along the slip beyond a "
                                         r"slip angle of 0.3078 rad.* at most 2.084"):
        L.MagicFormula(10, 2.5, 1.0)
    assert math.pi / math.atan(5 * math.pi) == pytest.approx(2.084, abs=5e-4)
    law = L.MagicFormula(10, 2.08, 1.0)  # just below: a friction force at every slip angle
    assert law([1e3], N=1.0, V=1.0)[0] < 0
    with pytest.raises(ValueError, match=r"longitudinal's Cx = 2.2 .* slip ratio of 0.6955.* at most 2 "):
        L.MagicFormula(10, 1.3, 1.0, rows=2, longitudinal=(10, 2.2, 1.0, 0.0), combined=(1, 1, 1, 1, 1, 1))
    assert L.MagicFormula(10, 1.3, 1.0, 0.5).C == 1.3  # the default path: a usual tire
