"""Parameter sweeps: map a function over a grid, on threads, processes or a Dask cluster."""

from __future__ import annotations

import itertools
import os
from concurrent.futures import Executor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from ..progress import iterate

__all__ = ["sweep", "SweepResult", "grid_points"]


def grid_points(grid) -> tuple:
    """(names, coords, points, shape) of a grid: a mapping name -> values (the outer product, in
    the mapping's order; shape = the lengths) or a sequence of mappings (shape = (len,))."""
    if isinstance(grid, Mapping):
        if not grid:
            raise ValueError("grid is empty")
        grid = {k.name if isinstance(k, sp.Symbol) else k: v for k, v in grid.items()}  # symbols by name
        names = list(grid)
        coords = {}
        for name, values in grid.items():
            values = np.asarray(values)
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"grid[{name!r}] must be a non-empty 1-d sequence of values")
            coords[name] = values
        points = [dict(zip(names, combo)) for combo in itertools.product(*(coords[n].tolist() for n in names))]
        return names, coords, points, tuple(len(coords[n]) for n in names)
    points = [dict(p) for p in grid]
    if not points:
        raise ValueError("grid is empty")
    if any(not isinstance(p, Mapping) for p in grid):
        raise TypeError("grid must be a mapping name -> values or a sequence of mappings")
    return ["point"], {"point": np.arange(len(points))}, points, (len(points),)


def _call(fn, point):
    return fn(**point)


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
        Objects that are not numbers (e.g. SimulationResult) are kept in object arrays.
    points : list of dict
        The grid points in row-major order.
    """

    dims: list
    coords: dict
    values: dict
    points: list = field(repr=False)

    @property
    def shape(self) -> tuple:
        return tuple(len(self.coords[d]) for d in self.dims)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]

    def to_xarray(self):
        """An ``xarray.Dataset`` with the grid axes as coordinates (requires xarray)."""
        import xarray as xr

        data = {}
        for name, arr in self.values.items():
            extra = [f"{name}_dim{i}" for i in range(arr.ndim - len(self.dims))]
            data[name] = (self.dims + extra, arr)
        return xr.Dataset(data, coords=self.coords)


def _stack(outputs: list, shape: tuple) -> dict:
    first = outputs[0]
    entries = first.keys() if isinstance(first, Mapping) else ["value"]

    def entry(out, name):
        return out[name] if isinstance(out, Mapping) else out

    values = {}
    for name in entries:
        items = [entry(out, name) for out in outputs]
        try:
            arr = np.asarray(items, dtype=float)
        except (TypeError, ValueError):
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
            values[name] = arr.reshape(shape)
            continue
        values[name] = arr.reshape(shape + arr.shape[1:])
    return values


def sweep(
    fn: Callable[..., Any],
    grid,
    *,
    executor: Executor | None = None,
    progress: bool = True,
    threads: int | None = None,
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

    Returns
    -------
    SweepResult
        ``values[name]`` of shape grid shape + output shape, identical whatever the executor.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {type(fn).__name__}")
    dims, coords, points, shape = grid_points(grid)
    if executor is not None and not isinstance(executor, Executor) and not hasattr(executor, "submit"):
        raise TypeError("executor must be a concurrent.futures.Executor (or have a submit method)")
    if threads is not None and int(threads) < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    own = executor is None
    pool = ThreadPoolExecutor(max_workers=int(threads or os.cpu_count() or 1)) if own else executor
    try:
        futures = {pool.submit(_call, fn, point): i for i, point in enumerate(points)}
        outputs: list = [None] * len(points)
        done = iterate(as_completed(futures), len(points), "sweep", progress)
        for future in done:
            i = futures[future]
            try:
                outputs[i] = future.result()
            except Exception as exc:
                for other in futures:
                    other.cancel()
                raise RuntimeError(f"sweep: fn failed at point {points[i]}: {exc}") from exc
    finally:
        if own:
            pool.shutdown(wait=True)
    return SweepResult(dims=dims, coords=coords, values=_stack(outputs, shape), points=points)
