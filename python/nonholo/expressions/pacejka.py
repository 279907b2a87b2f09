"""Pacejka's magic-formula curve D sin(C atan(B x - E (B x - atan(B x)))): its expression, its peak, and
the checks that keep it a friction force (opposing the slip at every slip it takes)."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

__all__ = ["magic", "magic_peak", "check_curve", "PEAK_SAMPLES"]

PEAK_SAMPLES = 20001  # slip angles in [0, pi/2] where magic_peak looks for the curve's largest value


def magic(B, C, D, E, x):
    """Pacejka's curve D sin(C atan(B x - E (B x - atan(B x))))."""
    Bx = B * x
    return D * sp.sin(C * sp.atan(Bx - E * (Bx - sp.atan(Bx))))


def magic_peak(B, C, D, E):
    """The largest |force| / N of the curve over the slip angles it takes, alpha in [0, pi/2): D
    where it reaches its peak there (C > 1 with B large enough), else its value at the largest
    (C <= 1, or a small B: B = 3, C = 0.9 peaks at 0.941 D); D for symbolic factors (a bound)."""
    try:
        b, c, d, e = (float(x) for x in (B, C, D, E))
    except TypeError:
        return D
    alpha = np.linspace(0.0, np.pi / 2, PEAK_SAMPLES)
    x = b * alpha
    curve = np.abs(np.sin(c * np.arctan(x - e * (x - np.arctan(x)))))
    i = int(np.argmax(curve))
    if 0 < i < alpha.size - 1:  # the parabola through the largest sample and its neighbours
        y0, y1, y2 = curve[i - 1: i + 2]
        peak = y1 + (y2 - y0) ** 2 / (8 * max(2 * y1 - y0 - y2, np.finfo(float).tiny))
    else:
        peak = curve[i]
    return D if peak >= 1 - 1e-9 else d * min(float(peak), 1.0)


def check_curve(B, C, E, names=("B", "C", "E"), slip_ratio: bool = False, what: str = "") -> None:
    """ValueError naming the factor where the curve is no friction force: E above 1 (Pacejka's curvature
    factor: beyond, the force turns along the slip), or C so large for B and E that C atan(x) passes pi
    within the slips the curve takes (slip angles below pi/2, or any slip ratio with ``slip_ratio``), where
    the force changes sign and pushes along the slip (B = 10, E = 0: C above 2.085; at most 2 for any B
    where the slip is unbounded). Symbolic factors are checked where their values are known (at a run).
    ``what`` prefixes the message (the curve of an argument: "longitudinal's ")."""
    nB, nC, nE = names
    if E.is_number and float(E) > 1:
        raise ValueError(f"{what}{nE} must be at most 1 (Pacejka's curvature factor; beyond, the force turns along the "
                         f"slip), got {float(E):g}")
    if not all(x.is_number for x in (B, C, E)):
        return
    b, c, e = float(B), float(C), float(E)

    def argument(a: float) -> float:  # B a - E (B a - atan(B a)), increasing in a for E <= 1
        return b * a - e * (b * a - math.atan(b * a))

    if slip_ratio:
        reach = math.pi / 2 if e < 1 else math.atan(math.pi / 2)  # atan of the argument as the slip grows
    else:
        reach = math.atan(argument(math.pi / 2))
    if c * reach <= math.pi * (1 + 1e-12):
        return
    target, lo, hi = math.tan(math.pi / c), 0.0, math.pi / 2
    while slip_ratio and argument(hi) < target:
        hi *= 2
    for _ in range(200):  # bisection for the slip where C atan(argument) = pi
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if argument(mid) < target else (lo, mid)
    where = f"a slip ratio of {hi:.4g}" if slip_ratio else f"a slip angle of {hi:.4g} rad"
    raise ValueError(f"{what}{nC} = {c:g} (with {nB} = {b:g}, {nE} = {e:g}) turns the force along the slip beyond "
                     f"{where}, where {nC} atan({nB} a - {nE} ({nB} a - atan({nB} a))) passes pi: {nC} must be at most "
                     f"{math.pi / reach:.4g} for these {nB} and {nE}")
