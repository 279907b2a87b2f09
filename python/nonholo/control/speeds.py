"""Control systems whose dynamics are a differential-algebraic system: the Lagrange-d'Alembert
equations in Kane's speeds (a :class:`~nonholo.System` from ``from_kanes_method``) with the
dependent speeds, the accelerations and the constraint multipliers as algebraic variables that
the collocation imposes at every point ("constraints imposed at the nodes"), never solved
symbolically: regular wherever the dependent speeds' constraint block is, whatever the
coordinates (e.g. opty's parallel-parking car at zero steer, where no split of q' is)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import ModelError
from ..expressions.parsing import to_sympy
from ..expressions.lowering import check_free_symbols
from ..numerics import rows
from .kinematic import KinematicSystem

__all__ = ["ConstrainedControlSystem", "speeds_dynamics_of", "velocity_dynamics_of"]

TRIGSIMP_OPS = 20  # entries of the frame's matrices with at most this many operations are trigsimp'ed


class ConstrainedControlSystem(KinematicSystem):
    """y' = f(y, z, u) with algebraic variables z fixed by E(y, z, u) = 0 (as many equations as
    variables, dE/dz regular): the dynamics of :class:`~nonholo.OptimalControlProblem` when its
    model is a differential-algebraic system. The collocation takes z as further variables at
    every point and E = 0 as equality constraints there; :meth:`vector_field` solves E = 0
    numerically (Newton in z, vectorized over points) for simulations and guesses.

    Parameters
    ----------
    states, controls, algebraic : sequences of SymPy symbols
        y, u and z.
    rhs : sequence of SymPy expressions in y, z, u
        f, one per state.
    equations : sequence of SymPy expressions in y, z, u
        E, one per algebraic variable.
    control_bounds, name, energy :
        As :class:`~nonholo.control.kinematic.KinematicSystem` (``energy`` may involve z).
    """

    def __init__(self, states, controls, algebraic, rhs, equations, control_bounds=None, name="constrained system",
                 energy=None):
        algebraic = list(algebraic)
        equations = list(sp.Matrix(list(equations))) if equations else []
        if len(equations) != len(algebraic):
            raise ValueError(f"equations has {len(equations)} entries, expected one per algebraic variable "
                             f"({len(algebraic)})")
        # the base class checks y and u (its rhs a placeholder); f, E and the energy are checked below
        super().__init__(states, controls, sp.zeros(len(list(states)), 1), control_bounds=control_bounds, name=name)
        if not all(isinstance(s, sp.Symbol) for s in algebraic):
            raise ValueError("algebraic variables must be SymPy symbols")
        names = self.state_names + self.control_names + [str(s) for s in algebraic]
        if len(set(names)) != len(names):
            raise ValueError(f"states, controls and algebraic variables must have distinct names, got {names}")
        self.algebraic = algebraic
        self.rhs = sp.Matrix(list(sp.Matrix(list(rhs))))
        if self.rhs.rows != len(self.states):
            raise ValueError(f"rhs has {self.rhs.rows} entries, expected one per state ({len(self.states)})")
        self.equations = equations
        allowed = set(self.states) | set(self.controls) | set(algebraic)
        check_free_symbols([*self.rhs, *equations], allowed, "rhs and equations")
        self._energy = None if energy is None else sp.sympify(energy)
        if self._energy is not None:
            check_free_symbols([self._energy], allowed, "energy")
        self._numeric = None  # E, dE/dz and f in NumPy, built when first needed (seconds for a bicycle)

    def with_states(self, rates: Mapping, name: str | None = None) -> "ConstrainedControlSystem":
        """This system with further states whose rates are given: ``rates`` maps each new state's
        name to its rate, an expression of the states, controls and algebraic variables (a
        position the dynamics ignore, e.g. a rear contact point's x' = r (u_3 + u_4) cos(q_1) from
        the speeds), its symbols or SymPy's dynamicsymbols matched by name, parameters given as
        numbers. The equations, energy and holonomic constraints are kept."""
        if not isinstance(rates, Mapping) or not rates:
            raise ValueError(f"rates must be a non-empty mapping of new state names to expressions, got {rates!r}")
        known = {str(s): s for s in (*self.states, *self.controls, *self.algebraic)}
        new = [sp.Symbol(str(k)) for k in rates]
        clash = sorted({str(s) for s in new} & set(known))
        if clash:
            raise ValueError(f"rates: {clash} are already states, controls or algebraic variables")
        exprs = []
        for key, expr in rates.items():
            e = sp.sympify(expr) if isinstance(expr, (sp.Basic, int, float)) else to_sympy(expr, f"rates[{key!r}]")
            # symbols and SymPy's dynamicsymbols (u3(t), from sympy.physics.mechanics) by name
            e = e.replace(lambda x: isinstance(x, AppliedUndef) and x.func.__name__ in known,
                          lambda x: known[x.func.__name__])
            e = e.xreplace({s: known[s.name] for s in e.free_symbols if s.name in known})
            exprs.append(e)
        out = ConstrainedControlSystem([*self.states, *new], self.controls, self.algebraic, [*self.rhs, *exprs],
                                       self.equations, name=name or self.name, energy=self._energy)
        out.holonomic = list(getattr(self, "holonomic", []) or [])
        return out

    def __getstate__(self):
        return {**super().__getstate__(), "_numeric": None}  # lambdified, rebuilt on first use

    def _functions(self) -> tuple:
        """(E, dE/dz, f) in (y, u, z), built once: E and f lambdified, dE/dz (P, n_z, n_z) by dual numbers on
        E's tape (the symbolic Jacobian of the multibody Whipple bicycle's equations, 190,829 operations, took
        12 s and its lambdify 6 s more; the tape 0.1 s)."""
        if self._numeric is None:
            from .transcription import point_jacobian

            args = [self.states, self.controls, self.algebraic]
            E, f = (sp.lambdify(args, exprs, "numpy", cse=True) for exprs in (self.equations, list(self.rhs)))
            jacobian = point_jacobian(self.equations, [*self.states, *self.controls], self.algebraic)
            nyu = len(self.states) + len(self.controls)

            def E_z(y, u, z):
                if not self.algebraic:
                    return np.zeros((np.shape(z)[-1], 0, 0))
                return jacobian(np.vstack([np.reshape(y, (len(self.states), -1)),
                                           np.reshape(u, (len(self.controls), -1))]), z)[:, :, nyu:]

            self._numeric = (E, E_z, f)
        return self._numeric

    @property
    def algebraic_names(self) -> list:
        return [str(s) for s in self.algebraic]

    def energy(self):
        if self._energy is None:
            raise ModelError(f"{self.name!r} has no kinetic energy for cost='energy'")
        return self._energy

    def algebraic_values(self, y, u, z0=None, iterations: int = 4) -> np.ndarray:
        """z (n_z, P) with E(y, z, u) = 0 at the P points of y (n_y, P), u (n_u, P): Newton's
        method from ``z0`` (default 0), a least-squares step where dE/dz is singular."""
        y, u = np.atleast_2d(np.asarray(y, dtype=float)), np.asarray(u, dtype=float).reshape(len(self.controls), -1)
        P = y.shape[1]
        u = np.broadcast_to(u, (len(self.controls), P))
        nz = len(self.algebraic)
        z = np.zeros((nz, P)) if z0 is None else np.array(z0, dtype=float).reshape(nz, P)
        for _ in range(iterations):
            E, E_z, _ = self._functions()
            r = rows(E(list(y), list(u), list(z)), P)
            Jz = E_z(y, u, z)
            try:
                step = np.linalg.solve(Jz, r.T[:, :, None])[:, :, 0].T
            except np.linalg.LinAlgError:
                step = np.einsum("pij,jp->ip", np.linalg.pinv(Jz), r)
            z = z - step
            if np.max(np.abs(step), initial=0.0) <= 1e-13 * (1 + np.max(np.abs(z), initial=0.0)):
                break
        return z

    def rhs_with(self, y, u, z) -> np.ndarray:
        """f(y, z, u) at given algebraic values (n_y, P)."""
        y = np.atleast_2d(np.asarray(y, dtype=float))
        return rows(self._functions()[2](list(y), list(np.asarray(u, dtype=float)), list(np.asarray(z, dtype=float))),
                      y.shape[1])

    def vector_field(self, y, w) -> np.ndarray:
        """f(y, z(y, w), w), the algebraic variables solved at each point."""
        y = np.asarray(y, dtype=float)
        flat = y.ndim == 1
        Y = y.reshape(len(self.states), -1)
        W = np.asarray(w, dtype=float).reshape(len(self.controls), -1)
        W = np.broadcast_to(W, (len(self.controls), Y.shape[1]))
        out = self.rhs_with(Y, W, self.algebraic_values(Y, W))
        return out[:, 0] if flat else out.reshape(y.shape)

    def __repr__(self) -> str:
        return (f"ConstrainedControlSystem({self.name!r}, states={self.state_names}, controls={self.control_names}, "
                f"algebraic={self.algebraic_names})")


def _row_scales(M: sp.Matrix, q: list) -> list:
    """Per row of the speeds' mass matrix M(q), its largest |entry| at q = 0 (1 where that is not a
    positive finite number): the equations of motion divided by it are O(1) in the rates, as the
    kinematic rows are, whatever the units of mass (IPOPT's gradient-based scaling caps gradients at
    100 only, so a car of 1200 kg left its rows 10-100 times the others')."""
    try:
        M0 = np.array(M.subs(dict.fromkeys(q, 0)).evalf(), dtype=float)
    except (TypeError, ValueError):
        return [1] * M.rows
    out = []
    for row in np.abs(M0):
        top = float(np.max(row, initial=0.0))
        out.append(sp.Float(top) if np.isfinite(top) and top > 0 else 1)
    return out


def speeds_dynamics_of(system, controls) -> ConstrainedControlSystem:
    """The Lagrange-d'Alembert dynamics of a :class:`~nonholo.System` with a frame of Kane's speeds
    (``system.speeds`` holding :class:`~nonholo.expressions.speed_frame.DependentSpeeds`:
    q' = J(q) u + q0(q), C(q) u + f(q) = 0, u = (u_ind, u_dep); :meth:`System.from_kanes_method`
    gives it), with the symbols ``controls`` of its force as controls.

    States: q and u_ind (named as the system's speeds). Algebraic variables: u_dep, the speeds'
    rates a = u' (all n) and the multipliers lam (k), fixed at every point by

        C u + f = 0,
        J^T G J a - C^T lam = J^T (r - G (J' u + q0')),     r = F - c(q, q') - dV/dq at q' = J u + q0,
        C a + C' u + f' = 0,

    (d'Alembert's principle for the virtual speeds in ker C, and the constraints' rate): linear in
    u_dep and in (a, lam), regular where C_dep is and C has full rank, with no division in SymPy.
    Each row of the second block is divided by its largest entry of J^T G J at q = 0 (a constant:
    O(1) coefficients of the rates in any units of mass; IPOPT converges in fewer iterations, e.g.
    opty's parallel park at 126 nodes from the heading start in 193 instead of 236).
    f = (J u + q0, a_ind). ``cost="energy"`` is the kinetic energy 1/2 q'^T G q'. Holonomic
    constraints phi(q) = 0 (a dependent coordinate: the Whipple bicycle's pitch) are the result's
    ``holonomic``, imposed at position level by the collocation; their velocity form is among
    C u + f = 0."""
    names, frame, _ = system.speeds
    controls, values = _controls_and_values(system, controls)
    taken = {str(s) for s in (*system.coordinates, *system.velocities, *controls)}
    dep_names = [nm for nm, out in system.outputs.items() if getattr(out, "is_speed", False) and nm not in names]
    if len(dep_names) != frame.k or taken & set(dep_names):
        dep_names = [f"u_dep{i}" for i in range(frame.k)]

    def numeric(M):  # trigsimp is cosmetic and its cost grows fast: 200 s on the Whipple bicycle's rows
        return sp.Matrix(M).xreplace(values).applyfunc(
            lambda e: sp.trigsimp(e) if e.has(sp.sin, sp.cos) and sp.count_ops(e) <= TRIGSIMP_OPS else e)

    J, q0, C, f = (numeric(M) for M in (frame.kinematics, frame.kinematics_offset, frame.constraints,
                                         frame.constraints_offset))
    speeds = [sp.Symbol(nm) for nm in [*names, *dep_names]]
    clash = taken & {str(s) for s in speeds}
    if clash:
        raise ModelError(f"the speeds' variables {sorted(clash)} have the names of coordinates, velocities or controls")
    return _constrained_dynamics(system, controls, values, speeds, J, q0, C, f,
                                 name=f"dynamics of {system.name} in Kane's speeds")


def velocity_dynamics_of(system, controls, solved: list) -> ConstrainedControlSystem:
    """:func:`speeds_dynamics_of` with the velocities themselves as the speeds, u = (q'_r, q'_s) (J a
    permutation, q0 = 0, C = A's columns in that order, f = 0): the dynamics of a System whose
    constraint block A_s, solving the coordinates ``solved`` (indices), is too large to invert in
    SymPy (:func:`~nonholo.control.kinematic.dynamic_of` gives the Voronets form otherwise). States q
    and the free coordinates' velocities, as in the Voronets form; the solved velocities, the rates
    and the multipliers are algebraic variables."""
    controls, values = _controls_and_values(system, controls)
    n = system.n
    order = [i for i in range(n) if i not in solved] + list(solved)
    J = sp.zeros(n, n)
    for col, i in enumerate(order):
        J[i, col] = 1
    A = sp.Matrix(system.constraints).xreplace(values)
    return _constrained_dynamics(system, controls, values, [system.velocities[i] for i in order], J,
                                 sp.zeros(n, 1), A[:, order], sp.zeros(system.k, 1),
                                 name=f"dynamics of {system.name}")


def _controls_and_values(system, controls) -> tuple:
    """The controls as the system's symbols, and the other parameters' values."""
    controls = [system.symbol(c) if not isinstance(c, sp.Symbol) else c for c in controls]
    if not controls:
        raise ValueError("controls must name at least one symbol of the system's force")
    values = {p: sp.sympify(v) for p, v in system.parameters.items()
              if p not in controls and str(p) not in map(str, controls)}
    return controls, values


def _constrained_dynamics(system, controls, values, speeds, J, q0, C, f, name) -> ConstrainedControlSystem:
    """The differential-algebraic system of :func:`speeds_dynamics_of` for speeds u (symbols, the
    first n - k independent) with q' = J u + q0 and C u + f = 0 (parameters at ``values``)."""
    q = list(system.coordinates)
    n, k = len(q), C.rows
    m = n - k
    u = sp.Matrix(speeds)
    rates = [sp.Symbol(f"{s}_rate") for s in speeds]
    lam = [sp.Symbol(f"lambda_{i}") for i in range(k)]
    clash = {str(s) for s in (*q, *system.velocities, *controls)} & {str(s) for s in (*rates, *lam)}
    if clash:
        raise ModelError(f"the speeds' variables {sorted(clash)} have the names of coordinates, velocities or controls")
    G = sp.Matrix(system.metric).xreplace(values)
    qdot = J * u + q0
    vel = dict(zip(system.velocities, qdot))
    if system.applied_force is not None:
        r = sp.Matrix(system.applied_force)
    else:
        c = sp.zeros(n, 1)
        v = sp.Matrix(system.velocities)
        Gq = sp.Matrix(system.metric)
        for i in range(n):
            c[i] = sum((sp.diff(Gq[i, j], q[kk]) - sp.diff(Gq[j, kk], q[i]) / 2) * v[j] * v[kk]
                       for j in range(n) for kk in range(n))
        force = sp.Matrix(system.force) if system.force is not None else sp.zeros(n, 1)
        r = force - c - sp.Matrix([sp.diff(system.potential, qi) for qi in q])
    r = r.xreplace(values).xreplace(vel)
    if system.time in r.free_symbols:
        raise ModelError("a time-dependent force is not supported in a control system")

    def rate(M):  # dM/dt along q' = J u + q0 (M a function of q)
        return sum((sp.diff(M, q[i]) * qdot[i] for i in range(n)), sp.zeros(*M.shape))

    a = sp.Matrix(rates)
    dynamics = J.T * G * J * a - (C.T * sp.Matrix(lam) if k else sp.zeros(n, 1)) - \
        J.T * (r - G * (rate(J) * u + rate(q0)))
    equations = [*(C * u + f)] if k else []
    equations += [row / scale for row, scale in zip(dynamics, _row_scales(J.T * G * J, q))]
    equations += [*(C * a + rate(C) * u + rate(f))] if k else []
    energy = sp.expand((qdot.T * G * qdot)[0, 0] / 2)
    out = ConstrainedControlSystem([*q, *speeds[:m]], controls, [*speeds[m:], *rates, *lam], [*qdot, *rates[:m]],
                                   equations, name=name, energy=energy)
    # phi(q) = 0, imposed at position level by the collocation (its velocity form is among C u + f = 0)
    out.holonomic = [sp.sympify(h).xreplace(values) for h in (system.holonomic or [])]
    return out
