r"""Convex body surfaces for rolling contact, given by their support map.

A convex surface in body axes touches a plane whose outward unit normal (seen from the body)
is n at the support point r_c(n): the point of the surface where the body's outward normal is
n. For a body on a horizontal plane n = gamma = R^T (0, 0, -1), the downward vertical in body
axes, and the height of the body's reference point above the plane is -gamma . r_c(gamma)
(the support function). Every surface here gives r_c(n) in closed form for |n| = 1.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .bodies import scalar, vector

__all__ = ["Surface", "Sphere", "Ellipsoid", "Paraboloid", "Disc"]


class Surface:
    """A convex surface given by its support map ``support(n)`` (a SymPy 3-vector).

    ``lengths``: the surface's lengths, ``(name, value)`` pairs, each positive (a radius, a
    semi-axis); a value given as an expression of symbols is checked at the values of the
    parameters of the system built on the surface (:func:`nonholo.contact.roll_on_plane`)."""

    lengths: tuple = ()

    def __init__(self, support, name: str = "surface"):
        if not callable(support):
            raise TypeError("support must be a callable n -> r_c(n) returning a SymPy 3-vector")
        self._support = support
        self.name = name

    def domain(self, n):
        """None when the support map holds for every n; else (a SymPy expression d(n) in [0, 1], 0
        where the support map stops holding, and what happens there): a run stops where d falls to
        DOMAIN_TOL (:mod:`nonholo.system.margins`), a start outside is refused."""
        return None

    def support(self, n) -> sp.Matrix:
        """r_c(n): the surface point where the outward normal is the unit vector n."""
        r = sp.Matrix(self._support(sp.Matrix(n)))
        if r.shape != (3, 1):
            raise ValueError(f"the support map of {self.name} must return a 3-vector, got shape {r.shape}")
        return r

    def check(self, values: dict) -> None:
        """ValueError unless ``support`` is the support map of a convex surface at 200 directions n (of its
        domain, the parameters by name at ``values``; skipped while a symbol has no value): the contact point
        moves tangent to the surface, n . dr_c/dn = 0 along the unit sphere, and it is the surface's point
        farthest along n, n . r_c(n) >= n . r_c(m). A map that is neither (a twisted r_c, or -n: a ball
        rolling inside out, its centre below the plane) built a model of no rolling body."""
        n = sp.Matrix(sp.symbols("_n1:4"))
        r = self.support(n)
        dom = self.domain(n)
        exprs = [*r, dom[0] if dom is not None else sp.S.One]
        at = {sym: values[sym.name] for e in exprs for sym in e.free_symbols if sym.name in values}
        exprs = [sp.sympify(e).xreplace(at) for e in exprs]
        if any(sym not in set(n) for e in exprs for sym in e.free_symbols):
            return
        f = sp.lambdify([list(n)], exprs, "numpy")

        def at(M):  # r_c and the domain at the unit vectors along the columns of M
            M = M / np.linalg.norm(M, axis=0)
            with np.errstate(all="ignore"):
                return np.array([np.broadcast_to(np.asarray(v, dtype=float), M.shape[1:]) for v in f(M)])

        N = np.random.default_rng(0).normal(size=(3, 200))
        N /= np.linalg.norm(N, axis=0)
        out = at(N)
        keep = np.isfinite(out).all(axis=0) & (out[3] > 0.2)
        N, R = N[:, keep], out[:3, keep]
        if N.shape[1] < 8:
            return
        scale = max(1.0, float(np.abs(R).max()))
        tangent = np.cross(N.T, np.eye(3)[np.argmin(np.abs(N), axis=0)]).T
        tangent /= np.linalg.norm(tangent, axis=0)
        h = 1e-6
        rate = (at(N + h * tangent)[:3] - at(N - h * tangent)[:3]) / (2 * h)
        normal = np.abs(np.einsum("ip,ip->p", N, rate))
        reach = N.T @ R  # [i, j] = n_i . r_c(n_j)
        beyond = np.max(reach - np.diag(reach)[:, None], axis=1)
        worst = int(np.nanargmax(normal))
        if normal[worst] > 1e-5 * scale:
            raise ValueError(f"surface {self.name!r}: support is no support map of a convex surface: at n = "
                             f"{np.round(N[:, worst], 6).tolist()} the contact point r_c(n) moves along n "
                             f"(n . dr_c = {normal[worst]:.3g} per radian of n), not tangent to the surface")
        worst = int(np.nanargmax(beyond))
        if beyond[worst] > 1e-9 * scale:
            raise ValueError(f"surface {self.name!r}: support is no support map of a convex surface: at n = "
                             f"{np.round(N[:, worst], 6).tolist()} another of its points lies {beyond[worst]:.3g} "
                             "farther along n than r_c(n) (r_c(n) must be the surface's point farthest along its "
                             "outward normal n: -n is a sphere inside out)")

    def __repr__(self) -> str:
        return f"<Surface {self.name}>"


class Sphere(Surface):
    """A sphere of radius r > 0 about ``center`` (body axes, finite): r_c(n) = center + r n."""

    def __init__(self, radius, center=(0, 0, 0)):
        self.radius, self.center = scalar(radius, "radius", positive=True), vector(center, "center")
        self.lengths = (("radius", self.radius),)
        super().__init__(lambda n: self.center + self.radius * n, "sphere")


class Ellipsoid(Surface):
    r"""The ellipsoid x^2/a^2 + y^2/b^2 + z^2/c^2 = 1 (semi-axes a, b, c > 0): r_c(n) = A n / sqrt(n^T A n),
    A = diag(a^2, b^2, c^2)."""

    def __init__(self, a, b, c):
        self.axes = tuple(scalar(s, name, positive=True) for s, name in ((a, "a"), (b, "b"), (c, "c")))
        self.lengths = tuple(zip("abc", self.axes))
        A = sp.diag(*[s**2 for s in self.axes])
        super().__init__(lambda n: A * n / sp.sqrt((n.T * A * n)[0]), "ellipsoid")


class Paraboloid(Surface):
    r"""The bowl z = x^2 / (2 rho1) + y^2 / (2 rho2) (radii of curvature rho1, rho2 > 0 at its
    lowest point, the body's origin); it touches the plane for n_z < 0:
    r_c(n) = (-rho1 n_x / n_z, -rho2 n_y / n_z, (rho1 n_x^2 + rho2 n_y^2) / (2 n_z^2))."""

    def __init__(self, rho1, rho2):
        self.radii = (scalar(rho1, "rho1", positive=True), scalar(rho2, "rho2", positive=True))
        self.lengths = (("rho1", self.radii[0]), ("rho2", self.radii[1]))
        r1, r2 = self.radii
        super().__init__(lambda n: sp.Matrix([-r1 * n[0] / n[2], -r2 * n[1] / n[2],
                                              (r1 * n[0] ** 2 + r2 * n[1] ** 2) / (2 * n[2] ** 2)]), "paraboloid")

    def domain(self, n):
        """-n_z / |n|: the cosine of the bowl's tilt from upright (its support point runs off to
        infinity as the tilt nears 90 degrees)."""
        n = sp.Matrix(n)
        return -n[2] / sp.sqrt((n.T * n)[0]), "the paraboloid's bowl no longer faces down (tilted 90 degrees)"


class Disc(Surface):
    r"""A thin disc (knife-edge wheel) of radius r > 0 about the origin with unit axis e (body
    axes; ``axis`` is scaled to unit length): r_c(n) = r (n - (n . e) e) / sqrt(|n|^2 - (n . e)^2);
    undefined when the disc lies flat (n parallel to e)."""

    def __init__(self, radius, axis=(0, 1, 0)):
        self.radius, axis = scalar(radius, "radius", positive=True), vector(axis, "axis")
        self.lengths = (("radius", self.radius),)
        norm2 = (axis.T * axis)[0]
        if norm2.is_number and not float(norm2) > 0:
            raise ValueError(f"axis must be a nonzero direction, got {list(axis)}")
        self.axis = axis if norm2 == 1 else axis / sp.sqrt(norm2)
        e = self.axis

        def support(n):
            ne = (n.T * e)[0]
            return self.radius * (n - ne * e) / sp.sqrt((n.T * n)[0] - ne**2)

        super().__init__(support, "disc")

    def domain(self, n):
        """1 - (n . e)^2 / |n|^2: the squared sine of the angle between the vertical and the disc's
        axis (0 when the disc lies flat, where its contact point jumps across the rim)."""
        n = sp.Matrix(n)
        return 1 - (n.T * self.axis)[0] ** 2 / (n.T * n)[0], "the disc lies flat"
