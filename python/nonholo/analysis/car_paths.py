"""Shortest paths of the kinematic car with a bounded turning radius R: Reeds-Shepp (forward and
backward) and Dubins (forward only), in closed form.

The car x' = v cos(theta), y' = v sin(theta), theta' = v kappa with |v| <= 1 and |kappa| <= 1/R
reaches a goal pose in the least time along the shortest path, so these lengths are the minimum
times that an optimal-control solver must reproduce (issue 44).

Every shortest path is a word of at most five segments: arcs of radius R to the left (L) or right
(R) and straight lines (S), each driven forward (+) or backward (-).

- **Reeds-Shepp** (Reeds & Shepp, *Pacific J. Math.* 145 (1990) 367-393): 48 words of the five
  forms CSC, CCC, CCCC, CCSC and CCSCC (their section 8), written as 8 base formulas in the goal's
  pose relative to the start, in units of R (as OMPL's ReedsSheppStateSpace arranges them: 44
  candidates, some standing for two words where a segment's gear may take either sign). Each
  formula is solved once for a base word (such as L+S+L+) and carried to the others by three
  symmetries of the problem: *timeflip* (x, y, phi) -> (-x, y, -phi) reverses every gear,
  *reflect* (x, y, phi) -> (x, -y, -phi) swaps L and R, and *backwards*
  (x, y, phi) -> (x cos phi + y sin phi, x sin phi - y cos phi, phi) reads the word in reverse
  order. The shortest candidate wins.
- **Dubins** (Dubins, *Amer. J. Math.* 79 (1957) 497-516): the six words LSL, RSR, LSR, RSL, RLR,
  LRL, all forward, from the tangent lines and the tangent circle of the turning circles at the
  two poses.

Lengths are in the units of the poses; angles in radians. The path's segments, driven from the
start with :meth:`CarPath.sample`, land on the goal to rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import options as check

__all__ = ["CarPath", "reeds_shepp_path", "reeds_shepp_length", "dubins_path", "dubins_length"]

_TWO_PI = 2.0 * math.pi
_HALF_PI = 0.5 * math.pi
# A segment parameter within this of zero (in units of R) counts as zero: what OMPL uses, ten
# rounding units, so that the straight path keeps its L0 S L0 form under rounding.
_ZERO = 10.0 * np.finfo(float).eps
# A segment shorter than this (in units of R) is left out of the word: it moves the end by less.
_DROP = 1e-12
_SWAP = str.maketrans("LR", "RL")


@dataclass(frozen=True)
class CarPath:
    """A shortest path of the car: its word, its segments and its total length.

    Attributes
    ----------
    word : str
        The segments in order, each a letter (``L`` arc to the left, ``R`` to the right, ``S``
        straight) and a gear (``+`` forward, ``-`` backward), as ``"L+S+R-"``; segments of zero
        length are left out (the empty word for start == goal).
    lengths : tuple of float
        The segments' lengths (non-negative, in the units of the poses), in the word's order.
    length : float
        Their sum: the length of the path, also the least time at unit speed.
    turning_radius : float
        The radius R of the arcs.
    start : tuple of float
        The start pose (x, y, theta) the path begins at.
    """

    word: str
    lengths: tuple
    length: float
    turning_radius: float
    start: tuple

    @property
    def segments(self) -> list:
        """``[(letter, gear, length), ...]``: gear +1 forward, -1 backward."""
        return [(self.word[2 * i], 1 if self.word[2 * i + 1] == "+" else -1, s) for i, s in enumerate(self.lengths)]

    @property
    def controls(self) -> list:
        """``[(v, kappa, duration), ...]``: the piecewise-constant controls of the car that drive the
        path at unit speed (v = +-1, kappa in {-1/R, 0, 1/R})."""
        turn = {"L": 1.0 / self.turning_radius, "R": -1.0 / self.turning_radius, "S": 0.0}
        return [(float(gear), turn[letter], s) for letter, gear, s in self.segments]

    def sample(self, n: int = 101) -> tuple:
        """The path at ``n`` arc lengths spaced evenly over [0, length].

        Returns
        -------
        s : ndarray, shape (n,)
            The arc length (the time at unit speed).
        poses : ndarray, shape (n, 3)
            x, y, theta at each ``s`` (theta not wrapped: it turns continuously).
        """
        n = check.count(n, "n", minimum=2)
        s = np.linspace(0.0, self.length, n)
        poses = np.empty((n, 3))
        x, y, th = (float(c) for c in self.start)
        done = 0.0
        j = 0
        for v, kappa, d in self.controls:
            while j < n and s[j] <= done + d:
                poses[j] = _drive(x, y, th, v, kappa, s[j] - done)
                j += 1
            x, y, th = _drive(x, y, th, v, kappa, d)
            done += d
        poses[j:] = (x, y, th)
        return s, poses


def _drive(x: float, y: float, th: float, v: float, kappa: float, duration: float) -> tuple:
    """The pose after driving (v, kappa) for ``duration`` from (x, y, th), in closed form."""
    if kappa == 0.0:
        d = v * duration
        return x + d * math.cos(th), y + d * math.sin(th), th
    turn = v * kappa * duration
    r = 1.0 / kappa
    return x + r * (math.sin(th + turn) - math.sin(th)), y - r * (math.cos(th + turn) - math.cos(th)), th + turn


def reeds_shepp_length(start, goal, turning_radius: float = 1.0) -> float:
    """Length of the shortest path of a car that drives forward and backward (Reeds-Shepp).

    Parameters
    ----------
    start, goal : array_like, shape (3,)
        Poses (x, y, theta).
    turning_radius : float, optional
        The least radius R of the car's turns (default 1).

    Returns
    -------
    float
        The length; equal to the minimum time of the kinematic car with |v| <= 1 and
        |kappa| <= 1/R.

    Examples
    --------
    >>> import numpy as np, nonholo as nh
    >>> round(nh.analysis.reeds_shepp_length([0, 0, 0], [3.0, 0, 0]), 12)
    3.0
    >>> bool(np.isclose(nh.analysis.reeds_shepp_length([0, 0, 0], [1, 1, np.pi / 2]), np.pi / 2))
    True
    """
    return reeds_shepp_path(start, goal, turning_radius).length


def dubins_length(start, goal, turning_radius: float = 1.0) -> float:
    """Length of the shortest forward-only path of a car (Dubins).

    Parameters
    ----------
    start, goal : array_like, shape (3,)
        Poses (x, y, theta).
    turning_radius : float, optional
        The least radius R of the car's turns (default 1).

    Returns
    -------
    float
        The length; equal to the minimum time with 0 <= v <= 1 and |kappa| <= 1/R.

    Examples
    --------
    >>> import numpy as np, nonholo as nh
    >>> bool(np.isclose(nh.analysis.dubins_length([0, 0, 0], [0, 2, np.pi]), np.pi))  # the U-turn
    True
    """
    return dubins_path(start, goal, turning_radius).length


def reeds_shepp_path(start, goal, turning_radius: float = 1.0) -> CarPath:
    """The shortest path of a car that drives forward and backward (Reeds-Shepp).

    Parameters
    ----------
    start, goal : array_like, shape (3,)
        Poses (x, y, theta).
    turning_radius : float, optional
        The least radius R of the car's turns (default 1).

    Returns
    -------
    CarPath
        Its word (for example ``"L+R-L+"``), segment lengths and total length.
    """
    return _shortest(start, goal, turning_radius, _reeds_shepp_words)


def dubins_path(start, goal, turning_radius: float = 1.0) -> CarPath:
    """The shortest forward-only path of a car (Dubins).

    Parameters
    ----------
    start, goal : array_like, shape (3,)
        Poses (x, y, theta).
    turning_radius : float, optional
        The least radius R of the car's turns (default 1).

    Returns
    -------
    CarPath
        Its word (one of LSL, RSR, LSR, RSL, RLR, LRL, all ``+``), segment lengths and length.
    """
    return _shortest(start, goal, turning_radius, _dubins_words)


def _pose(value, name: str) -> np.ndarray:
    pose = check.real_state(value, name)
    if pose.shape != (3,):
        raise ValueError(f"{name} must be a pose (x, y, theta) of 3 numbers, got shape {pose.shape}")
    if not np.all(np.isfinite(pose)):
        raise ValueError(f"{name} must be finite, got {pose}")
    return pose


def _shortest(start, goal, turning_radius, words) -> CarPath:
    start, goal = _pose(start, "start"), _pose(goal, "goal")
    R = check.positive(turning_radius, "turning_radius")
    dx, dy = goal[:2] - start[:2]
    c, s = math.cos(start[2]), math.sin(start[2])
    # the goal in the start's frame, in units of R
    x, y, phi = (c * dx + s * dy) / R, (-s * dx + c * dy) / R, _mod2pi(goal[2] - start[2])
    best_word, best_params, best = "", (), math.inf
    for word, params in words(x, y, phi):
        total = sum(abs(p) for p in params)
        if total < best - 1e-12 * max(1.0, best if best < math.inf else 0.0):
            best_word, best_params, best = word, params, total
    kept = []  # segments of zero length left out, neighbours of one letter and gear joined
    for letter, p in zip(best_word, best_params):
        if abs(p) <= _DROP:
            continue
        if kept and kept[-1][0] == letter and (kept[-1][1] > 0) == (p > 0):
            kept[-1] = (letter, kept[-1][1] + p)
        else:
            kept.append((letter, p))
    word = "".join(f"{letter}{'+' if p > 0 else '-'}" for letter, p in kept)
    lengths = tuple(abs(p) * R for _, p in kept)
    return CarPath(word, lengths, float(sum(lengths)), R, tuple(float(v) for v in start))


def _mod2pi(a: float) -> float:
    """``a`` wrapped to [-pi, pi)."""
    v = math.fmod(a + math.pi, _TWO_PI)
    return v + math.pi if v < 0 else v - math.pi


def _polar(x: float, y: float) -> tuple:
    return math.hypot(x, y), math.atan2(y, x)


# ---------------------------------------------------------------------------------------------------
# Reeds-Shepp: the 8 base words, each returning its signed segment parameters
# (positive forward, in units of R) or None where the goal is out of the word's reach.

def _LpSpLp(x, y, phi):
    u, t = _polar(x - math.sin(phi), y - 1.0 + math.cos(phi))
    if t >= -_ZERO:
        v = _mod2pi(phi - t)
        if v >= -_ZERO:
            return t, u, v
    return None


def _LpSpRp(x, y, phi):
    u1, t1 = _polar(x + math.sin(phi), y - 1.0 - math.cos(phi))
    u1 *= u1
    if u1 >= 4.0:
        u = math.sqrt(u1 - 4.0)
        t = _mod2pi(t1 + math.atan2(2.0, u))
        v = _mod2pi(t - phi)
        if t >= -_ZERO and v >= -_ZERO:
            return t, u, v
    return None


def _LpRmL(x, y, phi):
    u1, theta = _polar(x - math.sin(phi), y - 1.0 + math.cos(phi))
    if u1 <= 4.0:
        u = -2.0 * math.asin(0.25 * u1)
        t = _mod2pi(theta + 0.5 * u + math.pi)
        v = _mod2pi(phi - t + u)
        if t >= -_ZERO and u <= _ZERO:
            return t, u, v
    return None


def _tau_omega(u, v, xi, eta, phi):
    delta = _mod2pi(u - v)
    A = math.sin(u) - math.sin(delta)
    B = math.cos(u) - math.cos(delta) - 1.0
    t1 = math.atan2(eta * A - xi * B, xi * A + eta * B)
    t2 = 2.0 * (math.cos(delta) - math.cos(v) - math.cos(u)) + 3.0
    tau = _mod2pi(t1 + math.pi) if t2 < 0 else _mod2pi(t1)
    return tau, _mod2pi(tau - u + v - phi)


def _LpRupLumRm(x, y, phi):
    xi, eta = x + math.sin(phi), y - 1.0 - math.cos(phi)
    rho = 0.25 * (2.0 + math.hypot(xi, eta))
    if rho <= 1.0:
        u = math.acos(rho)
        t, v = _tau_omega(u, -u, xi, eta, phi)
        if t >= -_ZERO and v <= _ZERO:
            return t, u, -u, v
    return None


def _LpRumLumRp(x, y, phi):
    xi, eta = x + math.sin(phi), y - 1.0 - math.cos(phi)
    rho = (20.0 - xi * xi - eta * eta) / 16.0
    if 0.0 <= rho <= 1.0:
        u = -math.acos(rho)
        if u >= -_HALF_PI:
            t, v = _tau_omega(u, u, xi, eta, phi)
            if t >= -_ZERO and v >= -_ZERO:
                return t, u, u, v
    return None


def _LpRmSmLm(x, y, phi):
    rho, theta = _polar(x - math.sin(phi), y - 1.0 + math.cos(phi))
    if rho >= 2.0:
        r = math.sqrt(rho * rho - 4.0)
        u = 2.0 - r
        t = _mod2pi(theta + math.atan2(r, -2.0))
        v = _mod2pi(phi - _HALF_PI - t)
        if t >= -_ZERO and u <= _ZERO and v <= _ZERO:
            return t, -_HALF_PI, u, v
    return None


def _LpRmSmRm(x, y, phi):
    xi, eta = x + math.sin(phi), y - 1.0 - math.cos(phi)
    rho, theta = _polar(-eta, xi)
    if rho >= 2.0:
        t, u = theta, 2.0 - rho
        v = _mod2pi(t + _HALF_PI - phi)
        if t >= -_ZERO and u <= _ZERO and v <= _ZERO:
            return t, -_HALF_PI, u, v
    return None


def _LpRmSLmRp(x, y, phi):
    xi, eta = x + math.sin(phi), y - 1.0 - math.cos(phi)
    rho, _ = _polar(xi, eta)
    if rho >= 2.0:
        u = 4.0 - math.sqrt(rho * rho - 4.0)
        if u <= _ZERO:
            t = _mod2pi(math.atan2((4.0 - u) * xi - 2.0 * eta, -2.0 * xi + (u - 4.0) * eta))
            v = _mod2pi(t - phi)
            if t >= -_ZERO and v >= -_ZERO:
                return t, -_HALF_PI, u, -_HALF_PI, v
    return None


# (base word, its formula, whether the backwards symmetry applies): 8 formulas, 44 candidates.
_FAMILIES = (
    ("LSL", _LpSpLp, False), ("LSR", _LpSpRp, False),
    ("LRL", _LpRmL, True),
    ("LRLR", _LpRupLumRm, False), ("LRLR", _LpRumLumRp, False),
    ("LRSL", _LpRmSmLm, True), ("LRSR", _LpRmSmRm, True),
    ("LRSLR", _LpRmSLmRp, False),
)


def _reeds_shepp_words(x, y, phi):
    """Every candidate (word letters, signed parameters) of the 48 words at the relative goal."""
    if math.hypot(x, y) < _ZERO and abs(phi) < _ZERO:
        yield "", ()
        return
    xb, yb = x * math.cos(phi) + y * math.sin(phi), x * math.sin(phi) - y * math.cos(phi)
    for letters, formula, backwards in _FAMILIES:
        frames = [(x, y, False)] + ([(xb, yb, True)] if backwards else [])
        for X, Y, reverse in frames:
            # identity, timeflip, reflect, timeflip + reflect
            for sx, sy, sphi, flip, swap in ((1, 1, 1, 1, False), (-1, 1, -1, -1, False),
                                              (1, -1, -1, 1, True), (-1, -1, 1, -1, True)):
                params = formula(sx * X, sy * Y, sphi * phi)
                if params is None:
                    continue
                word = letters.translate(_SWAP) if swap else letters
                params = tuple(flip * p for p in params)
                if reverse:
                    word, params = word[::-1], params[::-1]
                yield word, params


# ---------------------------------------------------------------------------------------------------
# Dubins: the goal (x, y, phi) relative to the start, in units of R; forward arcs in [0, 2 pi).

def _arc(a: float) -> float:
    """``a`` wrapped to [0, 2 pi)."""
    v = math.fmod(a, _TWO_PI)
    return v + _TWO_PI if v < 0 else v


def _dubins_LSL(x, y, phi):
    u, t = _polar(x - math.sin(phi), y - 1.0 + math.cos(phi))  # between the two left circles' centres
    t = _arc(t)
    return t, u, _arc(phi - t)


def _dubins_LSR(x, y, phi):
    d, t1 = _polar(x + math.sin(phi), y - 1.0 - math.cos(phi))  # left centre to the goal's right centre
    if d < 2.0:
        return None
    u = math.sqrt(d * d - 4.0)
    t = _arc(t1 + math.atan2(2.0, u))
    return t, u, _arc(t - phi)


def _dubins_LRL(x, y, phi):
    """L+R+L+: the middle circle (radius 1, centre c2) touches the start's left circle (centre c1 =
    (0, 1)) and the goal's (centre c3), so |c2 - c1| = |c3 - c2| = 2; c2 lies on either side of
    the line c1 c3."""
    d, theta = _polar(x - math.sin(phi), y - 1.0 + math.cos(phi))
    if d > 4.0:
        return
    half = math.acos(0.25 * d)  # the angle at the start's centre between the centre line and c2 - c1
    for side in (1.0, -1.0):
        t = _arc(theta + side * half + _HALF_PI)  # c2 - c1 = 2 (sin t, -cos t)
        c2x, c2y = 2.0 * math.sin(t), 1.0 - 2.0 * math.cos(t)
        # c3 - c2 = 2 (-sin(t - u), cos(t - u))
        a = math.atan2(y + math.cos(phi) - c2y, x - math.sin(phi) - c2x)
        u = _arc(t - (a - _HALF_PI))
        yield t, u, _arc(phi - t + u)


def _dubins_words(x, y, phi):
    if math.hypot(x, y) < _ZERO and abs(phi) < _ZERO:
        yield "", ()
        return
    for letters, formula in (("LSL", _dubins_LSL), ("LSR", _dubins_LSR)):
        for word, (X, Y, P) in ((letters, (x, y, phi)), (letters.translate(_SWAP), (x, -y, -phi))):
            params = formula(X, Y, P)
            if params is not None:
                yield word, params
    for word, (X, Y, P) in (("LRL", (x, y, phi)), ("RLR", (x, -y, -phi))):
        for params in _dubins_LRL(X, Y, P):
            yield word, params
