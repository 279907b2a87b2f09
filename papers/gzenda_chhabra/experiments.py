r"""Gzenda and Chhabra, "Affine connection approach to the realization of nonholonomic constraints
by strong friction forces": the vertical rolling disk, computed.

The paper has no figure and no number: its disk example (section 5) is symbolic. Everything
here is nonholo's, beside the numbers of the project's paper note
(``papers/notes/003_gzenda_chhabra.md`` section 4.9, the note's own RK4 runs). The run of the
note: m = 1, R = 1, J = 0.5, I = 0.25, mu = 1; theta0 = 0.3, x0 = y0 = phi0 = 0, v_theta = 1,
v_phi^D = 1; the friction model started on the slow manifold of order 3; T = 4. The exact
solution of the stiff disk (:mod:`nonholo.systems.disk_exact`, a matrix exponential) is the
reference for nh.simulate. The only hand-written dynamics is the printed eq. (89) (its closed
form, ``disk_exact.reduced_closed_form(..., printed=True)``), kept to show the erratum.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import functools

import numpy as np

import nonholo as nh
from nonholo.systems import disk_exact as dx
from nonholo.testing import loglog_slope

# ------------------------------------------------------------------ the note's run and numbers
DISK = dict(m=1.0, R=1.0, I=0.25, J=0.5, mu=1.0)
THETA0, OMEGA, VPHI, T = 0.3, 1.0, 1.0, 4.0
MANIFOLD_ORDER = 3          # the note starts the friction model on vD + eps h1 + eps^2 h2 + eps^3 h3
NOTE_EPS = (0.2, 0.1, 0.05, 0.025)
ASYMPTOTIC_EPS = (0.0125, 0.00625, 0.003125)  # the note table's runs below the note's eps (orders 2 and 3)
TABLE_COLUMNS = ("lateral slip/eps", "fwd slip/eps^2", "err0(q)", "err1(q)", "err1_paper(q)", "err0(v_phi)",
                 "err1(v_phi)", "err1_paper(v_phi)")
NOTE_TABLE = {
    0.2: (-0.593, -0.199, 1.21, 2.28e-2, 2.60, 0.421, 7.2e-3, 1.13),
    0.1: (-0.769, -0.257, 0.655, 6.41e-3, 1.27, 0.235, 1.15e-3, 0.541),
    0.05: (-0.876, -0.292, 0.342, 1.87e-3, 0.630, 0.125, 1.63e-4, 0.268),
    0.025: (-0.936, -0.312, 0.175, 5.15e-4, 0.315, 0.0645, 2.17e-5, 0.134),
}
# polar disk with a potential (note section 4.9): |P_perp v - eps h1|/eps^2, |... - eps^2 h2|/eps^3 at T = 1
POLAR_EPS = (0.08, 0.04, 0.02, 0.01)
NOTE_POLAR = {0.08: (1.001, 1.68), 0.04: (0.973, 1.90), 0.02: (0.952, 2.04), 0.01: (0.940, 2.12)}
NOTE_ACCEL = (1.33, 0.77)   # (69) error ~ 1.33 eps, (71) error ~ 0.77 eps^2
POLAR_Q0, POLAR_RATES, POLAR_T = (0.4, 1.5, 0.2, 0.0), (0.8, 1.2), 1.0

SLIP_EPS = tuple(np.logspace(np.log10(0.2), -4, 13))
TRAJ_EPS, TRAJ_T = 0.2, 10.0
ERR_EPS = (0.2, 0.05)
CONV_EPS_DISK = (0.08, 0.04, 0.02, 0.01, 0.005)
RTOL, ATOL = 1e-12, 1e-14
COLORS = {"friction": "black", "order 0": "tab:blue", "order 1": "tab:green", "printed (89)": "tab:red",
          "exact": "0.6"}


@functools.lru_cache(maxsize=None)
def disk() -> nh.System:
    return nh.systems.vertical_rolling_disk(**DISK)


@functools.lru_cache(maxsize=None)
def polar_disk() -> nh.System:
    """:func:`nonholo.systems.polar_disk` with the note's disk and V = 0.35 r^2 + 0.3 cos(theta)
    (note section 4.9): a curved metric and a potential, the terms the paper's own example never
    exercises."""
    return nh.systems.polar_disk(**DISK, spring=0.35, tilt=0.3)


def note_start() -> tuple:
    """(q0, u0) of the note's run: u0 in D with v_theta = 1, v_phi = 1."""
    q0 = np.array([THETA0, 0.0, 0.0, 0.0])
    u0 = np.array([OMEGA, DISK["R"] * np.cos(THETA0) * VPHI, DISK["R"] * np.sin(THETA0) * VPHI, VPHI])
    return q0, u0


def polar_start() -> tuple:
    system = polar_disk()
    q0 = np.array(POLAR_Q0)
    A, _ = system.constraint_matrix(q0)
    w_theta, w_phi = POLAR_RATES
    middle = np.linalg.solve(A[:, 1:3], -(A[:, 0] * w_theta + A[:, 3] * w_phi))
    return q0, np.array([w_theta, *middle, w_phi])


def _kw(t):
    return dict(t_eval=t, rtol=RTOL, atol=ATOL, raise_on_failure=True)


def friction_run(eps: float, t):
    """nh.simulate of the friction disk from the note's start on the order-3 slow manifold."""
    q0, u0 = note_start()
    v0 = disk().on_slow_manifold(q0, u0, eps, order=MANIFOLD_ORDER)
    return nh.simulate(disk().friction(eps), (0, t[-1]), np.r_[q0, v0], **_kw(t))


def reduced_run(eps: float, order: int, t):
    q0, u0 = note_start()
    return nh.simulate(disk().reduced(eps, order=order), (0, t[-1]), np.r_[q0, u0], **_kw(t))


def printed_89(eps: float, t) -> np.ndarray:
    """The first-order model with the sign of the printed (89) (closed form), shape (8, n_t)."""
    q0, u0 = note_start()
    return dx.reduced_closed_form(t, np.r_[q0, u0], eps, order=1, printed=True, params=DISK)


# ------------------------------------------------------------------ numbers
def table_row(eps: float) -> dict:
    """One row of the note's table, recomputed at t = T, with the oracle check of the full run."""
    t = np.array([0.0, T])
    full = friction_run(eps, t)
    y = full.y[:, -1]
    exact = dx.stiff_solution([T], full.y[:, 0], eps, params=DISK)[:, 0]
    lateral, forward = dx.slips(y, DISK)
    alpha = dx.rolling_speed(y, DISK)
    models = [reduced_run(eps, 0, t).y[:, -1], reduced_run(eps, 1, t).y[:, -1], printed_89(eps, t)[:, -1]]
    err_q = [float(np.linalg.norm(m[1:4] - y[1:4])) for m in models]
    err_v = [float(abs(m[7] - alpha)) for m in models]
    values = (lateral / eps, forward / eps**2, *err_q, *err_v)
    return {"values": dict(zip(TABLE_COLUMNS, (float(v) for v in values))),
            "oracle_error": float(np.abs(y - exact).max()), "steps": full.stats["n_steps"]}


def note_table(eps_values=NOTE_EPS) -> dict:
    return {float(eps): table_row(eps) for eps in eps_values}


def slope(eps_values, values) -> float:
    """Least-squares slope of log |value| against log(eps)."""
    return loglog_slope(eps_values, values)


def polar_slip_ratios(eps_values=POLAR_EPS) -> dict:
    """|P_perp v - eps h1(P v)|/eps^2 and |P_perp v - eps h1 - eps^2 h2|/eps^3 (Euclidean norms)
    at t = 1 along the friction model started on the order-3 manifold (note section 4.9)."""
    system = polar_disk()
    q0, u0 = polar_start()
    out = {}
    for eps in eps_values:
        v0 = system.on_slow_manifold(q0, u0, eps, order=MANIFOLD_ORDER)
        sol = nh.simulate(system.friction(eps), (0, POLAR_T), np.r_[q0, v0], **_kw([0.0, POLAR_T]))
        q, v = sol.q[:, -1], sol.v[:, -1]
        P, P_perp = system.projectors(q)
        h1, h2 = system.slip(q, P @ v, order=2)
        r1 = np.linalg.norm(P_perp @ v - eps * h1) / eps**2
        r2 = np.linalg.norm(P_perp @ v - eps * h1 - eps**2 * h2) / eps**3
        out[float(eps)] = (float(r1), float(r2))
    return out


def polar_accelerations(eps_values=POLAR_EPS, fd_step: float = 1e-5) -> dict:
    """|a - a_(69)|/eps and |a - a_(71)|/eps^2 at the start, a the exact acceleration of the
    friction model on v = vD + eps h1 + eps^2 h2. (71) is the acceleration of the full velocity
    vD + eps h1: nonholo's reduced field d(vD)/dt plus eps dh1/dt along the zeroth-order flow (69)
    (central difference, step 1e-5: error ~1e-10)."""
    system = polar_disk()
    q0, u0 = polar_start()
    a69 = system.nonholonomic().rhs(0, np.r_[q0, u0])[4:]

    def h1_along(tau):
        q = q0 + tau * u0
        return system.slip(q, system.project(q, u0 + tau * a69), order=1)[0]

    dh1 = (h1_along(fd_step) - h1_along(-fd_step)) / (2 * fd_step)
    out = {}
    for eps in eps_values:
        v = system.on_slow_manifold(q0, u0, eps, order=2)
        a = system.friction(eps).rhs(0, np.r_[q0, v])[4:]
        a71 = system.reduced(eps, order=1).rhs(0, np.r_[q0, u0])[4:] + eps * dh1
        out[float(eps)] = (float(np.linalg.norm(a - a69) / eps), float(np.linalg.norm(a - a71) / eps**2))
    return out


def lemma4_residuals(points: int = 16) -> dict:
    """max |Qmat FR# - P_perp| over random theta for nonholo's Qmat and for the printed (82)."""
    system = disk()
    m, R, J = DISK["m"], DISK["R"], DISK["J"]
    g = m * R**2 + 2 * J
    rng = np.random.default_rng(0)
    ours, printed = 0.0, 0.0
    for theta in rng.uniform(-np.pi, np.pi, points):
        q = np.array([theta, 0.0, 0.0, 0.0])
        c, s = np.cos(theta), np.sin(theta)
        Q82 = np.array([[0, 0, 0, 0], [0, J**2 + g * m * R**2 * s**2, -g * m * R**2 * s * c, J**2 * R * c],
                        [0, -g * m * R**2 * s * c, J**2 + g * m * R**2 * c**2, -J**2 * R * s],
                        [0, -m * R * J * c, -m * R * J * s, m * R**2 * J]])
        FR, (_, P_perp) = system.friction_operator(q), system.projectors(q)
        ours = max(ours, float(np.abs(system.qmat(q) @ FR - P_perp).max()))
        printed = max(printed, float(np.abs(Q82 @ FR - P_perp).max()))
    return {"ours": ours, "printed": printed}


def disk_convergence(orders=(0, 1, 2, 3)):
    q0, u0 = note_start()
    return nh.studies.convergence(disk(), CONV_EPS_DISK, np.r_[q0, u0], (0, T), orders=orders, progress=False)


def polar_convergence(orders=(0, 1, 2, 3)):
    q0, u0 = polar_start()
    return nh.studies.convergence(polar_disk(), POLAR_EPS, np.r_[q0, u0], (0, POLAR_T), orders=orders,
                                  progress=False)


# ------------------------------------------------------------------ the figures' data
def slip_study(eps_values=SLIP_EPS) -> dict:
    """The stiff disk's slips at t = T against eps (friction model from the order-3 slow manifold):
    per eps the lateral and forward slips, the exact slow manifold's slips times the simulated
    rolling rate alpha(T), and the whole state against the matrix-exponential solution; the fitted
    slopes (predicted 1 and 2) and the leading terms -(m R/mu) Omega alpha(T) (lateral / eps) and
    (b2/m)(J + m R^2)/J alpha(T) (forward / eps^2), alpha(T) = e^(eps l1 T)."""
    eps = np.array(eps_values)
    m, R, J, mu = DISK["m"], DISK["R"], DISK["J"], DISK["mu"]
    S = J + m * R**2
    rows = []
    for e in eps:
        sol = friction_run(e, np.array([0.0, T]))
        y = sol.y[:, -1]
        lateral, forward = dx.slips(y, DISK)
        sec = dx.slow_section(e, OMEGA, DISK)
        alpha = dx.rolling_speed(y, DISK)
        exact = dx.stiff_solution([T], sol.y[:, 0], e, params=DISK)[:, 0]
        rows.append(dict(eps=float(e), lateral=float(lateral), forward=float(forward),
                         exact_lateral=float(alpha * sec.lateral_slip), exact_forward=float(alpha * sec.forward_slip),
                         alpha=float(alpha), oracle_error=float(np.abs(y - exact).max()), steps=sol.stats["n_steps"]))
    lat = np.array([r["lateral"] for r in rows])
    fwd = np.array([r["forward"] for r in rows])
    alpha_T = np.exp(eps * (-(m**2) * R**2 * OMEGA**2 / (mu * S)) * T)    # alpha(T) = e^{eps l1 T}, VPHI = 1
    small = eps <= 0.01
    numbers = {"rows": rows, "slopes": {"lateral": slope(eps, lat), "forward": slope(eps, fwd),
                                        "lateral, eps <= 0.01": slope(eps[small], lat[small]),
                                        "forward, eps <= 0.01": slope(eps[small], fwd[small])},
               "max_rel_dev_lateral": float(max(abs(r["lateral"] / r["exact_lateral"] - 1) for r in rows)),
               "max_rel_dev_forward": float(max(abs(r["forward"] / r["exact_forward"] - 1) for r in rows)),
               "max_oracle_error": float(max(r["oracle_error"] for r in rows))}
    return dict(eps=eps, lateral=lat, forward=fwd,
                lateral_lead=-(m * R / mu) * OMEGA * alpha_T,                                 # lateral slip / eps
                forward_lead=-(J**2 * R * m**3 * OMEGA**2 / (mu**2 * S**2)) * S / (m * J) * alpha_T,  # forward / eps^2
                numbers=numbers)


def trajectory_study() -> dict:
    """The contact point of the stiff disk (eps = TRAJ_EPS), of the nonholonomic and first-order
    models (corrected, and with the printed sign of (89)) on [0, TRAJ_T] (``"runs"``: name -> state
    array), and for each eps in ERR_EPS the distance |(x, y, phi) - friction model| of each reduced
    model at 401 times (``"errors"``: (name, eps) -> array, ``"t_errors"``)."""
    t = np.linspace(0, TRAJ_T, 1001)
    runs = {"friction": friction_run(TRAJ_EPS, t).y, "order 0": reduced_run(TRAJ_EPS, 0, t).y,
            "order 1": reduced_run(TRAJ_EPS, 1, t).y, "printed (89)": printed_89(TRAJ_EPS, t)}
    errors = {}
    t_err = np.linspace(0, TRAJ_T, 401)
    for eps in ERR_EPS:
        full = friction_run(eps, t_err).y
        for name, y in (("order 0", reduced_run(eps, 0, t_err).y), ("order 1", reduced_run(eps, 1, t_err).y),
                        ("printed (89)", printed_89(eps, t_err))):
            errors[(name, eps)] = np.linalg.norm(y[1:4] - full[1:4], axis=0)
    return dict(runs=runs, errors=errors, t_errors=t_err)


def _first_order_energy(y, eps: float) -> np.ndarray:
    """1/2 v^T G v + V with v = u + eps h1(q, u) at each column [q, u] of ``y`` (8, n_t): the energy
    the first-order reduced model's result reports, for a closed-form run (the printed (89))."""
    system = disk()
    out = np.empty(y.shape[1])
    for k, (q, u) in enumerate(zip(y[:4].T, y[4:].T)):
        out[k] = system.energy(q, u + eps * system.slip(q, u, order=1)[0])
    return out


def rolling_rate_study() -> dict:
    """The rolling rate |(P v)_phi| and the energy along the friction model, the reduced models of
    order 0 and 1 and the printed (89), on [0, TRAJ_T] for each eps in ERR_EPS, with the exact slow
    rate lambda (the rolling rate of the exact slow manifold is alpha(0) e^(lambda t)). Returns
    ``{"t", eps: {"series", "energies", "alpha0", "slow_rate", "numbers"}}``."""
    t = np.linspace(0, TRAJ_T, 401)
    m, R, J = DISK["m"], DISK["R"], DISK["J"]
    out = {"t": t}
    for eps in ERR_EPS:
        full = friction_run(eps, t)
        red = {K: reduced_run(eps, K, t) for K in (0, 1)}
        printed = printed_89(eps, t)
        alpha = dx.rolling_speed(full.y, DISK)
        lam = dx.slow_rate(eps, OMEGA, DISK)
        series = {"friction": alpha, "order 0": red[0]["u_phi"], "order 1": red[1]["u_phi"],
                  "printed (89)": printed[7]}
        energies = {"friction": full.energy(), "order 0": red[0].energy(), "order 1": red[1].energy(),
                    "printed (89)": _first_order_energy(printed, eps)}
        numbers = {"v_phi_end": {name: float(v[-1]) for name, v in series.items()}, "slow_rate": lam,
                   "kappa": eps * m**2 * R**2 * OMEGA**2 / (DISK["mu"] * (J + m * R**2)),
                   "energy_end": {name: float(E[-1]) for name, E in energies.items()},
                   "energy_monotone_friction": bool(np.all(np.diff(energies["friction"]) <= 1e-12))}
        out[eps] = dict(series=series, energies=energies, alpha0=float(np.abs(alpha[0])), slow_rate=lam,
                        numbers=numbers)
    return out
