"""Where a reduced model is valid: the separation of the friction model's time scales.

The reduced model of order K expands the slow manifold of ``friction(eps)`` in powers of eps
(Gzenda-Chhabra eq. (66); Eldering 2016 section 3.4). The expansion rests on a gap in the
spectrum of the friction model's Jacobian J = d f_eps / d(q, v) on the slow manifold: its k fast
eigenvalues are about -(1/eps) times those of the metric-normalized friction mu A G^-1 A^T (k the
number of constraints), and the 2n - k slow ones are those of the slow flow. The expansion
parameter is their ratio

    delta(t) = |lambda_(k+1)| / |lambda_k|,   |lambda_1| >= ... >= |lambda_2n| the moduli of eig J,

(eps times the slow rate over the normalized friction): small when the scales are apart, about 1
when the fast modes are no faster than the motion (the series then says nothing about the friction
model). A run is within the range of validity when max_t delta <= ``THRESHOLD`` = 0.1 (time scales
at least a factor 10 apart). For the Chaplygin sleigh (m = I = 1, a = 0.2, u = (1, 0, 1)) delta is
about 0.3 eps^1 for eps <= 0.2, 0.21 at eps = 0.5 and 1 at eps = 2; the order-1 model is then
0.57 and 2.6 away from the friction model at t = 10, against 8e-4 at eps = 1e-2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["THRESHOLD", "ValidityEstimate", "scale_separation", "estimate"]

THRESHOLD = 0.1
N_SAMPLES = 8  # states of a run at which delta is evaluated (the first, the last, evenly between)


@dataclass
class ValidityEstimate:
    """delta(t) at the sampled times of a run (see the module docstring); ``valid`` when its
    maximum is at most ``threshold``."""

    t: np.ndarray
    delta: np.ndarray
    threshold: float = THRESHOLD

    @property
    def max(self) -> float:
        return float(np.max(self.delta, initial=0.0))

    @property
    def t_max(self) -> float:
        return float(self.t[int(np.argmax(self.delta))]) if self.delta.size else float("nan")

    @property
    def valid(self) -> bool:
        return self.max <= self.threshold

    def message(self, eps: float, order) -> str:
        return (f"the reduced model (eps = {eps:g}, order {order}) left the range where its expansion in eps is "
                f"valid: the ratio of the friction model's slow to fast rates is delta = {self.max:.3g} at "
                f"t = {self.t_max:.4g} (valid when delta <= {self.threshold:g}, time scales at least a factor "
                f"{1 / self.threshold:g} apart); simulate system.friction(eps) instead, or use a smaller eps")

def scale_separation(system, eps: float, t, Y, params=None) -> np.ndarray:
    """delta at time-major states Y (n_t, 2n) = (q, v) of the friction model (v on its slow
    manifold, e.g. a reduced model's ``velocity``), at times t (n_t,)."""
    friction = system.friction(eps)
    k = system.k
    call = {**(params or {}), "eps": eps}
    out = np.empty(len(t))
    for i, (ti, y) in enumerate(zip(t, Y)):
        moduli = np.sort(np.abs(np.linalg.eigvals(friction.jacobian(float(ti), y, call))))[::-1]
        out[i] = moduli[k] / moduli[k - 1] if moduli[k - 1] > 0 else np.inf
    return out


def estimate(result, samples: int = N_SAMPLES) -> ValidityEstimate | None:
    """The ValidityEstimate of a reduced model's run (``result.model`` a ReducedModel), from
    ``samples`` of its stored states (its final state when it stored none); None without states."""
    model = result.model
    n = model.system.n
    if result.t.size:
        idx = np.unique(np.linspace(0, result.t.size - 1, min(samples, result.t.size)).astype(int))
        t, Y = result.t[idx], result.y[:, idx]
    elif result.y_final is not None:
        t, Y = np.array([result.t_last]), result.y_final[:, None]
    else:
        return None
    params = dict(result.params)
    eps = float(params.pop("eps", model.eps))
    V = model._velocity(t, Y.T, model.param_vector({**params, "eps": eps}), result._frame_switches)
    states = np.hstack([Y.T[:, :n], V])
    return ValidityEstimate(t, scale_separation(model.system, eps, t, states, params))
