"""A parameter's assumptions by every route a symbol reaches a system (an outside probe's gaps): an expression
whose symbol assumes more than the system's symbol of that name (with_force of -Abs(k) x' with k positive, on
a system whose k with_parameters(new=True) declared real: SymPy had written -k x', and k = -0.7 pushed, x(3) =
-3.05 for -0.288), and values against even, odd and nonzero assumptions (n even run at 3: -0.071 for -0.987)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.errors import ModelError

x = sp.Symbol("x")


def particle(**kw):
    return nh.System([x], sp.Matrix([[1]]), potential=x**2 / 2, **kw)


def test_an_expression_that_assumes_more_than_the_system_is_refused():
    k_real, k_positive = sp.Symbol("k", real=True), sp.Symbol("k", positive=True)
    damped = particle().with_parameters({k_real: -0.7}, new=True)
    force = [-sp.Abs(k_positive) * sp.Symbol("x_dot")]
    assert force[0] == -k_positive * sp.Symbol("x_dot")  # what SymPy made of it
    with pytest.raises(ModelError, match=r"k in the expression is k \(positive=True\).*system.symbol\('k'\)"):
        damped.with_force(force)
    # the system's own symbol, or the same assumptions, are taken; so is a symbol assuming less
    with_own = damped.with_force([-sp.Abs(damped.symbol("k")) * sp.Symbol("x_dot")])
    r = nh.simulate(with_own.nonholonomic(), (0, 3), [1.0, 0.0], rtol=1e-10, atol=1e-12)
    ref = nh.simulate(particle(force=[-0.7 * sp.Symbol("x_dot")]).nonholonomic(), (0, 3), [1.0, 0.0], rtol=1e-10,
                      atol=1e-12)
    np.testing.assert_allclose(r.y_final, ref.y_final, atol=1e-9)
    positive = particle().with_parameters({k_positive: 0.7}, new=True)
    assert positive.with_force([-sp.Symbol("k") * sp.Symbol("x_dot")]).force is not None


@pytest.mark.parametrize("assumption, bad, good", [("even", 3.0, 2.0), ("odd", 2.0, 3.0), ("nonzero", 0.0, -1.5)])
def test_even_odd_and_nonzero_values_are_checked(assumption, bad, good):
    n = sp.Symbol("n", **{assumption: True})
    system = particle(force=[(-1) ** n * sp.Symbol("x_dot") / 10 if assumption != "nonzero" else
                             -sp.sign(n) ** 2 * sp.Symbol("x_dot") / 10], parameters={n: good})
    model = system.nonholonomic()
    with pytest.raises(ModelError, match=f"so {assumption}"):
        nh.simulate(model, (0, 1), [1.0, 0.0], params={"n": bad})
    assert nh.simulate(model, (0, 1), [1.0, 0.0], params={"n": good}).status == 0


def test_an_integer_parameter_has_no_sensitivity():
    """cos(n x) and cos(n (x + 2 pi)) are one expression at every integer n, not in d/dn: a sensitivity to an
    integer n depended on how it was written (0.534 and 3.040), and nh.fit left c at its start."""
    n, c = sp.Symbol("n", integer=True), sp.Symbol("c")
    xd = sp.Symbol("x_dot")
    model = particle(force=[-c * xd + sp.cos(n * x) / 10], parameters={n: 2, c: 0.1}).nonholonomic()
    with pytest.raises(ValueError, match="parameter 'n' is declared integer, so it has no derivative"):
        nh.simulate(model, (0, 3), [1.0, 0.0], sensitivities=["n"])
    t = np.linspace(0, 3, 20)
    y = nh.simulate(model, (0, 3), [1.0, 0.0], t_eval=t).y
    with pytest.raises(ValueError, match="declared integer"):
        nh.fit(model, t, y, params={"n": 2.0, "c": 0.3}, y0=[1.0, 0.0])
    fitted = nh.fit(model, t, y, params={"c": 0.3}, y0=[1.0, 0.0])  # n held at its value
    assert fitted.success and abs(fitted.params["c"] - 0.1) < 1e-6
    run = nh.simulate(model, (0, 3), [1.0, 0.0], sensitivities=["c"])
    assert run.sensitivities.shape[1] == 1


def test_coordinates_and_velocities_carry_no_sign_assumption():
    """A coordinate declared positive: SymPy made -x Abs(x) into -x**2, and a run through x < 0 ended at
    x(5) = -25.98 for -0.292, status 0. Refused, naming it; real ones run."""
    xp, y = sp.Symbol("x", positive=True), sp.Symbol("y")
    with pytest.raises(ModelError, match="coordinates: x is declared positive"):
        nh.System([xp, y], sp.eye(2), force=[-xp * sp.Abs(xp), -y])
    with pytest.raises(ModelError, match="velocities: u is declared nonnegative"):
        nh.System([x, y], sp.eye(2), velocities=[sp.Symbol("u", nonnegative=True), sp.Symbol("w")])
    xr = sp.Symbol("x", real=True)
    system = nh.System([xr, y], sp.eye(2), force=[-xr * sp.Abs(xr) - sp.Symbol("x_dot") / 10, -y])
    r = nh.simulate(system.nonholonomic(), (0, 5), [-1.0, 0, 0, 0], rtol=1e-10, atol=1e-12)
    from scipy.integrate import solve_ivp

    ref = solve_ivp(lambda t, z: [z[1], -z[0] * abs(z[0]) - z[1] / 10], (0, 5), [-1.0, 0.0], rtol=1e-12, atol=1e-14)
    assert abs(r.y_final[0] - ref.y[0, -1]) < 1e-7


def test_a_fixed_value_out_of_range_is_named_as_fixed():
    """fit(..., fixed={"m": -1}) for a positive m: the message blamed the fit's starting point."""
    m, c = sp.Symbol("m", positive=True), sp.Symbol("c")
    model = nh.System([x], sp.Matrix([[m]]), potential=x**2 / 2, force=[-c * sp.Symbol("x_dot")],
                      parameters={m: 1.0, c: 0.1}).nonholonomic()
    t = np.linspace(0, 3, 20)
    y = nh.simulate(model, (0, 3), [1.0, 0.0], t_eval=t).y
    with pytest.raises(ModelError, match=r"^fixed: parameter m = -1 contradicts"):
        nh.fit(model, t, y, params={"c": 0.3}, fixed={"m": -1.0}, y0=[1.0, 0.0])
    assert abs(nh.fit(model, t, y, params={"c": 0.3}, fixed={"m": 1.0}, y0=[1.0, 0.0]).params["c"] - 0.1) < 1e-6
