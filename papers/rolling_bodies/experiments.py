r"""Rigid bodies rolling on a plane: the Chaplygin ball's first integrals, the rattleback's spin
reversal (Kane and Levinson 1982) with and without sliding, the tippe top's inversion window and
the rolling disc's upright stability. The systems are nonholo's built-ins
(:mod:`nonholo.systems`); the closed forms and oracles are in their module docstrings.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import importlib

import numpy as np
import sympy as sp

import nonholo as nh
from nonholo.builders.bodies import quaternion_from_euler, rotation_matrices
from nonholo.builders.contact import rolling_state
from nonholo.systems.chaplygin_ball import contact_angular_momentum
from nonholo.systems.rattleback import kane_levinson_state, reversal_time, vertical_spin
from nonholo.systems.tippe_top import inverts, jellett
from nonholo.systems.whipple_bicycle import upright_state
from nonholo.testing import loglog_slope

disc_module = importlib.import_module("nonholo.systems.rolling_disc")

RATTLEBACK_EPS = (1e-2, 1e-3, 1e-4, 1e-5, 2.5e-6)
TIPPE_RATIOS = (0.6, 0.95, 1.4)  # I1/I3 below, inside and above the window 1 -+ alpha (alpha = 0.3)
TIPPE = dict(m=0.015, R=0.02, alpha=0.3)  # the tippe top's mass, radius and centre offset (alpha R)
DISC_SPIN_FACTORS = (0.8, 1.3, 2.0)       # initial spin in units of the critical spin
BICYCLE_SPEEDS = (4.6, 2.0)      # m/s: inside and below the self-stable range of the benchmark bicycle
BICYCLE_KICK = 0.5               # rad/s: the initial roll rate of the nonlinear runs


def ball_integral_deviations() -> dict:
    """Relative deviations |E(t) - E(0)| / |E(0)| and |K(t) - K(0)| / |K(0)| of the energy and of the
    contact angular momentum K (a vector in space) of the Chaplygin ball along a run from random
    initial data (rtol 1e-12): ``{"t", "energy", "momentum"}`` arrays."""
    ball = nh.systems.chaplygin_ball(m=1.0, r=0.5, inertia=(0.2, 0.3, 0.45))
    rng = np.random.default_rng(0)
    y0 = rolling_state(ball, quaternion_from_euler(*rng.uniform(-1, 1, 3)), rng.normal(size=3) * 2)
    r = nh.simulate(ball.nonholonomic(), (0, 20), y0, t_eval=np.linspace(0, 20, 401), rtol=1e-12, atol=1e-14)
    E, K = r.energy(), contact_angular_momentum(r)
    dE = np.abs(E - E[0]) / abs(E[0])
    dK = np.linalg.norm(K - K[:, :1], axis=0) / np.linalg.norm(K[:, 0])
    return {"t": r.t, "energy": dE, "momentum": dK}


def rattleback_sliding_runs() -> dict:
    """The Kane-Levinson rattleback rolling without slip and with viscous sliding f = -s/eps for
    each eps in RATTLEBACK_EPS: the spin about the vertical, the reversal time of that spin
    averaged over 0.3 s (which removes the rocking) and the order of |T(eps) - T(rolling)| fitted
    over eps <= 1e-4. ``{"t", "rolling", "sliding": {eps: spin}, "T_rolling", "T": {eps: T}, "order"}``."""
    rb = nh.systems.rattleback()
    y0 = kane_levinson_state(rb)
    t = np.linspace(0, 3.2, 3201)
    rolling = vertical_spin(nh.simulate(rb.nonholonomic(), (0, 3.2), y0, t_eval=t, rtol=1e-10, atol=1e-12))
    # rtol 1e-7 moves these reversal times by about 1e-4 s, far below their differences
    sliding = {eps: vertical_spin(nh.simulate(rb.friction(eps), (0, 3.2), y0, t_eval=t, rtol=1e-7, atol=1e-9))
               for eps in RATTLEBACK_EPS}
    T0 = reversal_time(t, rolling, window=0.3)
    T = {eps: reversal_time(t, w, window=0.3) for eps, w in sliding.items()}
    small = [eps for eps in RATTLEBACK_EPS if eps <= 1e-4]
    order = loglog_slope(small, [T[e] - T0 for e in small])
    return {"t": t, "rolling": rolling, "sliding": sliding, "T_rolling": T0, "T": T, "order": order}


def tippe_top_runs() -> dict:
    """Height e3_z of the tippe top's symmetry axis for I1/I3 in TIPPE_RATIOS with viscous sliding
    (eps = 1), with whether 1 - alpha < I1/I3 < 1 + alpha holds and the relative drift of Jellett's
    integral, and inside the window (I1/I3 = 0.95) without slip. Returns ``{"t", "sliding": ratio ->
    {"e3z", "inverts", "jellett drift"}, "no slip": e3z}``."""
    m, R, alpha = TIPPE["m"], TIPPE["R"], TIPPE["alpha"]
    I3 = 0.4 * m * R**2
    t = np.linspace(0, 2.5, 251)
    sliding = {}
    for ratio in TIPPE_RATIOS:
        top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=ratio * I3)
        y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
        r = nh.simulate(top.friction(1.0), (0, 2.5), y0, t_eval=t, rtol=1e-9, atol=1e-11)
        J = jellett(r)
        sliding[ratio] = {"e3z": rotation_matrices(r.q[2:6])[:, 2, 2], "inverts": inverts(ratio * I3, I3, alpha),
                          "jellett drift": float(np.abs(J - J[0]).max() / abs(J[0]))}
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=0.95 * I3)
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0])
    r = nh.simulate(top.nonholonomic(), (0, 2.5), y0, t_eval=t, rtol=1e-9, atol=1e-11)
    return {"t": t, "sliding": sliding, "no slip": rotation_matrices(r.q[2:6])[:, 2, 2]}


TIPPE_LATE = 1.5  # s: the tippe top's e3_z is averaged over [TIPPE_LATE, 2.5] (its nutation removed)


def disc_leans() -> dict:
    """Lean of the rolling disc started upright with a lean of 1e-4 and spin factor x the critical
    spin sqrt(m g r A / (C (C + m r^2))), for each factor in DISC_SPIN_FACTORS. Returns
    ``{"critical spin", "t", "lean": factor -> lean(t)}``."""
    disc = nh.systems.rolling_disc()
    wc = disc_module.upright_critical_spin(*disc.param_vector())
    t = np.linspace(0, 8, 1601)
    lean = {}
    for factor in DISC_SPIN_FACTORS:
        y0 = rolling_state(disc, quaternion_from_euler(0, 0, 1e-4), [0, factor * wc, 0])
        r = nh.simulate(disc.nonholonomic(), (0, 8), y0, t_eval=t, rtol=1e-10, atol=1e-12)
        lean[factor] = r["lean"]
    return {"critical spin": wc, "t": t, "lean": lean}


def bicycle_eigenvalues(speeds=np.r_[np.linspace(0.0, 1.0, 21), np.linspace(1.25, 10.0, 36)]) -> dict:
    """Eigenvalues of the benchmark bicycle's upright straight run against the forward speed
    (nh.eigenvalue_path, modes tracked) and the speeds where stability changes
    (nh.critical_values): ``{"speed", "eigenvalues" (P, 4), "critical": [(v, kind, direction)]}``."""
    bike = nh.systems.whipple_bicycle()
    path = nh.eigenvalue_path(bike.nonholonomic(), "speed", np.asarray(speeds, float), lambda v: upright_state(bike, v))
    critical = [(c.value, c.kind, c.direction) for c in nh.critical_values(path)]
    return {"speed": path.values, "eigenvalues": path.physical, "critical": critical}


BICYCLE_STOPS = {"|roll| = 1 rad": 1.0, "|steer| = pi/2": np.pi / 2}  # the runs' terminal events


def bicycle_runs(t_end: float = 10.0) -> dict:
    """Nonlinear runs of the benchmark bicycle from upright straight running with a roll rate
    BICYCLE_KICK, at each speed in BICYCLE_SPEEDS, stopped when |roll| reaches 1 rad or |steer|
    reaches pi/2 (the handlebar turned across: the fall), whichever comes first:
    speed -> {"t", "roll", "steer", "stop": None or {"event", "t", "roll", "steer"}}."""
    bike = nh.systems.whipple_bicycle()
    model = bike.nonholonomic()
    roll, steer = sp.Symbol("roll"), sp.Symbol("steer")
    limits = list(BICYCLE_STOPS.values())
    events = [nh.Event(roll**2 - limits[0] ** 2, terminal=True), nh.Event(steer**2 - limits[1] ** 2, terminal=True)]
    i, j = bike.coordinate_names.index("roll"), bike.coordinate_names.index("steer")
    out = {}
    for v in BICYCLE_SPEEDS:
        r = nh.simulate(model, (0, t_end), upright_state(bike, v, roll_rate=BICYCLE_KICK),
                        t_eval=np.linspace(0, t_end, 1001), rtol=1e-10, atol=1e-12, events=events)
        stop = None
        for name, times, states in zip(BICYCLE_STOPS, r.t_events, r.y_events):
            if len(times):
                stop = {"event": name, "t": float(times[0]), "roll": float(states[0][i]),
                        "steer": float(states[0][j])}
        out[v] = {"t": r.t, "roll": r.q[i], "steer": r.q[j], "stop": stop}
    return out
