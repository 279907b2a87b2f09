r"""Linearization of a model about a steady motion, on the tangent space of its constraint set.

What is linearized
------------------
A *steady motion* of a model y' = f(t, y) is a motion along which every velocity (and
multiplier) is constant and only cyclic coordinates move: coordinates q_c that none of G, V, A,
b, mu, F contains, so that they drift linearly, q_c(t) = q_c(0) + t v_c, while the vector field
seen from the motion does not change (Routh's steady motions; an equilibrium is the case
v_c = 0). Perturbations of such a motion y*(t) obey the variational equation
delta y' = Df(y*(t)) delta y, and Df(y*(t)) = Df(y*(0)) because f does not depend on q_c, so

    delta y(t) = exp(t Df(y*)) delta y(0)

exactly, with constant coefficients, although y* itself moves. Perturbations stay on the
tangent space of the constraint set M = {A(q) v = b(q, t), h(q) = 0} (the whole space for the
friction model), which is the same at every point of the motion: we write delta y = T xi with a
basis T (N x m) that is the identity on m independent state components and solve the
constraints for the others, and get xi' = A xi with A = (Df T)[independent rows]. A change of
the independent coordinates is a similarity of A, so the spectrum does not depend on it.

The drift of the cyclic coordinates shows up as zero eigenvalues with the unit vectors e_c as
eigenvectors; the matrix left after removing them is the linearization of the reduced
(relative-equilibrium) dynamics, the quotient by the cyclic coordinates. Further zero
eigenvalues come from neighbouring steady motions (another speed, since the energy is
conserved; another heading, ...); :mod:`.zero_modes` separates all of them from the physical
modes.

A steady motion that moves a non-cyclic coordinate (a disc circling in Cartesian contact
coordinates: its heading turns, and the equations contain the heading) has a periodic Df and is
rejected: write the system in coordinates in which that motion only moves cyclic ones (e.g.
polar contact coordinates about the circle's centre).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .manifold import (constraint_set, cyclic_coordinates, cyclic_directions, model_cyclic_indices, free_symbols,
                       system_derivatives, tangent_basis)
from .zero_modes import ROUNDING, ZeroMode, deflate
from ... import options as check
from ..states import check_state, in_quasi_velocities, model_label, model_state, parameter_mapping

__all__ = ["Linearization", "linearize", "check_steady", "tangent_space"]


@dataclass(frozen=True)
class Linearization:
    r"""The linearization xi' = A xi + B w of a model about a steady motion.

    Attributes
    ----------
    A : ndarray (m, m)
        State matrix in the independent coordinates ``coordinates``.
    B : ndarray (m, p) or None
        Input matrix for the parameters ``inputs`` (None when there are none).
    basis : ndarray (N, m)
        T: columns spanning the tangent space of the constraint set; delta y = T xi, and
        T[independent] is the identity.
    coordinates : list of str
        Names of the m independent state components.
    eigenvalues : ndarray (m,), complex
        Zero modes first (exact zeros, in the order of ``zero_modes``), then the physical
        eigenvalues by decreasing real part.
    eigenvectors : ndarray (N, m), complex
        Columns in the full state (unit norm); for the zero modes the directions of
        ``zero_modes`` (for a ``"family"`` or ``"chain"`` mode a generalized eigenvector).
    zero_modes : list of ZeroMode
        The zero eigenvalues grouped by cause, each with multiplicity and reason.
    """

    A: np.ndarray
    B: np.ndarray | None
    basis: np.ndarray
    coordinates: list
    eigenvalues: np.ndarray
    eigenvectors: np.ndarray
    zero_modes: list
    inputs: list
    state: np.ndarray
    t: float
    params: dict
    model: object = field(repr=False)
    physical_matrix: np.ndarray = field(repr=False, default=None)
    zero_levels: tuple = field(repr=False, default=())

    @property
    def n_zero(self) -> int:
        """Number of zero eigenvalues explained by symmetry, conservation or families."""
        return sum(z.multiplicity for z in self.zero_modes)

    @property
    def physical_eigenvalues(self) -> np.ndarray:
        """The eigenvalues that are not structural zeros."""
        return self.eigenvalues[self.n_zero:]

    @property
    def max_real(self) -> float:
        """Largest real part of the physical eigenvalues (-inf if there are none)."""
        lam = self.physical_eigenvalues
        return float(lam.real.max()) if lam.size else -np.inf

    def is_stable(self, tol: float = 1e-9) -> bool:
        """Spectral stability: every physical eigenvalue's real part is at most its threshold
        (:meth:`thresholds`; ``tol`` non-negative and finite)."""
        tol = check.non_negative(tol, "tol")
        lam = self.physical_eigenvalues
        return bool(np.all(lam.real <= self.thresholds(tol)))

    def thresholds(self, tol: float = 1e-9) -> np.ndarray:
        """The real part above which each physical eigenvalue counts as growing:
        tol * max(1, |A|), or less where a relative error tol in each entry of the physical block
        moves the eigenvalue less (:func:`stability_thresholds`): the slow eigenvalues of a stiff
        friction model, which the fast mode's -1/eps entries of A left below tol * |A| (the sleigh
        backing up at 0.005: +9.6e-4 counted stable at eps 1e-6). Kept per ``tol``: an eigenvalue
        path asks for them at every bisection step of a crossing."""
        cache = self.__dict__.setdefault("_thresholds", {})
        if tol not in cache:
            cache[tol] = stability_thresholds(self.physical_matrix if self.physical_matrix is not None else self.A,
                                              self.physical_eigenvalues, tol, np.abs(self.A).max(initial=0.0))
        return cache[tol]

    @property
    def classification(self) -> list:
        """[(kind, multiplicity, reason)] for the zero modes, then ("physical", count, ...)."""
        rows = [(z.kind, z.multiplicity, z.reason) for z in self.zero_modes]
        n_phys = self.physical_eigenvalues.size
        if n_phys:
            rows.append(("physical", n_phys, "the dynamics transverse to the symmetries and families"))
        return rows

    def __repr__(self) -> str:
        zeros = "; ".join(f"{z.kind} x{z.multiplicity}" + (f" ({z.coordinate})" if z.coordinate else "")
                          for z in self.zero_modes) or "none"
        lam = ", ".join(f"{x:.6g}" for x in self.physical_eigenvalues)
        return (f"<Linearization of the {model_label(self.model)} model of {self.model.system.name!r}: "
                f"m={self.A.shape[0]} independent ({', '.join(self.coordinates)}); zero modes: {zeros}; physical "
                f"eigenvalues: [{lam}]>")


def analysed_model(model, argument: str = "model"):
    """``model`` when it is one of a system's models; TypeError naming ``argument`` otherwise (a
    System given where its model is asked for raised "'System' object has no attribute 'system'")."""
    if not hasattr(model, "system") or not hasattr(model, "state_names"):
        what = "a System" if hasattr(model, "nonholonomic") else type(model).__name__
        one = "a System or a model of one" if argument == "system" else "a model of a system"
        raise TypeError(f"{argument} must be {one} (system.nonholonomic(), .friction(eps), .reduced(eps, order), "
                        f".vakonomic()), got {what}")
    if not hasattr(model, "param_vector"):  # a hybrid model: no one right-hand side to linearize
        raise TypeError(f"{argument} must be a smooth model of a system, got a {type(model).__name__} (hybrid: it "
                        "switches between rolling and sliding); analyse a mode's model, system.nonholonomic() for "
                        "rolling, or system.friction(law=..., normal=...) for sliding")
    return model


def linearize(model, y, t: float = 0.0, params=None, independent=None, inputs=None, cyclic=None,
              zero_tol: float = 1e-12, steady_tol: float = 1e-8) -> Linearization:
    r"""Linearize ``model`` about the steady motion (or equilibrium) through the state ``y``.

    Parameters
    ----------
    model : Model
        ``system.nonholonomic()``, ``.friction(eps)``, ``.reduced(eps, order)`` or ``.vakonomic()``.
    y : array_like (N,) or (2n,)
        A state on a steady motion (see :func:`~nonholo.steady_motions`): velocities and
        multipliers constant, only cyclic coordinates moving. A model in quasi-velocities (Kane's
        speeds, a reduced model in a frame) also takes [q, q'] (2n,), mapped as
        :func:`~nonholo.simulate` maps y0; a ``y`` of the model's own length N is always the
        model's state (with no dependent speeds N equals 2n, and ``y`` is [q, u]).
    t : float
        The time of the state (the model must not depend on time explicitly: a steady motion
        needs an autonomous model).
    params : mapping, optional
        Parameter values overriding the model's.
    independent : list of str, optional
        Names of the independent state components (m of them); default: chosen from the
        best-conditioned columns of the constraint Jacobian, velocities solved from A(q) v = b,
        coordinates from h(q) = 0, cyclic coordinates always independent.
    inputs : list of str, optional
        Parameters to treat as inputs w (columns of B). Default: the parameters that enter only
        the force F, or the potential that loads of a KanesMethod gave (a push F at a located point,
        gravity: ``system.load_potential``). They must not enter the constraints.
    cyclic : list of str, optional
        Cyclic coordinates (the names replace the default set: name those the default finds too);
        default: every coordinate none of the system's expressions contains
        (for a model in quasi-velocities, of those, each that no other rate depends on: its frame
        may bring a coordinate in).
        Named ones are checked: their columns of the state matrix must vanish at y and, in the
        rows of the other components, at two states near y on the constraint set (ValueError
        otherwise: a yaw on which space-frame velocity states depend is no symmetry).
    zero_tol : float
        Which eigenvalues are reported as exact zeros. The zero modes (cyclic coordinates,
        conserved quantities, families of steady motions) are deflated level by level
        (:mod:`.zero_modes`): a singular value s of a quotient matrix B, with right singular
        vector w, counts as zero when s <= zero_tol * max(1, ||A||_2) and s <= zero_tol *
        max(1, || |B| |w| ||_2) (the second for stiff systems, whose slow modes do not see the
        large entries), or in any case when s <= 100 machine eps ||A||_2 (A's own rounding: a stiff
        friction model's entries of size 1/eps cancel). A physical eigenvalue smaller than that would be taken
        for a zero mode, and so would a pair +-lambda of a position and its velocity whose
        lambda^2 is (the singular value of its block [[0, 1], [lambda^2, 0]]): rates below about
        1e-6 (sqrt of the default, in the units of the state; a sleigh held by a heading spring of
        k = -5e-13 came out stable for its +-8.1e-7). Scale time, or lower ``zero_tol``, for
        systems whose physical rates are that slow. The default 1e-12 sits a few thousand times
        above the rounding of the AD Jacobian and far below physical rates (the Whipple bicycle's capsize eigenvalue of
        about 2.5e-9 at 6.024262 m/s stays physical). Raise it when ``y`` is a steady motion only
        to a looser tolerance (the structural zeros then come out at about that residual).
    steady_tol : float
        Relative tolerance of the checks that y is on the constraint set and steady.
        ``zero_tol`` and ``steady_tol`` must be positive and finite.

    Returns
    -------
    Linearization
        A on the tangent space of the constraint set (module docstring), with the eigenvalues,
        their eigenvectors in the full state, and the zero modes classified.

    Raises
    ------
    ValueError
        When y is off the constraint set, not a steady motion, or a state where the model does
        not hold, which ``simulate`` refuses as y0 (a friction law's contact with a negative normal
        load, a tire law's rolling speed V <= 0: its force would push along the slip, and the
        spectrum came out sign-flipped); ``independent`` or ``inputs`` are invalid, ``params``
        names an unknown parameter, or a tolerance is not positive and finite.
    TypeError
        When ``params`` is not a mapping name -> value, ``y`` not an array of real numbers or
        ``t`` not a real number.

    Examples
    --------
    The Chaplygin sleigh gliding straight ahead at speed u: besides the zero modes (the cyclic x
    and y, the conserved energy, the family of speeds), one eigenvalue, -m a u / (I + m a^2). The
    motion is stable forwards and unstable backwards:

    >>> import nonholo as nh
    >>> model = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2).nonholonomic()
    >>> ahead = nh.linearize(model, [0, 0, 0, 1, 0, 0])
    >>> ahead.n_zero, ahead.coordinates
    (4, ['x', 'y', 'phi', 'x_dot', 'phi_dot'])
    >>> print(ahead.eigenvalues[ahead.n_zero:].real.round(6), round(-0.2 / 1.04, 6))
    [-0.192308] -0.192308
    >>> back = nh.linearize(model, [0, 0, 0, -1, 0, 0])
    >>> print(back.eigenvalues[back.n_zero:].real.round(6))
    [0.192308]
    """
    analysed_model(model)
    t = check.finite_float(t, "t")
    params = parameter_mapping(params)
    zero_tol = check.positive(zero_tol, "zero_tol")
    steady_tol = check.positive(steady_tol, "steady_tol")
    y = model_state(model, y, t, params)  # (a Series by name: before it becomes an array)
    names = model.state_names
    check_state(model, t, y, model.param_vector(params))  # as simulate's start: eps > 0, a tire's speed V > 0, ...
    A, T, ind, cyc, cyc_local, pvec = state_matrix(model, y, t, params, independent, cyclic, steady_tol)
    d = deflate(A, cyc_local, zero_tol)
    modes = _zero_modes(model, t, y, pvec, T, A, d, cyc, names)
    lam_phys = _sorted(np.linalg.eigvals(d.physical)) if d.physical.size else np.zeros(0, complex)
    eigenvalues = np.concatenate([np.zeros(d.n_zero, complex), lam_phys])
    vectors = [z.vectors for z in modes] + _eigenvectors(A, T, lam_phys)
    eigenvectors = np.hstack([np.asarray(v, complex).reshape(len(y), -1) for v in vectors]) if vectors \
        else np.zeros((len(y), 0))

    input_names = _inputs(model, inputs)
    B = _input_matrix(model, t, y, params, input_names, pvec)[ind] if input_names else None
    return Linearization(A=A, B=B, basis=T, coordinates=[names[i] for i in ind], eigenvalues=eigenvalues,
                         eigenvectors=eigenvectors, zero_modes=modes, inputs=input_names, state=y.copy(), t=t,
                         params=dict(zip(model.params, pvec)), model=model, physical_matrix=d.physical,
                         zero_levels=tuple(d.counts[1:]))


def stability_thresholds(matrix: np.ndarray, eigenvalues: np.ndarray, tol: float, scale: float) -> np.ndarray:
    """For each of ``eigenvalues`` (of ``matrix``): tol * max(1, scale) (``scale`` the largest
    |entry| of the state matrix), or, where smaller, max(tol * max(1, |lambda|), the first-order
    change of lambda under a relative change tol of every entry of the matrix,
    tol |y|^T |M| |x| / |y^H x| with x, y its right and left eigenvectors). The second is the
    first for a matrix of entries of one size, and far below it for the slow eigenvalues of a stiff
    matrix, whose eigenvectors do not see its large entries."""
    from scipy.linalg import eig  # lazily: importing nonholo does not import SciPy

    bound = np.full(len(eigenvalues), tol * max(1.0, scale))
    if not len(eigenvalues):
        return bound
    w, left, right = eig(matrix, left=True, right=True)
    M = np.abs(matrix)
    for i, lam in enumerate(eigenvalues):
        j = int(np.argmin(np.abs(w - lam)))
        x, y = right[:, j], left[:, j]
        overlap = abs(np.vdot(y, x))
        if overlap > 0:
            moved = tol * float(np.abs(y) @ M @ np.abs(x)) / overlap
            bound[i] = min(bound[i], max(tol * max(1.0, abs(lam)), moved))
    return bound


def tangent_space(model, y, t: float = 0.0, params=None, independent=None):
    """(T, names): a basis T (N x m) of the tangent space of the model's constraint set at any
    state y on it (steady or not), the identity on the independent components ``names``.

    Perturb a state on the constraint set with y + T xi (then project back, as the error is
    second order), or build a monodromy matrix from the flow of such perturbations.
    """
    params = parameter_mapping(params)
    y = model_state(model, y, t, params)
    cs = constraint_set(model, float(t), y, params)
    _check_on_constraint_set(cs, model, 1e-8)
    cyc = model_cyclic_indices(model)
    T, ind = tangent_basis(cs, model.state_names, independent, cyc, model.system.n,
                           cyclic_directions(model, cyc, y, params)[0])
    return T, [model.state_names[i] for i in ind]


def state_matrix(model, y, t, params, independent=None, cyclic=None, steady_tol: float = 1e-8):
    """(A, T, independent indices, cyclic indices, their positions among the independent ones,
    parameter vector) after checking that y is a steady motion on the constraint set."""
    params = parameter_mapping(params)
    steady_tol = check.positive(steady_tol, "steady_tol")
    y = model_state(model, y, t, params)
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or inf")
    n = model.system.n
    check_autonomous(model, "linearize about")
    names = model.state_names
    cyc = model_cyclic_indices(model, cyclic)
    pvec = model.param_vector(params)  # raises on an unknown parameter
    check_state(model, t, y, pvec)  # the refinements of critical_values come here without linearize
    cs = constraint_set(model, t, y, params)
    _check_on_constraint_set(cs, model, steady_tol)
    followers, S = cyclic_directions(model, cyc, y, params)
    check_steady(model, y, t, params, cyc, steady_tol, S)
    T, ind = tangent_basis(cs, names, independent, cyc, n, followers)
    missing = [names[c] for c in cyc if c not in ind]
    if missing:
        raise ValueError(f"independent must include the cyclic coordinates {missing} (cyclic: "
                         f"{[names[c] for c in cyc]}; independent: {[names[i] for i in ind]})")
    A = (model.jacobian(t, y, params) @ T)[ind]
    cyc_local = [ind.index(c) for c in cyc]
    _check_cyclic_columns(A, cyc_local, [names[c] for c in cyc])
    if cyclic is not None:  # named by the caller, not found symmetric from the expressions
        _check_cyclic_nearby(model, y, t, params, T, ind, cyc, cyc_local, followers)
    return A, T, ind, cyc, cyc_local, pvec


# --------------------------------------------------------------------------- checks
def check_autonomous(model, what: str) -> None:
    """ValueError when the model depends on time explicitly: steady motions need an autonomous model."""
    system = model.system
    if system.core.force_depends_on_time or system.core.affine_depends_on_time:
        raise ValueError(f"the {model_label(model)} model of {system.name!r} depends on time explicitly (its force "
                         f"or the affine part b of its constraints contain t): it has no steady motions to {what}; "
                         "make the time-dependent terms parameters (inputs) instead")


def _check_on_constraint_set(cs, model, tol) -> None:
    if cs.residual.size and np.abs(cs.residual).max() > tol * cs.scale:
        raise ValueError(f"y is not on the constraint set of the {model_label(model)} model: |A(q) v - b|, |h(q)| "
                         f"up to {np.abs(cs.residual).max():.3g}; project the velocity with system.project(q, v) or "
                         "find the steady motion with nh.steady_motions")


def check_steady(model, y, t, params, cyclic, tol: float = 1e-8, directions=None) -> None:
    """Raise ValueError unless f(t, y) moves cyclic coordinates only (velocities constant), each
    with the coordinates tied to it along its column of ``directions`` (N x len(cyclic); default
    the unit vectors: none tied)."""
    f = model.rhs(t, y, params)
    n = model.system.n
    names = model.state_names
    moving = np.ones(len(y), bool)
    moving[list(cyclic)] = False
    if directions is not None:  # the followers' rates are the leaders' along the symmetry
        f = f - np.where(moving, directions @ f[list(cyclic)], 0.0)
    scale = max(1.0, np.abs(y[n:]).max(initial=0.0), np.abs(f).max())
    bad = np.where(moving & (np.abs(f) > tol * scale))[0]
    if bad.size:  # a stiff model's rates carry rounding of about |df/dy| |y| (a friction model's A^T A v / eps at
        # eps 1e-9: a straight run on the constraints to 1e-16 had rates of 7e-8)
        rounding = ROUNDING * np.finfo(float).eps * (np.abs(model.jacobian(t, y, params)) @ np.abs(y))
        bad = np.where(moving & (np.abs(f) > np.maximum(tol * scale, rounding)))[0]
    if bad.size:
        worst = sorted(bad, key=lambda i: -abs(f[i]))[:3]
        detail = ", ".join(f"d({names[i]})/dt = {f[i]:.3g}" for i in worst)
        coordinates = [names[i] for i in bad if i < n]
        in_qdot = names[n:] == [str(v) for v in model.system.velocities]
        turning = in_qdot and any(i >= n for i in bad)
        named = (f"; where the motion of {coordinates} is a symmetry the expressions do not show (a spin or a yaw "
                 "in an attitude chart), name them with cyclic=[...], which linearize checks: their columns of the "
                 "state matrix must vanish at y and near it") if coordinates and not turning else ""
        # a circling body's x' and y' turn with its heading: steady in body speeds, never in [q, q']; a friction
        # model's state is [q, q'] whatever the system's speeds
        speeds = ""
        if turning:
            speeds = ("; a motion steady in body speeds (circling, turning) changes the velocities q' of the "
                      "coordinates that turn with it, " + (
                          "and the state of a friction model is [q, q'] whatever the system's speeds, so its "
                          "linearization about a turn is not available: linearize it about a straight run, or the "
                          "rolling model in speeds (of a System with speeds=...) for the motion without slip"
                          if model_label(model).startswith("friction") else
                          "so it is no steady motion in [q, q']: linearize a model in speeds (Kane's speeds of "
                          "from_kanes_method, System(speeds=...))"))
        raise ValueError(f"y is not a steady motion of the {model_label(model)} model: {detail}. A steady motion "
                         "keeps every velocity constant and moves only cyclic coordinates (here "
                         f"{[names[i] for i in cyclic] or 'none'}: those cyclic= names, which replace the default, "
                         f"else those the equations do not contain); find one with nh.steady_motions{named}{speeds}")


def _cyclic_columns(A, cyc_local) -> np.ndarray:
    """The largest entry of each cyclic column of A in the other components' rows (the cyclic ones'
    own rates may depend on one another, a translation's on a heading: the nilpotent block below)."""
    rest = [i for i in range(A.shape[0]) if i not in set(cyc_local)]
    return np.abs(A[np.ix_(rest, cyc_local)]).max(axis=0, initial=0.0)


def _check_cyclic_columns(A, cyc_local, names) -> None:
    """The cyclic columns of A vanish in the other components' rows; among the cyclic ones' rows (a
    translation's rate may depend on a heading) they form a nilpotent block, whose eigenvalues, all
    zero, the deflation takes them for."""
    if not cyc_local:
        return
    scale = 1e-12 * max(1.0, np.abs(A).max())
    bad = [nm for nm, c in zip(names, _cyclic_columns(A, cyc_local)) if c > scale]
    if bad:
        raise ValueError(f"the coordinates {bad} were given as cyclic, but the equations depend on them")
    block = A[np.ix_(cyc_local, cyc_local)]
    if np.abs(block).max() > scale and np.abs(np.linalg.eigvals(block)).max() > 1e-8 * max(1.0, np.abs(A).max()):
        raise ValueError(f"the rates of the coordinates {names} given as cyclic depend on one another with nonzero "
                         "eigenvalues (their shifts are no symmetry): drop some of them from cyclic")


NEARBY_STEP = 1e-3  # the size of the perturbations _check_cyclic_nearby tries, relative to the state


def _check_cyclic_nearby(model, y, t, params, T, ind, cyc, cyc_local, followers=()) -> None:
    """ValueError unless the cyclic columns of the state matrix vanish, in the rows of the other
    components, also at two states near y on the constraint set (random perturbations along its
    tangent space, of relative size NEARBY_STEP, pulled back onto it). A coordinate named cyclic
    only because its columns vanish at y is no symmetry: on the friction model of a top spinning
    in place, x' and y' are states that rotate with the yaw, the yaw column of Df vanishes where
    x' = y' = 0 only, and its linearization with cyclic yaw gave +48.8 +- 41.3i for a spin the
    nonlinear run keeps."""
    names = model.state_names
    independent = [names[i] for i in ind]
    rng = np.random.default_rng(20261205)
    size = NEARBY_STEP * max(1.0, np.abs(y).max())
    for _ in range(2):
        direction = T @ rng.standard_normal(T.shape[1])
        near = y + size * direction / max(np.abs(direction).max(), 1e-300)
        for _ in range(3):  # Gauss-Newton back onto the constraint set
            cs = constraint_set(model, t, near, params)
            if not cs.residual.size:
                break
            near = near - np.linalg.lstsq(cs.jacobian, cs.residual, rcond=None)[0]
        cs = constraint_set(model, t, near, params)
        T_near = tangent_basis(cs, names, independent, cyc, model.system.n, followers)[0]
        A = (model.jacobian(t, near, params) @ T_near)[ind]
        col = _cyclic_columns(A, cyc_local)
        bad = [names[c] for c, v in zip(cyc, col) if v > 1e-8 * max(1.0, np.abs(A).max())]
        if bad:
            raise ValueError(f"the coordinates {bad} were given as cyclic, but the {model_label(model)} model's "
                             f"equations depend on them at states near y (on its constraint set, a relative distance "
                             f"{NEARBY_STEP:g} away): their columns of the state matrix vanish at y only, so they "
                             "are no symmetry (e.g. space-frame velocities that rotate with a yaw angle); drop them "
                             "from cyclic" + (
                                 ". Quasi-velocities in a frame that turns with these coordinates (speeds in a "
                                 "wheel's body frame turn with its spin) make the equations depend on them where the "
                                 "Lagrangian does not: the coordinate form (state='qdot' of from_kanes_method, or "
                                 "system.nonholonomic(form='qdot')) may keep them cyclic"
                                 if in_quasi_velocities(model) else ""))


# --------------------------------------------------------------------------- modes
def _sorted(lam: np.ndarray) -> np.ndarray:
    return lam[np.lexsort((-lam.imag, -lam.real))]


SHIFT_OFFSET = 1e-10  # the inverse iteration's shift is the eigenvalue plus this times max(1, max|A|)


def _eigenvectors(A, T, lam_phys) -> list:
    """Unit eigenvectors in the full state of the physical eigenvalues: those of A whose
    eigenvalues are nearest (each used once), improved by inverse iteration with the accurate
    eigenvalue of the deflated matrix, mapped by T, largest component real positive. The shift is
    offset from the eigenvalue by SHIFT_OFFSET (relative): with the exact eigenvalue A - lambda I
    can be singular to working precision, and the solution overflowed (the heavy ball spinning
    at 4.6: NaN columns for +-0.4275i); an iterate that is not finite keeps LAPACK's vector."""
    if not len(lam_phys):
        return []
    mu, X = np.linalg.eig(A)
    free = np.ones(mu.size, bool)
    identity = np.eye(A.shape[0])
    offset = SHIFT_OFFSET * max(1.0, np.abs(A).max(initial=0.0))
    out = []
    for lam in lam_phys:
        i = int(np.argmin(np.where(free, np.abs(mu - lam), np.inf)))
        free[i] = False
        x = X[:, i]
        for _ in range(2):
            with np.errstate(all="ignore"):
                try:
                    z = np.linalg.solve(A - (lam + offset) * identity, x)
                except np.linalg.LinAlgError:
                    break
                size = np.abs(z).max()
                if not (np.isfinite(size) and size > 0):
                    break
                z = z / size
                if not np.all(np.isfinite(z)):
                    break
            x = z / np.linalg.norm(z)
        x = T @ x
        k = np.argmax(np.abs(x))
        out.append(x * (abs(x[k]) / x[k]) / np.linalg.norm(x))
    return out


def _conserved_covectors(model, t, y, pvec, T) -> list:
    """[(name, l)] of candidate first integrals as row vectors on the tangent space: the energy
    1/2 v^T G v + V and the momenta s_c^T G v of the cyclic coordinates' symmetries (s_c = e_c
    where none is tied to c)."""
    system, n = model.system, model.system.n
    C = _coordinate_chart(model, t, y, pvec)  # d(q, q')/dy, (2n, N)
    q, v = y[:n], model.velocity(t, y, dict(zip(model.params, pvec))) if in_quasi_velocities(model) else C[n:] @ y
    d = system_derivatives(system, t, q, v, pvec)
    dE = np.r_[0.5 * np.einsum("i,ijl,j->l", v, d.dG, v) + d.dV, d.G @ v]
    out = [("the energy 1/2 v^T G v + V", dE @ C @ T)]
    cyc = cyclic_coordinates(system)
    S = cyclic_directions(model, cyc, y, dict(zip(model.params, pvec)))[1][:n]
    for s, c in zip(S.T, cyc):
        dp = np.r_[np.einsum("i,ijl,j->l", s, d.dG, v), s @ d.G]
        out.append((f"the momentum conjugate to {system.coordinate_names[c]}", dp @ C @ T))
    return out


def _coordinate_chart(model, t, y, pvec) -> np.ndarray:
    """d(q, q')/dy (2n x N): [I, 0] for the models in [q, v, ...]; for the Hamel model in
    quasi-velocities (Kane's speeds), q' = X_D(q) u + w0(q): X_D exactly (q' is linear in u) and
    dq'/dq by central differences (enough to tell conserved quantities from the other zero modes)."""
    n, N = model.system.n, len(y)
    if not in_quasi_velocities(model):
        return np.eye(2 * n, N)
    params = dict(zip(model.params, pvec))
    C = np.zeros((2 * n, N))
    C[:n, :n] = np.eye(n)
    base = model.velocity(t, y, params)
    for j in range(n, N):
        e = np.zeros(N)
        e[j] = 1.0
        C[n:, j] = model.velocity(t, y + e, params) - base
    h = 1e-6
    for j in range(n):
        e = np.zeros(N)
        e[j] = h * max(1.0, abs(y[j]))
        C[n:, j] = (model.velocity(t, y + e, params) - model.velocity(t, y - e, params)) / (2 * e[j])
    return C


def _zero_modes(model, t, y, pvec, T, A, d, cyc, names) -> list:
    """ZeroMode groups from the deflation levels: the cyclic drifts, then per level the directions
    along which a first-order invariant (energy, a conserved momentum) changes, then the rest as
    families of steady motions (level 1) or longer chains."""
    modes = []
    for j, c in enumerate(cyc):
        modes.append(ZeroMode("cyclic", 1, f"cyclic coordinate {names[c]}: the equations do not contain it (a "
                              "symmetry); the motion drifts along it", T @ d.levels[0][:, [j]], names[c]))
    norm_A = max(1.0, np.linalg.norm(A, 2))
    integrals = [(nm, l) for nm, l in _conserved_covectors(model, t, y, pvec, T)
                 if np.linalg.norm(l) > 1e-12 and np.linalg.norm(l @ A) <= 1e-9 * norm_A * np.linalg.norm(l)]
    for level, basis in enumerate(d.levels[1:], start=1):
        remaining = basis.copy()
        unused = []
        for nm, l in integrals:
            w = l @ remaining
            if remaining.shape[1] == 0 or np.abs(w).max() <= 1e-9 * np.linalg.norm(l):
                unused.append((nm, l))
                continue
            _, _, Vh = np.linalg.svd(w[None, :])  # Vh[0] ~ w, Vh[1:] its orthogonal complement
            along, remaining = remaining @ Vh[:1].T, remaining @ Vh[1:].T
            modes.append(ZeroMode("conserved", 1, f"{nm} is conserved (to first order here): a neighbouring steady "
                                  f"motion at another value of it ({_dominant(T @ along, names)})", T @ along))
        integrals = unused
        if remaining.shape[1] == 0:
            continue
        vecs = T @ remaining
        if level == 1:
            reason = (f"neighbouring steady motions ({_dominant(vecs, names)}): a family of steady motions not tied "
                      "to a conserved quantity found here (e.g. a symmetry that is no cyclic coordinate in these "
                      "coordinates, such as a rotation)")
            kind = "family"
        else:
            reason = (f"generalized eigenvectors of rank {level + 1} ({_dominant(vecs, names)}): a neighbouring "
                      "motion whose deviation grows linearly in a neutral direction (e.g. a slow turn near a "
                      "straight motion), or a physical mode at zero (a critical point)")
            kind = "chain"
        modes.append(ZeroMode(kind, remaining.shape[1], reason, vecs))
    return [ZeroMode(z.kind, z.multiplicity, z.reason, z.vectors / np.linalg.norm(z.vectors, axis=0), z.coordinate)
            for z in modes]


def _dominant(vectors, names, share: float = 0.2) -> str:
    """Names of the state components carrying most of ``vectors``."""
    weight = np.sqrt((np.abs(vectors) ** 2).sum(axis=1))
    order = np.argsort(-weight)
    top = [names[i] for i in order[:4] if weight[i] >= share * weight[order[0]]]
    return "along " + ", ".join(top)


# --------------------------------------------------------------------------- inputs
def _inputs(model, inputs) -> list:
    system = model.system
    known = list(model.params)
    sets = free_symbols(system)
    if inputs is None:  # a load's parameter (a push, gravity) as a force's, where a KanesMethod's loads gave V
        return [s.name for s in system.parameters if (s in sets["force"] or s in sets["loads"])
                and s not in sets["physical"]]
    if isinstance(inputs, str):
        raise TypeError(f"inputs must be a list of parameter names, got {inputs!r}")
    unknown = [p for p in inputs if p not in known]
    if unknown:
        raise ValueError(f"inputs contains {unknown}, which are not parameters of the model; the parameters are "
                         f"{known}")
    bad = [p for p in inputs if any(s.name == p for s in sets["constraints"])]
    if bad and model.kind != "friction":
        raise ValueError(f"inputs {bad} enter the constraints A(q) v = b; an input must leave the constraint set "
                         "unchanged")
    return list(inputs)


def _input_matrix(model, t, y, params, input_names, pvec) -> np.ndarray:
    """df/dw (N, p): exact for the nonholonomic and friction models when the inputs enter the force F
    alone (P G^-1 dF/dw and G^-1 dF/dw), fourth-order central differences otherwise (the reduced
    and vakonomic models; an input in the potential, the metric or the friction coefficients,
    such as a constant torque e written as the potential e phi, whose column was zero)."""
    system, n = model.system, model.system.n
    index = {nm: i for i, nm in enumerate(model.params)}
    sys_params = len(system.parameters)
    elsewhere = {s.name for s in free_symbols(system)["other"]}
    exact = model.kind in ("nonholonomic", "friction") and all(
        index[p] < sys_params and p not in elsewhere for p in input_names)
    out = np.zeros((len(y), len(input_names)))
    if exact:
        q, v = y[:n], y[n:2 * n]
        d = system_derivatives(system, t, q, v, pvec)
        cols = [index[p] for p in input_names]
        rhs = np.linalg.solve(d.G, d.dF_dp[:, cols])
        if model.kind == "nonholonomic" and system.k:
            P, _ = system.projectors(q, params=dict(zip(model.params, pvec)))
            rhs = P @ rhs
        out[n:2 * n] = rhs
        return out
    base = dict(zip(model.params, pvec))
    for j, p in enumerate(input_names):
        h = 1e-3 * max(1.0, abs(base[p]))
        f = [model.rhs(t, y, {**base, p: base[p] + s * h}) for s in (-2, -1, 1, 2)]
        out[:, j] = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)
    return out
