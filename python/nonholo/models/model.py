"""Models: the vector fields built on a System, ready for ``simulate``.

Every model kind implements :class:`ModelProtocol`: its state names and parameters, and the
physical quantities of its states (velocity q', energy, constraint residual) for one state or a
whole trajectory, computed in C++ in one pass. The kinds differ only in what their state holds:

- :class:`Model` (nonholonomic, vakonomic, friction): ``[q, v]`` (``[q, v, lambda]``), q' = v;
- :class:`~nonholo.models.reduced.ReducedModel`: ``[q, u]``, q' = u + sum_{k<=K} eps^k h^(k)(t, q, u);
- :class:`FrameModel` (Hamel, frame-vakonomic): ``[q, v^alpha, ...]``, q' = X_D(q) v^alpha;
- :class:`~nonholo.models.discrete.DiscreteModel`: ``[q, v]`` at the nodes of the midpoint scheme.
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from .. import _core
from ..numerics import number_text
from ..options import real_number
from ..system.law_relaxation import lag_states
from ..system.friction_scale import eps_index, followed

__all__ = ["Model", "ModelProtocol", "FrameModel", "FrameSwitches"]


@runtime_checkable
class ModelProtocol(Protocol):
    """What every model kind provides (the continuous models and the discrete integrator).

    ``t`` is a time or an array of n_t times and ``y`` a state of shape (n_states,) or a
    trajectory of shape (n_states, n_t) (the layout of ``SimulationResult.y``); the quantities
    come back with shape (n,) / (n, n_t) for the velocity and () / (n_t,) for the scalars.
    """

    system: object

    @property
    def state_names(self) -> list[str]: ...

    @property
    def params(self) -> dict: ...

    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray: ...

    def energy(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray: ...

    def constraint_residual(self, t: npt.ArrayLike, y: npt.ArrayLike,
                            params: Mapping | None = None) -> np.ndarray: ...


def real_time(t) -> float:
    """The time ``t`` of a model's rhs, jacobian or slip as a float; TypeError naming ``t`` for what is no
    real number (a string such as "zero", a bool, None), rather than float()'s message about a string."""
    return real_number(t, "t")


def samples_of(t, y, n_states: int, names) -> tuple:
    """(t, Y, scalar): t as (n_t,), Y time-major (n_t, n_states), and whether one state was given."""
    y = np.asarray(y, dtype=float)
    scalar = y.ndim == 1
    Y = y.reshape(-1, 1) if scalar else y
    if Y.ndim != 2 or Y.shape[0] != n_states:
        raise ValueError(f"y must have shape ({n_states},) or ({n_states}, n_t) ordered as {names}, got {y.shape}")
    t = np.broadcast_to(np.asarray(t, dtype=float), (Y.shape[1],))
    return np.ascontiguousarray(t), np.ascontiguousarray(Y.T), scalar


class Model:
    """A vector field y' = f(t, y; p) of a :class:`~nonholo.System`, evaluated in C++.

    Built by ``system.nonholonomic()``, ``system.vakonomic()``, ``system.friction(eps)``,
    ``system.reduced(eps, order)`` (:class:`ReducedModel`) and the frame models
    (:class:`FrameModel`). Immutable; parameters are given at call time. Implements
    :class:`ModelProtocol`.

    Attributes
    ----------
    system : System
    kind : str
        ``"nonholonomic"``, ``"vakonomic"``, ``"friction"``, ``"reduced"``, ``"hamel"`` or
        ``"frame_vakonomic"`` (a label: behaviour comes from the class, not from this string).
    state_names : list of str
        Names of the states, in order (``[q, v]``, or ``[q, v, lambda]`` for vakonomic).
    params : dict
        Default parameter values (the system's, then the model's own such as ``eps``).
    """

    def __init__(self, system, kind: str, core, extra: Mapping | None = None, order: int | None = None,
                 state_names: list | None = None):
        self.system = system
        self.kind = kind
        self.order = order
        self._core = core
        self._extra = dict(extra or {})
        self._friction_scale = getattr(system, "friction_scale", None)  # as built: a later change does not reach it
        self._state_names = list(state_names) if state_names else system.state_names()
        twice = sorted({x for x in self._state_names if self._state_names.count(x) > 1})
        if twice:
            raise ValueError(f"the {kind} model of {system.name!r} would name two states {twice} (a coordinate named "
                             "like one of the model's own states, e.g. u_x or lambda_0): rename the coordinate")
        self.recipe = None  # (owner, factory, args, kwargs): set by the factory (nonholo.system.recipes)

    @property
    def core(self):
        return self._core

    @property
    def label(self) -> str:
        """What the model is, for display (its repr, results' titles, summaries and exports):
        ``kind``, except for the friction model of a law (``system.friction(law=...)``, the
        nonholonomic model of the unconstrained system the law realizes), "friction (<law> law)"."""
        recipe = getattr(self, "recipe", None)
        if recipe is not None and recipe[1] == "friction" and recipe[3].get("law") is not None:
            law = recipe[3]["law"]
            laws = law if isinstance(law, (list, tuple)) else [law]
            names = sorted({str(getattr(one, "name", one)) for one in laws})
            return f"friction ({', '.join(names)} law)"
        return self.kind

    @property
    def n_states(self) -> int:
        return self._core.n_states

    @property
    def n_velocities(self) -> int:
        """Number of velocity states after q (n; the rank m of D for frame models)."""
        return self.system.n

    @property
    def state_names(self) -> list:
        return list(self._state_names)

    @property
    def stiff(self) -> bool:
        return self._core.stiff

    @property
    def constrained(self) -> bool:
        """True when the velocities live on A(q) v = b(q, t)."""
        return self._core.constrained

    @property
    def param_names(self) -> list:
        """Names of the parameters: the system's, then the model's own (e.g. ``eps``)."""
        return [*self.system.parameter_names, *self._extra]

    @property
    def params(self) -> dict:
        return dict(zip(self.param_names, self.param_vector()))

    @property
    def eps(self):
        return self._extra.get("eps")

    @property
    def sparse(self) -> bool:
        """True when this model factors the nonzeros of G and A only (``system.nonholonomic(sparse=...)``)."""
        return bool(getattr(self._core, "sparse", False))

    def param_vector(self, params: Mapping | None = None) -> list:
        """The parameter values in the core's order: the defaults overridden by ``params``; a friction
        or reduced model's eps follows the system's ``friction_scale`` where it has one
        (:mod:`nonholo.system.friction_scale`)."""
        return followed(self, self.system.param_vector(params, self._extra), params)

    def eps_at(self, params: Mapping | None = None):
        """The model's eps at a run's ``params`` (given, or following ``friction_scale``); None without one."""
        if "eps" not in self._extra:
            return None
        return self.param_vector(params)[eps_index(self)]

    def rhs(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """f(t, y), shape (n_states,). A given eps of the friction model must be positive and finite
        (ValueError)."""
        return self._core.rhs(real_time(t), self._state(y), self._checked_params(t, y, params))

    def jacobian(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """df/dy at (t, y) by automatic differentiation, shape (n_states, n_states); ``params`` as in
        :meth:`rhs`."""
        return self._core.jacobian(real_time(t), self._state(y), self._checked_params(t, y, params))

    def _checked_params(self, t, y, params) -> list:
        """The parameter vector; a given eps of the friction model checked as simulate checks it (eps = -1
        gave a field that pumps energy, which simulate refuses). A reduced model's field is a polynomial in
        eps, defined at every eps (tests/test_eldering.py interpolates it through -0.2 .. 0.2). The state
        is not checked: rhs evaluates wherever the model can, also where a run's start check would refuse
        (a metric positive definite only on D)."""
        p = self.param_vector(params)
        if params and self.kind == "friction" and "eps" in self.param_names:
            eps = p[self.param_names.index("eps")]
            if not (math.isfinite(eps) and eps > 0):
                raise ValueError(f"eps must be a positive finite number, got {eps!r}")
        return p

    # ---------------------------------------------------------------- physical quantities
    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None) -> np.ndarray:
        """The physical velocity q' of a state (n,) or a trajectory (n, n_t): here v itself."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        p = self.param_vector(params)
        V = self._velocity(t, Y, p)
        return V[0] if scalar else V.T

    def _velocity(self, t: np.ndarray, Y: np.ndarray, p: list) -> np.ndarray:
        """q' at time-major samples Y (n_t, n_states), shape (n_t, n)."""
        n = self.system.n
        return Y[:, n: 2 * n].copy()

    def energy(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None, *,
               velocity: npt.ArrayLike | None = None) -> np.ndarray | float:
        """1/2 q'^T G(q) q' + V(q) with the physical velocity q' (:meth:`velocity`, or the given
        ``velocity`` of the same shape when already computed): a float for one state, shape
        (n_t,) for a trajectory (n_states, n_t). One pass in C++."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        p = self.param_vector(params)
        V = self._velocity(t, Y, p) if velocity is None else np.ascontiguousarray(
            np.asarray(velocity, dtype=float).reshape(self.system.n, -1).T)
        E = _core.trajectory_energy(self.system.core, t, Y[:, : self.system.n], V, p[: len(self.system.parameters)])
        lag = lag_states(self.system)
        if lag:  # the deflections of relaxed tire laws are not kinetic energy (system/law_relaxation.py)
            E = E - 0.5 * np.sum(V[:, self.system.n - lag:] ** 2, axis=1)
        return float(E[0]) if scalar else E

    def constraint_residual(self, t: npt.ArrayLike, y: npt.ArrayLike,
                            params: Mapping | None = None) -> np.ndarray | float:
        """|A v - b| / (|A| |v| + |b|) (0 for unconstrained models): a float for one state,
        shape (n_t,) for a trajectory (n_states, n_t). One pass in C++."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        r = _core.trajectory_constraint_residual(self._core, t, Y, self.param_vector(params))
        return float(r[0]) if scalar else r

    def compile(self, tapes=None, cache_dir=None, fuse: bool = True) -> "Model":
        """Evaluate this model in compiled C from now on; returns the model.

        By default the tapes this model's right-hand side evaluates in doubles
        (``model.core.rhs_tapes``; e.g. ``"dynamics"`` and ``"constraints"`` for the
        nonholonomic model, ``"split_base"`` and ``"velocity_part"`` for the reduced model of
        order 1, the CompiledSlip's ``"slip"`` and ``"projection"`` above, a frame's
        ``"frame"`` / ``"frame_values"`` / ``"frame_along"``, the friction model's implicit-Jacobian tape where
        compiling it pays); ``tapes`` names others (``model.core.tape_names``; ``"full"``: every
        derivative block). Each is translated to C, built with the C compiler once (side by side)
        and cached on disk under a hash of its source and the compiler command
        (:func:`nonholo.expressions.compiled.cache_directory`), and attached where it lives (the system's
        tapes serve every model of the system); their values are bit for bit the interpreter's.

        With ``fuse=True`` (the default, when ``tapes`` is not given) a model whose whole
        right-hand side can be traced (``model.core.fusable``: the friction and nonholonomic
        models, the reduced models in coordinates of orders 0 and 1 and of higher orders with a
        CompiledSlip; ``order="auto"`` compiles tapes only) is also traced into one tape
        ``"rhs"``: the system's tapes and the factorizations and solves between them as one
        straight-line C function with the sizes built in; the reduced
        models keep the smaller of their range-space form and a null-space form in the split of
        maximal volume. A trace over 30 000 operations is not kept (beyond that size the one C
        function stops paying). Its values equal the unfused ones to rounding (not bit for bit); where a
        test of the trace fails at a state (a pivot, or a split grown ill-conditioned) that
        evaluation runs unfused. ``fuse=False`` keeps the bit-for-bit tapes only.
        Without a C compiler the interpreter stays and a RuntimeWarning says why. Not carried over
        by pickling; call it again in a new process (the cache makes that cheap).
        """
        import warnings

        from ..expressions.compiled import compile_model
        from ..options import flag

        fuse = flag(fuse, "fuse")

        if self.sparse and tapes is None:  # its sparse tape has no C translation (yet): say so
            warnings.warn("model.compile(): a sparse model's tape is interpreted (its C build would cost about "
                          "0.5 ms per instruction, minutes for a large system); nothing was compiled",
                          RuntimeWarning, stacklevel=2)
            return self
        params = self.param_vector() if fuse and tapes is None else None
        reason = compile_model(self.core, tapes, cache_dir, params=params)
        if reason is not None:
            warnings.warn(f"model.compile(): {reason}; the interpreter is used", RuntimeWarning, stacklevel=2)
        self._compile_request = (tapes, cache_dir, fuse)
        return self

    @property
    def compiled(self) -> bool:
        """True when every tape of the right-hand side runs compiled C (see :meth:`compile`); never for a
        sparse model, whose sparse tape has no C translation (its other tapes may be compiled C)."""
        from .. import _core

        if self.sparse:
            return False
        return all(_core.tape_compiled(self.core, which) for which in self.core.rhs_tapes)

    def _state(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if y.shape != (self.n_states,):
            raise ValueError(f"y must have shape ({self.n_states},) ordered as {self.state_names}, got {y.shape}")
        if not np.isfinite(y).all():
            bad = [name for name, v in zip(self.state_names, y) if not np.isfinite(v)]
            raise ValueError(f"y contains NaN or inf (in {', '.join(bad)}): the state must be finite")
        return y

    def __repr__(self) -> str:
        extra = "".join(f", {k}={number_text(v)}" for k, v in self._extra.items())
        order = "" if self.order is None else f" of order {self.order}"
        return f"<nonholo.Model {self.label}{order} of {self.system.name!r}{extra}: states {self.state_names}>"

    def __reduce__(self):
        return remade(self)


def apply_compile(model: Model, compile: bool | str, n_rhs: float, parallel: int = 1) -> None:
    """The ``compile`` argument of the batch calls: False leaves ``model`` as it is; True calls
    ``model.compile()`` (unless it ran before); "auto" compiles the tapes that are bit for bit the
    interpreter's when ``n_rhs`` right-hand sides, ``parallel`` at a time, are predicted to repay the
    build (:func:`nonholo.expressions.compiled.auto_compile`), so the results do not change."""
    from ..expressions.compiled import auto_compile

    if compile is True and getattr(model, "_compile_request", None) is None:
        model.compile()
    elif compile == "auto":
        auto_compile(model.core, n_rhs, parallel)


@dataclass
class FrameSwitches:
    """The re-splits of a run in quasi-velocities of a Voronets frame (C++ ``Model::frame_check``,
    models/frame_watch.hpp: the frame form of a reduced model, the Hamel and frame-vakonomic
    models): the times ``t`` and the solved coordinates (indices) chosen there. A sample at time
    t is in the split of the last switch strictly before t in the direction of integration, the
    frame's own before the first (the outputs at a switch time are emitted before the switch)."""

    t: np.ndarray
    solved: list
    forward: bool = True

    def index(self, times) -> np.ndarray:
        """For each time, 0 for the frame's own split, i for the split of the i-th switch."""
        times = np.asarray(times, dtype=float)
        if self.forward:
            return np.searchsorted(self.t, times, side="left")
        return np.searchsorted(-self.t, -times, side="left")


def frame_velocities(frame, t: np.ndarray, Y: np.ndarray, sys_p: list,
                     switches: FrameSwitches | None = None) -> np.ndarray:
    """u = X_D(q) w at time-major samples Y (n_t, n + m + ...) of a model in the quasi-velocities
    w of ``frame`` (an :class:`~nonholo.frames.AnholonomicFrame`), shape (n_t, n), each sample in
    the split of its time (``switches``; the frame's own without). Only the columns q and w of Y
    are read."""
    n, m = frame.n, frame.rank
    Y = np.ascontiguousarray(Y[:, : n + m])
    if switches is None or not len(switches.t):
        return _core.frame_velocity(frame.core, Y, sys_p)
    index = switches.index(t)
    U = np.empty((Y.shape[0], n))
    for i, solved in enumerate([frame.core.solved, *switches.solved]):
        rows = index == i
        if rows.any():
            U[rows] = _core.frame_velocity(frame.core, np.ascontiguousarray(Y[rows]), sys_p, list(solved))
    return U


class FrameModel(Model):
    """A model in an anholonomic frame (``frame.hamel()``, ``frame.vakonomic()``): state
    ``[q, v^1, ..., v^m, ...]``, physical velocity q' = X_D(q) v^alpha. ``frame`` is the
    :class:`~nonholo.frames.AnholonomicFrame`. A run re-splits a Voronets frame where it turns
    ill conditioned and stops where a frame given by vectors turns singular, as the frame form of
    the reduced model (:mod:`nonholo.models.reduced`; ``result.frame_switches``)."""

    def __init__(self, system, kind: str, core, frame, state_names: list):
        super().__init__(system, kind, core, state_names=state_names)
        self.frame = frame

    @property
    def label(self) -> str:
        """As :attr:`Model.label`; the nonholonomic model in the system's own speeds (Kane's speeds of
        :meth:`~nonholo.System.from_kanes_method`, which ``system.nonholonomic()`` runs) says so,
        where ``kind`` says "hamel", the equations it runs."""
        if self.kind == "hamel" and self.system.speeds is not None and self.frame is self.system.speed_frame():
            kane = type(self.system.speeds[1]).__name__ == "DependentSpeeds"
            return "nonholonomic in Kane's speeds" if kane else "nonholonomic in its speeds"
        return super().label

    @property
    def n_velocities(self) -> int:
        return self.frame.rank

    def velocity(self, t: npt.ArrayLike, y: npt.ArrayLike, params: Mapping | None = None, *,
                 switches: FrameSwitches | None = None) -> np.ndarray:
        """q' = X_D(q) v^alpha of a state (n,) or a trajectory (n, n_t); ``switches``: the splits
        a run's samples are in (``SimulationResult``), default the frame's own."""
        t, Y, scalar = samples_of(t, y, self.n_states, self.state_names)
        V = self._velocity(t, Y, self.param_vector(params), switches)
        return V[0] if scalar else V.T

    def frame_velocities(self, t: np.ndarray, Y: np.ndarray, p: list,
                         switches: FrameSwitches | None = None) -> np.ndarray:
        """X_D(q) v^alpha at time-major samples Y, shape (n_t, n), each in the split of its time."""
        return frame_velocities(self.frame, t, Y, p[: len(self.system.parameters)], switches)

    def _velocity(self, t: np.ndarray, Y: np.ndarray, p: list, switches: FrameSwitches | None = None) -> np.ndarray:
        return self.frame_velocities(t, Y, p, switches)


@dataclass(frozen=True)
class ModelKind:
    """How ``System`` builds the model of one kind: its compiled core from the system's (and the
    order), its Python class and its state names."""

    build_core: Callable
    cls: type
    state_names: Callable
    build_sparse: Callable | None = None  # the kind over the sparse backend (models/sparse_backend.hpp)


def _qv(system) -> list:
    return system.state_names()


MODEL_KINDS = {
    "nonholonomic": ModelKind(lambda core, order: _core.nonholonomic_model(core), Model, _qv,
                              lambda core: _core.sparse_model(core, False)),
    "friction": ModelKind(lambda core, order: _core.friction_model(core), Model, _qv,
                          lambda core: _core.sparse_model(core, True)),
    "vakonomic": ModelKind(lambda core, order: _core.vakonomic_model(core), Model,
                           lambda system: _qv(system) + [f"lambda_{i}" for i in range(system.k)]),
    # built by System.reduced (nonholo.models.reduced.ReducedModel); the entry gives its state names
    "reduced": ModelKind(None, None,
                         lambda system: [*system.coordinate_names, *(f"u_{q}" for q in system.coordinate_names)]),
}


def remake(owner, factory: str, args: tuple, kwargs: dict, measured_jacobian_cost: float = math.nan):
    """``owner.factory(*args, **kwargs)``: a model made again from its recipe (how every model
    unpickles), keeping the original's measured Jacobian cost when it had one, so that the copy's
    BDF runs weigh the same number and take the same steps (see ``Model.core.measured_jacobian_cost``)."""
    model = getattr(owner, factory)(*args, **kwargs)
    if math.isfinite(measured_jacobian_cost):
        model.core.keep_measured_jacobian_cost(measured_jacobian_cost)
    return model


def remade(model) -> tuple:
    """``__reduce__`` of every model: the factory call recorded in ``model.recipe``, and the
    Jacobian cost the model measured on its first BDF run (NaN before it)."""
    if model.recipe is None:
        raise pickle.PicklingError(f"{model!r} was not made by a factory of a System or a frame (system.friction(eps), "
                                   "frame.hamel(), ...), so there is no call that makes it again when unpickled")
    measured = getattr(getattr(model, "core", None), "measured_jacobian_cost", math.nan)
    return (remake, (*model.recipe, measured))
