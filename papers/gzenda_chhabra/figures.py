"""The figures of ``gzenda_chhabra``: plots of the data computed in ``experiments.py``."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import nonholo as nh

from ..registry import figure, save
from .experiments import (
    COLORS, DISK, ERR_EPS, NOTE_EPS, NOTE_TABLE, OMEGA, TRAJ_EPS, TRAJ_T, disk_convergence, polar_convergence,
    rolling_rate_study, slip_study, trajectory_study)


# ------------------------------------------------------------------ figures
@figure("gzenda_chhabra_slips")
def fig_slips(path: Path) -> dict:
    """Slip velocities of the stiff disk at t = T against eps: lateral O(eps), forward O(eps^2)."""
    import matplotlib.pyplot as plt

    d = slip_study()
    m, R, mu = DISK["m"], DISK["R"], DISK["mu"]
    eps, lat, fwd, lat_lead, fwd_lead = d["eps"], d["lateral"], d["forward"], d["lateral_lead"], d["forward_lead"]
    rows = d["numbers"]["rows"]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    slopes = d["numbers"]["slopes"]
    ax1.loglog(eps, np.abs(lat), "o", color="tab:purple", label=f"lateral slip w: slope {slopes['lateral']:.3f}")
    ax1.loglog(eps, np.abs(fwd), "s", color="tab:orange",
               label=f"forward slip u - R v_phi: slope {slopes['forward']:.3f}")
    ax1.loglog(eps, np.abs([r["exact_lateral"] for r in rows]), "-", color="tab:purple", lw=0.8,
               label="exact slow manifold: alpha(T) gamma(eps)")
    ax1.loglog(eps, np.abs([r["exact_forward"] for r in rows]), "-", color="tab:orange", lw=0.8,
               label="exact slow manifold: alpha(T) beta(eps) (J + m R^2)/(m J)")
    ax1.loglog(eps, (m * R / mu) * OMEGA * eps, "--", color="tab:purple", lw=0.8, alpha=0.7,
               label="(m R/mu) Omega eps (slope 1)")
    ax1.loglog(eps, abs(fwd_lead[-1]) * eps**2, "--", color="tab:orange", lw=0.8, alpha=0.7,
               label="(m^2 R J Omega^2/(mu^2 (J + m R^2))) eps^2 (slope 2)")
    ax1.set(xlabel="eps", ylabel="|slip| at t = 4", title="slips of the contact point at t = 4 (nh.simulate, BDF)")
    ax1.legend(fontsize=7)
    ax1.grid(True, which="both", alpha=0.3)
    ax2.semilogx(eps, lat / eps, "o-", color="tab:purple", label="lateral slip / eps")
    ax2.semilogx(eps, fwd / eps**2, "s-", color="tab:orange", label="forward slip / eps^2")
    ax2.semilogx(eps, lat_lead, "--", color="tab:purple", lw=0.9,
                 label="-(m R/mu) Omega alpha(T), alpha(T) = e^{eps l1 T}")
    ax2.semilogx(eps, fwd_lead, "--", color="tab:orange", lw=0.9, label="(b2/m)(J + m R^2)/J alpha(T) = -alpha(T)/3")
    note = np.array(NOTE_EPS)
    ax2.semilogx(note, [NOTE_TABLE[e][0] for e in NOTE_EPS], "x", color="k", ms=8, label="note's RK4 table")
    ax2.semilogx(note, [NOTE_TABLE[e][1] for e in NOTE_EPS], "x", color="k", ms=8)
    ax2.set(xlabel="eps", ylabel="slip / eps^k", title="scaled slips against their eps -> 0 limits")
    ax2.legend(fontsize=7)
    ax2.grid(True, which="both", alpha=0.3)
    fig.suptitle("Friction disk m = R = mu = 1, J = 0.5: theta0 = 0.3, v_theta = 1, v_phi^D = 1, started on the "
                 "order-3 slow manifold", fontsize=10)
    save(fig, path)
    return d["numbers"]


@figure("gzenda_chhabra_trajectories")
def fig_trajectories(path: Path) -> dict:
    """The contact point of the stiff disk, the nonholonomic model and the first-order models
    (corrected and with the printed sign of (89)); position errors against time."""
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12.5, 5.2), gridspec_kw=dict(width_ratios=(1, 1.15)))
    d = trajectory_study()
    runs, errors = d["runs"], d["errors"]
    labels = {"friction": f"friction model, eps = {TRAJ_EPS:g} (nh.simulate)",
              "order 0": "order 0 = nonholonomic: circle", "order 1": "order 1, corrected (89): inward spiral",
              "printed (89)": "order 1 with the printed sign of (89): outward"}
    for name, y in runs.items():
        ax1.plot(y[1], y[2], color=COLORS[name], lw=1.6 if name == "friction" else 1.1,
                 ls="--" if name == "order 1" else "-", label=labels[name])
    ax1.plot(runs["friction"][1, 0], runs["friction"][2, 0], "ko", ms=4)
    ax1.set(xlabel="x", ylabel="y", aspect="equal", title=f"contact point, t in [0, {TRAJ_T:g}]")
    ax1.legend(fontsize=7, loc="lower left")
    ax1.grid(alpha=0.3)
    t = d["t_errors"]
    for eps, ls in zip(ERR_EPS, ("-", ":")):
        for name in ("order 0", "order 1", "printed (89)"):
            e = errors[(name, eps)]
            ax2.semilogy(t[1:], e[1:], ls=ls, color=COLORS[name], label=f"{name}, eps = {eps:g}")
    ax2.set(xlabel="t", ylabel="|(x, y, phi) - friction model|", title="error against the friction model")
    ax2.legend(fontsize=7, ncol=2)
    ax2.grid(True, which="both", alpha=0.3)
    fig.suptitle("Vertical rolling disk (m = R = mu = 1, J = 0.5, I = 0.25), theta0 = 0.3, v_theta = 1, v_phi^D = 1",
                 fontsize=10)
    save(fig, path)
    end = {name: [float(v) for v in y[1:4, -1]] for name, y in runs.items()}
    return {"end": end, "errors_at_end": {f"{n}, eps = {e:g}": float(v[-1]) for (n, e), v in errors.items()}}


@figure("gzenda_chhabra_vphi")
def fig_vphi(path: Path) -> dict:
    """|v_phi| and the energy: the corrected first-order model decays with the friction model,
    the printed sign of (89) grows."""
    import matplotlib.pyplot as plt

    d = rolling_rate_study()
    t = d["t"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
    out = {}
    for eps, ls in zip(ERR_EPS, ("-", ":")):
        series, energies, lam = d[eps]["series"], d[eps]["energies"], d[eps]["slow_rate"]
        for name, v in series.items():
            ax1.semilogy(t, np.abs(v), ls=ls, color=COLORS[name], lw=1.6 if name == "friction" else 1.1,
                         label=f"{name}, eps = {eps:g}")
        ax1.semilogy(t, d[eps]["alpha0"] * np.exp(lam * t), ls=ls, color=COLORS["exact"], lw=3, alpha=0.5, zorder=0,
                     label=f"exact slow rate e^(lambda t), lambda = {lam:.5f}" if eps == ERR_EPS[0] else None)
        for name, E in energies.items():
            ax2.plot(t, E, ls=ls, color=COLORS[name], lw=1.6 if name == "friction" else 1.1)
        out[eps] = d[eps]["numbers"]
    ax1.set(xlabel="t", ylabel="|(P v)_phi| (rolling rate)", title="rolling rate: decays, except with the printed (89)")
    ax1.legend(fontsize=7, ncol=2)
    ax1.grid(True, which="both", alpha=0.3)
    ax2.set(xlabel="t", ylabel="energy 1/2 v^T G v (reduced models: v = u + eps h1)",
            title="energy (colours as left); the friction model dissipates:\ndE/dt = -(mu/eps)|A v|^2 <= 0")
    ax2.title.set_fontsize(10)
    ax2.grid(alpha=0.3)
    fig.suptitle("Corrected (89): v_phi' = -eps m^2 R^2 v_theta^2 v_phi/(mu (J + m R^2)); printed (89): the opposite "
                 "sign", fontsize=10)
    save(fig, path)
    return out


@figure("gzenda_chhabra_convergence")
def fig_convergence(path: Path) -> dict:
    """nh.studies.convergence for the disk and the polar disk with a potential: errors of the
    reduced models and residuals of the truncated slow manifold, slopes K + 1."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    studies = {"disk": disk_convergence(), "polar disk": polar_convergence()}
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    titles = {"disk": "disk (flat metric, no potential), t in [0, 4]",
              "polar disk": "polar disk, V = 0.35 r^2 + 0.3 cos(theta), t in [0, 1]"}
    for col, (name, study) in enumerate(studies.items()):
        nh.plot.convergence(study, ax=axes[0, col])
        axes[0, col].set_title(f"{titles[name]}: reduced model of order K", fontsize=9)
        nh.plot.convergence(study, ax=axes[1, col], which="slips")
        for ax in axes[:, col]:  # one labelled tick per eps of the study
            ax.set_xticks(list(study.eps), [f"{e:g}" for e in study.eps])
            ax.xaxis.set_minor_formatter(NullFormatter())
        axes[1, col].set_title(f"{name}: |P_perp v - sum_(k<=K) eps^k h^(k)| along the friction model", fontsize=9)
    fig.suptitle("Reduced models of order K (0 = nonholonomic) against the friction model started on the slow "
                 "manifold; dashed: slope K + 1", fontsize=10)
    save(fig, path)
    return {name: {"eps": s.eps.tolist(), "errors": {K: v.tolist() for K, v in s.errors.items()},
                   "slopes": s.slopes, "slip_slopes": s.slip_slopes} for name, s in studies.items()}
