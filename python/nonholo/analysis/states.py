"""The states the analysis calls accept: the model's own, or [q, q'] for a model in quasi-velocities
(Kane's speeds, a reduced model in a frame), mapped as :func:`~nonholo.simulate` maps its y0."""

from __future__ import annotations

import numpy as np

from ..models.reduced import ReducedModel, frame_initial_state

__all__ = ["model_state"]


def model_state(model, y, t: float = 0.0, params=None, what: str = "y") -> np.ndarray:
    """``y`` as a state of ``model``, shape (model.n_states,).

    A model in quasi-velocities (the Hamel model of Kane's speeds, ``system.nonholonomic()`` of
    :meth:`System.from_kanes_method`; a reduced model in a frame) also takes [q, q'] (the
    coordinate form's state, length 2n, q' on the constraint set), mapped to its quasi-velocities
    by the mapping of :func:`~nonholo.simulate` (``models.reduced.frame_initial_state``).
    """
    y = np.asarray(y, dtype=float)
    n, N = model.system.n, model.n_states
    two_forms = in_quasi_velocities(model)
    if y.shape == (N,):
        return y.copy()
    if two_forms and y.shape == (2 * n,):
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{what} contains NaN or inf")
        return frame_initial_state(model, y, float(t), list(model.param_vector(params)), False)
    alternative = f" or ({2 * n},) [q, q'] (mapped to {model.state_names[n:]})" if two_forms else ""
    raise ValueError(f"{what} must have shape ({N},) ordered as {model.state_names}{alternative}, got {y.shape}")


def in_quasi_velocities(model) -> bool:
    """True for a model whose velocity state is a frame's quasi-velocities (it also takes [q, q'])."""
    return getattr(model, "kind", None) == "hamel" or (isinstance(model, ReducedModel) and model.frame is not None)
