r"""Rigid bodies rolling on a plane: the Chaplygin ball's first integrals, the rattleback's spin
reversal (Kane and Levinson 1982) with and without sliding, the tippe top's inversion window,
the rolling disc's upright stability and the benchmark bicycle's eigenvalues and nonlinear runs
(Meijaard et al. 2007). The systems are nonholo's built-ins
(:mod:`nonholo.systems`); the closed forms and oracles are in their module docstrings.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import sympy as sp

import nonholo as nh
from nonholo.bodies import quaternion_from_euler, rotation_matrices
from nonholo.contact import rolling_state
from nonholo.systems.chaplygin_ball import contact_angular_momentum
from nonholo.systems.rattleback import kane_levinson_state
from nonholo.systems.tippe_top import inverts, jellett
from nonholo.systems.whipple_bicycle import upright_state

from .registry import figure, save

disc_module = importlib.import_module("nonholo.systems.rolling_disc")

RATTLEBACK_EPS = (1e-2, 1e-3, 1e-4)
TIPPE_RATIOS = (0.6, 0.95, 1.4)  # I1/I3 below, inside and above the window 1 -+ alpha (alpha = 0.3)
BICYCLE_SPEEDS = (4.6, 2.0)      # m/s: inside and below the self-stable range of the benchmark bicycle
BICYCLE_KICK = 0.5               # rad/s: the initial roll rate of the nonlinear runs


def _plt():
    import matplotlib.pyplot as plt

    return plt


@figure("rolling_ball_integrals")
def ball_integrals(path: Path) -> dict:
    """Relative deviation of the energy and of the contact angular momentum (a vector in space)
    of the Chaplygin ball along a run from random initial data (rtol 1e-12)."""
    ball = nh.systems.chaplygin_ball(m=1.0, r=0.5, inertia=(0.2, 0.3, 0.45))
    rng = np.random.default_rng(0)
    y0 = rolling_state(ball, quaternion_from_euler(*rng.uniform(-1, 1, 3)), rng.normal(size=3) * 2)
    r = nh.simulate(ball.nonholonomic(), (0, 20), y0, t_eval=np.linspace(0, 20, 401), rtol=1e-12, atol=1e-14)
    E, K = r.energy(), contact_angular_momentum(r)
    dE = np.abs(E - E[0]) / abs(E[0])
    dK = np.linalg.norm(K - K[:, :1], axis=0) / np.linalg.norm(K[:, 0])
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    ax.semilogy(r.t[1:], np.maximum(dE[1:], 1e-17), label="energy")
    ax.semilogy(r.t[1:], np.maximum(dK[1:], 1e-17), label="angular momentum about the contact point")
    ax.axhline(1e-10, color="k", lw=0.8, ls=":")
    ax.set_xlabel("t")
    ax.set_ylabel("relative deviation")
    ax.set_title("Chaplygin ball: first integrals of the rolling model")
    ax.legend(loc="lower right")
    save(fig, path)
    return {"energy": float(dE.max()), "momentum": float(dK.max())}


def _reversal_time(t, w) -> float:
    i = np.nonzero((w[:-1] > 0) & (w[1:] <= 0))[0]
    if not i.size:
        return float("nan")
    i = i[0]
    return float(t[i] - w[i] * (t[i + 1] - t[i]) / (w[i + 1] - w[i]))


@figure("rolling_rattleback")
def rattleback_reversal(path: Path) -> dict:
    """Spin of the Kane-Levinson rattleback without slip and with viscous sliding for several eps."""
    rb = nh.systems.rattleback()
    y0 = kane_levinson_state(rb)
    t = np.linspace(0, 3, 601)
    runs = {"no slip": nh.simulate(rb.nonholonomic(), (0, 3), y0, t_eval=t, rtol=1e-8, atol=1e-10)}
    for eps in RATTLEBACK_EPS:
        runs[f"sliding, eps = {eps:g}"] = nh.simulate(rb.friction(eps), (0, 3), y0, t_eval=t, rtol=1e-8, atol=1e-10)
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    out = {}
    for label, r in runs.items():
        w = r["omega_3"]
        ax.plot(r.t, w, label=label, lw=1.0)
        out[label] = _reversal_time(r.t, w)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("spin about the body's vertical axis (rad/s)")
    ax.set_title("Rattleback (Kane and Levinson 1982): spin reversal")
    ax.legend(fontsize=8)
    save(fig, path)
    return out


@figure("rolling_tippe_top")
def tippe_top_inversion(path: Path) -> dict:
    """Height of the symmetry axis e3_z for I1/I3 below, inside and above 1 -+ alpha with
    viscous sliding, and inside the window without slip; Jellett's integral's drift."""
    m, R, alpha = 0.015, 0.02, 0.3
    I3 = 0.4 * m * R**2
    t = np.linspace(0, 2.5, 251)
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    out = {}
    for ratio in TIPPE_RATIOS:
        top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=ratio * I3)
        y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
        r = nh.simulate(top.friction(1.0), (0, 2.5), y0, t_eval=t, rtol=1e-9, atol=1e-11)
        e3z = rotation_matrices(r.q[2:6])[:, 2, 2]
        J = jellett(r)
        holds = "holds" if inverts(ratio * I3, I3, alpha) else "fails"
        ax.plot(r.t, e3z, label=f"sliding, I1/I3 = {ratio:g} (1 - alpha < I1/I3 < 1 + alpha {holds})")
        out[ratio] = {"final e3z": float(e3z[-1]), "jellett drift": float(np.abs(J - J[0]).max() / abs(J[0]))}
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=0.95 * I3)
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0])
    r = nh.simulate(top.nonholonomic(), (0, 2.5), y0, t_eval=t, rtol=1e-9, atol=1e-11)
    ax.plot(r.t, rotation_matrices(r.q[2:6])[:, 2, 2], "k--", label="rolling without slip, I1/I3 = 0.95")
    out["no slip"] = float(rotation_matrices(r.q[2:6])[:, 2, 2].min())
    ax.set_xlabel("t (s)")
    ax.set_ylabel("vertical component of the symmetry axis")
    ax.set_title(f"Tippe top (alpha = {alpha}): inversion needs sliding friction")
    ax.legend(fontsize=7, loc="center right")
    ax.set_ylim(-1.1, 1.25)
    save(fig, path)
    return out


@figure("rolling_disc_stability")
def disc_stability(path: Path) -> dict:
    """Lean of the rolling disc started upright with a small lean, above and below the critical
    spin sqrt(m g r A / (C (C + m r^2))); the lean frequency against its closed form."""
    disc = nh.systems.rolling_disc()
    args = disc.param_vector()
    wc = disc_module.upright_critical_spin(*args)
    t = np.linspace(0, 8, 1601)
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    out = {"critical spin": wc}
    for factor in (0.8, 1.3, 2.0):
        y0 = rolling_state(disc, quaternion_from_euler(0, 0, 1e-4), [0, factor * wc, 0])
        r = nh.simulate(disc.nonholonomic(), (0, 8), y0, t_eval=t, rtol=1e-10, atol=1e-12)
        lean = r["lean"]
        ax.semilogy(r.t, np.maximum(np.abs(lean), 1e-12), label=f"spin = {factor:g} x critical")
        out[factor] = float(np.abs(lean).max())
    ax.set_xlabel("t")
    ax.set_ylabel("|lean| (rad)")
    ax.set_title("Rolling disc: upright rolling is stable above the critical spin")
    ax.legend()
    save(fig, path)
    return out


def bicycle_eigenvalues(speeds=np.r_[np.linspace(0.0, 1.0, 21), np.linspace(1.25, 10.0, 36)]) -> dict:
    """Eigenvalues of the benchmark bicycle's upright straight run against the forward speed
    (nh.eigenvalue_path, modes tracked) and the speeds where stability changes
    (nh.critical_values): ``{"speed", "eigenvalues" (P, 4), "critical": [(v, kind, direction)]}``."""
    bike = nh.systems.whipple_bicycle()
    path = nh.eigenvalue_path(bike.nonholonomic(), "speed", np.asarray(speeds, float), lambda v: upright_state(bike, v))
    critical = [(c.value, c.kind, c.direction) for c in nh.critical_values(path)]
    return {"speed": path.values, "eigenvalues": path.physical, "critical": critical}


def bicycle_runs(t_end: float = 10.0) -> dict:
    """Nonlinear runs of the benchmark bicycle from upright straight running with a roll rate
    BICYCLE_KICK, at each speed in BICYCLE_SPEEDS, stopped when |roll| reaches 1 rad:
    speed -> {"t", "roll", "steer"}."""
    bike = nh.systems.whipple_bicycle()
    model = bike.nonholonomic()
    roll = sp.Symbol("roll")
    i, j = bike.coordinate_names.index("roll"), bike.coordinate_names.index("steer")
    out = {}
    for v in BICYCLE_SPEEDS:
        r = nh.simulate(model, (0, t_end), upright_state(bike, v, roll_rate=BICYCLE_KICK),
                        t_eval=np.linspace(0, t_end, 1001), rtol=1e-10, atol=1e-12,
                        events=[nh.Event(roll**2 - 1.0, terminal=True)])
        out[v] = {"t": r.t, "roll": r.q[i], "steer": r.q[j]}
    return out


@figure("rolling_bicycle_eigenvalues")
def fig_bicycle_eigenvalues(path: Path) -> dict:
    """Real parts (solid) and imaginary parts (dashed) of the benchmark bicycle's eigenvalues
    against the forward speed, the self-stable range between the weave and capsize speeds shaded
    (the look of Meijaard et al. 2007, Fig. 3)."""
    d = bicycle_eigenvalues()
    v, lam = d["speed"], d["eigenvalues"]
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for j in range(lam.shape[1]):
        im = np.abs(lam[:, j].imag)
        ax.plot(v, lam[:, j].real, "k-", lw=1.2, label="real part" if j == 0 else None)
        ax.plot(v, np.where(im > 1e-9, im, np.nan), "k--", lw=0.9, label="imaginary part" if j == 0 else None)
    hopf = [c[0] for c in d["critical"] if c[1] == "hopf"]
    divergence = [c[0] for c in d["critical"] if c[1] == "divergence"]
    out = {"weave speed": hopf[0], "capsize speed": divergence[0]}
    ax.axvspan(out["weave speed"], out["capsize speed"], color="0.88", zorder=0, label="self-stable")
    for name, x in out.items():
        ax.axvline(x, color="0.4", lw=0.8, ls=":")
        ax.text(x, 9.6, f" {name}\n {x:.4f} m/s", fontsize=7, va="top")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlim(v[0], v[-1])
    ax.set_ylim(-10, 10)
    ax.set_xlabel("forward speed v (m/s)")
    ax.set_ylabel("eigenvalue (1/s)")
    ax.set_title("Benchmark bicycle: eigenvalues of upright straight running", fontsize=11)
    ax.legend(fontsize=8, loc="lower left")
    save(fig, path)
    return out


@figure("rolling_bicycle_runs")
def fig_bicycle_runs(path: Path) -> dict:
    """Roll and steer angles of the nonlinear bicycle after a roll-rate kick, inside (4.6 m/s)
    and below (2 m/s) the self-stable range."""
    runs = bicycle_runs()
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    out = {}
    for (v, run), color in zip(runs.items(), ("C0", "C3")):
        ax.plot(run["t"], run["roll"], color=color, label=f"roll, v = {v:g} m/s")
        ax.plot(run["t"], run["steer"], color=color, ls="--", lw=0.9, label=f"steer, v = {v:g} m/s")
        out[v] = {"end": float(run["t"][-1]), "final |roll|": float(abs(run["roll"][-1]))}
    ax.axhline(0, color="k", lw=0.6)
    ax.set_ylim(-0.6, 1.05)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("angle (rad)")
    ax.set_title(f"Benchmark bicycle after a roll-rate kick of {BICYCLE_KICK} rad/s", fontsize=11)
    ax.legend(fontsize=8, loc="upper right")
    save(fig, path)
    return out
