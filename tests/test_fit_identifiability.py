"""A parameter the observations do not depend on is refused before the fit, also where its computed
sensitivities are round-off rather than exact zeros: a knife edge's path does not depend on its mass
(x = sin t, y = 1 - cos t for any m), and the fit of m from 1.3 ended at 0.975 with success, from 3
at 3.75, from 0.2 at a NaN trial point."""

import numpy as np
import pytest
import sympy as sp

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
