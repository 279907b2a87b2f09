"""A friction model stiffer than double precision resolves on a run: a warning, since the run itself
succeeds. BDF's Newton matrix I - h gamma J holds the slow dynamics next to the fast rates, about
mu / eps; where h |J| exceeds about 1e15 its LU no longer resolves the slow part, and the run returns
status 0 with a wrong motion (the Chaplygin sleigh over t in [0, 1], against the nonholonomic limit:
eps 1e-16 8e-8 off, 1e-18 6e-7, 1e-20 1.7e-5, 1e-22 1.6e-3 in 427,487 steps, 1e-26 13, 1e-30 5e4, its
energy from 1.6 to 4.5e10; the knife-edge chain alike). The check takes the run's mean step for h:
|J(t0, y0)|_inf |tf - t0| / n_steps above 1 / machine epsilon warns (the sleigh over [0, 1] from eps
1e-20, 6.5: 1.7e-5 off). It marks where results are lost, not every loss of accuracy before: at 1e-19
(0.53) the sleigh ends 2.7e-5 off, silently, and at 1e-18 (0.2) 6e-7. The interval alone would have warned
on long runs that are right (the sleigh at eps 1e-12 over 10^6 s: 2.8e-7 relative, as at 1e-10; the
mean step there gives 0.89), where the steps are short against the interval; at 1e-14 (48, 1e-5
relative) and 1e-16 (0.7% off) it warns."""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import SimulationWarning

__all__ = ["warn_beyond_precision"]

BEYOND = 1.0  # |J| times the mean step, in units of 1 / machine epsilon
PREFILTER = 1e-6  # the mean step over eps, in the same units, below which the rates are not evaluated


def warn_beyond_precision(result, model, t_span, y0, params: dict) -> None:
    """The warning (also in ``result.warnings``) for a friction model run over ``t_span`` from ``y0``
    whose fastest rate times its mean step leaves double precision (module docstring)."""
    if getattr(model, "kind", None) != "friction" or result.status < 0:
        return
    interval = abs(float(t_span[1]) - float(t_span[0]))
    step = interval / max(int(result.stats.get("n_steps", 0)), 1)
    eps = model.eps_at(params) if hasattr(model, "eps_at") else None
    # the fast rates are about mu / (eps m): far from the bound (mu / m below 1e6), no Jacobian is needed
    # (a dense one of the chain of 256 blades costs 24 ms, a tenth of its run)
    if isinstance(eps, (int, float)) and eps > 0 and step * np.finfo(float).eps / eps < PREFILTER:
        return
    try:
        fast = float(np.abs(model.jacobian(t_span[0], y0, params)).sum(axis=1).max())
    except (ValueError, ArithmeticError, RuntimeError):
        return  # not evaluable at the start: the run has said why
    reach = fast * step * np.finfo(float).eps
    if not reach > BEYOND:
        return
    at = f" at eps = {eps:g}" if isinstance(eps, (int, float)) else ""
    message = (f"the friction model{at} is stiffer than double precision resolves on this run: its "
               f"fastest rate |J| = {fast:.3g} times its mean step {step:.3g} exceeds 1 / machine epsilon "
               f"({1 / np.finfo(float).eps:.2g}), where BDF's Newton matrix loses the slow motion (the sleigh at "
               "eps = 1e-22 ended 1.6e-3 off its limit with status 0, at 1e-30 5e4 off): the result is "
               "unreliable. Simulate system.nonholonomic(), the limit eps -> 0, system.reduced(eps), or a "
               "larger eps")
    result.warnings.append(message)
    warnings.warn(message, SimulationWarning, stacklevel=3)
