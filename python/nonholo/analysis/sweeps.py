"""Parameter sweeps: map a function over a grid, on threads, processes or a Dask cluster.

Nothing that finished is lost. Each point ends with a status (``OK``, ``FAILED`` or ``NOT_RUN``)
and its exception; the points that failed are kept as failures (``on_error="keep"``, the default,
with a SweepWarning) or stop the sweep with a SweepError carrying the finished points
(``on_error="raise"``); the points running when one fails are waited for and kept. Ctrl-C cancels
the queued points (a point a process-pool worker takes afterwards returns at once, not run) and
re-raises the KeyboardInterrupt with the finished points as ``exc.partial``. A process-pool worker
that dies (a crash, ``os._exit``) is blamed on the point it was running, found by a marker file
each point holds while it runs, and the points the broken pool did not run are run in a fresh
one. An exception that would not come back from a worker (it pickles but does not unpickle) comes
back as a :class:`PointError` describing it, on its own point.
"""

from __future__ import annotations

import atexit
import itertools
import math
import os
import pickle
import shutil
import traceback
import tempfile
import time
import warnings
from concurrent.futures import CancelledError, Executor, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool, _ExceptionWithTraceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import sympy as sp

from ..system.arguments import key_name
from .. import options as check
from ..errors import SweepError, SweepWarning, attach_partial
from ..progress import Cancel, bar, cancel_scope

__all__ = ["sweep", "SweepResult", "grid_points", "PointError", "OK", "FAILED", "NOT_RUN"]

OK, FAILED, NOT_RUN = 0, -1, -2
ON_ERROR = ("keep", "raise")
MISSING = ("raise", "fill")


def grid_points(grid) -> tuple:
    """(names, coords, points, shape) of a grid: a mapping name -> values (the outer product, in
    the mapping's order; shape = the lengths) or a sequence of mappings (shape = (len,))."""
    if isinstance(grid, Mapping):
        if not grid:
            raise ValueError("grid is empty")
        if any(not isinstance(k, (str, sp.Symbol)) for k in grid):  # fn(**point) needs names
            raise TypeError(f"grid's keys must be names (strings or SymPy symbols), got {list(grid)!r:.100}")
        grid = {key_name(k): v for k, v in grid.items()}  # symbols by name
        names = list(grid)
        coords = {}
        for name, values in grid.items():
            try:
                values = np.asarray(values)
            except ValueError:  # NumPy's "inhomogeneous shape" of [[1, 2], [3]]
                values = np.empty((0, 0))
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"grid[{name!r}] must be a non-empty 1-d sequence of values")
            coords[name] = values
        _check_points(math.prod(len(coords[n]) for n in names), names)
        points = [dict(zip(names, combo)) for combo in itertools.product(*(coords[n].tolist() for n in names))]
        return names, coords, points, tuple(len(coords[n]) for n in names)
    if not isinstance(grid, Iterable) or isinstance(grid, str) or any(not isinstance(p, Mapping) for p in grid):
        raise TypeError(f"grid must be a mapping name -> values or a sequence of mappings, got {grid!r:.100}")
    points = [dict(p) for p in grid]
    if not points:
        raise ValueError("grid is empty")
    return ["point"], {"point": np.arange(len(points))}, points, (len(points),)


BYTES_PER_POINT = 2500  # a point's dict, status, error and output slots (measured: 1e6 points 2.4 GB)


def _check_points(count: int, names: list) -> None:
    """ValueError naming the grid where its points would take more memory than is available (10^8
    points of a trivial function ran until memory gave out: about 240 GB), before any is built."""
    from ..system.checks import refuse_beyond_memory

    refuse_beyond_memory(count * BYTES_PER_POINT, f"grid: the outer product of {names} has {count:.3g} points, which "
                         "need", f"about {BYTES_PER_POINT} bytes each", "sweep fewer points, or in parts")


class PointError(Exception):
    """An exception of ``fn`` in a worker process that could not be sent back as itself (it does
    not pickle, or does not unpickle): its type, message and traceback, as text."""

    def __init__(self, type_name: str, message: str, trace: str = ""):
        super().__init__(type_name, message, trace)
        self.type_name, self.message, self.trace = type_name, message, trace

    def __str__(self) -> str:
        return f"{self.type_name}: {self.message}"


class NotStarted(CancelledError):
    """A point a worker took after the sweep stopped (Ctrl-C): returned at once, not run."""


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives a round trip through pickle (a process pool sends it back so), else a
    PointError describing it: an exception that pickles but does not unpickle breaks the pool."""
    tb = exc.__traceback__
    trace = "".join(traceback.format_exception(type(exc), exc, tb))
    try:  # as the pool sends it (libraries such as tblib change how exceptions pickle)
        pickle.loads(pickle.dumps(_ExceptionWithTraceback(exc, tb)))
        return exc.with_traceback(tb)
    except Exception:  # noqa: BLE001 - any failure of the round trip
        return PointError(f"{type(exc).__module__}.{type(exc).__qualname__}", str(exc), trace)


def _travels(value):
    """``value`` if it survives the round trip through pickle that a process pool makes to send it
    back; else a PointError: a value that pickles but does not unpickle would break the pool in the
    parent, where no point is to blame, and lose the points still running."""
    try:
        pickle.loads(pickle.dumps(value))
    except Exception as exc:  # noqa: BLE001 - any failure of the round trip
        raise PointError(f"{type(value).__module__}.{type(value).__qualname__}",
                         f"the value fn returned does not survive pickling, so a process pool cannot send it "
                         f"back ({type(exc).__name__}: {exc}); return plain data (numbers, arrays, dicts)") from None
    return value


#: Seconds that Ctrl-C's stop of a process pool waits for the pool's manager thread to end (stop_workers).
MANAGER_WAIT = 10.0

def _call(fn, point, marker=None, cancel=None, stop=None):
    """fn(**point) in a worker; ``marker`` (process pools): a file that exists while the point
    runs, so that a worker dying in the point leaves it behind (``os._exit`` skips ``finally``);
    ``stop`` (process pools): a file whose existence means the sweep stopped (Ctrl-C), so that a
    point a worker takes afterwards is not started; ``cancel`` (thread pools): the sweep's token,
    which stops the point's simulations on Ctrl-C."""
    if cancel is not None:
        if cancel.is_set():
            raise NotStarted("not started: the sweep was interrupted")
        with cancel_scope(cancel):
            return fn(**point)
    if stop is not None and os.path.exists(stop):
        raise NotStarted("not started: the sweep was interrupted")
    try:
        if marker is None:
            return fn(**point)
        with open(marker, "w"):
            pass
        try:
            return _travels(fn(**point))
        finally:
            os.remove(marker)
    except Exception as exc:  # noqa: BLE001 - sent back to the sweep, described if it cannot travel
        portable = _portable(exc)
        if portable is exc:
            raise
    # raised outside the handler: no __context__ holding the exception that cannot travel (a library
    # that pickles contexts, such as tblib, would send it along)
    raise portable


@dataclass
class SweepResult:
    """The outputs of :func:`sweep`, gathered into arrays over the grid.

    Attributes
    ----------
    dims : list of str
        Names of the grid axes (``["point"]`` for a list of points).
    coords : dict name -> ndarray
        Values along each axis.
    values : dict name -> ndarray
        For a function returning a mapping, each entry stacked to shape grid shape + entry
        shape; a function returning a scalar or an array gives the single entry ``"value"``.
        Numbers give float arrays; an entry that is complex at any point (a complex number or
        array, e.g. eigenvalues) gives a complex array over the whole grid, its imaginary parts
        kept. Objects that are not numbers (e.g. SimulationResult, strings, also "2") are kept in
        object arrays. Points
        that did not finish (and, with ``missing="fill"``, entries a point did not return) hold
        NaN, or None in object arrays; when no point finished, the single entry ``"value"`` is
        all NaN (``status`` and ``errors`` say why).
    points : list of dict
        The grid points in row-major order.
    status : ndarray of int, grid shape
        ``OK`` (0) finished, ``FAILED`` (-1) raised or its worker died, ``NOT_RUN`` (-2)
        cancelled (Ctrl-C, ``on_error="raise"``, a broken process pool).
    errors : ndarray of object, grid shape
        The exception of each point that did not finish (None for the others).
    """

    dims: list
    coords: dict
    values: dict
    points: list = field(repr=False)
    status: np.ndarray = field(default=None, repr=False)
    errors: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        if self.status is None:
            self.status = np.zeros(self.shape, dtype=int)
        if self.errors is None:
            self.errors = np.full(self.shape, None, dtype=object)

    @property
    def shape(self) -> tuple:
        return tuple(len(self.coords[d]) for d in self.dims)

    @property
    def ok(self) -> np.ndarray:
        """A boolean mask, grid shape: the points that finished."""
        return self.status == OK

    @property
    def complete(self) -> bool:
        """Every point finished."""
        return bool(self.ok.all())

    @property
    def failed(self) -> list:
        """(point, exception) of every point that did not finish, in grid order."""
        flat = self.errors.reshape(-1)
        return [(self.points[i], flat[i]) for i in np.flatnonzero(~self.ok.reshape(-1))]

    def __getitem__(self, name: str) -> np.ndarray:
        """The entry ``name`` of ``values`` over the grid; KeyError naming the entries there are."""
        try:
            return self.values[name]
        except KeyError:
            coords = f"; the grid's axes {list(self.coords)} are in result.coords" if self.coords else ""
            raise KeyError(f"no value named {name!r:.60}; values are {list(self.values)}{coords}") from None

    def __repr__(self) -> str:
        done = int(self.ok.sum())
        return (f"SweepResult(dims={self.dims}, shape={self.shape}, values={list(self.values)}, "
                f"finished {done} of {self.status.size})")

    def to_xarray(self):
        """An ``xarray.Dataset`` with the grid axes as coordinates and a ``status`` variable
        (requires xarray)."""
        import xarray as xr

        data = {"status": (self.dims, self.status)}
        for name, arr in self.values.items():
            extra = [f"{name}_dim{i}" for i in range(arr.ndim - len(self.dims))]
            data[name] = (self.dims + extra, arr)
        return xr.Dataset(data, coords=self.coords)


def _entries(output) -> dict:
    return dict(output) if isinstance(output, Mapping) else {"value": output}


def _stack(outputs: list, status: np.ndarray, shape: tuple, points: list, missing: str) -> dict:
    """values[name] over the grid from the finished points' outputs (see SweepResult.values);
    with ``missing="raise"``, a finished point without an entry another returns is a SweepError."""
    finished = [i for i in range(len(outputs)) if status[i] == OK]
    if not finished:  # nothing to tell the entries by: the single entry "value", all NaN
        return {"value": np.full(shape, np.nan)}
    entries = {i: _entries(outputs[i]) for i in finished}
    names = list(dict.fromkeys(name for i in finished for name in entries[i]))
    if missing == "raise":
        for name in names:
            lacking = [i for i in finished if name not in entries[i]]
            if lacking:
                having = next(i for i in finished if name in entries[i])
                raise SweepError(
                    f"sweep: the point {points[lacking[0]]} returned no entry {name!r}, which the point "
                    f"{points[having]} returns (keys {sorted(entries[having])}); return the same keys at every "
                    "point, or pass missing='fill' to fill the missing entries with NaN (None for objects)",
                    point=points[lacking[0]])
    return {name: _column([(i, entries[i][name]) for i in finished if name in entries[i]], len(outputs), shape)
            for name in names}


def _is_complex(value) -> bool:
    """A complex number or an array (or list) holding complex numbers, whatever the imaginary parts."""
    if isinstance(value, (complex, np.complexfloating)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "c" or (value.dtype == object and any(_is_complex(v) for v in value.flat))
    if isinstance(value, (list, tuple)):
        return any(_is_complex(v) for v in value)
    return False


def _column(items: list, size: int, shape: tuple) -> np.ndarray:
    """One entry over the grid: a float array (NaN where absent) when the values are numbers of
    one shape, a complex array (NaN where absent) when any of them is complex (all the points
    alike, real values too), else an object array (None where absent): strings stay strings ("2"
    is no number), whatever they spell."""
    where = [i for i, _ in items]
    values = [value for _, value in items]
    try:
        kind = np.asarray(values).dtype.kind
    except (TypeError, ValueError):  # ragged
        kind = "O"
    if kind not in "biufc":
        column = np.full(size, None, dtype=object)
        for i, value in items:
            column[i] = value
        return column.reshape(shape)
    dtype = complex if any(_is_complex(v) for v in values) else float
    arr = np.asarray(values, dtype=dtype)
    column = np.full((size,) + arr.shape[1:], np.nan, dtype=dtype)
    column[where] = arr
    return column.reshape(shape + arr.shape[1:])


class _Run:
    """The state of one sweep: the futures, the outcome of each point, the worker markers."""

    def __init__(self, fn, points: list, pool, on_error: str):
        self.fn, self.points, self.pool, self.on_error = fn, points, pool, on_error
        n = len(points)
        self.outputs: list = [None] * n
        self.status = np.full(n, NOT_RUN, dtype=int)
        self.errors = np.full(n, None, dtype=object)
        self.futures: dict = {}
        self.fresh_pools: list = []  # pools started here to run what a broken pool left
        self.flaky: list = []  # points whose worker died in the pool, but which finished alone
        self.stop_reason, self.stop_point = None, None  # a broken pool with nobody to blame (on_error="raise")
        # a process pool's worker may die: each point marks itself while it runs
        self.markers = tempfile.mkdtemp(prefix="nonholo-sweep-") if isinstance(pool, ProcessPoolExecutor) else None
        # a thread pool's points run in this process: Ctrl-C stops their simulations through a token
        self.cancel_token = Cancel() if isinstance(pool, ThreadPoolExecutor) else None

    def marker(self, i: int):
        return None if self.markers is None else os.path.join(self.markers, str(i))

    @property
    def stop_file(self):
        return None if self.markers is None else os.path.join(self.markers, "stop")

    def submit(self, indices=None) -> None:
        self.futures = {}
        for i in range(len(self.points)) if indices is None else indices:
            future = self.pool.submit(_call, self.fn, self.points[i], self.marker(i), self.cancel_token, self.stop_file)
            self.futures[future] = i

    def collect(self, progress: bool) -> int | None:
        """Run every point (the rest of a grid a broken process pool left in fresh pools); returns
        the index of the failure that stops the sweep (``on_error="raise"``), else None."""
        # a bar advanced as each point finishes (a tqdm iterator counts an item only when the next is
        # asked for: it ended at N - 1 of N)
        ticks = bar(len(self.points), "sweep", progress)
        try:
            return self._collect(ticks)
        finally:  # with the points a dead worker's blame settled
            ticks.update(max(0, int((self.status != NOT_RUN).sum()) - ticks.n))
            ticks.close()

    def _collect(self, ticks) -> int | None:
        self.submit()
        idle = 0
        while True:
            stopped_at, broken = self.collect_round(ticks)
            if stopped_at is not None or not broken:
                return stopped_at
            finished = int((self.status == OK).sum())
            stopped_at = self.blame_dead_worker(broken)
            left = [i for i in broken if self.status[i] == NOT_RUN]
            if stopped_at is not None or self.stop_reason is not None or not left:
                return stopped_at
            # a round where nothing finished and nobody was blamed is tried once more, not forever
            progress = int((self.status == OK).sum()) > finished or any(self.status[i] == FAILED for i in broken)
            idle = 0 if progress else idle + 1
            if idle > 1:
                return None
            self.pool = self.fresh_pool()
            self.submit(left)

    def collect_round(self, ticks) -> tuple:
        """Wait for the submitted points: (index of a failure that stops the sweep or None, the
        points of a broken process pool)."""
        broken = []
        for future in as_completed(self.futures):
            i = self.futures[future]
            failed = self.record(i, future)
            if failed and isinstance(self.errors[i], BrokenProcessPool):
                broken.append(i)  # every pending point fails at once: blame the right one afterwards
                continue  # (run again in a fresh pool, or blamed: counted then)
            ticks.update(1)
            if failed and self.on_error == "raise":
                self.cancel()
                # the points running already are waited for and kept: nothing that finishes is lost
                for other, j in self.futures.items():
                    if j != i and not other.cancelled():
                        try:
                            other.exception()
                        except CancelledError:
                            pass
                self.harvest(CancelledError(f"not run: the sweep stopped at the failing point {self.points[i]}"))
                return i, []
        return None, broken

    def fresh_pool(self) -> ProcessPoolExecutor:
        """A new process pool like the broken one (its workers, start method and initializer)."""
        old = self.pool
        pool = ProcessPoolExecutor(max_workers=getattr(old, "_max_workers", None),
                                   mp_context=getattr(old, "_mp_context", None),
                                   initializer=getattr(old, "_initializer", None),
                                   initargs=getattr(old, "_initargs", ()))
        self.fresh_pools.append(pool)
        return pool

    def record(self, i: int, future) -> bool:
        """The outcome of a done future into status/outputs/errors; True when it failed."""
        try:
            self.outputs[i] = future.result()
        except (CancelledError, KeyboardInterrupt) as exc:  # cancelled, or stopped by Ctrl-C's token
            self.status[i], self.errors[i] = NOT_RUN, exc
            return False
        except Exception as exc:  # noqa: BLE001 - the point's own error, kept with it
            self.status[i], self.errors[i] = FAILED, exc
            return True
        self.status[i], self.errors[i] = OK, None
        return False

    def cancel(self, running: bool = False) -> None:
        """Cancel every point not started; ``running`` (Ctrl-C): also stop the simulations of the
        points running in this process's threads, and tell a process pool's workers to start none
        of the points they hold already."""
        if running and self.stop_file is not None:
            try:
                open(self.stop_file, "w").close()
            except OSError:
                pass
        if not (running and isinstance(self.pool, ProcessPoolExecutor)):
            # A process pool is about to be broken (stop_workers): Python 3.11's pool then sets an
            # exception on every pending future and dies on one cancelled here (InvalidStateError in
            # its manager thread); the stop file already keeps the workers from starting them.
            for future in self.futures:
                future.cancel()
        if running and self.cancel_token is not None:
            self.cancel_token.set()

    def harvest(self, reason: BaseException) -> None:
        """After Ctrl-C or a failure that stops the sweep: record the points that are done, and
        mark the others not run, with ``reason``."""
        for future, i in self.futures.items():
            if self.status[i] == NOT_RUN and self.errors[i] is None and future.done():
                self.record(i, future)
            if self.status[i] == NOT_RUN and (self.errors[i] is None or isinstance(self.errors[i], CancelledError)):
                self.errors[i] = reason

    def blame_dead_worker(self, broken: list) -> int | None:
        """A process pool broke: the point whose marker is left was running in the worker that died.
        When several were running, each is run again alone in a fresh process to find the one that
        kills its worker (the others' results are then kept). Returns the point that stops the
        sweep (``on_error="raise"``), else None."""
        running = [i for i in broken if os.path.exists(self.marker(i))]
        for i in running:
            os.remove(self.marker(i))
        culprits = running if len(running) <= 1 else self.rerun_alone(running)
        # finished alone, and nobody else died alone: the death was the pool's, not a point's
        flaky = [] if culprits else [i for i in running if self.status[i] == OK]
        self.flaky += flaky
        for i in broken:
            if i in culprits:
                self.status[i] = FAILED
                self.errors[i] = BrokenProcessPool(
                    f"the worker process died while running the point {self.points[i]} (a crash or os._exit in fn)")
            elif self.status[i] != OK and i not in running:
                self.status[i] = NOT_RUN
                if culprits:
                    who = f"the point {self.points[culprits[0]]} killed its worker"
                elif flaky:
                    who = f"a worker died running {self._listed(flaky)}, which finished when run alone"
                else:
                    who = "a worker process died while it ran no point (killed from outside)"
                self.errors[i] = BrokenProcessPool(f"not run: the process pool broke when {who}")
        if self.on_error != "raise":
            return None
        failed = sorted(culprits) or [i for i in running if self.status[i] == FAILED]
        if failed:
            return failed[0]
        if any(self.status[i] == NOT_RUN for i in broken):  # nobody to blame: the sweep stops, saying why
            self.stop_reason = (
                f"sweep: a worker process died while running {self._listed(flaky)}; run again alone, each finished "
                "(the death did not repeat: it depends on the pool, e.g. memory or a signal from outside). Their "
                "values are kept" if flaky else
                "sweep: a worker process died while it ran no point (killed from outside)")
            self.stop_point = self.points[flaky[0]] if flaky else None
        return None

    def _listed(self, indices) -> str:
        return ", ".join(f"the point {self.points[i]}" for i in indices)

    def rerun_alone(self, suspects: list) -> list:
        culprits = []
        for i in suspects:
            with ProcessPoolExecutor(max_workers=1) as solo:
                future = solo.submit(_call, self.fn, self.points[i])
                try:
                    self.outputs[i] = future.result()
                    self.status[i], self.errors[i] = OK, None
                except BrokenProcessPool:
                    culprits.append(i)
                except Exception as exc:  # noqa: BLE001 - the point's own error
                    self.status[i], self.errors[i] = FAILED, exc
        return culprits

    def stop_workers(self) -> None:
        """Ctrl-C: terminate the workers of a process pool (the pools started here too), so that the
        points they run stop as a simulation in a thread does, and a ``with`` block around the pool
        exits at once instead of waiting for them (a second Ctrl-C in that wait can hang Python's
        thread join). The pool is broken afterwards, as a terminal's Ctrl-C, which reaches its
        workers, leaves it."""
        pools = [pool for pool in (self.pool, *self.fresh_pools) if isinstance(pool, ProcessPoolExecutor)]
        for pool in pools:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                try:
                    process.terminate()
                except (OSError, AttributeError, ValueError):
                    pass
        # the pools' manager threads see the workers gone and end; wait for that here, by polling (a sleep
        # a second Ctrl-C interrupts cleanly), so that the with block's join finds them ended: a second
        # Ctrl-C inside Python 3.11's Thread.join can leave the interpreter hung at exit, joining it again
        # (a CI run's child process hung so when the machine was loaded)
        deadline = time.monotonic() + MANAGER_WAIT
        for pool in pools:
            thread = getattr(pool, "_executor_manager_thread", None)
            while thread is not None and thread.is_alive() and time.monotonic() < deadline:
                time.sleep(0.01)

    def close(self, interrupted: bool = False) -> None:
        for pool in self.fresh_pools:
            pool.shutdown(wait=not interrupted, cancel_futures=True)
        if self.markers is None:
            return
        if interrupted:  # the stop file must outlast the points the workers still hold
            atexit.register(shutil.rmtree, self.markers, True)
        else:
            shutil.rmtree(self.markers, ignore_errors=True)


def sweep(
    fn: Callable[..., Any],
    grid,
    *,
    executor: Executor | None = None,
    progress: bool = True,
    threads: int | None = None,
    on_error: str = "keep",
    missing: str = "raise",
) -> SweepResult:
    """Evaluate ``fn(**point)`` at every point of ``grid`` and gather the outputs into arrays.

    Parameters
    ----------
    fn : callable
        Called with the grid's names as keyword arguments; returns a number, an array, a
        mapping of them, or any object. For a process pool or Dask it must be picklable (a
        module-level function); nonholo's systems, models and results pickle.
    grid : mapping name -> values, or sequence of mappings
        A mapping gives the outer product of its axes (row-major, in the mapping's order).
    executor : concurrent.futures.Executor, optional
        Where to run: default a thread pool in this process (``threads`` workers, default all
        cores). nonholo's simulations release the GIL, so threads run in parallel. A
        ``ProcessPoolExecutor``, or a Dask distributed client's ``client.get_executor()``
        (``pip install nonholo[dask]``) work the same way.
    progress : bool
        Show a progress bar (tqdm, if installed).
    threads : int, optional
        Workers of the default thread pool: 1 to ``nonholo.options.MAX_THREADS`` (1024).
    on_error : {"keep", "raise"}
        A point that raises: "keep" (default, like ``simulate_many``) records it (``status``
        FAILED, ``errors``), runs every other point and warns once (SweepWarning) naming the
        failed points; "raise" cancels the points not started and raises a SweepError naming the
        point, with the cause chained and ``err.partial``, the SweepResult of what finished.
    missing : {"raise", "fill"}
        Points that return mappings with different keys: "raise" (default) is a SweepError naming
        the point and the key (``err.partial`` filled); "fill" puts NaN (None in object arrays)
        where a point has no entry.

    Returns
    -------
    SweepResult
        ``values[name]`` of shape grid shape + output shape, gathered the same way whatever the
        executor (what the function returns in another process can differ: BDF runs weigh their
        Jacobian's cost as measured in that process, within the tolerance; the studies guide);
        ``status`` and ``errors`` per point.

    Notes
    -----
    Ctrl-C (KeyboardInterrupt) cancels the points not started and re-raises the same
    KeyboardInterrupt with ``exc.partial``, the SweepResult of the points that finished. The points
    running in this process's threads stop at the solver's next check (nonholo's simulations) or
    run to their end (other code); a process pool's workers start no further point and are
    terminated (the pool is broken afterwards, as a terminal's Ctrl-C, which reaches the workers
    too, leaves it), so that a ``with`` block around it exits at once; the queued points of a Dask
    cluster are cancelled, and those its workers hold already run to their end there.

    A process-pool worker that dies in a point (a crash, ``os._exit``) breaks the pool: that point
    is FAILED with a BrokenProcessPool naming it, and the points the broken pool did not finish run
    in a fresh pool (``on_error="keep"``; NOT_RUN where the sweep stops: ``on_error="raise"``, or a
    death that no point repeats when run alone).

    ``on_error="raise"`` starts no point after the failure is seen; the points already running
    finish and are kept, and so do those a process pool had already queued to its workers (the
    executor's call queue holds about one point per worker beyond those running, and cancelling
    does not reach them).

    Examples
    --------
    The sleigh's turning rate after 10 s against the position a of its centre of mass and its
    initial turning rate w (the further ahead the centre of mass, the faster the turning dies
    out); a mapping of outputs gives one array per output, shaped like the grid:

    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> def final(a, w):
    ...     result = nh.simulate(model, (0, 10), [0, 0, 0, 1, 0, w], params={"a": a})
    ...     return {"phi_dot": result["phi_dot"][-1], "energy": result.energy()[-1]}
    >>> study = nh.sweep(final, {"a": [0.1, 0.2, 0.4], "w": [0.5, 1.0]}, progress=False, threads=2)
    >>> study.values["phi_dot"].shape
    (3, 2)
    >>> print(study.values["phi_dot"].round(3))
    [[0.173 0.285]
     [0.061 0.075]
     [0.011 0.007]]
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    progress = check.flag(progress, "progress")
    dims, coords, points, shape = grid_points(grid)
    if executor is not None and not isinstance(executor, Executor) and not hasattr(executor, "submit"):
        raise TypeError("executor must be a concurrent.futures.Executor (or have a submit method)")
    threads = check.threads(threads)
    if threads is not None and executor is not None:  # the executor's own workers ran it: threads was ignored
        raise ValueError("threads sizes the default thread pool; with an executor its own workers run the points: "
                         "give one of threads and executor")
    if on_error not in ON_ERROR:
        raise ValueError(f"on_error must be 'keep' or 'raise', got {on_error!r}")
    if missing not in MISSING:
        raise ValueError(f"missing must be 'raise' or 'fill', got {missing!r}")
    own = executor is None
    pool = ThreadPoolExecutor(max_workers=threads or min(os.cpu_count() or 1, check.MAX_THREADS)) if own else executor
    run, interrupted = _Run(fn, points, pool, on_error), False
    try:
        stopped_at = run.collect(progress)
    except KeyboardInterrupt as exc:
        interrupted = True
        run.cancel(running=True)
        run.harvest(KeyboardInterrupt("not finished when the sweep was interrupted"))
        run.stop_workers()
        raise attach_partial(exc, _result(run, dims, coords, shape, "fill")) from None
    finally:
        if own:  # the queued points are cancelled; after Ctrl-C the running ones are not waited for
            pool.shutdown(wait=not interrupted, cancel_futures=True)
        run.close(interrupted)
    return _finish(run, dims, coords, shape, missing, stopped_at)


def _result(run: _Run, dims, coords, shape, missing: str) -> SweepResult:
    values = _stack(run.outputs, run.status, shape, run.points, missing)
    return SweepResult(dims=dims, coords=coords, values=values, points=run.points,
                       status=run.status.reshape(shape), errors=run.errors.reshape(shape))


def _finish(run: _Run, dims, coords, shape, missing: str, stopped_at) -> SweepResult:
    """The SweepResult, or the SweepError of a failing point or of entries that differ."""
    if run.stop_reason is not None:
        raise SweepError(run.stop_reason, _result(run, dims, coords, shape, "fill"), run.stop_point)
    if stopped_at is not None:
        cause = run.errors[stopped_at]
        err = SweepError(f"sweep: fn failed at point {run.points[stopped_at]}: {cause}",
                         _result(run, dims, coords, shape, "fill"), run.points[stopped_at])
        raise err from cause
    try:
        result = _result(run, dims, coords, shape, missing)
    except SweepError as err:
        err.partial = _result(run, dims, coords, shape, "fill")
        raise
    if run.flaky:
        warnings.warn(f"sweep: a worker process died in the pool while running {run._listed(run.flaky)}; run again "
                      "alone, each finished and its value is kept (the death depends on the pool, e.g. memory or a "
                      "signal from outside)", SweepWarning, stacklevel=3)
    failed = np.flatnonzero(run.status != OK)
    if failed.size:
        first = failed[0]
        listed = ", ".join(str(run.points[i]) for i in failed[:5]) + (", ..." if failed.size > 5 else "")
        warnings.warn(f"sweep: {failed.size} of {run.status.size} points did not finish ({listed}); "
                      f"the point {run.points[first]}: {run.errors[first]!r}. Their values are NaN (None for "
                      "objects); see result.status and result.errors", SweepWarning, stacklevel=3)
    return result
