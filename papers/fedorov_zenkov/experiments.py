r"""Fedorov and Zenkov (2005), "Dynamics of the discrete Chaplygin sleigh": Figures 1-3
recomputed, Theorem 6 and the heteroclinic limits checked, and the midpoint discrete
Lagrange-d'Alembert integrator compared with CVODE (work against precision, long runs).

Sources: ``papers/notes/002_discrete_sleigh.md`` ("the note") and the paper text. The paper
gives no parameter values, time steps, initial data or step counts for its figures. The choices
below follow the note's section 5 suggestions (Fig. 3 uses other initial data, see below). They
are printed on every figure and in ``notebooks/fedorov_zenkov_2005.ipynb``:

- Sleigh J = m = a = 1. J is the moment of inertia about the centre of mass, the ``I`` argument
  of ``nh.systems.chaplygin_sleigh``; I = J + m a^2 = 2 is the moment of inertia about the
  contact point.
- Fig. 1: the continuous momentum dynamics (10) of ``sleigh.nonholonomic()``, integrated by
  CVODE (rtol 1e-11) from the cusp (p2 = 0) forward and backward 30 time units, at the energies
  E = 0.5, 1, 2, 3.
- Fig. 2: orbits of the closed map P (``DiscreteSleigh``, eqs. (22)-(23)) from p1 = +-0.05,
  +-0.1, +-0.15, +-0.2 on p2 = 0, 150 steps of P forward and 150 of P^-1 backward. The limits
  +-beta come from 4000 steps each way.
- Fig. 3: the general integrator ``sleigh.discrete(0.2)`` (``nh.simulate_discrete``), from
  theta = x = y = 0 with forward speed v0 = -1 (backwards) and omega0 = 0.25, for t in [0, 18].
  The continuous curve is ``nh.simulate`` of ``sleigh.nonholonomic()`` at rtol 1e-12. These
  initial data differ from the note's (omega0 = 1): they put the cusp (t* = 3.35) mid-run, with
  a visible approach to it.
- Work against precision: the Fig. 3 motion on [0, 12]. The reference is the closed form of the
  note's section 2.3 for theta, and for (x, y) its Gauss-Legendre quadrature, which agrees with
  itself under refinement to about 1e-14. CVODE at rtol 1e-13 is 1e-10 off, too coarse to serve
  as the reference, and this module reports that figure.
- Long runs: T = 1000, h = 0.1. Two systems: the sleigh (Fig. 3 data) and a knife edge
  (balanced sleigh, a = 0) on an inclined plane, V = m g x. The knife edge is not in the paper;
  its dynamics never settle and it has a closed form, so energy drift shows there.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh import frames as sf
from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion
from nonholo.systems.inclined_knife_edge import knife_edge_closed_form as knife_closed_form
from nonholo.systems.inclined_knife_edge import knife_edge_energy as knife_energy
from nonholo.testing import loglog_slope

__all__ = ["SLEIGH", "exact_motion", "sleigh", "discrete_map", "fig3_start", "inclined_knife_edge",
           "knife_edge_closed_form", "linearization_table", "heteroclinic_limits", "regression_values",
           "order2_table", "work_precision", "long_runs",
           "momentum_orbits", "discrete_orbits", "contact_points"]


# ------------------------------------------------------------------ choices (the paper gives none)
SLEIGH = dict(J=1.0, m=1.0, a=1.0)          # note section 5: J = m = a = 1, so I = 2
FIG1_ENERGIES = (0.5, 1.0, 2.0, 3.0)        # note section 5
FIG1_T = 30.0
FIG2_SEEDS = (0.05, 0.1, 0.15, 0.2)         # p1 on p2 = 0, both signs (note section 5)
FIG2_STEPS = 150
LIMIT_STEPS = 4000                          # for beta: lambda1(beta)^4000 < 1e-30 for every seed
FIG3_H, FIG3_T = 0.2, 18.0
OMEGA0, V0 = 0.25, -1.0                     # backwards, turning slowly: the cusp at t* = 3.35
WP_T = 12.0
WP_STEPS = (0.2, 0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125)
WP_RTOLS = tuple(10.0 ** -e for e in range(3, 13))
WP_ATOL_FACTOR = 1e-2                       # atol = rtol / 100
WP_OUTPUT = 1201                            # CVODE's error is sampled every 0.01 on [0, 12]
# The CVODE runs of the comparison, by label: the options of nh.simulate each label stands for.
# BDF with nonholo's drift control (projection onto the constraint after each step, restart);
# Adams as CVODE runs it, without drift control.
CVODE_METHODS = {"CVODE BDF": dict(method="bdf", drift_control=True),
                 "CVODE Adams": dict(method="adams", drift_control=False)}
LONG_T, LONG_H = 1000.0, 0.1
LONG_RTOLS = (1e-6, 1e-8)
KNIFE = dict(m=1.0, J=1.0, g=1.0)           # g = gravity along the slope (g sin(incline))
KNIFE_START = (1.0, 1.0)                    # u0, omega0, from x = y = phi = 0

# the note's numbers (section 6 items 6, 11, 13)
NOTE_LINEARIZATION = [((0.7, 1.3, 0.4), 0.5, 0.8015873), ((0.7, 1.3, 0.4), -0.5, 1.2475248),
                      ((1.0, 1.0, 1.0), 0.5, 0.7777778), ((1.0, 1.0, 1.0), -0.5, 1.2857143),
                      ((1.0, 1.0, 1.0), 3.6, 0.0526316), ((1.0, 1.0, 1.0), 6.0, -0.2)]
NOTE_REGRESSION = [  # (J, m, a, h, N, q_N = (theta, x, y), p_N); omega0 = 1, v0 = -1
    ((1.0, 1.0, 1.0), 0.1, 10, (1.16151813040547, -0.360996314204536, -0.0746464187705008),
     (0.239888369478732, 0.0352788498297439)),
    ((1.0, 1.0, 1.0), 0.1, 100, (3.09236550436821, -13.7045881794021, 3.13808584251523),
     (0.000163874332187998, 0.173156988904566)),
    ((1.0, 1.0, 0.0), 0.1, 100, (9.99999999999998, 0.544928871676192, -1.84214022803846), (0.1, -0.1)),
    ((0.7, 1.3, 0.4), 0.05, 200, (5.10323092697853, 0.0120534832404333, -9.00550468467944),
     (0.000223761239006414, 0.0847072236003865)),
]
NOTE_ORDER2 = {32: (1.318e-1, 1.211e-2), 64: (3.317e-2, 2.981e-3), 128: (8.307e-3, 7.437e-4),
               256: (2.077e-3, 1.858e-4), 512: (5.194e-4, 4.645e-5), 1024: (1.299e-4, 1.161e-5),
               2048: (3.247e-5, 2.903e-6)}
ORDER2_SETUP = dict(J=0.7, m=1.3, a=0.4, T=10.0, omega0=1.0, v0=-1.0)

BLUE, RED, GREEN, ORANGE, GREY = "tab:blue", "tab:red", "tab:green", "tab:orange", "0.55"


# ------------------------------------------------------------------ systems and closed forms
@functools.lru_cache(maxsize=None)
def sleigh(J: float = SLEIGH["J"], m: float = SLEIGH["m"], a: float = SLEIGH["a"]) -> nh.System:
    """``nh.systems.chaplygin_sleigh`` with the paper's J (its ``I``), coordinates (x, y, phi)."""
    return nh.systems.chaplygin_sleigh(m=m, I=J, a=a)


def discrete_map(J: float = SLEIGH["J"], m: float = SLEIGH["m"], a: float = SLEIGH["a"]) -> DiscreteSleigh:
    """The closed momentum map P of the sleigh (paper scaling: p^k ~ h p(t_k))."""
    return DiscreteSleigh(m=m, I=J, a=a)


def sleigh_start(v0: float, omega0: float, theta0: float = 0.0) -> np.ndarray:
    """[x, y, phi, x', y', phi'] at the origin with forward speed v0 and angular velocity omega0
    (no sideways slip: :func:`~nonholo.systems.chaplygin_sleigh.frames.sleigh_state`)."""
    return sf.sleigh_state(0.0, 0.0, theta0, v0, 0.0, omega0)


def fig3_start() -> list:
    return sleigh_start(V0, OMEGA0)


def body_momenta(result, J: float, m: float, a: float) -> np.ndarray:
    """(p1, p2) = (I phi', m u) of a run of the sleigh (u the speed along the blade), shape (2, n_t)."""
    u, _, omega = sf.body_velocities(result.q, result.v)
    return np.array([(J + m * a**2) * omega, m * u])


def sleigh_energy(result, J: float, m: float, a: float) -> np.ndarray:
    """1/2 v^T G v of the sleigh at every stored time (vectorized; equals ``result.energy()``)."""
    xd, yd, w = result.v
    phi = result.q[2]
    side = -xd * np.sin(phi) + yd * np.cos(phi)
    return 0.5 * m * (xd**2 + yd**2) + 0.5 * (J + m * a**2) * w**2 + m * a * w * side


def exact_motion(J: float, m: float, a: float, omega0: float, v0: float) -> SleighMotion:
    """The closed-form nonholonomic sleigh (note section 2.3; :class:`SleighMotion`) in the paper's
    names: J about the centre of mass (the sleigh's ``I``), from theta = x = y = 0 with forward
    speed v0 and angular velocity omega0."""
    return SleighMotion(m=m, I=J, a=a, u0=v0, omega0=omega0)


@functools.lru_cache(maxsize=None)
def inclined_knife_edge(m: float = KNIFE["m"], J: float = KNIFE["J"], g: float = KNIFE["g"]) -> nh.System:
    """:func:`nonholo.systems.inclined_knife_edge` with this module's parameters, built once."""
    return nh.systems.inclined_knife_edge(m=m, J=J, g=g)


def knife_edge_closed_form(t, u0: float = KNIFE_START[0], omega: float = KNIFE_START[1], g: float = KNIFE["g"]):
    return knife_closed_form(t, u0, omega, g)


def knife_edge_energy(result, m: float = KNIFE["m"], J: float = KNIFE["J"], g: float = KNIFE["g"]) -> np.ndarray:
    return knife_energy(result, m, J, g)


# ------------------------------------------------------------------ Figs. 1-3: the data
def momentum_orbits(energies=FIG1_ENERGIES, T: float = FIG1_T) -> dict:
    """Fig. 1's data: orbits (p1, p2) = ((J + m a^2) theta', m u) of the continuous momentum dynamics
    (10), CVODE on ``sleigh().nonholonomic()`` (rtol 1e-11) from the cusp p2 = 0, p1 = +-sqrt(2 I E)
    forward and backward T, for each energy E. Returns ``{"orbits": (E, sign) -> p of shape (2, n),
    "rows": the checks of each orbit (energy error, limits +-sqrt(2 m E)), "I": J + m a^2}``."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    I = J + m * a**2
    model = sleigh().nonholonomic()
    t_fwd = np.linspace(0, T, 1501)
    orbits = {}
    for E in energies:
        for sign in (1.0, -1.0):
            y0 = sleigh_start(0.0, sign * math.sqrt(2 * E / I))   # at the cusp: p2 = 0, p1 = +-sqrt(2 I E)
            fwd = nh.simulate(model, (0, T), y0, t_eval=t_fwd, rtol=1e-11, atol=1e-13, raise_on_failure=True)
            bwd = nh.simulate(model, (0, -T), y0, t_eval=-t_fwd, rtol=1e-11, atol=1e-13, raise_on_failure=True)
            orbits[(E, sign)] = np.hstack([body_momenta(bwd, J, m, a)[:, ::-1], body_momenta(fwd, J, m, a)[:, 1:]])
    rows = {}
    for (E, sign), p in orbits.items():
        energy = 0.5 * (p[0] ** 2 / I + p[1] ** 2 / m)
        top = math.sqrt(2 * m * E)
        rows[f"{E:g}, {'+' if sign > 0 else '-'}"] = dict(
            E=E, max_energy_error=float(np.abs(energy - E).max() / E),
            p2_start=float(p[1, 0]), p2_end=float(p[1, -1]), limit=top,
            limit_error=float(max(abs(p[1, -1] - top), abs(p[1, 0] + top))),
            p1_ends=float(max(abs(p[0, 0]), abs(p[0, -1]))), min_p2_increment=float(np.diff(p[1]).min()))
    return dict(orbits=orbits, rows=rows, I=I)


def discrete_orbits(seeds=FIG2_SEEDS, steps: int = FIG2_STEPS) -> dict:
    """Fig. 2's data: orbits of the closed map P forward and of P^-1 backward, ``steps`` each way,
    from (+-p, 0) for each seed p: ``{"orbits": p -> {sign: (2 steps + 1, 2) array, k = -steps ...
    steps}, "mirror_deviation": max |mirror image of the orbit from -p - the orbit from p|,
    "min_p2_increment": smallest increment of p2 along any orbit}``."""
    P = discrete_map()
    orbits, mirror, monotone = {}, 0.0, np.inf
    for p in seeds:
        orbits[p] = {}
        for sign in (1.0, -1.0):
            fwd = P.orbit([sign * p, 0.0], steps)
            bwd = P.orbit([sign * p, 0.0], steps, backward=True)
            orbits[p][sign] = np.vstack([bwd[::-1], fwd[1:]])
            monotone = min(monotone, float(np.diff(orbits[p][sign][:, 1]).min()))
        mirror = max(mirror, float(np.abs(orbits[p][-1.0] * [-1, 1] - orbits[p][1.0]).max()))
    return dict(orbits=orbits, mirror_deviation=mirror, min_p2_increment=monotone)


def _distance_to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Distance of each point (n, 2) to the polyline (m, 2)."""
    a, b = line[:-1], line[1:]
    ab = b - a
    out = np.empty(len(points))
    for i, pt in enumerate(points):
        s = np.clip(np.einsum("ij,ij->i", pt - a, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
        out[i] = np.hypot(*(a + s[:, None] * ab - pt).T).min()
    return out


def contact_points(h: float = FIG3_H, T: float = FIG3_T) -> dict:
    """Fig. 3's data: the discrete contact points of the general integrator ``sleigh().discrete(h)``
    and the continuous ones (CVODE, rtol 1e-12, 3601 times), from the Fig. 3 start; the continuous
    cusp (closed form), the discrete cusp node (where the signed chord turns from backwards to
    forwards), the asymptotic straight line of the continuous motion, and the numbers of the report
    (``"numbers"``: distances between the two, the closed map against the general integrator,
    headings, speeds, the regression values and the order-2 table)."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    I = J + m * a**2
    N = int(round(T / h))
    system = sleigh()
    disc = nh.simulate_discrete(system.discrete(h), (0, T), fig3_start(), raise_on_failure=True)
    t = np.linspace(0, T, 3601)
    cont = nh.simulate(system.nonholonomic(), (0, T), fig3_start(), t_eval=t, rtol=1e-12, atol=1e-14,
                       raise_on_failure=True)
    exact = exact_motion(J, m, a, OMEGA0, V0)
    q_map, p_map = discrete_map().trajectory((0, 0, 0), (h * I * OMEGA0, h * m * V0), N)
    p_disc = DiscreteSleigh.momenta_from_general(disc, h)
    xd, yd = disc.q[0], disc.q[1]
    chords = np.hypot(np.diff(xd), np.diff(yd))
    # the discrete cusp: the node k where the signed chord s = (Dx, Dy) . (cos phi_m, sin phi_m) of
    # the steps turns from backwards (s_{k-1} < 0) to forwards (s_k > 0); p2 changes sign there too
    phi_m = disc.q[2, :-1] + np.diff(disc.q[2]) / 2
    signed_chord = np.diff(xd) * np.cos(phi_m) + np.diff(yd) * np.sin(phi_m)
    k_cusp = int(np.nonzero((signed_chord[:-1] < 0) & (signed_chord[1:] >= 0))[0][0]) + 1
    k_p2 = int(np.nonzero((p_disc[:-1, 1] < 0) & (p_disc[1:, 1] >= 0))[0][0]) + 1
    cusp_c = exact.contact_point([exact.t_cusp])[:, 0]
    # the asymptotic straight line of the continuous motion: heading theta_inf, at the limit of the
    # normal offset n . r(t) (it converges like exp(-k t); t = 80 is past round-off)
    direction = np.array([math.cos(exact.phi_inf), math.sin(exact.phi_inf)])
    normal = np.array([-direction[1], direction[0]])
    offset = float(normal @ exact.contact_point([80.0])[:, 0])
    end = np.array([cont["x"][-1], cont["y"][-1]])
    foot = offset * normal + (direction @ end) * direction
    line = foot[None] + np.outer(np.linspace(-11, 1.0, 2), direction)

    ref = exact.configuration(disc.t)
    same_time = np.hypot(xd - ref[0], yd - ref[1])
    # distance to the curve, continued 2 time units past T so that no dot is past its end
    longer = exact.contact_point(np.linspace(0, T + 2, 2801))
    to_curve = _distance_to_polyline(np.column_stack([xd, yd]), longer.T)
    V_d = float(p_disc[-1, 1] / (m * h))   # discrete speed along the blade, p2/(m h)
    # the discrete asymptote's heading (closed map run to t = 80, where p1 is below round-off)
    heading_error = {}
    for step in (h, h / 2, h / 4):
        q_long, _ = discrete_map().trajectory((0, 0, 0), (step * I * OMEGA0, step * m * V0), int(round(80 / step)))
        heading_error[step] = float(q_long[-1, 0] - exact.phi_inf)
    numbers = dict(
        h=h, N=N, t_cusp=exact.t_cusp, k_cusp=k_cusp, k_p2_sign_change=k_p2,
        n_chord_reversals=int(np.sum(np.diff(np.sign(signed_chord)) != 0)),
        t_cusp_discrete=(float((k_cusp - 1) * h), float(k_cusp * h)),
        max_same_time_distance=float(same_time.max()), max_distance_to_curve=float(to_curve.max()),
        t_max_distance_to_curve=float(disc.t[int(np.argmax(to_curve))]),
        general_vs_closed_map=float(max(np.abs(disc.q[[2, 0, 1]].T - q_map).max(), np.abs(p_disc - p_map[:-1]).max())),
        constraint_residual=float(disc.stats["max_constraint_residual"]),
        theta_end_discrete=float(disc.q[2, -1]), theta_end_continuous=float(cont["phi"][-1]),
        theta_inf=exact.phi_inf, asymptote_offset=offset, asymptote_heading_error=heading_error,
        end_offset_continuous=float(normal @ end - offset),
        end_offset_discrete=float(normal @ [xd[-1], yd[-1]] - offset),
        last_chord_over_h=float(chords[-1] / h), V=exact.U, V_discrete=V_d,
        cvode_vs_closed_form=float(np.abs(cont.q - exact.configuration(t)).max()),
        turning_angle_limit=float(math.pi * math.sqrt(I / (m * a**2))),
        regression=regression_values(), order2=order2_table())
    return dict(h=h, N=N, continuous=(cont["x"], cont["y"]), discrete=(xd, yd), k_cusp=k_cusp, cusp_continuous=cusp_c,
                asymptote=line, theta_inf=exact.phi_inf, t_cusp=exact.t_cusp, numbers=numbers)


# ------------------------------------------------------------------ Theorem 6, limits, regression
def linearization_table(cases=NOTE_LINEARIZATION, step: float = 1e-6) -> list:
    """Theorem 6 recomputed: for each ((J, m, a), p2, note's lambda1), the central-difference
    Jacobian of P at (0, p2) (step 1e-6; truncation error ~1e-12, round-off ~1e-10), its
    eigenvalues and off-diagonal size, the formula (2I - a p2)/(2I + a p2) and the note's value."""
    rows = []
    for (J, m, a), p2, note in cases:
        P = discrete_map(J, m, a)
        point = np.array([0.0, p2])
        jac = np.column_stack([(P(point + step * e) - P(point - step * e)) / (2 * step) for e in np.eye(2)])
        eig = np.sort(np.linalg.eigvals(jac).real)
        lam1 = float(eig[0] if abs(eig[0] - 1) > abs(eig[1] - 1) else eig[1])
        lam2 = float(eig[1] if lam1 == eig[0] else eig[0])
        I = P.J
        rows.append(dict(J=J, m=m, a=a, p2=p2, lambda1_fd=lam1, lambda2_fd=lam2,
                         lambda1_formula=(2 * I - a * p2) / (2 * I + a * p2), lambda1_note=note,
                         off_diagonal=float(max(abs(jac[0, 1]), abs(jac[1, 0]))), det=float(np.linalg.det(jac)),
                         stable=bool(abs(lam1) < 1)))
    return rows


def heteroclinic_limits(seeds=FIG2_SEEDS, steps: int = LIMIT_STEPS) -> list:
    """For each seed (p1, 0): the forward limit (0, beta) under P and the backward limit under
    P^-1, the continuous limit sqrt(m/I) p1 of the half-ellipse through the seed, the last
    contraction ratio p1^{k+1}/p1^k beside lambda1(beta), and the p2 increments' minimum."""
    P = discrete_map()
    rows = []
    for p in seeds:
        fwd = P.orbit([p, 0.0], steps)
        bwd = P.orbit([p, 0.0], steps, backward=True)
        beta = float(fwd[-1, 1])
        # the ratio while p1 is still well above round-off
        k = int(np.nonzero(np.abs(fwd[:, 0]) > 1e-10 * p)[0][-1])
        rows.append(dict(seed=p, beta_forward=beta, beta_backward=float(bwd[-1, 1]),
                         p1_forward=float(fwd[-1, 0]), p1_backward=float(bwd[-1, 0]),
                         continuous=float(math.sqrt(P.m / P.J) * p),
                         ratio=float(fwd[k, 0] / fwd[k - 1, 0]), lambda1=float(P.linearization(beta)[0, 0]),
                         min_increment=float(np.diff(np.concatenate([bwd[::-1, 1], fwd[1:, 1]])).min())))
    return rows


def regression_values() -> list:
    """Note section 6 item 13 recomputed with the closed map (section 3.6) and with the general
    integrator on ``chaplygin_sleigh`` (from continuous data omega0 = 1, v0 = -1)."""
    rows = []
    for (J, m, a), h, N, q_note, p_note in NOTE_REGRESSION:
        I = J + m * a**2
        q, p = discrete_map(J, m, a).trajectory((0, 0, 0), (h * I, -h * m), N)
        res = nh.simulate_discrete(sleigh(J, m, a).discrete(h), (0, N * h), sleigh_start(-1.0, 1.0))
        p_general = DiscreteSleigh.momenta_from_general(res, h)
        # p_N of the general run: one more step's momentum is not stored; use the right momentum
        # p^+_N = p_N of the integrator (its blade projection at theta_N equals p^-_N's)
        th = res.q[2, -1]
        pN = h * np.array([res.p[2, -1], res.p[0, -1] * np.cos(th) + res.p[1, -1] * np.sin(th)])
        rows.append(dict(J=J, m=m, a=a, h=h, N=N, q_note=q_note, p_note=p_note, q_map=q[N].tolist(),
                         p_map=p[N].tolist(), q_general=res.q[[2, 0, 1], -1].tolist(), p_general=pN.tolist(),
                         map_vs_note=float(max(np.abs(q[N] - q_note).max(), np.abs(p[N] - p_note).max())),
                         general_vs_note=float(max(np.abs(res.q[[2, 0, 1], -1] - q_note).max(),
                                                   np.abs(pN - p_note).max())),
                         general_vs_map=float(max(np.abs(res.q[[2, 0, 1]].T - q).max(),
                                                  np.abs(p_general - p[:-1]).max()))))
    return rows


def order2_table(Ns=tuple(NOTE_ORDER2)) -> dict:
    """Note section 6 item 11 recomputed with the general integrator: max_k |q_k - q(t_k)|_inf and
    max_k |p^k/h - p(t_k)| on [0, 10] (J = 0.7, m = 1.3, a = 0.4, omega0 = 1, v0 = -1), against
    the closed form (the note used RK4 with 2^15 steps). Returns {N: (q error, p error)} and the
    fitted slopes."""
    s = ORDER2_SETUP
    exact = exact_motion(s["J"], s["m"], s["a"], s["omega0"], s["v0"])
    system = sleigh(s["J"], s["m"], s["a"])
    table = {}
    for N in Ns:
        h = s["T"] / N
        res = nh.simulate_discrete(system.discrete(h), (0, s["T"]), sleigh_start(s["v0"], s["omega0"]))
        q_err = np.abs(res.q - exact.configuration(res.t)).max()
        p = DiscreteSleigh.momenta_from_general(res, h) / h
        p_err = np.abs(p - exact.momenta(res.t[:-1]).T).max()
        table[N] = (float(q_err), float(p_err))
    Ns_ = np.array(list(table))
    slopes = [-loglog_slope(Ns_, [table[N][i] for N in table]) for i in (0, 1)]
    return dict(table=table, q_slope=slopes[0], p_slope=slopes[1])


# ------------------------------------------------------------------ work against precision
def cvode_run(model, label: str, rtol: float):
    """The Fig. 3 motion over [0, WP_T] by CVODE as ``label`` of :data:`CVODE_METHODS` names it,
    atol = rtol/100, output at WP_OUTPUT equally spaced times (the comparison's and the benchmark's run)."""
    if label not in CVODE_METHODS:
        raise ValueError(f"label must be one of {list(CVODE_METHODS)}, got {label!r}")
    t_out = np.linspace(0, WP_T, WP_OUTPUT)
    return nh.simulate(model, (0, WP_T), fig3_start(), t_eval=t_out, rtol=rtol, atol=rtol * WP_ATOL_FACTOR,
                       **CVODE_METHODS[label])


def work_precision(steps=WP_STEPS, rtols=WP_RTOLS) -> dict:
    """The discrete integrator (sweep over h) against CVODE BDF (method="bdf", AD Jacobian, with
    drift control: projection onto the constraint) and Adams (no drift control), rtol swept, atol = rtol/100, on
    the Fig. 3 motion over [0, 12].

    Error: max over t in [0, 12] of |(x, y, theta) - reference|_inf, at every node of the
    discrete run and at 1201 output times (every 0.01) of CVODE's. Work, deterministic: steps, RHS
    and Jacobian evaluations (CVODE), Newton iterations (discrete: each one residual, one AD
    Jacobian and a 4x4 solve). Wall times are measured side by side in
    ``benchmarks/discrete_sleigh_work_precision.py``, not here."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    exact = exact_motion(J, m, a, OMEGA0, V0)
    system, y0, T = sleigh(), fig3_start(), WP_T
    t_out = np.linspace(0, T, WP_OUTPUT)
    ref_out = exact.configuration(t_out)
    rows = []
    for h in steps:
        model = system.discrete(h)
        res = nh.simulate_discrete(model, (0, T), y0)
        err = np.abs(res.q - exact.configuration(res.t)).max()
        rows.append(dict(method="discrete", setting=h, error=float(err),
                         steps=res.stats["n_steps"], rhs=0, jac=0, newton=res.stats["newton_iterations"],
                         evaluations=res.stats["newton_iterations"],
                         constraint=float(res.stats["max_constraint_residual"])))
    model = system.nonholonomic()
    for label in CVODE_METHODS:
        for rtol in rtols:
            res = cvode_run(model, label, rtol)
            err = np.abs(res.q - ref_out).max()
            rows.append(dict(method=label, setting=rtol,
                             error=float(err), steps=res.stats["n_steps"],
                             rhs=res.stats["n_rhs"], jac=res.stats["n_jac"], newton=0, evaluations=res.stats["n_rhs"],
                             constraint=float(np.max(res.constraint_residual()))))
    tight = nh.simulate(model, (0, T), y0, t_eval=t_out, rtol=1e-13, atol=1e-14, **CVODE_METHODS["CVODE BDF"])
    ref_check = dict(cvode_1e13=float(np.abs(tight.q - ref_out).max()),
                     cvode_1e13_theta=float(np.abs(tight.q[2] - ref_out[2]).max()),
                     quadrature_refined=float(np.abs(exact.contact_point(t_out)
                                                     - exact_motion(J, m, a, OMEGA0, V0).contact_point(
                                                         t_out, max_interval=0.025)).max()))
    disc = [r for r in rows if r["method"] == "discrete"]
    slope = loglog_slope([r["setting"] for r in disc], [r["error"] for r in disc])
    return dict(rows=rows, reference=ref_check, discrete_slope=slope, cheapest=_cheapest(rows))


def _cheapest(rows, targets=(1e-1, 1e-2, 1e-3, 1e-4)) -> dict:
    """For each target error: the run with the fewest evaluations (RHS for CVODE, Newton iterations
    for the discrete scheme) that reaches it, per method."""
    out = {}
    for target in targets:
        entry = {}
        for method in ("discrete", "CVODE BDF", "CVODE Adams"):
            ok = [r for r in rows if r["method"] == method and r["error"] <= target]
            entry[method] = min(ok, key=lambda r: r["evaluations"]) if ok else None
        out[target] = entry
    return out


# ------------------------------------------------------------------ long runs
def long_runs(T: float = LONG_T, h: float = LONG_H, rtols=LONG_RTOLS) -> dict:
    """Energy and position errors over [0, T] of the discrete integrator (step h) and of CVODE
    (BDF with projection, Adams without drift control; rtol in ``rtols``, atol = rtol/100) for the sleigh (Fig. 3 data)
    and the knife edge on an inclined plane. Relative energy error |E - E0|/E0 at every discrete
    node and at 2001 CVODE output times; "early" = max over t <= T/10, "late" = over t >= 0.9 T."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    exact = exact_motion(J, m, a, OMEGA0, V0)
    cases = {
        "sleigh": (sleigh(), fig3_start(), lambda r: sleigh_energy(r, J, m, a), exact.configuration),
        "knife edge": (inclined_knife_edge(), sleigh_start(*KNIFE_START), knife_edge_energy, knife_edge_closed_form),
    }
    t_out = np.linspace(0, T, 2001)
    out = {}
    for name, (system, y0, energy, reference) in cases.items():
        runs = {}
        runs[f"discrete h = {h:g}"] = nh.simulate_discrete(system.discrete(h), (0, T), y0, raise_on_failure=True)
        for method, label in (("bdf", "CVODE BDF"), ("adams", "CVODE Adams")):
            for rtol in rtols:
                runs[f"{label} rtol {rtol:.0e}"] = nh.simulate(
                    system.nonholonomic(), (0, T), y0, t_eval=t_out, rtol=rtol, atol=rtol * WP_ATOL_FACTOR,
                    method=method, drift_control=method == "bdf", raise_on_failure=True)
        rows = {}
        for label, res in runs.items():
            E = energy(res)
            rel = np.abs(E - E[0]) / abs(E[0])
            early, late = res.t <= 0.1 * T, res.t >= 0.9 * T
            rows[label] = dict(t=res.t, energy_error=rel, early=float(rel[early].max()), late=float(rel[late].max()),
                               drift=float(np.polyfit(res.t, E - E[0], 1)[0] / abs(E[0])),
                               position_error=float(np.abs(res.q - reference(res.t)).max()),
                               steps=int(res.stats["n_steps"]))
        out[name] = rows
    return out


# ------------------------------------------------------------------ Theorem 5: the balanced sleigh
THEOREM5 = dict(h=0.2, v0=-1.0, omega0=3.0, steps=10)    # Dtheta = h omega0 = 0.6: the polygon is visible


def theorem5_polygon(h: float = THEOREM5["h"], v0: float = THEOREM5["v0"], omega0: float = THEOREM5["omega0"],
                     steps: int = THEOREM5["steps"]) -> dict:
    r"""Theorem 5 (balanced sleigh, a = 0): the discrete contact points lie on a regular polygon.
    Every turn Dtheta_k = D and chord are constant; the chord is |u|/cos(D/2) with
    u = Dx_k cos theta_k + Dy_k sin theta_k (the proof prints |u|, see docs/errata.md), and the
    vertices lie on a circle of radius |u|/|sin D|; the continuous motion runs on the circle of
    radius |v0/omega0|. From the general integrator ``sleigh(a=0).discrete(h)``."""
    res = nh.simulate_discrete(sleigh(SLEIGH["J"], SLEIGH["m"], 0.0).discrete(h), (0, steps * h),
                               sleigh_start(v0, omega0), raise_on_failure=True)
    x, y, theta = res.q
    D, dx, dy = np.diff(theta), np.diff(x), np.diff(y)
    chord = np.hypot(dx, dy)
    u = dx * np.cos(theta[:-1]) + dy * np.sin(theta[:-1])
    A = np.column_stack([2 * x, 2 * y, np.ones_like(x)])        # circle through all vertices, least squares
    cx, cy, c = np.linalg.lstsq(A, x**2 + y**2, rcond=None)[0]
    radius = float(np.sqrt(c + cx**2 + cy**2))
    return dict(x=x, y=y, centre=(float(cx), float(cy)), radius=radius, turn=float(D.mean()),
                turn_spread=float(np.ptp(D)), chord=float(chord.mean()), chord_spread=float(np.ptp(chord)),
                u=float(np.abs(u).mean()), radius_formula=float(np.abs(u).mean() / abs(np.sin(D.mean()))),
                vertex_deviation=float(np.abs(np.hypot(x - cx, y - cy) - radius).max()),
                continuous_radius=abs(v0 / omega0), continuous_centre=(0.0, v0 / omega0), h=h)
