"""A run far from t = 0 (t0 a Unix time, 1.7e9, where doubles lie 2.4e-7 apart) is the run from 0
shifted, for a system that does not depend on time. An outside probe's sleigh on an incline over
(t0, t0 + 2) at rtol 1e-8 ended 1.5e-11 off its reference from t0 = 0 and 3.0e-7 off from 1.7e9
under the default (DOP853), in the same 14 steps, with status 0; from t0 = 1e12 the run failed,
"the step size collapsed". DOP853 now takes the step as the time holds it, h = (t + h) - t, and
measures a collapsed step against the time the run covered; CVODE (Adams, BDF), which rounds its
times, says so where that rounding exceeds rtol over the run."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th = sp.symbols("x y theta")
M, INERTIA, A, G = 1.3, 0.7, 0.4, 2.0
Y0 = [0.1, -0.2, 0.3, 0.8 * np.cos(0.3), 0.8 * np.sin(0.3), 0.5]


@pytest.fixture(scope="module")
def sleigh():
    s, c = sp.sin(th), sp.cos(th)
    metric = sp.Matrix([[M, 0, -M * A * s], [0, M, M * A * c], [-M * A * s, M * A * c, INERTIA + M * A**2]])
    system = nh.System([x, y, th], metric, potential=M * G * (y + A * s), constraints=sp.Matrix([[-s, c, 0]]))
    return system.nonholonomic()


@pytest.mark.parametrize("options", [{}, {"method": "dop853"}])
@pytest.mark.parametrize("t0", [1.7e9, 1e11, 1e12])
def test_an_explicit_run_far_from_zero_is_the_run_from_zero(sleigh, options, t0):
    near = nh.simulate(sleigh, (0, 2), Y0, **options)
    far = nh.simulate(sleigh, (t0, t0 + 2), Y0, **options)
    assert far.success and far.stats["n_steps"] == near.stats["n_steps"] and not far.warnings
    np.testing.assert_allclose(far.y[:, -1], near.y[:, -1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(far.t - t0, near.t, rtol=0, atol=4 * np.spacing(t0))


@pytest.mark.parametrize("method", ["adams", "bdf"])
def test_cvode_says_where_its_rounded_times_cost_the_runs_accuracy(sleigh, method):
    near = nh.simulate(sleigh, (0, 2), Y0, method=method)
    assert not near.warnings
    with pytest.warns(nh.SimulationWarning, match=r"lie far from t = 0 .* doubles there are 2.4e-07 apart"):
        far = nh.simulate(sleigh, (1.7e9, 1.7e9 + 2), Y0, method=method)
    assert far.success and np.abs(far.y[:, -1] - near.y[:, -1]).max() > 1e-7  # what it warns of
    # near enough to 0 that the rounding stays below rtol: no warning
    assert not nh.simulate(sleigh, (1e4, 1e4 + 2), Y0, method=method).warnings


def test_a_failure_far_from_zero_says_where_its_times_lie():
    """A second-round probe's forced oscillator x'' + x = cos(1.3 t) from t0 = 1e10 (doubles 1.9e-6 apart):
    the default run stopped, "the step size collapsed ... (the solution blows up, or the model is singular
    ...)"; nothing blows up. The message now says where the run's times lie and what that does."""
    x, t = sp.symbols("x t")
    forced = nh.System([x], sp.Matrix([[1]]), potential=x**2 / 2, force=[sp.cos(1.3 * t)]).nonholonomic()
    assert nh.simulate(forced, (0, 10), [1.0, 0.0]).success
    with pytest.warns(nh.SimulationWarning, match=r"lie far from t = 0 \(t_span \(10000000000, 10000000010\)\): "
                                                  r"the doubles there are 1.9e-06 apart"):
        far = nh.simulate(forced, (1e10, 1e10 + 10), [1.0, 0.0])
    assert not far.success
    # the span's end to the last digit (an outside probe's (1e15, 1e15 + 1) was printed (1e+15, 1e+15))
    with pytest.warns(nh.SimulationWarning, match=r"t_span \(1000000000000000, 1000000000000001\)"):
        nh.simulate(forced, (1e15, 1e15 + 1), [1.0, 0.0])
