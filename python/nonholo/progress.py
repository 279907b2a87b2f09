"""Progress bars (tqdm.auto where ipywidgets is installed: a widget in Jupyter, else text) for long runs and batches,
and the cancellation of runs in worker threads.

tqdm is optional: without it, or with ``enabled=False``, every bar here is a silent stand-in.

Ctrl-C reaches only the main thread (Python runs signal handlers there): a run in C++ on another
thread (a point of ``sweep`` on its thread pool) learns of it from a :class:`Cancel` that the
sweep sets. ``cancel_scope(token)`` makes ``token`` the current thread's, and ``simulate``,
``simulate_many`` and ``simulate_discrete`` pass ``current_cancel()`` to the core, which calls it
with every interrupt check (every 64 steps).
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

__all__ = ["bar", "iterate", "TimeProgress", "Cancel", "cancel_scope", "current_cancel"]

_local = threading.local()


class Cancel:
    """A cancellation flag shared by the worker threads of one sweep. Called (by the core's
    interrupt check) once set, it raises KeyboardInterrupt, which stops the run like Ctrl-C."""

    def __init__(self):
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def __call__(self) -> None:
        if self._event.is_set():
            raise KeyboardInterrupt("cancelled: the sweep running this point was interrupted")


@contextlib.contextmanager
def cancel_scope(token: Cancel | None):
    """Within the block, ``current_cancel()`` of this thread is ``token`` (the runs it starts
    stop once the token is set)."""
    previous = getattr(_local, "cancel", None)
    _local.cancel = token
    try:
        yield token
    finally:
        _local.cancel = previous


def current_cancel() -> Cancel | None:
    """The cancellation token of the current thread (None outside a sweep's worker)."""
    return getattr(_local, "cancel", None)


class _Silent:
    """The interface of a tqdm bar that shows nothing."""

    n = 0

    def update(self, n=1) -> None:
        self.n += n

    def close(self) -> None:
        pass


def tqdm_class():
    """tqdm's bar: ``tqdm.auto``'s (a widget in Jupyter) where ipywidgets is installed, else the text bar,
    which tqdm.auto falls back to only after a TqdmWarning, "IProgress not found", on every first bar of a
    kernel without ipywidgets (an outside probe's sweep); None without tqdm (it is optional)."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return None
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        from tqdm.std import tqdm as text
        return text
    from tqdm.auto import tqdm as auto
    return auto


def bar(total, desc: str, enabled: bool = True, **kwargs):
    """A tqdm bar (:func:`tqdm_class`) of ``total`` units, or a silent stand-in."""
    tqdm = tqdm_class() if enabled else None
    return _Silent() if tqdm is None else tqdm(total=total, desc=desc, **kwargs)


def iterate(iterable, total: int, desc: str, enabled: bool = True):
    """``iterable`` wrapped in a tqdm bar (:func:`tqdm_class`; unchanged when disabled or without tqdm)."""
    tqdm = tqdm_class() if enabled else None
    return iterable if tqdm is None else tqdm(iterable, total=total, desc=desc)


class TimeProgress:
    """A root function g(t, y) = 1 that never has a zero: the integrator (CVODE, or DOP853's search
    on its dense output) evaluates it after every step, which moves a bar to the time reached. The
    method, the steps and the solution are unchanged (a root function without sign changes does
    not enter the step-size control, and a watched one does not steer method="auto")."""

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

    def spec(self) -> tuple:
        """The core's event spec of the bar: watched (``EventSpec::watch``), so that it steers no
        method="auto" off DOP853, which evaluates it after every step as CVODE does."""
        return (self, 0, 0, False, True)

    def close(self) -> None:
        self.bar.close()
