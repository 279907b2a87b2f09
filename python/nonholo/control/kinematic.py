"""Kinematic control systems: q' = X_D(q) w, the quasi-velocities w of the constraint
distribution as controls (driftless systems: a car, the Heisenberg particle)."""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from .. import options as check
from ..errors import ModelError
from ..expressions.lowering import check_free_symbols
from ..expressions.parsing import to_sympy
from ..expressions.tidy import simplified
from .charts import chart_of
from .checks import named_bounds, real

__all__ = ["KinematicSystem"]


class KinematicSystem:
    """A control system y' = f(y, w) given in SymPy, with bounds on its controls.

    Built by :meth:`nonholo.System.kinematic` (q' = X_D(q) w in the Voronets frame of the
    constraints, w the speeds of the free coordinates) or by the built-ins
    :func:`nonholo.systems.kinematic_car` and :func:`nonholo.systems.kinematic_car_trailers`.
    The optimal control problems of :class:`nonholo.OptimalControlProblem` take it as their
    dynamics.

    Parameters
    ----------
    states : sequence of SymPy symbols
        y (for a system's kinematics, its coordinates q).
    controls : sequence of SymPy symbols
        w.
    rhs : SymPy matrix or sequence, length len(states)
        f(y, w), in the states and controls only (parameters substituted).
    control_bounds : mapping name -> (lo, hi), optional
        Bounds on the controls (default unbounded: (-inf, inf)).
    metric : (m, m) SymPy matrix, optional
        G_D(y), the kinetic energy 1/2 w^T G_D w of ``cost="energy"`` (default the identity).
    name : str, optional
    energy : SymPy expression, optional
        The kinetic energy of ``cost="energy"`` when it is not 1/2 w^T G_D w (a dynamic
        system's, in its states: :func:`dynamic_of`).
    state_bounds : mapping name -> (lo, hi), optional
        Bounds on the states that every problem posed on the system imposes (default none; a
        problem's ``state_bounds`` override them).
    holonomic : sequence of SymPy expressions in the states, optional
        Holonomic constraints phi(y) = 0 whose velocity form dphi/dy f(y, w) = 0 the dynamics
        satisfy identically (a system's ``holonomic``, carried by :meth:`nonholo.System.kinematic`
        and the dynamics of ``controls=``): the collocation imposes them at position level
        (:meth:`OptimalControlProblem.solve`, ``holonomic="position"``). Checked at random
        points: ValueError if f leaves them.

    Attributes
    ----------
    states, controls : list of SymPy symbols
    rhs : SymPy Matrix (n, 1)
    control_bounds, state_bounds : dict name -> (lo, hi)
    metric : SymPy Matrix (m, m)
    state_names, control_names : list of str
    """

    def __init__(self, states: Sequence, controls: Sequence, rhs, control_bounds: Mapping | None = None,
                 metric=None, name: str = "kinematic system", energy=None, state_bounds: Mapping | None = None,
                 holonomic=None):
        self.states = [sp.Symbol(str(s)) if isinstance(s, str) else s for s in states]
        self.controls = [sp.Symbol(str(s)) if isinstance(s, str) else s for s in controls]
        if not self.states or not all(isinstance(s, sp.Symbol) for s in self.states + self.controls):
            raise ValueError("states and controls must be SymPy symbols (at least one state)")
        if not self.controls:
            raise ValueError("controls: a KinematicSystem needs at least one control (what a plan chooses); a system "
                             "without inputs is a model to simulate, not to plan")
        names = [str(s) for s in self.states + self.controls]
        if len(set(names)) != len(names):
            raise ValueError(f"states and controls must have distinct names, got {names}")
        self.rhs = sp.Matrix(list(sp.Matrix(rhs)))
        if self.rhs.rows != len(self.states):
            raise ValueError(f"rhs has {self.rhs.rows} entries, expected one per state ({len(self.states)})")
        check_free_symbols(list(self.rhs), set(self.states) | set(self.controls), "rhs")
        infinite = [s for s, e in zip(names, self.rhs) if not finite_constants(e)]
        if infinite:  # else refused only at a solve: "non-finite constant nan in an expression", naming nothing
            raise ValueError(f"rhs: the right-hand side of {name!r} is not finite: the rates of {infinite} contain "
                             "nan, zoo, oo or a number beyond a float's range (a parameter of the system NaN, infinite "
                             "or dividing by zero)")
        m = len(self.controls)
        self.metric = sp.eye(m) if metric is None else sp.Matrix(metric)
        if self.metric.shape != (m, m):
            raise ValueError(f"metric has shape {self.metric.shape}, expected ({m}, {m})")
        check_free_symbols(list(self.metric), set(self.states), "metric")
        if not all(finite_constants(e) for e in self.metric):
            raise ValueError(f"metric must be finite, got {self.metric.tolist()!s:.300} (nan, zoo, oo or a number "
                             "beyond a float's range)")
        check_metric(self.metric, self.states)
        # ValueError naming control_bounds[name] for what is no pair (lo, hi), as OptimalControlProblem's
        self.control_bounds = {**{str(c): (-math.inf, math.inf) for c in self.controls},
                               **named_bounds(control_bounds, self.control_names, "control_bounds")}
        self.state_bounds = named_bounds(state_bounds, self.state_names, "state_bounds")
        self.name = name
        self._energy = None if energy is None else to_sympy(energy, "energy")
        if self._energy is not None:
            check_free_symbols([self._energy], set(self.states) | set(self.controls), "energy")
            if not finite_constants(self._energy):
                raise ValueError(f"energy must be finite, got {self._energy!s:.300} (nan, zoo, oo or a number beyond a "
                                 "float's range)")
        self._f = None
        self.holonomic = []
        if holonomic is not None:
            self.holonomic = [to_sympy(h, "holonomic") for h in
                              ([holonomic] if isinstance(holonomic, (str, sp.Basic)) else list(holonomic))]
            check_free_symbols(self.holonomic, set(self.states), "holonomic")
            infinite = [i for i, h in enumerate(self.holonomic) if not finite_constants(h)]
            if infinite:
                raise ValueError(f"holonomic must be finite: holonomic{infinite} contain nan, zoo, oo or a number "
                                 "beyond a float's range")
            _check_tangent(self.holonomic, self.states, self.controls, self.rhs)

    def __getstate__(self):
        return {**self.__dict__, "_f": None}  # the lambdified f, rebuilt on first use

    @property
    def state_names(self) -> list:
        return [str(s) for s in self.states]

    @property
    def control_names(self) -> list:
        return [str(s) for s in self.controls]

    def energy(self):
        """The kinetic energy 1/2 w^T G_D(y) w (or the one given) as a SymPy expression."""
        if self._energy is not None:
            return self._energy
        w = sp.Matrix(self.controls)
        return sp.expand((w.T * self.metric * w)[0, 0] / 2)

    def vector_field(self, y, w) -> np.ndarray:
        """f(y, w) at states y and controls w, shapes (n, ...) and (m, ...) (NumPy broadcasting)."""
        if self._f is None:
            self._f = sp.lambdify([self.states, self.controls], list(self.rhs), "numpy")
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        out = self._f(list(y), list(w))
        shape = np.broadcast(*y, *w).shape if y.ndim > 1 or w.ndim > 1 else ()
        return np.array([np.broadcast_to(np.asarray(v, dtype=float), shape) for v in out])

    def simulate(self, t_span: Sequence[float], y0, controls, *, t_eval=None, rtol: float = 1e-10,
                 atol: float = 1e-12, breakpoints=None):
        """Integrate y' = f(y, w(t)) over ``t_span`` from ``y0``.

        ``controls`` is a callable w(t) returning the m controls, or samples ``(t, W)`` with W of
        shape (m, len(t)), interpolated linearly. Integrated by SciPy's DOP853 (the controls are
        given in Python, so not through the C++ integrator of :func:`nonholo.simulate`), or by its
        Radau on a segment where the dynamics are stiff (:meth:`_segment_method`), restarted
        at the ``breakpoints`` (times where the controls have kinks or jumps; the sample times of
        sampled controls), where a step across a kink would lose the method's order. Returns
        SciPy's result (``t``, ``y``, ``success``, ``message``) with ``y_final``.

        A non-finite start is refused (ValueError): ``y0``, the controls at the first time, or
        f(y0, w(t0)) itself (a parameter of the system that is NaN or divides by zero). Should
        f turn non-finite during the run, the run stops there with ``success`` False and a
        message saying when (the points before the segment it happened in are kept).
        """
        from scipy.integrate import solve_ivp

        y0 = np.asarray(y0, dtype=float).reshape(-1)
        if y0.size != len(self.states):
            raise ValueError(f"y0 has {y0.size} entries, expected {len(self.states)} ({self.state_names})")
        if not np.all(np.isfinite(y0)):
            raise ValueError(f"y0 must be finite, got {y0.tolist()} ({self.state_names})")
        infinite = [name for name, e in zip(self.state_names, self.rhs) if not finite_constants(e)]
        if infinite:
            raise ValueError(f"the right-hand side of {self.name!r} is not finite: the rates of {infinite} contain "
                             "nan, zoo or oo (a parameter of the system is NaN, infinite or divides by zero)")
        if callable(controls):
            w_of_t = controls
        else:
            ts, W = controls
            ts = np.asarray(ts, dtype=float)
            W = np.atleast_2d(np.asarray(W, dtype=float))
            if W.shape != (len(self.controls), ts.size):
                raise ValueError(f"controls samples have shape {W.shape}, expected ({len(self.controls)}, {ts.size})")
            if ts.ndim != 1 or not np.all(np.isfinite(ts)) or np.any(np.diff(ts) <= 0):  # np.interp's need
                raise ValueError(f"controls: the sample times must be finite and increasing, got {ts.tolist()}")

            def w_of_t(t):
                return np.array([np.interp(t, ts, row) for row in W])

            if breakpoints is None:
                breakpoints = ts

        def rhs(t, y):
            f = self.vector_field(y, np.asarray(w_of_t(t), dtype=float).reshape(-1))
            if not np.all(np.isfinite(f)):  # else DOP853 may shrink its step forever
                raise _NonFinite(t, f)
            return f

        t0, t1 = check.t_span(t_span)
        if t_eval is not None:
            t_eval = check.t_eval(t_eval, t0, t1)
        rtol, atol = check.tolerances(rtol, atol, len(self.states))
        atol = float(atol[0]) if atol.size == 1 else atol
        w0 = np.asarray(w_of_t(t0), dtype=float).reshape(-1)
        if w0.size != len(self.controls):
            raise ValueError(f"controls give {w0.size} values at t = {t0:g}, expected {len(self.controls)} "
                             f"({self.control_names})")
        if not np.all(np.isfinite(w0)):
            raise ValueError(f"controls must be finite, got {dict(zip(self.control_names, w0.tolist()))} at t = {t0:g}")
        with np.errstate(all="ignore"):
            f0 = self.vector_field(y0, w0)
        if not np.all(np.isfinite(f0)):
            bad = [name for name, v in zip(self.state_names, f0) if not np.isfinite(v)]
            raise ValueError(f"the right-hand side f(y0, w(t0)) of {self.name!r} is not finite at the start: the rates "
                             f"of {bad} are {f0[~np.isfinite(f0)].tolist()} (a parameter of the system or y0 outside "
                             "the model's domain)")
        inner = np.asarray([] if breakpoints is None else breakpoints, dtype=float)
        lo_t, hi_t = min(t0, t1), max(t0, t1)
        inner = np.unique(inner[(inner > lo_t) & (inner < hi_t)])
        cuts = np.concatenate([[t0], inner if t1 > t0 else inner[::-1], [t1]])
        t_eval = None if t_eval is None else np.asarray(t_eval, dtype=float)
        ts_out, ys_out, y, result = [], [], y0, None
        for a, b in zip(cuts[:-1], cuts[1:]):
            last = b == cuts[-1]
            te = None
            if t_eval is not None:
                inside = (t_eval >= min(a, b)) & ((t_eval < max(a, b)) | (last & (t_eval <= max(a, b))))
                te = t_eval[inside]
            try:
                result = solve_ivp(rhs, (a, b), y, method=self._segment_method(a, b, y, w_of_t(a)), t_eval=te,
                                   rtol=rtol, atol=atol, dense_output=True)
            except _NonFinite as stop:
                result = failed_run(f"the right-hand side f(y, w) turned non-finite at t = {stop.args[0]:.17g} "
                                 f"({stop.args[1].tolist()}): the run stops there")
            if not result.success:
                break
            ts_out.append(result.t if t_eval is not None else result.t[:-1] if not last else result.t)
            ys_out.append(np.reshape(result.y, (y0.size, -1)) if t_eval is not None  # no sample in a segment: []
                          else result.y[:, :-1] if not last else result.y)
            y = result.sol(b)
        result.t = np.concatenate(ts_out) if ts_out else np.empty(0)
        result.y = np.concatenate(ys_out, axis=1) if ys_out else np.empty((y0.size, 0))
        result.y_final = y.copy() if result.success else None
        return result

    def _segment_method(self, a: float, b: float, y: np.ndarray, w) -> str:
        """"Radau" where the segment [a, b] is stiff at its start, (b - a) max(-Re lambda) above STIFF_SEGMENT over
        the eigenvalues lambda of df/dy (by forward differences), else "DOP853": an outside probe's sleigh whose
        blade is a lateral force of stiffness k = 1e5 took 165 s to re-run its plan with DOP853, held at steps of
        1e-5 by stability alone (Radau, restarted per interval: about 2 s, the same end to 3 digits); a lightly
        damped fast oscillation (|lambda| large, its real part small) is no stiffness, and Radau took 5-8 times
        DOP853's time there, accuracy holding both to the oscillation."""
        w = np.asarray(w, dtype=float).reshape(-1, 1)
        dy = np.sqrt(np.finfo(float).eps) * np.maximum(1.0, np.abs(y))
        points = np.column_stack([y, y[:, None] + np.diag(dy)])  # y, then y + dy_i e_i
        with np.errstate(all="ignore"):
            f = self.vector_field(points, np.broadcast_to(w, (w.shape[0], points.shape[1])))
            J = (f[:, 1:] - f[:, :1]) / dy
        if not np.all(np.isfinite(J)):
            return "DOP853"
        decay = float(np.max(-np.linalg.eigvals(J).real, initial=0.0))
        return "Radau" if abs(b - a) * decay > STIFF_SEGMENT else "DOP853"

    def rate_limited(self, rates: Mapping) -> "KinematicSystem":
        """The system whose controls named in ``rates`` are states, driven by their rates.

        A control c with ``rates[c] = r`` becomes a state (keeping its bounds, now state bounds)
        with c' = c_dot, the new control ``c_dot`` in [-r, r]: a car whose speed and curvature
        change at a bounded acceleration and steering rate, so that they are continuous and a
        time-optimal plan has no jumps of speed at its cusps. The other controls stay controls.
        Problems on it give the rate-limited controls' values at both ends (e.g. 0 at rest).

        >>> import nonholo as nh
        >>> car = nh.systems.kinematic_car().rate_limited({"v": 2.0, "kappa": 4.0})
        >>> car.state_names, car.control_names, car.control_bounds["v_dot"], car.state_bounds["v"]
        (['x', 'y', 'theta', 'v', 'kappa'], ['v_dot', 'kappa_dot'], (-2.0, 2.0), (-1.0, 1.0))
        """
        if not isinstance(rates, Mapping):
            raise TypeError(f"rates must be a mapping control name -> its largest rate, got {rates!r:.100}")
        byname = {}
        for key, r in rates.items():
            if str(key) not in self.control_names:
                raise ValueError(f"rates names {key!r}, which is not a control of {self.control_names}")
            if str(key) in byname:
                raise ValueError(f"rates names {str(key)!r} twice")
            try:  # a string, a bool or a symbol is no rate (float("2") would read one)
                value = real(r, f"rates[{str(key)!r}]")
            except TypeError as err:
                raise ValueError(f"rates[{str(key)!r}] must be a positive finite number, got {r!r:.100}") from err
            if not value > 0:
                raise ValueError(f"rates[{str(key)!r}] must be positive and finite, got {r!r}")
            byname[str(key)] = value
        limited = [c for c in self.controls if str(c) in byname]
        kept = [c for c in self.controls if c not in limited]
        if not limited:
            raise ValueError("rates must name at least one control")
        dots = [sp.Symbol(f"{c}_dot") for c in limited]
        if any(str(d) in self.state_names + self.control_names for d in dots):
            raise ValueError(f"the rates' names {[str(d) for d in dots]} clash with the system's")
        bounds = {str(c): self.control_bounds[str(c)] for c in kept}
        bounds.update({str(d): (-byname[str(c)], byname[str(c)]) for c, d in zip(limited, dots)})
        states = {**self.state_bounds, **{str(c): self.control_bounds[str(c)] for c in limited}}
        states = {k: v for k, v in states.items() if not (v[0] == -math.inf and v[1] == math.inf)}
        energy = self._energy if self._energy is not None else self.energy()
        out = KinematicSystem([*self.states, *limited], [*kept, *dots], [*self.rhs, *dots], control_bounds=bounds,
                              name=f"{self.name}, rate-limited", energy=energy, state_bounds=states)
        out.holonomic = list(self.holonomic)
        return out

    def __repr__(self) -> str:
        return f"KinematicSystem({self.name!r}, states={self.state_names}, controls={self.control_names})"


#: A segment of a re-run with (b - a) max(-Re lambda) above this is stiff: DOP853's stability alone would hold it
#: to more than 20 steps (h |lambda| <= 4.5 or so), where Radau's are as long as accuracy allows.
STIFF_SEGMENT = 100.0


class _NonFinite(Exception):
    """Raised by simulate's right-hand side at a non-finite f(y, w): (t, f)."""


def failed_run(message: str):
    """A failed run in the form of SciPy's result: ``success`` False, ``status`` -1, ``message``."""
    from scipy.optimize import OptimizeResult

    return OptimizeResult(t=np.empty(0), y=None, sol=None, t_events=None, y_events=None, nfev=0, njev=0, nlu=0,
                          status=-1, message=message, success=False)


def finite_constants(expr) -> bool:
    """Whether the SymPy expression ``expr`` holds no nan, zoo or +-oo and no number beyond a float's
    range (the constants a solve's lowering refuses)."""
    expr = sp.sympify(expr)
    if expr.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return False
    for number in expr.atoms(sp.Number):
        try:
            if not math.isfinite(float(number)):
                return False
        except (TypeError, ValueError, OverflowError):
            return False
    return True


def _check_tangent(phi: list, states: list, controls: list, rhs) -> None:
    """ValueError unless dphi/dy f(y, w) vanishes at a few random points (relative 1e-8)."""
    rate = sp.Matrix(phi).jacobian(states) * sp.Matrix(rhs)
    fn = sp.lambdify([states, controls], [list(rate), list(rhs)], "numpy")
    rng = np.random.default_rng(11)
    for _ in range(3):
        with np.errstate(all="ignore"):
            r, f = (np.asarray(v, dtype=float) for v in fn(list(rng.uniform(-0.9, 0.9, len(states))),
                                                          list(rng.uniform(-0.9, 0.9, len(controls)))))
        if np.all(np.isfinite(r)) and np.all(np.isfinite(f)) and np.max(np.abs(r)) > 1e-8 * (1 + np.max(np.abs(f))):
            raise ValueError("holonomic: the dynamics leave the constraints (dphi/dy f(y, w) is not zero), so they "
                             "cannot be imposed at position level")


def _holonomic_of(system, values: dict) -> list:
    """The system's holonomic constraints phi(q) = 0 with the parameters ``values`` substituted."""
    return [sp.sympify(h).subs(values) for h in (getattr(system, "holonomic", None) or [])]


METRIC_SAMPLES = 5  # states in [-1, 1] (seeded) at which a state-dependent metric is checked


def check_metric(metric: sp.Matrix, states: Sequence) -> None:
    """ValueError naming ``metric`` where it is not symmetric, or is positive semidefinite at none of the
    states it is checked at (all of them for a constant metric; METRIC_SAMPLES seeded states in
    [-1, 1] else, a metric positive semidefinite only on part of the states passing; semidefinite: a
    control the energy leaves out, the car's curvature): an outside probe's -I gave cost="energy" a
    negative kinetic energy, "Optimal Solution Found", where System refuses it."""
    free = sorted(metric.free_symbols, key=str)
    points = [{}] if not free else [dict(zip(free, row)) for row in
                                     np.random.default_rng(0).uniform(-1.0, 1.0, (METRIC_SAMPLES, len(free)))]
    definite = []
    for point in points:
        with np.errstate(all="ignore"):
            try:
                M = np.array(metric.subs(point).evalf(), dtype=float)
            except (TypeError, ValueError):  # not a real number there (outside the metric's domain)
                continue
        if not np.all(np.isfinite(M)):
            continue
        scale = max(float(np.abs(M).max()), np.finfo(float).tiny)
        if np.abs(M - M.T).max() > 1e-12 * scale:
            raise ValueError(f"metric must be symmetric: at {point or 'every state'} it is {M.tolist()}")
        definite.append(bool(np.linalg.eigvalsh(M).min() >= -1e-12 * scale))
    if definite and not any(definite):
        where = "" if not free else f" at any of {len(points)} states in [-1, 1]"
        raise ValueError(f"metric must be positive semidefinite (the kinetic energy of cost='energy' is w^T G w / 2); "
                         f"it is not{where}: {metric.tolist() if not free else metric}")


def kinematic_of(system, frame: str = "voronets") -> KinematicSystem:
    """q' = X_D(q) w for a :class:`~nonholo.System` with linear nonholonomic constraints, in the
    Voronets frame of its constraints (X_D = d/dr + B d/ds, w = r'), G_D = X_D^T G X_D; with
    ``frame="speeds"`` in the system's own velocity frame (``System(speeds=...)``: X_D its first
    n - k vectors, w its quasi-velocities), regular wherever those vectors are, not only where a
    block of the constraints' columns is (the Voronets chart of a unicycle, y' = tan(theta) x', is
    singular at theta = pi/2; its body velocities (v, omega) nowhere)."""
    from ..system.frames import voronets_frame, voronets_split

    if frame not in ("voronets", "speeds"):
        raise ValueError(f"frame must be 'voronets' or 'speeds', got {frame!r}")
    if system.k == 0:
        raise ModelError(f"{system.name!r} has no nonholonomic constraints: its kinematic system is q' = w")
    if any(not b.is_zero for b in system.affine):
        raise ModelError(f"{system.name!r} has affine constraints A v = b: its kinematics has a drift, "
                         "not a kinematic control system q' = X_D w")
    values = dict(system.parameters)
    if frame == "speeds":
        return _in_speeds(system, values)
    solved = voronets_split(system)
    X = voronets_frame(system, [system.coordinate_names[i] for i in solved])
    m = system.n - system.k
    XD = sp.Matrix(X[:, :m]).subs(values)
    free = [i for i in range(system.n) if i not in solved]
    controls = [system.velocities[i] for i in free]
    G = sp.Matrix(system.metric).subs(values)
    GD = simplified(XD.T * G * XD)
    rhs = XD * sp.Matrix(controls)
    out = KinematicSystem(list(system.coordinates), controls, rhs, metric=GD, name=f"kinematics of {system.name}")
    out.holonomic = _holonomic_of(system, values)  # tangent by construction: X_D spans ker A, dphi/dq among A's rows
    out.chart = chart_of(system, solved, values)  # where the frame is regular (a plan must not cross its edge)
    return out


def _in_speeds(system, values: dict) -> KinematicSystem:
    """:func:`kinematic_of` in the system's own velocity frame (``frame="speeds"``)."""
    from ..expressions.speed_frame import DependentSpeeds
    from ..system.arguments import given_speeds

    names, X, offset = given_speeds(system)
    if isinstance(X, DependentSpeeds):
        raise ModelError(f"{system.name!r} has Kane's speeds with dependent ones, solved numerically at each "
                         "evaluation (never symbolically): frame='speeds' needs the frame's vectors as expressions "
                         "(System(speeds=(names, vectors, None))); use frame='voronets', or controls= for its dynamics")
    if offset is not None and any(not sp.sympify(w).is_zero for w in offset):
        raise ModelError(f"{system.name!r}'s velocity frame has an offset w0: its kinematics has a drift")
    m = system.n - system.k
    XD = sp.Matrix(X[:, :m]).subs(values)
    if not sp.simplify(sp.Matrix(system.constraints).subs(values) * XD).is_zero_matrix:
        raise ModelError(f"the first n - k = {m} vectors of {system.name!r}'s velocity frame do not satisfy its "
                         "constraints A X_D = 0")
    controls = [sp.Symbol(name) for name in names]
    G = sp.Matrix(system.metric).subs(values)
    out = KinematicSystem(list(system.coordinates), controls, XD * sp.Matrix(controls),
                          metric=simplified(XD.T * G * XD), name=f"kinematics of {system.name} in its speeds")
    out.holonomic = _holonomic_of(system, values)
    return out


#: The accelerations of :func:`dynamic_of` with at most this many operations are simplified (a swinging
#: pendulum's, a sleigh's); larger ones are left as the LU solve gives them.
ACCELERATION_OPS = 400
#: dynamic_of solves M_D w' = ... symbolically where M_D has at most this many operations (a sleigh's 6, a
#: snakeboard's 152, a differential drive's 198), else keeps w' as algebraic variables (a rolling disc's 25,978)
SOLVED_MASS_OPS = 2000
#: dynamic_of inverts the constraints' block A_s in SymPy where it has at most this many operations (a
#: snakeboard's 9, a rolling disc's 0), else keeps the solved velocities as algebraic variables (the multibody
#: Whipple bicycle's 997: its adjugate did not finish in 200 s)
SOLVED_BLOCK_OPS = 200


def dynamic_of(system, controls) -> KinematicSystem:
    """The Lagrange-d'Alembert dynamics of ``system`` as a control system, with the symbols
    ``controls`` (parameters or free symbols of its force) as its controls: states q and the
    quasi-velocities w of the Voronets frame (named as the velocities of the free coordinates),

        q' = X_D(q) w,   M_D w' = X_D^T (Q - dV/dq - c(q, q') - G X_D' w),   M_D = X_D^T G X_D,

    with q' = X_D w, c_i = sum_jk (dG_ij/dq_k - 1/2 dG_jk/dq_i) q'_j q'_k, so that the constraints
    hold by construction (derived in SymPy: for systems of a few coordinates). Where M_D is large (more than
    SOLVED_MASS_OPS operations: a rolling ball's, in quaternions, 14,872), the rates w' are algebraic
    variables of M_D w' = X_D^T (...) that the collocation imposes at every point (a
    :class:`~nonholo.control.speeds.ConstrainedControlSystem`), not solved symbolically: solved, an outside
    probe's ball under torques had rates of 2.5 million operations and took 10 minutes on 41 nodes. Where the
    constraints' block A_s has more than SOLVED_BLOCK_OPS operations (the multibody Whipple bicycle's), X_D is not
    formed: the solved velocities are algebraic variables too (:func:`~nonholo.control.speeds.velocity_dynamics_of`),
    with the rates and the multipliers. The other parameters take their default values; ``cost="energy"`` is the
    kinetic energy 1/2 w^T M_D w. Time-dependent forces and affine constraints are refused (ModelError)."""
    from ..system.frames import voronets_frame, voronets_split

    controls = [system.symbol(c) if not isinstance(c, sp.Symbol) else c for c in controls]
    if not controls:
        raise ValueError("controls must name at least one symbol of the system's force")
    if any(not b.is_zero for b in system.affine):
        raise ModelError(f"{system.name!r} has affine constraints: not supported as a control system")
    values = {p: v for p, v in system.parameters.items() if p not in controls}
    q = list(system.coordinates)
    n = len(q)
    if system.k:
        solved = voronets_split(system)
        if sum(sp.count_ops(e) for e in sp.Matrix(system.constraints)[:, solved]) > SOLVED_BLOCK_OPS:
            from .speeds import velocity_dynamics_of

            out = velocity_dynamics_of(system, controls, solved)
            out.chart = chart_of(system, solved, values)
            return out
        XD = sp.Matrix(voronets_frame(system, [system.coordinate_names[i] for i in solved])[:, : n - system.k])
        free = [i for i in range(n) if i not in solved]
    else:
        XD, free = sp.eye(n), list(range(n))
    XD = XD.subs(values)
    w = [sp.Symbol(str(system.velocities[i])) for i in free]
    G = sp.Matrix(system.metric).subs(values)
    qdot = XD * sp.Matrix(w)
    vel = dict(zip(system.velocities, qdot))
    Q = (sp.Matrix(system.force) - sp.Matrix([sp.diff(system.potential, qi) for qi in q])).subs(values).subs(vel)
    if system.time in Q.free_symbols:
        raise ModelError("a time-dependent force is not supported in a control system")
    c = sp.zeros(n, 1)
    for i in range(n):
        c[i] = sum((sp.diff(G[i, j], q[k]) - sp.diff(G[j, k], q[i]) / 2) * qdot[j] * qdot[k]
                   for j in range(n) for k in range(n))
    XD_dot = sum((sp.diff(XD, q[k]) * qdot[k] for k in range(n)), sp.zeros(*XD.shape))
    MD = simplified(XD.T * G * XD)
    forcing = XD.T * (Q - c - G * XD_dot * sp.Matrix(w))
    energy = (sp.Matrix(w).T * MD * sp.Matrix(w))[0, 0] / 2
    if sum(sp.count_ops(e) for e in MD) > SOLVED_MASS_OPS:  # the rates as algebraic variables, M_D w' = forcing
        from .speeds import ConstrainedControlSystem

        rates = [sp.Symbol(f"{wi}_rate") for wi in w]
        out = ConstrainedControlSystem([*q, *w], controls, rates, [*qdot, *rates],
                                       list(MD * sp.Matrix(rates) - forcing), name=f"dynamics of {system.name}",
                                       energy=energy)
    else:
        # bounded (expressions/tidy.py) at ACCELERATION_OPS: a roller racer's accelerations, of 1,002 and 1,521
        # operations, took 275 s to simplify, which the tapes do not need
        rhs = [*qdot, *simplified(MD.LUsolve(forcing), ACCELERATION_OPS)]
        out = KinematicSystem([*q, *w], controls, rhs, name=f"dynamics of {system.name}", energy=energy)
    out.holonomic = _holonomic_of(system, values)  # q' = X_D w: tangent by construction
    if system.k:
        out.chart = chart_of(system, solved, values)
    return out
