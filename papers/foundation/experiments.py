r"""Foundation figures: the Chaplygin sleigh, nonholonomic and with friction, and the benchmark.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh import frames as sf

SLEIGH = dict(m=1.0, I=1.0, a=0.2)
U0, OMEGA0, T = -1.5, 1.0, 20.0
EPS = [1e-1, 1e-2, 1e-3]
Y0 = [0.0, 0.0, 0.0, U0, 0.0, OMEGA0]




def _body(sol) -> tuple:
    """(u, omega): the forward velocity u = x' cos phi + y' sin phi along the blade and phi'."""
    u, _, omega = sf.body_velocities(sol.q, sol.v)
    return u, omega


def sleigh_runs() -> dict:
    """The sleigh of SLEIGH from Y0 over [0, T] (rtol 1e-10): the nonholonomic model and the friction
    model for each eps in EPS. For each run the contact point (x, y) and the body velocities
    (u, omega); beside them the numbers of the report: the final configuration and the energy drift
    of the nonholonomic run, the terminal speed U = sqrt(u0^2 + J omega0^2 / m) (J = I + m a^2), the
    final u, the distance of each friction run to the nonholonomic contact point at T and its steps."""
    sleigh = nh.systems.chaplygin_sleigh(**SLEIGH)
    t = np.linspace(0, T, 2001)
    ref = nh.simulate(sleigh.nonholonomic(), (0, T), Y0, t_eval=t, rtol=1e-10, atol=1e-12)
    runs = {eps: nh.simulate(sleigh.friction(eps), (0, T), Y0, t_eval=t, rtol=1e-10, atol=1e-12) for eps in EPS}

    def curves(sol) -> dict:
        u, omega = _body(sol)
        return dict(x=sol["x"], y=sol["y"], u=u, omega=omega)

    J = SLEIGH["I"] + SLEIGH["m"] * SLEIGH["a"] ** 2
    return {
        "nonholonomic": curves(ref),
        "friction": {eps: curves(sol) for eps, sol in runs.items()},
        "nh_final": ref.y[:3, -1].tolist(),
        "nh_energy_drift": float(np.ptp(ref.energy())),
        "U": float(np.sqrt(U0**2 + J * OMEGA0**2 / SLEIGH["m"])),
        "nh_u_end": float(_body(ref)[0][-1]),
        "friction_u_end": {eps: float(_body(sol)[0][-1]) for eps, sol in runs.items()},
        "friction_distance": {eps: float(np.hypot(*(sol.y[:2, -1] - ref.y[:2, -1]))) for eps, sol in runs.items()},
        "friction_steps": {eps: sol.stats["n_steps"] for eps, sol in runs.items()},
    }
