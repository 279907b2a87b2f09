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
