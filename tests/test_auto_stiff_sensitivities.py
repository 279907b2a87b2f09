"""``method="auto"`` with forward sensitivities hands over from Adams to BDF when the run turns
stiff (issue 40, adversarial finding 7: it never did, so a fit of such a model ran 500,000 Adams
steps), and the sensitivities go on from where Adams left them.

The model: a unit mass in a plane on a spring k, damped by lam t^2 (lam = 100). It is not stiff
at first and stiff from t of about 1 on (|lambda| = lam t^2 reaches 1e4 at t = 10), where Adams'
step is held at h |lambda| of about 0.3 (order 7) without a failure of its fixed-point iteration
(with the staggered sensitivity corrector): 108,000 steps for t in [0, 10], against 351 with the
switch. Finite differences of runs at rtol 1e-11 check the sensitivities.
"""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

T = np.linspace(0.0, 10.0, 6)
Y0 = np.array([1.0, 0.5, 0.0, 1.0])
OPTIONS = dict(rtol=1e-8, atol=1e-10)


@pytest.fixture(scope="module")
def model():
    x, y, vx, vy = sp.symbols("x y vx vy")
    t = sp.Symbol("t")
    lam, k = sp.symbols("lam k", positive=True)
    system = nh.System([x, y], sp.eye(2), k * (x**2 + y**2) / 2, force=sp.Matrix([-lam * t**2 * vx, -lam * t**2 * vy]),
                       parameters={lam: 100.0, k: 1.0}, velocities=[vx, vy], time=t, name="stiffening damper")
    return system.nonholonomic()


@pytest.mark.parametrize("corrector", ["staggered", "simultaneous"])
def test_auto_with_sensitivities_switches_to_bdf(model, corrector):
    res = nh.simulate(model, (0.0, 10.0), Y0, t_eval=T, sensitivities=["lam", ("y0", 0)],
                      sensitivity_method=corrector, **OPTIONS)
    assert res.success, res.message
    assert res.method.startswith("adams->bdf"), res.method
    assert 0.5 < res.stats["t_switch"] < 4.0
    assert res.stats["n_steps"] < 2000  # 351 (staggered) and 875-ish (simultaneous) measured
    # Adams alone spends 20,000 steps before t = 10 (108,000 to get there)
    with pytest.warns(nh.SimulationWarning, match="max_steps"):
        adams = nh.simulate(model, (0.0, 10.0), Y0, t_eval=T, sensitivities=["lam"], method="adams",
                            max_steps=20000, **OPTIONS)
    assert not adams.success and adams.t[-1] < 10.0


def test_sensitivities_across_the_switch_match_finite_differences(model):
    tight = dict(rtol=1e-11, atol=1e-13)
    res = nh.simulate(model, (0.0, 10.0), Y0, t_eval=T, sensitivities=["lam", "k", ("y0", 0)], **tight)
    assert res.method.startswith("adams->bdf"), res.method

    def final(lam=100.0, k=1.0, y0=Y0):
        return nh.simulate(model, (0.0, 10.0), y0, t_eval=T, params={"lam": lam, "k": k}, method="bdf", **tight).y

    columns = []
    for name, f, h in [("lam", lambda d: final(lam=100.0 + d), 1.0), ("k", lambda d: final(k=1.0 + d), 1e-2),
                       ("y0", lambda d: final(y0=Y0 + d * np.eye(4)[0]), 1e-2)]:
        columns.append((f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h))
    fd = np.stack(columns, axis=1)
    for j in range(3):
        scale = np.max(np.abs(fd[:, j]))
        assert np.max(np.abs(res.sensitivities[:, j] - fd[:, j])) <= 1e-5 * scale, j


def test_non_stiff_run_with_sensitivities_stays_with_adams(model):
    """The same model with a light damper (lam = 0.01: |lambda| at most 1) is not stiff: Adams to
    the end."""
    res = nh.simulate(model, (0.0, 10.0), Y0, t_eval=T, params={"lam": 0.01}, sensitivities=["lam"], **OPTIONS)
    assert res.success and res.method == "adams", res.method
    assert res.stats["n_restarts"] == 0


@pytest.fixture(scope="module")
def overdamped():
    """x'' = -k x - c x' with k = 2000, c = 1e4: eigenvalues -0.2 and -9999.8, stiff from the start."""
    x, xd = sp.symbols("x x_dot")
    k, c = sp.symbols("k c")
    system = nh.System([x], sp.Matrix([[1]]), potential=k * x**2 / 2, force=sp.Matrix([-c * xd]), velocities=[xd],
                       parameters={k: 2e3, c: 1e4})
    return system.nonholonomic()


def overdamped_x(t, k=2e3, c=1e4):
    slow, fast = (-c + np.sqrt(c**2 - 4 * k)) / 2, (-c - np.sqrt(c**2 - 4 * k)) / 2
    return (-fast * np.exp(slow * t) + slow * np.exp(fast * t)) / (slow - fast)


@pytest.mark.parametrize("rtol", [1e-6, 1e-10, 1e-11])
def test_auto_with_sensitivities_switches_where_adams_settles_inside_its_stability_interval(overdamped, rtol):
    """At tight tolerances CVODE's Adams settled at a fixed step far inside its stability interval
    (h |lambda| = 0.064 at order 6, rtol 1e-10), where the border test never fired: 600,000 steps
    without reaching t = 0.13 of 5, and nh.fit of this model failed after 25 s. The decaying mode
    holds the step 50,000 times below what the solution's rate asks: BDF from t of about 0.003-0.02,
    and the values and dx/dk agree with the closed form."""
    t = np.linspace(0.0, 5.0, 11)
    res = nh.simulate(overdamped, (0.0, 5.0), [1.0, 0.0], t_eval=t, sensitivities=["k"], rtol=rtol,
                      atol=rtol / 100)
    assert res.success and res.method.startswith("adams->bdf"), res.method
    assert res.stats["t_switch"] < 0.05 and res.stats["n_steps"] < 2000  # 466, 575 and 590 measured
    assert np.abs(res.y[0] - overdamped_x(t)).max() < 100 * rtol
    h = 1e-3
    dxdk = (overdamped_x(t, k=2e3 + h) - overdamped_x(t, k=2e3 - h)) / (2 * h)
    assert np.abs(res.sensitivities[0, 0] - dxdk).max() < 1e-3 * np.abs(dxdk).max()


def test_fit_of_a_stiff_model_succeeds_with_the_default_method(overdamped):
    """The fit that failed: k from 1000 to the data's 2000, 51 samples of the closed form."""
    t = np.linspace(0.0, 5.0, 51)
    fit = nh.fit(overdamped, t, overdamped_x(t)[None], {"k": 1e3}, [1.0, 0.0], observe=["x"])
    assert fit.success, fit.message
    assert abs(fit.params["k"] - 2e3) < 1e-3


@pytest.mark.parametrize("rtol", [1e-8, 1e-12])
def test_conservative_runs_with_sensitivities_and_a_fast_mode_stay_with_adams(rtol):
    """An elastic pendulum (radial spring of 100 rad/s, swinging at about 3 rad/s) excited a little
    along its spring: Adams to the end, with the default as with the old border test alone."""
    r, phi = sp.symbols("r phi")
    pendulum = nh.System([r, phi], sp.diag(1, r**2), potential=5000 * (r - 1)**2 - sp.Float(9.81) * r * sp.cos(phi))
    res = nh.simulate(pendulum.nonholonomic(), (0.0, 10.0), [1.0 + 1e-5, 1.0, 0.0, 0.0], sensitivities=[("y0", 1)],
                      rtol=rtol)
    assert res.success and res.method == "adams", res.method
