"""The warning for a run whose times lie so far from t = 0 that CVODE's steps lose the run's accuracy.

CVODE advances the state by its step h and the time by t + h rounded to the doubles near t, which
lie ``np.spacing(t)`` apart: 2.4e-7 near a Unix time (t0 = 1.7e9), 1.2e-4 near t0 = 1e12. Each step
then moves the state by up to half a spacing times its rate more than its time, and the errors add
up: an outside probe's sleigh over (t0, t0 + 2) at rtol 1e-8 ended 1.2e-8 off its reference from
t0 = 0, 4.7e-6 (Adams) and 8.6e-6 (BDF) from t0 = 1.7e9, 1.7e-2 from 1e12, each with status 0.
DOP853 takes the step as the time holds it, h = (t + h) - t (as SciPy's solvers do), and is exact
there. The run warns where its CVODE steps times the spacing exceed rtol times its span and the spacing
is FAR times that of the span itself (a run from 0 rounds its times alike, and a shift gains nothing)."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import SimulationWarning

__all__ = ["warn_time_resolution", "far_spacing", "FAR"]

FAR = 1024.0  # the times' spacing over the span's, above which the offset of t_span from 0 is what rounds


def far_spacing(t0: float, tf: float) -> float | None:
    """The spacing of the doubles at the run's times where it is over FAR times that of its span (the offset
    of t_span from 0, not the span, is what rounds them; a run from 0 rounds alike, and a shift gains
    nothing); None elsewhere."""
    spacing = float(np.spacing(max(abs(t0), abs(tf))))
    return spacing if spacing > FAR * float(np.spacing(abs(tf - t0))) else None


def warn_time_resolution(result, t_span, rtol: float) -> None:
    """The warning (also in ``result.warnings``) for a run over ``t_span`` whose CVODE steps (Adams, BDF,
    auto's BDF phase) rounded their times beyond ``rtol`` (module docstring)."""
    method = str(getattr(result, "method", ""))
    if "bdf" not in method and "adams" not in method:
        return
    t0, tf = (float(t) for t in t_span)
    spacing = far_spacing(t0, tf)
    steps = int(result.stats.get("n_steps", 0))
    span = abs(tf - t0)
    if spacing is None or not steps * spacing > rtol * span:
        return
    message = (f"the times of this run lie far from t = 0 (t_span ({t0:.17g}, {tf:.17g})): doubles there are "
               f"{spacing:.2g} apart, and each of CVODE's {steps} steps moved the state by up to half of that times "
               f"its rate more than its time, beyond rtol = {rtol:g} of the span {span:g}: the result may be off by "
               f"that much. Where the model does not depend on t, simulate over (0, {span:g}) and add {t0:.17g} to "
               "the times, or use method='dop853'")
    result.warnings.append(message)
    warnings.warn(message, SimulationWarning, stacklevel=3)
