r"""Mechanisms: rigid bodies joined by revolute joints in a tree, rolling on a plane with wheels.

A :class:`Mechanism` is a tree of :class:`~nonholo.bodies.RigidBody` objects. The root has a
floating pose in minimal coordinates: the horizontal position (x, y) of its reference point and
its attitude as a sequence of rotations about body axes (Euler angles; e.g. yaw about the
vertical, roll, pitch, the convention of Meijaard et al. 2007 for the bicycle's rear frame).
Every other body hangs from its parent by a revolute joint: an axis u and a point o in the
parent's axes, and a joint angle theta, so that (R the rotation from body to space axes, p the
body's reference point in space, omega its angular velocity in its own axes)

    R_b = R_parent Rot(u, theta),   p_b = p_parent + R_parent o,
    omega_b = Rot(u, theta)^T omega_parent + u theta'.

The plane is z = 0, and ``down`` (default (0, 0, -1): z up; (0, 0, 1) for the z-down axes of
vehicle dynamics) points into it. A wheel is a contact ``mechanism.roll_on_plane(body, surface)``
with a convex surface of :mod:`nonholo.surfaces` in the body's axes. At the attitude R of the
body the surface touches the plane at its support point r_c(n), n = R^T down
(:mod:`nonholo.surfaces`), and the material point there has the velocity

    v_c = p_b' + R (omega_b x r_c(n)).

The first contact fixes the height of the root: z of the root's reference point is the function
of the other coordinates that puts that contact's support point on the plane, so the mechanism
has no height coordinate and no constraint for it; the vertical component of its v_c vanishes
identically, and no slip is its two horizontal components. Every further contact adds the
holonomic constraint h(q) = -down . p_c(q) = 0 (its support point on the plane: the bicycle's
front wheel, which fixes the pitch) and the three rows v_c = 0: the two no-slip rows and
dh/dt = -down . v_c (the rate of the support point along the surface is tangent to the plane).
The system carries h in ``System(holonomic=...)``; the integrator enforces its derivative, and
:func:`assemble` solves h(q) = 0 for chosen dependent coordinates. When the root's first
rotation is about the vertical (a heading), the horizontal rows are taken in heading axes (the
same constraints, rotated about the vertical). Rows that repeat others on h(q) = 0 (two wheels
on one axle both forbid the axle's sideways motion; a third wheel on that axle, or a fourth
wheel under a rigid frame, repeats the others' heights) are dropped before the System is built,
a repeated height with its holonomic constraint (:mod:`nonholo.builders.mechanism_rows`); the
normal loads are then statically indeterminate, and ``result["normal_force"]`` says so. Each contact
keeps its friction on its own rows all the same (``system.contact_slip_rows``): a friction law, the
stick-slip model and the margins act on them, and ``friction(eps)`` has the coefficients of every row.

The Lagrangian is L = T - V with

    T = sum_b 1/2 m_b |v_Gb|^2 + 1/2 omega_b^T I_b omega_b,   V = -g sum_b m_b down . p_Gb,

G the centre of mass, I_b its inertia about G in body axes; velocities are propagated down the
tree in body axes (the recursion of multibody dynamics, e.g. R. Featherstone, "Rigid Body
Dynamics Algorithms", Springer 2008, ch. 4), which keeps the expressions small. A leaf body that is symmetric about
its joint axis (inertia commuting with the axis, centre of mass and contact surface on it: a
wheel) is described in its parent's axes, omega_b = omega_parent + u theta', so that its angle is
cyclic (absent from every expression) as it is physically.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from .bodies import RigidBody, scalar, vector
from .contact import RollingSystem, check_positive, values_by_name
from .mechanism_rows import independent_rows, record_contact_rows, row_combination, with_normal_forces
from .surfaces import Disc, Sphere, Surface
from ..system.contact_outputs import ContactRows
from ..system.system import System

__all__ = ["Mechanism", "Revolute", "assemble"]

_AXES = {"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}


def _axis(axis, what: str) -> sp.Matrix:
    """A unit 3-vector from "x", "-y", ... or three numbers/expressions (normalized)."""
    if isinstance(axis, str):
        sign = -1 if axis.startswith("-") else 1
        key = axis.lstrip("+-")
        if key not in _AXES:
            raise ValueError(f"{what} must be 'x', 'y', 'z' (optionally signed) or a 3-vector, got {axis!r}")
        return sign * sp.Matrix(_AXES[key])
    u = vector(axis, what)  # finite real entries, named in a refusal
    norm2 = sp.nsimplify(sum(c**2 for c in u)) if all(c.is_number for c in u) else sum(c**2 for c in u)
    if norm2.is_number and not float(norm2) > 0:
        raise ValueError(f"{what} must be a non-zero vector, got {list(u)}")
    if norm2.is_number and abs(float(norm2) - 1.0) < 1e-15:
        return u
    return u / sp.sqrt(norm2)


def _point(point, what: str) -> sp.Matrix:
    return vector(point, what)  # three finite real entries, named in a refusal


def _hat(a) -> sp.Matrix:
    return sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def rotation(axis: sp.Matrix, angle) -> sp.Matrix:
    """Rot(u, a) = cos a Id + sin a hat(u) + (1 - cos a) u u^T (Rodrigues), exact for coordinate axes."""
    c, s = sp.cos(angle), sp.sin(angle)
    return c * sp.eye(3) + s * _hat(axis) + (1 - c) * axis * axis.T


def _is_zero(expr) -> bool:
    e = sp.sympify(expr)
    if e.is_number:
        return abs(complex(e)) < 1e-12
    return sp.simplify(e) == 0


@dataclass(frozen=True)
class Revolute:
    """A revolute joint: rotation by the coordinate ``coordinate`` about ``axis`` through ``origin``,
    both in the parent's axes (the child's axes coincide with the parent's at angle 0, and the
    child's reference point is ``origin``).

    Parameters
    ----------
    axis : "x", "y", "z" (optionally "-x" ...) or three numbers/expressions
        The joint axis u (normalized).
    origin : three numbers/expressions
        A point o of the axis, in the parent's axes from the parent's reference point.
    coordinate : str
        The name of the joint angle.
    """

    axis: object
    origin: object
    coordinate: str


class _Link:
    def __init__(self, name, body, parent, joint):
        self.name, self.body, self.parent, self.joint = name, body, parent, joint
        self.children: list = []
        self.contact: Surface | None = None


class Mechanism:
    r"""A tree of rigid bodies on revolute joints whose wheels roll on the plane z = 0 (module docstring).

    Parameters
    ----------
    root : RigidBody
        The root body; its centre of mass ``com_offset`` and inertia are in its own axes, from
        its reference point.
    name : str
        The root's name.
    attitude : sequence of (coordinate name, axis)
        The root's attitude R = Rot(a_1, c_1) Rot(a_2, c_2) ... (each rotation about a body axis
        after the previous ones; intrinsic Euler angles). Default yaw about z, roll about x,
        pitch about y (Meijaard et al. 2007). The first axis should be the vertical.
    position : two names
        The horizontal coordinates of the root's position (see ``origin``).
    origin : {"reference", "contact"}
        What ``position`` locates: the root's reference point, or the first contact's contact
        point (Meijaard et al.'s rear contact point P of the bicycle).
    down : "z" or "-z" or (0, 0, +-1)
        The direction into the plane (gravity's direction). Default "-z" (z up).

    Examples
    --------
    A two-wheeled cart (axle along y, wheels on it, a heavy chassis below the axle): its root is
    the chassis, each wheel a ``Revolute("y", (0, +-b, 0), "theta_l")`` child with a
    ``Disc(r, axis=(0, 1, 0))`` contact; the second wheel's contact fixes the roll.
    """

    def __init__(self, root: RigidBody, name: str = "root",
                 attitude: Sequence = (("yaw", "z"), ("roll", "x"), ("pitch", "y")),
                 position: Sequence[str] = ("x", "y"), down="-z", origin: str = "reference"):
        if not isinstance(root, RigidBody):
            raise TypeError(f"root must be a nonholo.bodies.RigidBody, got {type(root).__name__}")
        self.down = _axis(down, "down")
        if [abs(c) for c in self.down] != [0, 0, 1]:
            raise ValueError(f"down must be 'z' or '-z' (the plane is z = 0), got {down!r}")
        attitude = [tuple(a) for a in attitude]
        if not attitude or any(len(a) != 2 for a in attitude):
            raise ValueError("attitude must be a non-empty sequence of (coordinate name, axis) pairs")
        self.attitude = [(str(c), _axis(a, f"attitude axis of {c}")) for c, a in attitude]
        if len(position) != 2:
            raise ValueError(f"position must name two coordinates (x and y), got {position!r}")
        self.position = [str(p) for p in position]
        if origin not in ("reference", "contact"):
            raise ValueError(f"origin must be 'reference' or 'contact', got {origin!r}")
        self.origin = origin
        self.links: dict = {name: _Link(name, root, None, None)}
        self.root = name
        self.contacts: list = []
        self._coordinate_names = [*self.position, *(c for c, _ in self.attitude)]
        self._check_unique()

    # ------------------------------------------------------------------ building
    def add(self, name: str, body: RigidBody, parent: str, joint: Revolute) -> str:
        """Attach ``body`` (called ``name``) to ``parent`` by the revolute ``joint``; returns ``name``."""
        if not isinstance(body, RigidBody):
            raise TypeError(f"body must be a nonholo.bodies.RigidBody, got {type(body).__name__}")
        if not isinstance(joint, Revolute):
            raise TypeError(f"joint must be a nonholo.multibody.Revolute, got {type(joint).__name__}")
        if parent not in self.links:
            raise ValueError(f"parent {parent!r} is not a body of the mechanism ({list(self.links)})")
        if name in self.links:
            raise ValueError(f"name {name!r} is already a body of the mechanism")
        joint = Revolute(_axis(joint.axis, f"joint {joint.coordinate!r}: axis"),
                         _point(joint.origin, f"joint {joint.coordinate!r}: origin"), str(joint.coordinate))
        link = _Link(name, body, parent, joint)
        self.links[name] = link
        self.links[parent].children.append(name)
        self._coordinate_names.append(joint.coordinate)
        try:
            self._check_unique()
        except ValueError:
            self._coordinate_names.pop()
            del self.links[name]
            self.links[parent].children.pop()
            raise
        return name

    def roll_on_plane(self, body: str, surface: Surface) -> None:
        """A rolling contact (no slip) of ``body``'s convex ``surface`` (in its axes) with the plane.
        The first contact fixes the root's height; each further one adds a holonomic constraint."""
        if body not in self.links:
            raise ValueError(f"body {body!r} is not a body of the mechanism ({list(self.links)})")
        if not isinstance(surface, Surface):
            raise TypeError(f"surface must be a nonholo.surfaces.Surface, got {type(surface).__name__}")
        if self.links[body].contact is not None:
            raise ValueError(f"body {body!r} has a contact already (one surface per body)")
        self.links[body].contact = surface
        self.contacts.append(body)

    def _check_unique(self) -> None:
        names = self._coordinate_names
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise ValueError(f"coordinate names must be unique, {dup} repeated")

    @property
    def coordinate_names(self) -> list:
        """x, y, the root's attitude angles, then the joint angles in the order the bodies were added."""
        return list(self._coordinate_names)

    def _positive(self) -> tuple:
        """(name, value, zero allowed) of what must be positive at the parameters' values of every use
        (RollingSystem): each body's mass, each rolling body's inertia (positive definite: a wheel
        without inertia about its axle leaves its spin without kinetic energy) and its surface's lengths
        (a wheel of radius -0.5 rolled backwards below the plane)."""
        out = []
        for name, link in self.links.items():
            out.append((f"mass of {name!r}", link.body.mass, False))
            if link.contact is not None:
                out.append((f"inertia of {name!r}", link.body.inertia, False))
                out += [(f"{length} of {name!r}", value, False) for length, value in link.contact.lengths]
        return tuple(out)

    # ------------------------------------------------------------------ the system
    def system(self, gravity=9.81, parameters: Mapping | None = None, friction_coefficient=1.0,
               normal_coefficient=None, name: str | None = None) -> System:
        r"""The mechanism as a :class:`~nonholo.System`: metric and potential from T - V, the
        contacts' rows, their holonomic constraints (module docstring).

        Parameters
        ----------
        gravity : number or SymPy expression
            g, along ``down``: the magnitude, >= 0 and finite, a symbol's value in ``parameters``
            too (a negative g would pull the mechanism off the plane).
        parameters : mapping {symbol: value}
            Values of the symbols used in the bodies, joints, surfaces and gravity.
        friction_coefficient : number or SymPy expression
            mu of the no-slip rows, for ``system.friction(eps)`` (force -(mu / eps) x slip, on every
            contact's rows: with a repeated row T^T diag(mu) T on the kept ones, exact on h(q) = 0);
            positive and finite.
        normal_coefficient : number or SymPy expression, optional
            mu of the normal-velocity rows of the contacts after the first (default
            ``friction_coefficient``). ``system.friction(eps)`` realizes these rows by a viscous
            force too, which lets a loaded wheel sink at a rate of about eps N / mu: give them a
            coefficient much larger than the sliding one to keep the contact nearly hard. Positive.

        Raises
        ------
        ValueError, TypeError
            A bad number (NaN, inf, a bool, a negative gravity or a coefficient <= 0), named,
            before anything is built.
        """
        g = scalar(gravity, "gravity")
        if parameters is not None and not isinstance(parameters, Mapping):
            raise TypeError(f"parameters must be a mapping {{symbol or name: value}}, got {type(parameters).__name__}")
        values = values_by_name(parameters or {})
        at = g.xreplace({s: sp.Float(values[s.name]) for s in g.free_symbols if s.name in values})  # at their values
        if at.is_number and not float(at) >= 0:
            given = "" if g.is_number else f" = {float(at):g} at the parameters' values"
            raise ValueError(f"gravity = {gravity!r}{given} must be >= 0: it is g, the magnitude of gravity along down "
                             f"({list(self.down)}); a negative g pulls the mechanism off the plane")
        why = " (mu: friction(eps) of the contact rows needs mu > 0; a negative one pushes along the slip)"
        try:
            mu_t = scalar(friction_coefficient, "friction_coefficient", positive=True)
            mu_n = mu_t if normal_coefficient is None else scalar(normal_coefficient, "normal_coefficient",
                                                                  positive=True)
        except ValueError as error:
            raise ValueError(f"{error}{why}") from None
        if not self.contacts:
            raise ValueError("the mechanism has no contact; add one with roll_on_plane(body, surface)")
        kin = _Kinematics(self)
        G, V = kin.lagrangian(g)
        rows, holonomic = kin.contact_rows()
        A = sp.Matrix.vstack(*rows)
        sizes = [block.rows for block in rows]
        # the repeated rows dropped before the System is built (nonholo.builders.mechanism_rows), a
        # dropped vertical row with its holonomic constraint
        keep = independent_rows(A, holonomic, kin.q, dict(parameters or {}))
        vertical = [sum(sizes[:i]) for i, size in enumerate(sizes) if size == 1]  # aligned with holonomic
        held = [h for h, row in zip(holonomic, vertical) if row in keep]
        mu = [mu_n if size == 1 else mu_t for size in sizes for _ in range(size)]
        friction, T, samples = sp.diag(*[mu[i] for i in keep]), None, []
        if len(keep) < A.rows:  # every row's friction, a repeated one's too: T^T diag(mu) T, A_f = T A on h = 0
            T, samples = row_combination(A, keep, holonomic, kin.q, dict(parameters or {}))
            if T is not None:
                friction = ContactRows(A, sp.zeros(A.rows, 1), keep, T, samples).friction_matrix(mu)
        system = RollingSystem(kin.q, G, V, constraints=A.extract(keep, list(range(A.cols))),
                               friction=friction, parameters=dict(parameters or {}),
                               velocities=kin.qd, holonomic=held or None, name=name or "mechanism")
        system.positive = self._positive()
        check_positive(system.positive, values, "parameters")  # the constant ones too, once
        for body in self.contacts:  # at positive lengths: a sphere of negative radius is one inside out
            self.links[body].contact.check(values)
        system.drawing = _drawing(self, kin)
        bodies = [(self.links[body].body.mass, -(self.down.T * (f["p"] + _matmul(f["R"], f["c"])))[0])
                  for body, f in kin.frames.items()]
        system = with_normal_forces(system, self.contacts, keep, bodies, g)
        record_contact_rows(system, sizes, keep, A, T, samples, mu, self.contacts)
        return system


class _Kinematics:
    r"""Attitudes, positions and velocity Jacobians of a mechanism's bodies.

    Velocities are propagated down the tree in each body's own axes (the recursion of
    multibody dynamics), which keeps the expressions small: with v_b, omega_b the velocity of
    the body's reference point and its angular velocity in its axes (v_b = Jv q', omega_b = Jw q'),

        v_child = Rot(u, theta)^T (v_parent + omega_parent x o),
        omega_child = Rot(u, theta)^T omega_parent + u theta',

    and the centre of mass moves with v_b + omega_b x c. Only the root's position is
    differentiated (its height, and with ``origin="contact"`` its offset from the contact point):
    v_root = R_root^T (dp/dq q' + psi' a x p) with p its position in heading axes. The horizontal
    translation (x', y') is added once, in heading axes (``lagrangian``): it moves every point alike, so its terms
    need only the total mass and the centre of mass. The contact rows use positions in heading
    axes and the angular velocity in heading axes, W q', propagated as W_child = W_parent +
    R_parent u e_theta^T.
    """

    def __init__(self, mech: Mechanism):
        self.mech = mech
        self.q = list(sp.symbols(mech.coordinate_names))
        self.qd = [sp.Symbol(f"{c}_dot") for c in mech.coordinate_names]
        self.n = len(self.q)
        self.index = {c: i for i, c in enumerate(mech.coordinate_names)}
        self.z = sp.Dummy("z_root")
        self.frames: dict = {}  # name -> R (axes to heading axes), p (reference point from (x, y, 0),
        # heading axes), Jv, Jw (velocity and angular velocity Jacobians in own axes), I, c
        self._root_frame()
        for name in self._order():
            if name != mech.root:
                self._joint_frame(name)
        self._height()

    def _order(self) -> list:
        order, stack = [], [self.mech.root]
        while stack:
            name = stack.pop(0)
            order.append(name)
            stack.extend(self.mech.links[name].children)
        return order

    def _root_frame(self) -> None:
        """The root's attitude R = H R' with H the heading (the first rotation, when it is about the
        vertical; else H = Id). Everything vertical (heights, potential) and every velocity in a
        body's axes is the same with R' in place of R, and the contact rows are taken in heading
        axes (H^T v_c: the same constraints, rotated about the vertical), so the expressions carry
        the heading only in the root's horizontal velocity."""
        mech = self.mech
        R, Jw = sp.eye(3), sp.zeros(3, self.n)
        attitude = list(mech.attitude)
        heading = None
        if _is_zero(attitude[0][1].cross(mech.down).norm()):
            heading = rotation(attitude[0][1], self.q[self.index[attitude[0][0]]])
        W = sp.zeros(3, self.n)  # the angular velocity in heading axes, W q'
        for k, (coord, axis) in enumerate(attitude):  # omega = Rot_k^T omega + a_k c_k'
            Rk = rotation(axis, self.q[self.index[coord]])
            Jw = _matmul(Rk.T, Jw)
            Jw[:, self.index[coord]] += axis
            W[:, self.index[coord]] += _matmul(R, axis)
            if not (k == 0 and heading is not None):
                R = R * Rk
        root = mech.links[mech.root].body
        self.heading = sp.eye(3) if heading is None else heading
        self.heading_axis = None if heading is None else (attitude[0][1], self.index[attitude[0][0]])
        self.frames[mech.root] = dict(R=R, p=sp.Matrix([0, 0, self.z]), Jv=None, Jw=Jw, W=W, I=root.inertia,
                                      c=root.com_offset)

    def _joint_frame(self, name: str) -> None:
        link = self.mech.links[name]
        parent = self.frames[link.parent]
        u, o, j = link.joint.axis, link.joint.origin, self.index[link.joint.coordinate]
        p = parent["p"] + parent["R"] * o
        body = link.body
        frame = dict(p=p, I=body.inertia, c=body.com_offset, parent=link.parent, o=o)
        frame["W"] = parent["W"].copy()
        frame["W"][:, j] += _matmul(parent["R"], u)
        if not link.children and _symmetric_about(body, link.contact, u):
            frame["R"], frame["Rj"] = parent["R"], None  # in its parent's axes: omega = omega_parent + u theta'
            Jw = parent["Jw"].copy()
        else:
            Rj = rotation(u, self.q[j])
            frame["R"], frame["Rj"] = parent["R"] * Rj, Rj
            Jw = _matmul(Rj.T, parent["Jw"])
        Jw[:, j] += u
        frame["Jw"] = Jw
        self.frames[name] = frame

    def _support(self, name: str) -> sp.Matrix:
        """R r_c(R^T down): the contact point from the body's reference point, in space axes."""
        frame, surface = self.frames[name], self.mech.links[name].contact
        R, d = frame["R"], self.mech.down
        if isinstance(surface, Disc):  # r (d - (d.a) a) / |d - (d.a) a|, a = R e the axis in space
            a = R * surface.axis / sp.sqrt((surface.axis.T * surface.axis)[0])
            da = (d.T * a)[0]
            return surface.radius * (d - da * a) / sp.sqrt(1 - da**2)
        if isinstance(surface, Sphere):
            return R * surface.center + surface.radius * d
        g = sp.Matrix(sp.symbols("_n1:4"))
        return R * surface.support(g).xreplace(dict(zip(g, R.T * d)))

    def _height(self) -> None:
        """z of the root from the first contact, substituted everywhere; the velocity Jacobians."""
        first = self.mech.contacts[0]
        self.r_c = {first: self._support(first)}
        contact = self.frames[first]["p"] + self.r_c[first]
        z_expr = -contact[2].xreplace({self.z: 0})  # z of the contact = z_root + (terms without z_root)
        shift = sp.Matrix([contact[0], contact[1], 0]) if self.mech.origin == "contact" else sp.zeros(3, 1)
        for f in self.frames.values():  # (x, y) locate the contact point: the root sits at -shift from it
            f["p"] = (f["p"] - shift).xreplace({self.z: z_expr})
        self.r_c = {k: v.xreplace({self.z: z_expr}) for k, v in self.r_c.items()}
        root = self.frames[self.mech.root]
        # the velocity of the root's reference point without the horizontal translation (x', y'),
        # which is added in heading axes
        root["Jv"] = _matmul(root["R"].T, self._heading_velocity(root["p"]))
        for name in self._order():
            f = self.frames[name]
            if name == self.mech.root:
                continue
            parent = self.frames[f["parent"]]
            Jv = parent["Jv"] - _matmul(_hat(f["o"]), parent["Jw"])  # the joint point, parent's axes
            f["Jv"] = Jv if f["Rj"] is None else _matmul(f["Rj"].T, Jv)

    def poses(self) -> dict:
        """name -> (reference point, attitude, centre of mass) in space axes with z up, the
        wheels' own attitude included (for drawing)."""
        H = self.heading
        x, y = (self.q[self.index[c]] for c in self.mech.position)
        out = {}
        for name, f in self.frames.items():
            link = self.mech.links[name]
            R = f["R"]
            if name != self.mech.root and f["Rj"] is None:  # a wheel drawn in its own attitude
                R = _matmul(R, rotation(link.joint.axis, self.q[self.index[link.joint.coordinate]]))
            p = sp.Matrix([x, y, 0]) + _matmul(H, f["p"])
            out[name] = (p, _matmul(H, R), p + _matmul(_matmul(H, f["R"]), f["c"]))
        if self.mech.down[2] > 0:  # z down: shown turned by pi about x, so that up is up
            C = sp.diag(1, -1, -1)
            out = {k: tuple(_matmul(C, e) for e in v) for k, v in out.items()}
        return out

    def _heading_velocity(self, point: sp.Matrix) -> sp.Matrix:
        """J (3 x n), without the x, y columns: the velocity in heading axes of a point at
        ``point`` (heading axes, from (x, y, 0)) is d point/dq q' + psi' a x point + x' h_x + y' h_y."""
        J = point.jacobian(self.q)
        if self.heading_axis is not None:
            a, i = self.heading_axis
            J[:, i] += a.cross(point)
        return J

    def _horizontal(self) -> tuple:
        """(h_x, h_y, i_x, i_y): the columns of x' and y' in heading axes, H^T e_x and H^T e_y."""
        H = self.heading
        ix, iy = (self.index[c] for c in self.mech.position)
        return H[0, :].T, H[1, :].T, ix, iy

    def lagrangian(self, g) -> tuple:
        r"""(G, V): the metric of T = sum 1/2 m |v_G|^2 + 1/2 omega^T I omega and V = -g sum m down . p_G.

        The horizontal translation (x', y') is kept out of the bodies' Jacobians and added once:
        with M the total mass and P = M dC/dq (+ M a x C in the heading's column) the momentum
        Jacobian of the centre of mass C (heading axes),
        G_xx = G_yy = M, G_xy = 0, G_xj = h_x . P_j, G_yj = h_y . P_j."""
        G, V = sp.zeros(self.n, self.n), sp.S.Zero
        mass, moment = sp.S.Zero, sp.zeros(3, 1)
        for name, f in self.frames.items():
            body = self.mech.links[name].body
            JvG = f["Jv"] - _matmul(_hat(f["c"]), f["Jw"])
            G += _gram(JvG, body.mass * sp.eye(3)) + _gram(f["Jw"], f["I"])
            pG = f["p"] + _matmul(f["R"], f["c"])
            V += -g * body.mass * (self.mech.down.T * pG)[0]
            mass, moment = mass + body.mass, moment + body.mass * pG
        P = self._heading_velocity(moment)
        hx, hy, ix, iy = self._horizontal()
        G[ix, ix] += mass
        G[iy, iy] += mass
        for j in range(self.n):
            if j not in (ix, iy):
                G[ix, j] = G[j, ix] = G[ix, j] + _dot(hx, P[:, j])
                G[iy, j] = G[j, iy] = G[iy, j] + _dot(hy, P[:, j])
        return G, V

    def contact_rows(self) -> tuple:
        """(rows, holonomic): v_c = 0 per contact (two rows for the first, three for the others)
        and h = -down . p_c for every contact but the first."""
        rows, holonomic = [], []
        for i, name in enumerate(self.mech.contacts):
            f = self.frames[name]
            r_c = self.r_c[name] if i == 0 else self._support(name)
            # v_c = v + (R omega) x r_c in heading axes, v the velocity of the body's reference point
            Jc = self._heading_velocity(f["p"]) - _matmul(_hat(r_c), f["W"])
            hx, hy, ix, iy = self._horizontal()
            Jc[:, ix], Jc[:, iy] = hx, hy
            rows.append(Jc[:2, :])
            if i:
                rows.append(-self.mech.down.T * Jc)
                holonomic.append(-(self.mech.down.T * (f["p"] + r_c))[0])
        return rows, holonomic


def _gram(J: sp.Matrix, M: sp.Matrix) -> sp.Matrix:
    """J^T M J for a 3 x n Jacobian J (symmetric; zero entries skipped, sums formed once)."""
    n = J.cols
    cols = [j for j in range(n) if any(e != 0 for e in J[:, j])]
    MJ = {j: [_dot(M[k, :], J[:, j]) for k in range(3)] for j in cols}
    out = sp.zeros(n, n)
    for a, i in enumerate(cols):
        for j in cols[a:]:
            out[i, j] = out[j, i] = _dot(J[:, i], MJ[j])
    return out


def _matmul(A: sp.Matrix, B: sp.Matrix) -> sp.Matrix:
    """A B entry by entry with :func:`_dot` (SymPy's matrix product converts large expressions to
    a polynomial domain and back, which costs more than the sums themselves)."""
    return sp.Matrix(A.rows, B.cols, lambda i, j: _dot(A[i, :], B[:, j]))


def _dot(a, b):
    """sum_k a_k b_k, skipping zero terms."""
    return sp.Add(*[x * y for x, y in zip(a, b) if x != 0 and y != 0])


class MechanismPoses:
    """The positions and attitudes of a mechanism's bodies as a function of (q, params); picklable
    (the SymPy expressions are lambdified on first use)."""

    def __init__(self, names, exprs, coordinates, parameters):
        self.names, self.exprs = list(names), exprs
        self.coordinates, self.parameters = list(coordinates), list(parameters)
        self._f = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_f"} | {"_f": None}

    def __call__(self, q, params) -> dict:
        if self._f is None:
            self._f = sp.lambdify([self.coordinates, self.parameters], self.exprs, "numpy")
        p = [float(params[s.name]) for s in self.parameters]
        values = self._f(list(np.asarray(q, dtype=float)), p)
        return {name: (np.asarray(values[3 * i], float).reshape(3), np.asarray(values[3 * i + 1], float).reshape(3, 3),
                       np.asarray(values[3 * i + 2], float).reshape(3)) for i, name in enumerate(self.names)}


class BodyPose:
    """``pose(q, params) -> (position, R)`` of one body of a mechanism (for nonholo.drawing)."""

    def __init__(self, poses: MechanismPoses, name: str):
        self.poses, self.name = poses, name

    def __call__(self, q, params):
        return self.poses(q, params)[self.name][:2]


class Sticks:
    """Shapes of a mechanism's bodies that are not wheels: a line from each body's reference point
    to its children's joints and back, a dot at its centre of mass."""

    def __init__(self, poses: MechanismPoses, children: dict):
        self.poses, self.children = poses, children

    def __call__(self, q, t, params) -> list:
        from ..viz.drawing import dot, line

        pose = self.poses(q, params)
        out = []
        for name, children in self.children.items():
            p = pose[name][0]
            pts = [p] + [x for c in children for x in (pose[c][0], p)]
            out.append(line(np.array(pts + [p]), color="0.25", linewidth=2))
            out.append(dot(pose[name][2], color="tab:red"))
        return out


def _drawing(mech: Mechanism, kin: "_Kinematics"):
    """The mechanism's drawing: the wheels (a Disc about the body y axis) as discs, the other
    bodies as sticks through their joints with a dot at the centre of mass."""
    from ..viz.drawing import Drawing, combine, rigid_body

    exprs = kin.poses()
    names = list(exprs)
    flat = [e for name in names for e in exprs[name]]
    params = sorted({s for e in flat for s in e.free_symbols} - set(kin.q), key=str)
    poses = MechanismPoses(names, flat, kin.q, params)
    wheels, sticks = [], {}
    for name in names:
        surface = mech.links[name].contact
        if isinstance(surface, Disc) and all(_is_zero(e) for e in surface.axis.cross(sp.Matrix([0, 1, 0]))):
            r = surface.radius
            wheels.append(rigid_body(BodyPose(poses, name), shape="disc", radius=float(r) if r.is_number else str(r)))
        else:
            sticks[name] = list(mech.links[name].children)
    return combine(Drawing(Sticks(poses, sticks), projection="3d"), *wheels)


def _symmetric_about(body: RigidBody, surface, u: sp.Matrix) -> bool:
    """The body (inertia, centre of mass) and its contact surface are unchanged by rotations about
    the axis u through its reference point."""
    if any(not _is_zero(e) for e in body.inertia * _hat(u) - _hat(u) * body.inertia):
        return False
    if any(not _is_zero(e) for e in body.com_offset.cross(u)):
        return False
    if surface is None:
        return True
    if isinstance(surface, Disc):
        return all(_is_zero(e) for e in surface.axis.cross(u))
    if isinstance(surface, Sphere):
        return all(_is_zero(e) for e in surface.center.cross(u))
    return False


def assemble(system: System, q, v, dependent: Sequence[str] = (), free: Sequence[str] | None = None,
             params: Mapping | None = None, tol: float = 1e-13, max_iterations: int = 50,
             t: float | None = None) -> np.ndarray:
    r"""A state ``[q, v]`` on the constraint set of ``system``: h(q) = 0 solved (Newton) for the
    ``dependent`` coordinates (as many as holonomic constraints) from the guess ``q``, then
    A(q) v = b solved for the velocities not named in ``free`` (whose values in ``v`` are kept).

    Parameters
    ----------
    system : System
        With ``holonomic`` constraints if ``dependent`` is given.
    q, v : array_like (n,)
        Coordinates (a guess for the dependent ones) and velocities (the free ones used).
    dependent : names
        Coordinates solved from h(q) = 0.
    free : names
        The n - k velocities whose values in ``v`` are kept (required).
    t : float, optional
        The time, needed where b depends on it.
    """
    n, k = system.n, system.k
    q = np.array(q, dtype=float).reshape(-1)
    v = np.array(v, dtype=float).reshape(-1)
    if q.shape != (n,) or v.shape != (n,):
        raise ValueError(f"q and v must have {n} components, got {q.shape} and {v.shape}")
    names = system.coordinate_names
    dep = [_index(names, c, "dependent") for c in dependent]
    pvec = system.param_vector(params)
    if dep:
        fns = system.holonomic_functions()
        if fns is None or len(dep) != len(system.holonomic):
            raise ValueError(f"dependent must name {0 if fns is None else len(system.holonomic)} coordinates "
                             f"(one per holonomic constraint), got {list(dependent)}")
        h_fn, dh_fn = fns
        for _ in range(max_iterations):
            h = np.asarray(h_fn(*q, *pvec), dtype=float).reshape(-1)
            if np.abs(h).max() < tol:
                break
            J = np.asarray(dh_fn(*q, *pvec), dtype=float).reshape(h.size, n)[:, dep]
            q[dep] -= np.linalg.solve(J, h)
        else:
            raise ValueError(f"the holonomic constraints could not be solved for {list(dependent)} "
                             f"(residual {np.abs(h).max():.3g}); try another guess")
    if free is None:
        raise ValueError("free must name the n - k velocities to keep")
    kept = [_index(system.velocity_names, c, "free") for c in free]
    if len(kept) != n - k:
        raise ValueError(f"free must name {n - k} velocities (n - k), got {list(free)}")
    solved = [i for i in range(n) if i not in kept]
    A, b = system.constraint_matrix(q, t, params)
    v[solved] = np.linalg.solve(A[:, solved], b - A[:, kept] @ v[kept])
    return np.r_[q, v]


def _index(names: list, name: str, what: str) -> int:
    if name not in names:
        raise ValueError(f"{what} names {name!r}, which is not among {names}")
    return names.index(name)
