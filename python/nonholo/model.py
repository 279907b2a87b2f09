"""Models: the vector fields built on a System, ready for ``simulate``."""

from __future__ import annotations

from typing import Mapping

import numpy as np

__all__ = ["Model"]


class Model:
    """A vector field y' = f(t, y; p) of a :class:`~nonholo.System`, evaluated in C++.

    Built by ``system.nonholonomic()``, ``system.vakonomic()``, ``system.friction(eps)`` (and
    later model kinds). Immutable; parameters are given at call time.

    Attributes
    ----------
    system : System
    kind : str
        ``"nonholonomic"``, ``"vakonomic"`` or ``"friction"``.
    state_names : list of str
        Names of the states, in order (``[q, v]``, or ``[q, v, lambda]`` for vakonomic).
    params : dict
        Default parameter values (the system's, then the model's own such as ``eps``).
    """

    def __init__(self, system, kind: str, core, extra: Mapping | None = None, order: int | None = None,
                 state_names: list | None = None, rebuild=None):
        self.system = system
        self.kind = kind
        self.order = order
        self._core = core
        self._extra = dict(extra or {})
        self._state_names = state_names
        self._rebuild = rebuild  # (callable, args) recreating this model when unpickled

    @property
    def core(self):
        return self._core

    @property
    def n_states(self) -> int:
        return self._core.n_states

    @property
    def state_names(self) -> list:
        return list(self._state_names) if self._state_names else self.system.state_names(self.kind)

    @property
    def stiff(self) -> bool:
        return self._core.stiff

    @property
    def constrained(self) -> bool:
        """True when the velocities live on A(q) v = b(q, t)."""
        return self._core.constrained

    @property
    def params(self) -> dict:
        names = [*self.system.parameter_names, *self._extra]
        return dict(zip(names, self.param_vector()))

    @property
    def eps(self):
        return self._extra.get("eps")

    def param_vector(self, params: Mapping | None = None) -> list:
        return self.system.param_vector(params, self._extra)

    def rhs(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """f(t, y), shape (n_states,)."""
        return self._core.rhs(float(t), self._state(y), self.param_vector(params))

    def jacobian(self, t: float, y, params: Mapping | None = None) -> np.ndarray:
        """df/dy at (t, y) by automatic differentiation, shape (n_states, n_states)."""
        return self._core.jacobian(float(t), self._state(y), self.param_vector(params))

    def constraint_residual(self, t: float, y, params: Mapping | None = None) -> float:
        """|A v - b| / (|A| |v| + |b|) at (t, y); 0 for unconstrained models."""
        r, s = self._core.constraint_residual(float(t), self._state(y), self.param_vector(params))
        return r / s if s > 0 else r

    def compile(self, tapes=("dynamics", "constraints"), cache_dir=None) -> "Model":
        """Evaluate this model's system in compiled C from now on; returns the model.

        Each tape (``"dynamics"``: G, r, A, b, mu and the constraint term of the vector fields;
        ``"constraints"``: A and b for the drift projection; ``"full"``: every derivative block)
        is translated to C, built with the C compiler once and cached on disk under a hash of
        its source (:func:`nonholo.compiled.cache_directory`), and attached to the system, so
        every model of the system uses it (values are bit for bit the interpreter's). Without a
        C compiler the interpreter stays and a RuntimeWarning says why. Not carried over by
        pickling; call it again in a new process (the cache makes that cheap).
        """
        import warnings

        from .compiled import compile_system

        reason = compile_system(self.system.core, tapes, cache_dir)
        if reason is not None:
            warnings.warn(f"model.compile(): {reason}; the interpreter is used", RuntimeWarning, stacklevel=2)
        return self

    @property
    def compiled(self) -> bool:
        """True when the right-hand side runs compiled C (see :meth:`compile`)."""
        from . import _core

        return _core.tape_compiled(self.system.core, "dynamics")

    def _state(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        if y.shape != (self.n_states,):
            raise ValueError(f"y must have shape ({self.n_states},) ordered as {self.state_names}, got {y.shape}")
        return y

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v:g}" for k, v in self._extra.items())
        order = "" if self.order is None else f" of order {self.order}"
        return f"<nonholo.Model {self.kind}{order} of {self.system.name!r}{extra}: states {self.state_names}>"

    def __reduce__(self):
        if self._rebuild is not None:
            return self._rebuild
        return (_rebuild_model, (self.system, self.kind, self._extra, self.order))


def _rebuild_model(system, kind, extra, order=None):
    return system._model(kind, order=order, **extra)
