"""Exceptions and warnings of nonholo: one hierarchy, raised from Python and from the C++ core.

- ``NonholoError``: the base of every nonholo exception.
- ``ModelError`` (also a ``ValueError``): the mechanical data are unusable, e.g. a metric that is
  not positive definite, dependent constraint rows, unknown symbols in an expression.
- ``IntegrationError`` (also a ``RuntimeError``): a solver failed after it started; ``err.t`` is
  the time of failure and ``err.result`` the partial result when there is one. Raised by
  ``simulate(..., raise_on_failure=True)`` and by the core (CVODE or Newton failures).
  ``SolverError`` is its former name in ``nonholo._core``.
- ``SimulationWarning``: emitted when a simulation fails and ``raise_on_failure`` is False, so
  that a failure is never silent in a notebook.

Bad arguments (shapes, NaN, non-positive tolerances) raise plain ``ValueError``/``TypeError``
naming the argument. An exception raised by a user's Python event function propagates as itself.
This module imports nothing from the core: the core's exception translator raises these classes.
"""

from __future__ import annotations

__all__ = ["NonholoError", "ModelError", "IntegrationError", "SolverError", "SimulationWarning"]


class NonholoError(Exception):
    """Base class of the exceptions nonholo raises."""


class ModelError(NonholoError, ValueError):
    """The mechanical data are unusable (at a point, or as a whole)."""


class IntegrationError(NonholoError, RuntimeError):
    """A solver failed; ``t`` is the time of failure (None if unknown), ``result`` the
    SimulationResult up to the failure (None when raised by the core)."""

    def __init__(self, message: str, result=None, t: float | None = None):
        super().__init__(message)
        self.result = result
        if t is None and result is not None:
            t = getattr(result, "t_last", None)
        self.t = t


SolverError = IntegrationError


class SimulationWarning(RuntimeWarning):
    """A simulation did not reach the end of its interval."""
