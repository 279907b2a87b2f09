"""The account of one :meth:`~nonholo.OptimalControlProblem.solve`: its wall-clock budget
(``max_wall_time``) and the totals of the IPOPT calls it made.

The default start solves many NLPs (the starts on a coarse mesh, the full mesh from the best ones,
the bumped starts where those fail, the lifts of the final headings, the rounds of ``refine``).
``max_wall_time`` bounds them all together, from the call of ``solve`` on: each IPOPT call is given
the time that remains, and once the budget is spent no further call starts. IPOPT 3.11 measures its
limit (``max_cpu_time``) in the process's user CPU time, which lags the wall clock on a loaded
machine (half of it where another process shares the core): the time that remains is converted at
the rate the solve has had CPU time so far (:meth:`SolveTally.ipopt_limit`). IPOPT checks it once
per iteration, so a call may overrun by its last iteration. A solve still returns a plan on the
requested mesh: where none was computed, the start (the best coarse optimum, or the first start)
with no iteration of IPOPT (``max_iter`` 0), and a message saying that it was not solved. Before,
the limit applied to each call: 0.2 s on parking with two trailers at 300 nodes took 5.7 s over 24
calls.
"""

from __future__ import annotations

import math
import os
import resource
import time
from contextlib import contextmanager

__all__ = ["SolveTally", "NOT_STARTED", "TALLY_KEYS"]

#: The message of a plan whose solve was not started because the budget was spent.
NOT_STARTED = "not solved: max_wall_time was spent before this plan's solve started (the plan is its start)"
#: The keys :meth:`SolveTally.finish` adds to ``sol.stats``.
TALLY_KEYS = ("ipopt_calls", "iterations_total", "time_ipopt_total", "time_total", "calls_not_started")


class SolveTally:
    """The budget and totals of one solve, started when it is made. ``limit``: ``max_wall_time``
    (seconds) or None, checked by the solve (:func:`~nonholo.control.checks.solve_numbers`)
    before any other use."""

    def __init__(self, limit=None):
        self.started = time.perf_counter()
        self.cpu_started = _user_time()
        self.limit = limit
        self.calls = 0  # IPOPT calls that iterated (not those of a plan not started)
        self.iterations = 0
        self.time_ipopt = 0.0
        self.not_started = 0
        self.stopped = 0  # calls IPOPT stopped at the time it was given
        self.cpu_cap = None  # the process's user CPU time at which a capped part ends (:meth:`capped`)
        self.best = None  # the successful plan of least objective so far, on the mesh it was solved on

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float:
        """Seconds left of the budget (inf without one)."""
        if self.limit is None:
            return math.inf
        return float(self.limit) - self.elapsed()

    def spent(self) -> bool:
        return self.remaining() <= 0.0 or (self.cpu_cap is not None and _user_time() >= self.cpu_cap)

    def may_start(self) -> bool:
        """Whether a further IPOPT call may start: the budget is not spent, or no call ran yet
        (the first always does, with what remains)."""
        return self.calls == 0 or not self.spent()

    def cpu_rate(self) -> float:
        """The user CPU seconds per wall-clock second the process has had since the solve started
        (1 before 10 ms have passed; within [0.05, the number of CPUs])."""
        wall = self.elapsed()
        if wall < 0.01:
            return 1.0
        return min(max((_user_time() - self.cpu_started) / wall, 0.05), float(os.cpu_count() or 1))

    def ipopt_limit(self) -> float:
        """The time limit of the next IPOPT call: 0 (none) without a budget, else what remains in
        IPOPT's CPU time (:meth:`cpu_rate`; at least a millisecond: IPOPT reads 0 as no limit), and within
        a capped part what remains of its CPU time."""
        limits = []
        if self.limit is not None and math.isfinite(float(self.limit)):
            limits.append(max(self.remaining() * self.cpu_rate(), 1e-3))
        if self.cpu_cap is not None:
            limits.append(max(self.cpu_cap - _user_time(), 1e-3))
        return min(limits, default=0.0)

    @contextmanager
    def capped(self, cpu_seconds: float):
        """Within: at most ``cpu_seconds`` more of the process's CPU time from now (an optional part of the
        solve, the bumped starts off a saddle, :func:`~nonholo.control.multistart.off_the_saddle`), and
        what remains of max_wall_time; the calls this cap stops or does not start are not counted as cut
        by max_wall_time. CPU time, not the wall clock: the part gets the same work on a loaded machine
        (a 1 s wall-clock cap at load 10 cut the bumps of a cost unbounded below before they diverged, and
        the saddle was left a success)."""
        saved, stopped, not_started = self.cpu_cap, self.stopped, self.not_started
        caller_binds = self.limit is not None and self.remaining() * self.cpu_rate() <= float(cpu_seconds)
        cap = _user_time() + float(cpu_seconds)
        self.cpu_cap = cap if saved is None else min(saved, cap)
        try:
            yield
        finally:
            if not caller_binds:  # what the cap stopped is not max_wall_time's doing
                self.stopped, self.not_started = stopped, not_started
            self.cpu_cap = saved

    def record(self, sol, started: bool = True) -> None:
        """Count the IPOPT call that gave ``sol`` (or, ``started`` False, a plan not started)."""
        if not started:
            self.not_started += 1
            return
        self.calls += 1
        if sol.success and (self.best is None or sol.objective < self.best.objective):
            self.best = sol  # what Ctrl-C hands over (exc.partial)
        self.iterations += int(sol.stats["iterations"])
        self.time_ipopt += float(sol.stats["time_ipopt"])
        for iterations, seconds in getattr(sol, "_earlier", ()):  # an IPOPT call retried within the solve
            self.calls, self.iterations, self.time_ipopt = self.calls + 1, self.iterations + iterations, \
                self.time_ipopt + seconds
        if self.limit is not None and sol.message.startswith("Maximum CPU time exceeded"):
            self.stopped += 1

    def finish(self, sol):
        """Put the totals in ``sol.stats`` and, where the budget cut the solve short, say so in its
        message; returns ``sol``."""
        sol.stats.update(ipopt_calls=self.calls, iterations_total=self.iterations, time_ipopt_total=self.time_ipopt,
                         time_total=self.elapsed(), calls_not_started=self.not_started)
        if self.limit is not None and (self.not_started or self.stopped):
            cut = []
            if self.stopped:
                cut.append(f"{self.stopped} stopped by it")
            if self.not_started:
                cut.append(f"{self.not_started} not started")
            sol.message += (f" (max_wall_time = {float(self.limit):g} s for the whole solve was spent: "
                            f"{self.calls} IPOPT call{'' if self.calls == 1 else 's'} ran in {self.elapsed():.3g} s, "
                            + ", ".join(cut) + ")")
        return sol


def _user_time() -> float:
    """The process's user CPU time (s), the clock of IPOPT's max_cpu_time (its CpuTime: getrusage's
    ru_utime)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime
