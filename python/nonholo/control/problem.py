"""Optimal control problems of nonholo's control systems, transcribed by direct collocation and
solved by IPOPT in C++ (``_core.solve_collocation``)."""

from __future__ import annotations

import math
import numbers
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from .. import _core
from ..errors import ModelError, OptimalControlError, attach_partial
from ..expressions.speed_frame import DependentSpeeds
from .kinematic import KinematicSystem, dynamic_of
from .angles import angle_indices, solve_over_lifts
from .charts import chart_crossing, ends_across
from .guesses import array_guess, is_array_guess, is_rest, rest_guess
from .ipopt_lock import locked_solve
from .objective_scale import scaled_solve
from .refinement import refined
from .multistart import AGREE, FULL_SOLVES, from_rest, multistart, off_the_saddle  # noqa: F401 (AGREE, FULL_SOLVES: as before)
from .path_starts import bumps_off_the_path, line_violates_path
from . import checks
from .endpoints import FIXED_WHEN_BUILT, checked_ends, controls_only_in_force, potential_controls_as_force
from ..options import flag
from .solution import OptimalControlSolution, amplified, resolved, vectorized
from .tally import NOT_STARTED, SolveTally
from .speeds import ConstrainedControlSystem, speeds_dynamics_of
from .vehicle import planar_vehicle, reversible
from .car_starts import car_path_guess, from_the_car_path
from .dmoc import DiscreteMechanics, solve_dmoc
from .durations import other_durations
from .warm_start import WARM_START_OPTIONS, carried_multipliers, holonomic_pairs
from .transcription import (DMOC, correction_functions, correction_offsets, interval_points, point_functions,
                            point_jacobian, scheme, terminal_function)

__all__ = ["OptimalControlProblem"]

COSTS = ("time", "energy")
HESSIANS = ("exact", "limited-memory")
MU_STRATEGIES = ("monotone", "adaptive")
HOLONOMIC = ("position", "velocity")
PERTURBATION = 0.5  # perturbed_guess's default amplitude
PERTURBATIONS = (0.5, -0.5, 1.0, -1.0)  # the bumps of each state the dynamics depend on (perturbed_guess)
SIDEWAYS = math.pi / 4  # a chord this far from a heading (modulo pi) widens a reversible vehicle's starts
MU_WARM = 1e-3  # a warm start's smallest mu_init (its interpolated point is farther from the optimum than its mu says)


class OptimalControlProblem:
    """Minimize a cost over the controls of a control system, between given end states.

    Parameters
    ----------
    model_or_system : KinematicSystem or System
        The dynamics y' = f(y, u): a :class:`~nonholo.control.kinematic.KinematicSystem`
        (``system.kinematic()``, ``nh.systems.kinematic_car()``), or a :class:`~nonholo.System`
        with nonholonomic constraints, whose kinematic system is taken.
    cost : {"time", "energy"} or SymPy expression
        ``"time"``: the duration (free unless ``t_final`` bounds it); ``"energy"``: the integral
        of the kinetic energy 1/2 w^T G_D(q) w (for ``system.kinematic()`` G_D = X_D^T G X_D);
        an expression of the states and controls: its integral over time (the running cost).
    terminal_cost : SymPy expression of the states, optional
        Added at the final state.
    initial, final : sequence of float or None, optional
        The end states, one entry per state; a None entry (or None for all) leaves it free.
    t_final : float or (lo, hi), optional
        The duration: a positive number fixes it; a pair of bounds or None leaves it free
        (None only with ``cost="time"``; other costs need a duration or its bounds).
    state_bounds, control_bounds : mapping name -> (lo, hi), optional
        Bounds on the states at every point and on the controls (both override the system's:
        :attr:`KinematicSystem.state_bounds`, :attr:`KinematicSystem.control_bounds`).
    path_constraints : sequence of SymPy inequalities, optional
        ``expr <= c``, ``expr >= c`` (``<``, ``>`` as their closures: an NLP's set is closed) in the
        states and controls, at every collocation point: ``(x - 2)**2 + y**2 >= 0.25``, an obstacle.
    controls : sequence of symbols, optional
        With a :class:`~nonholo.System`: the symbols of its force (parameters or free symbols)
        declared as controls; the problem is then posed on its Lagrange-d'Alembert dynamics.
        A system with a frame of Kane's speeds (:meth:`~nonholo.System.from_kanes_method`):
        states q and the independent speeds, the dependent speeds, the speeds' rates and the
        constraint multipliers as algebraic variables imposed at every collocation point
        (:func:`~nonholo.control.speeds.speeds_dynamics_of`; regular wherever the dependent
        speeds' constraint block is). Other systems: the quasi-velocities of the Voronets frame
        (states q and w, :func:`~nonholo.control.kinematic.dynamic_of`), derived in SymPy.
        Without it a System's kinematic system (``system.kinematic()``) is taken. A Voronets frame
        is a chart: a plan that crosses or reaches its singular set, or comes within its own error
        of it, is no success (its message says where; :mod:`nonholo.control.charts`).
    angles : sequence of str, optional
        States whose end values count modulo 2 pi (a vehicle's headings): the solve tries the final
        values lifted to within pi of the initial ones and turned once more either way, and keeps
        the best plan (:mod:`nonholo.control.angles`; with ``guess=``, the values as given). Without
        it an end value is a number: a car ending at heading 0 may not end at 2 pi.

    Examples
    --------
    >>> import nonholo as nh
    >>> car = nh.systems.kinematic_car(turning_radius=1.0)
    >>> problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 0.0, 0.0])
    >>> sol = problem.solve(nodes=20)
    >>> round(sol.t_final, 6), sol.success
    (4.0, True)
    """

    def __init__(self, model_or_system, cost="time", terminal_cost=None, initial=None, final=None, t_final=None,
                 state_bounds: Mapping | None = None, control_bounds: Mapping | None = None,
                 path_constraints: Sequence | None = None, controls: Sequence | None = None, angles=None):
        if controls is not None and not isinstance(controls, (str, sp.Basic)) and hasattr(model_or_system, "potential"):
            model_or_system = potential_controls_as_force(model_or_system, controls)  # for DMOC's Lagrangian too
        self.dynamics = _dynamics(model_or_system, controls)
        # the System whose Lagrangian DMOC discretizes (method="dmoc"), when given with controls
        self.system = model_or_system if controls is not None and not isinstance(model_or_system, KinematicSystem) \
            else None
        self._dmoc = None
        dyn = self.dynamics
        self.states, self.controls = list(dyn.states), list(dyn.controls)
        self.state_names, self.control_names = dyn.state_names, dyn.control_names
        # algebraic variables of a differential-algebraic model: further variables at every point
        self.algebraic = list(getattr(dyn, "algebraic", []))
        self._dae = isinstance(dyn, ConstrainedControlSystem)
        allowed = set(self.states) | set(self.controls) | set(self.algebraic)
        kinds, others = checks.symbol_kinds(self, model_or_system)  # for the messages naming a refused symbol
        if isinstance(cost, str) and cost in COSTS:
            running = sp.Integer(1) if cost == "time" else dyn.energy()
        else:  # an expression (a string parsed without evaluation, never sympify's eval)
            try:
                running = checks.expression(cost, "cost", allowed, kinds, others)
            except (TypeError, ValueError) as err:
                if not isinstance(cost, str) and isinstance(err, ValueError):
                    raise
                raise ValueError(f"cost must be one of {COSTS} or a SymPy expression of the states and controls, got "
                                 f"{cost!r:.200} ({err})") from None
        self.cost, self.running_cost = cost, running
        self.terminal_cost = None if terminal_cost is None else \
            checks.expression(terminal_cost, "terminal_cost", set(self.states), {"the states": self.state_names},
                              others)
        n = len(self.states)
        self.initial = checks.endpoint(initial, n, "initial", self.state_names)
        self.final = checks.endpoint(final, n, "final", self.state_names)
        self.angles = angle_indices(angles, self.state_names)
        self.free_time, self.t_final, self.t_bounds = checks.duration(t_final, cost)
        self.state_bounds = {**getattr(dyn, "state_bounds", {}),
                             **checks.named_bounds(state_bounds, self.state_names, "state_bounds", others)}
        merged = dict(dyn.control_bounds)
        merged.update(checks.named_bounds(control_bounds, self.control_names, "control_bounds"))
        self.control_bounds = merged
        self.path_constraints, self.path_bounds = checks.inequalities(path_constraints, allowed, "path_constraints",
                                                                      kinds, others)
        # holonomic constraints phi(y) = 0 of the dynamics (a System's, in its coordinates)
        self.holonomic = [sp.sympify(h) for h in (getattr(dyn, "holonomic", None) or [])]
        checked_ends(self)  # again at each solve: the ends and bounds may be set between solves
        checks.unpenalized_controls(self)  # warns
        self._functions = None
        self._terminal = None
        self._holonomic_tapes = None
        self._phi = self._g = None  # holonomic constraints and path constraints in NumPy, when first needed
        self._built = True

    def __repr__(self) -> str:
        cost = self.cost if isinstance(self.cost, str) else sp.sstr(self.running_cost)
        duration = f"t_final in {tuple(self.t_bounds)}" if self.free_time else f"t_final={self.t_final:g}"
        cost = cost if len(cost) <= 80 else cost[:76] + " ..."  # cut whole, its quotes kept
        return (f"OptimalControlProblem(cost={cost!r}, {duration}, states {self.state_names}, controls "
                f"{self.control_names}, initial={self.initial}, final={self.final})")

    def __setattr__(self, name, value):
        if name in FIXED_WHEN_BUILT and self.__dict__.get("_built"):
            raise AttributeError(f"OptimalControlProblem.{name} is fixed when the problem is built (its functions are "
                                 "compiled from it): build a new OptimalControlProblem; initial, final, state_bounds "
                                 "and control_bounds may be set between solves")
        object.__setattr__(self, name, value)

    def __getstate__(self):
        """Picklable: the compiled point functions and NumPy callables are rebuilt on first use."""
        skip = ("_f", "_f_z")
        return {**{k: v for k, v in self.__dict__.items() if k not in skip}, "_functions": None, "_terminal": None,
                "_holonomic_tapes": None, "_phi": None, "_g": None, "_dmoc": None}

    # ------------------------------------------------------------------ building blocks
    def _point_functions(self):
        # built once; _functions is set last, so that a solve in another thread that finds it set finds the
        # rest set too (two threads solving a fresh problem: one failed on a missing _f)
        if self._functions is None:
            z = self.states + self.controls + self.algebraic
            outputs = [*self.dynamics.rhs, self.running_cost, *self.path_constraints, *self._equations()]
            functions = point_functions(z, outputs)
            self._terminal = terminal_function(self.states, self.terminal_cost)
            self._f = vectorized(list(self.dynamics.rhs), self.states, self.controls + self.algebraic)
            if not self._dae:  # df/d(y, u) by dual numbers on the dynamics' tape, not a lambdified Jacobian
                self._f_z = point_jacobian(list(self.dynamics.rhs), self.states, self.controls)
            self._functions = functions
        return self._functions

    def _holonomic_functions(self):
        """(the point functions with phi appended to their outputs, the correction's functions)."""
        if self._holonomic_tapes is None:
            self._point_functions()
            z = self.states + self.controls + self.algebraic
            outputs = [*self.dynamics.rhs, self.running_cost, *self.path_constraints, *self._equations(),
                       *self.holonomic]
            self._holonomic_tapes = (point_functions(z, outputs), correction_functions(
                z, self.states, self.holonomic, getattr(self.dynamics, "rhs", ())))
        return self._holonomic_tapes

    def holonomic_residual(self, Y: np.ndarray) -> np.ndarray:
        """max_r |phi_r(y)| at the columns of Y (n_y, P); zeros without holonomic constraints."""
        Y = np.asarray(Y, dtype=float)
        if not self.holonomic:
            return np.zeros(Y.shape[1])
        if self._phi is None:
            self._phi = vectorized(self.holonomic, self.states, [])
        return np.max(np.abs(self._phi(Y, np.zeros((0, Y.shape[1])))), axis=0)

    def _equations(self) -> list:
        return list(self.dynamics.equations) if self._dae else []

    def _rhs(self, Y: np.ndarray, U: np.ndarray) -> np.ndarray:
        """f(y, u) at points (n_y, P), the algebraic variables solved where the model has them."""
        self._point_functions()
        return self.dynamics.vector_field(Y, U) if self._dae else self._f(Y, U)

    def _rhs_u(self, Y: np.ndarray, U: np.ndarray) -> np.ndarray:
        """df/du at points, (P, n_y, n_u): exact, or central differences through the algebraic solve."""
        if not self._dae:
            self._point_functions()
            return self._f_z(Y, U)[:, :, len(self.states):]
        return self._differences(Y, U, of_controls=True)

    def _rhs_y(self, Y: np.ndarray, U: np.ndarray) -> np.ndarray:
        """df/dy at points, (P, n_y, n_y): exact, or central differences through the algebraic solve."""
        if not self._dae:
            self._point_functions()
            return self._f_z(Y, U)[:, :, :len(self.states)]
        return self._differences(Y, U, of_controls=False)

    def _differences(self, Y: np.ndarray, U: np.ndarray, of_controls: bool) -> np.ndarray:
        """Central differences of f through the algebraic solve in each state (or control), (P, n_y, n_x): every
        shifted point in one evaluation (one call per column took 13 times as long, a car with a trailer in
        Kane's speeds spending a second of its solve's check here)."""
        X = U if of_controls else Y
        n, P = X.shape
        d = 1e-6 * (1.0 + np.abs(X))  # (n, P)
        shifts = np.zeros((2, n, n, P))
        shifts[0, np.arange(n), np.arange(n)] = d
        shifts[1] = -shifts[0]
        Xs = (X[None, None] + shifts).transpose(2, 0, 1, 3).reshape(n, 2 * n * P)  # (n, [sign, column, point])
        other = np.tile(U if not of_controls else Y, 2 * n)
        F = self._rhs(other, Xs) if of_controls else self._rhs(Xs, other)
        F = F.reshape(F.shape[0], 2, n, P)
        return ((F[:, 0] - F[:, 1]) / (2 * d[None])).transpose(2, 0, 1)

    def _block_bounds(self):
        free = [-math.inf] * len(self.algebraic)
        lo = np.array([self.state_bounds.get(s, (-math.inf, math.inf))[0] for s in self.state_names]
                      + [self.control_bounds[c][0] for c in self.control_names] + free)
        hi = np.array([self.state_bounds.get(s, (-math.inf, math.inf))[1] for s in self.state_names]
                      + [self.control_bounds[c][1] for c in self.control_names] + [-v for v in free])
        return lo, hi

    # ------------------------------------------------------------------ guesses
    def default_guess(self, tau: np.ndarray):
        """The default initial guess at normalised times ``tau``: the states on the straight line
        from the initial to the final state (a free entry held at the other end's value, or 0),
        the controls fitted to that line's velocity by least squares (Gauss-Newton, clipped to
        their bounds), and a free duration the shortest that keeps the fitted controls within their
        bounds. Returns (Y (n_y, P), U (n_u, P), T)."""
        a = np.array([i if i is not None else (f if f is not None else 0.0) for i, f in zip(self.initial, self.final)])
        b = np.array([f if f is not None else ai for f, ai in zip(self.final, a)])
        Y = a[:, None] + (b - a)[:, None] * tau[None, :]
        if not self.free_time:
            return Y, self._fit_controls(Y, np.repeat((b - a)[:, None] / self.t_final, tau.size, axis=1)), self.t_final
        # The controls that scale as 1/T along the line (speeds, not curvatures) fix T: the
        # shortest duration that keeps them within their bounds.
        delta = np.repeat((b - a)[:, None], tau.size, axis=1)
        U1 = self._fit_controls(Y, delta, clip=False)
        U2 = self._fit_controls(Y, delta / 2, clip=False)
        speeds = (np.abs(U2) <= 0.75 * np.abs(U1)) & (np.abs(U1) > 1e-12)
        T = self._bound_ratio(np.where(speeds, U1, 0.0)) or 1.0
        T = float(np.clip(T, *self.t_bounds))
        return Y, self._fit_controls(Y, np.repeat((b - a)[:, None] / T, tau.size, axis=1)), T

    def heading_guess(self, tau: np.ndarray):
        """For a planar vehicle (:mod:`~nonholo.control.vehicle`: x, y and headings): the guess that turns
        each heading to the chord's direction in the first fifth of the time, drives along the
        chord, and turns to the final headings in the last fifth (the shape of a car's shortest
        paths, turn-straight-turn); None for other systems. Returns (Y, U, T) as
        :meth:`default_guess`."""
        if self._vehicle() is None:
            return None
        ix, iy, headings = self._vehicle()
        Y, _, T = self.default_guess(tau)
        dx, dy = Y[ix, -1] - Y[ix, 0], Y[iy, -1] - Y[iy, 0]
        if math.hypot(dx, dy) < 1e-9:
            return None
        phi = math.atan2(dy, dx)
        for i in headings:
            a, b = Y[i, 0], Y[i, -1]
            phi_i = phi + 2 * math.pi * round((a - phi) / (2 * math.pi))
            Y[i] = np.interp(tau, [0.0, 0.2, 0.8, 1.0], [a, phi_i, phi_i, b])
        if self.free_time:
            T = float(np.clip(1.2 * T, *self.t_bounds))
        Ydot = np.gradient(Y, tau, axis=1) / T
        return Y, self._fit_controls(Y, Ydot), T

    def _vehicle(self):
        """(x, y, headings) state indices of a planar vehicle, or None (:mod:`~nonholo.control.vehicle`)."""
        if not hasattr(self, "_planar"):
            self._planar = planar_vehicle(self)
        return self._planar

    def _sideways(self) -> bool:
        """A planar vehicle whose chord runs more than SIDEWAYS (modulo pi: it may reverse) from its
        headings at both ends: the line and the turn-drive-turn start then tend to one local optimum
        (the car to (0, 1, 0): 2.917 against the Reeds-Shepp 2.636, which a start with the heading
        bumped reaches), so the bumps are solved too, not only when the two starts disagree."""
        if self._vehicle() is None:
            return False
        ix, iy, headings = self._vehicle()
        ends = [(self.initial[i], self.final[i]) for i in (ix, iy)]
        if any(a is None or b is None for a, b in ends):
            return False
        (x0, x1), (y0, y1) = ends
        if math.hypot(x1 - x0, y1 - y0) < 1e-9:
            return False
        phi = math.atan2(y1 - y0, x1 - x0)
        angles = [a for i in headings for a in (self.initial[i], self.final[i]) if a is not None]
        return bool(angles) and all(abs((phi - a + math.pi / 2) % math.pi - math.pi / 2) > SIDEWAYS for a in angles)

    def _turns_on_the_spot(self) -> bool:
        """A planar vehicle (x, y, headings) whose ends share their position: its line stands still
        (the car cannot turn without moving), and its heading start has no chord to follow; bumps of x
        and y (a swing out and back) start it."""
        if self._vehicle() is None:
            return False
        ends = [(self.initial[i], self.final[i]) for i in self._vehicle()[:2]]
        return all(a is not None and b is not None and abs(a - b) < 1e-9 for a, b in ends)

    def perturbed_guess(self, tau: np.ndarray, state, amplitude: float = PERTURBATION):
        """The straight line of :meth:`default_guess` with one state pushed off it by
        ``amplitude * sin(pi tau)`` (zero at both ends), the controls fitted to that path and a
        free duration 1.3 times the line's: a start in another basin of IPOPT's local optima (for
        a car, a bump of the heading makes it swing out and reverse into a goal it would
        otherwise reach only going forward). ``state`` is a name or an index. Returns (Y, U, T)
        as :meth:`default_guess`."""
        i = self.state_names.index(state) if state in self.state_names else state
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral) or not 0 <= i < len(self.states):
            raise ValueError(f"state must be one of {self.state_names} or an index, got {state!r}")
        amplitude = checks.real(amplitude, "amplitude of the perturbed guess")
        Y, _, T = self.default_guess(tau)
        Y = Y.copy()
        Y[i] += amplitude * np.sin(np.pi * tau)
        if self.free_time:
            T = float(np.clip(1.3 * T, *self.t_bounds))
        return Y, self._fit_controls(Y, np.gradient(Y, tau, axis=1) / T), T

    def is_reversible(self) -> bool:
        """A minimum-time problem of a driftless system that can drive every path backwards
        (:func:`~nonholo.control.vehicle.reversible`: its optimum may reverse, a cusp)."""
        if self._reversible is None:
            self._reversible = reversible(self)  # set once decided (another thread may ask meanwhile)
        return self._reversible

    def _bound_ratio(self, U: np.ndarray) -> float:
        """max over the points and controls of |u| over its finite bound on that side."""
        ratio = 0.0
        for i, c in enumerate(self.control_names):
            lo, hi = self.control_bounds[c]
            if math.isfinite(hi) and hi > 0:
                ratio = max(ratio, float(np.max(U[i])) / hi)
            if math.isfinite(lo) and lo < 0:
                ratio = max(ratio, float(np.min(U[i])) / lo)
        return ratio

    def _fit_controls(self, Y: np.ndarray, Ydot: np.ndarray, clip: bool = True, U=None) -> np.ndarray:
        """Controls u with f(y, u) closest to ``Ydot`` at each point: three Gauss-Newton steps from
        0 (or ``U``), each a least-squares solve with df/du (zero is a singular point of some
        systems, e.g. the car's kappa at v = 0: the second step sees the first's speed)."""
        self._point_functions()
        m, P = len(self.controls), Y.shape[1]
        lo, hi = self._block_bounds()
        lo, hi = lo[len(self.states):len(self.states) + m], hi[len(self.states):len(self.states) + m]
        U = np.clip(np.zeros((m, P)), lo[:, None], hi[:, None]) if U is None else np.array(U, dtype=float)
        if m == 0:
            return U
        for _ in range(3):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a singular point: raised below
                r = Ydot - self._rhs(Y, U)
                J = self._rhs_u(Y, U)  # (P, n, m)
            bad = ~(np.isfinite(r).all(axis=0) & np.isfinite(J).all(axis=(1, 2)))
            if bad.any():
                p = int(np.argmax(bad))
                state = dict(zip(self.state_names, (round(float(v), 6) for v in Y[:, p])))
                raise ModelError(f"the dynamics of {self.dynamics.name!r} are not finite at a state of the initial "
                                 f"guess ({state}): "
                                 "the model is singular there (e.g. its frame); pass guess= with states where it "
                                 "is regular")
            U += np.einsum("pmn,np->mp", np.linalg.pinv(J, rcond=1e-12), r)  # least squares, min norm
            if clip:
                U = np.clip(U, lo[:, None], hi[:, None])
        return U

    def _guess(self, guess, tau: np.ndarray):
        if guess is None or (isinstance(guess, str) and guess == "line"):
            return self.default_guess(tau)
        if isinstance(guess, str) and guess == "car path":
            return car_path_guess(self, tau, required=True)
        if isinstance(guess, str) and guess == "heading":
            found = self.heading_guess(tau)
            if found is None:
                raise ValueError("guess='heading' needs a planar vehicle (rates w cos(h), w sin(h) of a heading h)")
            return found
        if isinstance(guess, tuple) and len(guess) == 3 and isinstance(guess[0], str) and guess[0] == "perturbed":
            return self.perturbed_guess(tau, guess[1], guess[2])
        if is_rest(guess):
            return rest_guess(self, tau, *guess[1:])
        if isinstance(guess, str):
            raise ValueError(f"guess must be None, 'line', 'heading', an OptimalControlSolution, a simulation "
                             f"result or arrays (t, y, u), got {guess!r}")
        if isinstance(guess, OptimalControlSolution):
            theirs = (list(guess.state_names), list(guess.control_names))
            if theirs != [list(self.state_names), list(self.control_names)] and (
                    len(theirs[0]), len(theirs[1])) != (len(self.states), len(self.controls)):
                raise ValueError(f"guess: a solution with states {theirs[0]} and controls {theirs[1]} cannot start a "
                                 f"problem with states {self.state_names} and controls {self.control_names}")
            T = guess.t_final
            Y, U = guess.states_at(tau * T), guess.controls_at(tau * T)
            return Y, U, (float(np.clip(T, *self.t_bounds)) if self.free_time else self.t_final)
        if hasattr(guess, "t") and hasattr(guess, "y"):  # a simulation: states from it, controls fitted
            t = np.asarray(guess.t, dtype=float)
            y = np.asarray(guess.y, dtype=float)[: len(self.states)]
            if t.size < 2 or y.shape[0] != len(self.states):
                raise ValueError("guess must be a simulation of the problem's states "
                                 "(n_states rows, two samples or more)")
            if not (np.all(np.isfinite(t)) and np.all(np.diff(t) >= 0) and t[-1] > t[0] and np.all(np.isfinite(y))):
                raise ValueError("guess: a simulation's times guess.t must be finite and increasing and its states "
                                 "guess.y finite (a failed run, or one backward in time, starts no plan)")
            t, y = t[np.r_[np.diff(t) > 0, True]], y[:, np.r_[np.diff(t) > 0, True]]  # a switch's time repeated
            T = float(t[-1] - t[0]) if self.free_time else self.t_final
            ts = t[0] + tau * (t[-1] - t[0])
            Y = np.array([np.interp(ts, t, row) for row in y])
            Ydot = np.array([np.interp(ts, t, np.gradient(row, t)) for row in y]) * (t[-1] - t[0]) / T
            return Y, self._fit_controls(Y, Ydot), float(np.clip(T, *self.t_bounds)) if self.free_time else T
        if is_array_guess(guess):
            return array_guess(self, guess, tau)
        raise TypeError(f"guess must be None, 'line', 'heading', an OptimalControlSolution, a simulation result or "
                        f"arrays (t, y, u) (a tuple or a dict with keys 't', 'y', 'u'), got {type(guess).__name__}")

    # ------------------------------------------------------------------ solve
    def solve(self, nodes: int = 100, method: str = "hermite-simpson", guess=None, tol: float = 1e-8,
              max_iter: int = 3000, refine: int = 0, refine_tol: float | None = None, hessian: str = "exact",
              raise_on_failure: bool = False, print_level: int = 0, max_wall_time: float | None = None,
              mu_strategy: str = "monotone", ipopt_options: Mapping | None = None, holonomic: str = "position",
              warm_multipliers: bool | None = None):
        """Transcribe on ``nodes`` equally spaced mesh nodes and solve with IPOPT.

        Parameters
        ----------
        nodes : int
            Mesh nodes (>= 3); Hermite-Simpson adds the interval midpoints as collocation points.
        method : {"hermite-simpson", "trapezoid", "backward-euler", "dmoc"}
            The transcription (:func:`~nonholo.control.transcription.scheme`). ``"dmoc"``: the
            discrete Lagrange-d'Alembert midpoint rule of a System given with ``controls=``
            (``nonholo.control.dmoc``; its variables are the coordinates, controls and
            constraint impulses at the nodes, ``sol.impulses``).
        guess : None, "line", "heading", "car path", OptimalControlSolution, simulation result or arrays
            The starting point. ``"line"``: :meth:`default_guess` (the straight line);
            ``"heading"``: :meth:`heading_guess` (planar vehicles); ``"car path"``: the Reeds-Shepp or
            Dubins path of a least-time vehicle of constant turning radius
            (:func:`~nonholo.control.car_starts.car_path_guess`), solved on the full mesh too where it
            exists, the better optimum kept; None, the default: the line,
            and for a planar vehicle both starts, each solved first on a coarse mesh (a quarter
            of the nodes, at least 11; ``stats["coarse_nodes"]``, ``stats["coarse_iterations"]``).
            For a minimum-time problem that can drive backwards (:meth:`is_reversible`), when
            the two coarse optima disagree (both succeed, costs more than 0.1% apart: evidence
            of several local optima), the line with each state the dynamics depend on (a car's
            heading, not its position) bumped off it by +-0.5 and +-1 (:meth:`perturbed_guess`)
            is solved on the coarse mesh as well (optima that reverse, a car's cusp, lie in
            their basins) and the full mesh from the three best distinct coarse optima, the best
            kept (``stats["full_solves"]``); otherwise the full mesh from the coarse solution of
            lowest cost (``stats["starts"]`` says how many starts ran). With path constraints the
            line with each state they bound bumped off it (+-0.5, +-1) is solved too: among the
            starts when the line leaves the constraints' set (a line through the middle of an
            obstacle is a saddle of its constraint, which IPOPT does not leave), else when the
            other starts give no solution. A planar vehicle whose ends share their position
            (turning on the spot: its line stands still) starts from x and y bumped instead (a
            swing out and back). Without path constraints, where every start fails, each state bumped
            off the line (the line of a symmetric problem is a saddle too: the Heisenberg particle to
            (0, 0, z)), then the start at rest on the full mesh (:func:`~nonholo.control.guesses.rest_guess`:
            a pendulum swung up against a torque bound) are tried last. Or a previous solution
            (warm start, interpolated onto the new mesh); a simulation's states (controls
            fitted); arrays ``(t, y, u)`` or a dict with keys ``"t"``, ``"y"``, ``"u"`` (``u``
            optional: fitted) on any increasing time grid, interpolated linearly
            (:func:`~nonholo.control.guesses.array_guess`).
        tol : float
            IPOPT's tolerance.
        max_iter : int
            IPOPT's iteration limit, for each of its calls (a default start and ``refine`` make several).
        refine : int
            Rounds of mesh refinement: after each solve, the intervals whose local error exceeds ``refine_tol``
            (:attr:`OptimalControlSolution.interval_errors`), or whose cost error (``cost_errors``) the same
            fraction of the cost, are halved, those whose re-run crosses a path constraint split where it
            crosses deepest, and the problem is solved again from the solution (:mod:`~nonholo.control.refinement`).
        refine_tol : float, optional
            Default: 1e-6 times (u + r), r the largest range (max - min) of a state over the plan, u =
            min(1, max(r, 1e-6)): a translation or a change of units of the problem changes nothing.
        hessian : {"exact", "limited-memory"}
            IPOPT's Hessian: exact (from the tapes) or its L-BFGS approximation.
        raise_on_failure : bool
            Raise :class:`~nonholo.errors.OptimalControlError` when IPOPT fails (else
            ``success`` is False and ``message`` IPOPT's status).
        print_level : int
            IPOPT's output (0: none).
        max_wall_time : float, optional
            A wall-clock budget (seconds) for the whole solve, from this call on: every start, mesh,
            lift of the final headings and round of ``refine``. Each IPOPT call is given what
            remains (its ``max_cpu_time``, converted at the CPU rate the solve has had), none
            starts once it is spent, and the message says so (:mod:`~nonholo.control.tally`).
            ``stats`` totals the calls: ``ipopt_calls``, ``iterations_total``,
            ``time_ipopt_total``, ``time_total``, ``calls_not_started``.
        mu_strategy : {"monotone", "adaptive"}
            IPOPT's barrier parameter update (its ``mu_strategy``): Fiacco-McCormick's monotone
            decrease, or the adaptive rule of Nocedal, Waechter and Waltz, often fewer
            iterations from a poor start (e.g. 50 instead of 193 on opty's parallel park at
            126 nodes from the heading start).
        ipopt_options : mapping name -> str, int or float, optional
            Further IPOPT options by IPOPT's names, e.g. ``{"mu_strategy": "adaptive",
            "mu_init": 1e-2}``, set after the arguments above (so ``{"tol": ...}`` overrides
            ``tol``). IPOPT's yes/no options take the strings ``"yes"`` and ``"no"``. An unknown
            name, a value of the wrong type or a value IPOPT refuses raises ValueError naming the
            option (before any solve).
        holonomic : {"position", "velocity"}
            With holonomic constraints phi(y) = 0 in the dynamics (a System's ``holonomic``):
            ``"position"`` (default) imposes phi = 0 at every collocation point (not at an end
            whose states in phi are all given) with a correction -h dphi/dy^T gamma per stencil
            and interval in the defects (``sol.gamma``, O(h^order) -> 0; Posa, Kuindersma &
            Tedrake 2016); ``"velocity"`` leaves only the velocity form the dynamics hold, and phi
            drifts at the method's order. DMOC always imposes phi at position level.
        warm_multipliers : bool, optional
            With a previous solution as the guess (or ``refine``, or the default's step from the
            coarse mesh to the full one): start IPOPT from its multipliers as well (constraints and
            bounds, interpolated onto the mesh, :func:`~nonholo.control.warm_start.carried_multipliers`)
            with IPOPT's ``warm_start_init_point`` and ``mu_init`` 1e-3 (also of another problem of the
            same structure: a re-plan). None (the default): the rounds of ``refine`` only, each from
            the one before (a cold barrier pushed a Reeds-Shepp cusp off its bounds: refine=3 ended 8%
            above its start; benchmarks/ocp_refine_warm.py); not a guess, nor the default start's step
            to the full mesh (on 29 problems: 4% fewer iterations, parking with two trailers 12% longer).

        Returns
        -------
        OptimalControlSolution

        Raises
        ------
        KeyboardInterrupt
            Ctrl-C stops the solve within an IPOPT iteration; ``exc.partial`` holds the successful
            plan of least objective among the IPOPT calls that finished (on the mesh it was solved
            on: a start's coarse one), or None.
        """
        raise_on_failure = flag(raise_on_failure, "raise_on_failure")
        checked_ends(self)  # set or edited since the last solve: refused as a new problem would be
        options = dict(locals())
        del options["self"]
        options.update(raise_on_failure=False, tally=SolveTally(max_wall_time))  # the budget starts now
        try:
            if self.angles and guess is None:  # the final headings' lifts (module angles), the best kept
                sol = solve_over_lifts(self, self._solve, options)
            else:
                sol = self._solve(**options)
        except KeyboardInterrupt as exc:  # Ctrl-C: the best successful plan of the solves that finished
            raise attach_partial(exc, options["tally"].best)
        options["tally"].finish(sol)
        if raise_on_failure and not sol.success:
            raise OptimalControlError(f"no optimal plan: {sol.message}", sol)
        return sol

    def _solve(self, nodes, method, guess, tol, max_iter, refine, refine_tol, hessian, raise_on_failure, print_level,
               max_wall_time, mu_strategy, ipopt_options, holonomic, warm_multipliers, tally=None):
        if isinstance(nodes, bool) or not isinstance(nodes, numbers.Integral) or nodes < 3:
            raise ValueError(f"nodes must be an integer >= 3, got {nodes!r}")
        sch = scheme(method)
        if hessian not in HESSIANS:
            raise ValueError(f"hessian must be one of {HESSIANS}, got {hessian!r}")
        checks.solve_numbers(tol, max_iter, refine, refine_tol, max_wall_time, print_level)
        checks.mesh_size(nodes, sch.step, len(self.states) + len(self.controls) + len(self.algebraic))
        if mu_strategy not in MU_STRATEGIES:
            raise ValueError(f"mu_strategy must be one of {MU_STRATEGIES}, got {mu_strategy!r}")
        if not isinstance(holonomic, str) or holonomic not in HOLONOMIC:
            raise ValueError(f"holonomic must be one of {HOLONOMIC}, got {holonomic!r}")
        if sch is DMOC and holonomic != "position" and self.holonomic:
            raise ValueError("holonomic='velocity' is not available with method='dmoc' (DMOC imposes phi(q) = 0 at "
                             "position level)")
        if not (warm_multipliers is None or isinstance(warm_multipliers, (bool, np.bool_))):
            raise ValueError(f"warm_multipliers must be True, False or None, got {warm_multipliers!r}")
        tally = tally or SolveTally(max_wall_time)
        options = dict(tol=float(tol), max_iter=int(max_iter), exact_hessian=hessian == "exact",
                       print_level=int(print_level), max_wall_time=0.0, mu_strategy=mu_strategy,
                       # the project's defaults (checks.default_ipopt_options), then the caller's
                       ipopt_options=[*checks.default_ipopt_options(self), *checks.ipopt_options(ipopt_options)],
                       holonomic=holonomic == "position" and bool(self.holonomic), warm=warm_multipliers,
                       tally=tally)
        dtau = np.full(nodes - 1, 1.0 / (nodes - 1))
        vehicle = guess is None and self.heading_guess(np.linspace(0.0, 1.0, 3)) is not None
        # the bumps of the states the path constraints bound (an obstacle's middle on the line is a
        # saddle IPOPT does not leave): among the starts where the line leaves the set, else on failure
        rescue = bumps_off_the_path(self, self._bumps(self.path_constraints))
        if vehicle:
            extra = self._bumps(self.dynamics.rhs) if self.is_reversible() else []
            sol = multistart(self, sch, nodes, dtau, ("line", "heading"), options, extra, rescue,
                             widen=self._sideways())
            sol = from_the_car_path(self, sch, dtau, sol, options, tally)
        elif guess is None and sch is not DMOC and self._turns_on_the_spot():  # swing out and back, not the line
            out_and_back = rescue or [b for b in self._bumps(self.states) if b[1] in self._vehicle()[:2]]
            sol = multistart(self, sch, nodes, dtau, (), options, rescue=out_and_back) or \
                self._solve_mesh(sch, dtau, None, options)
        elif guess is None and rescue and sch is not DMOC and line_violates_path(self, interval_points(dtau, sch.step)):
            sol = multistart(self, sch, nodes, dtau, ("line",), options, (), rescue)  # the bumps compete with it
        else:
            sol = self._solve_mesh(sch, dtau, guess, options)
            if guess is None and rescue and sch is not DMOC and not sol.success and tally.may_start():
                bumped = multistart(self, sch, nodes, dtau, (), options, rescue=rescue)
                if bumped is not None and bumped.success:
                    sol = bumped
        resolved(sol)
        # the last resort without path constraints, when every start failed: each state bumped off the line (a saddle
        # too: the Heisenberg particle), then rest; not where the ends lie across a chart's singular set (all cross)
        if guess is None and not rescue and sch is not DMOC and not sol.success and tally.may_start() and not (
                sol._crossing and ends_across(self)):
            bumped = multistart(self, sch, nodes, dtau, (), options, rescue=self._bumps(self.states))
            if bumped is not None and resolved(bumped).success:
                sol = bumped
            else:  # on the full mesh: a coarse one may not resolve the motion (a pendulum's swings)
                sol = from_rest(self, sch, dtau, options, tally) or sol
        if guess is None and sch is not DMOC:  # a success at a saddle: each state bumped off it
            sol = off_the_saddle(self, sch, nodes, dtau, sol, options, tally)
        if guess is None and self.free_time and tally.may_start():  # a duration ended on a bound of t_final
            sol = other_durations(self, sch, nodes, dtau, sol, options)
        sol = refined(self, sch, dtau, sol, options, refine, refine_tol, tally)  # the rounds of refine=
        amplified(resolved(sol))  # the plan returned, not every start's
        if raise_on_failure and not sol.success:
            raise OptimalControlError(f"no optimal plan: {sol.message}", sol)
        return sol

    def _bumps(self, exprs) -> list:
        """The starts of :meth:`perturbed_guess` (by PERTURBATIONS) of each state in ``exprs``."""
        seen = set().union(*(sp.sympify(e).free_symbols for e in exprs))
        return [("perturbed", i, a) for i, y in enumerate(self.states) if y in seen for a in PERTURBATIONS]

    def _discrete_mechanics(self):
        self._dmoc = self._dmoc if self._dmoc is not None else DiscreteMechanics(self)
        return self._dmoc

    def _solve_mesh(self, sch, dtau: np.ndarray, guess, options: dict) -> OptimalControlSolution:
        # with a scaled guess's objective scaling, or once more where its objective is tiny
        return scaled_solve(lambda start, opts: self._solve_once(sch, dtau, start, opts), guess, options)

    def _solve_once(self, sch, dtau: np.ndarray, guess, options: dict) -> OptimalControlSolution:
        options = dict(options)
        position = options.pop("holonomic", False)
        warm_multipliers = options.pop("warm", False)
        tally = options.pop("tally", None)
        started = tally is None or tally.may_start()
        if tally is not None:  # the time left of the whole solve's max_wall_time (module tally)
            options["max_wall_time"] = tally.ipopt_limit() if started else 0.0
        if not started:  # the budget is spent: the plan is its start, IPOPT run for no iteration
            options["max_iter"] = 0
            kept = [o for o in options["ipopt_options"] if o[0] not in ("max_iter", "max_cpu_time")]
            options["ipopt_options"] = kept + [("constr_mult_init_max", 0.0)]  # no least-squares multipliers
        if sch is DMOC:
            return _counted(solve_dmoc(self, dtau, guess, options), tally, started)
        pf = self._point_functions()
        if position:
            pf, corr = self._holonomic_functions()
        term, term_rows, term_cols = self._terminal
        tau = interval_points(dtau, sch.step)
        Y, U, T = self._guess(guess, tau)
        n_y, n_u, P = len(self.states), len(self.controls) + len(self.algebraic), tau.size
        if self._dae:  # the algebraic variables consistent with the guess (within the bounds), at every point
            U = np.vstack([U, np.zeros((len(self.algebraic), P))])
        lo, hi = self._block_bounds()
        x_lo, x_hi = np.tile(lo, P), np.tile(hi, P)
        for i, (a, b) in enumerate(zip(self.initial, self.final)):
            if a is not None:
                x_lo[i] = x_hi[i] = a
            if b is not None and i not in self._implied:  # implied by the initial one: left to the dynamics
                x_lo[(P - 1) * (n_y + n_u) + i] = x_hi[(P - 1) * (n_y + n_u) + i] = b
        x0 = np.vstack([Y, U]).T.reshape(-1)
        holonomic = None
        pairs, n_gamma = [], 0
        if position:  # gamma: n_h per stencil and interval, after the point blocks (0 at the start)
            n_h, S = len(self.holonomic), len(sch.stencils)
            pairs = holonomic_pairs(P, n_h, self._ends_fixed)
            holonomic = (n_h, [p for p, _ in pairs], [r for _, r in pairs],
                         (corr.node, corr.jac_rows, corr.jac_cols, corr.hessian, corr.hess_rows, corr.hess_cols),
                         correction_offsets(sch))
            n_gamma = dtau.size * S * n_h
            x_lo, x_hi = np.append(x_lo, np.full(n_gamma, -np.inf)), np.append(x_hi, np.full(n_gamma, np.inf))
            x0 = np.append(x0, np.zeros(n_gamma))
        if self.free_time:
            x_lo, x_hi, x0 = np.append(x_lo, self.t_bounds[0]), np.append(x_hi, self.t_bounds[1]), np.append(x0, T)
        x0 = np.clip(x0, x_lo, x_hi)
        if sch.controls == "hold":  # u_0 is in no equation (nor the cost): fixed, not a null direction of the
            first = n_y + np.arange(len(self.controls))  # Hessian that IPOPT regularizes, read as a saddle
            x_lo[first] = x_hi[first] = x0[first]
        if self._dae:
            block = x0[: P * (n_y + n_u)].reshape(P, n_y + n_u).T
            m = len(self.controls)
            block[n_y + m:] = self.dynamics.algebraic_values(block[:n_y], block[n_y:n_y + m])
            x0[: P * (n_y + n_u)] = block.T.reshape(-1)
        n_g = len(self.path_constraints) + len(self._equations())
        g_bounds = list(self.path_bounds) + [(0.0, 0.0)] * len(self._equations())
        multipliers = None
        if warm_multipliers and isinstance(guess, OptimalControlSolution):  # the solution's multipliers too
            multipliers = carried_multipliers(guess, self, sch, dtau, n_gamma, x_lo, x_hi,
                                              dtau.size * len(sch.stencils) * n_y + P * n_g + len(pairs))
            if multipliers is not None:
                warm = [*WARM_START_OPTIONS, ("mu_init", max(guess._warm["mu"], MU_WARM))]
                options["ipopt_options"] = warm + list(options["ipopt_options"])  # the caller's last
        out = locked_solve(
            _core.solve_collocation, n_y=n_y, n_u=n_u, n_g=n_g, step=sch.step, dtau=list(dtau),
            stencils=[tuple(map(list, s)) for s in sch.stencils],
            quad_offsets=list(sch.quad_offsets), quad_weights=list(sch.quad_weights), free_time=self.free_time,
            t_final=float(self.t_final if not self.free_time else 1.0), node=pf.node, jac_rows=pf.jac_rows,
            jac_cols=pf.jac_cols, hessian=pf.hessian, hess_rows=pf.hess_rows, hess_cols=pf.hess_cols, terminal=term,
            term_hess_rows=term_rows, term_hess_cols=term_cols, g_lo=[b[0] for b in g_bounds],
            g_hi=[b[1] for b in g_bounds], x_lo=list(x_lo), x_hi=list(x_hi), x0=list(x0), holonomic=holonomic,
            multipliers=multipliers, **options)
        if "(IPOPT application status -12)" in str(out.get("message", "")):  # Invalid_Option: bad input, not a plan
            raise ValueError(f"ipopt_options: {out['message']}; check the options' names and values")
        out["warm"] = dict(x_lo=x_lo, x_hi=x_hi, pairs=pairs, n_gamma=n_gamma, mu=float(out["mu"]))
        sol = OptimalControlSolution(self, sch, dtau, out)
        crossing = chart_crossing(self.dynamics, self.states, sol.t_points, sol.y_points,
                                  isinstance(self.dynamics, KinematicSystem))
        sol._crossing = bool(crossing) and sol.success
        if crossing:  # the collocation equations hold at the points, the system's dynamics do not between them
            after = f"{sol.message} {crossing[:1].upper()}{crossing[1:]}"  # a failed solve: after IPOPT's message
            sol.success, sol.message = False, crossing if sol.success else after
        return _counted(sol, tally, started)


def _counted(sol, tally, started: bool):
    """``sol``, counted in the solve's tally; a plan whose solve was not started says so."""
    if tally is not None:
        tally.record(sol, started)
    if not started:
        sol._not_started, sol.success, sol.message = True, False, NOT_STARTED
    return sol


def _dynamics(model, controls):
    if isinstance(model, KinematicSystem):
        if controls is not None:
            raise ValueError("controls: a KinematicSystem's controls are its quasi-velocities; leave controls=None")
        return model
    if hasattr(model, "system") and hasattr(model, "rhs"):  # a model of a System (friction, reduced, ...)
        raise TypeError(f"model_or_system must be a KinematicSystem or a System, got a {type(model).__name__} (its "
                        f"kind: {getattr(model, 'kind', '?')!r}); pass the System itself: with nonholonomic "
                        "constraints for its kinematics, or with controls= for its dynamics. To plan on a friction "
                        "realization, write the friction force into the force of a System without those constraints")
    kinematic = getattr(model, "kinematic", None)
    if controls is None and callable(kinematic) and getattr(model, "k", 0) > 0:
        return kinematic()
    if controls is not None:
        if not hasattr(model, "force") or not hasattr(model, "metric"):
            raise TypeError(f"controls= needs a System (its Lagrange-d'Alembert dynamics), got {type(model).__name__}")
        if isinstance(controls, (str, sp.Basic)):
            raise TypeError(f"controls must be a sequence of symbols or names, got {controls!r}")
        _check_controls(model, controls)
        controls = [c.name if isinstance(c, sp.Symbol) else c for c in controls]  # the system's own symbols
        speeds = getattr(model, "speeds", None)
        if speeds is not None and isinstance(speeds[1], DependentSpeeds):
            return speeds_dynamics_of(model, controls)
        return dynamic_of(model, controls)
    raise TypeError(f"model_or_system must be a KinematicSystem, a System with nonholonomic constraints, or a System "
                    f"with controls=, got {type(model).__name__}")


def _check_controls(system, controls) -> None:
    """Each control a symbol of the system (a parameter or a free symbol of its expressions), not a
    coordinate, a velocity or the time; matched by name, as every symbol nonholo is given."""
    states = {str(s) for s in (*system.coordinates, *system.velocities, system.time)}
    known = sorted(set(system._symbol_names) - states)
    for c in controls:
        name = c.name if isinstance(c, sp.Symbol) else c if isinstance(c, str) else None
        if name is None or name not in known:
            raise ValueError(f"controls: {c!r} is not a symbol of the system that can be a control (its parameters and "
                             f"free symbols: {known})")
    controls_only_in_force(system, controls)  # not a mass, a length or a constraint's coefficient
