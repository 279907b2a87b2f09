r"""Eigenvalues of steady motions along a parameter, tracked mode by mode, and the parameter
values where stability changes.

Tracking: the eigenvalues at each parameter value are matched to those predicted by linear
extrapolation from the two previous values (an optimal assignment, Hungarian algorithm), so a
column of :attr:`EigenvaluePath.eigenvalues` follows one mode through crossings and collisions
instead of jumping with a sort order. Zero modes are matched with zero modes and physical
eigenvalues with physical ones, as far as their counts allow.

Critical values: where the number of growing physical modes changes. Along each tracked mode,
where its real part changes sign between two samples: a real eigenvalue through zero
(divergence; also a pair colliding at zero and leaving along the imaginary axis, as for the
upright disc) is refined as a root of the product of the physical eigenvalues, det of the
physical quotient matrix, which is smooth in the parameter; a complex pair (Hopf, the bicycle's
weave) as a root of the tracked eigenvalue's real part. Both by Brent's method to ``xtol``; if the
refinement function does not change sign (a tangency), by bisection on the stability of the
mode. A crossing is reported only where the number of growing physical modes changes across it
in its direction (counted halfway to the next crossing or sample on either side): on a coarse
grid the tracking can pair one mode with another, and such pairs "cross" where the spectrum does
not. Where the number of growing modes differs between two samples and no crossing so found
accounts for it, or the growing pair sat on the imaginary axis at the stable sample (it left the
axis by colliding with another pair, a Krein collision or Hamiltonian-Hopf bifurcation: its real
part is zero up to rounding on the stable side, no root to refine), the boundary is found by
bisection on that number itself, and named by the spectrum there ("krein" where two imaginary
pairs meet).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ... import options as check
from ...errors import attach_partial
from ...models.model import apply_compile
from .linearize import analysed_model, linearize, state_matrix
from .zero_modes import deflate
from ..states import in_quasi_velocities, parameter_mapping
from ...integrate.arguments import pandas_like

__all__ = ["EigenvaluePath", "CriticalValue", "eigenvalue_path", "critical_values"]


@dataclass(frozen=True)
class EigenvaluePath:
    """Eigenvalues of the linearization along a parameter, one column per tracked mode.

    Attributes
    ----------
    parameter : str
    values : ndarray (P,)
    eigenvalues : ndarray (P, m), complex
        Column j is one mode followed continuously along ``values``.
    structural : ndarray (m,), bool
        Columns that are zero modes (symmetry, conservation, families) at every value.
    linearizations : list of Linearization
    """

    parameter: str
    values: np.ndarray
    eigenvalues: np.ndarray
    structural: np.ndarray
    linearizations: list = field(repr=False)
    model: object = field(repr=False)
    state: object = field(repr=False)
    params: dict = field(repr=False)
    options: dict = field(repr=False)

    @property
    def physical(self) -> np.ndarray:
        """The physical modes' columns, (P, m_phys)."""
        return self.eigenvalues[:, ~self.structural]

    def threshold(self, i: int, j: int | None = None) -> float:
        """Real parts above this count as growing at value i: for mode (column) j, that eigenvalue's
        threshold (:meth:`~nonholo.Linearization.thresholds`), else the largest of them."""
        lin = self.linearizations[i]
        bounds = lin.thresholds(self.options["stability_tol"])
        if not bounds.size:
            return self.options["stability_tol"] * max(1.0, np.abs(lin.A).max())
        if j is None:
            return float(bounds.max())
        return float(bounds[int(np.argmin(np.abs(lin.physical_eigenvalues - self.eigenvalues[i, j])))])

    @property
    def stable(self) -> np.ndarray:
        """(P,) bool: spectral stability (no physical real part above its threshold)."""
        return np.array([self.linearizations[i].is_stable(self.options["stability_tol"])
                         for i in range(len(self.values))])

    def __repr__(self) -> str:
        # a summary: the dataclass's repr printed every eigenvalue (23 kB for 199 values)
        v = np.asarray(self.values, dtype=float)
        span = f"{v.size} values in [{v.min():g}, {v.max():g}]" if v.size else "no values"
        stable = self.stable if v.size else np.zeros(0, bool)
        return (f"EigenvaluePath(parameter={self.parameter!r}, {span}, {self.eigenvalues.shape[1]} modes "
                f"({int(np.count_nonzero(~self.structural))} physical), stable at {int(stable.sum())} of {v.size})")


@dataclass(frozen=True)
class CriticalValue:
    """A parameter value where a mode's real part crosses zero.

    ``kind``: ``"divergence"`` (a real eigenvalue through zero), ``"hopf"`` (a complex pair
    through the imaginary axis: weave, flutter) or ``"krein"`` (two pairs on the imaginary axis
    collide, a double pair, and leave it as a quartet +-a +-ib: the Hamiltonian-Hopf bifurcation of
    a sleeping top or a spinning rolling ball at its critical spin); ``eigenvalue`` at the crossing
    (for ``"krein"`` the double imaginary eigenvalue, on the stable side); ``direction``:
    ``"stabilizing"`` when the mode becomes stable as the parameter increases, else
    ``"destabilizing"``; ``mode``: the column of the path.
    """

    value: float
    kind: str
    eigenvalue: complex
    direction: str
    mode: int


def eigenvalue_path(model, parameter: str, values, state, params=None, stability_tol: float = 1e-9,
                    compile: bool | str = "auto", **linearize_options) -> EigenvaluePath:
    r"""Linearize ``model`` at the steady motion ``state`` for each of ``values`` of ``parameter``.

    Parameters
    ----------
    model : Model
    parameter : str
        A parameter of the model (set to each value), or any label (e.g. ``"speed"``) when only
        ``state`` depends on it (then the states must differ between the values: a label with
        the same state at every value, a misspelt parameter, is refused).
    values : array_like (P,)
        Increasing parameter values; steps small enough for the modes to be followed.
    state : callable or array_like
        ``state(value)`` returning the steady state at that value, or one state (N,) for all,
        or an array (P, N) of states (then :func:`critical_values` cannot refine between them).
        A model in quasi-velocities also takes states [q, q'] of length 2n, as
        :func:`~nonholo.linearize` does; a state of length N is always the model's own.
    params : mapping, optional
        Other parameter values.
    stability_tol : float
        Relative threshold on real parts for stability (positive and finite).
    compile : {"auto", True, False}
        "auto" (default) compiles the model's tapes that are bit for bit the interpreter's when
        the path's Jacobians (``model.core.jacobian_cost`` right-hand sides each) are predicted to
        repay the build (:func:`nonholo.expressions.compiled.auto_compile`; rarely: a path has tens
        of points), so the path is the same either way; True: ``model.compile()`` first; False: as
        it is.
    **linearize_options
        Passed to :func:`~nonholo.linearize` (``independent``, ``cyclic``, ``zero_tol``, ...).

    Raises
    ------
    ValueError, TypeError, ...
        Where ``state(value)`` or the linearization fails at one of ``values`` (not a steady
        motion there, a state where the model does not hold): an exception of the same type whose
        message begins "at <parameter> = <value>: ", chained from the original, with
        ``exc.partial`` the EigenvaluePath over the values before it (None at the first), as
        Ctrl-C's KeyboardInterrupt carries it.

    Examples
    --------
    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> path = nh.eigenvalue_path(model, "a", [-0.2, -0.1, 0.1, 0.2], [0, 0, 0, 1.0, 0, 0])
    >>> path.stable  # straight motion is stable with the contact behind the centre of mass (a > 0)
    array([False, False,  True,  True])
    """
    analysed_model(model)
    values = check.real_array(values, "values")
    if values.ndim != 1 or values.size < 2:
        raise ValueError(f"values must be a 1-D array of at least 2 parameter values, got shape {values.shape}")
    if not np.all(np.isfinite(values)) or np.any(np.diff(values) <= 0):
        raise ValueError("values must be finite and strictly increasing")
    if not isinstance(parameter, str):
        raise TypeError(f"parameter must be a name (str), got {parameter!r}")
    params = parameter_mapping(params)
    stability_tol = check.positive(stability_tol, "stability_tol")
    if parameter not in model.params and not callable(state) and np.ndim(state) != 2:
        raise ValueError(f"parameter {parameter!r} is not a parameter of the model ({list(model.params)}); name one, "
                         "or give state as a callable of the parameter value (or one state per value)")
    compile = check.compile_option(compile)
    # a callable state is called in the loop, so that an error or Ctrl-C in it keeps the path so far
    states = None if callable(state) else _states(model, state, values)
    label = parameter not in model.params
    if states is not None and label:
        _refuse_constant(states, parameter, model)
    apply_compile(model, compile, values.size * model.core.jacobian_cost)
    lins, called = [], []
    try:
        for i, v in enumerate(values):
            try:
                at = states[i] if states is not None else _state(state(v))
                called.append(at)
                if label and i == len(values) - 1 and states is None:
                    _refuse_constant(called, parameter, model)
                lins.append(linearize(model, at, params=_params(model, parameter, v, params), **linearize_options))
            except Exception as exc:  # the state function's, or linearize's: at which value, with the path so far
                named = at_value(exc, parameter, v, _path(parameter, values[: len(lins)], lins, model, state, params,
                                                          linearize_options, stability_tol) if lins else None)
                if named is exc:
                    raise
                raise named from exc
    except KeyboardInterrupt as exc:  # Ctrl-C: the path over the values done goes with it
        partial = _path(parameter, values[: len(lins)], lins, model, state, params, linearize_options,
                        stability_tol) if lins else None
        raise attach_partial(exc, partial)
    return _path(parameter, values, lins, model, state, params, linearize_options, stability_tol)


def _refuse_constant(states, parameter, model) -> None:
    """A label (not a parameter of the model) whose states are the same at every value: a misspelt
    parameter, whose path would be constant."""
    if all(np.array_equal(s, states[0]) for s in states[1:]):
        raise ValueError(f"parameter {parameter!r} is not a parameter of the model ({list(model.params)}) and the "
                         "state is the same at every value, so the path would be constant: name a parameter, or "
                         "give state as a callable of the value that changes with it")


def at_value(exc: Exception, parameter: str, value, partial=None) -> Exception:
    """``exc`` raised at ``parameter`` = ``value`` as an exception of its type whose message begins
    "at <parameter> = <value>: " (its attributes kept, to be chained from it), with ``partial`` (the work
    finished before it) as ``.partial``, the convention of sweep and fit; ``exc`` itself, with
    ``.partial``, for a type that takes no message alone."""
    message = f"at {parameter} = {format(float(value), '.10g')}: {exc}"
    try:
        out = type(exc)(message)
    except Exception:  # an exception type with other required arguments
        out = None
    if out is None or out.args != (message,):
        return attach_partial(exc, partial)
    out.__dict__.update(exc.__dict__)  # an IntegrationError's result and t, ...
    return attach_partial(out, partial)


def _path(parameter, values, lins, model, state, params, linearize_options, stability_tol) -> EigenvaluePath:
    tracked = _track([lin.eigenvalues for lin in lins], [lin.n_zero for lin in lins])
    structural = np.all(tracked == 0, axis=0)
    return EigenvaluePath(parameter, values, tracked, structural, lins, model, state, dict(params or {}),
                          dict(linearize_options, stability_tol=stability_tol))


HOPF_SHARE = 1e-3  # a crossing eigenvalue this large (relative to the bracket's ends) and complex is a Hopf
KREIN_RATIO = 10.0  # the two eigenvalues nearest the new growing one this close to each other: a double pair


def critical_values(path_or_model, parameter: str | None = None, values=None, state=None, params=None,
                    xtol: float = 1e-12, **options) -> list:
    r"""Parameter values where the stability of the steady motion changes, each refined to ``xtol``.

    Takes an :class:`EigenvaluePath`, or the arguments of :func:`eigenvalue_path` (``parameter``,
    ``values`` and ``state`` are then required). Returns a list of :class:`CriticalValue` in
    increasing order, each with its kind: ``"divergence"`` (a real eigenvalue through zero,
    refined as a root of det of the physical block), ``"hopf"`` (a complex pair through the
    imaginary axis, refined as a root of its real part) or ``"krein"`` (two pairs on the
    imaginary axis collide and leave it as a quartet, a Hamiltonian-Hopf bifurcation: how a
    spinning top or rolling ball gains or loses its gyroscopic stability; located by bisection on
    the number of growing modes). Wherever the number of growing modes differs between two
    neighbouring values, a crossing between them is reported, whatever the tracked modes do. A
    sample counted stable although it lies just past a crossing (its growth below the path's
    ``stability_tol``) is searched beyond, also beyond an end of the grid: such a crossing is
    reported where it is, which can lie outside the grid by up to one interval (a root 1e-10 past
    the last sample is returned as that root, not as the sample).
    ``xtol`` must be positive and finite. An error of the state function or of the linearization at
    a value between the samples names that value, as :func:`eigenvalue_path` does, with
    ``exc.partial`` the critical values found below it (an error while the path is computed carries
    the path so far, :func:`eigenvalue_path`).

    Examples
    --------
    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh().nonholonomic()
    >>> path = nh.eigenvalue_path(model, "a", [-0.2, -0.1, 0.1, 0.2], [0, 0, 0, 1.0, 0, 0])
    >>> (change,) = nh.critical_values(path)
    >>> change.value, change.kind, change.direction
    (0.0, 'divergence', 'stabilizing')
    """
    xtol = check.positive(xtol, "xtol")
    if not isinstance(path_or_model, EigenvaluePath):
        analysed_model(path_or_model, "path_or_model")
        missing = [nm for nm, v in (("parameter", parameter), ("values", values), ("state", state)) if v is None]
        if missing:
            raise TypeError(f"critical_values takes an EigenvaluePath, or a model with the arguments of "
                            f"eigenvalue_path: parameter, values and state; {', '.join(missing)} not given")
    path = path_or_model if isinstance(path_or_model, EigenvaluePath) else \
        eigenvalue_path(path_or_model, parameter, values, state, params, **options)
    if not callable(path.state) and np.ndim(path.state) == 2:
        raise ValueError("critical_values refines between the samples and needs state as a callable of the "
                         "parameter (or one state for all values), not an array of states")
    found = []
    columns = np.flatnonzero(~path.structural)
    for i in range(len(path.values) - 1):
        try:
            found += _bracket_crossings(path, i, columns, xtol)
        except Exception as exc:  # named by the value where it failed (_at): the crossings found before it go along
            raise attach_partial(exc, sorted(found, key=lambda c: c.value))
    return sorted(found, key=lambda c: c.value)


def _bracket_crossings(path, i, columns, xtol) -> list:
    """The crossings between samples i and i + 1: those of the tracked modes (refined on the mode,
    kept where the number of growing modes changes across them, :func:`_changes_stability`), and,
    where that number differs between the samples and no such crossing goes its way, the boundary
    of the verdict itself (:func:`_verdict_boundary`). A pair that sits on the imaginary axis at
    the stable sample and grows at the other did not cross the axis: it collided with another
    pair (a Krein collision). Its real part is zero up to rounding on the stable side, so Brent's
    method stopped anywhere there (the heavy ball's boundary 2.9867 came out as the sample 3.25,
    or was dropped); it is located on the verdict too, between the points halfway to its
    neighbours where the verdict was found to change."""
    candidates = [c for c in (_mode_crossing(path, i, j, xtol) for j in columns) if c is not None]
    others = [c.value for c, _ in candidates]
    located = []
    for crossing, neutral in candidates:
        if not _changes_stability(path, i, crossing, others):
            continue
        if neutral:
            crossing = _verdict_boundary(path, i, *_halfway(path, i, crossing.value, others), xtol)
        _add(path, i, located, crossing, xtol)
    before, after = _sample_growing(path, i), _sample_growing(path, i + 1)
    direction = "destabilizing" if after > before else "stabilizing"
    if before != after and not any(c.direction == direction for c in located):
        _add(path, i, located, _verdict_boundary(path, i, path.values[i], path.values[i + 1], xtol,
                                                 path.linearizations[i], path.linearizations[i + 1]), xtol)
    return located


def _add(path, i, located, crossing, xtol) -> None:
    """Append ``crossing`` unless one already found is at its value (to 1e-6 of the bracket, or
    100 xtol): a boundary located on the verdict next to a mode's crossing refined on the mode."""
    near = max(1e-6 * (path.values[i + 1] - path.values[i]), 100 * xtol * max(1.0, abs(crossing.value)))
    if all(abs(c.value - crossing.value) > near for c in located):
        located.append(crossing)


def _mode_crossing(path, i, j, xtol):
    """(CriticalValue, neutral) where mode j's real part crosses its threshold between samples i and
    i + 1 (None where it does not, or its conjugate partner reports it); ``neutral``: a complex
    pair on the imaginary axis at the stable sample."""
    lam0, lam1 = path.eigenvalues[i, j], path.eigenvalues[i + 1, j]
    up0, up1 = lam0.real > path.threshold(i, j), lam1.real > path.threshold(i + 1, j)
    if up0 == up1:
        return None
    unstable = lam0 if up0 else lam1
    kind = "divergence" if abs(unstable.imag) <= path.threshold(i if up0 else i + 1, j) else "hopf"
    if kind == "hopf" and unstable.imag < 0:
        return None  # the conjugate partner reports it
    value = _refine(path, i, j, kind, xtol)
    lam = _eigenvalue_at(path, value, i, j)
    if kind == "divergence" and abs(lam.imag) > HOPF_SHARE * max(abs(lam0), abs(lam1)):
        # a real pair at the unstable end that turned complex before crossing (a coarse grid):
        # a Hopf crossing, refined on the pair's real part, reported once (a pair that meets
        # at zero, the upright disc's, crosses with |lambda| -> 0: a divergence)
        if lam.imag < 0:
            return None
        kind = "hopf"
        value = _refine(path, i, j, kind, xtol)
        lam = _eigenvalue_at(path, value, i, j)
    s = i + 1 if up0 else i  # the stable sample
    neutral = kind == "hopf" and abs(path.eigenvalues[s, j].real) <= path.threshold(s, j)
    return CriticalValue(value, kind, lam, "stabilizing" if up0 else "destabilizing", int(j)), neutral


def _changes_stability(path, i, crossing, others) -> bool:
    """True when the number of growing physical modes changes across the crossing (between samples
    i and i + 1) in its direction: up when destabilizing, down when stabilizing, counted halfway to
    the next crossing found in the bracket (or its end) on either side. Where the samples are
    coarse, tracking can pair a mode with another (the bicycle's real modes at 0 m/s, the next
    sample 2.5 m/s away, where they had merged into the weave): its "crossings" come in pairs that
    the spectrum does not make (1.214 and 1.425 m/s, where the weave stays unstable)."""
    left, right = _halfway(path, i, crossing.value, others)
    change = _growing(path, right) - _growing(path, left)
    return change < 0 if crossing.direction == "stabilizing" else change > 0


def _halfway(path, i, value, others) -> tuple:
    """The points halfway from ``value`` to the next of ``others`` (or the bracket's end) on each side."""
    left = max([path.values[i], *(v for v in others if v < value)])
    right = min([path.values[i + 1], *(v for v in others if v > value)])
    return (left + value) / 2, (right + value) / 2


def _linearization(path, value):
    """The linearization at ``value`` (between the samples), with the path's options."""
    model = path.model
    opts = {k: v for k, v in path.options.items() if k != "stability_tol"}
    with _at(path, value):
        y = path.state(value) if callable(path.state) else np.asarray(path.state, dtype=float)
        return linearize(model, y, params=_params(model, path.parameter, value, path.params), **opts)


@contextmanager
def _at(path, value):
    """An error of the state function or of the model at ``value`` (between the samples) as
    :func:`at_value` names it."""
    try:
        yield
    except Exception as exc:
        named = at_value(exc, path.parameter, value)
        if named is exc:
            raise
        raise named from exc


def _growing_modes(lin, tol) -> np.ndarray:
    """(physical eigenvalues, mask of those with a real part above their threshold)."""
    lam = lin.physical_eigenvalues
    return lam, lam.real > lin.thresholds(tol)


def _growing(path, value) -> int:
    """The number of physical eigenvalues with a real part above their threshold at ``value``."""
    return int(np.sum(_growing_modes(_linearization(path, value), path.options["stability_tol"])[1]))


def _sample_growing(path, i) -> int:
    """The number of growing physical modes at sample i (as :attr:`EigenvaluePath.stable` counts)."""
    return int(np.sum(_growing_modes(path.linearizations[i], path.options["stability_tol"])[1]))


def _verdict_boundary(path, i, lo, hi, xtol, lin_lo=None, lin_hi=None) -> CriticalValue:
    """Where the number of growing modes changes between ``lo`` and ``hi`` (in the bracket of
    samples i and i + 1; ``lin_lo``, ``lin_hi``: the linearizations there, if at hand): bisection
    on that number to ``xtol``, whatever the tracked modes do. The kind from the spectrum there
    (:func:`_boundary_kind`): "divergence", "krein" (a double pair splitting) or "hopf". A
    divergence or Hopf crossing is then polished as a root of det or of the new growing
    eigenvalue's real part (the verdict changes where the real part passes its threshold, up to
    threshold / slope away)."""
    tol = path.options["stability_tol"]
    lo, hi = float(lo), float(hi)
    lin_lo = _linearization(path, lo) if lin_lo is None else lin_lo
    lin_hi = _linearization(path, hi) if lin_hi is None else lin_hi
    before = int(np.sum(_growing_modes(lin_lo, tol)[1]))
    while hi - lo > xtol * max(1.0, abs(lo)):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        lin = _linearization(path, mid)
        if int(np.sum(_growing_modes(lin, tol)[1])) == before:
            lo, lin_lo = mid, lin
        else:
            hi, lin_hi = mid, lin
    destabilizing = _growing_modes(lin_hi, tol)[1].sum() > _growing_modes(lin_lo, tol)[1].sum()
    (lin_u, p_u), (lin_s, p_s) = ((lin_hi, hi), (lin_lo, lo)) if destabilizing else ((lin_lo, lo), (lin_hi, hi))
    (lam_u, up_u), (lam_s, up_s) = _growing_modes(lin_u, tol), _growing_modes(lin_s, tol)
    mu = _new_growing(lam_u, up_u, lam_s, up_s)
    kind = _boundary_kind(lin_u, lin_s, mu, tol)
    value = 0.5 * (lo + hi)
    eigenvalue = complex(lam_s[int(np.argmin(np.abs(lam_s - mu)))]) if mu is not None and lam_s.size else 0j
    if kind != "krein" and mu is not None:
        polished = _polish(path, i, kind, p_s, p_u, mu, xtol)
        if polished is not None:
            value = polished
            eigenvalue = _nearest(path, value, i, mu)
    k = i + 1 if destabilizing else i  # the unstable sample
    columns = np.flatnonzero(~path.structural)
    target = mu if mu is not None else 0j
    mode = int(columns[np.argmin(np.abs(path.eigenvalues[k, columns] - target))]) if columns.size else -1
    return CriticalValue(float(value), kind, eigenvalue, "destabilizing" if destabilizing else "stabilizing", mode)


def _boundary_kind(lin_u, lin_s, mu, tol) -> str:
    """What happens at a boundary of the verdict, from the linearizations just on its unstable and
    stable sides and the new growing eigenvalue ``mu``: "divergence" (mu real), "krein" (the two
    eigenvalues nearest mu on the stable side on the imaginary axis and about equally near, a
    double pair splitting: near the collision both are sqrt(distance) away, where one pair crossing
    has one eigenvalue next to mu and the others a gap away) or "hopf"."""
    lam_u, lam_s = lin_u.physical_eigenvalues, lin_s.physical_eigenvalues
    if mu is None or abs(mu.imag) <= lin_u.thresholds(tol)[int(np.argmin(np.abs(lam_u - mu)))]:
        return "divergence"
    order = np.argsort(np.abs(lam_s - mu))[:2]
    if order.size == 2:
        near = np.abs(lam_s[order] - mu)
        on_axis = np.all(np.abs(lam_s[order].real) <= lin_s.thresholds(tol)[order])
        if on_axis and near[1] <= KREIN_RATIO * near[0]:
            return "krein"
    return "hopf"


def _new_growing(lam_u, up_u, lam_s, up_s):
    """The eigenvalue growing on the unstable side of a boundary (upper half plane) that is farthest
    from those growing on its stable side (None if there is none)."""
    new = [mu for mu in lam_u[up_u] if mu.imag >= 0]
    if not new:
        return None
    grown = lam_s[up_s]
    return complex(max(new, key=lambda mu: np.abs(grown - mu).min() if grown.size else np.inf))


def _nearest(path, value, i, mu) -> complex:
    """The physical eigenvalue at ``value`` nearest ``mu``."""
    lam = np.linalg.eigvals(_physical_matrix(path, value, _generic(path, i)))
    return complex(lam[np.argmin(np.abs(lam - mu))]) if lam.size else 0j


def _polish(path, i, kind, p_s, p_u, mu, xtol):
    """The root of det of the physical block (divergence) or of the real part of the eigenvalue
    nearest ``mu`` (Hopf) next to the verdict's boundary [p_s, p_u]: from p_s toward the stable
    end of the bracket in growing steps until the sign changes, then Brent's method (None when it
    does not change within the bracket)."""
    from scipy.optimize import brentq

    g = _crossing_function(path, i, kind, lambda p: _nearest(path, p, i, mu))
    end = float(path.values[i] if p_s < p_u else path.values[i + 1])
    g_u = g(p_u)
    step, far = max(abs(p_u - p_s), xtol), p_s
    while True:
        g_far = g(far)
        if g_far == 0.0:
            return float(far)
        if np.sign(g_far) != np.sign(g_u):
            break
        if far == end:  # the stable sample itself may lie just past the root
            return _root_beyond(path, i, g, end, g_u, xtol, lambda p: _nearest(path, p, i, mu).real,
                                path.threshold(i if end == path.values[i] else i + 1))
        step *= 4.0
        far = max(end, p_s - step) if p_s < p_u else min(end, p_s + step)
    a, b = min(far, p_u), max(far, p_u)
    return float(brentq(g, a, b, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=200))


# --------------------------------------------------------------------------- helpers
def _params(model, parameter, value, params) -> dict:
    out = dict(params or {})
    if parameter in model.params:
        out[parameter] = value
    return out


def _state(y):
    """A state as linearize takes it: a pandas Series as it is (read by its labels there, which NumPy
    would drop), anything else as an array."""
    return y if pandas_like(y) and getattr(y, "ndim", 0) == 1 else np.asarray(y, dtype=float)


def _states(model, state, values) -> list:
    """The states at ``values`` from one state or an array of them (a callable is called in the loop)."""
    arr = _state(state)
    if arr.ndim == 1:
        return [arr] * len(values)
    n = model.system.n
    widths = {model.n_states, 2 * n} if in_quasi_velocities(model) else {model.n_states}
    if arr.ndim != 2 or arr.shape[0] != len(values) or arr.shape[1] not in widths:
        alternative = f" ([q, q'] of width {2 * n} also, mapped to {model.state_names[n:]})" if len(widths) > 1 else ""
        raise ValueError(f"state must be a callable, one state ({model.n_states},) or one per value "
                         f"({len(values)}, {model.n_states}){alternative}; got shape {arr.shape}")
    return list(arr)


def _track(spectra: list, zero_counts: list) -> np.ndarray:
    """Columns following each mode: assign each spectrum to the extrapolated previous one. The
    first zero_counts[i] entries of spectra[i] are zero modes: a zero mode goes to a column that
    held one at the previous value, and a physical eigenvalue to one that held a physical one, as
    far as the counts allow (on a coarse grid the bicycle's capsize eigenvalue, 0.044 at 6.33 m/s
    with the next sample 3.3 m/s away, was matched with a structural zero, and critical_values
    reported two crossings that do not exist)."""
    from scipy.optimize import linear_sum_assignment  # lazily: importing nonholo does not import SciPy

    out = np.empty((len(spectra), len(spectra[0])), dtype=complex)
    out[0] = spectra[0]
    zero = np.arange(len(spectra[0])) < zero_counts[0]
    for i in range(1, len(spectra)):
        predicted = out[i - 1] if i == 1 else 2 * out[i - 1] - out[i - 2]
        cost = np.abs(predicted[:, None] - spectra[i][None, :])
        now = np.arange(len(spectra[i])) < zero_counts[i]
        cost = cost + (zero[:, None] != now[None, :]) * (1.0 + 2.0 * cost.max())  # unmixed where possible
        rows, cols = linear_sum_assignment(cost)
        out[i, rows] = spectra[i][cols]
        zero[rows] = now[cols]
    return out


def _physical_matrix(path, value, i):
    """The physical quotient matrix at ``value``, with the zero structure of sample i."""
    lin = path.linearizations[i]
    model = path.model
    opts = {k: v for k, v in path.options.items() if k in ("independent", "cyclic", "steady_tol")}
    with _at(path, value):
        y = path.state(value) if callable(path.state) else np.asarray(path.state, dtype=float)
        A, _, _, _, cyc_local, _ = state_matrix(model, y, lin.t, _params(model, path.parameter, value, path.params),
                                                **opts)
    return deflate(A, cyc_local, counts=list(lin.zero_levels)).physical


def _eigenvalue_at(path, value, i, j) -> complex:
    """The tracked eigenvalue j at ``value`` (between samples i and i + 1)."""
    a, b = path.values[i], path.values[i + 1]
    s = (value - a) / (b - a)
    guess = (1 - s) * path.eigenvalues[i, j] + s * path.eigenvalues[i + 1, j]
    lam = np.linalg.eigvals(_physical_matrix(path, value, _generic(path, i)))
    return complex(lam[np.argmin(np.abs(lam - guess))]) if lam.size else 0j


def _generic(path, i) -> int:
    """The sample of the bracket whose zero structure is the generic one (fewer zero modes)."""
    a, b = path.linearizations[i], path.linearizations[i + 1]
    return i if a.n_zero <= b.n_zero else i + 1


def _crossing_function(path, i, kind, eigenvalue):
    """The function of the parameter whose root is a crossing between samples i and i + 1: det of
    the physical block, smooth in the parameter (a divergence), or the real part of
    ``eigenvalue(p)``, the crossing pair's (a Hopf crossing)."""
    if kind == "divergence":
        gen = _generic(path, i)
        return lambda p: float(np.real(np.linalg.det(_physical_matrix(path, p, gen))))
    return lambda p: eigenvalue(p).real


def _root_beyond(path, i, g, stable_end, g_unstable, xtol, real_part, threshold):
    """The root of ``g`` just beyond the stable sample of the bracket (i, i + 1), toward its other
    neighbour, where the mode's real part there is on the unstable side of zero but below its
    threshold (a sample just past the crossing counts as stable): from the sample outward in steps
    growing fourfold, up to the neighbouring sample, until ``g`` has changed sign where the mode's
    ``real_part`` is below -``threshold`` (not rounding of a pair on the imaginary axis), then
    Brent's method; None where there is no such point (a tangency). Beyond an end of the path, up to a
    bracket's width. Refined on the threshold instead, such a crossing came out 1e-5 (relative) past its
    root, where the mode's real part reaches the threshold."""
    from scipy.optimize import brentq

    k = int(np.flatnonzero(path.values == stable_end)[0])
    neighbour = k - 1 if k == i else k + 1
    # at the end of the path, as far beyond it as the bracket is wide (the state or the model may not
    # hold there: then no root beyond); a grid that starts on a slow Hopf crossing gave where the real
    # part reaches the threshold, 0.3754 for 0
    inside = 0 <= neighbour < len(path.values)
    limit = float(path.values[neighbour]) if inside else float(2 * stable_end - path.values[2 * i + 1 - k])
    step = max(xtol * max(1.0, abs(stable_end)), 1e-9 * abs(limit - stable_end))
    near = float(stable_end)
    while True:
        far = stable_end + np.sign(limit - stable_end) * step
        far = limit if abs(far - stable_end) >= abs(limit - stable_end) else float(far)
        try:
            g_far = g(far)
            below = real_part(far) < -threshold
        except Exception:
            if inside:
                raise
            return None
        if np.sign(g_far) != np.sign(g_unstable) and below:
            lo, hi = min(far, near), max(far, near)
            return float(brentq(g, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=200))
        if far == limit:
            return None
        if np.sign(g_far) == np.sign(g_unstable):
            near = far
        step *= 4.0


def _refine(path, i, j, kind, xtol) -> float:
    from scipy.optimize import brentq

    a, b = path.values[i], path.values[i + 1]
    g = _crossing_function(path, i, kind, lambda p: _eigenvalue_at(path, p, i, j))
    ga, gb = g(a), g(b)
    if ga == 0.0:
        return float(a)
    if gb == 0.0:
        return float(b)
    if np.sign(ga) != np.sign(gb):
        return float(brentq(g, a, b, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=200))
    up_a = path.eigenvalues[i, j].real > path.threshold(i, j)
    stable = b if up_a else a
    beyond = _root_beyond(path, i, g, stable, gb if stable == a else ga, xtol,
                          lambda p: _eigenvalue_at(path, p, i, j).real, path.threshold(i + int(up_a), j))
    if beyond is not None:
        return beyond
    # a tangency of the refinement function: bisect on the stability of the mode
    lo, hi = a, b
    while hi - lo > xtol * max(1.0, abs(lo)):
        mid = 0.5 * (lo + hi)
        up = _eigenvalue_at(path, mid, i, j).real > path.threshold(i, j)
        lo, hi = (mid, hi) if up == up_a else (lo, mid)
    return float(0.5 * (lo + hi))
