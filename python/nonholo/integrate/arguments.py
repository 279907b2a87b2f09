"""Checks of simulate's and simulate_many's arguments made before anything is converted or allocated:
the memory their outputs need (a t_eval of 1e9 times, a batch of 1e8 runs) and the values of
``params`` (strings, bools, integers beyond a float's range), each refusal naming the argument."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from .. import options as check

# The memory a run's result holds besides its samples (the SimulationResult, its stats and messages,
# the arrays' headers), in bytes: a rough upper figure, so that a batch of 1e8 runs is refused at once
BYTES_PER_RUN = 4096
SMALL_NEED = 2 ** 26  # bytes (64 MiB) of outputs that any machine this runs on holds


def _length(value) -> int | None:
    """The number of entries of an array-like without converting it (an ndarray's size, a sequence's
    length), None when unknown."""
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, (list, tuple)):
        return len(value)
    return None


def refuse_outputs(n_states: int, t_eval, n_runs: int = 1, argument: str = "t_eval") -> None:
    """ValueError naming ``argument`` where the outputs of ``n_runs`` runs, ``n_states`` states and
    the times of ``t_eval`` (8 bytes each, and a result per run) cannot be held: asked before
    t_eval is converted and before anything is integrated (a t_eval of 2e9 times ended in the
    out-of-memory killer)."""
    from ..system.checks import refuse_beyond_memory

    n_t = _length(t_eval)
    times = 2 if n_t is None else n_t
    need = n_runs * (BYTES_PER_RUN + 8.0 * (n_states + 1) * times)
    if need < SMALL_NEED:  # every run's few kilobytes: not worth the 40 us of asking /proc/meminfo
        return
    if n_t is not None and n_runs > 1 and argument != "t_eval":
        detail = f"{n_runs} runs of {n_states} states at {n_t} times of t_eval"
    elif n_runs > 1:
        detail = f"{n_runs} runs of {n_states} states at {times} times"
    else:
        detail = f"{n_states} states at {times} times"
    refuse_beyond_memory(need, f"{argument}: the outputs of {detail} need",
                         f"8 bytes per value, about {BYTES_PER_RUN} bytes per result",
                         f"take fewer {'times' if argument == 't_eval' else 'runs'}")


def batch_size(Y0, params) -> int | None:
    """The number of runs of a batch from the shapes of ``Y0`` and ``params``, without converting
    them (None when they do not say)."""
    shape = np.shape(Y0) if isinstance(Y0, np.ndarray) else None
    if shape is not None and len(shape) == 2:
        return shape[0]
    if isinstance(params, Sequence) and not isinstance(params, (str, bytes)):
        return len(params)
    if isinstance(params, Mapping):
        sizes = [_length(v) for v in params.values()]
        return max([s for s in sizes if s is not None] or [1])
    if isinstance(Y0, (list, tuple)):
        return len(Y0)
    return None


def refuse_batch(n_states: int, Y0, params, t_eval) -> None:
    """The memory check of :func:`refuse_outputs` for a batch, naming ``Y0`` or ``params`` (whichever
    sets the number of runs) when the runs alone cannot be held, else ``t_eval``."""
    n_runs = batch_size(Y0, params)
    if not n_runs:
        return
    by_rows = (isinstance(Y0, np.ndarray) and Y0.ndim == 2) or (
        isinstance(Y0, (list, tuple)) and len(Y0) > 0 and isinstance(Y0[0], (list, tuple, np.ndarray)))
    refuse_outputs(n_states, None, n_runs, "Y0" if by_rows else "params")
    refuse_outputs(n_states, t_eval, n_runs, "t_eval")


def param_values(params, batch: bool = False) -> None:
    """ValueError naming ``params[name]`` for an integer beyond a float's range (OverflowError in the
    system's conversion); a batch's arrays of values are checked entry by entry (a string among them made
    NumPy read every entry as a string, and the first, a good one, was blamed). Single strings and bools
    are left to the system's message."""
    if not isinstance(params, Mapping):
        return
    for key, value in params.items():
        name = f"params[{getattr(key, 'name', key)!r}]"
        if isinstance(value, (bool, np.bool_, str, bytes)):
            continue  # the system's own message (parameter m must be a real number, got the bool True)
        if isinstance(value, int):
            try:
                float(value)
            except OverflowError:
                raise ValueError(f"{name} is an integer too large for a float: {value!r:.40}") from None
        elif batch and (isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.dtype.kind
                                                              not in "fiu")):
            check.real_array(value, name)


def pandas_like(y) -> bool:
    """True for a pandas Series or DataFrame (labels NumPy would drop), not an ndarray."""
    return hasattr(y, "to_numpy") and not isinstance(y, np.ndarray)


def labelled_state(model, y0, name: str = "y0") -> tuple:
    """(y0, qdot): ``y0`` as its values in the model's order when it is labelled by name (a pandas
    Series, or a DataFrame of one run a row, whose labels NumPy would ignore: a Series of the state
    names out of order started the run at the wrong state), by the model's state names or by the
    coordinates and velocities [q, q'] of the coordinate form (qdot True: a model in quasi-velocities
    maps them, even where its own state has the same length, Kane's speeds without dependent ones);
    ValueError naming ``name`` for other string labels; anything else as it is (qdot False)."""
    labels = getattr(y0, "columns", None) if getattr(y0, "ndim", 1) == 2 else getattr(y0, "index", None)
    if labels is None or not pandas_like(y0):
        return y0, False
    labels = list(labels)
    if not labels or not any(isinstance(label, str) for label in labels):
        return y0, False  # a position index (0, 1, ...): positional
    values, given = np.asarray(y0.to_numpy()), [str(label) for label in labels]
    system = model.system
    forms = [list(model.state_names), [str(s) for s in (*system.coordinates, *system.velocities)]]
    for names, qdot in zip(forms, (False, True)):
        if len(set(given)) == len(given) and sorted(given) == sorted(names):
            return values[..., [given.index(name) for name in names]], qdot and names != forms[0]
    raise ValueError(f"{name} is labelled {labels}, not by the states {forms[0]} or by {forms[1]} (in any order); "
                     f"give {name} in the model's order or labelled by those names")
