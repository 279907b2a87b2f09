"""Dense output: the solution between output times, from CVODE's own interpolants."""

from __future__ import annotations

from math import factorial

import numpy as np

__all__ = ["DenseSolution"]


class DenseSolution:
    """y(t) anywhere on the integrated interval, like ``solve_ivp``'s ``sol``.

    On each step [t_n - h_n, t_n] CVODE represents the solution by its Nordsieck history: the
    polynomial y(t) = sum_{k<=q} D_k (t - t_n)^k / k! with D_k the k-th derivative at t_n and q
    the order of the step. These are stored for every step (``simulate(..., dense_output=True)``)
    and evaluated here; the values are the ones ``CVodeGetDky`` would give, i.e. of the same
    accuracy as the steps themselves.

    Calling with a scalar t returns shape (n_states,); with an array of times, (n_states, n_t).
    """

    def __init__(self, raw: dict, n_states: int, t_last: float | None = None):
        """``raw``: the steps' Nordsieck histories; the solution is defined from the run's start, the
        first step's t_n - h_n (not the first stored time: ``t_eval`` may start later, or be empty),
        to ``t_last`` (where the run ended: a terminal event inside its last step; default the last
        step's end)."""
        self.t_end = np.asarray(raw["t_end"], dtype=float)
        self.h = np.asarray(raw["h"], dtype=float)
        self.order = np.asarray(raw["order"], dtype=int)
        flat = np.asarray(raw["derivatives"], dtype=float)
        sizes = (self.order + 1) * n_states
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        self._coefficients = [
            flat[offsets[i]:offsets[i + 1]].reshape(self.order[i] + 1, n_states)
            / np.array([factorial(k) for k in range(self.order[i] + 1)])[:, None]
            for i in range(len(self.t_end))
        ]
        if len(self.t_end):
            t0 = float(self.t_end[0] - self.h[0])
            end = float(self.t_end[-1]) if t_last is None else float(t_last)
        else:
            t0 = end = 0.0 if t_last is None else float(t_last)
        self.t_min, self.t_max = sorted((t0, end))
        self._forward = len(self.t_end) < 2 or self.t_end[-1] > self.t_end[0]
        self.n_states = n_states

    def _segment(self, t: float) -> int:
        if self._forward:
            i = int(np.searchsorted(self.t_end, t, side="left"))
        else:
            i = int(np.searchsorted(-self.t_end, -t, side="left"))
        return min(i, len(self.t_end) - 1)

    def __call__(self, t):
        times = np.atleast_1d(np.asarray(t, dtype=float))
        if times.ndim != 1:
            raise ValueError(f"t must be a time or a 1-d array of times (as SciPy's OdeSolution), got shape "
                             f"{np.shape(t)}")
        span = self.t_max - self.t_min
        if not np.all(np.isfinite(times)):
            raise ValueError(f"t must be finite times in [{self.t_min}, {self.t_max}], got {t!r}")
        if np.any((times < self.t_min - 1e-12 * span) | (times > self.t_max + 1e-12 * span)):
            raise ValueError(f"dense output is defined on [{self.t_min}, {self.t_max}]")
        out = np.empty((self.n_states, times.size))
        for j, tj in enumerate(times):
            i = self._segment(tj)
            c = self._coefficients[i]
            dt = tj - self.t_end[i]
            acc = c[-1].copy()
            for k in range(len(c) - 2, -1, -1):  # Horner
                acc = acc * dt + c[k]
            out[:, j] = acc
        return out[:, 0] if np.ndim(t) == 0 else out

    def __repr__(self) -> str:
        return f"<DenseSolution on [{self.t_min:g}, {self.t_max:g}], {len(self.t_end)} steps>"
