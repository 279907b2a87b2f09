"""The model's own check of a state and its parameter values, as a run's start makes it (eps > 0, mu
positive definite, a metric positive definite at q), with the values named in the error: shared by
``simulate`` and the analyses (``linearize``, ``steady_motions``), which would otherwise work on a
model that does not exist (eps = -0.1 gave the sleigh's friction model an eigenvalue +10.6)."""

from __future__ import annotations

import re

import numpy as np

from ..errors import ModelError

__all__ = ["check_start"]


def check_start(model, t: float, y, pvec) -> None:
    """ValueError or ModelError where ``model`` cannot be evaluated at (t, y) with the parameter
    vector ``pvec``; a ModelError names the parameter values (m = -1 reads as the model's fault)."""
    try:
        model.core.check_state(float(t), np.asarray(y, dtype=float), list(map(float, pvec)))
    except ModelError as err:
        message = re.sub(r"coordinate (\d+) moves", lambda m: f"coordinate {_name(model, int(m.group(1)))} moves",
                         str(err))
        raise ModelError(f"{message} (at the parameters {dict(zip(model.param_names, map(float, pvec)))})") from None


def _name(model, index: int) -> str:
    """The name of coordinate ``index`` of ``model``'s system, or the index where it has none."""
    names = getattr(getattr(model, "system", None), "coordinate_names", None)
    return str(names[index]) if names is not None and 0 <= index < len(names) else str(index)
