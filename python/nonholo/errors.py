"""Exceptions and warnings of nonholo: one hierarchy, raised from Python and from the C++ core.

- ``NonholoError``: the base of every nonholo exception.
- ``ModelError`` (also a ``ValueError``): the mechanical data are unusable, e.g. a metric that is
  not positive definite, dependent constraint rows, unknown symbols in an expression.
- ``IntegrationError`` (also a ``RuntimeError``): a solver failed after it started; ``err.t`` is
  the time of failure and ``err.result`` the partial result when there is one. Raised by
  ``simulate(..., raise_on_failure=True)`` and by the core (CVODE or Newton failures).
  ``SolverError`` is its former name in ``nonholo._core``.
- ``SimulationWarning``: emitted when a simulation fails and ``raise_on_failure`` is False, so
  that a failure is never silent in a notebook, and when a reduced model leaves the range where
  its expansion is valid.
- ``SweepError`` (also a ``RuntimeError``): ``sweep(..., on_error="raise")`` met a failing point,
  or points returned different keys; ``err.partial`` is the SweepResult of every finished point.
  ``SweepWarning``: the points that failed under ``on_error="keep"``.
- ``OptimalControlError`` (also a ``RuntimeError``): IPOPT did not solve an optimal control
  problem, or its plan is no motion of the dynamics or crosses a chart's singular set, and
  ``solve(..., raise_on_failure=True)`` was asked; ``err.solution`` is the
  OptimalControlSolution at IPOPT's last iterate.

Ctrl-C (KeyboardInterrupt) is never replaced by another exception: the entry points that run
long (simulate, simulate_many, sweep, fit, eigenvalue_path, the studies) re-raise the same
KeyboardInterrupt with the work that finished attached as ``exc.partial`` (None when nothing had).

Bad arguments (shapes, NaN, non-positive tolerances) raise plain ``ValueError``/``TypeError``
naming the argument. An exception raised by a user's Python event function propagates as itself.
This module imports nothing from the core: the core's exception translator raises these classes.
"""

from __future__ import annotations

__all__ = ["NonholoError", "ModelError", "IntegrationError", "SolverError", "SimulationWarning", "SweepError",
           "SweepWarning", "OptimalControlError", "attach_partial"]


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


class OptimalControlError(NonholoError, RuntimeError):
    """No optimal plan: IPOPT did not solve an optimal control problem, or its plan is no motion of
    the dynamics or crosses a chart's singular set; ``solution`` is the OptimalControlSolution at
    its last iterate (its ``message`` says why)."""

    def __init__(self, message: str, solution=None):
        super().__init__(message)
        self.solution = solution


class SimulationWarning(RuntimeWarning):
    """A simulation did not reach the end of its interval."""


class SweepError(NonholoError, RuntimeError):
    """A sweep stopped at a failing point (``on_error="raise"``) or could not stack the points'
    outputs; ``partial`` is the SweepResult of every point that finished (``partial.status``,
    ``partial.errors``), ``point`` the grid point at fault."""

    def __init__(self, message: str, partial=None, point=None):
        super().__init__(message)
        self.partial = partial
        self.point = point


class SweepWarning(RuntimeWarning):
    """Points of a sweep failed and were kept as failures (``on_error="keep"``)."""


def attach_partial(exc: BaseException, partial) -> BaseException:
    """``exc`` (a KeyboardInterrupt) with ``exc.partial = partial``; an outer call (a sweep around
    a simulate) replaces the inner call's partial result with its own, the one its caller asked for."""
    try:
        exc.partial = partial
    except AttributeError:  # an exception type without __dict__: nothing to attach to
        pass
    return exc
