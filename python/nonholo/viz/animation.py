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

__all__ = ["Animation", "animate"]  # noqa: F822 (Animation: built on first use by __getattr__)


def _matplotlib():
    try:
        import matplotlib
        import matplotlib.animation
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


def _frame_indices(n_t: int, frames: int) -> np.ndarray:
    """At most ``frames`` output indices, evenly spread, first and last included."""
    if not isinstance(frames, (int, np.integer)) or isinstance(frames, bool) or frames < 1:
        raise ValueError(f"frames must be a positive integer, got {frames!r}")
    if n_t == 0:
        raise ValueError("the result has no output times to animate")
    return np.unique(np.round(np.linspace(0, n_t - 1, min(frames, n_t))).astype(int))


def _limits(points: np.ndarray, dims: int, pad: float = 0.08):
    """Bounds around every point drawn, [(lo, hi)] * dims, each padded by ``pad`` of the largest
    extent (the axes then keep one scale: equal aspect in the plane, box aspect in space)."""
    pts = points[np.all(np.isfinite(points), axis=1)]
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
    index = _frame_indices(result.t.size, frames)
    params = dict(result.params)
    times, qs = result.t[index], result.q[:, index].T
    scenes = [drawing.shapes(q, t, params) for q, t in zip(qs, times)]
    kinds = [[s.kind for s in scene] for scene in scenes]
    if any(k != kinds[0] for k in kinds):
        raise ValueError("the drawing must return the same shapes (number and kinds) for every configuration")
    dims = 3 if drawing.projection == "3d" else 2
    # traced paths at every output time (smooth between frames): (n_t, points, dims)
    traces = [drawing.trace(q, t, params) for q, t in zip(result.q.T, result.t)] if trace else [None]
    paths = (np.array([np.atleast_2d(np.asarray(p, dtype=float))[:, :dims] for p in traces])
             if traces[0] is not None else None)
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
    label = ax.set_title(" ")

    def update(k: int):
        for artist, shape in zip(artists, scenes[k]):
            _move(artist, shape, dims)
        for j, curve in enumerate(traced):
            path = paths[: index[k] + 1, j, :]
            if dims == 3:
                curve.set_data_3d(*path.T)
            else:
                curve.set_data(*path.T)
        label.set_text(f"t = {times[k]:.3g}")
        return [*artists, *traced, label]

    update(0)
    anim = _animation_class()(fig, update, frames=len(index), interval=1000.0 / fps, blit=False)
    anim.n_frames = len(index)
    anim.t = times
    return anim


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
