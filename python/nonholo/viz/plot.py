"""Plotting helpers (matplotlib, imported lazily so that nonholo itself does not need it)."""

from __future__ import annotations

import numpy as np

from ..numerics import loglog_slope as loglog_fit

__all__ = ["trajectory", "states", "loglog_fit", "convergence", "eigenvalues"]


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


def eigenvalues(path, axes=None, critical=None, structural: bool = False):
    """Root locus and real parts of an :class:`~nonholo.EigenvaluePath`, as in the bicycle
    literature: left, the tracked eigenvalues in the complex plane (one line per mode, a dot at
    the first parameter value); right, their real parts against the parameter, with the
    imaginary parts dashed and the critical values (:func:`~nonholo.critical_values`, pass them
    as ``critical``) marked. Structural zero modes are left out unless ``structural``.
    Returns the two axes.
    """
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 4))
    locus, real = axes
    cols = np.arange(path.eigenvalues.shape[1]) if structural else np.flatnonzero(~path.structural)
    for j in cols:
        lam = path.eigenvalues[:, j]
        (line,) = locus.plot(lam.real, lam.imag, lw=1.2)
        locus.plot(lam.real[0], lam.imag[0], "o", ms=3, color=line.get_color())
        real.plot(path.values, lam.real, color=line.get_color(), lw=1.2)
        if np.abs(lam.imag).max() > 0:
            real.plot(path.values, np.abs(lam.imag), "--", color=line.get_color(), lw=0.8, alpha=0.6)
    for ax in axes:
        ax.axhline(0.0, color="k", lw=0.5)
        ax.grid(True, alpha=0.3)
    locus.axvline(0.0, color="k", lw=0.5)
    locus.set_xlabel("real part")
    locus.set_ylabel("imaginary part")
    locus.set_title("root locus")
    real.set_xlabel(path.parameter)
    real.set_ylabel("real part (solid), |imaginary part| (dashed)")
    for c in critical or []:
        real.axvline(c.value, color="0.4", lw=0.8, ls=":")
        real.annotate(f"{c.value:.6g}", (c.value, 0.0), textcoords="offset points", xytext=(3, 5), fontsize=8)
    return axes
