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
    not wake it once each (a woken thread takes the interpreter's lock from the runs). Each entry
    belongs to a :class:`HotCompile`, whose ``cancelled`` and ``entry`` it guards with its lock."""

    def __init__(self):
        self._cv = threading.Condition(threading.Lock())
        self._heap: list = []  # [due (monotonic seconds), sequence number, function]
        self._count = itertools.count()
        self._thread = None
        self._wakes_at = math.inf  # when the thread's wait ends by itself

    def schedule(self, owner: "HotCompile", due: float, function) -> None:
        """Call ``function()`` in the scheduler's thread at ``due`` (time.monotonic) unless ``owner``
        is cancelled first."""
        with self._cv:
            if owner.cancelled:
                return
            owner.entry = entry = [due, next(self._count), function]
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="nonholo compile='auto'", daemon=True)
                self._thread.start()
            elif due < self._wakes_at:
                self._cv.notify()

    def cancel(self, owner: "HotCompile") -> None:
        """``owner``'s entry is not called (unless it was already): the heap holds live runs only."""
        with self._cv:
            owner.cancelled = True
            if owner.entry is not None and owner.entry in self._heap:
                self._heap.remove(owner.entry)
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
                except Exception as exc:  # the thread serves every later run: it must not die
                    warnings.warn(f"compile='auto': deciding whether to compile failed ({exc}); the run went on "
                                  "with the interpreter", RuntimeWarning, stacklevel=1)
                finally:
                    self._cv.acquire()


_scheduler = _Scheduler()
# a forked child has no scheduler thread (and maybe a lock held by it in the parent): a new one
os.register_at_fork(after_in_child=lambda: globals().__setitem__("_scheduler", _Scheduler()))


def pending() -> int:
    """How many runs wait to start a build (their time not come, their run not ended)."""
    return _scheduler.pending()


#: A run asks nothing of its model before this. The cost model alone would allow 4 ms (the cache's
#: fixed cost, load_cost_ns(()), over SAVED_FRACTION), but each wake of the scheduler's thread takes
#: the interpreter's lock from the running program: back-to-back 0.15 ms runs of the knife-edge chain
#: N = 4 were 10-15% slower with a wake every 4 ms, and within the noise with one every 50-100 ms. A
#: run shorter than 50 ms gives up at most a quarter of its length (the compiled tapes' saving).
_FIRST_DELAY = max(0.05, load_cost_ns(()) * 1e-9 / SAVED_FRACTION)


class HotCompile:
    """Starts the build of ``core``'s tapes after :func:`~nonholo.expressions.compiled.hot_delay`
    seconds unless :meth:`cancel` came first (the run ended). Use as a context manager around
    the run.

    Runs shorter than the delay are most runs, and must not pay for it: the delay needs the cache's
    answer (the C source, its hash, a file: a millisecond on the knife-edge chain), the earliest
    possible delay the tapes' sizes (microseconds: a short run's tenth). So a run starts with a
    fixed wait (``_FIRST_DELAY``, 50 ms), then asks in the background for
    :func:`~nonholo.expressions.compiled.hot_earliest` (the delay were the tapes cached), waits for
    the rest, asks for :func:`~nonholo.expressions.compiled.hot_delay`, and waits for the rest."""

    __slots__ = ("core", "start", "entry", "cancelled")

    def __init__(self, core):
        self.core = core
        self.start = self.entry = None
        self.cancelled = False

    def __enter__(self) -> "HotCompile":
        self.start = time.monotonic()
        _scheduler.schedule(self, self.start + _FIRST_DELAY, self._earliest)
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()

    def cancel(self) -> None:
        _scheduler.cancel(self)

    def _earliest(self) -> None:
        """In the scheduler's thread, the run still going: wait for the earliest delay."""
        due = hot_earliest(self.core)
        if due is not None:  # else nothing to compile, no compiler, or switched off
            _scheduler.schedule(self, self.start + due, self._delay)

    def _delay(self) -> None:
        """The run still going: wait for the delay, then build."""
        plan = hot_delay(self.core)
        if plan is not None:
            delay, tapes = plan
            _scheduler.schedule(self, self.start + delay, lambda: self._begin(tapes))

    def _begin(self, tapes) -> None:
        if self.cancelled:
            return
        # its own thread: the scheduler stays free for other runs while the compiler works
        threading.Thread(target=self._build, args=(self.core, tapes), name="nonholo compile", daemon=True).start()

    @staticmethod
    def _build(core, tapes) -> None:
        try:
            compile_tapes(core, tapes)
        except Exception as exc:  # the run goes on interpreted, with the same results
            warnings.warn(f"compile='auto': building the model's tapes failed ({exc}); the run continued "
                          "with the interpreter", RuntimeWarning, stacklevel=2)
