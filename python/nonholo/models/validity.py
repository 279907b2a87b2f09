"""Where a reduced model is valid: the separation of the friction model's time scales, and the
size of the first term the truncation drops.

The reduced model of order K expands the slow manifold of ``friction(eps)`` in powers of eps,
v = u + sum_{k<=K} eps^k h^(k)(t, q, u) (Gzenda-Chhabra eq. (66); Eldering 2016 section 6). Two
estimates, from the model itself, say when the expansion stops describing the friction model:

* the spectral gap. The friction model's Jacobian J = d f_eps / d(q, v) on the slow manifold has k
  fast eigenvalues, about -(1/eps) times those of the metric-normalized friction mu A G^-1 A^T
  (k constraints), and 2n - k slow ones, those of the slow flow. Their ratio

      delta = |lambda_(k+1)| / |lambda_k|,   |lambda_1| >= ... >= |lambda_2n| the moduli of eig J,

  is eps times the slow rate over the normalized friction; the expansion needs delta <= 0.1 (time
  scales at least a factor 10 apart). It misses slow flows whose Jacobian is nilpotent (a knife edge:
  all slow eigenvalues zero), hence
* the next term. r = max |eps^(K+1) h^(K+1)(t, q, u)| / max(|u|, |v|), the first term the
  truncation drops, relative to the run's velocity scale (the largest |u|, |v| over the sampled
  states, so that a pendulum's turning point, where u passes through zero, does not count as a
  large relative error): the relative error of the model's velocity. It must stay <= 0.1.

A run is within the range of validity when both hold at its initial state and at the states
of its steps: the states it stored (each output time of ``t_eval``, or each step without one) and
the step ends it kept beside sparse samples of ``t_eval`` (between RUN_SAMPLES and twice as many,
evenly thinned as the run goes: the solver option ``step_trail``, which ``simulate`` sets for
reduced models); ``simulate`` evaluates RUN_SAMPLES of them, evenly spaced, the last included, so
that the check costs a bounded number of eigenvalue problems. A run that leaves the range part-way
warns, wherever it leaves (a sleigh pushed by a constant torque 10 at eps = 0.05 starts at delta =
0.016 and passes 0.1 at t = 1; a sleigh spun up by a torque pulse reaches delta = 0.52 at t = 2.2
and is back in range by t = 6, which a run with ``t_eval=[6]`` alone did not see). Measured against
the friction model started on its slow manifold, t = 10: the
Chaplygin sleigh (m = I = 1, a = 0.2, u = (1, 0, 1)) at order 1 has delta = 1 at eps = 2 (error 28),
0.21 at eps = 0.5 (error 1.0) and 0.003 at eps = 1e-2 (error 7e-4); the knife edge on an inclined
plane (tests/test_honest_runs.py) has delta = 0 but r = 0.26 at eps = 2, 0.013 at eps = 0.5 and
5e-6 at 1e-2 (r relative to the run's largest velocity; it was 1.5, 0.09 and 4e-5 relative to each
state's own, which a velocity passing through zero makes meaningless). Both
bounds are a tenth: beyond it the truncated series is no longer a small correction, and the runs
differ from the friction model at order one; below it the error falls like eps^(K+1).

The eigenvalues are needed only where delta is near or above its bound. A run's check
(``estimate``) first bounds delta from above at each sample without them (in C++,
``nonholo/slow_manifold_gap_bound.hpp``: a similarity that splits the Jacobian into its slow and
fast blocks, then the block Gershgorin theorem), and computes the eigenvalues only at the samples
where that bound exceeds the threshold. Where the bound decides, ``delta`` holds the bound (an
upper bound of the ratio, at most the threshold; ``ValidityEstimate.bounded`` marks those
samples), elsewhere the ratio itself: the verdict is the one the eigenvalues give everywhere, and
the reported values that exceed the threshold are exact. ``estimate(..., exact=True)`` computes
the ratio at every sample.

Most states need not be evaluated at all (``estimate(..., margin=MARGIN)``, as ``simulate`` calls
it). The check evaluates the first and the last of the sampled states, then bisects: the states
between two evaluated ones are skipped when both ends lie a factor ``margin`` (10) inside both
thresholds (delta or its bound <= THRESHOLD / margin, r <= NEXT_TERM_THRESHOLD / margin) and no
state between them moves faster than twice the faster end (max |u|, read from the stored states
at no cost: the slow rates and the dropped term grow with the velocity); otherwise the state in
the middle is evaluated and both halves are judged again, down to every sampled state. The
guarantee: a sampled state is skipped only where delta and r would have to rise more than tenfold
from both neighbouring evaluated states, without the speed doubling, and fall back again. A run
well inside the range (the chain of 8 links at eps 1e-4: delta <= 7e-4, r <= 3e-8) costs two
evaluations instead of 16; a run that nears or leaves the range is evaluated at every sample, as
before (the sleigh pushed by a torque: delta = 0.016 at y0, a margin of 6 only).

The whole check of a run is one call into C++ (``_core.reduced_run_check``,
``nonholo/slow_manifold_validity.hpp``): the evaluations, the bounds and the bisection, with no
Python per state or per level; LAPACK's eigenvalues (``_gap``, through numpy) are called back from
it only where a bound does not decide. On the chain of 8 links at eps 1e-4 it costs 0.92 M
instructions (0.76 M of them in C++: the gap's bound 0.30 M, the friction Jacobian 0.14 M, the
series of order 2), where the Python bisection took 1.10 M (callgrind, the same two states).
The initial state is evaluated at the run's start t0 (``simulate`` passes it), also when
``t_eval`` starts later.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .. import _core

__all__ = ["THRESHOLD", "NEXT_TERM_THRESHOLD", "RUN_SAMPLES", "MARGIN", "ValidityEstimate", "scale_separation",
           "next_term", "estimate"]

THRESHOLD = 0.1  # largest ratio delta of slow to fast rates
NEXT_TERM_THRESHOLD = 0.1  # largest relative size r of the first term dropped
RUN_SAMPLES = 16  # stored states simulate checks (evenly spaced, first and last included), besides y0
MARGIN = 10.0  # states between two evaluated ones this far inside both thresholds are skipped
SPEED_GROWTH = 2.0  # ... unless a state between them is this much faster (max |u|) than both


@dataclass
class ValidityEstimate:
    """delta(t) and r(t) at the sampled times of a run (see the module docstring); ``valid`` when
    max delta <= ``threshold`` and max r <= ``next_term_threshold``. ``bounded``: True at the
    samples where ``delta`` is the upper bound that decided (at most the threshold), not the ratio
    of the eigenvalues (None: the ratio everywhere). ``skipped``: sampled states the check did not
    evaluate (``estimate`` with a ``margin``); ``t`` holds the evaluated ones."""

    t: np.ndarray
    delta: np.ndarray
    next_term: np.ndarray
    threshold: float = THRESHOLD
    next_term_threshold: float = NEXT_TERM_THRESHOLD
    bounded: np.ndarray | None = None
    skipped: int = 0  # sampled states not evaluated: between two evaluated ones with the margin (module docstring)

    @property
    def max(self) -> float:
        """The larger of max delta and max r, each relative to its threshold, times THRESHOLD (so
        that ``max <= THRESHOLD`` exactly when the run is valid)."""
        return self.threshold * max(float(np.max(self.delta, initial=0.0)) / self.threshold,
                                    float(np.max(self.next_term, initial=0.0)) / self.next_term_threshold)

    @property
    def valid(self) -> bool:
        return bool(np.all(self.delta <= self.threshold) and np.all(self.next_term <= self.next_term_threshold))

    def message(self, eps: float, order) -> str:
        i, j = int(np.argmax(self.delta)), int(np.argmax(self.next_term))
        found = []
        if self.delta[i] > self.threshold:
            found.append(f"the ratio of the friction model's slow to fast rates is delta = {self.delta[i]:.3g} at "
                         f"t = {self.t[i]:.4g} (valid when <= {self.threshold:g}: time scales a factor "
                         f"{1 / self.threshold:g} apart)")
        if self.next_term[j] > self.next_term_threshold:
            found.append(f"the first term the truncation drops, eps^{order + 1} h^({order + 1}), is "
                         f"{self.next_term[j]:.3g} of |u| at t = {self.t[j]:.4g} (valid when <= "
                         f"{self.next_term_threshold:g})")
        return (f"the reduced model (eps = {eps:g}, order {order}) left the range where its expansion in eps is "
                f"valid: {'; '.join(found)}. Simulate system.friction(eps) instead, or use a smaller eps")


def scale_separation(system, eps: float, t, Y, params=None) -> np.ndarray:
    """delta at time-major states Y (n_t, 2n) = (q, v) of the friction model (v on its slow
    manifold, e.g. a reduced model's ``velocity``), at times t (n_t,)."""
    Y = np.asarray(Y, dtype=float)
    return _evaluate(system, eps, 0, t, Y, system.param_vector(params), exact=True)[1]


def _gap(J: np.ndarray, k: int) -> np.ndarray:
    """|lambda_(k+1)| / |lambda_k| of each Jacobian of the stack J (n_t, 2n, 2n), moduli decreasing;
    inf for a Jacobian with entries beyond double precision (eps = 1e200 or 5e-324: the run is then
    out of the expansion's range, not an error after its integration)."""
    J = np.asarray(J)
    gap = np.full(J.shape[0], np.inf)
    finite = np.isfinite(J).all(axis=(1, 2))
    if finite.any():
        moduli = -np.sort(-np.abs(np.linalg.eigvals(J[finite])), axis=1)  # descending, one row per state
        with np.errstate(divide="ignore", invalid="ignore"):
            gap[finite] = np.where(moduli[:, k - 1] > 0, moduli[:, k] / moduli[:, k - 1], np.inf)
    return gap


def next_term(system, eps: float, order: int, t, Q, U, V=None, params=None) -> np.ndarray:
    """r = max |eps^(K+1) h^(K+1)| at time-major samples Q, U (n_t, n), relative to the largest
    |u|, |v| over all the samples, v the velocity of order K there (u + sum_{k<=K} eps^k h^(k),
    computed here from the same series; ``V`` is accepted for compatibility and not needed)."""
    return _evaluate(system, eps, order, t, np.hstack([Q, U]), system.param_vector(params))[2]



def checked_order(order: int) -> int:
    """The order whose next term the check evaluates: the model's, but at the highest order
    (``_core.max_slow_manifold_order``, 16), whose next term the series cannot give, the order below
    it: there the last kept term stands for the first dropped one (orders 16 and 15 differ by
    eps^16 h^(16) in the velocity the Jacobian is taken at)."""
    return min(int(order), _core.max_slow_manifold_order - 1)


def _friction_core(system, eps: float):
    """The core of the system's friction model, which takes eps as a parameter: one per system."""
    friction = system.__dict__.get("_validity_friction")
    if friction is None:
        friction = system.__dict__["_validity_friction"] = system.friction(eps).core
    return friction

def _evaluate(system, eps: float, order: int, t, QU: np.ndarray, p, exact: bool = False) -> tuple:
    """(V, delta, r, bounded) at the samples QU = [q, u] (n_t, 2n): one pass in C++
    (``_core.reduced_validity``: the coefficients h^(1..K+1) once per sample, from the compiled
    series of order K + 1, traced once per system and order as the models of that order, or Taylor
    mode; the friction model's Jacobian at (q, V) and an upper bound of its gap), then the
    eigenvalues by LAPACK where that bound exceeds THRESHOLD (everywhere with ``exact``).
    ``bounded`` marks the samples whose delta is the bound."""
    from .reduced import compiled_slip  # reduced imports this module's users: late

    order = checked_order(order)
    V, J, r, bound = _core.reduced_validity(_friction_core(system, eps), system.core, order, float(eps),
                                            np.asarray(t, dtype=float),
                                            QU, p, compiled_slip(system, order + 1))
    bounded = np.zeros(len(bound), dtype=bool) if exact else bound <= THRESHOLD
    delta = bound.copy()
    if not bounded.all():
        delta[~bounded] = _gap(J[~bounded], system.k)
    return V, delta, r, bounded


def estimate(result, y0=None, samples: int | None = None, exact: bool = False,
             margin: float | None = None, t0: float | None = None, p=None) -> ValidityEstimate | None:
    """The ValidityEstimate of a reduced model's run (``result.model`` a ReducedModel) at its initial
    state ``y0`` (the model's state) at time ``t0`` and at every stored state (its final state when it
    stored none); ``samples``: at most that many stored states instead, evenly spaced, the first and
    the last included. ``t0``: the run's start (``t_span[0]``), the time of ``y0``; by default the
    first stored time, which is t0 when ``t_eval`` is None or starts at t0 (``simulate`` passes it).
    ``exact``: delta from the eigenvalues at every sample, not only where its upper bound exceeds the
    threshold (the same verdict; see the module docstring). ``margin`` (> 1; not with ``exact``):
    skip the states between two evaluated ones that lie this factor inside both thresholds (the
    bisection of the module docstring). ``p``: the run's parameter vector in the model's order
    (``simulate`` passes the one it ran with; by default from ``result.params``). One call into C++
    (``_core.reduced_run_check``) evaluates the states and bisects; LAPACK's eigenvalues (``_gap``)
    are called back only where the gap's bound does not decide. None without states."""
    from .reduced import compiled_slip  # reduced imports this module's users: late

    if margin is not None and not margin > 1.0:
        raise ValueError(f"margin must be greater than 1, got {margin!r}")
    model = result.model
    system = model.system
    n = system.n
    if y0 is not None:
        y0 = np.asarray(y0, dtype=float)
        if t0 is None:
            t0 = result.t[0] if result.t.size else result.t_last
    times, states = _run_states(result, samples, t0)
    stored = times.size
    if stored:
        idx = sample_indices(stored, samples)
        if y0 is not None and idx[0] == 0 and times[0] == t0 and states[:, 0].tolist() == y0.tolist():
            y0 = None  # the stored initial state is y0 itself
        t = times[idx]
        Y = states[:, idx]
    elif result.y_final is not None:
        t, Y = np.array([result.t_last]), result.y_final[:, None]
    elif y0 is None:
        return None
    else:
        t, Y = np.empty(0), np.empty((len(y0), 0))
    if y0 is not None:  # y0 first, at t0
        t = np.concatenate(([float(t0)], t))
        Y = np.column_stack([y0, Y])
    params = result.params
    eps = float(model.eps_at(params))
    if p is None:
        p = model.param_vector(params)
    if model.frame is None:
        QU = np.ascontiguousarray(Y[: 2 * n].T)
    else:
        Y = Y.T
        QU = np.hstack([Y[:, :n], model.frame_velocities(t, Y, p, result._frame_switches)])
    order = checked_order(model.order)
    evaluated, delta, r, bounded = _core.reduced_run_check(
        _friction_core(system, eps), system.core, order, eps, t, QU, p[: len(system.parameters)],
        compiled_slip(system, order + 1), functools.partial(_gap, k=system.k), THRESHOLD, NEXT_TERM_THRESHOLD,
        0.0 if margin is None or exact else float(margin), SPEED_GROWTH, exact)
    return ValidityEstimate(t[evaluated], delta, r, bounded=bounded, skipped=len(t) - len(evaluated))


def _run_states(result, samples: int | None, t0: float | None) -> tuple:
    """The run's states the check samples: the stored ones, and where they leave a gap longer than
    1/``samples`` (RUN_SAMPLES by default) of the run from ``t0`` (t_eval=[T] stores one state), the
    step ends the run kept beside them (``result._trail``), in the order of time, each time once."""
    trail = getattr(result, "_trail", None)
    if trail is None or not trail[0].size:
        return result.t, result.y
    t = result.t
    start = t0 if t0 is not None else (t[0] if t.size else trail[0][0])
    if t.size > 1 and max(abs(t[0] - start), abs(result.t_last - t[-1]), float(np.max(np.abs(
            t[1:] - t[:-1])))) <= abs(result.t_last - start) / (samples or RUN_SAMPLES):
        return t, result.y  # the stored states cover the run as densely as the check samples
    t = np.concatenate([result.t, trail[0]])
    Y = np.hstack([result.y, trail[1]])
    order = np.argsort(t if result.t_last >= t[0] else -t, kind="stable")
    t, Y = t[order], Y[:, order]
    keep = np.r_[True, np.diff(t) != 0]
    return t[keep], Y[:, keep]


def sample_indices(count: int, samples: int | None = None) -> np.ndarray:
    """Indices of the stored states the estimate is evaluated at: all ``count`` of them, or at most
    ``samples`` (>= 2) evenly spaced with the first and the last (read-only: shared between calls)."""
    if samples is not None and samples < 2 and count > samples:
        raise ValueError(f"samples must be at least 2 (the first and the last state), got {samples}")
    return _sample_indices(int(count), None if samples is None or count <= samples else int(samples))


@functools.lru_cache(maxsize=256)
def _sample_indices(count: int, samples: int | None) -> np.ndarray:
    if samples is None:
        indices = np.arange(count)
        indices.flags.writeable = False
        return indices
    step = (count - 1) / (samples - 1)  # np.round(np.linspace(0, count - 1, samples)), without its overhead
    indices = np.array(sorted({round(i * step) for i in range(samples - 1)} | {count - 1}))
    indices.flags.writeable = False
    return indices
