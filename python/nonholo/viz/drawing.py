r"""How a system's configuration is drawn: shapes in the plane or in space, for ``result.animate()``.

A drawing is a description, not a plot: ``Drawing.shapes(q, t, params)`` returns the shapes of
one configuration (polygons, lines, dots as point arrays), and :mod:`nonholo.viz.animation` turns
them into matplotlib artists. Built-in systems carry theirs (``system.drawing``); any system can
be given one::

    def draw(q, t, params):                    # q: the coordinates at time t
        x, y, phi = q
        nose = [x + np.cos(phi), y + np.sin(phi)]
        return [nh.drawing.line([[x, y], nose]), nh.drawing.dot([x, y])]

    system.drawing = nh.drawing.Drawing(draw, trace=lambda q, t, p: [q[:2]])
    result.animate()                            # or result.animate(drawing=draw)

A body in space with a position and an attitude (a rolling disc, a ball, a bicycle's wheel) is
drawn by :func:`rigid_body`, which is also the fallback for a system that exposes
``system.pose(q, params) -> (position (3,), rotation matrix (3, 3))`` but no drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = ["Shape", "Drawing", "RigidBody", "Combined", "polygon", "line", "dot", "rigid_body", "combine",
           "planar_body", "rotation_z", "rotation_y", "drawing_of"]


@dataclass
class Shape:
    """One element of a drawing: ``kind`` is "polygon" (closed, filled), "line" or "dot";
    ``points`` has shape (m, 2) in the plane or (m, 3) in space; ``style`` holds matplotlib
    keyword arguments (color, linewidth, alpha, ...)."""

    kind: str
    points: np.ndarray
    style: dict = field(default_factory=dict)


def _points(points, what: str) -> np.ndarray:
    p = np.atleast_2d(np.asarray(points, dtype=float))
    if p.ndim != 2 or p.shape[1] not in (2, 3):
        raise ValueError(f"{what} needs points of shape (m, 2) or (m, 3), got {np.shape(points)}")
    return p


def polygon(points, **style) -> Shape:
    """A closed, filled outline through ``points`` (m, 2) or (m, 3)."""
    return Shape("polygon", _points(points, "polygon"), style)


def line(points, **style) -> Shape:
    """A polyline through ``points`` (m, 2) or (m, 3)."""
    return Shape("line", _points(points, "line"), style)


def dot(point, **style) -> Shape:
    """A marker at ``point`` (2,) or (3,)."""
    return Shape("dot", _points(point, "dot"), style)


class Drawing:
    """A drawing of a system: ``shapes(q, t, params) -> list of Shape`` for one configuration.

    Parameters
    ----------
    shapes : callable (q, t, params) -> list of Shape
        q the coordinates (n,), t the time, params the run's parameter values by name. The
        number and kinds of the shapes must not change from one configuration to the next.
    trace : callable (q, t, params) -> sequence of points, optional
        Points whose paths are drawn as they move (contact points, a centre of mass).
    projection : None or "3d"
        Planar (equal-aspect 2-D axes) or spatial.

    Notes
    -----
    A drawing pickles (with its system) when its callables are module-level functions.
    """

    def __init__(self, shapes: Callable, trace: Callable | None = None, projection: str | None = None):
        if not callable(shapes):
            raise TypeError(f"shapes must be a callable (q, t, params) -> list of Shape, got {shapes!r}")
        if trace is not None and not callable(trace):
            raise TypeError(f"trace must be a callable (q, t, params) -> points, got {trace!r}")
        if projection not in (None, "3d"):
            raise ValueError(f"projection must be None (planar) or '3d', got {projection!r}")
        self._shapes, self._trace, self.projection = shapes, trace, projection

    def shapes(self, q, t, params) -> list:
        """The shapes of the configuration q at time t; TypeError naming the drawing's function where
        it returns something else than a list of shapes (a bare ``5`` was "'int' object is not
        iterable")."""
        out = self._shapes(q, t, params)
        items = list(out) if isinstance(out, (list, tuple)) else None
        if items is None or not all(isinstance(shape, Shape) for shape in items):
            name = getattr(self._shapes, "__name__", repr(self._shapes))
            raise TypeError(f"the drawing's function {name} must return a list of shapes (nh.drawing.polygon, line, "
                            f"dot, ...), got {out!r:.80}")
        return items

    def trace(self, q, t, params):
        """The points whose paths are drawn, (m, 2) or (m, 3); None when nothing is traced."""
        return None if self._trace is None else self._trace(q, t, params)

    def __repr__(self) -> str:
        return f"Drawing({getattr(self._shapes, '__name__', self._shapes)!r}, projection={self.projection!r})"


def drawing_of(system, drawing=None) -> Drawing:
    """The drawing to use: ``drawing`` (a Drawing or a shapes callable), else ``system.drawing``,
    else a :func:`rigid_body` frame from ``system.pose``, its axes as long as the body's surface is
    large (:func:`body_size`)."""
    if drawing is None:
        drawing = getattr(system, "drawing", None)
    if drawing is None and callable(getattr(system, "pose", None)):
        drawing = rigid_body(system.pose, shape="axes", radius=body_size(system))
    if drawing is None:
        raise ValueError(f"the system {getattr(system, 'name', system)!r} carries no drawing: pass "
                         "drawing=nh.drawing.Drawing(shapes) or a function (q, t, params) -> list of shapes "
                         "(nh.drawing.polygon, line, dot), or set system.drawing")
    if isinstance(drawing, Drawing):
        return drawing
    if callable(drawing):
        return Drawing(drawing)
    raise TypeError(f"drawing must be a nonholo.drawing.Drawing or a callable (q, t, params) -> list of shapes, "
                    f"got {type(drawing).__name__}")


#: The quantities a rolling body (nonholo.contact.roll_on_plane) checks positive that are not its surface's lengths
_NOT_LENGTHS = ("mass", "inertia", "gravity", "-gravity[2]", "friction_coefficient", "eps")


def body_size(system) -> float | str:
    """The length of the axes that draw a body from its pose (the 3-D fallback of :func:`drawing_of`):
    the largest length of its surface (a rolling body's radius or largest semi-axis: ``system.surface``,
    else the lengths a :func:`~nonholo.contact.roll_on_plane` system checks, ``system.positive``) at the
    system's parameter values, or the name of the parameter that is its one length; 1.0 without one."""
    surface = getattr(system, "surface", None)
    lengths = getattr(surface, "lengths", None)
    if lengths is None:
        lengths = [(entry[0], entry[1]) for entry in getattr(system, "positive", ()) or ()
                   if len(entry) >= 2 and entry[0] not in _NOT_LENGTHS]
    names = {str(s) for s in getattr(system, "parameters", {}) or {}}
    if len(lengths) == 1 and str(lengths[0][1]) in names and getattr(lengths[0][1], "is_Symbol", False):
        return str(lengths[0][1])  # the parameter itself: a run's params= resizes the drawing
    values = []
    for _, value in lengths:
        try:
            value = value.subs(system.parameters) if hasattr(value, "subs") else value
            values.append(float(value))
        except (TypeError, ValueError):
            continue
    values = [v for v in values if np.isfinite(v) and v > 0]
    return max(values) if values else 1.0


# --------------------------------------------------------------------------- planar bodies
def rotation_z(angle: float) -> np.ndarray:
    """The 3x3 rotation by ``angle`` about z."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotation_y(angle: float) -> np.ndarray:
    """The 3x3 rotation by ``angle`` about y."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def planar_body(outline, x: float, y: float, heading: float, **style) -> Shape:
    """The polygon ``outline`` (m, 2), given in a body frame, placed at (x, y) turned by ``heading``."""
    c, s = np.cos(heading), np.sin(heading)
    body = np.asarray(outline, dtype=float)
    return polygon(body @ np.array([[c, s], [-s, c]]) + [x, y], **style)


# --------------------------------------------------------------------------- bodies in space
def _circle(radius: float, plane: tuple, n: int = 40) -> np.ndarray:
    """A circle of ``radius`` in the plane of the two body axes ``plane`` (indices), (n, 3)."""
    a = np.linspace(0.0, 2 * np.pi, n)
    pts = np.zeros((n, 3))
    pts[:, plane[0]], pts[:, plane[1]] = radius * np.cos(a), radius * np.sin(a)
    return pts


class RigidBody(Drawing):
    r"""A body in space drawn from its pose: the generic 3-D drawing.

    Parameters
    ----------
    pose : callable (q, params) -> (position (3,), R (3, 3))
        The body's reference point and attitude; R's columns are the body axes in the fixed frame.
    shape : {"disc", "ball", "axes"}
        "disc": a disc of ``radius`` in the body's x-z plane (its axle is the body y axis, as for
        SymPy's wheels) with two spokes that show its rotation; "ball": a sphere's three great
        circles; "axes": the three body axes, of length ``radius``.
    radius : float or str
        The size, or the name of the parameter that holds it.
    contact : callable (q, params) -> (3,), optional
        The contact point, whose path is drawn (default: the reference point's path).
    scenery : callable (q, t, params) -> list of Shape, optional
        Further shapes, e.g. a turning table.
    """

    def __init__(self, pose: Callable, shape: str = "disc", radius: float | str = 1.0,
                 contact: Callable | None = None, scenery: Callable | None = None):
        if shape not in ("disc", "ball", "axes"):
            raise ValueError(f"shape must be 'disc', 'ball' or 'axes', got {shape!r}")
        for name, f in (("pose", pose), ("contact", contact), ("scenery", scenery)):
            if f is not None and not callable(f):
                raise TypeError(f"{name} must be callable, got {f!r}")
        super().__init__(pose, projection="3d")
        self.pose, self.shape, self.radius, self.contact, self.scenery = pose, shape, radius, contact, scenery

    def _size(self, params) -> float:
        return float(params[self.radius]) if isinstance(self.radius, str) else float(self.radius)

    def shapes(self, q, t, params) -> list:
        position, R = (np.asarray(x, dtype=float) for x in self.pose(q, params))
        r = self._size(params)

        def place(pts):  # body frame to fixed frame
            return pts @ R.T + position

        if self.shape == "disc":
            spokes = np.array([[-r, 0, 0], [r, 0, 0], [np.nan] * 3, [0, 0, -r], [0, 0, r]])
            out = [polygon(place(_circle(r, (0, 2))), color="tab:blue", alpha=0.35),
                   line(place(spokes), color="tab:blue", linewidth=1.5)]
        elif self.shape == "ball":
            out = [line(place(_circle(r, plane)), color=color, linewidth=1.5)
                   for plane, color in (((0, 1), "tab:blue"), ((1, 2), "tab:orange"), ((2, 0), "tab:green"))]
        else:
            out = [line(place(np.array([np.zeros(3), r * axis])), color=color, linewidth=2)
                   for axis, color in zip(np.eye(3), ("tab:red", "tab:green", "tab:blue"))]
        return out + (list(self.scenery(q, t, params)) if self.scenery is not None else [])

    def trace(self, q, t, params):
        return [self.contact(q, params) if self.contact is not None else self.pose(q, params)[0]]


def rigid_body(pose: Callable, shape: str = "disc", radius: float | str = 1.0, contact: Callable | None = None,
               scenery: Callable | None = None) -> RigidBody:
    """A :class:`RigidBody` drawing (see there for the arguments)."""
    return RigidBody(pose, shape, radius, contact, scenery)


class Combined(Drawing):
    """Several drawings as one (the wheels and the frame of a bicycle): their shapes and traced
    points in order. All must be planar, or all in space."""

    def __init__(self, *drawings: Drawing):
        if not drawings or not all(isinstance(d, Drawing) for d in drawings):
            raise TypeError("combine takes one or more nonholo.drawing.Drawing objects")
        projections = {d.projection for d in drawings}
        if len(projections) != 1:
            raise ValueError("combine needs drawings that are all planar or all in space (projection='3d')")
        super().__init__(drawings[0].shapes, projection=projections.pop())
        self.parts = drawings

    def shapes(self, q, t, params) -> list:
        return [shape for d in self.parts for shape in d.shapes(q, t, params)]

    def trace(self, q, t, params):
        points = [np.atleast_2d(np.asarray(p, dtype=float)) for d in self.parts
                  if (p := d.trace(q, t, params)) is not None]
        return np.vstack(points) if points else None


def combine(*drawings: Drawing) -> Combined:
    """One drawing of several (see :class:`Combined`)."""
    return Combined(*drawings)
