"""``compile="auto"`` in a single run (:func:`nonholo.simulate`): compile the model's tapes in the
background once the run has lasted long enough for the build to pay, and swap them in.

Only tapes whose compiled values are the interpreter's bit for bit (``core.rhs_tapes``, never the
fused right-hand side, which agrees to rounding only) are attached, so a result never depends on
when the build finished: the run goes on with the same numbers, faster. The C++ tape switches to
a kernel with one atomic store (tape.hpp, Tape::attach), safe while the run evaluates it. A build
still going when the run ends finishes in the background (the next run of the model, or of any
model of the system, loads it); one not started yet is cancelled.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import threading
import time
import warnings

from ..expressions.compiled import SAVED_FRACTION, compile_tapes, hot_delay, hot_earliest, load_cost_ns


class _Scheduler:
    """One daemon thread that calls functions at given times, shared by all runs: a run that ends
    first (most runs) costs a heap entry, not a thread (a timer thread per run cost more than a
    short run itself: ~1 ms on the knife-edge chain N = 2, five times its integration). The thread
    is woken only for an entry due before the time it sleeps until, so back-to-back short runs do
    not wake it once each (a woken thread takes the interpreter's lock from the runs)."""

    def __init__(self):
        self._cv = threading.Condition()
        self._heap: list = []  # [due (monotonic seconds), sequence number, function]
        self._count = itertools.count()
        self._thread = None
        self._wakes_at = math.inf  # when the thread's wait ends by itself

    def schedule(self, delay: float, function) -> list:
        """Call ``function()`` in the scheduler's thread after ``delay`` seconds; returns the entry
        for :meth:`cancel`."""
        entry = [time.monotonic() + delay, next(self._count), function]
        with self._cv:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="nonholo compile='auto'", daemon=True)
                self._thread.start()
            elif entry[0] < self._wakes_at:
                self._cv.notify()
        return entry

    def cancel(self, entry: list) -> None:
        """Forget ``entry`` unless it was called already (the heap holds the runs going on only)."""
        with self._cv:
            if entry in self._heap:
                self._heap.remove(entry)
                heapq.heapify(self._heap)

    def pending(self) -> int:
        """The entries not called yet."""
        with self._cv:
            return len(self._heap)

    def _loop(self) -> None:
        with self._cv:
            while True:
                now = time.monotonic()
                if not self._heap or self._heap[0][0] > now:
                    self._wakes_at = self._heap[0][0] if self._heap else math.inf
                    self._cv.wait(None if not self._heap else self._wakes_at - now)
                    continue
                _, _, function = heapq.heappop(self._heap)
                self._wakes_at = -math.inf  # busy: no need to notify
                self._cv.release()
                try:
                    function()
                finally:
                    self._cv.acquire()


_scheduler = _Scheduler()
# a forked child has no scheduler thread (and maybe a lock held by it in the parent): a new one
os.register_at_fork(after_in_child=lambda: globals().__setitem__("_scheduler", _Scheduler()))


def pending() -> int:
    """How many runs wait to start a build (their time not come, their run not ended)."""
    return _scheduler.pending()


#: no tapes load faster than this (the cache's fixed cost): before it, a run asks nothing of its model
_FIRST_DELAY = load_cost_ns(()) * 1e-9 / SAVED_FRACTION


class HotCompile:
    """Starts the build of ``core``'s tapes after :func:`~nonholo.expressions.compiled.hot_delay`
    seconds unless :meth:`cancel` came first (the run ended). Use as a context manager around
    the run.

    Runs shorter than the delay are most runs, and must not pay for it: the delay needs the cache's
    answer (the C source, its hash, a file: a millisecond on the knife-edge chain), the earliest
    possible delay the tapes' sizes (microseconds: a short run's tenth). So a run starts with a
    fixed wait, the shortest any model has, then asks in the background for
    :func:`~nonholo.expressions.compiled.hot_earliest` (the delay were the tapes cached), waits for
    the rest, asks for :func:`~nonholo.expressions.compiled.hot_delay`, and waits for the rest."""

    def __init__(self, core):
        self._core = core
        self._lock = threading.Lock()
        self._entry = None
        self._start = None
        self._cancelled = False

    def __enter__(self) -> "HotCompile":
        self._start = time.monotonic()
        self._entry = _scheduler.schedule(_FIRST_DELAY, lambda: self._advance(0, None))
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            _scheduler.cancel(self._entry)

    def _advance(self, stage: int, tapes) -> None:
        """In the scheduler's thread, the run still going: stage 0 sets the wait for the earliest
        delay, stage 1 the wait for the delay, stage 2 starts the build."""
        if stage == 2:
            self._begin(tapes)
            return
        if stage == 0:
            due = hot_earliest(self._core)
        else:
            plan = hot_delay(self._core)
            due, tapes = plan if plan is not None else (None, None)
        if due is None:  # nothing to compile, no compiler, or switched off
            return
        with self._lock:
            if self._cancelled:
                return
            left = self._start + due - time.monotonic()
            if left > 0:
                self._entry = _scheduler.schedule(left, lambda: self._advance(stage + 1, tapes))
                return
        self._advance(stage + 1, tapes)

    def _begin(self, tapes) -> None:
        with self._lock:
            if self._cancelled:
                return
        # its own thread: the scheduler stays free for other runs while the compiler works
        threading.Thread(target=self._build, args=(self._core, tapes), name="nonholo compile", daemon=True).start()

    @staticmethod
    def _build(core, tapes) -> None:
        try:
            compile_tapes(core, tapes)
        except Exception as exc:  # the run goes on interpreted, with the same results
            warnings.warn(f"compile='auto': building the model's tapes failed ({exc}); the run continued "
                          "with the interpreter", RuntimeWarning, stacklevel=2)
