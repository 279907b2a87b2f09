"""Sensitivities of a run whose y0 is projected onto the constraint set (``project_y0=True``): the
projection depends on the parameters in G and A, so the parameter sensitivities start at its
derivative, not at zero projected onto the linearized constraint (which dropped that dependence: a
fit through such runs stopped at I_a = 0.12 on data made with 0.2, success True)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th, ph, m, R, Ia, Iv = sp.symbols("x y theta phi m R I_a I_v")
VALUES = {m: 1.5, R: 0.4, Ia: 0.12, Iv: 0.06}
DISC = nh.System([x, y, th, ph], sp.diag(m, m, Iv, Ia),
                 constraints=sp.Matrix([[1, 0, 0, -R * sp.cos(th)], [0, 1, 0, -R * sp.sin(th)]]), parameters=VALUES)
Y0 = [0, 0, 0.3, 0, 0.3, -0.1, 0.7, 2.0]  # off the rolling constraint


def projected_start():
    """The G-orthogonal projection keeps the momentum along D's vectors (R cos, R sin, 0, 1) and
    (0, 0, 1, 0): phi' = (m R (cos x' + sin y') + I_a phi') / (m R^2 + I_a), x' = R cos phi',
    y' = R sin phi', theta' unchanged; the closed form of y(0) as a function of the parameters."""
    c, s = sp.cos(Y0[2]), sp.sin(Y0[2])
    rate = (m * R * (c * Y0[4] + s * Y0[5]) + Ia * Y0[7]) / (m * R**2 + Ia)
    return sp.Matrix([*Y0[:4], R * c * rate, R * s * rate, Y0[6], rate])


@pytest.mark.parametrize("kind", ["nonholonomic", "friction", "reduced", "reduced frame"])
def test_the_sensitivities_of_a_projected_start_start_at_the_projections_derivative(kind):
    model = {"nonholonomic": DISC.nonholonomic(), "friction": DISC.friction(1e-2),
             "reduced": DISC.reduced(1e-2, order=1),
             "reduced frame": DISC.reduced(1e-2, order=1, velocities="frame")}[kind]
    names = ["R", "I_a", "m", "I_v"]
    run = nh.simulate(model, (0, 1), Y0, project_y0=True, sensitivities=names, t_eval=[0.0, 1.0],
                      rtol=1e-10, atol=1e-12)
    if kind != "reduced frame":  # a state [q, q']: the closed form (the frame form's state is [q, w])
        start = projected_start()
        exact = np.array([[float(e.diff(sym).subs(VALUES)) for sym in (R, Ia, m, Iv)] for e in start])
        np.testing.assert_allclose(run.y[:, 0], np.array(start.subs(VALUES), dtype=float).ravel(), atol=1e-12)
        np.testing.assert_allclose(run.sensitivities[:, :, 0], exact, atol=1e-8)
    h = 1e-6
    for j, name in enumerate(names):
        value = VALUES[sp.Symbol(name)]
        up, down = (nh.simulate(model, (0, 1), Y0, project_y0=True, params={name: value + d}, t_eval=[0.0, 1.0],
                                rtol=1e-12, atol=1e-14).y for d in (h, -h))
        np.testing.assert_allclose(run.sensitivities[:, j, :], (up - down) / (2 * h), atol=5e-7)
