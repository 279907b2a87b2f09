"""Exceptions and warnings of nonholo.

- ``ModelError`` (a ``ValueError``): the mechanical data are unusable, e.g. a metric that is not
  positive definite, dependent constraint rows, unknown symbols in an expression.
- ``IntegrationError`` (a ``RuntimeError``): raised by ``simulate(..., raise_on_failure=True)``
  when the solver fails; ``err.result`` holds the partial result.
- ``SimulationWarning``: emitted when a simulation fails and ``raise_on_failure`` is False, so
  that a failure is never silent in a notebook.

Bad arguments (shapes, NaN, non-positive tolerances) raise plain ``ValueError``/``TypeError``
naming the argument.
"""

from ._core import ModelError, SolverError


class IntegrationError(RuntimeError):
    """The solver failed; ``result`` is the SimulationResult up to the failure."""

    def __init__(self, message: str, result=None):
        super().__init__(message)
        self.result = result


class SimulationWarning(RuntimeWarning):
    """A simulation did not reach the end of its interval."""


__all__ = ["ModelError", "SolverError", "IntegrationError", "SimulationWarning"]
