"""method="auto" on Adams (runs with events, dense output or sensitivities) hands a stiff run over to BDF also
where the tolerance is tight.

A pendulum coupled through its metric to a coordinate on a stiff damper (c = 2000, k = 5000: a mode damped at
about -2200), written here: at rtol 1e-10 CVODE's Adams raised its order to 6 and held its step at a constant
h |lambda| = 0.097, far inside the corrector's stability interval (the 0.35 the test looked for) but at the
border of its explicit predictor; it never switched and took 106,000 steps (177,000 with sensitivities), BDF
about 2,000. The trajectory is checked against SciPy's Radau at rtol 1e-12."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

q1, q2 = sp.symbols("q1 q2")
VALUES = {"m": 1.0, "c": 2000.0, "k": 5000.0, "g": 9.81}
Y0 = np.array([1.0, 0.0, 0.0, 0.0])
T = 2.0


def damped_pair():
    m, c, k, g = sp.symbols("m c k g")
    G = sp.Matrix([[m, 0.3 * sp.cos(q1 - q2)], [0.3 * sp.cos(q1 - q2), 1]])
    return nh.System([q1, q2], G, potential=-g * sp.cos(q1) + k * q2**2 / 2,
                     force=sp.Matrix([0, -c * sp.Symbol("q2_dot")]), parameters={m: 1.0, c: 2000.0, k: 5000.0, g: 9.81})


def reference(t_eval, g=9.81):
    """The Euler-Lagrange equations by hand: G(q) q'' = -dG/dt q' + (1/2) q'^T dG/dq q' - dV/dq + F."""
    m, c, k = VALUES["m"], VALUES["c"], VALUES["k"]

    def rhs(_, y):
        a, b, da, db = y
        s, co = np.sin(a - b), np.cos(a - b)
        G = np.array([[m, 0.3 * co], [0.3 * co, 1.0]])
        # T = m da^2/2 + 0.3 cos(a - b) da db + db^2/2: d/dt dT/dv - dT/dq
        gyro = np.array([-0.3 * s * (da - db) * db + 0.3 * s * da * db,
                         -0.3 * s * (da - db) * da - 0.3 * s * da * db])
        force = np.array([-g * np.sin(a), -k * b - c * db])
        return [da, db, *np.linalg.solve(G, force - gyro)]

    return solve_ivp(rhs, (0, T), Y0, method="Radau", t_eval=t_eval, rtol=1e-12, atol=1e-14).y


@pytest.mark.parametrize("options", [{}, {"dense_output": True}, {"sensitivities": ["g"]}],
                         ids=["default", "dense output", "sensitivities"])
def test_a_stiff_run_at_a_tight_tolerance_goes_to_bdf(options):
    t = np.linspace(0, T, 5)
    run = nh.simulate(damped_pair().nonholonomic(), (0, T), Y0, t_eval=t, rtol=1e-10, atol=1e-12, **options)
    assert run.success and "->bdf" in run.method and "(stiff)" in run.method
    assert run.stats["n_steps"] < 5000
    np.testing.assert_allclose(run.y, reference(t), atol=2e-8)
    if "sensitivities" in options:
        h = 1e-5
        difference = (reference(t, 9.81 + h) - reference(t, 9.81 - h)) / (2 * h)
        np.testing.assert_allclose(run.sensitivities[:, 0], difference, atol=1e-6)
