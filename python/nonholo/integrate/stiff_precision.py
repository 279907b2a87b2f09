"""A friction model stiffer than double precision resolves over a run: a warning, since the run itself
succeeds. BDF's Newton matrix I - h gamma J holds the slow dynamics next to the fast rates, about
mu / eps; where h |J| exceeds about 1e15 its LU no longer resolves the slow part, and the run returns
status 0 with a wrong motion (the Chaplygin sleigh over t in [0, 1], against the nonholonomic limit:
eps 1e-16 8e-8 off, 1e-18 6e-7, 1e-20 1.7e-5, 1e-22 1.6e-3 in 427,487 steps, 1e-26 13, 1e-30 5e4, its
energy from 1.6 to 4.5e10; the knife-edge chain alike). The step is not known before the run, so the
check bounds it by the interval: |J(t0, y0)|_inf |tf - t0| machine-eps above BEYOND warns (the sleigh
from eps 5e-18 over a unit interval)."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import SimulationWarning

__all__ = ["warn_beyond_precision"]

BEYOND = 100.0


def warn_beyond_precision(result, model, t_span, y0, params: dict) -> None:
    """The warning (also in ``result.warnings``) for a friction model run over ``t_span`` from ``y0``
    whose fastest rate times the interval leaves double precision (module docstring)."""
    if getattr(model, "kind", None) != "friction" or result.status < 0:
        return
    interval = abs(float(t_span[1]) - float(t_span[0]))
    try:
        fast = float(np.abs(model.jacobian(t_span[0], y0, params)).sum(axis=1).max())
    except (ValueError, ArithmeticError, RuntimeError):
        return  # not evaluable at the start: the run has said why
    reach = fast * interval * np.finfo(float).eps
    if not reach > BEYOND:
        return
    eps = params.get("eps", getattr(model, "eps", float("nan")))
    message = (f"the friction model at eps = {eps:g} is stiffer than double precision resolves over this run: its "
               f"fastest rate |J| = {fast:.3g} times the interval {interval:.3g} exceeds {BEYOND:g} / machine "
               f"epsilon ({BEYOND / np.finfo(float).eps:.2g}), where BDF's Newton matrix loses the slow motion "
               "(the sleigh at eps = 1e-22 ended 1.6e-3 off its limit with status 0, at 1e-30 5e4 off): the result "
               "is unreliable. Simulate system.nonholonomic(), the limit eps -> 0, system.reduced(eps), or a "
               "larger eps")
    result.warnings.append(message)
    warnings.warn(message, SimulationWarning, stacklevel=3)
