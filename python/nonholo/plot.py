"""Plotting helpers (matplotlib, imported lazily so that nonholo itself does not need it)."""

from __future__ import annotations

import numpy as np

__all__ = ["trajectory", "states", "loglog_fit"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.gca()


def trajectory(result, x: str = "x", y: str = "y", ax=None, **kwargs):
    """Plot state ``y`` against state ``x`` of a SimulationResult (default: the (x, y) plane)."""
    ax = _axes(ax)
    (line,) = ax.plot(result[x], result[y], **kwargs)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    return line


def states(result, names=None, ax=None, **kwargs):
    """Plot the named states (default: all coordinates) against time."""
    ax = _axes(ax)
    names = names or result.model.system.coordinate_names
    lines = [ax.plot(result.t, result[name], label=name, **kwargs)[0] for name in names]
    ax.set_xlabel("t")
    ax.legend()
    return lines


def loglog_fit(x, y) -> float:
    """Slope of the least-squares line through (log x, log y)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])
