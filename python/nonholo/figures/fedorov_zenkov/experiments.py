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
from dataclasses import dataclass

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh
from nonholo.systems.inclined_knife_edge import knife_edge_closed_form as knife_closed_form
from nonholo.systems.inclined_knife_edge import knife_edge_energy as knife_energy

__all__ = ["SLEIGH", "ContinuousSleigh", "sleigh", "discrete_map", "fig3_start", "inclined_knife_edge",
           "knife_edge_closed_form", "linearization_table", "heteroclinic_limits", "regression_values",
           "order2_table", "work_precision", "long_runs"]


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


def sleigh_start(v0: float, omega0: float, theta0: float = 0.0) -> list:
    """[x, y, phi, x', y', phi'] at the origin with forward speed v0 and angular velocity omega0."""
    return [0.0, 0.0, theta0, v0 * math.cos(theta0), v0 * math.sin(theta0), omega0]


def fig3_start() -> list:
    return sleigh_start(V0, OMEGA0)


def body_momenta(result, J: float, m: float, a: float) -> np.ndarray:
    """(p1, p2) = (I phi', m u) of a run of the sleigh (u the speed along the blade), shape (2, n_t)."""
    phi = result.q[2]
    u = result.v[0] * np.cos(phi) + result.v[1] * np.sin(phi)
    return np.array([(J + m * a**2) * result.v[2], m * u])


def sleigh_energy(result, J: float, m: float, a: float) -> np.ndarray:
    """1/2 v^T G v of the sleigh at every stored time (vectorized; equals ``result.energy()``)."""
    xd, yd, w = result.v
    phi = result.q[2]
    side = -xd * np.sin(phi) + yd * np.cos(phi)
    return 0.5 * m * (xd**2 + yd**2) + 0.5 * (J + m * a**2) * w**2 + m * a * w * side


@dataclass(frozen=True)
class ContinuousSleigh:
    """The closed-form nonholonomic sleigh of note section 2.3 (a > 0, omega0 != 0), from
    theta = theta0, x = y = 0 with forward speed v0 and angular velocity omega0 at t = 0.

    theta, v, omega are closed forms; the contact point is the Gauss-Legendre quadrature of
    x' = v cos(theta), y' = v sin(theta) (20 nodes on every interval of length <= 0.1: round-off
    accurate)."""

    J: float
    m: float
    a: float
    omega0: float
    v0: float
    theta0: float = 0.0

    @property
    def I(self) -> float:  # noqa: E743
        return self.J + self.m * self.a**2

    @property
    def V(self) -> float:
        """Terminal speed, E = m V^2/2."""
        return math.sqrt(self.v0**2 + self.I / self.m * self.omega0**2)

    @property
    def k(self) -> float:
        """Contraction rate a m V / I."""
        return self.a * self.m * self.V / self.I

    @property
    def t_cusp(self) -> float:
        """The time where v = 0 (the cusp of the contact point)."""
        return -math.atanh(self.v0 / self.V) / self.k

    @property
    def _c(self) -> float:
        return math.copysign(math.sqrt(self.I / self.m) / self.a, self.omega0)

    @property
    def theta_inf(self) -> float:
        """The heading of the asymptotic straight line, t -> +inf."""
        return self.theta0 + self._c * (math.pi / 2 - math.asin(self.v0 / self.V))

    @property
    def energy(self) -> float:
        return 0.5 * self.m * self.V**2

    def theta(self, t) -> np.ndarray:
        g = np.arctan(np.sinh(self.k * (np.asarray(t, float) - self.t_cusp)))
        return self.theta0 + self._c * (g - math.asin(self.v0 / self.V))

    def velocity(self, t) -> tuple:
        """(v, omega) at t."""
        tau = self.k * (np.asarray(t, float) - self.t_cusp)
        return self.V * np.tanh(tau), math.copysign(math.sqrt(self.m / self.I) * self.V, self.omega0) / np.cosh(tau)

    def momenta(self, t) -> np.ndarray:
        v, w = self.velocity(t)
        return np.array([self.I * w, self.m * v])

    def contact_point(self, t, max_interval: float = 0.1) -> np.ndarray:
        """(x, y) at the times t >= 0 (any order), shape (2, n)."""
        t = np.asarray(t, float)
        if t.size == 0:
            return np.zeros((2, 0))
        if t.min() < 0:
            raise ValueError("contact_point integrates forward from t = 0")
        grid = np.union1d(np.concatenate([[0.0], t.ravel()]), np.arange(0.0, t.max(), max_interval))
        nodes, weights = np.polynomial.legendre.leggauss(20)
        left, right = grid[:-1, None], grid[1:, None]
        tt = (left + right) / 2 + (right - left) / 2 * nodes
        ww = (right - left) / 2 * weights
        th = self.theta(tt)
        v, _ = self.velocity(tt)
        x = np.concatenate([[0.0], np.cumsum(np.sum(ww * v * np.cos(th), axis=1))])
        y = np.concatenate([[0.0], np.cumsum(np.sum(ww * v * np.sin(th), axis=1))])
        idx = np.searchsorted(grid, t.ravel())
        return np.array([x[idx], y[idx]]).reshape((2,) + t.shape)

    def configuration(self, t) -> np.ndarray:
        """(x, y, theta) at t >= 0, shape (3, n): the state order of ``chaplygin_sleigh``."""
        xy = self.contact_point(t)
        return np.vstack([xy, self.theta(t)[None]])


@functools.lru_cache(maxsize=None)
def inclined_knife_edge(m: float = KNIFE["m"], J: float = KNIFE["J"], g: float = KNIFE["g"]) -> nh.System:
    """:func:`nonholo.systems.inclined_knife_edge` with this module's parameters, built once."""
    return nh.systems.inclined_knife_edge(m=m, J=J, g=g)


def knife_edge_closed_form(t, u0: float = KNIFE_START[0], omega: float = KNIFE_START[1], g: float = KNIFE["g"]):
    return knife_closed_form(t, u0, omega, g)


def knife_edge_energy(result, m: float = KNIFE["m"], J: float = KNIFE["J"], g: float = KNIFE["g"]) -> np.ndarray:
    return knife_energy(result, m, J, g)


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
    exact = ContinuousSleigh(s["J"], s["m"], s["a"], s["omega0"], s["v0"])
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
    slopes = [float(-np.polyfit(np.log(Ns_), np.log([table[N][i] for N in table]), 1)[0]) for i in (0, 1)]
    return dict(table=table, q_slope=slopes[0], p_slope=slopes[1])


# ------------------------------------------------------------------ work against precision
def work_precision(steps=WP_STEPS, rtols=WP_RTOLS) -> dict:
    """The discrete integrator (sweep over h) against CVODE BDF ("auto": BDF, AD Jacobian,
    projection onto the constraint) and Adams (no projection), rtol swept, atol = rtol/100, on
    the Fig. 3 motion over [0, 12].

    Error: max over t in [0, 12] of |(x, y, theta) - reference|_inf, at every node of the
    discrete run and at 1201 output times (every 0.01) of CVODE's. Work, deterministic: steps, RHS
    and Jacobian evaluations (CVODE), Newton iterations (discrete: each one residual, one AD
    Jacobian and a 4x4 solve). Wall times are measured side by side in
    ``benchmarks/discrete_sleigh_work_precision.py``, not here."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    exact = ContinuousSleigh(J, m, a, OMEGA0, V0)
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
    for method in ("auto", "adams"):
        for rtol in rtols:
            res = nh.simulate(model, (0, T), y0, t_eval=t_out, rtol=rtol, atol=rtol * WP_ATOL_FACTOR, method=method)
            err = np.abs(res.q - ref_out).max()
            rows.append(dict(method="CVODE BDF" if method == "auto" else "CVODE Adams", setting=rtol,
                             error=float(err), steps=res.stats["n_steps"],
                             rhs=res.stats["n_rhs"], jac=res.stats["n_jac"], newton=0, evaluations=res.stats["n_rhs"],
                             constraint=float(np.max(res.constraint_residual()))))
    tight = nh.simulate(model, (0, T), y0, t_eval=t_out, rtol=1e-13, atol=1e-14)
    ref_check = dict(cvode_1e13=float(np.abs(tight.q - ref_out).max()),
                     cvode_1e13_theta=float(np.abs(tight.q[2] - ref_out[2]).max()),
                     quadrature_refined=float(np.abs(exact.contact_point(t_out)
                                                     - ContinuousSleigh(J, m, a, OMEGA0, V0).contact_point(
                                                         t_out, max_interval=0.025)).max()))
    disc = [r for r in rows if r["method"] == "discrete"]
    slope = float(np.polyfit(np.log([r["setting"] for r in disc]), np.log([r["error"] for r in disc]), 1)[0])
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
    (BDF with projection, Adams; rtol in ``rtols``, atol = rtol/100) for the sleigh (Fig. 3 data)
    and the knife edge on an inclined plane. Relative energy error |E - E0|/E0 at every discrete
    node and at 2001 CVODE output times; "early" = max over t <= T/10, "late" = over t >= 0.9 T."""
    J, m, a = SLEIGH["J"], SLEIGH["m"], SLEIGH["a"]
    exact = ContinuousSleigh(J, m, a, OMEGA0, V0)
    cases = {
        "sleigh": (sleigh(), fig3_start(), lambda r: sleigh_energy(r, J, m, a), exact.configuration),
        "knife edge": (inclined_knife_edge(), sleigh_start(*KNIFE_START), knife_edge_energy, knife_edge_closed_form),
    }
    t_out = np.linspace(0, T, 2001)
    out = {}
    for name, (system, y0, energy, reference) in cases.items():
        runs = {}
        runs[f"discrete h = {h:g}"] = nh.simulate_discrete(system.discrete(h), (0, T), y0, raise_on_failure=True)
        for method, label in (("auto", "CVODE BDF"), ("adams", "CVODE Adams")):
            for rtol in rtols:
                runs[f"{label} rtol {rtol:.0e}"] = nh.simulate(system.nonholonomic(), (0, T), y0, t_eval=t_out, rtol=rtol,
                                                               atol=rtol * WP_ATOL_FACTOR, method=method,
                                                               raise_on_failure=True)
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
