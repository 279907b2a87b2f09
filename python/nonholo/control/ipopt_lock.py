"""One IPOPT solve at a time in a process. Its linear solver (Debian's sequential MUMPS) keeps global
state: two solves in threads at once (a sweep's default, or the caller's own pool) crashed the
interpreter in ``dmumps_load_update``. The solves of ``_core.solve_collocation`` and
``_core.solve_interval_nlp`` hold this lock (:func:`locked_solve`); solves in separate processes need
none."""

from __future__ import annotations

import threading

__all__ = ["IPOPT_LOCK", "locked_solve", "UNSCALED"]

IPOPT_LOCK = threading.Lock()

#: MUMPS without its scaling, for a start whose KKT matrix its default scaling deems singular.
UNSCALED = ("mumps_scaling", 0)
_FAILED_AT_START = ("Restoration Phase Failed", "Error in step computation")


def locked_solve(solve, **kwargs) -> dict:
    """``solve(**kwargs)`` (a ``_core`` NLP solve) under IPOPT_LOCK; once more with MUMPS's scaling off
    (UNSCALED) where it failed within its first iteration in the restoration phase or the step
    computation: MUMPS's default scaling (MC64's, permuting_scaling 5) declared the start's KKT matrix
    singular at every regularization IPOPT tried, up to delta_x = 1e16. A knife edge pushed 2 ahead
    from rest, the line as its start (its speeds zero, where the rows of y hold no other unknown), with
    any path constraint (y <= 3, never active) failed so on 9-13 Hermite-Simpson nodes and 21-29
    trapezoid ones; unscaled, every mesh from 9 to 39 nodes solved (on 19 trapezoid nodes IPOPT instead
    entered its restoration phase and crawled there for 3000 iterations, which this does not catch).
    Not where the caller set MUMPS's scaling."""
    options = kwargs.get("ipopt_options", [])
    with IPOPT_LOCK:
        out = solve(**kwargs)
        chosen = any(name in ("mumps_scaling", "mumps_permuting_scaling") for name, _ in options)
        if out.get("iterations", 2) <= 1 and not chosen and \
                any(m in str(out.get("message", "")) for m in _FAILED_AT_START):
            earlier = (int(out["iterations"]), float(out["time_ipopt"]))
            out = solve(**{**kwargs, "ipopt_options": [*options, UNSCALED]})
            out["earlier"] = [earlier]  # counted in the solve's totals (tally)
    return out
