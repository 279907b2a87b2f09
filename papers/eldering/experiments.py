r"""Eldering (2016), "Realizing nonholonomic dynamics as limit of friction forces": every figure
recomputed by nonholo, the paper's numbers checked, its misprints shown.

Sources: ``papers/notes/000_eldering.md`` (the note: sections 2-7) and the paper text. The
paper gives no initial conditions or time spans for Figs. 3-5, 7, 8; the choices here are
constants below, stated on each figure and in ``notebooks/eldering_2016.ipynb``:

- Pendulum (Fig. 1): from rest on S^1 at 45 degrees below the horizontal, x0 = +cos 45 deg
  (the paper does not give the side), g = 9.81, t in [0, 10], eps = 0.01 (blue), 0.001 (red).
- Sleigh (Figs. 3-8): m = I = 1, a = 1/5 (given for Fig. 3 only). Contact point at the origin,
  heading phi0 = pi, moving backwards u0 = -1.5 and turning omega0 = 1 without sideways slip
  (v0 = 0); t in [0, 14]. The same state as the note's tables (there with phi0 = 0; the errors
  are invariant under the rotation by pi). Fig. 4 extends this orbit backwards to t = -6,
  so that, as in the paper, "the sleigh approaches from the right".

Every model is a model of ``nh.systems.chaplygin_sleigh`` or ``nh.systems.planar_particle``;
the sleigh's variables (u, v, omega, psi) are views (:mod:`nonholo.systems.chaplygin_sleigh.frames`). The only
hand-written vector fields are the paper's printed and corrected closed forms (19) and
X_NH + eps X^(1) of section 7.1, kept as explicit ODEs to demonstrate the errata.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import functools

import numpy as np

import nonholo as nh
from nonholo.systems.chaplygin_sleigh import frames as sf
from nonholo.systems.planar_particle import planar_particle, realized_pendulum
from nonholo.testing import loglog_slope

# ------------------------------------------------------------------ choices and the paper's numbers
G = 9.81
PENDULUM_EPS = (0.01, 0.001)          # Fig. 1 caption: blue, red
PENDULUM_T = 10.0                     # Fig. 1 caption: 10 seconds
PENDULUM_START = (np.cos(np.pi / 4), -np.sin(np.pi / 4), 0.0, 0.0)   # our choice of side: x0 > 0
REALIZATIONS = ("potential", "friction", "inertia")

SLEIGH = dict(m=1.0, I=1.0, a=0.2)    # Fig. 3 caption
PAPER_EPS = (0.2, 0.1, 0.05, 0.02)    # Figs. 5, 7, 8 labels
U0, OMEGA0, PHI0 = -1.5, 1.0, np.pi   # our choice (the note's tables use the same u0, omega0)
SLEIGH_T = 14.0
LAYER_END = 1.0                       # Fig. 7 distances are measured after the friction run's initial layer
FIG4_BACK = 6.0                       # Fig. 4: the orbit of Fig. 3 from t = -6
FIG3_ENERGIES_U = (0.5, 1.0, 1.5, 2.0)   # Fig. 3: half-ellipses through u = +-U
FIG6_EPS, FIG6_ORDER = 0.1, 3

# note section 6 tables and section 5 item 10, 7 item (T7), 4 (Fig. 1) (RK4 runs of the note)
NOTE_SLEIGH_TABLE = {  # eps: (NH, X_NH + eps X1, printed phi sign, (19) printed "+", (19) "-")
    0.2: (3.456, 0.1039, 0.0611, np.inf, 0.221), 0.1: (2.247, 0.0371, 0.0728, 10.9, 0.117),
    0.05: (1.275, 0.0146, 0.0909, 4.08, 0.0515), 0.02: (0.554, 0.00313, 0.0551, 1.39, 0.0115),
    0.01: (0.304, 0.00085, 0.0311, 0.673, 0.00321)}
NOTE_PENDULUM_TABLE = {0.01: (0.438, 5.1e-3), 0.005: (0.334, 2.4e-3), 0.0025: (0.205, 8.1e-4),
                       0.00125: (0.113, 2.3e-4)}
NOTE_ENERGY_TABLE = {0.02: (-0.2560, -0.2879, 0.889, 1.6667, 1.6475),
                     0.01: (-0.1355, -0.1440, 0.941, 1.7375, 1.7327),
                     0.005: (-0.0698, -0.0720, 0.970, 1.7749, 1.7737)}
NOTE_CARATHEODORY = {0.01: (0.259, 0.099), 0.001: (0.328, 0.0103)}
NOTE_FIG1_TABLE = {  # (realization, eps): (x range, y range, r(10))
    ("potential", 0.01): ((-0.80, 0.80), (-1.24, -0.71), 1.13),
    ("potential", 0.001): ((-0.72, 0.72), (-1.02, -0.71), 1.02),
    ("friction", 0.01): ((-0.83, 0.85), (-1.98, -0.71), 2.05),
    ("friction", 0.001): ((-0.73, 0.72), (-1.10, -0.71), 1.11),
    ("inertia", 0.01): ((-1.02, 1.14), (-6.22, -0.71), 6.24),
    ("inertia", 0.001): ((-0.81, 0.80), (-1.49, -0.71), 1.55)}
PAPER_FIG1_YTICKS = {"potential": (-1.2, -0.4), "friction": (-1.6, -0.2), "inertia": (-2.0, -0.2)}

RTOL, ATOL = 1e-10, 1e-12
BLUE, RED, GREEN, ORANGE = "tab:blue", "tab:red", "tab:green", "tab:orange"


@functools.lru_cache(maxsize=None)
def sleigh() -> nh.System:
    """The sleigh of the figures, m = I = 1, a = 1/5 (built once per process)."""
    return nh.systems.chaplygin_sleigh(**SLEIGH)


def constants() -> sf.SleighConstants:
    return sf.sleigh_constants(sleigh())


def sleigh_start(u0: float = U0, omega0: float = OMEGA0, v0: float = 0.0, phi0: float = PHI0) -> np.ndarray:
    """[q, q'] of the sleigh at the origin with body velocities (u0, v0, omega0)."""
    return sf.sleigh_state(0.0, 0.0, phi0, u0, v0, omega0)


# ------------------------------------------------------------------ pendulum (section 3, Fig. 1)
def pendulum_runs(eps_values=PENDULUM_EPS, t_end: float = PENDULUM_T, n_t: int = 2001) -> dict:
    """The three realizations of the circle (eqs. (6)-(8)) from ``PENDULUM_START``.

    Returns {(realization, eps): SimulationResult} on t in [0, t_end] (n_t output times).
    """
    t = np.linspace(0.0, t_end, n_t)
    return {(name, eps): nh.simulate(realized_pendulum(name, eps, G), (0.0, t_end), PENDULUM_START, t_eval=t,
                                     rtol=RTOL, atol=ATOL, raise_on_failure=True)
            for name in REALIZATIONS for eps in eps_values}


def pendulum_extent(sol) -> dict:
    """x and y ranges, r(t_end), max |r - 1| and max |r'| of a pendulum run."""
    x, y, xd, yd = sol.y
    r = np.hypot(x, y)
    return dict(x=(float(x.min()), float(x.max())), y=(float(y.min()), float(y.max())), r_end=float(r[-1]),
                max_r_dev=float(np.abs(r - 1).max()), max_r_dot=float(np.abs((x * xd + y * yd) / r).max()))


def pendulum_reduced_table(eps_values=tuple(NOTE_PENDULUM_TABLE), t_end: float = 3.0) -> dict:
    """Errors at t = 3 of the nonholonomic and first-order reduced friction pendulum against the
    friction model, max over (r, theta, theta'), as in the note's section 6 table.

    The friction model starts at rest at r = 1, theta = -pi/4 (O(eps) off D_eps, as in the note),
    the reduced models at the same point. Returns {eps: (error NH, error order 1)}.
    """
    system = planar_particle(G, "friction")
    y0 = np.array(PENDULUM_START)
    t = np.array([0.0, t_end])

    def polar(sol):
        x, y, xd, yd = sol.y[:, -1]
        r = np.hypot(x, y)
        return np.array([r, np.arctan2(y, x), (x * yd - y * xd) / r**2])

    table = {}
    for eps in eps_values:
        ref = polar(nh.simulate(system.friction(eps), (0, t_end), y0, t_eval=t, rtol=1e-11, atol=1e-13))
        errs = [np.abs(polar(nh.simulate(system.reduced(eps, order=K), (0, t_end), y0, t_eval=t, rtol=1e-11,
                                         atol=1e-13)) - ref).max() for K in (0, 1)]
        table[eps] = tuple(float(e) for e in errs)
    return table


# ------------------------------------------------------------------ nonholonomic sleigh (section 4)
def nh_orbit(u_scale: float, sign: float = 1.0, s_range: float = 6.0, n_t: int = 1201):
    """A whole half-ellipse of the nonholonomic sleigh: u runs from -U tanh(s) to +U tanh(s).

    The closed form (note section 5 item 3) u = U tanh s, omega = sign sqrt(m/J) U sech s with
    s = k U t is used only to place the start at s = -s_range; the orbit is simulated over
    s in [-s_range, s_range], i.e. t in [0, 2 s_range/(k U)].
    """
    c = constants()
    u0 = -u_scale * np.tanh(s_range)
    w0 = sign * np.sqrt(c.m / c.J) * u_scale / np.cosh(s_range)
    t_end = 2 * s_range / (c.k * u_scale)
    return nh.simulate(sleigh().nonholonomic(), (0, t_end), sleigh_start(u0, w0, phi0=0.0),
                       t_eval=np.linspace(0, t_end, n_t), rtol=RTOL, atol=ATOL, raise_on_failure=True)


def phase_plot(grid=np.linspace(-2.2, 2.2, 23), energies_u=FIG3_ENERGIES_U) -> dict:
    """Fig. 3's data: the nonholonomic vector field (u', omega') = (a omega^2, -(m a/J) u omega) on
    ``grid`` x ``grid`` (from the model, eq. (12) variables), and the half-ellipses through
    u = +-U for each U in ``energies_u`` (simulated; both signs of omega) with the largest deviation
    of m u^2 + J omega^2 from m U^2 along them."""
    c = constants()
    model = sleigh().nonholonomic()
    field = np.array([[sf.body_rhs(model, 0.0, 0, 0, 0, u, 0.0, w)[[3, 5]] for u in grid] for w in grid])
    orbits, ellipse_error = {}, 0.0
    for U in energies_u:
        for sign in (1.0, -1.0):
            v = sf.view(nh_orbit(U, sign))
            orbits[(U, sign)] = (v.u, v.omega)
            ellipse_error = max(ellipse_error, float(np.abs(c.m * v.u**2 + c.J * v.omega**2 - U**2 * c.m).max()))
    return dict(grid=grid, field=field, orbits=orbits, ellipse_error=ellipse_error)


def fig4_orbit(n_t: int = 2001):
    """The Fig. 3/4 orbit: the start (u0, omega0) = (-1.5, 1), phi0 = pi at the origin, simulated
    backwards to t = -6 and forwards to t = 14. Returns (t, x, y, phi, u, omega) arrays."""
    model = sleigh().nonholonomic()
    kw = dict(rtol=RTOL, atol=ATOL, raise_on_failure=True)
    back = nh.simulate(model, (0, -FIG4_BACK), sleigh_start(), t_eval=np.linspace(0, -FIG4_BACK, n_t // 3), **kw)
    fwd = nh.simulate(model, (0, SLEIGH_T), sleigh_start(), t_eval=np.linspace(0, SLEIGH_T, n_t - n_t // 3), **kw)
    b, f = sf.view(back), sf.view(fwd)
    join = lambda name: np.r_[getattr(b, name)[:0:-1], getattr(f, name)]  # noqa: E731
    return {name: join(name) for name in ("t", "x", "y", "phi", "u", "omega")}


# ------------------------------------------------------------------ sleigh with friction (sections 5, 7.1)
@functools.lru_cache(maxsize=None)
def sleigh_runs(eps_values=PAPER_EPS, t_end: float = SLEIGH_T, n_t: int = 1401) -> dict:
    """The nonholonomic, friction and first-order reduced sleigh from ``sleigh_start()``.

    The friction model starts at v0 = 0 (no sideways slip, the natural experiment; O(eps) off
    D_eps); the first-order reduced model ``reduced(eps, order=1)`` starts at the base point of
    the fast fibre through that state, ``system.fibre_base(q0, v0, eps, order=1)``.
    Returns {"nh": result, "friction": {eps: result}, "reduced": {eps: result}, "paper": {eps: SleighView}}
    ("paper": :func:`paper_first_order_run` from the same fibre base).
    """
    system = sleigh()
    y0 = sleigh_start()
    t = np.linspace(0.0, t_end, n_t)
    kw = dict(t_eval=t, rtol=RTOL, atol=ATOL, raise_on_failure=True)
    out = {"nh": nh.simulate(system.nonholonomic(), (0, t_end), y0, **kw), "friction": {}, "reduced": {}, "paper": {}}
    for eps in eps_values:
        out["friction"][eps] = nh.simulate(system.friction(eps), (0, t_end), y0, **kw)
        q_f, u_f = system.fibre_base(y0[:3], y0[3:], eps, order=1)
        out["reduced"][eps] = nh.simulate(system.reduced(eps, order=1), (0, t_end), np.r_[q_f, u_f], **kw)
        out["paper"][eps] = paper_first_order_run(q_f, u_f, eps, t)
    return out


DISTANCE_KEYS = ("max_dist_nh", "max_dist_first_order", "max_dist_paper")


def first_order_distances() -> dict:
    """Figs. 7 and 8 in numbers: per eps, the largest distance to the friction run of the
    nonholonomic model, nonholo's reduced(eps, order=1) and the paper's X_NH + eps X^(1), in
    (u, omega) for t >= LAYER_END (after the friction run's initial layer) and in the contact
    point (x, y) over the whole run, with u(14) and the fitted slopes in eps.
    Returns {"u_omega": {eps: ..., "slopes": ...}, "xy": {eps: ..., "slopes": ...}}."""
    runs = sleigh_runs()
    ref = sf.view(runs["nh"])
    u_omega, xy = {}, {}
    for eps in PAPER_EPS:
        fr, red, pap = sf.view(runs["friction"][eps]), sf.view(runs["reduced"][eps]), runs["paper"][eps]
        after = fr.t >= LAYER_END

        def in_u_omega(other):
            return float(np.hypot(other.u - fr.u, other.omega - fr.omega)[after].max())

        def in_xy(other):
            return float(np.hypot(other.x - fr.x, other.y - fr.y).max())

        u_omega[eps] = {"u_end_friction": float(fr.u[-1]), "u_end_reduced": float(red.u[-1]),
                        "u_end_paper": float(pap.u[-1]), "u_end_nh": float(ref.u[-1]), "max_dist_nh": in_u_omega(ref),
                        "max_dist_first_order": in_u_omega(red), "max_dist_paper": in_u_omega(pap)}
        xy[eps] = {"max_dist_nh": in_xy(ref), "max_dist_first_order": in_xy(red), "max_dist_paper": in_xy(pap),
                   "paper_vs_nonholo": float(np.hypot(pap.x - red.x, pap.y - red.y).max())}
    for table in (u_omega, xy):
        table["slopes"] = {key: slope(PAPER_EPS, [table[e][key] for e in PAPER_EPS]) for key in DISTANCE_KEYS}
    return {"u_omega": u_omega, "xy": xy}


def paper_first_order_run(q0, u_D0, eps: float, t) -> sf.SleighView:
    r"""The paper's own first-order model: the Taylor-truncated field X_NH + eps X^(1)
    (:func:`first_order_rhs`, corrected sign; text before Eldering's Fig. 7), from the reduced
    state (q0, u_D0) on D, as a :class:`~nonholo.systems.chaplygin_sleigh.frames.SleighView`. Its slip is the
    first-order v = eps h_v^(1) = -eps (I m/J) u psi and omega = psi - k v.

    It differs from nonholo's ``reduced(eps, order=1)`` (the P-projected law at v = u + eps h^(1))
    by O(eps^2) terms of the field."""
    from scipy.integrate import solve_ivp

    c = constants()
    x, y, phi = q0
    u = u_D0[0] * np.cos(phi) + u_D0[1] * np.sin(phi)
    sol = solve_ivp(first_order_rhs, (t[0], t[-1]), [x, y, phi, u, u_D0[2]], t_eval=t, args=(eps, False, c),
                    method="DOP853", rtol=RTOL, atol=ATOL)
    if sol.status != 0:
        raise RuntimeError(f"X_NH + eps X^(1) at eps = {eps}: {sol.message}")
    x, y, phi, u, psi = sol.y
    v = -eps * c.I * c.m / c.J * u * psi
    return sf.SleighView(sol.t, x, y, phi, u, v, psi - c.k * v, psi)


# ------------------------------------------------------------------ the slow manifold (section 6, Fig. 6)
def slow_manifold_slip(u, psi, eps: float = FIG6_EPS, order: int = FIG6_ORDER) -> np.ndarray:
    """The sideways velocity v = h_eps(u, psi) = sum_{j<=K} eps^j h_v^(j)(u, psi) on the sleigh's
    truncated slow manifold D_eps (independent of x, y, phi by SE(2) symmetry), from
    ``system.on_slow_manifold`` at phi = 0. Arrays of equal shape."""
    system = sleigh()
    u, psi = np.broadcast_arrays(np.asarray(u, dtype=float), np.asarray(psi, dtype=float))
    q = np.zeros(3)
    out = [sf.body_velocities(q, system.on_slow_manifold(q, [ui, 0.0, pi], eps, order=order))[1]
           for ui, pi in zip(u.ravel(), psi.ravel())]
    return np.array(out).reshape(u.shape)


def reduced_field(u, psi, eps: float = FIG6_EPS, order: int = FIG6_ORDER) -> np.ndarray:
    """(u', psi', v') of the reduced model on D_eps at (u, psi), v' = dh/du u' + dh/dpsi psi'
    (central differences of :func:`slow_manifold_slip`, step 1e-5). Shape (3,)."""
    model = sleigh().reduced(eps, order=order)
    f = model.rhs(0.0, sf.reduced_state(0.0, 0.0, 0.0, u, psi))
    u_dot, psi_dot = f[3], f[5]  # at phi = 0: u' = u_x' + phi' u_y = u_x' (u_y = 0)
    h = 1e-5
    dh_du = (slow_manifold_slip(u + h, psi, eps, order) - slow_manifold_slip(u - h, psi, eps, order)) / (2 * h)
    dh_dpsi = (slow_manifold_slip(u, psi + h, eps, order) - slow_manifold_slip(u, psi - h, eps, order)) / (2 * h)
    return np.array([u_dot, psi_dot, dh_du * u_dot + dh_dpsi * psi_dot])


FIG6_STARTS = ((-1.5, 1.2, 0.9), (-0.5, -1.4, -0.8), (1.2, 1.5, -0.9), (0.8, -0.8, 1.0))  # (u0, psi0, v0 - h)


def fast_fibres(eps: float = FIG6_EPS, starts=FIG6_STARTS, t_end: float = 1.5, order: int = FIG6_ORDER) -> list:
    """Friction-model trajectories from points off D_eps, in Eldering's (u, psi, v).

    Each start (u0, psi0, dv) is at phi = 0 with v0 = h_eps(u0, psi0) + dv. Returns a list of
    dicts: the view, the distance |v - h_eps(u, psi)| along it, and the fibre base
    ``system.fibre_base`` (its (u, psi) and the point h_eps above it on D_eps).
    """
    system = sleigh()
    c = constants()
    t = np.r_[0.0, np.geomspace(1e-4, t_end, 600)]
    out = []
    for u0, psi0, dv in starts:
        v0 = float(slow_manifold_slip(u0, psi0, eps, order)) + dv
        y0 = sf.sleigh_state(0.0, 0.0, 0.0, u0, v0, psi=psi0, k=c.k)
        sol = sf.view(nh.simulate(system.friction(eps), (0, t_end), y0, t_eval=t, rtol=1e-11, atol=1e-13,
                                  raise_on_failure=True))
        distance = np.abs(sol.v - slow_manifold_slip(sol.u, sol.psi, eps, order))
        q_f, u_f = system.fibre_base(y0[:3], y0[3:], eps, order=1)
        u_b, _, psi_b = sf.body_velocities(q_f, u_f)
        out.append(dict(view=sol, distance=distance, start=(u0, psi0, v0),
                        base=(float(u_b), float(psi_b), float(slow_manifold_slip(u_b, psi_b, eps, order)))))
    return out


def fibre_decay_rates(fibres: list, eps: float, window=(1.0, 6.0)) -> list:
    """The decay rate of |v - h_eps(u, psi)| along each fast fibre, fitted to log(distance) over
    t/eps in ``window``, times eps: alpha = (I + m a^2)/(I m) when the attraction is at alpha/eps."""
    rates = []
    for fb in fibres:
        v = fb["view"]
        sel = (v.t / eps > window[0]) & (v.t / eps < window[1])
        rates.append(float(-np.polyfit(v.t[sel], np.log(fb["distance"][sel]), 1)[0] * eps))
    return rates


# ------------------------------------------------------------------ numbers of the note: tables
def energy_loss_table(eps_values=tuple(NOTE_ENERGY_TABLE), t_end: float = 80.0) -> dict:
    """Energy lost by the friction sleigh from (u0, omega0, v0) = (-1.5, 1, 0) up to t = 80,
    against the first-order prediction of the note (section 5 item 10)

        Delta E ~= -eps I^2 m^2 (U^3 - u0^3) / (3 a (I + m a^2)^2),  u_inf ~= sqrt(U^2 + 2 Delta E/m).

    Returns {eps: dict(simulated, predicted, ratio, u_inf, u_inf_predicted)}.
    """
    system = sleigh()
    c = constants()
    U = np.sqrt(U0**2 + c.J * OMEGA0**2 / c.m)
    rows = {}
    for eps in eps_values:
        sol = nh.simulate(system.friction(eps), (0, t_end), sleigh_start(phi0=0.0), t_eval=[0, t_end],
                          rtol=RTOL, atol=ATOL, raise_on_failure=True)
        E = sol.energy()
        dE = float(E[-1] - E[0])
        predicted = -eps * c.I**2 * c.m**2 * (U**3 - U0**3) / (3 * c.a * c.J**2)
        rows[eps] = dict(simulated=dE, predicted=float(predicted), ratio=dE / predicted,
                         u_inf=float(sf.view(sol).u[-1]), u_inf_predicted=float(np.sqrt(U**2 + 2 * predicted / c.m)))
    return rows


CARATHEODORY_EPS = (0.01, 0.003, 0.001, 0.0003)   # the note's two, and two more for the figure


def caratheodory_table(eps_values=tuple(NOTE_CARATHEODORY), v0: float = 0.5, t_end: float = 5.0) -> dict:
    """Carathéodory's initial data (note section 7 item 2, test T7).

    The friction sleigh starts with a sideways velocity v0 = 0.5 (u0 = -1.5, omega0 = 1). Its
    limit is the nonholonomic motion from the base of the fast fibre, psi0 = omega0 + k v0
    (``system.project``), not from omega0 (the naive start). Errors at t = 5, max over
    (x, y, phi, u, omega), against the friction run, for: the naive start, the projected start,
    and the first-order fibre base (``system.fibre_base``) followed by the nonholonomic and the
    first-order reduced model. Also omega of the friction run at t = 20 eps.
    """
    system = sleigh()
    y0 = sleigh_start(v0=v0, phi0=0.0)
    q0, qd0 = y0[:3], y0[3:]
    t = np.linspace(0.0, t_end, 501)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)

    def state(view):
        return np.array([view.x, view.y, view.phi, view.u, view.omega])

    naive = state(sf.view(nh.simulate(system.nonholonomic(), (0, t_end), sleigh_start(phi0=0.0), **kw)))
    projected = state(sf.view(nh.simulate(system.nonholonomic(), (0, t_end), np.r_[q0, system.project(q0, qd0)],
                                          **kw)))
    rows = {}
    for eps in eps_values:
        fr = sf.view(nh.simulate(system.friction(eps), (0, t_end), y0, **kw))
        ref = state(fr)
        q_f, u_f = system.fibre_base(q0, qd0, eps, order=1)
        base_nh = state(sf.view(nh.simulate(system.nonholonomic(), (0, t_end), np.r_[q_f, u_f], **kw)))
        base_1 = state(sf.view(nh.simulate(system.reduced(eps, order=1), (0, t_end), np.r_[q_f, u_f], **kw)))
        layer = sf.view(nh.simulate(system.friction(eps), (0, 20 * eps), y0, t_eval=[0, 20 * eps], rtol=1e-11,
                                    atol=1e-13))
        err = lambda other: float(np.abs(other[:, -1] - ref[:, -1]).max())  # noqa: E731
        rows[eps] = dict(naive=err(naive), projected=err(projected), fibre_base_nh=err(base_nh),
                         fibre_base_order1=err(base_1), omega_after_20eps=float(layer.omega[-1]),
                         psi0=float(OMEGA0 + constants().k * v0))
    return rows


# ------------------------------------------------------------------ errata: printed and corrected closed forms
def eq19_rhs(t, z, eps: float, printed: bool = False, c: sf.SleighConstants | None = None):
    r"""Eldering's slow equations (19) in (x, y, phi, u, omega), a demonstration of the erratum.

        u'     = a omega^2 -+ eps I m/(I + m a^2) u omega^2      (printed "+", correct "-")
        omega' = -k u omega + eps I m^2 a/(I + m a^2)^2 d/dt[u omega]   (solved for omega')

    with the slip v = -eps I m u omega/(I + m a^2) of eq. (18) in the kinematics
    x' = u cos phi - v sin phi, y' = u sin phi + v cos phi, phi' = omega (note section 2.3).
    Only for the erratum; nonholo's models are ``sleigh.reduced(eps, order=K)``.
    """
    c = c or constants()
    x, y, phi, u, w = z
    g = c.I * c.m / c.J
    v = -eps * g * u * w
    u_dot = c.a * w**2 + (1.0 if printed else -1.0) * eps * g * u * w**2
    c2 = eps * c.I * c.m**2 * c.a / c.J**2
    w_dot = (-c.k * u * w + c2 * u_dot * w) / (1.0 - c2 * u)
    return [u * np.cos(phi) - v * np.sin(phi), u * np.sin(phi) + v * np.cos(phi), w, u_dot, w_dot]


def first_order_rhs(t, z, eps: float, printed: bool = False, c: sf.SleighConstants | None = None):
    r"""X_NH + eps X^(1) of section 7.1 in (x, y, phi, u, psi), a demonstration of the erratum.

        (x', y') = u (cos phi, sin phi) - eps I m/J u psi (-sin phi, cos phi)
        phi'     = psi +- eps I m^2 a/J^2 u psi        (correct "+"; printed "-")
        u'       = a psi^2 + eps I m (m a^2 - I)/J^2 u psi^2
        psi'     = -k u psi - eps I m^3 a^2/J^3 u^2 psi,        J = I + m a^2.
    """
    c = c or constants()
    x, y, phi, u, psi = z
    g = c.I * c.m / c.J
    sign = -1.0 if printed else 1.0
    return [u * np.cos(phi) + eps * g * u * psi * np.sin(phi), u * np.sin(phi) - eps * g * u * psi * np.cos(phi),
            psi + sign * eps * c.I * c.m**2 * c.a / c.J**2 * u * psi,
            c.a * psi**2 + eps * c.I * c.m * (c.m * c.a**2 - c.I) / c.J**2 * u * psi**2,
            -c.k * u * psi - eps * c.I * c.m**3 * c.a**2 / c.J**3 * u**2 * psi]


ERRATA_MODELS = ("nonholonomic", "first order, corrected", "first order, printed phi sign",
                 "(19) printed", "(19) corrected")


ERRATA_EPS = (0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.0025)   # the note's, and two smaller ones for the slopes


def errata_table(eps_values=ERRATA_EPS, t_end: float = 10.0) -> dict:
    """Errors at t = 10, max over (x, y, phi, u, psi), of the closed-form models against the
    friction sleigh, as in the note's section 6 table: x = y = phi = 0, u0 = -1.5, psi0 = 1,
    the friction model started on the first-order slow manifold v0 = eps h^(1)(u0, psi0); the
    (19) models start at omega0 = psi0 - k v0 and report psi = omega + k v.

    Returns {eps: {model name: error}}; a run that blows up has error inf.
    """
    from scipy.integrate import solve_ivp

    system = sleigh()
    c = constants()
    z0 = [0.0, 0.0, 0.0, U0, OMEGA0]
    rows = {}
    for eps in eps_values:
        v0 = -eps * c.I * c.m / c.J * U0 * OMEGA0
        y0 = sf.sleigh_state(0.0, 0.0, 0.0, U0, v0, psi=OMEGA0, k=c.k)
        fr = sf.view(nh.simulate(system.friction(eps), (0, t_end), y0, t_eval=[0, t_end], rtol=1e-12, atol=1e-13,
                                 raise_on_failure=True))
        ref = np.array([fr.x[-1], fr.y[-1], fr.phi[-1], fr.u[-1], fr.psi[-1]])

        def solve(rhs, start, eps_, printed):
            sol = solve_ivp(rhs, (0, t_end), start, args=(eps_, printed, c), method="DOP853", rtol=1e-12, atol=1e-13)
            return sol.y[:, -1] if sol.status == 0 and np.all(np.isfinite(sol.y[:, -1])) else None

        def err(end, from_omega=False):
            if end is None or np.abs(end).max() > 1e6:
                return np.inf
            if from_omega:  # (19): psi = omega + k v with the slip of eq. (18)
                end = end.copy()
                end[4] += c.k * (-eps * c.I * c.m / c.J * end[3] * end[4])
            return float(np.abs(end - ref).max())

        w0 = OMEGA0 - c.k * v0
        rows[eps] = {
            "nonholonomic": err(solve(first_order_rhs, z0, 0.0, False)),
            "first order, corrected": err(solve(first_order_rhs, z0, eps, False)),
            "first order, printed phi sign": err(solve(first_order_rhs, z0, eps, True)),
            "(19) printed": err(solve(eq19_rhs, [0, 0, 0, U0, w0], eps, True), True),
            "(19) corrected": err(solve(eq19_rhs, [0, 0, 0, U0, w0], eps, False), True),
        }
    return rows


def errata_slopes(rows: dict, eps_max: float = 0.02) -> dict:
    """For each model of ``errata_table``'s rows: the log-log slope of its error against eps over
    eps <= ``eps_max`` (finite errors only)."""
    eps = np.array(sorted(rows))
    slopes = {}
    for name in ERRATA_MODELS:
        e = np.array([rows[x][name] for x in eps])
        tail = np.isfinite(e) & (eps <= eps_max)
        slopes[name] = slope(eps[tail], e[tail])
    return slopes


def caratheodory_runs(v0: float = 0.5, t_end: float = 0.3, eps_values=(0.01, 0.001)) -> dict:
    """The initial layer of Caratheodory's start: the nonholonomic sleigh from (u0, omega0)
    (naive) and from project(q0, v0) (psi0 = omega0 + k v0), and the friction sleigh from
    sideways velocity v0 for each eps, as views in (u, v, omega, psi). Returns ``{"t": the
    nonholonomic runs' times, "naive", "projected", "friction": eps -> view}``."""
    system = sleigh()
    y0 = sleigh_start(v0=v0, phi0=0.0)
    kw = dict(rtol=1e-11, atol=1e-13, raise_on_failure=True)
    t = np.linspace(0, t_end, 61)
    naive = sf.view(nh.simulate(system.nonholonomic(), (0, t_end), sleigh_start(phi0=0.0), t_eval=t, **kw))
    proj = sf.view(nh.simulate(system.nonholonomic(), (0, t_end), np.r_[y0[:3], system.project(y0[:3], y0[3:])],
                               t_eval=t, **kw))
    friction = {eps: sf.view(nh.simulate(system.friction(eps), (0, t_end), y0, t_eval=np.linspace(0, t_end, 601),
                                         **kw)) for eps in eps_values}
    return dict(t=t, naive=naive, projected=proj, friction=friction)


def slope(eps_values, errors) -> float:
    """Least-squares slope of log(error) against log(eps)."""
    return loglog_slope(eps_values, errors)


# ------------------------------------------------------------------ convergence orders (note section 6, T1)
SLEIGH_CONVERGENCE_EPS = (0.04, 0.02, 0.01, 0.005)       # note T1
PENDULUM_CONVERGENCE_EPS = (0.004, 0.002, 0.001, 0.0005)  # the pendulum's asymptotic range (see the notebook)


def sleigh_convergence(orders=(0, 1, 2, 3)):
    """nh.studies.convergence for the sleigh from x = y = phi = 0, u0 = -1.5, psi0 = 1 on [0, 10]."""
    return nh.studies.convergence(sleigh(), SLEIGH_CONVERGENCE_EPS, sf.reduced_state(0, 0, 0, U0, OMEGA0), (0, 10),
                                  orders=orders, progress=False)


def pendulum_convergence(orders=(0, 1, 2)):
    """nh.studies.convergence for the friction pendulum from rest at theta = -pi/4 on [0, 3]."""
    return nh.studies.convergence(planar_particle(G, "friction"), PENDULUM_CONVERGENCE_EPS, PENDULUM_START, (0, 3),
                                  orders=orders, progress=False)


# ------------------------------------------------------------------ Appendix A, eqs. (41), (43), (44)
def sleigh_frame(phi: float, c: sf.SleighConstants | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The G-orthogonal frame of section 7.1 (columns f_1, f_2, f_3) at heading phi and its
    derivative d/dphi (the frame depends on phi only). Shapes (3, 3)."""
    c = c or constants()
    s, co = np.sin(phi), np.cos(phi)
    F = np.array([[co, -s, 0.0], [s, co, 0.0], [0.0, -c.k, 1.0]])
    dF = np.array([[-s, -co, 0.0], [co, -s, 0.0], [0.0, 0.0, 0.0]])
    return F, dF


def _frame_geometry(q, c=None):
    """kappa = F^T G F, its inverse, the structure functions C^al_{be ga} ([f_be, f_ga] = C^al_{be ga}
    f_al) and the frame with its phi-derivative, from nonholo's metric at q."""
    system = sleigh()
    F, dF = sleigh_frame(q[2], c)
    G = system.metric_at(q)
    kappa = F.T @ G @ F
    Finv = np.linalg.inv(F)
    # D_{f_be} f_ga = dF[:, ga] * f_be^phi (only phi-dependence); bracket = D_{f_be} f_ga - D_{f_ga} f_be
    D = np.einsum("ig,b->igb", dF, F[2])                  # D[i, ga, be] = d_phi f^i_ga f^phi_be
    bracket = D - D.transpose(0, 2, 1)                    # [f_be, f_ga]^i at [i, ga, be]
    C = np.einsum("ai,igb->abg", Finv, bracket)           # C^al_{be ga}
    return F, dF, Finv, kappa, np.linalg.inv(kappa), C, D


def appendix_a_connection(q, printed: bool = False) -> np.ndarray:
    r"""conn^eta_{ga de} of eq. (41) (frame metric constant, so only the structure-function terms):

        conn^eta_{ga de} = 1/2 (C^eta_{de ga} + kappa_{al ga} kappa^{eta be} C^al_{be de}
                                +- kappa_{al de} kappa^{eta be} C^al_{be ga}),

    "+" (Koszul formula, corrected) or "-" (printed). Array [eta, ga, de]."""
    *_, kappa, kinv, C, _ = _frame_geometry(q)
    sign = -1.0 if printed else 1.0
    return 0.5 * (np.einsum("edg->egd", C) + np.einsum("ag,eb,abd->egd", kappa, kinv, C)
                  + sign * np.einsum("ad,eb,abg->egd", kappa, kinv, C))


def change_of_frame_connection(q) -> np.ndarray:
    r"""conn^al_{be ga} of eq. (43) from nonholo's Christoffel symbols:
    lambda^al_i (Gamma^i_jk f^j_be f^k_ga + (d_k f^i_be) f^k_ga), array [al, be, ga]."""
    F, _, Finv, *_, D = _frame_geometry(q)
    Gamma = sleigh().christoffel(q)
    return np.einsum("ai,ijk,jb,kg->abg", Finv, Gamma, F, F) + np.einsum("ai,ibg->abg", Finv, D)


def appendix_a_acceleration(q, v, printed: bool = False) -> np.ndarray:
    r"""dot(v)^al of eq. (44) for the free sleigh in the frame (kappa constant):
    -kappa^{al de} (-+ kappa_{eta ga} C^eta_{be de}) v^be v^ga; "-" corrected, "+" printed."""
    *_, kappa, kinv, C, _ = _frame_geometry(q)
    sign = 1.0 if printed else -1.0
    return -np.einsum("ad,eg,ebd,b,g->a", kinv, kappa, sign * C, v, v)


def free_frame_acceleration(q, v) -> np.ndarray:
    """dot(v) of the free (unconstrained, frictionless) sleigh in the frame, from nonholo's
    geodesic equation qdd = -Gamma(qd, qd): dot(v) = F^-1 (qdd - dF/dt v)."""
    F, dF, Finv, *_ = _frame_geometry(q)
    qd = F @ v
    qdd = -np.einsum("ijk,j,k->i", sleigh().christoffel(q), qd, qd)
    return Finv @ (qdd - dF @ v * qd[2])


def appendix_a_errata(points: int = 8, seed: int = 0) -> dict:
    """Eqs. (41) and (44), printed and corrected, against nonholo's Christoffel symbols at random
    states of the sleigh: the largest residuals and the largest printed-minus-corrected difference."""
    rng = np.random.default_rng(seed)
    out = {key: 0.0 for key in ("41_corrected", "41_printed", "44_corrected", "44_printed", "41_difference",
                                "44_difference", "44_scale")}
    for _ in range(points):
        q, v = rng.uniform(-2, 2, 3), rng.uniform(-1.5, 1.5, 3)
        ref = change_of_frame_connection(q)
        c41 = {p: appendix_a_connection(q, p) for p in (False, True)}
        acc = free_frame_acceleration(q, v)
        c44 = {p: appendix_a_acceleration(q, v, p) for p in (False, True)}
        out["41_corrected"] = max(out["41_corrected"], float(np.abs(c41[False] - ref).max()))
        out["41_printed"] = max(out["41_printed"], float(np.abs(c41[True] - ref).max()))
        out["41_difference"] = max(out["41_difference"], float(np.abs(c41[True] - c41[False]).max()))
        out["44_corrected"] = max(out["44_corrected"], float(np.abs(c44[False] - acc).max()))
        out["44_printed"] = max(out["44_printed"], float(np.abs(c44[True] - acc).max()))
        out["44_difference"] = max(out["44_difference"], float(np.abs(c44[True] - c44[False]).max()))
        out["44_scale"] = max(out["44_scale"], float(np.abs(acc).max()))
    return out


# ------------------------------------------------------------- section 6: Theorem 3(iii), footnote 6, counterexample
FOOTNOTE6_EPS = (0.004, 0.002, 0.001)      # pendulum without gravity, potential realization
FOOTNOTE6_L, FOOTNOTE6_T = 1.0, 60.0       # initial tangential speed l, horizon


def footnote6_phase_drift(eps_values=FOOTNOTE6_EPS, l: float = FOOTNOTE6_L, t_end: float = FOOTNOTE6_T,
                          n_t: int = 3001) -> dict:
    r"""Footnote 6: the potential realization (6) of the pendulum without gravity, started on S^1
    with tangential speed l, against the constrained motion theta = l t. The particle rides at
    r ~ 1 + eps l^2 and turns slower; the phase error grows like -2 eps l^3 t (an estimate of the
    project note, section 2; the paper gives no rate): convergence is not uniform in time. Returns
    per eps the phase error theta(t) - l t, its fitted rate, and the growth rate of the lag l t - theta
    divided by eps l^3 (``rate_over_eps_l3``, positive)."""
    t = np.linspace(0.0, t_end, n_t)
    out = {"t": t, "phase_error": {}, "rate": {}, "rate_over_eps_l3": {}}
    for eps in eps_values:
        system = planar_particle(0.0, "potential", eps=eps)
        sol = nh.simulate(system.nonholonomic(), (0, t_end), [1.0, 0.0, 0.0, l], t_eval=t, rtol=1e-11, atol=1e-13,
                          raise_on_failure=True)
        err = np.unwrap(np.arctan2(sol.q[1], sol.q[0])) - l * t
        rate = float(np.polyfit(t, err, 1)[0])
        out["phase_error"][eps], out["rate"][eps], out["rate_over_eps_l3"][eps] = err, rate, -rate / (eps * l**3)
    return out


THEOREM3_EPS = (0.04, 0.02, 0.01, 0.005)
THEOREM3_T0, THEOREM3_T = 1.0, 60.0


def theorem3_pseudo_solution(eps_values=THEOREM3_EPS, t0: float = THEOREM3_T0, t_end: float = THEOREM3_T,
                             n_t: int = 6001) -> dict:
    r"""Theorem 3(iii) on the sleigh: the friction solution x_eps(t) from the Fig. 5 start stays, on
    [t0, t_end], within O(eps) of the curve xbar(t) = (q(t), P v(t)) in D (its projection), and
    xbar is an O(eps)-pseudo-solution of X_NH: |dxbar/dt - X_NH(xbar)| = O(eps) uniformly (the
    derivative by central differences on the output grid). The distance of the friction solution
    to the true nonholonomic solution from the projected start grows with t instead.

    Returns per eps: the largest |v - P v| and the largest defect on [t0, t_end], the distance of
    the contact points to the nonholonomic run at t0 and t_end, and fitted slopes against eps."""
    from nonholo.testing import loglog_slope

    system = sleigh()
    y0 = sleigh_start()
    t = np.linspace(0.0, t_end, n_t)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-12, raise_on_failure=True)
    reference = nh.simulate(system.nonholonomic(), (0, t_end), np.r_[y0[:3], system.project(y0[:3], y0[3:])], **kw)
    nh_model = system.nonholonomic()
    late = t >= t0
    rows = {}
    for eps in eps_values:
        fr = nh.simulate(system.friction(eps), (0, t_end), y0, **kw)
        u = np.array([system.project(q, v) for q, v in zip(fr.q.T, fr.v.T)]).T     # P v (b = 0)
        xbar = np.vstack([fr.q, u])
        dxbar = np.gradient(xbar, t, axis=1, edge_order=2)
        field = np.array([nh_model.rhs(ti, yi) for ti, yi in zip(t, xbar.T)]).T
        defect = np.abs(dxbar - field)[:, late][:, 1:-1].max(axis=0)
        off_D = np.linalg.norm(fr.v - u, axis=0)
        gap = np.hypot(*(fr.q[:2] - reference.q[:2]))
        rows[eps] = dict(off_D=float(off_D[late].max()), defect=float(defect.max()),
                         gap_t0=float(gap[np.searchsorted(t, t0)]), gap_end=float(gap[-1]), gap=gap)
    eps = list(eps_values)
    slopes = {key: loglog_slope(eps, [rows[e][key] for e in eps]) for key in ("off_D", "defect")}
    return dict(t=t, rows=rows, slopes=slopes, t0=t0, t_end=t_end)


COUNTER_Y0 = (1.0, 2.0, 4.0, 8.0)
COUNTER_EPS = (0.02, 0.01, 0.005)
COUNTER_X0, COUNTER_T = 0.1, 6.0


def noncompact_counterexample_runs(y0_values=COUNTER_Y0, eps_values=COUNTER_EPS, t_end: float = COUNTER_T,
                                   n_t: int = 1201) -> dict:
    r"""Section 6's noncompact counterexample (:mod:`nonholo.systems.noncompact_counterexample`): from
    x(0) = 0.1, y(0) = y0, at rest. With the corrected D the particle accelerates along x and turns
    with the distribution; the friction model's largest constraint violation max |A v| (A = (-chi, 1 - chi),
    1/sqrt(2) <= |A| <= 1, so |A v| lies between 1/sqrt(2) times the distance of v to D and that distance) grows
    with y0 at fixed eps (no bound uniform in the start), and falls with eps at fixed y0. With the
    printed D (chi and 1 - chi swapped) the nonholonomic particle does not move at all."""
    from nonholo.systems.noncompact_counterexample import noncompact_counterexample

    t = np.linspace(0.0, t_end, n_t)
    kw = dict(t_eval=t, rtol=1e-10, atol=1e-12, raise_on_failure=True)
    corrected, printed = noncompact_counterexample(), noncompact_counterexample(printed=True)

    def off_D(sol):
        return np.array([corrected.constraint_matrix(q)[0][0] @ v for q, v in zip(sol.q.T, sol.v.T)])

    out = {"t": t, "nh": {}, "friction": {}, "off_D": {}, "printed_nh": {}}
    for y0 in y0_values:
        start = [COUNTER_X0, y0, 0.0, 0.0]
        out["nh"][y0] = nh.simulate(corrected.nonholonomic(), (0, t_end), start, **kw).q
        out["printed_nh"][y0] = nh.simulate(printed.nonholonomic(), (0, t_end), start, **kw).q
        for eps in eps_values:
            sol = nh.simulate(corrected.friction(eps), (0, t_end), start, **kw)
            out["friction"][(y0, eps)] = sol.q
            out["off_D"][(y0, eps)] = float(np.abs(off_D(sol)).max())
    return out
