r"""The constraint set of a model's state space, its tangent space, and the cyclic coordinates.

A model's state y holds q (n coordinates), a velocity (v, or u for the reduced model) and, for
the vakonomic model, the multipliers lambda. The constrained models keep y on

    M = { A(q) v = b(q, t),  h(q) = 0 },

the velocity constraints and the holonomic constraints h the system carries (their time
derivatives are among the rows of A). A system's unit-norm groups (a body's quaternion q_g, read
as q_g / |q_g|) add |q_g|^2 = 1 and, with velocity states, the radial rate q_g . v_g = 0 (a
conserved momentum of every model, zero wherever |q_g| stays 1), for every model. The friction
model has no other constraint. The tangent space at y is the kernel of

    DPhi = [[ d(A v - b)/dq, A, 0 ],
            [ dh/dq,          0, 0 ]],

and a basis T (N x m) with the identity on m *independent* state components follows by solving
DPhi for the others. All derivatives come from the system's expression tape by forward-mode AD.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ... import _core
from ..states import in_quasi_velocities
from .symmetry import leading, symmetry_directions, tied_coordinates

__all__ = ["ConstraintSet", "constraint_set", "cyclic_coordinates", "cyclic_indices", "model_cyclic_indices",
           "free_symbols", "system_derivatives", "tied", "cyclic_directions", "KINDS"]

#: Model kinds whose state space has the layout [q, velocity(, lambda)] handled here.
KINDS = ("nonholonomic", "friction", "reduced", "vakonomic", "hamel")

_TAPES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_SYMBOLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_CYCLIC: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_TIED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class SystemDerivatives:
    """Values and first derivatives of the system's data at (t, q, v): AD of the system's tape."""

    G: np.ndarray        # (n, n)
    dG: np.ndarray       # (n, n, n): dG[i, j, l] = dG_ij/dq_l
    dV: np.ndarray       # (n,)
    A: np.ndarray        # (k, n)
    dA: np.ndarray       # (k, n, n): dA[i, j, l] = dA_ij/dq_l
    b: np.ndarray        # (k,)
    db: np.ndarray       # (k, n)
    F: np.ndarray        # (n,)
    dF_dp: np.ndarray    # (n, n_params)


def system_derivatives(system, t: float, q, v, params) -> SystemDerivatives:
    """G, V, A, b, F and their derivatives at (t, q, v) with parameter vector ``params``."""
    tape = _TAPES.get(system)
    if tape is None:
        tape = _TAPES[system] = _core.Tape(system._graph.to_core())
    n, k = system.n, system.k
    x = np.r_[q, v, t, np.asarray(params[: len(system.parameters)], dtype=float)]
    out, jac = tape(x), tape.jacobian(x)
    oG, oV, oA = 0, n * n, n * n + 1
    ob, oF = oA + k * n, oA + k * n + k + k * k
    dq, dp = slice(0, n), slice(2 * n + 1, None)
    return SystemDerivatives(
        G=out[oG:oV].reshape(n, n), dG=jac[oG:oV, dq].reshape(n, n, n), dV=jac[oV, dq],
        A=out[oA:ob].reshape(k, n), dA=jac[oA:ob, dq].reshape(k, n, n),
        b=out[ob:ob + k], db=jac[ob:ob + k, dq], F=out[oF:oF + n], dF_dp=jac[oF:oF + n, dp].reshape(n, -1),
    )


def free_symbols(system) -> dict:
    """{part: set of symbols} for the parts "force" and "other" (G, dV/dq, A, b, mu, h),
    "constraints" (A, b), "untied" (all but h); "loads": those of the gradient of the potential a
    KanesMethod's loads gave (``system.load_potential``: gravity, a push), and "physical": those of
    "other" without it (a load's parameter is an input as a force's is); cached per system (SymPy's
    free_symbols is slow on large systems)."""
    found = _SYMBOLS.get(system)
    if found is None:
        def syms(exprs):
            return set().union(*(sp.sympify(e).free_symbols for e in exprs))

        def gradient(V):  # V enters as dV/dq alone
            return [sp.diff(V, q) for q in system.coordinates]
        constraints = syms([*system.constraints, *system.affine])
        loads = getattr(system, "load_potential", None)
        held = syms([*system.metric, *system.friction_coefficients]) | constraints
        rest = held | syms(_holonomic_exprs(system))
        force, potential = syms(system.force), syms(gradient(system.potential))
        found = _SYMBOLS[system] = {
            "force": force, "constraints": constraints, "other": rest | potential, "untied": held | force | potential,
            "loads": syms(gradient(loads)) if loads is not None else set(),
            "physical": rest | syms(gradient(system.potential - loads if loads is not None else system.potential))}
    return found


def cyclic_coordinates(system) -> list:
    """Indices of the coordinates on which none of G, dV/dq, A, b, mu, F (nor a holonomic
    constraint) depends.

    Shifting such a coordinate maps motions to motions (a symmetry), so along a steady motion it
    may drift at a constant rate while the vector field stays the same. A coordinate absent from
    the expressions is cyclic (so is one that V holds linearly: a slope's x, whose force is
    constant); one inside a function that is not smooth (Abs, sign, Piecewise, Max, ...: a wall at
    y = 2) is not; one that appears otherwise (unsimplified expressions, e.g. sin(a) cos(a + b)
    terms that cancel) is cyclic when the AD derivatives of all the data with respect to it, and
    the differences of dV/dq, vanish at random states and parameters (:func:`_numerically_independent`).
    Coordinates that only the holonomic constraints contain, affinely (a trailer's axle x1 = x -
    d cos(theta1) beside the car's x), are cyclic together: the leaders are listed, the others follow
    them (:mod:`.symmetry`).
    """
    found = _CYCLIC.get(system)
    if found is None:
        sets = free_symbols(system)
        free = sets["force"] | sets["other"]
        holo = set().union(*(sp.sympify(h).free_symbols for h in _holonomic_exprs(system)))
        kinked = _in_kinks(system)
        found = [i for i, s in enumerate(system.coordinates)
                 if s not in free or (s not in holo and s not in kinked and _numerically_independent(system, i))]
        joined = tied(system)
        found = _CYCLIC[system] = leading(system, joined, sorted(set(found) | set(joined)))
    return list(found)


def tied(system) -> list:
    """Indices of the coordinates the holonomic constraints alone contain, affinely with constant
    coefficients (:func:`.symmetry.tied_coordinates`), cached per system."""
    found = _TIED.get(system)
    if found is None:
        found = _TIED[system] = tied_coordinates(system, free_symbols(system)["untied"], _in_kinks(system))
    return list(found)


def cyclic_directions(model, cyclic: list, y, params) -> tuple:
    """(followers, S): the tied coordinates that follow the cyclic ones and their symmetry
    directions, S (N x len(cyclic)) in the model's state (zero beyond the coordinates)."""
    system = model.system
    p = np.asarray(model.param_vector(params), dtype=float)[: len(system.parameters)]
    followers, S = symmetry_directions(system, tied(system), list(cyclic), np.asarray(y, float)[: system.n], p)
    return followers, np.vstack([S, np.zeros((len(y) - system.n, len(cyclic)))])


_KINKS = (sp.Abs, sp.sign, sp.Piecewise, sp.Heaviside, sp.Max, sp.Min, sp.floor, sp.ceiling, sp.Mod)


def _in_kinks(system) -> set:
    """The symbols inside a function that is not smooth, in any of the system's data: a random
    sample of states may fall on one side of its kink only."""
    exprs = [*system.metric, system.potential, *system.force, *system.constraints, *system.affine,
             *system.friction_coefficients, *_holonomic_exprs(system)]
    found = set()
    for e in exprs:
        for atom in sp.sympify(e).atoms(*_KINKS):
            found |= atom.free_symbols
    return found


def _numerically_independent(system, i: int, points: int = 3) -> bool:
    """True when the tape's outputs but V have zero derivative in coordinate i, and dV/dq zero
    differences along it, at random states: half of them in (0.2, 1.3), half in (-3, 3), with the
    system's parameter values and with random ones (a spring built with k = 0 that a call sets)."""
    tape = _TAPES.get(system)
    if tape is None:
        tape = _TAPES[system] = _core.Tape(system._graph.to_core())
    rng = np.random.default_rng(20261124)
    n, p = system.n, np.asarray(system.param_vector(), dtype=float)
    oV = n * n  # the row of V: it enters the equations as dV/dq only
    valid = 0
    for sample in range(8 * points):
        low, high = (0.2, 1.3) if sample % 2 == 0 else (-3.0, 3.0)
        params = p if sample % 4 < 2 else rng.uniform(0.2, 1.3, p.size)
        x = np.r_[rng.uniform(low, high, 2 * n), 0.5, params]
        out, jac = tape(x), tape.jacobian(x)
        if not (np.all(np.isfinite(out)) and np.all(np.isfinite(jac))):
            continue
        others = np.delete(jac, oV, axis=0)
        if np.abs(others[:, i]).max(initial=0.0) > 1e-11 * (1.0 + np.abs(jac).max()):
            return False
        h = 1e-5 * (1.0 + abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        dV_up, dV_down = tape.jacobian(up)[oV, :n], tape.jacobian(down)[oV, :n]
        if np.abs(dV_up - dV_down).max() > 1e-9 * (1.0 + np.abs(jac[oV, :n]).max()):
            return False
        valid += 1
        if valid == 2 * points:
            return True
    return False


_MODEL_CYCLIC: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def model_cyclic_indices(model, cyclic=None) -> list:
    """Indices of the cyclic coordinates of ``model``: the given names (checked), else those of the
    system (:func:`cyclic_coordinates`), and for a model in quasi-velocities (Kane's speeds, a
    reduced model in a frame) only those of them on which no rate outside the set depends (the
    model's Jacobian at random states): its frame X(q) may bring in a coordinate the system's data
    do not contain (wheel-frame speeds of a disc depend on its spin angle: taken as cyclic, the
    upright disc at spin 6 came out unstable, +-2.91, for +-8.41i). A frame may also leave out one
    they contain (the yaw of a disc in lean-frame speeds moves only x and y): name it in cyclic=
    for its steady turns."""
    if cyclic is not None or not in_quasi_velocities(model):
        return cyclic_indices(model.system, cyclic)
    found = _MODEL_CYCLIC.get(model)
    if found is None:
        found = _MODEL_CYCLIC[model] = sorted(set(cyclic_coordinates(model.system)) & set(_rate_independent(model)))
    return list(found)


def _rate_independent(model, points: int = 3) -> list:
    system = model.system
    N = model.n_states
    holo = set().union(*(sp.sympify(h).free_symbols for h in _holonomic_exprs(system)))
    candidates = {i for i, s in enumerate(system.coordinates) if s not in holo} | set(cyclic_coordinates(system))
    rng = np.random.default_rng(20261205)
    jacobians = []
    for _ in range(8 * points):
        y = rng.uniform(0.2, 1.3, N)
        try:
            with np.errstate(all="ignore"):
                J = np.asarray(model.jacobian(0.5, y), dtype=float)
        except (ValueError, ArithmeticError):  # a frame singular there, a state outside the domain
            continue
        if np.all(np.isfinite(J)):
            jacobians.append(J)
        if len(jacobians) == points:
            break
    if len(jacobians) < points:
        return sorted(i for i in cyclic_coordinates(system) if i in candidates)
    changed = True
    while changed:  # drop a coordinate that a rate outside the set depends on, until none does
        outside = [i for i in range(N) if i not in candidates]
        changed = False
        for c in sorted(candidates):
            if any(np.abs(J[outside, c]).max(initial=0.0) > 1e-11 * (1.0 + np.abs(J).max()) for J in jacobians):
                candidates.discard(c)
                changed = True
                break
    found = sorted(candidates)
    # their own rates may depend on them (a translation's on a heading) only through a nilpotent
    # block: the linearization takes its eigenvalues for zeros
    if any(np.abs(np.linalg.eigvals(J[np.ix_(found, found)])).max(initial=0.0) > 1e-8 * (1.0 + np.abs(J).max())
           for J in jacobians):
        found = sorted(set(found) & set(cyclic_coordinates(system)))
    return found


def cyclic_indices(system, cyclic=None) -> list:
    """Indices of the cyclic coordinates: the given names (checked), or all found."""
    if cyclic is None:
        return cyclic_coordinates(system)
    if isinstance(cyclic, str):
        raise TypeError(f"cyclic must be a list of coordinate names, got {cyclic!r}")
    unknown = [c for c in cyclic if c not in system.coordinate_names]
    if unknown:
        raise ValueError(f"cyclic contains {unknown}, which are not coordinates; the coordinates are "
                         f"{system.coordinate_names}")
    return leading(system, tied(system), [system.coordinate_names.index(c) for c in cyclic])


def _holonomic_exprs(system) -> list:
    h = getattr(system, "holonomic", None)
    return [] if h is None else list(h)


@dataclass(frozen=True)
class ConstraintSet:
    """The constraint set M of a model at one state: residual, Jacobian DPhi and names."""

    residual: np.ndarray    # Phi(y), (r,)
    jacobian: np.ndarray    # DPhi(y), (r, N)
    scale: float            # size of the terms of Phi, for relative tolerances
    holonomic_rows: int     # how many of the r rows are h(q) (the last ones)


def constraint_set(model, t: float, y: np.ndarray, params) -> ConstraintSet:
    """Phi(y) and DPhi(y) for ``model`` (rows: A v - b and the unit-norm groups' radial rates
    q_g . v_g, then h(q) and |q_g|^2 - 1); no rows of A for the friction model, nor velocity rows
    for a model in quasi-velocities (the Hamel model, a reduced model in a frame: its
    quasi-velocities satisfy the velocity constraints by construction)."""
    system = model.system
    n, k, N = system.n, system.k, model.n_states
    if model.kind not in KINDS:
        raise ValueError(f"model must be one of the kinds {KINDS}, got a {model.kind!r} model")
    p = model.param_vector(params)
    q, v = y[:n], y[n:2 * n]
    rows, jac, scale = [], [], [1.0]
    if model.kind != "friction" and not in_quasi_velocities(model) and k:
        d = system_derivatives(system, t, q, v, p)
        J = np.zeros((k, N))
        J[:, :n] = np.einsum("ijl,j->il", d.dA, v) - d.db
        J[:, n:2 * n] = d.A
        rows.append(d.A @ v - d.b)
        jac.append(J)
        scale.append(float(np.abs(d.A).max() * np.abs(v).max() + np.abs(d.b).max()))
    # the friction and reduced models realize the constraints only approximately: h(q) drifts
    holo = system.holonomic_functions() if model.kind in ("nonholonomic", "vakonomic", "hamel") else None
    n_h = 0
    if holo is not None:
        h_fn, dh_fn = holo
        sysp = p[: len(system.parameters)]
        h = np.asarray(h_fn(*q, *sysp), dtype=float).reshape(-1)
        dh = np.asarray(dh_fn(*q, *sysp), dtype=float).reshape(h.size, n)
        rows_A = system.constraint_matrix(q, t, dict(zip(system.parameter_names, sysp)))[0] \
            if model.kind == "hamel" else (jac[0][:, n:2 * n] if jac else np.zeros((0, n)))
        _check_holonomic_rows(system, rows_A, dh)
        J = np.zeros((h.size, N))
        J[:, :n] = dh
        rows.append(h)
        jac.append(J)
        n_h = h.size
    # unit-norm groups (a body's quaternion): |q_g|^2 = 1, and with velocity states the radial
    # rate q_g . v_g = 0 (every model conserves it; |q_g| stays 1 only where it vanishes). The
    # system's expressions are invariant under q_g -> s q_g, so without these rows Newton slid
    # along the scaling to q_g = 0 and the linearization kept the scaling as a zero mode.
    groups = [list(g) for g in (system.unit_norm or ())]
    if groups:
        if not in_quasi_velocities(model):
            J = np.zeros((len(groups), N))
            for row, g in enumerate(groups):
                J[row, g], J[row, [n + i for i in g]] = v[g], q[g]
            rows.insert(len(rows) - (1 if n_h else 0), np.array([q[g] @ v[g] for g in groups]))
            jac.insert(len(jac) - (1 if n_h else 0), J)
        J = np.zeros((len(groups), N))
        for row, g in enumerate(groups):
            J[row, g] = 2.0 * q[g]
        rows.append(np.array([q[g] @ q[g] - 1.0 for g in groups]))
        jac.append(J)
        n_h += len(groups)
    if not rows:
        return ConstraintSet(np.zeros(0), np.zeros((0, N)), 1.0, 0)
    return ConstraintSet(np.concatenate(rows), np.vstack(jac), max(scale), n_h)


def _check_holonomic_rows(system, A, dh) -> None:
    """The derivative rows dh/dq of the holonomic constraints must lie in the row space of A."""
    tol = 1e-9 * max(1.0, np.abs(dh).max(), np.abs(A).max(initial=0.0))
    if A.shape[0] == 0 or np.linalg.matrix_rank(np.vstack([A, dh]), tol) > np.linalg.matrix_rank(A, tol):
        from ...errors import ModelError

        raise ModelError(f"the holonomic constraints of {system.name!r} have time derivatives (dh/dq) q' that are not "
                         "among its constraint rows A(q) q' = b; add them to the constraints")


def tangent_basis(cs: ConstraintSet, names: list, independent=None, cyclic=(), n: int = 0, followers=()):
    """(T, independent indices) with T (N x m) spanning ker DPhi and T[independent] = Id.

    Automatic choice: the dependent components are picked by QR with column pivoting, the
    velocities from the rows of A (its best-conditioned columns), coordinates from dh/dq, the
    ``followers`` of tied cyclic coordinates first (so that T's column of a cyclic coordinate is
    its symmetry direction); cyclic coordinates are never dependent. ``independent`` (state
    names) overrides it.
    """
    J = cs.jacobian
    N = J.shape[1]
    r = J.shape[0]
    if independent is not None:
        dep = _user_dependent(independent, names, N, r)
    elif r == 0:
        dep = []
    else:
        dep = _pivot_dependent(J, cs.holonomic_rows, n, cyclic, names, followers)
    ind = [i for i in range(N) if i not in set(dep)]
    T = np.zeros((N, len(ind)))
    T[ind, np.arange(len(ind))] = 1.0
    if dep:
        Jd = J[:, dep]
        cond = np.linalg.cond(Jd)
        if not np.isfinite(cond) or cond > 1e12:
            raise ValueError(f"the dependent state components {[names[i] for i in dep]} cannot be solved from the "
                             f"constraints here (their constraint Jacobian has condition number {cond:.3g}); "
                             "choose other independent coordinates")
        T[dep, :] = -np.linalg.solve(Jd, J[:, ind])
    return T, ind


def _pivot_dependent(J, n_h, n, cyclic, names=None, followers=()) -> list:
    """Dependent columns: velocities from the velocity-constraint rows, coordinates from h (the
    followers first, then pivots of the rest off their span)."""
    r = J.shape[0]
    k = r - n_h
    dep = []
    if n_h:
        block = J[k:, :n].copy()
        block[:, list(cyclic)] = 0.0
        if cyclic and np.linalg.matrix_rank(J[k:, :n]) == n_h and np.linalg.matrix_rank(block) < n_h:
            named = [names[c] for c in cyclic] if names is not None else list(cyclic)
            raise ValueError(f"the holonomic constraints tie the cyclic coordinates {named} to the "
                             "others so that they cannot all be independent: name fewer of them in cyclic= (a "
                             "coordinate a constraint holds other than affinely with a constant coefficient is no "
                             "symmetry; a trailer's x1 = x - d cos(theta1) and the car's x move together)")
        followers = list(followers)
        if followers:
            Q = np.linalg.qr(block[:, followers])[0]
            block = block - Q @ (Q.T @ block)
            block[:, followers] = 0.0
        dep += followers + (_pivots(block, n_h - len(followers)) if n_h > len(followers) else [])
    if k:
        dep += [n + j for j in _pivots(J[:k, n:2 * n], k)]
    return dep


def _pivots(block, count: int) -> list:
    import scipy.linalg as sla  # lazily: nonholo does not import SciPy until it is needed

    _, R, piv = sla.qr(block, mode="economic", pivoting=True)
    if count and abs(R[count - 1, count - 1]) <= 1e-12 * max(1.0, abs(R[0, 0])):
        raise ValueError("the constraint rows are dependent at this state (rank deficient); nonholo needs "
                         "independent constraints")
    return sorted(int(i) for i in piv[:count])


def _user_dependent(independent, names, N, r) -> list:
    if isinstance(independent, str) or not hasattr(independent, "__iter__"):
        raise TypeError(f"independent must be a list of state names, got {independent!r}")
    independent = list(independent)
    unknown = [s for s in independent if s not in names]
    if unknown:
        raise ValueError(f"independent contains {unknown}, which are not state names; the states are {names}")
    if len(set(independent)) != len(independent):
        raise ValueError(f"independent contains repeated names: {independent}")
    if len(independent) != N - r:
        raise ValueError(f"independent must name {N - r} state components (the dimension of the constraint set's "
                         f"tangent space), got {len(independent)}")
    chosen = {names.index(s) for s in independent}
    return [i for i in range(N) if i not in chosen]
