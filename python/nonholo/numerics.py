"""Numerical helpers that several layers share (convergence studies, plots, tests)."""

from __future__ import annotations

import numpy as np

__all__ = ["loglog_slope", "number_text"]


def loglog_slope(x, y) -> float:
    """Slope of the least-squares line through (log x, log |y|): the measured order of a
    convergence study (error ~ C x^slope)."""
    x, y = np.asarray(x, dtype=float), np.abs(np.asarray(y, dtype=float))
    if x.shape != y.shape or x.size < 2:
        raise ValueError(f"x and y must have the same shape with at least 2 points, got {x.shape} and {y.shape}")
    if np.any(x <= 0) or np.any(y == 0) or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x must be positive and y non-zero and finite to fit a log-log slope")
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def number_text(value) -> str:
    """A number as a display shows it: ``f"{value:g}"`` where that reads back as the same float
    (1, 0.2, 9.81, 1e-05), else the shortest text that does (0.1234567, not 0.123457; 12345678,
    not 1.23457e+07): a shown parameter is never a rounded one."""
    v = float(value)
    short = f"{v:g}"
    if float(short) == v or v != v:
        return short
    text = repr(v)
    return text[:-2] if text.endswith(".0") else text


def rows(values, points: int) -> np.ndarray:
    """The (len(values), points) array of a lambdified function's outputs, each an array of the
    points or a scalar (a constant entry, broadcast): a row at a time, without an array of views."""
    out = np.empty((len(values), points))
    for i, value in enumerate(values):
        out[i] = value
    return out
