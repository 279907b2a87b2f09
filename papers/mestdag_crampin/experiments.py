r"""Mestdag and Crampin (2010), "Nonholonomic systems as restricted Euler-Lagrange systems": the
vertical rolling disk in an anholonomic frame, computed.

The paper has no figure and no number. Everything here is nonholo's (:mod:`nonholo.frames`),
beside the numbers of the project's paper note (``papers/notes/004_anholonomic_frames.md``
section 5, the note's RK4 runs). Reference disk of the note: M = 2, R = 0.5, inertia 0.25 about
the rolling axis and 0.125 about the vertical. Names: nonholo's disk has the heading theta
(the paper's ph, inertia I) and the rolling angle phi (the paper's th, inertia J); the paper's
frame is X1 = d/dtheta, X2 = d/dphi + R cos(theta) d/dx + R sin(theta) d/dy, X3 = d/dx,
X4 = d/dy, the default :class:`~nonholo.frames.AnholonomicFrame` of the disk.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

import nonholo as nh
from nonholo.system.frames import AnholonomicFrame
from nonholo.systems import disk_exact
from nonholo.systems import fernandez_bloch as fb
from nonholo.testing import loglog_slope

M, RAD, I_ROLL, J_HEAD = 2.0, 0.5, 0.25, 0.125      # note section 5 reference numbers
KW = dict(rtol=1e-13, atol=1e-14)
# note item 2: heading 0.7, rolling 0.3, heading rate 0.9, rolling rate 1.3, circle centre (0.1, -0.2)
CIRCLE = dict(heading=0.7, rolling=0.3, w_heading=0.9, w_rolling=1.3, centre=(0.1, -0.2))
CIRCLE_T = 5.0
# note items 13-14: q = 0, heading rate 0, rolling rate 1: the nonholonomic motion is the line y = 0
LINE_START = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0])
ITEM14_MU = (1.0, 0.5)
ITEM14 = dict(x=0.336478505773, y=0.426386469489, th=1.615371093124, ph=2.625536269471, th_dot=0.835515354182,
              ph_dot=1.345914023092, mu1=-0.726707802822, mu2=0.912288341324)
VAK_T = 8.0
OFF_C = (0.2, -0.1)                                  # note item 10: constraint velocities off C


@functools.lru_cache(maxsize=None)
def disk() -> nh.System:
    return nh.systems.vertical_rolling_disk(m=M, R=RAD, I=J_HEAD, J=I_ROLL)


@functools.lru_cache(maxsize=None)
def frame() -> AnholonomicFrame:
    """The paper's frame (the Voronets frame nonholo builds from A)."""
    return AnholonomicFrame(disk(), name="paper's frame")


@functools.lru_cache(maxsize=None)
def other_frame() -> AnholonomicFrame:
    """A second frame adapted to D, with a theta-dependent mixing of X1, X2 and a non-coordinate
    complement: (X1 + X2, X2 - X1/2 + sin(theta) X1, d/dx + d/dy, d/dx - d/dy + d/dphi)."""
    system = disk()
    th = system.coordinates[0]
    R = _param("R")
    X1, X2 = sp.Matrix([1, 0, 0, 0]), sp.Matrix([0, R * sp.cos(th), R * sp.sin(th), 1])
    return AnholonomicFrame(system, sp.Matrix.hstack(X1 + X2, X2 - X1 / 2 + sp.sin(th) * X1,
                                                     sp.Matrix([0, 1, 1, 0]), sp.Matrix([0, 1, -1, 1])),
                            name="mixed frame")


def _param(name: str) -> sp.Symbol:
    return next(s for s in disk().parameters if s.name == name)


def circle_start() -> np.ndarray:
    """Hamel state [theta, x, y, phi, v1, v2] on the note's item-2 circle."""
    c = CIRCLE
    q0 = disk_exact.rolling_circle(0.0, c["heading"], c["rolling"], c["w_heading"], c["w_rolling"], c["centre"], RAD)
    return np.array([*q0, c["w_heading"], c["w_rolling"]])


def circle_closed_form(t) -> np.ndarray:
    """The nonholonomic circle of note section 2.5, (theta, x, y, phi) at t, shape (4, n_t)."""
    c = CIRCLE
    return disk_exact.rolling_circle(t, c["heading"], c["rolling"], c["w_heading"], c["w_rolling"], c["centre"], RAD)


def section(y) -> np.ndarray:
    """mu = phi_a = dL/ds'^a = M (x', y') at a Hamel state: the section of the Theorem."""
    qdot = frame().velocity(y[:4], y[4:6])
    return M * qdot[1:3]


@functools.lru_cache(maxsize=None)
def fernandez_bloch():
    """(criterion result, Ltilde as a System): :func:`nonholo.systems.fernandez_bloch.fernandez_bloch`
    in the paper's frame."""
    return fb.fernandez_bloch(frame())


@functools.lru_cache(maxsize=None)
def particle():
    """The nonholonomic particle z' = y x' (note section 4.4) and its frame."""
    return nh.systems.nonholonomic_particle()


def item14(t_end: float = 2.0) -> dict:
    """Note item 14: the vakonomic disk from the line's data with mu(0) = (1.0, 0.5), at t = 2."""
    y0 = np.r_[LINE_START, ITEM14_MU]
    sol = nh.simulate(frame().vakonomic(), (0, t_end), y0, t_eval=[0, t_end], **KW)
    heading, x, y, rolling, w_heading, w_rolling, mu1, mu2 = sol.y[:, -1]
    ours = dict(x=x, y=y, th=rolling, ph=heading, th_dot=w_rolling, ph_dot=w_heading, mu1=mu1, mu2=mu2)
    return {"ours": {k: float(v) for k, v in ours.items()},
            "heading_acceleration_0": float(frame().vakonomic().rhs(0, y0)[4])}


def condition1_off_C(scales=np.logspace(-6, 0, 13), points: int = 8, seed: int = 3) -> np.ndarray:
    """max over random points of |phi_a R^a_{alpha beta} v^beta| with phi = M (x', y') evaluated at
    velocities a distance s off C (constraint velocities s w, |w| = 1), for each s: the residual of
    condition 1 vanishes on C only (linearly in s)."""
    rng = np.random.default_rng(seed)
    fr = frame()
    worst = np.zeros(len(scales))
    for _ in range(points):
        q, v = rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 2)
        w = rng.normal(size=2)
        w /= np.linalg.norm(w)
        R = fr.structure_functions(q)
        for i, s in enumerate(scales):
            qdot = fr.matrix(q) @ np.r_[v, s * w]
            phi = M * qdot[1:3]
            worst[i] = max(worst[i], np.abs(np.einsum("a,aib,b->i", phi, R[2:, :2, :2], v)).max())
    return worst


# ------------------------------------------------------------------ the figures' data
CIRCLE_MU0_OFFSETS = ((0.3, 0.0), (0.0, -0.3), (0.1, 0.1))


def vakonomic_motions() -> dict:
    """The vakonomic disk (L - mu_a v^a) against the nonholonomic one (Hamel), from the line's data
    (t in [0, VAK_T]) and from the item-2 circle (t in [0, CIRCLE_T]), with mu(0) on the section
    mu = M (x', y') and off it. Returns the runs (``"nh_line"``, ``"line"``: mu(0) -> run,
    ``"nh_circle"``, ``"circle"``: label -> run), the closed-form circle ``"exact"`` at the circle's
    times, ``"item14"`` and ``"numbers"`` (per run the largest distance of the contact point from the
    nonholonomic one and the largest difference of the angles, :func:`_distances`; the section's mu
    error; the Hamel run against the closed form)."""
    hamel, vak = frame().hamel(), frame().vakonomic()
    out = {"line": {}, "circle": {}}
    t_line = np.linspace(0, VAK_T, 801)
    nh_line = nh.simulate(hamel, (0, VAK_T), LINE_START, t_eval=t_line, **KW)
    on = tuple(section(LINE_START))
    line = {}
    for mu0 in [on, (on[0], 0.5), (on[0], -0.5), (0.5, 0.0), (on[0], 0.1)]:
        line[mu0] = nh.simulate(vak, (0, VAK_T), np.r_[LINE_START, mu0], t_eval=t_line, **KW)
        out["line"][mu0] = _distances(line[mu0], nh_line)

    t = np.linspace(0, CIRCLE_T, 501)
    y0 = circle_start()
    nh_circle = nh.simulate(hamel, (0, CIRCLE_T), y0, t_eval=t, **KW)
    on_circle = section(y0)
    circle = {}
    for mu0, label in [(on_circle, "on the section")] + [(on_circle + d, f"section + ({d[0]:g}, {d[1]:g})")
                                                         for d in CIRCLE_MU0_OFFSETS]:
        circle[label] = nh.simulate(vak, (0, CIRCLE_T), np.r_[y0, mu0], t_eval=t, **KW)
        out["circle"][label] = _distances(circle[label], nh_circle)
    exact = circle_closed_form(t)
    mu_err = np.abs(circle["on the section"].y[6:] - np.array([section(y) for y in nh_circle.y.T]).T).max()
    out["circle_section_mu_error"] = float(mu_err)
    out["line"] = {f"({k[0]:g}, {k[1]:g})": v for k, v in out["line"].items()}
    r14 = item14()
    out["item14"] = r14
    out["nh_circle_error"] = float(np.abs(nh_circle.q - exact).max())
    return dict(t_line=t_line, nh_line=nh_line, line_on_section=on, line=line, t=t, nh_circle=nh_circle,
                circle=circle, exact=exact, item14=r14, numbers=out)


def _distances(sol, reference) -> dict:
    """Largest differences between two runs of the disk over their common times, lengths and angles
    apart: ``"position"`` max |(x, y) - (x, y)_ref| (the contact point), ``"angles"`` max over the
    heading and the rolling angle of |angle - angle_ref| (radians)."""
    return {"position": float(np.hypot(*(sol.q[1:3] - reference.q[1:3])).max()),
            "angles": float(np.abs(sol.q[[0, 3]] - reference.q[[0, 3]]).max())}


def circle_geometry() -> tuple:
    """(centre, radius) of the contact point's circle of note item 2 (the nonholonomic motion)."""
    centre = np.asarray(CIRCLE["centre"], dtype=float)
    return centre, float(np.hypot(*(circle_closed_form([0.0])[1:3, 0] - centre)))


def _constraint_velocities(sol) -> np.ndarray:
    """(v^x, v^y) = (x' - R cos(theta) phi', y' - R sin(theta) phi'): zero on C."""
    th, phd = sol["theta"], sol["phi_dot"]
    return np.array([sol["x_dot"] - RAD * np.cos(th) * phd, sol["y_dot"] - RAD * np.sin(th) * phd])


def fernandez_bloch_flows() -> dict:
    """The Euler-Lagrange flow of the Fernandez-Bloch Lagrangian Ltilde (no constraints) from the
    item-2 circle's data on C and off C (constraint velocities OFF_C), the nonholonomic circle
    (Hamel) and the vakonomic disk with mu(0) = M (x'(0), y'(0)) off C; the constraint velocities
    of both Ltilde runs, and ``"numbers"``: on C the flow stays on C and is the circle, off C the
    constraint velocities are constant and the angles are the vakonomic ones, the energy drift."""
    result, fbs = fernandez_bloch()
    y0 = circle_start()
    q0, qdot0 = y0[:4], frame().velocity(y0[:4], y0[4:])
    t = np.linspace(0, CIRCLE_T, 501)
    model = fbs.nonholonomic()   # no constraints: the Euler-Lagrange equations of Ltilde
    on = nh.simulate(model, (0, CIRCLE_T), np.r_[q0, qdot0], t_eval=t, **KW)
    w = np.array([0.0, *OFF_C, 0.0])
    off = nh.simulate(model, (0, CIRCLE_T), np.r_[q0, qdot0 + w], t_eval=t, **KW)
    nh_circle = nh.simulate(frame().hamel(), (0, CIRCLE_T), y0, t_eval=t, **KW)
    va_on, va_off = _constraint_velocities(on), _constraint_velocities(off)
    centre, radius = circle_geometry()
    off_distances = _distances(off, nh_circle)
    vak = nh.simulate(frame().vakonomic(), (0, CIRCLE_T), np.r_[y0, M * (qdot0 + w)[1:3]], t_eval=t, **KW)
    angle_diff = float(np.abs(off.q[[0, 3]] - vak.q[[0, 3]]).max())
    numbers = {"on_C_max_constraint_velocity": float(np.abs(va_on).max()),
               "on_C_distance_to_nonholonomic": float(np.abs(on.q - nh_circle.q).max()),
               "on_C_distance_to_closed_form": float(np.abs(on.q - circle_closed_form(t)).max()),
               "off_C_drift_of_constraint_velocities": float(np.abs(va_off - va_off[:, :1]).max()),
               "off_C_contact_point_distance_to_nonholonomic": off_distances["position"],
               "off_C_angle_difference_to_nonholonomic": off_distances["angles"],
               "off_C_distance_from_the_circle":
                   float(np.abs(np.hypot(*(off.q[1:3] - centre[:, None])) - radius).max()),
               "off_C_angles_vs_vakonomic": angle_diff,
               "energy_drift": float(np.ptp([float(result.lagrangian.subs(dict(zip(
                   [*disk().coordinates, *disk().velocities, *disk().parameters],
                   [*q, *v, *disk().parameters.values()])))) for q, v in zip(off.q.T[::50], off.v.T[::50])]))}
    return dict(t=t, on=on, off=off, nh_circle=nh_circle, vakonomic=vak, va_on=va_on, va_off=va_off,
                numbers=numbers)


def criterion_cases(scales=np.logspace(-6, 0, 13)) -> dict:
    """Proposition 2's residuals at random points on C for the disk with phi = M (x', y') and for the
    nonholonomic particle with phi = y x' and phi = 0; the disk's condition 1 off C at distances
    ``scales`` and its log-log slope; ``"numbers"`` for the report."""
    result, _ = fernandez_bloch()
    psystem, pframe = particle()
    x, y, z = psystem.coordinates
    xd = psystem.velocities[0]
    cases = {"disk, phi = M (x', y')": result, "particle, phi = p_3 = y x'": pframe.criterion([y * xd]),
             "particle, phi = 0": pframe.criterion([0 * x])}
    off = condition1_off_C(scales)
    off_slope = loglog_slope(scales, off)
    numbers = {"cases": {name: {"holds": r.holds, "max_residual_1": float(np.abs(r.residual_1).max()),
                                "max_residual_2": float(np.abs(r.residual_2).max())} for name, r in cases.items()},
               "lagrangian": str(result.lagrangian), "hessian_det": str(result.hessian_det),
               "signature": result.signature, "regular": result.regular, "off_C_slope": off_slope}
    return dict(cases=cases, scales=scales, off=off, off_slope=off_slope, numbers=numbers)


def frame_runs() -> dict:
    """The item-2 circle by Hamel's equations in the paper's frame (``"a"``) and in the mixed frame
    (``"b"``), and by the coordinate Lagrange-d'Alembert equations (``"c"``), with the closed form;
    ``"numbers"``: the differences and the transformation of the multipliers,
    lambda_c = lambda^coord_b A^b_c (A^b_c: the constraint rows on the complement)."""
    y0 = circle_start()
    q0, qdot0 = y0[:4], frame().velocity(y0[:4], y0[4:])
    t = np.linspace(0, CIRCLE_T, 501)
    a = nh.simulate(frame().hamel(), (0, CIRCLE_T), y0, t_eval=t, **KW)
    b = nh.simulate(other_frame().hamel(), (0, CIRCLE_T), other_frame().state(q0, qdot0), t_eval=t, **KW)
    c = nh.simulate(disk().nonholonomic(), (0, CIRCLE_T), np.r_[q0, qdot0], t_eval=t, **KW)
    exact = circle_closed_form(t)
    q, v_other = b.q[:, 250], b.y[4:, 250]
    X = other_frame().matrix(q)
    A, _ = disk().constraint_matrix(q)
    transformed = (A @ X[:, 2:]).T @ disk().multipliers(q, X[:, :2] @ v_other)
    numbers = {"frames": float(np.abs(b.q - a.q).max()), "coordinates": float(np.abs(c.q - a.q).max()),
               "closed_form": float(np.abs(a.q - exact).max()),
               "multiplier_transformation": float(np.abs(other_frame().multipliers(q, v_other) - transformed).max()),
               "other_frame_vectors": str(other_frame().vectors.tolist())}
    return dict(t=t, a=a, b=b, c=c, exact=exact, numbers=numbers)
