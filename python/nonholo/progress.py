"""Progress bars (tqdm.auto: a widget in Jupyter, text in a terminal) for long runs and batches.

tqdm is optional: without it, or with ``enabled=False``, every bar here is a silent stand-in.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bar", "iterate", "TimeProgress"]


class _Silent:
    """The interface of a tqdm bar that shows nothing."""

    n = 0

    def update(self, n=1) -> None:
        self.n += n

    def close(self) -> None:
        pass


def bar(total, desc: str, enabled: bool = True, **kwargs):
    """A ``tqdm.auto.tqdm`` bar of ``total`` units, or a silent stand-in."""
    if not enabled:
        return _Silent()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is optional
        return _Silent()
    return tqdm(total=total, desc=desc, **kwargs)


def iterate(iterable, total: int, desc: str, enabled: bool = True):
    """``iterable`` wrapped in a ``tqdm.auto.tqdm`` bar (unchanged when disabled or without tqdm)."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:  # tqdm is optional
        return iterable
    return tqdm(iterable, total=total, desc=desc)


class TimeProgress:
    """A root function g(t, y) = 1 that never has a zero: CVODE evaluates it after every step,
    which moves a bar to the time reached. The steps and the solution are unchanged (a root
    function without sign changes does not enter the step-size control)."""

    terminal = False
    direction = 0

    def __init__(self, t0: float, tf: float, desc: str = "simulate"):
        self.t0, self.span = float(t0), abs(float(tf) - float(t0))
        self.bar = bar(self.span, desc, bar_format="{l_bar}{bar}| {n:.4g}/{total:.4g} of t [{elapsed}<{remaining}]")
        self._shown = 0.0

    def __call__(self, t, y) -> float:
        done = min(abs(float(t) - self.t0), self.span)
        if done > self._shown and np.isfinite(done):
            self.bar.update(done - self._shown)
            self._shown = done
        return 1.0

    def close(self) -> None:
        self.bar.close()
