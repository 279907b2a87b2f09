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

import threading
import warnings

from ..expressions.compiled import compile_tapes, hot_delay


class HotCompile:
    """Starts the build of ``core``'s tapes after :func:`~nonholo.expressions.compiled.hot_delay`
    seconds unless :meth:`cancel` came first (the run ended). Use as a context manager around
    the run."""

    def __init__(self, core):
        self._timer = None
        plan = hot_delay(core)
        if plan is None:  # nothing to compile, or no C compiler: the interpreter was not asked to go
            return
        delay, tapes = plan
        self._timer = threading.Timer(delay, self._build, args=(core, tapes))
        self._timer.daemon = True

    def __enter__(self) -> "HotCompile":
        if self._timer is not None:
            self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.cancel()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    @staticmethod
    def _build(core, tapes) -> None:
        try:
            compile_tapes(core, tapes)
        except Exception as exc:  # the run goes on interpreted, with the same results
            warnings.warn(f"compile='auto': building the model's tapes failed ({exc}); the run continued "
                          "with the interpreter", RuntimeWarning, stacklevel=2)
