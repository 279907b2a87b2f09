"""Plotting helpers (matplotlib, imported lazily so that nonholo itself does not need it)."""

from __future__ import annotations

from .testing import loglog_slope as loglog_fit

__all__ = ["trajectory", "states", "loglog_fit", "convergence"]


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




def convergence(study, ax=None, which: str = "errors", reference: bool = True):
    """Log-log plot of a :class:`~nonholo.studies.ConvergenceStudy`: error against eps for each
    order K, with the fitted slopes in the legend and dashed reference lines of slope K + 1.

    ``which`` is ``"errors"`` (reduced model vs friction model) or ``"slips"`` (residual of the
    truncated slow manifold along the friction model's trajectory).
    """
    ax = _axes(ax)
    values = study.errors if which == "errors" else study.slip_residuals
    slopes = study.slopes if which == "errors" else study.slip_slopes
    eps = study.eps
    for K in study.orders:
        (line,) = ax.loglog(eps, values[K], "o-", label=f"order {K}: slope {slopes[K]:.2f}")
        if reference:
            anchor = values[K][-1]
            ax.loglog(eps, anchor * (eps / eps[-1]) ** (K + 1), "--", color=line.get_color(), lw=0.8, alpha=0.7)
    ax.set_xlabel("eps")
    ax.set_ylabel("max error over the run" if which == "errors" else "slip residual")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return ax
