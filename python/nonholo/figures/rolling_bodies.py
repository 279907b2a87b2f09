r"""Rigid bodies rolling on a plane: the Chaplygin ball's first integrals, the rattleback's spin
reversal (Kane and Levinson 1982) with and without sliding, the tippe top's inversion window and
the rolling disc's upright stability. The systems are nonholo's built-ins
(:mod:`nonholo.systems`); the closed forms and oracles are in their module docstrings.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np

import nonholo as nh
from nonholo.bodies import quaternion_from_euler, rotation_matrices
from nonholo.contact import rolling_state
from nonholo.systems.chaplygin_ball import contact_angular_momentum
from nonholo.systems.rattleback import kane_levinson_state, reversal_time, vertical_spin
from nonholo.systems.tippe_top import inverts, jellett

from .registry import figure, save

disc_module = importlib.import_module("nonholo.systems.rolling_disc")

RATTLEBACK_EPS = (1e-2, 1e-3, 1e-4, 1e-5, 2.5e-6)
TIPPE_RATIOS = (0.6, 0.95, 1.4)  # I1/I3 below, inside and above the window 1 -+ alpha (alpha = 0.3)


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
    order = float(np.polyfit(np.log(small), np.log([abs(T[e] - T0) for e in small]), 1)[0])
    return {"t": t, "rolling": rolling, "sliding": sliding, "T_rolling": T0, "T": T, "order": order}


@figure("rolling_rattleback")
def rattleback_reversal(path: Path) -> dict:
    """Left: the spin about the vertical of the Kane-Levinson rattleback rolling without slip
    and with viscous sliding f = -s/eps. Right: the reversal time (zero of the spin averaged
    over 0.3 s) against eps, converging to the rolling one at O(eps)."""
    d = rattleback_sliding_runs()
    t, T, T0 = d["t"], d["T"], d["T_rolling"]
    plt = _plt()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.6, 1]})
    ax.plot(t, d["rolling"], "k", lw=0.8, label="rolling without slip")
    for eps, color in zip((1e-2, 1e-3, 1e-5), ("tab:blue", "tab:orange", "tab:green")):
        ax.plot(t, d["sliding"][eps], lw=0.7, color=color, label=f"sliding, eps = {eps:g}")
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("spin about the vertical (rad/s)")
    ax.set_title("Rattleback (Kane and Levinson 1982): spin reversal")
    ax.legend(fontsize=8)
    reverses = [e for e in RATTLEBACK_EPS if np.isfinite(T[e])]
    bx.loglog(reverses, [abs(T[e] - T0) for e in reverses], "o-", label="|sliding - rolling| reversal time")
    e = np.array([min(reverses), max(reverses)])
    bx.loglog(e, abs(T[min(reverses)] - T0) * e / min(reverses), "k:", label="slope 1")
    bx.set_xlabel("eps")
    bx.set_ylabel("difference (s)")
    bx.set_title(f"Reversal time against eps (fitted order {d['order']:.2f})")
    bx.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path)
    return {"rolling": T0, **{f"eps = {eps:g}": T[eps] for eps in RATTLEBACK_EPS}, "order": d["order"]}


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
