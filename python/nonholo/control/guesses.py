"""Initial guesses given as arrays: ``solve(guess=(t, y, u))`` or a dict with keys ``"t"``,
``"y"``, ``"u"``, on any time grid, interpolated onto the collocation points."""

from __future__ import annotations

from typing import Mapping

import numpy as np

__all__ = ["array_guess", "is_array_guess", "is_rest", "rest_guess", "REST"]

REST = ("rest",)  # the start of rest_guess, as the multistart names its starts

KEYS = ("t", "y", "u")


def is_array_guess(guess) -> bool:
    """A tuple/list (t, y[, u]) or a mapping with keys among "t", "y", "u"."""
    if isinstance(guess, Mapping):
        return True
    return isinstance(guess, (tuple, list)) and len(guess) in (2, 3)


def _array(value, what: str) -> np.ndarray:
    try:
        out = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"guess[{what!r}] must be an array of numbers, got {type(value).__name__}") from err
    if not np.all(np.isfinite(out)):
        raise ValueError(f"guess[{what!r}] must hold finite numbers")
    return out


def array_guess(problem, guess, tau: np.ndarray):
    """(Y, U, T) at the normalised times ``tau`` from arrays: ``t`` (increasing, two samples or
    more), ``y`` (n_states, len(t)), ``u`` (n_controls, len(t); optional: fitted to the
    interpolated states' velocity as :meth:`OptimalControlProblem.default_guess` does). The
    samples are interpolated linearly on [t[0], t[-1]], which is mapped onto the problem's
    duration: ``t[-1] - t[0]`` when it is free (clipped to its bounds), the fixed ``t_final``
    otherwise. A 1-d ``y`` or ``u`` is taken as the only row of a one-state or one-control
    problem."""
    if isinstance(guess, Mapping):
        unknown = set(map(str, guess)) - set(KEYS)
        if unknown:
            raise ValueError(f"guess dict has keys {sorted(unknown)}; expected 't', 'y' and optionally 'u'")
        if "t" not in guess or "y" not in guess:
            raise ValueError("guess dict needs keys 't' and 'y' (and optionally 'u')")
        t, y, u = guess["t"], guess["y"], guess.get("u")
    else:
        t, y, u = (*guess, None) if len(guess) == 2 else guess
    t = _array(t, "t")
    if t.ndim != 1 or t.size < 2:
        raise ValueError(f"guess['t'] must be one-dimensional with two samples or more, got shape {t.shape}")
    if not np.all(np.diff(t) > 0):
        raise ValueError("guess['t'] must be strictly increasing")
    y = _rows(y, "y", "state", problem.state_names, t.size)
    span = float(t[-1] - t[0])
    if problem.free_time:
        T = float(np.clip(span, *problem.t_bounds))
    else:
        T = float(problem.t_final)
    ts = t[0] + tau * span
    Y = np.array([np.interp(ts, t, row) for row in y])
    if u is None:
        Ydot = np.array([np.interp(ts, t, np.gradient(row, t)) for row in y]) * span / T
        return Y, problem._fit_controls(Y, Ydot), T
    u = _rows(u, "u", "control", problem.control_names, t.size)
    U = np.array([np.interp(ts, t, row) for row in u])
    return Y, U, T


def is_rest(guess) -> bool:
    """Whether ``guess`` names the start at rest: REST, or (REST[0], duration)."""
    return isinstance(guess, tuple) and len(guess) in (1, 2) and isinstance(guess[0], str) and guess[0] == REST[0]


def rest_guess(problem, tau: np.ndarray, duration: float | None = None):
    """The start at rest: every state held at its initial value (a free one at the line's, see
    :meth:`OptimalControlProblem.default_guess`), the controls zero (clipped to their bounds) and
    the line's duration, as opty's and CasADi's users start from zeros. The motion is left to IPOPT:
    a torque-limited pendulum swung up to its top has no motion near the straight line (holding it
    halfway needs the torque m g d, beyond the bound) and swings from rest. Returns (Y, U, T) as
    :meth:`~OptimalControlProblem.default_guess`; ``duration`` (a free one) in place of the line's."""
    Y, _, T = problem.default_guess(tau)
    if duration is not None and problem.free_time:
        T = float(np.clip(duration, *problem.t_bounds))
    Y = np.repeat(Y[:, :1], tau.size, axis=1)
    lo, hi = problem._block_bounds()
    n, m = len(problem.states), len(problem.controls)
    U = np.clip(np.zeros((m, tau.size)), lo[n:n + m, None], hi[n:n + m, None])
    return Y, U, T


def _rows(x, key: str, what: str, names: list, samples: int) -> np.ndarray:
    """guess[key] as an array of one row per name and one column per time (a single row may be flat)."""
    x = _array(x, key)
    if x.ndim == 1 and len(names) == 1:
        x = x[None, :]
    if x.shape != (len(names), samples):
        raise ValueError(f"guess[{key!r}] has shape {x.shape}, expected ({len(names)}, {samples}): one row per {what} "
                         f"{names}, one column per time in guess['t']")
    return x
