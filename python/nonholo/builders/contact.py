r"""Rolling contact of a convex rigid body with a horizontal plane, as an ordinary System.

Configuration: ``(x, y, q0, q1, q2, q3)``, the horizontal position of the centre of mass G and
the attitude quaternion (:mod:`nonholo.bodies`). With gamma = R^T (0, 0, -1) the downward
vertical in body axes, the surface touches the plane at r_c(gamma) (body axes, from the body's
reference point O; :mod:`nonholo.surfaces`), and with d = r_c - c (c the centre of mass in body
axes) the height of G is the holonomic function

    z_G(q) = gamma . d = h(gamma) - gamma . c,       h the support function.

Kinetic energy and potential (gravity g along -z):

    T = 1/2 m (x'^2 + y'^2 + z_G'^2) + 1/2 Omega^T I Omega + 1/2 I_r ((q . q') / |q|^2)^2,
    V = m g z_G(q),

Omega = 2 E(q) q' / |q|^2; the last term (I_r = tr(I) / 3) only makes the metric of the 6
coordinates regular (see :mod:`nonholo.bodies`). The velocity of the material point at the
contact is v_G + R (Omega x d); its vertical component vanishes identically (d' is tangent to
the surface at the support point), and no slip is the two rows

    A(q) q' = [x', y'] + [R (Omega x d)]_(x, y) = s  (the slip velocity) = 0.

Friction realizations of the same contact (``friction=``), forces on the body at the contact
entering as generalized forces A^T f:

- ``None``: the constraint rows; ``system.friction(eps)`` is then the viscous realization
  f = -(mu / eps) s with mu = ``friction_coefficient`` (Eldering 2016, Gzenda-Chhabra);
- ``"viscous"``: the same force as an unconstrained system with eps a runtime parameter
  (identical vector field to ``friction(eps)`` of the constrained system);
- ``"coulomb"``: regularized Coulomb friction f = -mu N s / sqrt(|s|^2 + eps^2) with the normal
  force taken as N = m g (exact when G does not accelerate vertically; the sliding law a
  smooth function of s, which tends to the set-valued Coulomb law as eps -> 0).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Mapping

import numpy as np
import sympy as sp

from .bodies import (RigidBody, body_rate_matrix, euler_from_quaternion, inertia_eigenvalues, quaternion_rates,
                     rotation_matrices, rotation_matrix, scalar)
from .surfaces import Disc, Ellipsoid, Paraboloid, Sphere, Surface
from ..errors import SimulationWarning
from ..system.margins import DOMAIN_TOL
from ..system.normal_forces import Lift, normal_force_output
from ..system.system import System

__all__ = ["roll_on_plane", "RollingSystem", "Lift", "FRICTION_LAWS", "Surface", "Sphere", "Ellipsoid", "Paraboloid",
           "Disc", "contact_geometry", "body_angular_velocity", "spatial_angular_velocity", "rolling_state",
           "body_frame"]

FRICTION_LAWS = (None, "viscous", "coulomb")


def _hat(a) -> sp.Matrix:
    return sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])


def contact_geometry(body: RigidBody, surface: Surface, quaternion) -> dict:
    """R, gamma, d = r_c - c, z_G and dz_G/dq of ``body`` with ``surface`` at the symbolic
    ``quaternion``. The surface terms are formed in a symbolic gamma and differentiated by the
    chain rule dz/dq = dz/dgamma dgamma/dq (much smaller expressions than differentiating
    z_G(q) as a whole)."""
    R = rotation_matrix(quaternion)
    gamma = -R[2, :].T
    g = sp.Matrix(sp.symbols("_gamma1:4"))
    d_g = surface.support(g) - body.com_offset
    z_g = (g.T * d_g)[0]
    at_q = dict(zip(g, gamma))
    dz_dgamma = sp.Matrix([[sp.diff(z_g, gi) for gi in g]]).xreplace(at_q)
    grad_z = dz_dgamma * gamma.jacobian(list(quaternion))
    return {"R": R, "gamma": gamma, "d": d_g.xreplace(at_q), "z": z_g.xreplace(at_q), "grad_z": grad_z}


def roll_on_plane(body: RigidBody, surface: Surface, *, gravity=9.81, friction: str | None = None,
                  friction_coefficient=1.0, eps: float = 1e-3, parameters: Mapping | None = None,
                  name: str | None = None) -> System:
    r"""A convex rigid body rolling on the horizontal plane z = 0 (module docstring).

    Parameters
    ----------
    body : RigidBody
    surface : Surface
        Its surface in body axes (Sphere, Ellipsoid, Paraboloid, Disc or any support map).
    gravity : number, SymPy expression or 3-vector
        g >= 0 (acting along -z; a 0-d array is g), or the gravity vector (g_x, g_y, g_z) in
        space axes with g_z <= 0: a tilted gravity, the body on an inclined plane
        (V = -m (g_x x + g_y y + g_z z_G)). A symbol's value counts: g_z > 0 at the parameters
        pulls the body off the plane.
    friction : {None, "viscous", "coulomb"}
        None: no-slip constraint rows (nonholonomic, vakonomic, friction(eps), reduced and
        discrete models apply); "viscous" / "coulomb": the sliding contact as a force, with the
        runtime parameter ``eps``.
    friction_coefficient : number or SymPy expression
        mu: the viscous coefficient (mu / eps per unit slip speed) or the Coulomb coefficient,
        mu >= 0 (0: a frictionless contact); with ``friction=None`` the coefficient of
        ``system.friction(eps)``, mu > 0.
    eps : float
        Default of the runtime parameter eps for "viscous" and "coulomb": the friction's velocity
        scale, positive and finite (as ``system.friction(eps)``'s; at eps <= 0 the force pumps
        energy into the body). With these two laws a symbol named eps in the body, surface,
        gravity, friction coefficient or parameters is refused: the runtime parameter would take
        its place.
    parameters : mapping {symbol: value}
        Values of the symbols used in the body, surface, gravity and friction coefficient.

    Returns
    -------
    RollingSystem
        Coordinates ``(x, y, q0, q1, q2, q3)``, velocities ``x_dot, ...``; ``unit_norm`` on the
        quaternion; outputs ``lean`` and ``heading`` (:class:`RollingAngle`: for a
        :class:`Disc` the tilt of its plane from the vertical and the azimuth of its forward
        direction, that of travel when it rolls forward (opposite when backward); for the other
        surfaces the tilt of the body z axis from the vertical and the
        direction of the body x axis; heading unwrapped, continuous along a run where that direction is not vertical
        and jumping by pi where it passes the vertical, with a warning), ``yaw, pitch,
        roll`` (the body's z-y-x Euler angles, for display: ``roll`` is not the lean, it jumps by
        pi where the pitch passes +-pi/2, twice per revolution of a rolling disc), ``z``
        (height of G), ``omega_1..3`` (body angular velocity) and ``slip`` (|s|).

    Raises
    ------
    ValueError, TypeError
        A bad argument, named, before anything is built. The quantities that must be positive
        (eps, the mass, the surface's lengths, mu as above, g and -g_z non-negative; the inertia
        positive definite) are checked again at the parameter values of every use of the
        system, ``nh.simulate(..., params={"eps": ...})`` among them (:class:`RollingSystem`).

    Examples
    --------
    A ball spinning about its body y axis rolls along x, one radius per radian, its quaternion
    kept at unit norm:

    >>> import nonholo as nh
    >>> from nonholo.bodies import RigidBody
    >>> from nonholo.contact import Sphere, roll_on_plane, rolling_state
    >>> ball = roll_on_plane(RigidBody(mass=1.0, inertia=(0.4, 0.4, 0.4)), Sphere(radius=1.0))
    >>> ball.coordinates
    (x, y, q0, q1, q2, q3)
    >>> r = nh.simulate(ball.nonholonomic(), (0, 2), rolling_state(ball, [1, 0, 0, 0], omega=[0, 1, 0]))
    >>> print(f"x = {r['x'][-1]:.6f}, y = {r['y'][-1]:.6f}, |q| = 1 to 1e-12: {r.unit_norm_residual().max() < 1e-12}")
    x = 2.000000, y = 0.000000, |q| = 1 to 1e-12: True
    """
    if not isinstance(body, RigidBody):
        raise TypeError(f"body must be a nonholo.bodies.RigidBody, got {type(body).__name__}")
    if not isinstance(surface, Surface):
        raise TypeError(f"surface must be a nonholo.surfaces.Surface, got {type(surface).__name__}")
    if friction not in FRICTION_LAWS:
        raise ValueError(f"friction must be one of {FRICTION_LAWS}, got {friction!r}")
    # mu = 0 is a frictionless contact for the forces of "viscous" and "coulomb"; with the constraint
    # rows it would leave friction(eps) singular
    mu = scalar(friction_coefficient, "friction_coefficient", positive=friction is None)
    if friction is not None and mu.is_number and float(mu) < 0:
        raise ValueError(f"friction_coefficient must be non-negative, got {friction_coefficient!r}")
    if parameters is not None and not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a mapping {{symbol or name: value}}, got {type(parameters).__name__}")
    params = dict(parameters or {})
    if isinstance(gravity, np.ndarray) and gravity.ndim == 0:  # a NumPy scalar as an array: g itself
        gravity = gravity[()]
    x, y, *quat = coords = list(sp.symbols("x y q0 q1 q2 q3"))
    height = sp.Dummy("z_G")  # gravity checked before the geometry is built
    g_, V = _gravity(gravity, body.mass, x, y, height)
    gravity_vector = _gravity_vector(gravity)
    eps_ = None
    if friction is not None:
        eps_ = sp.Symbol("eps")
        _check_eps_free(body, surface, mu, gravity_vector, params, friction)
        params[eps_] = _positive_number(eps, "eps")
    # g >= 0 along -z (the gravity pressing the body on the plane, -g_z for a vector), at the parameters'
    # values too
    pressing = ("-gravity[2]" if _is_vector(gravity) else "gravity", g_, True)
    positive = (("mass", body.mass, False), ("inertia", body.inertia, False), pressing,
                *((length, value, False) for length, value in surface.lengths),
                ("friction_coefficient", mu, friction is not None), *((("eps", eps_, False),) if eps_ else ()))
    check_positive(positive, values_by_name(params), "parameters")
    surface.check(values_by_name(params))
    vel = list(sp.symbols("x_dot y_dot q0_dot q1_dot q2_dot q3_dot"))
    q = sp.Matrix(quat)
    n2 = (q.T * q)[0]
    geo = contact_geometry(body, surface, quat)
    R, d, z, grad_z = geo["R"], geo["d"], geo["z"], geo["grad_z"]

    # w = J(q) q': velocity of G, body angular velocity, radial rate
    omega_of = 2 * body_rate_matrix(quat) / n2
    J = sp.zeros(7, 6)
    J[0, 0] = J[1, 1] = 1
    J[2, 2:] = grad_z
    J[3:6, 2:] = omega_of
    J[6, 2:] = q.T / n2
    I_r = body.inertia.trace() / 3
    M = sp.diag(body.mass, body.mass, body.mass, body.inertia, I_r)
    G = J.T * M * J

    A = sp.zeros(2, 6)
    A[0, 0] = A[1, 1] = 1
    A[:, 2:] = (R * (-_hat(d)) * omega_of)[:2, :]
    V = V.xreplace({height: z})

    kwargs = dict(constraints=A, friction=mu * sp.eye(2), contacts=[[0, 1]])  # one contact of two slip rows
    if friction is not None:
        s = A * sp.Matrix(vel)
        if friction == "viscous":
            f = -(mu / eps_) * s
        else:
            f = -mu * body.mass * g_ * s / sp.sqrt((s.T * s)[0] + eps_**2)
        kwargs = dict(force=A.T * f)
    law_force = f if friction is not None else None  # the contact's force where a law gives it
    system = RollingSystem(
        coords, G, V, parameters=params, velocities=vel, unit_norm=[quat],
        outputs={**_outputs(A, z, coords, vel, list(params), getattr(surface, "axis", None)),
                 **_contact_forces(body.mass, gravity_vector, z, coords, vel, list(params), law_force)},
        name=name or f"{surface.name} rolling on a plane" + (f" ({friction} friction)" if friction else ""), **kwargs)
    system.pose = RollingPose(system.outputs["z"])  # result.animate() draws the body frame from it
    system.positive = positive
    domain = surface.domain(geo["gamma"])
    if domain is not None:  # where the support map stops holding, a run stops (nonholo.system.margins)
        system.contact_domains = [domain]
    # N = m (z_G'' - g_z): the multiplier of the vertical constraint that the coordinates eliminate
    normal = normal_force_output(system, Lift((body.mass, z)), gravity_vector, [[0, 1]] if system.k else None)
    system.outputs["normal_force"] = system.outputs["friction_ratio"].normal = normal
    return system


class RollingSystem(System):
    """The :class:`~nonholo.System` of :func:`roll_on_plane` and of a mechanism
    (``Mechanism.system``: its bodies' masses, its rolling bodies' inertias and surfaces' lengths,
    named by body): the quantities that must be positive
    (``positive``: (name, value, zero allowed) triples: the friction scale eps, the friction
    coefficient, the mass, the surface's lengths, the gravity pressing on the plane (g or -g_z,
    non-negative), and the inertia, positive definite) are checked at
    the parameter values of every use (:meth:`param_vector`: ``nh.simulate(..., params=...)``, the
    models' methods), as ``system.friction(eps)`` checks its eps; a value given as an expression of
    the parameters (``Sphere(sympy.Symbol("r"))``) is checked there too. Kept by the ``with_*``
    methods and by pickling."""

    positive: tuple = ()

    def __reduce_ex__(self, protocol):
        return _rolling_system, (self.__getstate__(), self.positive)

    def _rebuilt(self, state: dict):
        return _rolling_system(state, self.positive)

    def param_vector(self, params: Mapping | None = None, extra: Mapping | None = None) -> list:
        values = super().param_vector(params, extra)
        cached = self.__dict__.get("_varying")
        if cached is None or cached[0] is not self.positive:  # those that depend on the parameters
            cached = self._varying = (self.positive, [entry for entry in self.positive if entry[1].free_symbols])
        if cached[1]:
            check_positive(cached[1], dict(zip(self.parameter_names, values)), "params" if params else "parameters")
        return values


def _rolling_system(state: dict, positive: tuple) -> RollingSystem:
    """A :class:`RollingSystem` of the constructor arguments ``state`` (``System.__getstate__``),
    its quantities ``positive`` checked at its parameters' defaults."""
    system = RollingSystem.__new__(RollingSystem)
    system.__setstate__(state)  # the constructor, then the carried attributes (System.CARRIED)
    system.positive = positive
    system.param_vector()
    return system


#: Why each quantity of a rolling body must be positive (the messages of :func:`check_positive`).
_WHY = {"eps": "the friction's velocity scale, as system.friction(eps) requires: at eps <= 0 the friction force "
               "pumps energy into the body",
        "friction_coefficient": "mu: a negative one pushes along the slip; friction(eps) of the constraint rows "
                                "needs mu > 0",
        "inertia": "a zero principal moment leaves a rotation without kinetic energy: the metric of the rolling "
                   "body is singular",
        "-gravity[2]": "-g_z, the gravity pressing the body on the plane: g_z > 0 pulls it off the plane it rolls on "
                       "(z = 0, the body above it)"}


def check_positive(quantities, values: Mapping, given: str) -> None:
    """Each of ``quantities`` ((name, value, zero allowed) triples, a value an expression or, for the
    inertia, a matrix) positive (non-negative where zero is allowed; a matrix positive definite) at
    the parameter ``values`` {name: float}; ValueError naming it and the parameters (``given``: where
    they came from) otherwise. A quantity with a symbol without a value is left to the System, which
    refuses the missing value."""
    for name, expr, zero_allowed in quantities:
        symbols = expr.free_symbols
        if any(s.name not in values for s in symbols):
            continue
        subs = {s: values[s.name] for s in symbols}
        at = expr.xreplace(subs)
        bare = expr == sp.Symbol(name)  # a parameter of the quantity's own name (eps)
        shown = f"{name} = {expr}" if symbols and not bare else name
        where = f" in {given}" if bare else \
            f" at {given} {', '.join(f'{s.name}={v:g}' for s, v in subs.items())}" if symbols else ""
        why = f" ({_WHY[name.split()[0]]})" if name.split()[0] in _WHY else ""
        if isinstance(at, sp.MatrixBase):
            moments = inertia_eigenvalues(at) if all(c.is_number and c.is_finite for c in at) else [np.nan]
            if not np.min(moments) > 0:
                whose = "body inertia" if name == "inertia" else name
                raise ValueError(f"{whose} must be positive definite for a body rolling on a plane{why}; "
                                 f"its principal moments are {np.round(moments, 15).tolist()}{where}")
            if moments[2] > (moments[0] + moments[1]) * (1 + 1e-9):
                raise ValueError(f"body inertia: the principal moments {np.round(moments, 15).tolist()} break the "
                                 f"triangle inequality I_3 <= I_1 + I_2{where}")
            continue
        try:
            value = float(at)
        except TypeError:
            value = np.nan  # not real at these values
        if not ((value >= 0 if zero_allowed else value > 0) and np.isfinite(value)):
            raise ValueError(f"{shown} must be {'non-negative' if zero_allowed else 'positive'} and finite{why}, "
                             f"got {value:g}{where}")


def _check_eps_free(body, surface, mu, gravity_vector, parameters: Mapping, friction: str) -> None:
    """ValueError when a symbol of the body, surface, gravity or friction coefficient, or a parameter, is
    named eps: the runtime parameter eps of the friction force (its velocity scale) would take its place
    (a sphere of radius eps = 1 rolled with radius 0.001), as ``system.friction(eps)`` refuses a system
    parameter named eps."""
    n = sp.Matrix(sp.symbols("_n1:4"))
    sources = {"the body": [body.mass, *body.inertia, *body.com_offset],
               "the surface": [*surface.support(n), *(value for _, value in surface.lengths)],
               "friction_coefficient": [mu], "gravity": list(gravity_vector)}
    where = [what for what, exprs in sources.items() if any(s.name == "eps" for e in exprs for s in e.free_symbols)]
    where += ["parameters"] * any((key if isinstance(key, str) else getattr(key, "name", None)) == "eps"
                                  for key in parameters)
    if where:
        raise ValueError(f"{' and '.join(where)} use a symbol named eps, which the runtime parameter eps of "
                         f"friction={friction!r} (the friction's velocity scale) would take the place of; rename it")


def values_by_name(parameters: Mapping) -> dict:
    """{name: float} of the numeric values of ``parameters`` (keys symbols or names); other values are
    left out (the System refuses them with its own message)."""
    out = {}
    for key, value in parameters.items():
        if isinstance(key, (str, sp.Symbol)) and not isinstance(value, (bool, np.bool_, str)):
            try:
                out[key if isinstance(key, str) else key.name] = float(value)
            except (TypeError, ValueError):
                pass
    return out


def _positive_number(value, what: str) -> float:
    """``value`` a positive finite real number (not a bool, a string or an expression of symbols)."""
    if isinstance(value, (bool, np.bool_)) or not (isinstance(value, numbers.Real) or
                                                   isinstance(value, sp.Expr) and value.is_number and value.is_real):
        raise TypeError(f"{what} must be a positive number, got {value!r:.100}")
    x = float(value)
    if not (x > 0 and np.isfinite(x)):
        raise ValueError(f"{what} must be positive and finite, got {value!r}")
    return x


def _gravity_vector(gravity) -> tuple:
    """Gravity as a vector (g_x, g_y, g_z) in space axes: (0, 0, -g) for a scalar g."""
    if _is_vector(gravity):
        return tuple(scalar(g, f"gravity[{i}]") for i, g in enumerate(np.asarray(gravity, dtype=object).reshape(-1)))
    return (sp.Integer(0), sp.Integer(0), -scalar(gravity, "gravity"))


def _contact_forces(mass, gravity_vector, z, coords, vel, param_symbols, law_force=None) -> dict:
    """The contact's forces as outputs (``result["normal_force"]`` ...): :class:`ContactForce`."""
    data = (mass, tuple(gravity_vector), z, tuple(coords), tuple(vel), tuple(param_symbols),
            None if law_force is None else tuple(law_force))
    return {name: ContactForce(name, data) for name in ("friction_force", "friction_ratio")}


class ContactForce:
    r"""A force of the contact of a body rolling on a plane: the tangential (friction) force f, its
    magnitude ``"friction_force"``; and |f| / N, ``"friction_ratio"``, the friction coefficient
    that the motion needs: rolling without slipping holds while it stays below the contact's mu,
    and the body lifts off where N reaches 0 (NaN where N is zero to rounding, as without gravity,
    and where N < 0, past lift-off). f is the multipliers of the two no-slip rows (the force at
    the contact point, in the plane's axes), from the run's acceleration (normal_forces.py), or,
    where a law realizes the contact (``friction="viscous"`` or ``"coulomb"``), the law's force:
    forces added with ``with_force`` are not counted in it. N is ``"normal_force"``, else
    m (z_G'' - g_z), the multiplier of the vertical constraint that the coordinates eliminate
    (:mod:`nonholo.system.normal_forces`). Exact on every model in [q, v] and in a frame; on a
    reduced model, from the nonholonomic acceleration at the run's states, so within O(eps) of
    the friction model's. Picklable."""

    needs_acceleration = True
    needs_time = True
    needs_multipliers = True
    stick_slip_quantity = True  # a stick-slip run gives it from its contacts' forces (integrate/stick_slip.py)

    def __init__(self, name: str, data, normal=None):
        # (mass, gravity vector, z_G(q), coordinates, velocities, parameters, the law's force or None)
        self.name, self.data = name, tuple(data) + (None,) * (7 - len(data))
        self.normal = normal  # the body's "normal_force" output (the friction ratio divides by it)
        self._f = None

    def __getstate__(self):
        return {"name": self.name, "data": self.data, "normal": self.normal}

    def __setstate__(self, state):
        self.__init__(**state)

    def check_system(self, system) -> None:
        """Any system of the body: its first two rows are the contact's (or a law gives its force)."""

    def _compiled(self):
        """(grad z_G (q, p), m (p), g (p), the law's force (q, v, p) or None) as functions, built on
        first use."""
        mass, g, z, coords, vel, params, law = self.data
        grad = sp.lambdify((list(coords), list(params)), [sp.diff(z, c) for c in coords], "numpy")
        constants = sp.lambdify([list(params)], [mass, *g], "numpy")
        force = None if law is None else sp.lambdify((list(coords), list(vel), list(params)), list(law), "numpy")
        return grad, constants, force

    def __call__(self, q, v, params, acceleration, t=0.0, multipliers=None, system=None) -> np.ndarray:
        if self._f is None:
            self._f = self._compiled()
        grad, constants, law = self._f
        p = [params[s.name] for s in self.data[5]]
        q, v, a = (np.asarray(x, dtype=float) for x in (q, v, acceleration))

        def gradient(at):
            return np.array([np.broadcast_to(c, at.shape[1:]) for c in grad(list(at), p)])

        # z_G'' = grad z . q'' + q'^T (Hessian of z) q', the Hessian times q' by a complex step
        # (Im grad z(q + i h q') / h: exact to rounding, no difference of nearby values)
        step = 1e-30
        hessian_v = gradient(q + 1j * step * v).imag / step
        zdd = np.sum(gradient(q) * a, axis=0) + np.sum(v * hessian_v, axis=0)
        m, gx, gy, gz = (float(c) for c in constants(p))
        N = m * (zdd - gz)
        if self.normal is not None:  # the same N as result["normal_force"]
            N = self.normal(q, v, params, a, t=t, multipliers=multipliers, system=system)
        if law is not None:
            fx, fy = (np.broadcast_to(np.asarray(c, dtype=float), q.shape[1:]) for c in law(list(q), list(v), p))
        elif multipliers is not None and np.shape(multipliers)[0] >= 2:
            fx, fy = np.asarray(multipliers, dtype=float)[:2]
        else:  # a model without the rows (a sliding phase of a stick-slip run): Newton's law for G
            fx, fy = m * (a[0] - gx), m * (a[1] - gy)
        tangential = np.hypot(fx, fy)
        if self.name == "friction_force":
            return tangential
        # where N is rounding (no load: gravity 0), the ratio is undefined: NaN, not 0/0 noise such as -0.14;
        # past lift-off (N < 0) the body no longer rests on the plane: NaN too, not a negative ratio
        scale = m * (np.abs(zdd) + abs(gz) + np.hypot(a[0], a[1]) + np.hypot(gx, gy) + np.sum(v**2, axis=0))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(N > 1e-12 * scale, tangential / N, np.nan)


def _gravity(gravity, mass, x, y, z) -> tuple:
    """(g along -z, V): for a scalar g, V = m g z_G; for a vector, V = -m g . (x, y, z_G) and the
    normal part -g_z (the load of the Coulomb law)."""
    if _is_vector(gravity):
        entries = np.asarray(gravity, dtype=object).reshape(-1)
        if entries.size != 3:
            raise ValueError(f"gravity as a vector must have 3 components (space axes), got {entries.size}")
        vector = sp.Matrix([scalar(g, f"gravity[{i}]") for i, g in enumerate(entries)])
        for i, g in enumerate(vector):
            _gravity_component(g, f"gravity[{i}]")
        if vector[2].is_number and float(vector[2]) > 0:
            raise ValueError(f"gravity[2] = g_z = {vector[2]} > 0 pulls the body off the plane it rolls on (z = 0, the "
                             "body above it): give g_z <= 0")
        return -vector[2], -mass * (vector[0] * x + vector[1] * y + vector[2] * z)
    if isinstance(gravity, (bool, np.bool_)):
        raise TypeError(f"gravity must be a number, a SymPy expression or a 3-vector, got {gravity!r}")
    g = scalar(gravity, "gravity")
    _gravity_component(g, "gravity")
    if g.is_number and float(g) < 0:
        raise ValueError(f"gravity = {gravity!r}: g acts along -z and must be >= 0 (a negative g pulls the body off "
                         "the plane); for a tilted gravity give the vector (g_x, g_y, g_z)")
    return g, mass * g * z


def _is_vector(gravity) -> bool:
    """Gravity given as the vector (g_x, g_y, g_z), not as g (a 0-d array is g)."""
    return isinstance(gravity, (list, tuple, sp.MatrixBase)) or isinstance(gravity, np.ndarray) and gravity.ndim > 0


def _gravity_component(g, what: str) -> None:
    if g.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or g.is_number and not (g.is_real and g.is_finite):
        raise ValueError(f"{what} must be finite and real, got {g}")


class RollingPose:
    """The pose (position of G (x, y, z(q)), attitude R(q)) of a rolling body, for
    :mod:`nonholo.drawing`; picklable."""

    def __init__(self, height):
        self.height = height

    def __call__(self, q, params):
        q = np.asarray(q, dtype=float)
        z = float(np.asarray(self.height(q[:, None], None, params)).reshape(-1)[0])
        return np.array([q[0], q[1], z]), rotation_matrices(q[2:6])


def rolling_state(system: System, quaternion, omega, x: float = 0.0, y: float = 0.0, velocity=None,
                  params=None) -> np.ndarray:
    """A state ``[q, q']`` of a :func:`roll_on_plane` system from the attitude and the body
    angular velocity Omega: q' = 1/2 q * (0, Omega) and, unless ``velocity`` = (x', y') is
    given (a sliding start for the friction laws), (x', y') from no slip, A(q) q' = 0.

    ``quaternion``: 4 finite numbers, not all zero (scaled to unit length); ``omega``: 3 finite
    numbers (body axes); ``x``, ``y``: the position of G, finite numbers; ``velocity``: 2 finite
    numbers (x', y') of G, or None; ``params``: the system's parameter values. A bad one raises
    ValueError or TypeError naming it and the shape it must have."""
    if not isinstance(system, System) or system.n != 6 or not system.unit_norm or \
            not (system.k or "slip" in system.outputs):
        raise TypeError(f"system must be a system of nonholo.contact.roll_on_plane, got {system!r:.100}")
    quat = _numbers(quaternion, "quaternion", (4,), "4 finite numbers, not all zero")
    if not np.any(quat):
        raise ValueError(f"quaternion must be 4 finite numbers, not all zero, got {quaternion!r}")
    quat = quat / np.abs(quat).max()  # scaled first: the norm of [1e200, 1e200, 0, 0] overflows to inf
    norm = np.linalg.norm(quat)
    if not (np.isfinite(norm) and norm > 0):
        raise ValueError(f"quaternion has no unit-length scaling (its norm is {norm}), got {quaternion!r}")
    quat = quat / norm
    omega = _numbers(omega, "omega", (3,), "3 finite numbers (the angular velocity in body axes)")
    position = [_numbers(c, what, (), "a finite number") for c, what in ((x, "x"), (y, "y"))]
    q = np.r_[position, quat]
    for d, what in getattr(system, "contact_domains", None) or ():  # where the surface's support map holds
        inside = float(sp.sympify(d).xreplace(dict(zip(system.coordinates, q))).xreplace(
            {s: v for s, v in system.parameters.items() if s.name not in (params or {})}).subs(
            {sp.Symbol(k): v for k, v in (params or {}).items()}))
        if not inside > DOMAIN_TOL:
            raise ValueError(f"quaternion: at this attitude {what}, where the contact with the plane is not defined")
    rates = quaternion_rates(quat, omega)
    if velocity is None:
        A = _slip_matrix(system, q, params)
        velocity = -A[:, 2:] @ rates
    else:
        velocity = _numbers(velocity, "velocity", (2,), "2 finite numbers (x', y'), the velocity of G")
    return np.r_[q, velocity, rates]


def _numbers(value, what: str, shape: tuple, expected: str) -> np.ndarray:
    """``value`` as a float array of ``shape``, finite; TypeError (not numbers) or ValueError
    (shape, NaN, inf) naming ``what`` and what it must be (``expected``)."""
    if isinstance(value, (bool, np.bool_, str)) or isinstance(value, (list, tuple, np.ndarray)) and any(
            isinstance(v, (bool, np.bool_, str)) for v in np.asarray(value, dtype=object).reshape(-1)):
        raise TypeError(f"{what} must be {expected}, got {value!r:.100}")
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be {expected}, got {value!r:.100}") from None
    if array.shape != shape:
        raise ValueError(f"{what} must be {expected}: shape {shape}, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be {expected}, got {value!r:.100}")
    return array


def _slip_matrix(system: System, q, params) -> np.ndarray:
    """A(q) of the contact, also for the friction laws (whose systems have no constraint rows)."""
    if system.k:
        return system.constraint_matrix(q, 0.0, params)[0]  # A does not depend on t
    slip = system.outputs["slip"]
    return np.array(sp.lambdify([list(system.coordinates), list(system.velocities), list(system.parameters)],
                                sp.Matrix(slip.expr).jacobian(system.velocities))(q, np.zeros(6),
                                system.param_vector(params)), dtype=float)


def body_frame(system: System, name: str | None = None):
    r"""The anholonomic frame of a :func:`roll_on_plane` system whose quasi-velocities are the
    body angular velocity: X_i = (-A_q E^T e_i / 2, E^T e_i / 2) for i = 1, 2, 3 (no slip,
    q' = 1/2 E(q)^T Omega), X_4 = (0, q) (the radial direction, also in D), X_5 = d/dx,
    X_6 = d/dy. ``frame.hamel()`` is then the rolling body in quasi-velocities
    (Omega_1, Omega_2, Omega_3, d log|q|/dt); the quaternion is still held at |q| = 1."""
    from ..system.frames import AnholonomicFrame

    if system.n != 6 or not system.unit_norm or system.k != 2:
        raise ValueError("system must come from nonholo.contact.roll_on_plane with friction=None")
    quat = sp.Matrix(system.coordinates[2:6])
    half_Et = body_rate_matrix(list(quat)).T / 2
    A_q = sp.Matrix(system.constraints)[:, 2:]
    X = sp.zeros(6, 6)
    X[:2, :3], X[2:, :3] = -A_q * half_Et, half_Et
    X[2:, 3] = quat
    X[0, 4] = X[1, 5] = 1
    return AnholonomicFrame(system, X, name=name or "body angular velocity")


def body_angular_velocity(q, v) -> np.ndarray:
    """Omega = 2 E(q) q' / |q|^2 from coordinates and velocities of shape (6, n_t): (3, n_t)."""
    quat, rate = np.asarray(q)[2:6], np.asarray(v)[2:6]
    q0, q1, q2, q3 = quat
    E = np.array([[-q1, q0, q3, -q2], [-q2, -q3, q0, q1], [-q3, q2, -q1, q0]])
    return 2 * np.einsum("ijt,jt->it", E, rate) / np.sum(quat**2, axis=0)


def _outputs(A, z, coords, vel, param_symbols, disc_axis=None) -> dict:
    """Display quantities of a rolling body (``System(outputs=...)``)."""
    outputs = {name: RollingAngle(name, disc_axis) for name in ("lean", "heading")}
    outputs.update({name: RollingOutput(name) for name in ("yaw", "pitch", "roll", "omega_1", "omega_2", "omega_3")})
    outputs["z"] = RollingOutput("z", z, (coords, param_symbols))
    outputs["slip"] = RollingOutput("slip", A * sp.Matrix(vel), (coords, vel, param_symbols))
    return outputs


class RollingAngle:
    r"""The lean or the heading of a rolling body, radians; picklable.

    With ``axis`` e (a disc's axis in body axes, unit) and R the attitude: lean = asin((R e)_z),
    the tilt of the disc's plane from the vertical (0 upright, signed: positive when the axis
    points up), and heading = the azimuth of the rolling direction e x e_z in space,
    atan2(-(R e)_x, (R e)_y). With ``axis=None`` (any other body): lean = acos((R e_3)_z), the
    angle between the body z axis (vertical in the reference attitude) and the vertical, in
    [0, pi], and heading = the azimuth of R e_1, the body x axis. The heading is unwrapped along
    the samples (continuous along a run): with the sample times ``t`` (``result["heading"]`` passes
    them), each step takes the branch nearest to the previous value plus the trapezoid of the
    heading's rate (from the angular velocity), so that samples farther apart than pi over the rate
    keep the turns made between them (a disc circling at 4 rad/s sampled once a second: +40 rad over
    10 s, where unwrapping the samples alone gave -22.8); without ``t``, numpy's unwrap (steps below
    pi). The trapezoid is a guess from the samples: where the rate changes monotonically between two
    samples a and b, the turn between them lies within |rate_b - rate_a| dt / 2 of it, and the branch
    nearest the guess is the right one while that is below pi. Where it exceeds pi / 4 between some
    two samples (a margin for a rate that peaks between them, which the samples cannot show: a
    leaning disc sampled every 0.5 s came out 6 turns short with the largest such spread 7.7 rad),
    a SimulationWarning says the heading may be off by whole turns: sample the run more densely
    (``t_eval``, or the solver's steps). The check reads the samples only: a rate that peaks between
    two samples where it changes little across them goes unseen. It is undefined where its direction is vertical
    (a disc lying flat, a body x axis pointing up) and jumps by pi where that direction passes the vertical (a
    ball rolling about its body y axis, twice a turn); a SimulationWarning says where. An axis given by
    expressions of the parameters (``Disc(r, axis=(0, k, 0))``) is evaluated at the run's values."""

    needs_time = True
    unwrapped = True  # its value at a sample depends on those before it: a joined run evaluates it whole

    def __init__(self, name: str, axis=None):
        if name not in ("lean", "heading"):
            raise ValueError(f"name must be 'lean' or 'heading', got {name!r}")
        self.name = name
        if axis is not None:
            axis = [sp.sympify(c) for c in axis]
            axis = tuple(float(c) if c.is_number else c for c in axis)
        self.axis = axis

    def _axis(self, params) -> np.ndarray:
        """The unit axis e at the parameter values ``params`` (by name)."""
        values = {s: params[s.name] for c in self.axis if isinstance(c, sp.Basic) for s in c.free_symbols}
        e = np.array([float(c.xreplace(values)) if isinstance(c, sp.Basic) else c for c in self.axis])
        norm = np.linalg.norm(e)
        if not (np.all(np.isfinite(e)) and norm > 0):
            raise ValueError(f"the disc's axis {list(self.axis)} is not a direction at the parameters "
                             f"{ {s.name: v for s, v in values.items()} }: {e.tolist()}")
        return e / norm

    def __call__(self, q, v, params, t=None) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        shape = q.shape[1:]
        R = rotation_matrices(q[2:6].reshape(4, -1))
        if self.axis is None:
            if self.name == "lean":
                return np.arccos(np.clip(R[:, 2, 2], -1.0, 1.0)).reshape(shape)
            s = R[:, :, 0]  # the body x axis in space, (n_t, 3)
            heading = np.arctan2(s[:, 1], s[:, 0])
        else:
            s = R @ self._axis(params)  # the axis in space, (n_t, 3)
            if self.name == "lean":
                return np.arcsin(np.clip(s[:, 2], -1.0, 1.0)).reshape(shape)
            heading = np.arctan2(-s[:, 0], s[:, 1])
        if t is None or heading.size < 2:
            _warn_vertical(s, None, None)
            return np.unwrap(heading).reshape(shape)
        # the heading's rate: both azimuths turn with s' = omega x s (space axes) as
        # (s_x s_y' - s_y s_x') / (s_x^2 + s_y^2)
        ds = np.cross(spatial_angular_velocity(q.reshape(6, -1), np.asarray(v, dtype=float).reshape(6, -1)).T, s)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = (s[:, 0] * ds[:, 1] - s[:, 1] * ds[:, 0]) / (s[:, 0] ** 2 + s[:, 1] ** 2)
        t = np.asarray(t, dtype=float).reshape(-1)
        dt = np.diff(t)
        turned = dt * (rate[1:] + rate[:-1]) / 2
        _warn_unresolved_turns(t, rate, dt)
        _warn_vertical(s, t, turned)
        out = heading.copy()
        for i in range(1, out.size):
            guess = out[i - 1] + (turned[i - 1] if np.isfinite(turned[i - 1]) else 0.0)
            out[i] = heading[i] + 2 * np.pi * np.round((guess - heading[i]) / (2 * np.pi))
        return out.reshape(shape)


HEADING_SPREAD = np.pi / 4  # the largest |rate_b - rate_a| dt / 2 between samples the heading trusts
NEAR_VERTICAL = 1e-3  # the horizontal part of the heading's direction below which it counts as vertical


def _warn_vertical(s, t, turned) -> None:
    """A SimulationWarning where the direction whose azimuth is the heading (``s``, (n_t, 3)) is vertical at a
    sample (its horizontal part below NEAR_VERTICAL) or passes the vertical between two (its horizontal parts
    opposed, by more than the heading's rate turns them, ``turned``): the heading is undefined there and jumps
    by pi. An outside probe's ball rolling straight along x about its body y axis: its body x axis passes
    the vertical twice a turn, and the heading read 0, pi, 0, -pi (signs arbitrary) with no word, where the
    docs said it is continuous along a run."""
    horizontal = s[:, :2]
    size = np.linalg.norm(horizontal, axis=1)
    with np.errstate(invalid="ignore"):
        opposed = np.einsum("ij,ij->i", horizontal[1:], horizontal[:-1]) < 0
        if turned is None:  # no run's times: points, not a motion between them
            opposed[:] = False
        else:
            opposed &= ~(np.abs(turned) > np.pi / 2)  # a turn the rate explains is no pass of the vertical
    at = np.flatnonzero(size < NEAR_VERTICAL)
    between = np.flatnonzero(opposed)
    if not at.size and not between.size:
        return
    first = min([*at, *between])
    when = "" if t is None else f", first near t = {np.asarray(t, dtype=float).reshape(-1)[first]:.6g}"
    warnings.warn(f"the heading is undefined where the direction it is the azimuth of (a disc's rolling direction, "
                  f"another body's x axis) is vertical, and jumps by pi where that direction passes the vertical: "
                  f"{at.size + between.size} sample(s) or interval(s) of this run do{when}. For the direction of "
                  "travel of a body that rolls over, take the azimuth of its velocity, atan2(y', x')",
                  SimulationWarning, stacklevel=4)


def _warn_unresolved_turns(t, rate, dt) -> None:
    """A SimulationWarning where the trapezoid of the heading's rate between two samples may miss whole
    turns: its spread |rate_b - rate_a| dt / 2 (the bound on its error for a rate monotone between them)
    above HEADING_SPREAD (:class:`RollingAngle`)."""
    with np.errstate(invalid="ignore"):
        spread = np.abs(rate[1:] - rate[:-1]) * dt / 2
    wide = np.flatnonzero(spread > HEADING_SPREAD)  # a rate undefined at a sample (NaN): not counted
    if not wide.size:
        return
    i = wide[np.argmax(spread[wide])]
    warnings.warn(f"the heading may be off by whole turns (2 pi k): the samples are too sparse for the turns made "
                  f"between them, which are counted from the trapezoid of the heading's rate; between {wide.size} "
                  f"pair(s) of samples, the first at t = {t[wide[0]]:.6g}, the rate changes by so much that the "
                  f"trapezoid may miss a turn (from {rate[i]:.4g} to {rate[i + 1]:.4g} rad/s between t = {t[i]:.6g} "
                  f"and {t[i + 1]:.6g}: |change| dt / 2 = {spread[i]:.3g} > pi / 4), and it may peak unseen between "
                  "others. Sample the run more densely (t_eval, or the solver's steps without it)", SimulationWarning,
                  stacklevel=4)


class RollingOutput:
    """One display quantity f(q, v, params) of a rolling body; picklable (SymPy expressions are
    lambdified on first use)."""

    def __init__(self, name: str, expr=None, args=None):
        self.name, self.expr, self.args = name, expr, args
        self._f = None

    def __getstate__(self):
        return {"name": self.name, "expr": self.expr, "args": self.args}

    def __setstate__(self, state):
        self.__init__(**state)

    def __call__(self, q, v, params) -> np.ndarray:
        if self.name in ("yaw", "pitch", "roll"):
            return euler_from_quaternion(q[2:6])[self.name]
        if self.name.startswith("omega_"):
            return body_angular_velocity(q, v)[int(self.name[-1]) - 1]
        if self._f is None:  # one function per component: entries may be arrays or constants
            self._f = sp.lambdify(self.args, list(sp.Matrix([self.expr])), "numpy")
        p = [params[s.name] for s in self.args[-1]]
        values = self._f(list(q), p) if self.name == "z" else self._f(list(q), list(v), p)
        values = np.array([np.broadcast_to(np.asarray(c, dtype=float), q.shape[1:]) for c in values])
        return values[0] if self.name == "z" else np.linalg.norm(values, axis=0)


def spatial_angular_velocity(q, v) -> np.ndarray:
    """omega = R Omega in space axes, shape (3, n_t)."""
    return np.einsum("tij,jt->it", rotation_matrices(np.asarray(q)[2:6]), body_angular_velocity(q, v))
