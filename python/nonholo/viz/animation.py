"""Animations of results: the configurations of a run drawn frame by frame (``result.animate()``).

The shapes come from a :class:`nonholo.drawing.Drawing`; this module only renders them with
matplotlib. The returned :class:`Animation` is a ``FuncAnimation`` that shows itself inline in
Jupyter as an HTML/JavaScript player (no ffmpeg needed) and saves to ``.gif`` (pillow) or ``.mp4``
(ffmpeg) with ``save``.
"""

from __future__ import annotations

import functools

import numpy as np

from .drawing import drawing_of

__all__ = ["Animation", "animate", "animation", "figure"]  # noqa: F822 (Animation: built on first use by __getattr__)


def _matplotlib():
    try:
        import matplotlib
        import matplotlib.animation
        import matplotlib.axes
        import matplotlib.figure
    except ImportError as exc:  # pragma: no cover - matplotlib is a test dependency
        raise ImportError("animate() needs matplotlib: pip install 'nonholo[plot]'") from exc
    return matplotlib


@functools.lru_cache(maxsize=None)
def _animation_class():
    mpl = _matplotlib()

    class Animation(mpl.animation.FuncAnimation):
        """A matplotlib ``FuncAnimation`` of a run; ``n_frames`` frames at the times ``t``.

        In Jupyter it displays as an HTML/JavaScript player (``to_jshtml``), or as an HTML5 video
        when ``matplotlib.rcParams["animation.html"] == "html5"`` (needs ffmpeg).
        """

        def __del__(self):
            # matplotlib warns when an animation is dropped before pyplot showed it; this one lives on
            # its own Figure (not pyplot's), shown by _repr_html_ or written by save, so the warning
            # would be wrong
            pass

        def _repr_html_(self) -> str:
            if mpl.rcParams["animation.html"] == "html5":
                return self.to_html5_video()
            return self.to_jshtml()

    return Animation


def __getattr__(name):  # Animation is built on first use so that importing nonholo needs no matplotlib
    if name == "Animation":
        return _animation_class()
    raise AttributeError(name)


def figure(figsize=None):
    """A matplotlib Figure of its own (not pyplot's, so that Jupyter shows the animation drawn on it, not
    a still of it besides), with one set of axes; returns the axes."""
    mpl = _matplotlib()
    return mpl.figure.Figure(figsize=figsize).add_subplot()


def animation(fig, update, times, interval: float):
    """An :class:`Animation` of ``update(k)`` on ``fig`` for the frame times ``times`` (``n_frames`` and
    ``t`` set), ``interval`` milliseconds between frames: what ``result.animate()`` and the animation
    of an optimal-control plan return."""
    anim = _animation_class()(fig, update, frames=len(times), interval=interval, blit=False)
    anim.n_frames = len(times)
    anim.t = np.asarray(times)
    return anim


def _check_frames(frames) -> int:
    if not isinstance(frames, (int, np.integer)) or isinstance(frames, bool) or frames < 1:
        raise ValueError(f"frames must be a positive integer, got {frames!r}")
    return int(frames)


def _frame_indices(t: np.ndarray, frames: int) -> np.ndarray:
    """At most ``frames`` output indices at times spread evenly over the run (first and last
    included): for each of ``frames`` evenly spaced times the nearest output time, once each; every
    output when there are no more of them than ``frames``. ``t`` is monotone, either direction."""
    frames = _check_frames(frames)
    n_t = len(t)
    if n_t == 0:
        raise ValueError("the result has no output times to animate (a run with t_eval=[] keeps only y_final)")
    if frames >= n_t:
        return np.arange(n_t)
    sign = 1.0 if t[-1] >= t[0] else -1.0
    order = sign * np.asarray(t, dtype=float)  # increasing
    targets = sign * np.linspace(t[0], t[-1], frames)
    right = np.clip(np.searchsorted(order, targets), 1, n_t - 1)
    left = right - 1
    nearest = np.where(np.abs(order[left] - targets) <= np.abs(order[right] - targets), left, right)
    return np.unique(nearest)


def _frames(result, frames: int) -> tuple:
    """(frame times, coordinates (n_frames, n), index: the output indices of the frames or None,
    upto: the number of outputs at or before each frame time): frames at evenly spaced times of the
    run, the dense solution ``result.sol`` there when the run has one, else the nearest outputs."""
    t = np.asarray(result.t, dtype=float)
    sol = getattr(result, "sol", None)
    n = result.q.shape[0]
    if sol is not None and t.size > 1:
        times = np.linspace(t[0], t[-1], _check_frames(frames))
        try:
            qs = np.asarray(sol(times), dtype=float)[:n].T
        except ValueError:  # outside the dense solution's interval: the nearest outputs
            qs = None
        if qs is not None:
            sign = 1.0 if t[-1] >= t[0] else -1.0
            upto = np.searchsorted(sign * t, sign * times, side="right")
            return times, qs, None, upto
    index = _frame_indices(t, frames)
    return t[index], result.q[:, index].T, index, index + 1


def _failure(result) -> str:
    """The note of a failed run for the animation's title ("" for a success)."""
    if getattr(result, "success", True):
        return ""
    flag = getattr(result, "flag_name", "") or "failure"
    t_last = getattr(result, "t_last", None)
    t_last = result.t[-1] if t_last is None and len(result.t) else t_last
    return f"\nthe run failed: {flag} at t = {t_last:g}" if t_last is not None else "\nthe run failed"


def _limits(points: np.ndarray, dims: int, pad: float = 0.08):
    """Bounds around every point drawn, [(lo, hi)] * dims, each padded by ``pad`` of the largest
    extent (the axes then keep one scale: equal aspect in the plane, box aspect in space)."""
    pts = points[np.all(np.isfinite(points), axis=1)]
    if not len(pts):
        raise ValueError("drawing: no point of the drawing (nor of its trace) is finite at any frame of the run; "
                         "nothing to draw (check the drawing's function at the run's configurations)")
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    margin = max(float((hi - lo).max()), 1e-9) * pad
    return [(lo[i] - margin, hi[i] + margin) for i in range(dims)]


def animate(result, drawing=None, *, frames: int = 60, fps: float = 20.0, trace: bool = True, ax=None,
            figsize=(5.0, 5.0)):
    """The motion of ``result`` as a matplotlib animation (see :meth:`SimulationResult.animate`)."""
    mpl = _matplotlib()
    system = result.model.system
    drawing = drawing_of(system, drawing)
    if not (np.isfinite(fps) and fps > 0):
        raise ValueError(f"fps must be a positive number, got {fps!r}")
    dims = 3 if drawing.projection == "3d" else 2
    if ax is not None and not isinstance(ax, mpl.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes{' (3-D)' if dims == 3 else ''} or None, got {type(ax).__name__}")
    if ax is not None and dims == 3 and getattr(ax, "name", None) != "3d":
        raise TypeError("ax must be a 3-D matplotlib Axes (projection='3d') for this 3-D drawing, or None")
    times, qs, index, upto = _frames(result, frames)
    params = dict(result.params)
    scenes = [_drawn(drawing.shapes, q, t, params, system) for q, t in zip(qs, times)]
    kinds = [[s.kind for s in scene] for scene in scenes]
    if any(k != kinds[0] for k in kinds):
        raise ValueError("the drawing must return the same shapes (number and kinds) for every configuration")
    # traced paths at every output time (smooth between frames): (n_t, points, dims)
    traces = [_drawn(drawing.trace, q, t, params, system) for q, t in zip(result.q.T, result.t)] if trace else [None]
    paths = (np.array([np.atleast_2d(np.asarray(p, dtype=float))[:, :dims] for p in traces])
             if traces[0] is not None else None)
    ends = None  # frames between outputs (dense output): the traced points at the frame itself
    if paths is not None and index is None:
        ends = np.array([np.atleast_2d(np.asarray(drawing.trace(q, t, params), dtype=float))[:, :dims]
                         for q, t in zip(qs, times)])
    every = [s.points[:, :dims] for scene in scenes for s in scene] + ([paths.reshape(-1, dims)] if paths is not None
                                                                          else [])
    bounds = _limits(np.vstack(every), dims)

    if ax is None:
        fig = mpl.figure.Figure(figsize=figsize)
        ax = fig.add_subplot(projection="3d" if dims == 3 else None)
    fig = ax.figure
    artists = [_artist(ax, shape, dims) for shape in scenes[0]]
    traced = [ax.plot(*([[np.nan]] * dims), color="0.4", linewidth=1.0)[0]
              for _ in range(paths.shape[1] if paths is not None else 0)]
    if dims == 3:
        ax.set_xlim(*bounds[0]), ax.set_ylim(*bounds[1]), ax.set_zlim(*bounds[2])
        ax.set_box_aspect([hi - lo for lo, hi in bounds])
    else:
        ax.set_xlim(*bounds[0]), ax.set_ylim(*bounds[1])
        ax.set_aspect("equal")
    ax.set_xlabel("x"), ax.set_ylabel("y")
    if dims == 3:
        ax.set_zlabel("z")
    failed = _failure(result)
    label = ax.set_title(" ", **({"color": "#b00000"} if failed else {}))

    def update(k: int):
        for artist, shape in zip(artists, scenes[k]):
            _move(artist, shape, dims)
        for j, curve in enumerate(traced):
            path = paths[: upto[k], j, :] if ends is None else np.vstack([paths[: upto[k], j, :], ends[k, j][None]])
            if dims == 3:
                curve.set_data_3d(*path.T)
            else:
                curve.set_data(*path.T)
        label.set_text(f"t = {times[k]:.3g}{failed}")
        return [*artists, *traced, label]

    update(0)
    return animation(fig, update, times, 1000.0 / fps)


def _drawn(draw, q, t, params: dict, system):
    """``draw(q, t, params)`` (a drawing's shapes or trace); a drawing of another system, which reads a
    parameter the result's system lacks (KeyError), raises ValueError saying so."""
    try:
        return draw(q, t, params)
    except KeyError as exc:
        key = exc.args[0] if exc.args else None
        if not isinstance(key, str) or key in params:
            raise
        raise ValueError(f"the drawing's system does not match the result's ({getattr(system, 'name', system)!r}): "
                         f"the drawing reads the parameter {key!r}, which the result's system does not have "
                         f"(its parameters: {sorted(params)}); pass the drawing of the system that made the "
                         "result") from exc


def _artist(ax, shape, dims: int):
    style, points = dict(shape.style), shape.points[:, :dims]
    if dims == 3:
        if shape.kind == "polygon":
            from mpl_toolkits.mplot3d.art3d import Poly3DCollection

            artist = Poly3DCollection([points], **{"alpha": 0.4, **style})
            ax.add_collection3d(artist)
            return artist
        marker = dict(marker="o", linestyle="none") if shape.kind == "dot" else {}
        return ax.plot(*points.T, **{**marker, **style})[0]
    if shape.kind == "polygon":
        from matplotlib.patches import Polygon

        artist = Polygon(points, closed=True, **{"alpha": 0.6, **style})
        ax.add_patch(artist)
        return artist
    marker = dict(marker="o", linestyle="none") if shape.kind == "dot" else {}
    return ax.plot(*points.T, **{**marker, **style})[0]


def _move(artist, shape, dims: int) -> None:
    points = shape.points[:, :dims]
    if shape.kind == "polygon":
        if dims == 3:
            artist.set_verts([points])
        else:
            artist.set_xy(points)
    elif dims == 3:
        artist.set_data_3d(*points.T)
    else:
        artist.set_data(*points.T)
