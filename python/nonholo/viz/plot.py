"""Plotting helpers (matplotlib, imported lazily so that nonholo itself does not need it)."""

from __future__ import annotations

import numpy as np

from ..numerics import loglog_slope as loglog_fit

__all__ = ["trajectory", "states", "plan", "loglog_fit", "convergence", "eigenvalues"]


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.gca()


def _needs(value, what: str, takes: str, *attributes: str) -> None:
    """TypeError naming ``what`` and what it ``takes`` unless ``value`` has every one of ``attributes``
    (a string never passes: 'x'[name] raised 'string indices must be integers')."""
    if isinstance(value, (str, bytes)) or not all(hasattr(value, a) for a in attributes):
        raise TypeError(f"{what} must be {takes}, got {type(value).__name__}" +
                        (f" {value!r:.60}" if isinstance(value, (str, bytes)) else ""))


_RESULT = "a simulation result (nh.simulate's SimulationResult, or one indexed by state name, result['x'])"


def trajectory(result, x: str = "x", y: str = "y", ax=None, **kwargs):
    """Plot state ``y`` against state ``x`` of a SimulationResult (default: the (x, y) plane)."""
    _needs(result, "result", _RESULT, "__getitem__")
    ax = _axes(ax)
    (line,) = ax.plot(result[x], result[y], **kwargs)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    return line


def states(result, names=None, ax=None, **kwargs):
    """Plot the named states (default: all coordinates) against time."""
    _needs(result, "result", _RESULT, "__getitem__", "t", *(("model",) if not names else ()))
    ax = _axes(ax)
    names = names or result.model.system.coordinate_names
    lines = [ax.plot(result.t, result[name], label=name, **kwargs)[0] for name in names]
    ax.set_xlabel("t")
    ax.legend()
    return lines


def panels(count: int, ax, default: str) -> list:
    """``count`` panels stacked over a shared time axis in a new figure, or the one Axes ``ax`` given
    (ValueError for more than one panel: ``default`` says what the default draws)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, axes = plt.subplots(count, 1, sharex=True, squeeze=False, figsize=(7.0, 2.2 + 1.6 * count))
        return list(axes[:, 0])
    import matplotlib.axes

    if not isinstance(ax, matplotlib.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    if count > 1:
        raise ValueError(f"pass names=[...] to plot on one given Axes (the default makes {default})")
    return [ax]


def model_label(model) -> str:
    """What a model is, for display: its ``label`` (a law's friction or reduced model says which law),
    else its ``kind``, else its class name."""
    return getattr(model, "label", None) or getattr(model, "kind", None) or type(model).__name__


def contact_labels(system, name: str, count: int) -> list:
    """The legend labels of an output with one row per contact: ``name[contact]`` with the contacts'
    names where the system records them (a mechanism's), else their indices."""
    record = getattr(system, "contact_slip_rows", None)
    names = getattr(record, "names", None)
    if not names or len(names) != count:
        names = [str(c) for c in range(count)]
    return [f"{name}[{c}]" for c in names]


def result_panels(result, names=None, ax=None, *, kind: str | None = None, **kwargs):
    """:meth:`SimulationResult.plot` (see there): the states or outputs ``names`` against time, or
    the default panels (q, the velocity states, the rest); an output with one row per contact
    (``"normal_force"`` of a two-wheel cart) draws one line per contact. A failed run is marked at
    ``t_last`` and titled with its flag; a run that stored no samples (``t_eval=[]``) marks its final
    state ``y_final`` at ``t_last`` and says so; the re-splits of a frame model
    (``result.frame_switches``) are marked, where the quasi-velocities change meaning. ``kind``: what
    the title calls the model (default its label)."""
    try:
        import matplotlib  # noqa: F401 (the panels import pyplot; here the message of a missing matplotlib)
    except ImportError as exc:  # pragma: no cover - matplotlib is a test dependency
        raise ImportError('plot() needs matplotlib: pip install matplotlib (or pip install "nonholo[plot]")') from exc

    system = result.model.system
    if names is not None:
        names = [names] if isinstance(names, str) else list(names)
        values = {name: np.asarray(result[name]) for name in names}  # KeyError naming the states
        groups = [names]
    else:
        n = system.n
        nv = result.v.shape[0]
        groups = [g for g in (result.state_names[:n], result.state_names[n:n + nv], result.state_names[n + nv:]) if g]
        values = {}
    axes = panels(len(groups), ax, "one panel per group")
    empty = result.t.size == 0
    t_last = getattr(result, "t_last", None)
    t_last = float(result.t[-1]) if t_last is None and not empty else t_last
    final = getattr(result, "y_final", None) if t_last is not None else None
    for axis, group in zip(axes, groups):
        for name in group:
            y = values[name] if name in values else np.asarray(result[name])
            if y.ndim == 2:  # one row per contact
                for row, label in zip(y, contact_labels(system, name, y.shape[0])):
                    axis.plot(result.t, row, label=label, **kwargs)
            elif empty and final is not None and name in result.state_names:  # t_eval=[]: the final state only
                axis.plot([t_last], [final[result.state_names.index(name)]], "o", label=name)
            else:
                axis.plot(result.t, y, label=name, **kwargs)
        axis.legend(loc="best", fontsize=8, ncol=max(1, len(axis.lines) // 4))
        axis.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t")
    # a name is text, not matplotlib's math: "$5 and $6" lost its dollars, "$\\frac$" raised in savefig
    system_name = str(getattr(system, "name", "")).replace("$", r"\$")
    order = getattr(result.model, "order", None)  # as the notebook display: "reduced of order 2"
    kind = kind or (model_label(result.model) + (f" of order {order}" if order is not None else ""))
    title = f"{system_name}: {kind}" if system_name else kind
    switches = list(getattr(result, "frame_switches", None) or [])
    if switches:
        for axis in axes:
            for k, (ts, solved) in enumerate(switches):
                axis.axvline(ts, color="tab:purple", ls="--", lw=0.8,
                             label="frame re-split: quasi-velocities change meaning" if k == 0 else None)
            axis.legend(loc="best", fontsize=8, ncol=max(1, len(axis.lines) // 4))
        title += (f"\nframe re-split {len(switches)} time{'s' if len(switches) > 1 else ''} (dashed; first at t = "
                  f"{switches[0][0]:.4g}): the quasi-velocities change meaning there")
    if empty:
        title += "\nno samples stored (t_eval=[])" + (
            f": the final state at t = {t_last:g} is in y_final (dots)" if final is not None else "")
    if not result.success:
        flag = getattr(result, "flag_name", "") or "failure"
        title += f"\n{flag}" + (f" at t = {t_last:g}" if t_last is not None else "")
        for axis in axes if t_last is not None else ():
            axis.axvline(t_last, color="0.3", ls=":", lw=1)
    axes[0].set_title(title, fontsize=10, color="black" if result.success else "#b00000")
    return axes if names is None else axes[0]


def convergence(study, ax=None, which: str = "errors", reference: bool = True):
    """Log-log plot of a :class:`~nonholo.studies.ConvergenceStudy`: error against eps for each
    order K, with the fitted slopes in the legend and dashed reference lines of slope K + 1.

    ``which`` is ``"errors"`` (reduced model vs friction model) or ``"slips"`` (residual of the
    truncated slow manifold along the friction model's trajectory).
    """
    if not isinstance(which, str) or which not in ("errors", "slips"):  # anything else drew the slips
        raise ValueError(f"which must be 'errors' or 'slips', got {which!r:.60}")
    _needs(study, "study", "a ConvergenceStudy (from nh.studies.convergence)", "errors", "slip_residuals", "orders",
           "eps")
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
    the first parameter value, broken where a mode turns from real to complex between two values);
    right, their real parts against the parameter, with the
    imaginary parts dashed and the critical values (:func:`~nonholo.critical_values`, pass them
    as ``critical``) marked. Structural zero modes are left out unless ``structural``.
    Returns the two axes.
    """
    import matplotlib.pyplot as plt

    _needs(path, "path", "an EigenvaluePath (from nh.eigenvalue_path)", "eigenvalues", "structural", "values",
           "parameter")
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 4))
    locus, real = axes
    cols = np.arange(path.eigenvalues.shape[1]) if structural else np.flatnonzero(~path.structural)
    for j in cols:
        lam = path.eigenvalues[:, j]
        # no chord across a collision on the real axis: a real pair that turns complex between two grid values
        # went from (0.27, 0) straight to (0, 0.25), a real part it never has (the rolling disc's modes)
        real_valued = np.abs(lam.imag) <= 1e-12 * (1.0 + np.abs(lam))
        cut = np.flatnonzero(real_valued[1:] != real_valued[:-1]) + 1
        shown = np.insert(lam.astype(complex), cut, complex(np.nan, np.nan))
        (line,) = locus.plot(shown.real, shown.imag, lw=1.2)
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


def plan(solution, names=None, ax=None, **kwargs):
    """:meth:`OptimalControlSolution.plot`: the states and controls ``names`` of a plan against time on
    one set of axes, or two panels (the states, the controls), titled with the objective, the duration
    and the verdict (a failed plan says so, with its message). Drawn at every collocation point
    (``sol.t_points``: the nodes and, for Hermite-Simpson, the midpoints), where the plan's variables are;
    ``sol.u`` holds the nodes' values only. Returns the Axes, or the list of panels."""
    _needs(solution, "solution", "an optimal control solution (problem.solve()'s OptimalControlSolution)",
           "t", "y", "u", "state_names", "control_names")
    # every collocation point, the intervals' inner ones too (Hermite-Simpson's midpoints): a control singular
    # in the cost alternates between node and midpoint, and its node values alone drew a control the plan never
    # applies (an outside probe's minimum-time car: kappa -0.61 on its straight, where the plan's is 0)
    at_points = getattr(solution, "t_points", None) is not None
    points = {} if not at_points else {
        **{name: solution.y_points[i] for i, name in enumerate(solution.state_names)},
        **{name: solution.u_points[i] for i, name in enumerate(solution.control_names)}}
    if names is not None:
        names = [names] if isinstance(names, str) else list(names)
        groups = [names]
    else:
        groups = [g for g in (list(solution.state_names), list(solution.control_names)) if g]
    # at the points where the plan has them, else at the nodes (solution[name]: KeyError naming states and controls)
    curves = {name: (solution.t_points, points[name]) if name in points else (solution.t, np.asarray(solution[name]))
              for g in groups for name in g}
    axes = panels(len(groups), ax, "one panel for the states and one for the controls")
    for a, group in zip(axes, groups):
        for name in group:
            a.plot(*curves[name], label=name, **kwargs)
        a.legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("t")
    verdict = " - a success" if solution.success else f" - not a success: {str(solution.message)[:80]}"
    axes[0].set_title(f"plan: objective {solution.objective:.6g}, t_final {solution.t_final:.6g}{verdict}",
                      fontsize="medium")
    return axes[0] if names is not None else axes
