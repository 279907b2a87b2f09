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
from nonholo.frames import AnholonomicFrame
from nonholo.systems import disk_exact
from nonholo.systems import fernandez_bloch as fb

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
    k = c["w_rolling"] / c["w_heading"]
    return np.array([c["heading"], c["centre"][0] + k * RAD * np.sin(c["heading"]),
                     c["centre"][1] - k * RAD * np.cos(c["heading"]), c["rolling"], c["w_heading"], c["w_rolling"]])


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
