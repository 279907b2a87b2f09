"""Dense output: the solution between output times, from the steps' own interpolants (CVODE's, DOP853's)."""

from __future__ import annotations

from math import factorial

import numpy as np

__all__ = ["DenseSolution"]


class DenseSolution:
    """y(t) anywhere on the integrated interval, like ``solve_ivp``'s ``sol``.

    On each step [t_n - h_n, t_n] CVODE represents the solution by its Nordsieck history: the
    polynomial y(t) = sum_{k<=q} D_k (t - t_n)^k / k! with D_k the k-th derivative at t_n and q
    the order of the step; DOP853's interpolant of degree 7 is stored the same way (q = 7). These
    are stored for every step (``simulate(..., dense_output=True)``; a run that switched keeps both
    kinds) and evaluated here; the values are the ones ``CVodeGetDky`` (or DOP853's interpolant)
    would give, i.e. of the same accuracy as the steps themselves.

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
        offsets = np.concatenate([[0], np.cumsum((self.order + 1) * n_states)])
        # the Taylor coefficients D_k / k! of every step, (steps, q_max + 1, n_states), zero above a
        # step's order (Horner then gives the same values): gathered per order, without a Python loop
        # over the steps (36,000 of them took 0.47 s, more than the run)
        q_max = int(self.order.max(initial=0))
        self._taylor = np.zeros((len(self.t_end), q_max + 1, n_states))
        inverse = 1.0 / np.array([factorial(k) for k in range(q_max + 1)])
        for q in np.unique(self.order):
            steps = np.flatnonzero(self.order == q)
            block = flat[offsets[steps][:, None] + np.arange((q + 1) * n_states)]
            self._taylor[steps, : q + 1] = block.reshape(steps.size, q + 1, n_states) * inverse[: q + 1, None]
        if len(self.t_end):
            t0 = float(self.t_end[0] - self.h[0])
            end = float(self.t_end[-1]) if t_last is None else float(t_last)
        else:
            t0 = end = 0.0 if t_last is None else float(t_last)
        self.t_min, self.t_max = sorted((t0, end))
        self._forward = len(self.t_end) < 2 or self.t_end[-1] > self.t_end[0]
        self.n_states = n_states

    def _segments(self, times: np.ndarray) -> np.ndarray:
        if self._forward:
            i = np.searchsorted(self.t_end, times, side="left")
        else:
            i = np.searchsorted(-self.t_end, -times, side="left")
        return np.minimum(i, len(self.t_end) - 1)

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
        i = self._segments(times)
        dt = (times - self.t_end[i])[:, None]
        c = self._taylor[i]  # (n_t, q_max + 1, n_states)
        acc = c[:, -1].copy()
        for k in range(c.shape[1] - 2, -1, -1):  # Horner, every time at once
            acc = acc * dt + c[:, k]
        out = acc.T
        return out[:, 0] if np.ndim(t) == 0 else out

    def __repr__(self) -> str:
        return f"<DenseSolution on [{self.t_min:g}, {self.t_max:g}], {len(self.t_end)} steps>"
