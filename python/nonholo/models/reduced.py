"""Reduced models on the slow manifold of the friction model: compiled coefficients h^(k), the
reduced state in a frame of D, and the choice of truncation.

The slow manifold of ``friction(eps)`` is v = u + h_eps(t, q, u), h_eps = sum_k eps^k h^(k)
(Gzenda-Chhabra eq. (66), Eldering 2016 section 6; no factorials). A reduced model of order K
integrates the exact P-projected law of u with the slip truncated after h^(K), which removes the
stiffness; its error against the friction model started on the slow manifold is O(eps^(K+1)).

* h^(1..K) are compiled once per system and order (``_core.CompiledSlip``: the Taylor-mode
  recursion traced into one expression graph of (q, u, t, p), common subexpressions shared, then
  a tape) up to ``_core.max_compiled_slip_order``; above it, and for systems with piecewise
  expressions (Abs, sign) whose branches a trace would freeze, the model expands the series in
  Taylor arithmetic at every evaluation.
* ``velocities="frame"`` integrates (q, w), w in R^(n-k) the quasi-velocities of a frame X of D
  (u = X_D(q) w), a state of dimension 2n - k; ``"coordinates"`` integrates (q, u), u in R^n.
  A Voronets frame (the default) is re-split during a run where its solved block A_s becomes
  ill conditioned (max |B_aj| > ``_core.frame_resplit_growth``): the solver restarts from the
  same (q, u) in the split of maximal volume at q (all |B_aj| <= 1.01), and the result records
  the switches (``result.frame_switches``; its ``y`` holds each sample's w in the split of its
  time, and ``.v``, ``.velocity`` and ``result[name]`` map through it). A frame given by its
  vectors cannot be re-chosen: the run stops where its condition number exceeds
  ``_core.frame_singular_condition`` (``flag_name == "FRAME_SINGULAR"``).
* ``order="auto"``: the series is asymptotic and in general divergent. At the initial state the
  terms t_k = eps^k |h^(k)| (max norm) are computed up to ``max_order``, and the truncation
  order is the smallest K at which either the next two terms stop decreasing (t_(K+1) and
  t_(K+2) >= t_K: optimal truncation, the classical rule for asymptotic series) or t_K and every
  term computed after it are below the integration tolerance rtol |u| + atol (further terms are
  below what the integrator resolves). More than one term: a knife edge pushed by sin(t) from rest
  has h^(1) = 0 at t0, and a rule that stopped there kept order 1, 5,000 times less accurate than
  order 3 over the run; a sleigh pushed from rest by a force growing like t^2 has h^(1) = h^(2) = 0
  there, and a rule of two terms kept order 1, 650 times less accurate in q than order 3. The
  result says which rule stopped it (``result.truncation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import math

import numpy as np

from .. import _core
from ..numerics import number_text
from ..errors import ModelError
from .model import FrameSwitches, Model, frame_velocities

SINGULAR_CONDITION = _core.frame_singular_condition  # cond_1(X) above which a vector frame's run stops (C++)

__all__ = ["FrameSwitches", "ReducedModel", "Truncation", "choose_order", "compiled_slip"]

VELOCITIES = ("coordinates", "frame")
_PIECEWISE = ("Abs", "sign", "Heaviside", "Piecewise", "Max", "Min")


@dataclass
class Truncation:
    """How ``order="auto"`` chose the truncation at the initial state.

    ``terms[k-1]`` = eps^k max|h^(k)|; ``order`` the chosen K; ``reason`` one of
    ``"optimal"`` (the next term does not decrease: the series is used up to its smallest
    term), ``"tolerance"`` (t_K is below rtol |u| + atol) or ``"max_order"``."""

    order: int
    reason: str
    terms: np.ndarray = field(repr=False)
    tolerance: float = 0.0

    def __str__(self) -> str:
        why = {"optimal": "the next term eps^k |h^(k)| stops decreasing (optimal truncation)",
               "tolerance": f"eps^K |h^(K)| = {self.terms[self.order - 1]:.3g} is below the tolerance "
                            f"{self.tolerance:.3g}",
               "max_order": "the maximum order was reached with the terms still decreasing",
               "undecided": "more terms are needed to decide"}[self.reason]
        return f"order {self.order}: {why}"


def choose_order(terms, tolerance: float = 0.0, final: bool = True) -> Truncation:
    """The truncation order for the terms t_k = eps^k |h^(k)|, k = 1..len(terms) (see the
    module docstring): the smallest K with t_K and every computed term after it <= tolerance
    ("tolerance"), or with t_(K+1) and t_(K+2) both >= t_K ("optimal": the series stops
    decreasing). One term alone decides neither: terms that vanish at the state by accident (a
    force growing like t^2 from zero at t0 gives t_1 = t_2 = 0 and t_3 > 0) or a bump before the
    terms fall again must not stop the series early. ``final``: no further terms can be
    computed, so the last ones decide as far as they go; otherwise an undecided series returns
    K = len(terms) (the caller computes more)."""
    t = np.asarray(terms, dtype=float)
    if t.ndim != 1 or t.size < 1:
        raise ValueError("terms must be a non-empty 1-d array")
    n = t.size
    for K in range(1, n + 1):
        following = t[K: K + 2]
        if following.size < 2 and not final:
            break
        if t[K - 1] <= tolerance:  # a small term: the tolerance rule alone (a zero is no smallest term)
            if np.all(t[K:] <= tolerance):
                return Truncation(K, "tolerance", t, tolerance)
        elif following.size and np.all(following >= t[K - 1]):
            return Truncation(K, "optimal", t, tolerance)
    return Truncation(n, "max_order" if final else "undecided", t, tolerance)


def _traceable(system) -> bool:
    """False when an expression of the system is piecewise (a trace would freeze its branch)."""
    import sympy as sp

    exprs = [*system.metric, system.potential, *system.force]
    if system.k:
        exprs += [*system.constraints, *system.affine, *system.friction_coefficients]
    names = {type(a).__name__ for e in exprs for a in sp.preorder_traversal(sp.sympify(e))}
    return not names & set(_PIECEWISE)


def _trace_point(system, rng) -> tuple:
    q = rng.uniform(0.1, 0.9, system.n)
    return q, system.project(q, rng.uniform(-1.0, 1.0, system.n), 0.0)  # a point to trace at


def compiled_slip(system, order: int):
    """h^(1..order) of ``system`` compiled into one tape (``_core.CompiledSlip``), cached on the
    system per order; None for orders 0 and 1 (evaluated directly, no series), above
    ``_core.max_compiled_slip_order``, when the graph would exceed the core's node budget, and
    for piecewise systems (the reduced model then uses the Taylor-mode path).

    The trace is taken at a pseudo-random point where the metric, M = A G^-1 A^T and mu are
    regular (the factorizations do not pivot, so the graph is valid wherever they are)."""
    if order < 2 or order > _core.max_compiled_slip_order:
        return None
    cache = system.__dict__.setdefault("_compiled_slips", {})
    if order not in cache:
        compiled = None
        if _traceable(system):
            rng = np.random.default_rng(0)
            for _ in range(5):  # a point where a factorization fails is retried elsewhere
                q, u = _trace_point(system, rng)
                try:
                    compiled = _core.CompiledSlip(system.core, order, 0.0, q, u, system.param_vector())
                    break
                except ValueError as err:  # the graph would be too large: Taylor mode
                    if "too large" in str(err):
                        break
                except Exception:  # noqa: BLE001 - a singular sample point: try another
                    continue
        cache[order] = compiled
    return cache[order]


class ReducedModel(Model):
    """``system.reduced(eps, order, velocities)``: a :class:`Model` whose state is (q, u) or
    (q, w), with the truncation order (``order``), the velocity form (``velocities``), the
    frame (``frame``, frame form) and, for ``order="auto"``, the rule that chose the order
    (``truncation``, set once the order is chosen at an initial state)."""

    def __init__(self, system, eps: float, order, velocities: str, frame=None, truncation: Truncation | None = None,
                 max_order: int = 8):
        self.velocities = velocities
        self.frame = frame if velocities == "frame" else None
        self._frame = frame
        self.truncation = truncation
        self.requested_order = order
        self.max_order = max_order
        resolved = order if order != "auto" else None
        self.compiled_slip = compiled_slip(system, resolved) if resolved else None
        core_order = resolved if resolved is not None else 0
        if velocities == "frame":
            core = _core.reduced_frame_model(frame._core, core_order, self.compiled_slip)
            names = [*system.coordinate_names, *(f"w{a + 1}" for a in range(frame.rank))]
        else:
            core = _core.reduced_model(system.core, core_order, self.compiled_slip)
            names = [*system.coordinate_names, *(f"u_{q}" for q in system.coordinate_names)]
        super().__init__(system, "reduced", core, {"eps": eps}, order=resolved, state_names=names)

    @property
    def n_velocities(self) -> int:
        return self.system.n if self.frame is None else self.frame.rank

    def velocity(self, t, y, params=None, *, switches: "FrameSwitches | None" = None) -> np.ndarray:
        """The physical velocity q' of a state (n,) or a trajectory (n, n_t); ``switches``: the
        splits a run's samples are in (``SimulationResult``), default the frame's own."""
        from .model import samples_of

        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        V = self._velocity(t, Y, self.param_vector(params), switches)
        return V[0] if scalar else V.T

    def frame_velocities(self, t: np.ndarray, Y: np.ndarray, p: list,
                         switches: "FrameSwitches | None" = None) -> np.ndarray:
        """u = X_D(q) w at time-major samples Y (n_t, n + m), shape (n_t, n), each sample in the
        split of its time (``switches``; the frame's own without)."""
        return frame_velocities(self.frame, t, Y, p[: len(self.system.parameters)], switches)

    def _velocity(self, t: np.ndarray, Y: np.ndarray, p: list, switches: "FrameSwitches | None" = None) -> np.ndarray:
        """u + sum_{k<=K} eps^k h^(k)(t, q, u) at time-major samples (Gzenda-Chhabra eq. (66)),
        in one pass in C++; in the frame form u = X_D(q) w first. u from CVODE's interpolation
        misses A u = b by the solver's tolerance; h^(k) is smooth there, so no check is made."""
        n, n_sys = self.system.n, len(self.system.parameters)
        if self.frame is not None:
            Y = np.hstack([Y[:, :n], self.frame_velocities(t, Y, p, switches)])
        if not self.order:
            return Y[:, n: 2 * n].copy()
        return _core.slow_manifold_velocity(self.system.core, self.order, p[n_sys], t, Y, p[:n_sys],
                                            self.compiled_slip)

    @property
    def method(self) -> str:
        """The default integration method (the reduced models are not stiff): "dop853", the explicit
        Runge-Kutta pair of order 8, when a right-hand side costs at most about two of Adams'
        per-step overheads (``core.explicit_rk_pays``, from the core's cost model: then its 5-10x
        fewer steps win over Adams' fewer right-hand sides; benchmarks/reduced_rk.py), else Adams.
        Runs with sensitivities use Adams (``simulate``)."""
        if self.order is None:
            return "adams"
        return "dop853" if self.core.explicit_rk_pays else "adams"

    def _require_order(self) -> None:
        if self.order is None:
            raise ValueError("order='auto' is chosen at an initial state: simulate the model, or fix the order "
                             "first with model.truncated_at(t, y)")

    def rhs(self, t, y, params=None):
        self._require_order()
        return super().rhs(t, y, params)

    def jacobian(self, t, y, params=None):
        self._require_order()
        return super().jacobian(t, y, params)

    def coordinate_velocity(self, q, y_velocity, params=None) -> np.ndarray:
        """u on the constraint set from the velocity part of the state (u itself, or X_D w)."""
        if self.frame is None:
            return np.asarray(y_velocity, dtype=float)
        return self.frame.velocity(q, y_velocity, _system_params(params))

    def slip(self, t: float, q, u, params=None) -> np.ndarray:
        """sum_{k<=K} eps^k h^(k)(t, q, u), shape (n,), with this model's eps (or params["eps"])."""
        self._require_order()
        eps = self.eps_at(params)
        if not self.order:
            return np.zeros(self.system.n)
        sys_params = _system_params(params)
        if self.compiled_slip is not None:
            H = self.compiled_slip.evaluate(float(t), q, u, self.system.param_vector(sys_params))
        else:
            H = self.system.slip(q, u, order=self.order, t=t, params=sys_params)
        return sum(eps ** (k + 1) * H[k] for k in range(self.order))

    def truncated_at(self, t: float, y, params=None, tolerance: float = 0.0) -> "ReducedModel":
        """This model with the order fixed (``order="auto"``: chosen at the state y; see the
        module docstring); the model itself when its order is fixed already."""
        if self.order is not None:
            return self
        n = self.system.n
        y = np.asarray(y, dtype=float)
        q = y[:n]
        u = self.coordinate_velocity(q, y[n:], params)
        eps = self.eps_at(params)
        sys_params = _system_params(params)
        # orders 4, 8, 16, ...: the rule decides K from t_1 .. t_(K+1), and the Taylor-mode
        # cost grows like K^4, so the high orders are computed only when the terms call for them
        computed = min(4, self.max_order)
        while True:
            H = self.system.slip(q, u, order=computed, t=t, params=sys_params)
            terms = np.array([eps ** (k + 1) * np.abs(H[k]).max() for k in range(computed)])
            truncation = choose_order(terms, tolerance, final=computed == self.max_order)
            if truncation.reason != "undecided":
                break
            computed = min(2 * computed, self.max_order)
        model = ReducedModel(self.system, self.eps, truncation.order, self.velocities, self._frame, truncation,
                             self.max_order)
        model.recipe = (self.system, "reduced", (self.eps,), dict(order=truncation.order, velocities=self.velocities,
                                                                   frame=self._frame, max_order=self.max_order))
        request = getattr(self, "_compile_request", None)
        if request is not None and request[0] is None:  # compiled: so is the order chosen
            # tapes only: each run builds its model of the chosen order anew, and a fused
            # right-hand side would be traced and hashed again at every run
            model.compile(cache_dir=request[1], fuse=False)
        return model

    def __repr__(self) -> str:
        order = "auto" if self.order is None else self.order
        return (f"<nonholo.Model reduced of order {order} ({self.velocities}) of {self.system.name!r}, "
                f"eps={number_text(self.eps)}: states {self.state_names}>")


def maps_initial_state(model, y0: np.ndarray) -> bool:
    """True when :func:`frame_initial_state` maps ``y0`` into the model's state (a state given in
    another form: [q, q'] for Kane's speeds, (q, u) for a frame-form reduced model)."""
    if getattr(model, "kind", None) == "hamel":
        return y0.shape == (2 * model.system.n,) != (model.n_states,)
    return isinstance(model, ReducedModel) and model.frame is not None and y0.shape == (2 * model.system.n,)


def frame_initial_state(model, y0: np.ndarray, t0: float, params: list, project_y0: bool,
                        checked: bool = True, tolerance: float = 1e-10, qdot: bool = False) -> np.ndarray:
    """y0 of a frame-form reduced model: (q, w) of length 2n - k as it is, or (q, u) of length 2n
    (the coordinate form's state: u on A(q) u = 0, checked, or projected G-orthogonally with
    ``project_y0``) mapped to w = [X(q)^-1 u]_D (the free coordinates' velocities u_r for the
    Voronets frame). The Hamel model (Kane's speeds) takes (q, q') of length 2n alike, mapped to
    its quasi-velocities [X(q)^-1 (q' - w0(q))]_D. Other models and shapes pass through unchanged.
    ``checked=False``: the velocity is not checked against the constraints (the map of a state
    off them, as the derivative of the map in the parameters needs: ``mapped_state_derivative``);
    ``tolerance``: the residual |A u| accepted, relative to its scale (``simulate``: max(1e-10, rtol)).
    ``qdot``: ``y0`` is [q, q'] (labelled so), mapped where the Hamel model's own state has its length too."""
    if getattr(model, "kind", None) == "hamel" and (maps_initial_state(model, y0)
                                                    or qdot and y0.shape == (2 * model.system.n,)):
        return _hamel_initial_state(model, y0, t0, params, project_y0, checked)
    in_frame = getattr(model, "kind", None) in ("hamel", "frame_vakonomic") or \
        isinstance(model, ReducedModel) and model.frame is not None
    if in_frame and checked and y0.shape == (len(model.state_names),):
        n = model.system.n  # the frame's own state as it is: refused where its speeds are singular, as [q, q'] is
        _regular_speeds(model, y0[:n], dict(zip(model.system.parameter_names, params[: len(model.system.parameters)])))
        return y0
    if not isinstance(model, ReducedModel) or model.frame is None:
        return y0
    n, m = model.system.n, model.frame.rank
    if y0.shape == (n + m,):
        return y0
    if y0.shape != (2 * n,):
        raise ValueError(f"y0 must have shape ({n + m},) ordered as {model.state_names} (q and the frame's "
                         f"quasi-velocities w) or shape ({2 * n},) (q and a velocity u on the constraint set, "
                         f"as the coordinate form's y0), got {y0.shape}")
    if not np.all(np.isfinite(y0)):
        raise ValueError("y0 contains NaN or inf")
    q, u = y0[:n], y0[n:]
    sys_params = list(params[: len(model.system.parameters)])
    at = model.system.core.at(t0, q, u, sys_params)
    if project_y0:
        u = at.project()
    elif checked:
        A = at.constraint_matrix()
        residual, scale = np.abs(A @ u).max(initial=0.0), np.abs(A).max(initial=0.0) * np.abs(u).max(initial=0.0)
        if residual > tolerance * max(scale, 1.0):
            raise ValueError(f"y0 violates the constraints A(q) v = 0: |A v| = {residual:.3g}. Pass project_y0=True "
                             "to project v onto the constraint set (G-orthogonally), or use system.project(q, v).")
    if model.frame.solved is not None and model.frame.form == "numeric":
        model.frame.check_split(q, dict(zip(model.system.parameter_names, sys_params)), t0,  # a singular split
                                coordinates=coordinate_model(model))
        free = [i for i in range(n) if i not in model.frame.core.solved]
        w = u[free]
    else:
        w = np.linalg.solve(model.frame.matrix(q, dict(zip(model.system.parameter_names, sys_params))), u)[:m]
    return np.r_[q, w]


def _hamel_initial_state(model, y0: np.ndarray, t0: float, params: list, project_y0: bool,
                         checked: bool = True) -> np.ndarray:
    """[q, v^alpha] of a Hamel model from [q, q'] (q' on the constraint set, or projected)."""
    if not np.all(np.isfinite(y0)):
        raise ValueError("y0 contains NaN or inf")
    n = model.system.n
    sys_params = list(params[: len(model.system.parameters)])
    q, qdot = y0[:n], y0[n:]
    if project_y0:
        qdot = model.system.core.at(t0, q, qdot, sys_params).project()
    named = dict(zip(model.system.parameter_names, sys_params))
    _regular_speeds(model, q, named)
    if not checked:
        return np.r_[q, model.frame.quasi_velocities(q, qdot, named)[: model.frame.rank]]
    return model.frame.state(q, qdot, named)


def singular_speeds_block(model, q: np.ndarray, named: dict) -> str | None:
    """:meth:`DependentSpeeds.singular_block` of a model in Kane's speeds at q."""
    system = model.system
    return model.frame.dependent_speeds.singular_block([*system.coordinates, *system.parameters],
                                                       [*np.asarray(q, float), *system.param_vector(named)],
                                                       SINGULAR_CONDITION)


def coordinate_model(model) -> str:
    """The model in coordinates that stands for ``model``, a model in a frame's speeds, in messages."""
    return {"frame_vakonomic": "system.vakonomic()", "reduced": "velocities='coordinates'"}.get(
        model.kind, "system.nonholonomic()")


def _regular_speeds(model, q: np.ndarray, named: dict) -> None:
    """ModelError where the frame of a Hamel model given by its vectors (Kane's speeds: it cannot be
    re-split) is singular at q, its condition number above what stops a run: no state in its speeds
    stands for a velocity there (an outside probe's skate at theta = pi/2 was told its q' violated the
    constraints). For Kane's speeds the message names their cause, the dependent speeds' block C_dep."""
    if model.frame.solved is not None:
        model.frame.check_split(q, named, coordinates=coordinate_model(model))  # a Voronets split singular at q
        return
    try:
        condition = float(np.linalg.cond(model.frame.matrix(q, named), 1))
    except ModelError:  # the frame's own solve failed there (Kane's C_dep exactly singular): its message below
        condition = math.inf
    if not condition <= SINGULAR_CONDITION:
        speeds = model.state_names[model.system.n:]
        point = f"q = {np.array2string(np.asarray(q, float), precision=6)}"
        measure = (f"condition number {condition:.3g}" if np.isfinite(condition) else "no finite condition number "
                   "(an exactly singular matrix, or entries such as 0/0 there)") + \
            f" (1-norm; a run stops above {SINGULAR_CONDITION:g})"
        speeds_frame = getattr(model.frame, "dependent_speeds", None)
        if speeds_frame is not None and singular_speeds_block(model, q, named) == "kinematics":
            raise ModelError("the kinematic differential equations of KanesMethod (kd_eqs, q' = J(q) u) are singular "
                             f"at {point}, where the dependent speeds' block C_dep is regular: no speeds stand for a "
                             f"velocity there ({measure}), whatever the dependent speeds. The coordinates themselves "
                             "are singular there (Euler angles at their gimbal lock), and the coordinate model, with "
                             "the metric in these coordinates, is singular too: start away from it, or use "
                             "coordinates regular there (another sequence of angles, or quaternions)")
        if speeds_frame is not None:
            raise ModelError("the dependent speeds chosen in KanesMethod (u_dependent) cannot be solved there: their "
                             f"block C_dep of the velocity constraints is singular at {point}, or nearly (the frame "
                             f"X(q) of Kane's speeds, built from its inverse, has {measure}), so no state in the "
                             f"speeds {speeds} stands for a velocity there. Use the coordinate model, which is "
                             "regular there (System.from_kanes_method(km, ..., state=\"qdot\"), or "
                             "system.nonholonomic(form=\"qdot\"), with state [q, q']), or choose other dependent "
                             "speeds in KanesMethod")
        raise ModelError(f"the frame X(q) of the Hamel model (its speeds {speeds}) is singular at {point}: its "
                         f"{measure}, so no state in these speeds stands for a velocity there. Start where the speeds "
                         "are regular, choose other independent speeds, or use the coordinate model "
                         "(system.nonholonomic(form=\"qdot\"))")


def projects_initial_state(model, project_y0: bool) -> bool:
    """True when ``simulate(..., project_y0=True)`` projects the velocity of y0 onto the constraint set
    (G-orthogonally: a map that depends on the parameters in G and A) in the model's coordinate form:
    the constrained models, the friction model, and a law's friction model (onto the rows it realizes:
    a sleigh's start off its blade row, on Magic Formula or Coulomb friction, had d y_dot(0)/da = 0
    against the projection's -0.034, and its sensitivity at t = 1 the wrong sign)."""
    return bool(project_y0) and (model.system.k > 0 and (getattr(model, "constrained", False)
                                                          or getattr(model, "kind", None) == "friction")
                                 or _realized(model) is not None)


def _realized(model):
    """The system whose rows a law's friction model realizes (``system.realizes``), where the model's
    velocities are its (no lag states) and the model is unconstrained; else None."""
    realizes = getattr(model.system, "realizes", None)
    if realizes is None or realizes.n != model.system.n or getattr(model, "constrained", False):
        return None
    return realizes


def projected_velocity(model, t0: float, y: np.ndarray, params) -> np.ndarray:
    """v of the state ``y`` ([q, v, ...]) projected G-orthogonally onto the constraint set at the
    parameters ``params`` (the model's): the system's rows, or for a law's friction model the rows it
    realizes (their parameters read by name from ``params``)."""
    n = model.system.n
    realizes = _realized(model)
    if realizes is None:
        return model.system.core.at(t0, y[:n], y[n: 2 * n], list(params[: len(model.system.parameters)])).project()
    named = dict(zip(model.system.parameter_names, params))
    values = [named.get(name, value) for name, value in zip(realizes.parameter_names, realizes.parameters.values())]
    return realizes.core.at(t0, y[:n], y[n: 2 * n], values).project()


def _mapped_state(model, y0: np.ndarray, t0: float, params: list, project_y0: bool) -> np.ndarray:
    """The model's state from ``y0`` as ``simulate`` maps it (frame, projection), unchecked. A y0 in
    coordinate velocities ([q, v] of a frame-form or speeds model) starts, at the parameters ``params``,
    from its G-orthogonal projection onto the constraints there (the identity at the given parameters,
    where y0 is on them), whatever ``project_y0``: as the coordinate form's start, so that every form
    has the same sensitivities."""
    if maps_initial_state(model, y0):
        return frame_initial_state(model, y0, t0, params, True, checked=False)
    n = model.system.n
    y = np.array(y0, dtype=float)
    y[n: 2 * n] = projected_velocity(model, t0, y, params)
    return y


def mapped_state_derivative(model, y0: np.ndarray, t0: float, params, project_y0: bool,
                            index: int) -> np.ndarray | None:
    """d/dp of the model's state mapped from ``y0`` given in another form (:func:`maps_initial_state`:
    projected onto the constraints at p, then mapped, :func:`_mapped_state`) or projected onto the
    constraint set (:func:`projects_initial_state`) in the parameter ``params[index]``, the given y0
    held fixed: the initial value of that parameter's sensitivity (the
    map depends on the parameters through the frame X(q) and the projection: a vertical disc's
    projected start keeps its momentum along D, whatever its radius). None when nothing depends on it
    (a parameter of the model only, such as eps). Central differences of the map (the perturbed maps
    unchecked: y0 on the constraints at p lies off them at p +- h), error O(h^2) with
    h = 1e-6 (1 + |p|)."""
    if index >= len(model.system.parameters):
        return None
    return _central_difference(lambda p: _mapped_state(model, y0, t0, list(p), project_y0), params, index)


def mapped_initial_derivative(model, y0: np.ndarray, t0: float, params, index: int) -> np.ndarray | None:
    """d/d y0[index] of the model's start projected from ``y0`` (``project_y0``): the initial value of
    that initial state's sensitivity, so that it agrees with differences of projected runs. None when
    y0 lies on the constraint set already (to 1e-12) and the model is constrained: there the derivative
    is the projection of the unit vector, which the core applies itself (a friction model's core does
    not: an outside probe's ("y0", i) sensitivities started at the unit vector, 9% off at t = 4).
    Central differences, error O(h^2) with h = 1e-6 (1 + |y0[index]|)."""
    y0 = np.asarray(y0, dtype=float)
    start = _mapped_state(model, y0, t0, list(params), True)
    on_set = np.abs(start - y0).max(initial=0.0) <= 1e-12 * max(1.0, np.abs(y0).max(initial=0.0))
    if on_set and getattr(model, "constrained", False):
        return None
    return _central_difference(lambda y: _mapped_state(model, y, t0, list(params), True), y0, index)


def _central_difference(f, x, index: int) -> np.ndarray:
    """(f(x + h e_index) - f(x - h e_index)) / 2h, h = 1e-6 (1 + |x[index]|): error O(h^2)."""
    x = np.array(x, dtype=float)
    h = 1e-6 * (1.0 + abs(x[index]))
    sides = []
    for step in (h, -h):
        shifted = x.copy()
        shifted[index] += step
        sides.append(f(shifted))
    return (sides[0] - sides[1]) / (2.0 * h)


def _system_params(params) -> dict:
    return {k: v for k, v in (params or {}).items() if k != "eps"}




def prepare_run(model, t0: float, y0, params, rtol, atol, method: str, explicit_ok: bool = True) -> tuple:
    """(model, method) for one simulation: a reduced model of order "auto" gets its order at
    y0 (tolerance rtol |u| + atol), and a reduced model runs with its ``method`` (they are not
    stiff) unless a method is given: "dop853" stays "auto", the core's DOP853 at a tenth of the
    tolerances with drift control (as every non-stiff model's; at the tolerances as given the
    sleigh's run was 600 times rtol off); Adams when the model's right-hand side is expensive or
    ``explicit_ok`` is False (the run needs sensitivities, which DOP853 does not provide; events it
    finds on its dense output, which it also keeps for ``dense_output``, as on every non-stiff model:
    with Adams a reduced sleigh's run with an event that never fired was 6-55x farther off).
    Other models pass through."""
    if not isinstance(model, ReducedModel):
        return model, method
    if model.order is None:
        n = model.system.n
        y0 = np.asarray(y0, dtype=float)
        u = model.coordinate_velocity(y0[:n], y0[n:], params)
        tolerance = float(np.max(rtol)) * float(np.abs(u).max()) + float(np.max(atol))
        model = model.truncated_at(t0, y0, params, tolerance)
    if method != "auto" or model.method == "dop853" and explicit_ok:
        return model, method  # auto's DOP853 path: a tenth of the tolerances, with drift control
    return model, "adams"
