"""Mechanical systems defined in SymPy.

A system on Q (coordinates q in R^n) is given by

- the metric G(q) (kinetic energy 1/2 v^T G v), symmetric positive definite,
- the potential V(q),
- constraint rows A(q) (k x n) and an affine part b(q, t): A(q) v = b(q, t),
- friction coefficients mu(q) (k x k, symmetric positive definite) for the friction model,
- a generalized force F(q, v, t),

with named runtime parameters (the notation of Gzenda and Chhabra; docs/cheatsheet.md).
The expressions are lowered once to a C++ expression graph; every derivative the models need
is computed from it by automatic differentiation in C++.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import sympy as sp

from .. import _core
from ..numerics import number_text
from .. import options as check
from ..errors import ModelError
from ..expressions.lowering import SerializedGraph, check_free_symbols, lower_parts, nonzero_entries
from ..expressions.names import SymbolTable, expression_symbols, resolve
from ..expressions.parsing import to_sympy
from .arguments import (check_not_time, normalize_parameters, parameter_values, as_matrix, as_symbols, immutable_matrix,
                        holonomic_argument, order_argument, outputs_argument, speeds_argument, unit_norm_groups,
                        contacts_argument, velocities_argument, given_speeds, known_keywords, free_of_assumptions)
from .checks import check_built, check_size
from .extend import Extensions
from .point_geometry import PointGeometry
from .slow_manifold_queries import SlowManifoldQueries
from .recipes import model_factory
from .friction_scale import default_scale
from .sparsity import prefers_sparse, sparse_choice

__all__ = ["System"]


class System(Extensions, SlowManifoldQueries, PointGeometry):
    r"""A mechanical system with (possibly affine) velocity constraints.

    Parameters
    ----------
    coordinates : sequence of sympy.Symbol, length n
        The coordinates q.
    metric : (n, n) SymPy matrix
        G(q): kinetic energy 1/2 v^T G(q) v. Must be symmetric positive definite.
    potential : SymPy expression, optional
        V(q).
    constraints : (k, n) SymPy matrix, optional
        A(q): the constraint one-forms as rows; velocities satisfy A(q) v = b(q, t).
    affine : length-k SymPy vector, optional
        b(q, t), the affine part (a moving constraint, e.g. a rotating table). Default 0.
    friction : (k, k) SymPy matrix or scalar, optional
        mu(q), the friction coefficients of the friction model
        G v' + ... = -(1/eps) A^T mu (A v - b). Default: the identity.
    force : length-n SymPy vector, optional
        Generalized force F(q, v, t) (a covector), e.g. viscous or rolling friction.
    parameters : mapping {symbol or name: value}, optional
        Runtime parameters with their default values, overridable at simulation time.
    velocities : sequence of sympy.Symbol, optional
        Symbols for the velocities used in ``force``; default ``<name>_dot``.
    time : sympy.Symbol, optional
        The time symbol used in ``affine`` and ``force``; default ``Symbol("t")``.
    name : str, optional
        A label for display.
    holonomic : sequence of SymPy expressions, optional
        Holonomic constraints h(q) = 0 the system carries (their time derivatives must be among
        the constraint rows, which the models enforce: a run refuses them otherwise). Used by
        :func:`nonholo.linearize` to restrict perturbations to h(q) = 0; set by the SymPy adapters from
        ``configuration_constraints`` / ``hol_coneqs``.
    indefinite_metric : bool, optional
        Accept a metric that is regular but not positive definite (a Lagrangian such as
        Fernandez-Bloch's for the rolling disk, as in Mestdag-Crampin (2010)). The Euler-Lagrange and
        Lagrange-d'Alembert flows are well defined; the friction and slow-manifold models assume
        a positive-definite metric and should not be used.
    unit_norm : sequence of coordinate groups, optional
        Groups of coordinates (symbols or names) that live on a unit sphere, e.g. a rigid
        body's quaternion (:mod:`nonholo.bodies`): the integrator scales them back to norm 1
        after each step (``result.unit_norm_residual()`` reports the residual). The system's
        expressions must be invariant under q_g -> s q_g, q_g' -> s q_g'.
    outputs : mapping {name: callable}, optional
        Derived quantities shown by ``result[name]``: ``f(q, v, params)`` with q, v of shape
        (n, n_t) (v the physical velocity) returning shape (n_t,), e.g. Euler angles for
        display.
    applied_force : SymPy matrix (n,), optional
        r(q, v, t) = F - c(q, v) - dV/dq, the applied force of the Lagrange-d'Alembert equations
        G v' = r + A^T lambda written out in a cheaper form (Kane's equations: the loads minus
        the inertia forces at v' = 0, as :meth:`from_kanes_method` gives it). It must be the same
        function as the one the metric, potential and force define (everything else, e.g. the
        vakonomic model's extra terms, energies and symbolic derivations, uses those); the
        compiled right-hand sides use it for r.
    speeds : (names, vectors, offset), optional
        A velocity frame for the state of :meth:`nonholonomic`: quasi-velocities named ``names``
        (m = n - k of them) with q' = X_D(q) u + w0(q), X = ``vectors`` (n, n; the first m
        columns span D) and ``offset`` w0 (length n, A w0 = b; None for linear constraints).
        ``vectors`` may also be a :class:`~nonholo.expressions.speed_frame.DependentSpeeds`
        (offset None): speeds u = (u_ind, u_dep) with q' = J u + q0 and C u + f = 0, the
        dependent ones solved numerically at each evaluation (a pivoted LU of C_dep), never
        symbolically. :meth:`from_kanes_method` sets it to Kane's independent speeds that way.
    contacts : list of lists of row indices, optional
        The constraint rows grouped into contacts, each row in at most one (default: each its own):
        ``friction(law=...)`` gives each contact the force of its slip vector, so an isotropic law
        acts on the two rows of a wheel or a ball together. A row in no contact is an ideal
        constraint (a joint, a quaternion's norm): held by ``stick_slip`` in every mode, without a
        cone in ``friction_margin``, kept by ``friction(law=...)`` (``friction(eps)`` relaxes all).

    Notes
    -----
    Systems are values: :meth:`with_force`, :meth:`with_potential`, :meth:`with_constraints` and
    :meth:`with_parameters` return a new system (:mod:`nonholo.system.extend`).
    States of the models built from a system are ordered ``[q, v]`` (and ``[q, v, lambda]`` for
    the vakonomic model); see :attr:`state_names`.

    Examples
    --------
    A knife edge on the plane: it moves only along its heading theta, sin(theta) x' - cos(theta) y' = 0.
    Started at unit speed and turning rate it runs round a circle of radius 1, its energy conserved.

    >>> import numpy as np, sympy as sp
    >>> import nonholo as nh
    >>> x, y, theta = sp.symbols("x y theta")
    >>> knife = nh.System([x, y, theta], sp.diag(1, 1, 0.5), name="knife edge",
    ...                   constraints=sp.Matrix([[sp.sin(theta), -sp.cos(theta), 0]]))
    >>> knife
    <nonholo.System 'knife edge': n=3 coordinates (x, y, theta), k=1 constraints>
    >>> result = nh.simulate(knife.nonholonomic(), (0, np.pi), [0, 0, 0, 1, 0, 1], t_eval=[0, np.pi])
    >>> print(result.y[:3, -1].round(6) + 0.0)  # half a turn
    [0.       2.       3.141593]
    >>> print(result.energy().round(8))
    [0.75 0.75]
    """

    def __init__(self, coordinates: Sequence[sp.Symbol], metric, potential=0, constraints=None, affine=None,
                 friction=None, force=None, parameters: Mapping | None = None, *,
                 velocities: Sequence[sp.Symbol] | None = None, time: sp.Symbol | None = None, name: str | None = None,
                 indefinite_metric: bool = False, unit_norm: Sequence | None = None, outputs: Mapping | None = None,
                 holonomic=None, applied_force=None, speeds=None, contacts=None):
        self.coordinates = free_of_assumptions(as_symbols(coordinates, "coordinates"), "coordinates")
        self.unit_norm = unit_norm_groups(unit_norm, self.coordinates)
        self.outputs = outputs_argument(outputs)
        self.indefinite_metric = check.flag(indefinite_metric, "indefinite_metric")
        n = len(self.coordinates)
        if n == 0:
            raise ValueError("coordinates must contain at least one symbol")
        if time is not None and not isinstance(time, sp.Symbol):
            raise TypeError(f"time must be a SymPy symbol, got {time!r}")
        self.name = name or "System"
        self.drawing = None  # a nonholo.drawing.Drawing for result.animate(); built-in systems set theirs

        self.metric = as_matrix(metric, (n, n), "metric")
        self.potential = to_sympy(potential, "potential")
        if not isinstance(self.potential, sp.Expr) or isinstance(self.potential, sp.MatrixBase):
            raise TypeError("potential must be a scalar SymPy expression")
        if constraints is None:
            if affine is not None:
                raise ValueError("affine was given without constraints")
            self.constraints = sp.ImmutableMatrix.zeros(0, n)
        else:
            A = immutable_matrix(constraints, "constraints")
            if A.shape[1] != n:
                raise ValueError(f"constraints has shape {A.shape}, expected (k, {n}): one row per constraint")
            self.constraints = A
        k = self.constraints.shape[0]
        if k >= n:
            raise ValueError(f"constraints has {k} rows for {n} coordinates; at most n - 1 independent rows")
        check_size(n, k, f"coordinates ({n} symbols)")  # the lowered graph and the core hold n x n densely
        self.affine = sp.ImmutableMatrix.zeros(k, 1) if affine is None else as_matrix(affine, (k, 1), "affine")
        if friction is None:
            self.friction_coefficients = sp.ImmutableMatrix.eye(k)
        elif isinstance(friction, (int, float, sp.Expr)) and not isinstance(friction, sp.MatrixBase):
            self.friction_coefficients = sp.ImmutableMatrix.eye(k) * to_sympy(friction, "friction")
        else:
            self.friction_coefficients = as_matrix(friction, (k, k), "friction")
        self.force = sp.ImmutableMatrix.zeros(n, 1) if force is None else as_matrix(force, (n, 1), "force")
        self.applied_force = None if applied_force is None else as_matrix(applied_force, (n, 1), "applied_force")

        self.holonomic = holonomic_argument(holonomic)
        self._holonomic_functions = None  # built on first use
        groups = self._expression_groups()
        symbols = {what: expression_symbols(exprs) for what, exprs in groups.items()}
        self._name_symbols(velocities, time, parameters, symbols)
        self._check_symbols(groups, symbols)
        self.speeds = speeds_argument(speeds, n, self.k)
        self.contacts = contacts_argument(contacts, self.k, ideal=True)
        self._graph = self._lower()
        self._core = _core.MechanicalSystem(n, k, len(self.parameters), self._graph.to_core(),
                                            not self.indefinite_metric,
                                            velocity_terms="cheaper" if self.applied_force is None else "given")
        check_built(self)
        self._models: dict = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_lagrangian(
        cls,
        lagrangian,
        coordinates: Sequence[sp.Symbol],
        velocities: Sequence[sp.Symbol],
        constraints=None,
        affine=None,
        friction=None,
        force=None,
        parameters: Mapping | None = None,
        *,
        time: sp.Symbol | None = None,
        name: str | None = None,
        indefinite_metric: bool = False,
        simplify: bool = False,
    ) -> "System":
        r"""A system from a Lagrangian L = 1/2 v^T G(q) v + g(q, t)^T v - V(q).

        The kinetic part must be quadratic in the velocities. G is read off as the Hessian of L
        in v; a linear term g(q, t)^T v adds the gyroscopic force ((dg/dq)^T - dg/dq) v and, when
        g depends on the time, -partial g / partial t; V is -L at v = 0. ``constraints``,
        ``affine``, ``friction``, ``force`` and ``parameters`` are as for :class:`System`.
        ``simplify=True`` runs ``sympy.simplify`` on G (nicer display; slow for large systems,
        seconds for a car with a few trailers, and the trajectories are the same), default off
        (:func:`nonholo.expressions.lagrangian.lagrangian_parts`).
        """
        from ..expressions.lagrangian import lagrangian_parts

        coords = as_symbols(coordinates, "coordinates")
        vels = as_symbols(velocities, "velocities")
        if len(vels) != len(coords):
            raise ValueError(f"velocities has {len(vels)} symbols, expected {len(coords)}")
        if time is None:  # the System's default: the symbol named t
            time = next((s for s in expression_symbols([to_sympy(lagrangian, "lagrangian")]) if s.name == "t"), None)
        G, V, F = lagrangian_parts(lagrangian, coords, vels, force, check.flag(simplify, "simplify"), time=time)
        return cls(coords, G, V, constraints, affine, friction, F, parameters, velocities=vels, time=time, name=name,
                   indefinite_metric=indefinite_metric)

    @classmethod
    def from_kanes_method(cls, km, parameters: Mapping | None = None, **kwargs) -> "System":
        r"""A system from a ``sympy.physics.mechanics.KanesMethod`` with nonholonomic constraints.

        The kinetic energy of the bodies, the velocity constraints (``velocity_constraints`` for
        ``u_dependent``) and the loads are expressed in q' through the kinematic differential
        equations (``kd_eqs``): G(q), A(q) q' = b(q, t) and F(q, q', t). Coordinates are
        ``q_ind + q_dep`` as plain symbols of the same names, velocities ``<name>_dot``.
        ``parameters`` gives the value of every constant symbol.

        ``system.nonholonomic()`` integrates in Kane's independent speeds (``state="speeds"``, the default where the
        kinematics allow it): state ``[q, u_ind]`` named after km's speeds (``result["u1"]``), q' = X_D(q) u_ind +
        w0(q) from the kinematic differential equations and the velocity constraints (the Hamel model of that frame),
        the dependent speeds solved numerically at each evaluation (a pivoted LU of their constraint coefficients:
        regular wherever those are, e.g. SymPy's bicycle upright). Else (kinematic differential equations or velocity
        constraints, f_nh included, that depend on time: ``state`` in the function below) it is ``[q, q']``, with a
        warning, and a y0 of the speeds' length is refused. Its y0, and the states of the analysis calls
        (:func:`~nonholo.linearize`, ...), may also be given as [q, q'] where its length differs from the model's (with
        no dependent speeds both are 2n long, and a 2n state is [q, u]). ``system.nonholonomic(form="qdot")``, or
        ``state="qdot"`` here, gives the model in ``[q, q']``. Every speed, dependent ones too, is also
        ``result[name]`` in either form; convert with :func:`nonholo.expressions.mechanics.kane_qdot` and
        ``kane_speeds``. Gravity given as a load is a potential (``load_potential``). Keyword arguments and what is
        supported: :func:`nonholo.expressions.mechanics.kanes_method_arguments`.

        Examples
        --------
        A skate (a body in the plane that cannot move sideways) in Kane's speeds u1 = x', u3:

        >>> import sympy as sp, sympy.physics.mechanics as me, nonholo as nh
        >>> x, y, th, u1, u2, u3 = me.dynamicsymbols("x y theta u1:4")
        >>> N = me.ReferenceFrame("N"); B = N.orientnew("B", "Axis", [th, N.z]); B.set_ang_vel(N, u3 * N.z)
        >>> P = me.Point("P"); P.set_vel(N, u1 * N.x + u2 * N.y)
        >>> km = me.KanesMethod(N, [x, y, th], [u1, u3], kd_eqs=[x.diff() - u1, y.diff() - u2, th.diff() - u3],
        ...                     u_dependent=[u2], velocity_constraints=[-sp.sin(th) * u1 + sp.cos(th) * u2])
        >>> _ = km.kanes_equations([me.RigidBody("b", P, B, 1, (me.inertia(B, 0, 0, 1), P))], [])
        >>> skate = nh.System.from_kanes_method(km)
        >>> skate.nonholonomic().state_names
        ['x', 'y', 'theta', 'u1', 'u3']
        >>> r = nh.simulate(skate.nonholonomic(), (0, 1), [0, 0, 0, 1.0, 1.0])  # a circle: sin t, 1 - cos t
        >>> print(f"{r['x'][-1]:.6f} {r['y'][-1]:.6f}")
        0.841471 0.459698
        """
        from ..expressions.mechanics import kanes_method_arguments
        known_keywords(kwargs, kanes_method_arguments, "from_kanes_method")
        system = cls.__new__(cls)  # as unpickling: the constructor, then what it carries (load_potential)
        system.__setstate__(kanes_method_arguments(km, parameters, **kwargs))
        return system

    @classmethod
    def from_lagranges_method(cls, lm, parameters: Mapping | None = None, **kwargs) -> "System":
        r"""A system from a ``sympy.physics.mechanics.LagrangesMethod`` with nonholonomic constraints.

        G, g and V from the Lagrangian (quadratic in q'), A(q) q' = b(q, t) from the
        nonholonomic constraints (``nonhol_coneqs``) and the time derivatives of the holonomic
        ones (``hol_coneqs``), F from the ``forcelist``. Coordinates are ``lm.q`` as plain
        symbols of the same names, velocities ``<name>_dot``; model states are ``[q, q']``.
        Keyword arguments and what is supported:
        :func:`nonholo.expressions.mechanics.lagranges_method_arguments`.
        """
        from ..expressions.mechanics import lagranges_method_arguments

        known_keywords(kwargs, lagranges_method_arguments, "from_lagranges_method")
        return cls(**lagranges_method_arguments(lm, parameters, **kwargs))

    def _expression_groups(self) -> dict:
        """Each argument's entries other than zero (which holds no symbol): O(nonzeros), not n^2."""
        return {"metric": nonzero_entries(self.metric), "potential": [self.potential],
                "constraints": nonzero_entries(self.constraints), "affine": nonzero_entries(self.affine),
                "friction": nonzero_entries(self.friction_coefficients), "force": nonzero_entries(self.force),
                "applied_force": nonzero_entries(self.applied_force), "holonomic": list(self.holonomic or ())}

    def _name_symbols(self, velocities, time, parameters, group_symbols: dict) -> None:
        """Velocities, time and parameters as the system's symbols of their names: one symbol per
        name in the whole system (:mod:`nonholo.expressions.names`); a name, or a symbol of that
        name with other assumptions, means the symbol the expressions use."""
        table = SymbolTable()
        table.add_all(self.coordinates, "coordinates")
        if velocities is not None:
            table.add_all(as_symbols(velocities, "velocities"), "velocities")
        if time is not None:
            table.add(time, "time")
        for what, symbols in group_symbols.items():
            table.add_all(symbols, what)
        if velocities is None:
            velocities = [table.get(f"{q.name}_dot") or sp.Symbol(f"{q.name}_dot") for q in self.coordinates]
        self.velocities = velocities_argument(as_symbols(velocities, "velocities"), self.coordinates)
        self.time = time if time is not None else table.get("t") or sp.Symbol("t")
        check_not_time(self.coordinates, "coordinate", self.time)
        check_not_time(self.velocities, "velocity", self.time)
        self.parameters = normalize_parameters(parameters, table, self.coordinates, self.velocities, self.time)
        self._symbol_names = {**table.symbols, **{s.name: s for s in (*self.velocities, self.time, *self.parameters)}}

    def symbol(self, name) -> sp.Symbol:
        """The system's symbol of this name (a coordinate, velocity, the time, a parameter or any symbol of
        its expressions), whatever the assumptions of the one given; KeyError when there is none."""
        key = name.name if isinstance(name, sp.Symbol) else str(name)
        if key not in self._symbol_names:
            raise KeyError(f"the system has no symbol named {key!r}")
        return self._symbol_names[key]

    def resolve(self, expr):
        """``expr`` in the system's symbols: every symbol replaced by the system's symbol of the same
        name, whatever its assumptions (``nh.Event(sp.Symbol("phi"))`` for a coordinate declared real);
        Kane's speeds by name (``speeds``) become their expressions in q and q'."""
        expr = resolve(expr, self._symbol_names)
        speeds = {name: f.expr for name, f in self.outputs.items()
                  if getattr(f, "is_speed", False) and name not in self._symbol_names}
        if speeds:
            expr = expr.xreplace({s: speeds[s.name] for s in expression_symbols([expr]) if s.name in speeds})
        return expr

    def _check_symbols(self, groups: dict, group_symbols: dict) -> None:
        q, v, t, p = set(self.coordinates), set(self.velocities), {self.time}, set(self.parameters)
        for what in groups:
            if what not in ("affine", "force", "applied_force") and self.time in group_symbols[what]:
                raise ModelError(f"the time {self.time} appears in the {what}: only the affine term b(q, t) of the "
                                 "constraints A(q) v = b(q, t) and the force F(q, v, t) may depend on time (the "
                                 "metric, potential, constraint rows, friction coefficients and holonomic "
                                 "constraints are functions of q and the parameters)")
        allowed = {"metric": q | p, "potential": q | p, "constraints": q | p, "affine": q | t | p,
                   "friction": q | p, "force": q | v | t | p, "applied_force": q | v | t | p, "holonomic": q | p}
        for what, exprs in groups.items():
            velocities = v & group_symbols[what] - allowed[what]
            if velocities:  # the system's own velocities, where they may not appear
                names = ", ".join(sorted(map(str, velocities)))
                raise ModelError(f"the {what} contains symbols it may not depend on: {names} (velocities: only the "
                                 "force F(q, v, t) may depend on them; the constraints are A(q) v = b(q, t), linear "
                                 "in v)")
            check_free_symbols(exprs, allowed[what], what)

    @property
    def _inputs(self) -> list:
        return [*self.coordinates, *self.velocities, self.time, *self.parameters]

    def _lower(self) -> SerializedGraph:  # the outputs G, V, A, b, mu, F[, applied force] (dense, row-major)
        parts = [self.metric, self.potential, self.constraints, self.affine, self.friction_coefficients, self.force]
        names = ["metric", "potential", "constraints", "affine", "friction", "force", "applied_force"]
        return lower_parts(parts if self.applied_force is None else [*parts, self.applied_force], self._inputs, names)

    # ------------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        """Number of coordinates."""
        return len(self.coordinates)

    @property
    def k(self) -> int:
        """Number of constraints."""
        return self.constraints.shape[0]

    @property
    def parameter_names(self) -> list:
        return [s.name for s in self.parameters]

    @property
    def coordinate_names(self) -> list:
        return [s.name for s in self.coordinates]

    @property
    def velocity_names(self) -> list:
        return [s.name for s in self.velocities]

    @property
    def core(self):
        """The compiled C++ system (``nonholo._core.MechanicalSystem``)."""
        return self._core

    def param_vector(self, params: Mapping | None = None, extra: Mapping | None = None) -> list:
        """Parameter values in the core's order: defaults, overridden by ``params``.

        ``extra`` holds model parameters (e.g. ``eps``) appended after the system's.
        """
        if params is None or (type(params) is dict and not params):  # the defaults
            if getattr(self, "friction_laws", None):  # checked there too (with_parameters moves the defaults)
                return parameter_values(self, {}, extra)
            return [*self.parameters.values(), *(extra or {}).values()]
        return parameter_values(self, params, extra)

    # ------------------------------------------------------------------ models
    @model_factory
    def nonholonomic(self, form: str | None = None, sparse: bool | str = "auto"):
        """Lagrange-d'Alembert dynamics.

        ``form="qdot"``: state ``[q, v]`` with A(q) v = b(q, t). ``form="speeds"``: state
        ``[q, u]`` in the quasi-velocities of the system's velocity frame (``speeds``; Kane's
        independent speeds for :meth:`from_kanes_method`), q' = X_D(q) u + w0(q), the constraints
        holding by construction (a :class:`~nonholo.FrameModel`, the Hamel equations). Default:
        ``"speeds"`` when the system has a velocity frame, else ``"qdot"``.

        ``sparse`` (form ``"qdot"``): solve [G, A^T; A, 0] [v'; -lambda] = [r; a] by a sparse
        L D L^T of the nonzeros of G and A and give BDF a sparse Jacobian (``True``), or dense
        (``False``); ``"auto"`` chooses sparse for a large sparse system (:meth:`prefers_sparse`).
        Both give the same right-hand sides to rounding (BDF's steps then differ within its tolerance).

        Examples
        --------
        >>> import nonholo as nh
        >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
        >>> model.state_names
        ['x', 'y', 'phi', 'x_dot', 'y_dot', 'phi_dot']
        >>> model.params
        {'m': 1.0, 'I': 1.0, 'a': 0.2, 'mu': 1.0}
        """
        if form is None:
            form = "qdot" if self.speeds is None else "speeds"
        if form == "qdot":
            return self._model("nonholonomic", sparse=sparse_choice(self, sparse))
        if form != "speeds":
            raise ValueError(f"form must be 'qdot' or 'speeds', got {form!r}")
        if self.speeds is None:
            raise ValueError(f"form='speeds' needs a velocity frame (System(speeds=...), from_kanes_method); "
                             f"{self.name!r} has none")
        return self.speed_frame().hamel()

    def kinematic(self, frame: str = "voronets"):
        """The kinematic control system q' = X_D(q) w (a :class:`~nonholo.control.kinematic.KinematicSystem`, built
        once) for :class:`~nonholo.OptimalControlProblem`: X_D the constrained vectors of the Voronets frame, the
        controls w the speeds of the free coordinates (named as the velocities), ``cost="energy"`` the kinetic energy
        1/2 w^T X_D^T G X_D w; parameters at their defaults; linear constraints only. ``frame="speeds"``: in the
        system's own velocity frame (``System(speeds=...)``), regular where its vectors are (a unicycle's (v, omega)
        everywhere, where the Voronets chart y' = tan(theta) x' ends at theta = pi/2)."""
        from ..control.kinematic import kinematic_of

        if ("kinematic", frame) not in self._models:
            self._models[("kinematic", frame)] = kinematic_of(self, frame)
        return self._models[("kinematic", frame)]

    def speed_frame(self):
        """The :class:`~nonholo.frames.AnholonomicFrame` of the system's velocity frame (``speeds``), built once."""
        from .frames import AnholonomicFrame

        if ("speeds", None) not in self._models:
            names, X, w0 = given_speeds(self)
            self._models[("speeds", None)] = AnholonomicFrame(self, X, offset=w0, velocity_names=names,
                                                              name=f"speeds of {self.name}")
        return self._models[("speeds", None)]

    @model_factory
    def vakonomic(self):
        """Vakonomic dynamics (corrected Lewis-Murray eq. (2.2)), state ``[q, v, lambda]``."""
        return self._model("vakonomic")

    @model_factory
    def friction(self, eps: float | None = None, sparse: bool | str = "auto", *, law=None, normal=None, speed=None,
                 contacts=None):
        """The friction model: constraints realized by the force -(1/eps) A^T mu (A v - b), or by a
        friction law.

        State ``[q, v]`` with no constraint on v; stiff for small eps (Eldering 2016 eq. (22)).
        ``eps`` is a runtime parameter: ``params={"eps": ...}`` overrides it; a ``friction_scale`` (eps
        of the parameters: tires) gives it and follows them (:mod:`nonholo.system.friction_scale`).
        ``sparse``: as :meth:`nonholonomic` (a sparse L D L^T of G, a sparse Newton matrix for BDF).

        ``law`` (instead of ``eps``): a :mod:`nonholo.laws` law, or a list of one per contact (front
        and rear tires that differ); each contact c (``contacts``: lists
        of constraint-row indices; default one per row, or the rows a builder groups, such as the two
        of a body rolling on a plane) carries the force A_c^T z(s_c, N_c, V_c) of its slip
        s_c = (A v - b)_c, with ``normal`` N_c and ``speed`` V_c (values or expressions, one for all
        contacts or one per contact) where the law needs them. The model is that of an unconstrained
        system (:mod:`nonholo.system.law_realization`); ``law=nh.laws.Viscous(mu, eps)`` is
        ``friction(eps)`` with friction coefficients mu.

        Examples
        --------
        The friction sleigh (stiff: ``method="auto"`` runs BDF) stays within O(eps) of the
        nonholonomic one:

        >>> import numpy as np
        >>> import nonholo as nh
        >>> sleigh = nh.systems.chaplygin_sleigh()
        >>> y0, opts = [0, 0, 0, 1, 0, 1], dict(t_eval=[5], rtol=1e-10, atol=1e-12)
        >>> friction = nh.simulate(sleigh.friction(1e-4), (0, 5), y0, **opts)
        >>> rolling = nh.simulate(sleigh.nonholonomic(), (0, 5), y0, **opts)
        >>> friction.method
        'bdf'
        >>> print(f"{np.abs(friction.y[:3] - rolling.y[:3]).max():.1e}")
        7.1e-04
        """
        if law is not None:
            return self._friction_by(law, eps, sparse, normal, speed, contacts)
        if eps is None:
            eps = default_scale(self, "friction")  # friction_scale at the defaults; TypeError without one
        if normal is not None or speed is not None or contacts is not None:
            raise ValueError("normal, speed and contacts go with law=; the linear law of friction(eps) uses neither")
        getattr(self, "contact_slip_rows", None) is None or self.contact_slip_rows.linear_law()  # repeated rows
        return self._model("friction", sparse=sparse_choice(self, sparse), eps=check.positive(eps, "eps"))

    @model_factory
    def stick_slip(self, mu_s: float, mu_k: float | None = None, normal=None, contacts=None):
        """Stick-slip with the set-valued Coulomb law: a hybrid model that rolls (the constraints
        hold) while each contact's needed force stays inside its friction cone, |lambda_c| <= mu_s N_c,
        and slides under -mu_k N_c s_c / |s_c| where it leaves it, until its slip stops
        (:mod:`nonholo.models.stick_slip`). ``nh.simulate`` runs it; ``result.switches`` lists
        (t, from, to). ``mu_k`` defaults to ``mu_s``; ``normal``: the normal load, a value or
        expression of the parameters or the state (load transfer), or one per contact; ``contacts``
        as :meth:`friction`.

        Examples
        --------
        A bowling ball launched sliding without spin rolls from t = 2 v0 / (7 mu g) at 5/7 v0:

        >>> import numpy as np, nonholo as nh
        >>> ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.4 * 0.1**2), nh.contact.Sphere(0.1))
        >>> y0 = np.r_[0, 0, 1, 0, 0, 0, 3.0, 0, 0, 0, 0, 0]  # at rest in attitude, moving at 3 m/s
        >>> run = nh.simulate(ball.stick_slip(0.2, normal=9.81), (0, 2), y0, rtol=1e-10, atol=1e-12)
        >>> t, before, after = run.switches[0]
        >>> print(f"{t:.6f} {2 * 3.0 / (7 * 0.2 * 9.81):.6f} {before} -> {after}, x' = {run['x_dot'][-1]:.6f}")
        0.436872 0.436872 slip -> stick, x' = 2.142857
        """
        from ..models.stick_slip import StickSlipModel

        return StickSlipModel(self, mu_s, mu_k, normal, contacts)

    def friction_margin(self, mu, normal=None, contacts=None):
        """The friction-cone margin mu_c N_c - |lambda_c|, least over the contacts (lambda_c: the force contact c's rows
        need for no slip), for an Event or ``margin.of(result)``. ``mu``: one, or one per contact (each > 0: mu = 1 with
        loads mu_c N_c; give ``normal``). ``normal``: N_c, values or expressions of the state and parameters, one for
        all or one per contact (default: the derived normal force of a :func:`nonholo.contact.roll_on_plane` body).

        Examples
        --------
        >>> import nonholo as nh
        >>> sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)  # its blade needs m I u omega / (I + m a^2)
        >>> margin = sleigh.friction_margin(mu=0.3, normal=1.0)  # it slips once that lateral force reaches 0.3 N
        >>> run = nh.simulate(sleigh.nonholonomic(), (0, 10), [0, 0, 0, 0.1, 0, 1.0],
        ...                   events=nh.Event(margin, terminal=True), rtol=1e-10, atol=1e-12)
        >>> print(f"t = {run.t_events[0][0]:.6f}, margin there {abs(margin.of(run)[-1]) < 1e-9}")
        t = 1.185199, margin there True
        """
        from .law_realization import per_contact
        from .margins import Margin
        if isinstance(mu, (list, tuple)) or getattr(mu, "ndim", 0) == 1:  # one per contact: mu = 1, loads mu_c N_c
            loads = Margin(self, "friction", 1.0, normal, contacts).normal  # one per contact, checked; None: derived
            if loads is None:
                raise ValueError("mu: one per contact scales the loads normal=, not a derived normal force: give them")
            mu, normal = 1.0, [m * N for m, N in zip(per_contact(mu, len(loads), "mu", self), loads)]
        return Margin(self, "friction", mu, normal, contacts)

    def liftoff_margin(self, normal=None, contacts=None):
        """The lift-off margin N_c (smallest over the contacts), as :meth:`friction_margin`."""
        from .margins import Margin

        return Margin(self, "liftoff", None, normal, contacts)

    def _friction_by(self, law, eps, sparse, normal, speed, contacts):
        from ..expressions.laws import Viscous, laws_of
        from .law_realization import realized_by, viscous_coefficients

        if eps is not None:
            raise ValueError("give eps or law=, not both (a law carries its own scale)")
        law = laws_of(law)  # a law, or one per contact
        if isinstance(law, Viscous) and law.eps.is_number and contacts is None and normal is None:
            return viscous_coefficients(self, law).friction(float(law.eps), sparse=sparse)
        return realized_by(self, law, normal, speed, contacts).nonholonomic(form="qdot", sparse=sparse)

    @model_factory
    def reduced(self, eps: float | None = None, order=1, velocities: str = "coordinates", frame=None,
                max_order: int = 8, *, law=None, normal=None, speed=None, contacts=None):
        """Reduced dynamics of order K on the slow manifold of the friction model.

        The velocity is v = u + sum_{k<=K} eps^k h^(k)(t, q, u) with u = P v + v_b on the
        constraint set A u = b, and u follows the exact P-projected law (Gzenda-Chhabra
        section 3.9), so the friction term drops out and the model is not stiff. ``simulate``'s
        default (``method="auto"``) runs it with DOP853, the explicit Runge-Kutta pair of order 8,
        when its right-hand side is cheap against Adams' per-step overhead (its events found on its
        dense output), and with CVODE's Adams otherwise and in runs with sensitivities
        (``model.method`` says which; ``result.method`` what ran). Error O(eps^(K+1)) on bounded intervals against
        ``friction(eps)`` started on the slow manifold (see :meth:`on_slow_manifold`).
        ``order=0`` is the nonholonomic model. ``eps`` is a runtime parameter, the order is fixed.

        Parameters
        ----------
        order : int or "auto"
            K in 0..16; ``"auto"`` chooses K at the initial state of each simulation: the
            smallest K at which eps^k |h^(k)| stops decreasing (optimal truncation of the
            asymptotic series) or falls below the integration tolerance, up to ``max_order``
            (default 8, the highest compiled order; at most 16)
            (``result.truncation`` says which; :mod:`nonholo.models.reduced`).
        velocities : {"coordinates", "frame"}
            ``"coordinates"`` (default; any constraints, also affine): state ``[q, u]``, u in
            R^n. ``"frame"`` (linear constraints): state ``[q, w]`` of dimension 2n - k, w the
            quasi-velocities of a frame X of D, u = X_D(q) w; ``simulate`` also takes the
            coordinate form's y0 = (q, u) of length 2n and maps it to w.
        frame : AnholonomicFrame or (n, n) SymPy matrix, optional
            The frame of the frame form; default the Voronets frame w = r' (the free
            coordinates' velocities), evaluated numerically in C++ (B = -A_s^-1 A_r by LU at
            each evaluation; :class:`nonholo.frames.AnholonomicFrame`), built once per system.
            It is singular where the solved block A_s is: a run re-splits a Voronets frame
            where max |B_aj| exceeds 10 (``result.frame_switches``); a frame given by vectors
            stops the run where its condition number exceeds 1e6 (``FRAME_SINGULAR``), so pass
            one regular along the run (:mod:`nonholo.models.reduced`, ``docs/caveats.md``).

        law : nonholo.laws law or list of laws (one per contact), optional
            Instead of ``eps``: the reduced model on the slow manifold of ``friction(law=law, normal=normal,
            speed=speed, contacts=contacts)``, expanded in the (first) law's scale (v_s for Coulomb, 1 / (B C D)
            per unit speed for a tire; :mod:`nonholo.system.law_slow_manifold`); ``Viscous(mu, eps)`` gives
            ``reduced(eps)`` with friction coefficients mu. A nonlinear law gives a C++
            :class:`~nonholo.models.law_core.CoreLawReducedModel` whose runs report the friction ratio
            |lambda| / (mu N) per contact (the fold at 1) and ``result.spectral_gap`` (delta, warned beyond 0.1).

        Notes
        -----
        h^(1..K) are compiled once per system and order into one tape (up to order
        ``_core.max_compiled_slip_order``), beyond it expanded in Taylor arithmetic at every
        evaluation. Results give the physical velocity through ``result.velocity`` and
        ``result["<velocity name>"]``.

        Examples
        --------
        Against the friction sleigh started on its slow manifold, the error of order K falls
        like eps^(K+1): its decimal exponent at eps = 1e-3 is -3 (K + 1):

        >>> import numpy as np
        >>> import nonholo as nh
        >>> sleigh, eps = nh.systems.chaplygin_sleigh(), 1e-3
        >>> q, u, opts = [0, 0, 0], [1, 0, 1], dict(t_eval=[5], rtol=1e-10, atol=1e-12)
        >>> v = sleigh.on_slow_manifold(q, u, eps, order=4)
        >>> friction = nh.simulate(sleigh.friction(eps), (0, 5), np.r_[q, v], **opts)
        >>> for order in (0, 1, 2):
        ...     reduced = nh.simulate(sleigh.reduced(eps, order=order), (0, 5), np.r_[q, u], **opts)
        ...     error = np.abs(reduced.y[:3] - friction.y[:3]).max()
        ...     print(order, reduced.method, int(np.floor(np.log10(error))))
        0 dop853 -3
        1 dop853 -6
        2 dop853 -9
        """
        from ..models.reduced import VELOCITIES, ReducedModel

        if law is not None:
            from .law_slow_manifold import reduced_by_law

            return reduced_by_law(self, law, eps, order, velocities, frame, max_order, normal, speed, contacts)
        if eps is None:
            eps = default_scale(self, "reduced")  # friction_scale at the defaults; TypeError without one
        if normal is not None or speed is not None or contacts is not None:
            raise ValueError("normal, speed and contacts go with law=; the linear law of reduced(eps) uses neither")
        eps = check.positive(eps, "eps")
        if order != "auto":
            order = order_argument(order)
        if velocities not in VELOCITIES:
            raise ValueError(f"velocities must be one of {VELOCITIES}, got {velocities!r}")
        max_order = order_argument(max_order, "max_order", 1)  # order "auto" computes terms 1..max_order
        if velocities == "frame":
            frame = self._reduction_frame(frame)
        elif frame is not None:
            raise ValueError("frame is used only with velocities='frame'")
        if "eps" in self.parameter_names:
            raise ValueError("the system has parameters named ['eps'], which the reduced model's own parameters of "
                             "the same name would shadow; rename them in the system")
        getattr(self, "contact_slip_rows", None) is None or self.contact_slip_rows.linear_law()  # repeated rows
        return ReducedModel(self, eps, order, velocities, frame, max_order=max_order)


    def _reduction_frame(self, frame):
        """The frame of the frame form: the user's, or the Voronets frame (built once)."""
        from .frames import AnholonomicFrame

        if isinstance(frame, AnholonomicFrame):
            if frame.system is not self:
                raise ValueError("frame belongs to another system")
            if frame.has_offset:
                raise ValueError("the frame form of the reduced model takes a frame without offset (linear "
                                 "constraints); use velocities='coordinates'")
            return frame
        if frame is None:
            if ("frame", None) not in self._models:
                self._models[("frame", None)] = AnholonomicFrame(self)
            return self._models[("frame", None)]
        return AnholonomicFrame(self, frame)

    @model_factory
    def discrete(self, h: float):
        """The midpoint discrete Lagrange-d'Alembert integrator with step ``h`` (run it with
        ``nh.simulate_discrete``); linear and affine constraints, forces split at the midpoint."""
        from ..models.discrete import DiscreteModel

        return DiscreteModel(self, check.positive(h, "h"))

    def prefers_sparse(self) -> bool:
        """The rule of ``sparse="auto"`` (:func:`nonholo.system.sparsity.prefers_sparse`): at least 20
        coordinates, at most 12% of the entries of G, A and mu structurally nonzero."""
        return prefers_sparse(self)

    def _model(self, kind: str, order: int | None = None, sparse: bool = False, **extra):
        from ..models.model import MODEL_KINDS

        shadowed = set(extra) & set(self.parameter_names)
        if shadowed:
            raise ValueError(f"the system has parameters named {sorted(shadowed)}, which the {kind} model's own "
                             "parameters of the same name would shadow; rename them in the system")
        if kind == "reduced":
            return self.reduced(extra["eps"], order=order)
        spec = MODEL_KINDS[kind]
        key = (kind, "sparse" if sparse else order)
        if key not in self._models:
            self._models[key] = spec.build_sparse(self._core) if sparse else spec.build_core(self._core, order)
        return spec.cls(self, kind, self._models[key], extra, order=order, state_names=spec.state_names(self))

    # ------------------------------------------------------------------ names and display
    def state_names(self) -> list:
        """``[q, v]``: the names of the coordinates and velocities (the state of the nonholonomic,
        friction and discrete models; every model knows its own, ``model.state_names``)."""
        return [*self.coordinate_names, *self.velocity_names]

    def __repr__(self) -> str:
        params = ", ".join(f"{s}={number_text(v)}" for s, v in self.parameters.items())
        return (f"<nonholo.System {self.name!r}: n={self.n} coordinates ({', '.join(self.coordinate_names)}), "
                f"k={self.k} constraints{', affine' if self._core.has_affine else ''}"
                f"{', params: ' + params if params else ''}>")

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        return {
            "coordinates": self.coordinates, "metric": self.metric, "potential": self.potential,
            "constraints": self.constraints if self.k else None, "affine": self.affine if self.k else None,
            "friction": self.friction_coefficients if self.k else None, "force": self.force,
            "parameters": self.parameters, "velocities": self.velocities, "time": self.time, "name": self.name,
            "indefinite_metric": self.indefinite_metric, "holonomic": self.holonomic,
            "unit_norm": [[self.coordinates[i] for i in g] for g in self.unit_norm], "outputs": self.outputs,
            "drawing": self.drawing, "pose": getattr(self, "pose", None), "applied_force": self.applied_force,
            "speeds": self.speeds, "contacts": self.contacts,
            **{key: value for key in self.CARRIED[2:]  # set by builders, where not None or empty (a NumPy array)
               if (value := getattr(self, key, None)) is not None and (not hasattr(value, "__len__") or len(value))},
        }

    # attributes set after construction (by builders), carried by pickling and by the with_* methods: the
    # drawing, a rigid body's pose, relaxed tire laws' deflection states, the normal loads and rolling speeds
    # of the contacts a law realizes (a run stops where one reaches zero), a mechanism's tangential rows per
    # contact and normal rows (law_realization.contact_rows), where a rolling body's surface holds (margins.py),
    # every contact's own rows, the system a law realizes, the part of V a KanesMethod's loads gave (kane.py), eps
    # of the parameters, the laws with parameters it realizes (each checked at a run's values: arguments.py), the
    # rolling speeds of its contacts (a tire law's default speed=: law_realization.own_speeds)
    CARRIED = ("drawing", "pose", "lag_states", "contact_loads", "contact_speeds", "friction_contacts", "normal_rows",
               "contact_domains", "contact_slip_rows", "realizes", "load_potential", "friction_scale", "friction_laws",
               "rolling_speeds")

    def __setstate__(self, state):
        state = dict(state)
        carried = {key: state.pop(key, None) for key in self.CARRIED}
        self.__init__(**state)
        for key, value in carried.items():
            if value is not None or key == "drawing":
                setattr(self, key, value)

    # ------------------------------------------------------------------ Jupyter display
    def _repr_latex_(self) -> str:
        """The system's equations as LaTeX (Jupyter): coordinates, Lagrangian, metric G(q),
        potential V(q), each constraint row A(q) q' = b(q, t), friction mu (when not the
        identity), force F (when not zero) and parameter values
        (:func:`nonholo.expressions.display.system_latex`)."""
        from ..expressions.display import system_latex

        return system_latex(self)
