"""The states the analysis calls accept: the model's own, or [q, q'] for a model in quasi-velocities
(Kane's speeds, a reduced model in a frame), mapped as :func:`~nonholo.simulate` maps its y0. A state
whose length is the model's own is always the model's state (see :func:`model_state`)."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from ..errors import ModelError
from ..options import real_state
from ..integrate.arguments import labelled_state
from ..models.reduced import ReducedModel, frame_initial_state
from ..models.start_check import check_start
from ..system.margins import loads_at_start

__all__ = ["model_state", "parameter_mapping", "check_state", "check_contacts", "model_label"]

PROJECT_ADVICE = "Pass project_y0=True"  # where simulate's advice begins in the mapping's messages (frames, reduced)


def model_state(model, y, t: float = 0.0, params=None, what: str = "y", approximate: bool = False) -> np.ndarray:
    """``y`` as a state of ``model``, shape (model.n_states,).

    A model in quasi-velocities (the Hamel model of Kane's speeds, ``system.nonholonomic()`` of
    :meth:`System.from_kanes_method`; a reduced model in a frame) also takes [q, q'] (the
    coordinate form's state, length 2n, q' on the constraint set), mapped to its quasi-velocities
    by the mapping of :func:`~nonholo.simulate` (``models.reduced.frame_initial_state``).

    The length decides: a ``y`` of the model's own length N is always the model's state
    [q, quasi-velocities], never mapped. When N equals 2n (Kane's speeds with no dependent
    speeds: as many independent speeds as coordinates), [q, u] and [q, q'] have the same length
    and ``y`` is read as [q, u]; map a [q, q'] first, e.g. with ``model.frame.state(q, q')``
    (the Hamel model of Kane's speeds) or run the model in [q, q'] (``state="qdot"``).

    ``approximate=True`` maps an approximate [q, q'] (a guess) without requiring q' on the
    constraint set: the quasi-velocities along the constraints are dropped, X(q)^-1 (q' - w0(q))
    keeping its first m components. A pandas Series labelled by the state names, or by q and q',
    is read by name (:func:`~nonholo.integrate.arguments.labelled_state`).
    """
    y, qdot = labelled_state(model, y, what)  # a pandas Series by name
    y = real_state(y, what)
    n, N = model.system.n, model.n_states
    two_forms = in_quasi_velocities(model)
    if y.shape == (N,) and not (qdot and two_forms):
        if not approximate and getattr(model, "kind", None) == "hamel" and np.all(np.isfinite(y)):
            # refused where the speeds are singular at q, as simulate refuses such a y0 (ModelError naming
            # Kane's dependent speeds), not deep in the model's equations ("the frame metric X_D^T G X_D")
            frame_initial_state(model, y, float(t), list(model.param_vector(params)), False)
        return y.copy()
    if two_forms and y.shape == (2 * n,):
        if not np.all(np.isfinite(y)):
            raise ValueError(f"{what} contains NaN or inf")
        pvec = list(model.param_vector(params))
        if approximate:
            return frame_initial_state(model, y, float(t), pvec, False, checked=False, qdot=qdot)
        try:
            return frame_initial_state(model, y, float(t), pvec, False, qdot=qdot)
        except ModelError:  # the speeds are singular at q: not a velocity off the constraints
            raise
        except ValueError as exc:  # without simulate's advice: the analysis calls have no project_y0
            found = str(exc).split(PROJECT_ADVICE)[0].rstrip(". ")
            raise ValueError(f"{what} given as [q, q'] (length {2 * n}) must have q' on the constraint set: {found}. "
                             f"Give a q' that satisfies the constraints at q (system.project(q, qdot) projects one "
                             f"onto them, G-orthogonally), or {what} in the model's own state {model.state_names}"
                             ) from None
    alternative = f" or ({2 * n},) [q, q'] (mapped to {model.state_names[n:]})" if two_forms else ""
    raise ValueError(f"{what} must have shape ({N},) ordered as {model.state_names}{alternative}, got {y.shape}")


def in_quasi_velocities(model) -> bool:
    """True for a model whose velocity state is a frame's quasi-velocities (it also takes [q, q'])."""
    return getattr(model, "kind", None) == "hamel" or (isinstance(model, ReducedModel) and model.frame is not None)


def parameter_mapping(params, name: str = "params"):
    """``params`` when it is None or a mapping name -> value; else TypeError naming ``name``."""
    if params is None or isinstance(params, Mapping):
        return params
    raise TypeError(f"{name} must be a mapping name -> value (e.g. {{'a': 0.3}}), got {type(params).__name__} "
                    f"{params!r:.80}")



def check_state(model, t: float, y, pvec, what: str = "y") -> None:
    """The checks ``simulate`` makes of a run's start, for a state an analysis evaluates the model at
    (a linearization, a steady motion, a point of an eigenvalue path): the model's own
    (:func:`~nonholo.models.start_check.check_start`: eps > 0, a metric positive definite, ...), and,
    for a model whose contacts follow a law, every contact's normal load non-negative, a tire law's
    rolling speed positive and a rolling body within its surface's domain
    (:func:`~nonholo.system.margins.loads_at_start`), with ``pvec`` the model's parameter vector
    (overrides included). ValueError naming ``what`` where one fails: a tire law's force at a negative
    rolling speed pushes along the slip, and the linearization there was the sign-flipped, unstable
    spectrum of a car that simulate refuses to run."""
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{what} contains NaN or inf")
    check_start(model, t, y, pvec)
    check_contacts(model, t, y, pvec, what)


def check_contacts(model, t: float, y, pvec, what: str = "y") -> None:
    """The second part of :func:`check_state`: ValueError naming ``what`` where a law's contact has a
    negative normal load, a tire law's rolling speed is not positive or a rolling body is outside
    its surface's domain at (t, y) (:func:`~nonholo.system.margins.loads_at_start`); nothing for a
    model without such contacts."""
    try:
        loads_at_start(model, t, y, pvec)
    except ValueError as exc:
        message = str(exc)
        message = message[len("y0: "):] if message.startswith("y0: ") else message
        message = message.replace(" at the start (t = ", " (t = ")
        raise ValueError(f"{what}: {message}; the {model_label(model)} model does not hold there (nh.simulate "
                         "refuses such a state as y0)") from None


def model_label(model) -> str:
    """What ``model`` is, for messages: its ``label`` ("friction (magic formula law)" for the friction
    model of a law, whose ``kind`` is "nonholonomic", that of the unconstrained system the law realizes),
    else its ``kind``."""
    return str(getattr(model, "label", None) or getattr(model, "kind", type(model).__name__))
