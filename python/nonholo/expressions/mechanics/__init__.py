r"""Adapters from :mod:`sympy.physics.mechanics` to :class:`nonholo.System`.

``System.from_kanes_method(km, ...)`` and ``System.from_lagranges_method(lm, ...)`` call the
functions of this module, which return the keyword arguments of :class:`nonholo.System`.

The mapping
-----------
A nonholo system lives in the coordinates q and their velocities q' (one velocity per
coordinate): kinetic energy 1/2 q'^T G(q) q', potential V(q), velocity constraints
A(q) q' = b(q, t) and a generalized force F(q, q', t). SymPy's methods map onto it as follows.

``KanesMethod``
    Kane's method works in generalized speeds u with kinematic differential equations
    (``kd_eqs``; ``kdes`` of a ``sympy.physics.mechanics.System``)
    k_kqdot(q) q' + k_ku(q) u + f_k(q) = 0 and velocity constraints (``velocity_constraints``,
    solved for ``u_dependent``) k_nh(q) u + f_nh(q, t) = 0. The
    adapter solves ``kd_eqs`` for the speeds, u = -k_ku^-1 (k_kqdot q' + f_k), and expresses in
    q' (exactly, symbolically):

    - the kinetic energy of the bodies and particles, T = sum 1/2 m v.v + 1/2 w.I.w, which gives
      G (and, when ``f_k`` != 0, the gyroscopic and potential terms of a Lagrangian linear in q');
    - the velocity constraints: A = -k_nh k_ku^-1 k_kqdot, b = -(f_nh - k_nh k_ku^-1 f_k);
    - the loads: the generalized force F_j = sum_loads f . d(v)/d(q'_j) of each force at a point
      (v its velocity) and each torque on a frame (v its angular velocity).

    Kane's equations with dependent speeds are d'Alembert's principle projected onto the
    constrained partial velocities, which is the Lagrange-d'Alembert principle that
    ``system.nonholonomic()`` integrates. So the two agree exactly when the velocities the
    bodies were given are the time derivatives of their positions (the kinematics of the
    unconstrained system) and every constraint is among the ``velocity_constraints``.

    Rolling contacts built into the kinematics. SymPy's rolling disc "formed from the contact
    point up" and its Whipple bicycle give a contact point the velocity of the wheel's material
    point there (zero, or ``v2pt_theory`` with the wheel's frame): the velocity of two points
    fixed in one body, omega x r, not the time derivative of their relative position. The kinetic
    energy is then right along the rolling motions, but its Euler-Lagrange equations are not the
    motion. The adapter recognizes these material-point velocities (``check_kinematics``) and
    adds to F the difference between those equations and Kane's generalized inertia forces,
    so the system's equations are Kane's. A point velocity that is neither the derivative of its
    position nor a material-point velocity of a body frame is a modelling error: ``ModelError``
    names the point and the fix. The check looks at the points the model uses (mass centres,
    particles, points where loads act, and the points on the paths between them and the origin);
    other points located from them (another model sharing the origin) are left alone. Speeds
    that appear in no kinematic differential equation (the wheel spins of the bicycle) become the
    derivatives of auxiliary coordinates ``<speed>_integral``, appended to q_ind + q_dep.

    A force of constant components in the inertial frame at a point located from a fixed point
    (gravity) enters as its potential V = -f . r_P, checked against the generalized force it gives
    (:mod:`.load_potentials`), so that ``SimulationResult.energy()`` is the conserved energy; every
    other load enters as the generalized force F (a force at a point whose position from a fixed
    point is not given stays a force: pass ``potential=V`` and leave it out of the loads).

``LagrangesMethod``
    The Lagrangian L(q, q') must be quadratic in q' (L = 1/2 q'^T G q' + g^T q' - V, as for
    :meth:`System.from_lagrangian`); the nonholonomic constraints (``nonhol_coneqs``) must be
    linear in q' and give A and b; the loads (``forcelist`` with ``frame``) give F.

Holonomic constraints
---------------------
nonholo enforces constraints on the velocities. ``LagrangesMethod`` differentiates its
holonomic constraints (``hol_coneqs``) f_h(q, t) = 0 itself, and the adapter takes the
differentiated rows as constraints (df_h/dq) q' = -df_h/dt, as SymPy does. ``KanesMethod``
expects the time derivatives of its holonomic constraints (``configuration_constraints`` for
``q_dependent``) among its ``velocity_constraints`` (it uses the configuration constraints for
linearization only); the adapter checks that they are there and raises ``ModelError``
otherwise. Either way f_h(q, t) = 0 holds along exact solutions, and along numerical ones up to
the integration error. The constraints without the time are also carried as
``System.holonomic`` f_h(q) = 0 (a start checked against them, plans that impose them at position
level); one that depends on time explicitly (a wire that moves) is held through its velocity row
alone, and a ``UserWarning`` says so.

Not supported (``ModelError`` says which): speeds in the kinematic differential equations with
no coordinate of their own (e.g. the velocity of a contact point whose position is not tracked), kinematic
differential equations that do not determine u from q' (k_ku singular), a kinetic energy or
Lagrangian that depends on time explicitly (moving frames, time-varying masses), constraint
coefficients k_nh that depend on time (their affine part f_nh may), dynamicsymbols that are
neither coordinates nor speeds unless ``specified`` gives them as expressions in t, q and q'.
"""

from .kane import kane_qdot, kane_speeds, kanes_method_arguments
from .lagrange import lagranges_method_arguments

__all__ = ["kanes_method_arguments", "lagranges_method_arguments", "kane_qdot", "kane_speeds"]
