"""Anholonomic frames: nonholonomic and vakonomic dynamics in quasi-velocities, and the
criterion for a nonholonomic system to be a restricted Euler-Lagrange system.

After T. Mestdag and M. Crampin, "Nonholonomic systems as restricted Euler-Lagrange systems"
(2010), Balkan J. Geom. Appl. 15. A frame X = [X_1 .. X_n] on Q is
adapted to the constraint distribution D when X_1 .. X_m (m = n - k) span D; its structure
functions are [X_i, X_j] = R^k_ij X_k, the quasi-velocities are v = X^-1 q', and the constraint
set is C = {v^a = 0} for the last k of them.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import sympy as sp

from .. import _core
from ..errors import ModelError
from ..expressions.lowering import check_free_symbols, lower
from ..expressions.tidy import simplified
from ..expressions.parsing import to_sympy
from ..expressions.speed_frame import DependentSpeeds
from .arguments import time_argument
from .recipes import model_factory

__all__ = ["AnholonomicFrame", "CriterionResult", "voronets_frame", "voronets_split"]


FORMS = ("numeric", "symbolic")
#: The largest max |A_s^-1 A_r| of a Voronets split a state in its speeds may start at: there the
#: velocity it stands for is fixed to about 1e-8 relative (machine precision times it); a run re-splits
#: at once. Above it (and at an exactly singular split) no state stands for a velocity.
START_GROWTH = 1e8
_EXHAUSTIVE_SPLITS = 5000  # above this many k-subsets of the coordinates, the split is chosen by pivoting


def voronets_frame(system, solved: Sequence | None = None) -> sp.Matrix:
    """The frame of the Voronets/Chaplygin split (Mestdag-Crampin), as a SymPy matrix.

    With the coordinates split q = (r, s) so that the constraints solve as s' = B(q) r'
    (B = -A_s^-1 A_r), X_alpha = d/dr^alpha + B^a_alpha d/ds^a and X_a = d/ds^a. ``solved`` names
    the k coordinates s (symbols or names); by default the split of :func:`voronets_split`.

    The symbolic k x k inverse grows quickly with k (its adjugate, 12 k operations at k = 8):
    ``AnholonomicFrame(system)`` evaluates the same frame numerically instead
    (``form="numeric"``) and builds this matrix only when ``.vectors`` is asked for.
    """
    n, k = system.n, system.k
    A = sp.Matrix(system.constraints)
    if k == 0:
        return sp.eye(n)
    s_idx = voronets_split(system, solved)
    r_idx = [i for i in range(n) if i not in s_idx]
    # the adjugate over the determinant: no pivot of an elimination divides by an entry that vanishes
    # where A_s is regular; small entries simplified (simplifying all took 73 s at k = 6)
    B = simplified(-A[:, s_idx].inv(method="ADJ") * A[:, r_idx])
    X = sp.zeros(n, n)
    for col, i in enumerate(r_idx):
        X[i, col] = 1
        for a, j in enumerate(s_idx):
            X[j, col] = B[a, col]
    for a, j in enumerate(s_idx):
        X[j, len(r_idx) + a] = 1
    return X


def voronets_split(system, solved: Sequence | None = None) -> list:
    """The indices (increasing) of the k coordinates s the constraints are solved for.

    ``solved`` names them (symbols or names). By default: the k-subset whose block A_s is the
    best conditioned, min over q = 0 and 16 random points q of |det A_s| / ||A_s||^k (the first one
    in lexicographic order among equals); with more than 5000 subsets, the pivots of a QR
    factorization of A with column pivoting at q = 0 (then at the random points if that split is
    singular somewhere). A is evaluated numerically.
    """
    n, k = system.n, system.k
    if k == 0:
        return []
    samples = _constraint_samples(system)
    if solved is None:
        if math.comb(n, k) <= _EXHAUSTIVE_SPLITS:
            combos = list(itertools.combinations(range(n), k))
            scores = np.array([_conditioning(samples[:, :, list(c)]) for c in combos])
            best = combos[int(np.argmax(scores >= scores.max() * (1 - 1e-9)))]
        else:
            best = next((c for c in (_pivot_columns(a, k) for a in samples)
                         if _regularity(samples[:, :, list(c)]) >= 1e-10), _pivot_columns(samples[0], k))
        if _regularity(samples[:, :, list(best)]) < 1e-10:
            raise ModelError("no k coordinates can be solved for from the constraints (A_s is singular)")
        return list(best)
    names = [str(s) for s in solved]
    unknown = [nm for nm in names if nm not in system.coordinate_names]
    if unknown or len(names) != k or len(set(names)) != k:
        raise ValueError(f"solved must name {k} distinct coordinates of {system.coordinate_names}, got {names}")
    s_idx = sorted(system.coordinate_names.index(nm) for nm in names)
    if _regularity(samples[1:, :, s_idx]) < 1e-10:  # the user's split may be singular at q = 0
        raise ModelError(f"the constraints cannot be solved for {names}: their block of A is singular")
    return s_idx


def _pivot_columns(A: np.ndarray, k: int) -> tuple:
    """The k columns a QR factorization with column pivoting picks (largest residual norm
    first, Businger-Golub), increasing."""
    R = np.array(A, dtype=float)
    chosen: list = []
    for _ in range(k):
        norms = np.linalg.norm(R, axis=0)
        norms[chosen] = -1.0
        j = int(np.argmax(norms))
        chosen.append(j)
        e = R[:, j] / max(norms[j], 1e-300)
        R = R - np.outer(e, e @ R)
    return tuple(sorted(chosen))


def _constraint_samples(system) -> np.ndarray:
    """A(q) at q = 0 and 16 random q in [-pi, pi]^n (default parameters; unit-norm groups of
    coordinates normalized, the origin's at the identity, _on_unit_norms), shape (17, k, n). q = 0
    is included so that, of splits equally good elsewhere (x or y for a vehicle heading along
    theta), the one regular at the origin of the coordinates is taken (y' = tan(theta) x', not
    x' = cot(theta) y')."""
    rng = np.random.default_rng(1)
    samples = [A for A in (_constraints_at(system, _on_unit_norms(system, rng.uniform(-np.pi, np.pi, system.n)))
                           for _ in range(16)) if A is not None]
    if len(samples) < 4:
        raise ModelError("the system's geometry cannot be evaluated at most sample points q in [-pi, pi]^n, so no "
                         "split for the Voronets frame can be checked; pass the frame vectors")
    origin = _constraints_at(system, _on_unit_norms(system, np.zeros(system.n)))
    return np.array([samples[0] if origin is None else origin, *samples])


def _on_unit_norms(system, q: np.ndarray) -> np.ndarray:
    """q with each unit-norm group of coordinates (``system.unit_norm``: a quaternion) scaled to unit
    length, and a zero group replaced by its first unit vector (the identity rotation): the split
    is judged at configurations the system can take, the origin's at the reference attitude."""
    for group in getattr(system, "unit_norm", None) or []:
        g = list(group)
        norm = float(np.linalg.norm(q[g]))
        if norm > 0:
            q[g] = q[g] / norm
        else:
            q[g[0]] = 1.0
    return q


def _constraints_at(system, q: np.ndarray) -> np.ndarray | None:
    """A(q), or None where the system's geometry cannot be evaluated (a singular metric, e.g.
    polar coordinates at r = 0)."""
    try:
        return system.constraint_matrix(q, 0.0)[0]  # A does not depend on t
    except ModelError:
        return None


def _conditioning(blocks: np.ndarray) -> float:
    """min over sample points of |det A_s| / ||A_s||^k: how far the block stays from singular."""
    # det(A_s / ||A_s||) = det A_s / ||A_s||^k without forming ||A_s||^k, which underflows for small
    # entries (a block of zeros, from a split that leaves out the solvable coordinates, was 0/0 = NaN,
    # which no comparison rejects); a zero block scores 0
    top = np.abs(blocks).max(axis=(1, 2))
    safe = np.where(top > 0, top, 1.0)
    ratio = np.where(top > 0, np.abs(np.linalg.det(blocks / safe[:, None, None])), 0.0)
    return float(np.nan_to_num(ratio, nan=0.0).min())


def _regularity(blocks: np.ndarray) -> float:
    """min over sample points of 1 / cond(A_s) (2-norm): whether the block is singular anywhere. Not
    |det A_s| / ||A_s||^k (:func:`_conditioning`, which ranks the splits), which shrinks like c^k for
    well-conditioned blocks (0.5^(k-1) for a snake of k links, cond 1.8e3): k = 20 knife edges were
    refused as singular."""
    s = np.linalg.svd(blocks, compute_uv=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(s[:, 0] > 0, s[:, -1] / np.where(s[:, 0] > 0, s[:, 0], 1.0), 0.0)
    return float(np.nan_to_num(ratio, nan=0.0).min())


@dataclass
class CriterionResult:
    """Outcome of :meth:`AnholonomicFrame.criterion` (Mestdag-Crampin Proposition 2).

    Attributes
    ----------
    holds : bool
        Both residuals vanish (to ``tol``) at every sample point.
    residual_1, residual_2 : ndarray, shapes (points, m) and (points, k)
        phi_a R^a_{alpha beta} v^beta and Gamma(phi_a) + phi_b R^b_{a alpha} v^alpha - lambda_a.
    lagrangian : SymPy expression or None
        L - Phi_a v^a (Phi_a the given candidates, v^a the constraint quasi-velocities) when
        the criterion holds.
    hessian : SymPy matrix or None
        d^2 Ltilde / dq' dq'; ``hessian_det`` its determinant, ``signature`` the numbers of
        positive and negative eigenvalues at a sample point, ``regular`` whether it is
        nonsingular there.
    force : SymPy matrix or None
        The system's force F(q, v, t) when it has one (e.g. the gyroscopic force
        ((dg/dq)^T - dg/dq) v into which ``System.from_lagrangian`` turns a term g^T v): the
        multipliers in the criterion include it, and the unconstrained equations are then the
        Euler-Lagrange equations of ``lagrangian`` with F on the right-hand side.
    """

    holds: bool
    residual_1: np.ndarray
    residual_2: np.ndarray
    lagrangian: sp.Expr | None = None
    hessian: sp.Matrix | None = None
    hessian_det: sp.Expr | None = None
    signature: tuple = ()
    regular: bool = False
    points: np.ndarray = field(default_factory=lambda: np.zeros(0))
    force: sp.Matrix | None = None

    def __repr__(self) -> str:
        r1, r2 = np.abs(self.residual_1).max(initial=0), np.abs(self.residual_2).max(initial=0)
        verdict = "holds" if self.holds else "fails"
        extra = f", Ltilde regular with signature {self.signature}" if self.holds else ""
        return f"<CriterionResult: {verdict}; max residuals {r1:.2e}, {r2:.2e}{extra}>"


class AnholonomicFrame:
    """A frame adapted to the constraint distribution of a system with linear constraints.

    Parameters
    ----------
    system : System
        With k linear constraints (affine ones need ``vectors`` and ``offset``). Without any
        (k = 0) D is every velocity and the default frame the coordinate basis: the Hamel model
        is then Lagrange's equations in q, q'.
    vectors : (n, n) SymPy matrix or DependentSpeeds, optional
        Columns are the frame vectors X_1 .. X_n (components in the coordinate basis); the
        first m = n - k must span D. Or the speeds' kinematics and constraints unsolved
        (:class:`~nonholo.expressions.speed_frame.DependentSpeeds`, Kane's speeds; it carries its
        offset): X and w0 are then computed in C++ at each evaluation by a pivoted LU solve for
        the dependent speeds and implicit differentiation, regular wherever C_dep is.
        Default: the Voronets frame of the split q = (r, s)
        (:func:`voronets_split`), X_D = d/dr + B d/ds, X_C = d/ds, B = -A_s^-1 A_r.
    solved : sequence, optional
        For the default frame: the k coordinates s the constraints are solved for.
    form : {"numeric", "symbolic"}
        For the default frame. ``"numeric"`` (default): B and dB/dq are computed in C++ at each
        evaluation from the system's constraint rows, by an LU solve of A_s and implicit
        differentiation, dB = -A_s^-1 (dA_r + dA_s B); the build costs milliseconds at any k.
        ``"symbolic"``: B = simplify(-A_s^-1 A_r) in SymPy, compiled to a tape (slow beyond
        k = 3: minutes at k = 8). Both give the same frame; ``.vectors`` is the SymPy matrix in
        either form, built on first access in the numeric one.
    offset : length-n SymPy vector, optional
        With ``vectors``: w0(q) with A w0 = b, for affine constraints A(q) v = b(q) (needed
        then; b must not depend on t). The velocities on the constraint set are then
        q' = X_D(q) v + w0(q) (Kane's speeds with an affine velocity constraint, e.g. a ball on
        a rotating table; :meth:`System.from_kanes_method`). The Hamel model takes it; the
        frame-vakonomic model and the frame form of the reduced model do not.
    velocity_names : sequence of str, optional
        Names of the quasi-velocities v^1 .. v^m in the models' states (default ``v1 .. vm``).

    Attributes
    ----------
    solved : list of int or None
        Indices of the solved coordinates s of the default frame, else None.
    form : {"numeric", "symbolic"}
        How B is computed; a frame given by ``vectors`` is "symbolic".

    Notes
    -----
    The structure functions, the Hamel (nonholonomic) and vakonomic vector fields and the
    multipliers are computed in C++ from the frame's tape (or the numeric Voronets frame) and
    its AD derivatives.
    """

    def __init__(self, system, vectors=None, *, solved=None, name: str | None = None, form: str = "numeric",
                 offset=None, velocity_names: Sequence[str] | None = None):
        if form not in FORMS:
            raise ValueError(f"form must be one of {FORMS}, got {form!r}")
        self.system = system
        n = system.n
        self.name = name or f"frame of {system.name}"
        self._vectors, self._offset, self._dependent = None, None, None
        if isinstance(vectors, DependentSpeeds):
            self._init_dependent(vectors, offset, velocity_names)
            return
        affine = any(not b.is_zero for b in system.affine)
        if offset is not None and vectors is None:
            raise ValueError("offset is given with the frame vectors (a Voronets frame has none)")
        if affine and offset is None:
            moving = system.time in set().union(*(sp.sympify(b).free_symbols for b in system.affine))
            raise ValueError("anholonomic frames of affine constraints A v = b need the frame vectors and an offset "
                             "w0(q) with A w0 = b (q' = X_D v + w0); the Voronets frame is for linear constraints"
                             + (f"; this b depends on the time {system.time}, which no frame's offset w0(q) does: "
                                "integrate q' (system.nonholonomic(form='qdot'))" if moving else ""))
        self._offset = None if offset is None else _offset(offset, n, system)
        self.velocity_names = self._velocity_names(velocity_names)
        if vectors is None:
            allowed = {*system.coordinates, *system.parameters}
            check_free_symbols(list(sp.Matrix(system.constraints)), allowed, "constraints")
            self.solved = voronets_split(system, solved)
            self.form = form
            self._spec = (None, [system.coordinate_names[i] for i in self.solved], form, None, velocity_names)
            if form == "numeric":
                self._core = _core.Frame(system.core, self.solved)
                self._check_adapted()
                return
            X = voronets_frame(system, self._spec[1])
        else:
            X = sp.ImmutableMatrix(vectors)
            self.solved, self.form = None, "symbolic"
        if X.shape != (n, n):
            raise ValueError(f"vectors has shape {X.shape}, expected ({n}, {n}): one column per frame vector")
        check_free_symbols(list(X), {*system.coordinates, *system.parameters}, "vectors")
        self._vectors = sp.ImmutableMatrix(X)
        if vectors is not None:
            self._spec = (self._vectors, None, "symbolic", self._offset, velocity_names)
        outputs = list(self._vectors) + (list(self._offset) if self._offset is not None else [])
        self._core = _core.Frame(system.core, lower(outputs, system._inputs).to_core())
        self._check_adapted()

    def _init_dependent(self, speeds, offset, velocity_names) -> None:
        """The frame of speeds solved numerically (:class:`DependentSpeeds`, Kane's speeds): X, w0
        and their derivatives from J, q0, C, f by a pivoted LU of C_dep at each evaluation (C++)."""
        system = self.system
        if offset is not None:
            raise ValueError("offset is given with DependentSpeeds, which carry their own")
        if (speeds.n, speeds.k) != (system.n, system.k):
            raise ValueError(f"the DependentSpeeds have n = {speeds.n} speeds and k = {speeds.k} constraints, "
                             f"expected n = {system.n} and k = {system.k}")
        if system.k and any(not b.is_zero for b in system.affine) and not speeds.has_offset:
            raise ValueError("the system has affine constraints A v = b but the DependentSpeeds have no offset")
        outputs = speeds.outputs()
        check_free_symbols(outputs, {*system.coordinates, *system.parameters}, "speeds")
        self._dependent = speeds
        self.velocity_names = self._velocity_names(velocity_names)
        self.solved, self.form = None, "numeric"
        self._spec = (speeds, None, "numeric", None, velocity_names)
        self._core = _core.Frame.kane_speeds(system.core, lower(outputs, system._inputs).to_core(), speeds.has_offset)
        self._check_adapted()

    def _velocity_names(self, names) -> list:
        """The names of the quasi-velocities v^1 .. v^m: ``v1 .. vm`` or the given ones (Kane's speeds)."""
        m = self.rank
        if names is None:
            return [f"v{alpha + 1}" for alpha in range(m)]
        names = [str(x) for x in names]
        if len(names) != m or len(set(names)) != m:
            raise ValueError(f"velocity_names must hold m = {m} distinct names, got {names}")
        clash = set(names) & set(self.system.coordinate_names)
        if clash:
            raise ValueError(f"velocity_names {sorted(clash)} are also coordinate names")
        return names

    @property
    def vectors(self) -> sp.ImmutableMatrix:
        """X as an (n, n) SymPy matrix (for the numeric Voronets frame: built symbolically on
        first access, which can take minutes for k > 3; for speeds solved numerically
        (:class:`DependentSpeeds`) by a symbolic solve, for display only: it may be 0/0 where the
        numeric frame is regular)."""
        if self._vectors is None:
            self._vectors = self._dependent.vectors() if self._dependent is not None else \
                sp.ImmutableMatrix(voronets_frame(self.system, self._spec[1]))
        return self._vectors

    @property
    def offset(self) -> sp.ImmutableMatrix | None:
        """w0(q) as an (n, 1) SymPy matrix, or None for a frame without offset (built on first
        access for speeds solved numerically, as :attr:`vectors`)."""
        if self._offset is None and self._dependent is not None:
            self._offset = self._dependent.offset()
        return self._offset

    @property
    def has_offset(self) -> bool:
        """True when q' = X_D v + w0(q) with an offset w0 (affine constraints or kinematics)."""
        return bool(self._core.has_offset)

    @property
    def dependent_speeds(self) -> DependentSpeeds | None:
        """The :class:`~nonholo.expressions.speed_frame.DependentSpeeds` of a frame of Kane's speeds
        (:meth:`System.from_kanes_method`: its dependent speeds solved from C_dep at each evaluation), else
        None (a Voronets frame, a frame given by its vectors)."""
        return self._dependent

    # ---------------------------------------------------------------- basics
    @property
    def n(self) -> int:
        return self.system.n

    @property
    def rank(self) -> int:
        """m = dim D: the first m frame vectors span D."""
        return self.system.n - self.system.k

    @property
    def core(self):
        """The compiled frame (``nonholo._core.Frame``)."""
        return self._core

    def _params(self, params):
        return self.system.param_vector(params)

    def _vector(self, value, what: str, size: int | None = None) -> np.ndarray:
        """``value`` as ``size`` (default n) finite numbers; ValueError naming ``what`` otherwise (a NaN q
        gave a NaN frame, a q' of the wrong length a bare matmul error)."""
        x = np.asarray(value, dtype=float)
        size = self.n if size is None else size
        if x.shape != (size,):
            raise ValueError(f"{what} must have shape ({size},), got {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{what} contains NaN or inf")
        return x

    def matrix(self, q, params=None) -> np.ndarray:
        """X(q), shape (n, n): column j is X_j."""
        return self._core.evaluate(self._vector(q, "q"), self._params(params))[0]

    def offset_at(self, q, params=None) -> np.ndarray:
        """w0(q), shape (n,): the velocity of the frame at v = 0 (zero without an offset)."""
        if not self.has_offset:
            return np.zeros(self.n)
        return self._core.evaluate(self._vector(q, "q"), self._params(params))[2]

    def _spans(self, A, X) -> bool:
        """A X_D = 0 to rounding (the frame's first ``rank`` vectors lie in D = ker A)."""
        return not A.size or np.abs(A @ X[:, : self.rank]).max() <= 1e-9 * (1 + np.abs(A).max() * np.abs(X).max())

    def _spans_at_defaults(self, q) -> bool:
        """Whether A X_D = 0 at ``q`` with the system's own parameter values (a frame written with their numbers:
        exact there, wrong at other values)."""
        try:
            X = self.matrix(q, None)
            A, _ = self.system.constraint_matrix(q, 0.0, None)
        except (ModelError, ArithmeticError, ValueError):
            return False
        return self._spans(A, X)

    def _check_adapted(self) -> None:
        """A X_D = 0 and A w0 = b at random q, with the default parameter values and with others
        (an offset written with a parameter's value instead of its symbol was accepted, and a run
        at another value followed the wrong constraint with a residual that read 0); an offset
        with a b that depends on time is refused (w0 may not: it matched b at t = 0 only)."""
        if self.has_offset and self.system.core.affine_depends_on_time:
            raise ModelError("the affine part b(q, t) of the constraints depends on time, and a frame's offset w0(q) "
                             "cannot: A w0 = b would hold at one time only. Use the coordinate model "
                             "(system.nonholonomic(form='qdot')) for a time-dependent b")
        rng = np.random.default_rng(2)
        names, defaults = self.system.parameter_names, np.asarray(self.system.param_vector(), dtype=float)
        radius = 1.0  # halved where the system is not defined (a ball in a bowl of radius 0.9: z = -sqrt(...))
        for trial in range(6):
            other = defaults * rng.uniform(0.9, 1.1, defaults.size) + rng.uniform(0.01, 0.02, defaults.size)
            params = None if trial % 2 == 0 else {k: round(float(v), 4) for k, v in zip(names, other)}
            found = None
            for _ in range(12):
                q = rng.uniform(-radius, radius, self.n)
                try:
                    X = self.matrix(q, params)
                    A, b = self.system.constraint_matrix(q, 0.0, params)  # an offset's b: not time-dependent
                except (ModelError, ArithmeticError):  # a q outside the system's domain (its metric there)
                    X = A = None
                except ValueError:  # values the system's own checks refuse (an inertia off its triangle)
                    if params is None:
                        raise
                    break
                if X is not None and np.isfinite(X).all() and np.isfinite(A).all():
                    found = X, A, b
                    break
                radius /= 2
            if found is None:
                continue  # other values refused, or no q of the system's domain near 0: the runs' checks decide
            X, A, b = found
            at = f"q = {q}" + ("" if params is None else f" and the parameters {params}")
            if not self._spans(A, X):
                if params is not None and self._spans_at_defaults(q):
                    raise ModelError(
                        f"the first {self.rank} frame vectors span D = ker A at the system's parameter values but not "
                        f"at others (A X_D != 0 at {at}, each value moved about 10% from the system's): write the "
                        "frame in the system's parameter symbols, not their numbers, since a run may change them")
                raise ModelError(f"the first {self.rank} frame vectors do not span D = ker A (A X_D != 0 at {at})")
            if abs(np.linalg.det(X)) < 1e-12:
                raise ModelError(f"the frame vectors are linearly dependent at {at}")
            w0 = self.offset_at(q, params)
            if A.size and np.abs(A @ w0 - b).max() > 1e-9 * (1 + np.abs(A).max() * np.abs(w0).max() + np.abs(b).max()):
                raise ModelError(f"the offset does not satisfy the constraints (A w0 != b at {at}; write it with the "
                                 "parameters' symbols, not their values)")

    def structure_functions(self, q, params=None) -> np.ndarray:
        """R[k, i, j] with [X_i, X_j] = R^k_ij X_k at q, shape (n, n, n), from the AD derivatives
        of the frame: R^k_ij = (X^-1)^k_l (X_i^s d_s X_j^l - X_j^s d_s X_i^l)."""
        X, dX = self._core.evaluate(np.asarray(q, float), self._params(params))[:2]
        bracket = np.einsum("si,sLj->Lij", X, dX) - np.einsum("sj,sLi->Lij", X, dX)
        return np.einsum("kl,lij->kij", np.linalg.inv(X), bracket)

    def structure_functions_symbolic(self, simplify: bool = True) -> sp.MutableDenseNDimArray:
        """The same, symbolically (for display): R[k, i, j] as a SymPy array."""
        X, q, n = self.vectors, self.system.coordinates, self.n
        Theta = X.inv()
        R = sp.MutableDenseNDimArray.zeros(n, n, n)
        for i in range(n):
            for j in range(n):
                bracket = sp.Matrix([sum(X[s, i] * X[l, j].diff(q[s]) - X[s, j] * X[l, i].diff(q[s]) for s in range(n))
                                     for l in range(n)])
                comps = Theta * bracket
                for kk in range(n):
                    R[kk, i, j] = sp.simplify(comps[kk]) if simplify else comps[kk]
        return R

    def quasi_velocities(self, q, qdot, params=None) -> np.ndarray:
        """v = X(q)^-1 (q' - w0(q)), shape (n,): (v^alpha, v^a), v^a = 0 on C (w0 = 0 without offset)."""
        return np.linalg.solve(self.matrix(q, params), self._vector(qdot, "qdot") - self.offset_at(q, params))

    def velocity(self, q, v_alpha, params=None) -> np.ndarray:
        """q' = X_D(q) v^alpha + w0(q), shape (n,)."""
        v = self._vector(v_alpha, "v_alpha", self.rank)
        return self.matrix(q, params)[:, : self.rank] @ v + self.offset_at(q, params)

    # ---------------------------------------------------------------- models
    @model_factory
    def hamel(self):
        """Nonholonomic dynamics in the frame (Hamel's equations restricted to C; Prop. 1),
        state ``[q, v^1 .. v^m]``: (X_D^T G X_D) v' = X_D^T (F - c - dV - G (D_w X_D) v), q' = X_D v.

        A run re-splits the numeric Voronets frame where max|B_aj| > 10 (v^alpha mapped through
        q' = X_D v, ``result.frame_switches``) and stops (FRAME_SINGULAR) where a frame given by
        vectors has condition number above 1e6, as the frame form of the reduced model."""
        from ..models.model import FrameModel  # a factory of the models layer, as System's

        return FrameModel(self.system, "hamel", _core.hamel_model(self._core), self, self._names())

    @model_factory
    def vakonomic(self):
        """Vakonomic dynamics in the frame (section 4, L - mu_a v^a), state
        ``[q, v^1 .. v^m, mu_1 .. mu_k]``; mu(0) is free initial data.

        Watched as :meth:`hamel`. mu_a theta^a is a point of the annihilator of D (theta^a the
        constraint rows of X^-1); for the Voronets frame theta_C = A_s^-1 A, so
        mu = A_s^T lambda with lambda the multipliers of ``system.vakonomic()``, and a re-split
        maps mu' = A_s'^T A_s^-T mu: the vakonomic Lagrangian, and so the motion, is unchanged."""
        from ..models.model import FrameModel

        if self.has_offset:
            raise ValueError("the frame-vakonomic model is implemented for linear constraints (a frame without "
                             "offset); use system.vakonomic()")
        names = self._names() + [f"mu_{a}" for a in range(self.system.k)]
        return FrameModel(self.system, "frame_vakonomic", _core.frame_vakonomic_model(self._core), self, names)

    def _names(self) -> list:
        return [*self.system.coordinate_names, *self.velocity_names]

    def state(self, q, qdot, params=None) -> np.ndarray:
        """``[q, v^alpha]`` from a coordinate velocity on C (its v^a must vanish); ModelError where the
        Voronets split is singular at q (:meth:`check_split`)."""
        self.check_split(q, params)
        v = self.quasi_velocities(q, qdot, params)
        if self.system.k and np.abs(v[self.rank:]).max() > 1e-9 * (1 + np.abs(v).max()):
            raise ValueError(f"qdot violates the constraints at these parameter values: its constraint "
                             f"quasi-velocities are {np.abs(v[self.rank:]).max():.3g}, not 0. Pass project_y0=True "
                             "to simulate to project it onto the constraint set (G-orthogonally), or use "
                             "system.project(q, qdot)")
        return np.r_[np.asarray(q, float), v[: self.rank]]

    def check_split(self, q, params=None, t: float | None = None, coordinates: str = "system.nonholonomic()") -> None:
        """ModelError where the split of a numeric Voronets frame is singular at q: its block A_s of the
        constraint rows (the solved coordinates' columns) is singular there or nearly, the dependent
        velocities B = -A_s^-1 A_r above the condition a run stops at, so that no state in the frame's
        speeds stands for a velocity there (a sleigh solved for y at heading pi/2: y' = tan(phi) x').
        A run re-splits where the split degrades, but a state is given in the split it starts in. Nothing
        for other frames. ``coordinates``: the coordinate model the message offers instead."""
        if self.solved is None or self.form != "numeric" or not self.system.k:
            return
        A, _ = self.system.constraint_matrix(self._vector(q, "q"), t, params)
        free = [i for i in range(self.n) if i not in set(self.solved)]
        with np.errstate(all="ignore"):
            try:
                growth = float(np.abs(np.linalg.solve(A[:, self.solved], A[:, free])).max(initial=0.0))
            except np.linalg.LinAlgError:
                growth = np.inf
        if growth <= START_GROWTH:
            return
        names = self.system.coordinate_names
        solved, regular = [names[i] for i in self.solved], [names[i] for i in _pivot_columns(A, self.system.k)]
        point = np.array2string(np.asarray(q, float), precision=6)
        raise ModelError(f"the Voronets frame's split, which solves the constraints for {solved}, is singular at "
                         f"q = {point}: its block A_s of the constraint rows is singular there or nearly (max "
                         f"|A_s^-1 A_r| = {growth:.3g}, above the {START_GROWTH:g} a start allows, where its speeds "
                         f"fix the velocity to 1e-8 relative; a run re-splits above 10), so no state in its speeds "
                         f"{self.velocity_names[: self.rank]} stands for a velocity there. A run re-splits where the "
                         f"split degrades, but cannot start on a singular one: build the frame with a split regular "
                         f"here (AnholonomicFrame(system, solved={regular})), or use the coordinate model "
                         f"({coordinates})")

    def multipliers(self, q, v_alpha, t: float | None = None, params=None) -> np.ndarray:
        """lambda_a = Gamma(X_a^V L) - X_a^C L (eq. (10)) at (q, v^alpha), shape (k,); ``t`` is needed
        where the force or b depends on time. ValueError naming q or v_alpha where it is not finite (NaN
        came back as the multipliers, an outside probe found)."""
        return _core.frame_multipliers(self.hamel().core, time_argument(self.system.core, t), self._vector(q, "q"),
                                       self._vector(v_alpha, "v_alpha", self.rank), self._params(params))

    # ---------------------------------------------------------------- Proposition 2
    def criterion(self, phi, points: int = 12, seed: int = 0, tol: float = 1e-9, params=None) -> CriterionResult:
        """Check the conditions of Proposition 2 for candidate functions phi_a on C:

            phi_a R^a_{alpha beta} v^beta = 0,   Gamma(phi_a) + phi_b R^b_{a alpha} v^alpha = lambda_a,

        at ``points`` random points (q, v^alpha). ``phi`` holds k SymPy expressions in the
        coordinates and the velocity symbols (any extension Phi_a off C, e.g. dL/ds'^a). Gamma(phi)
        is the derivative along the nonholonomic flow (exact, by AD of phi's tape). When the
        conditions hold, the Lagrangian L - Phi_a v^a is built with its Hessian in the velocities.
        """
        system, m, k = self.system, self.rank, self.system.k
        phi = [to_sympy(f, "phi") for f in (phi if isinstance(phi, (list, tuple, sp.MatrixBase)) else [phi])]
        if len(phi) != k:
            raise ValueError(f"phi must hold k = {k} functions (one per constraint quasi-velocity), got {len(phi)}")
        check_free_symbols(phi, {*system.coordinates, *system.velocities, *system.parameters}, "phi")
        tape = lower(phi, system._inputs).tape()
        p = self._params(params)
        rng = np.random.default_rng(seed)
        model = system.nonholonomic(form="qdot")
        res1, res2, pts = [], [], []
        for _ in range(points):
            q = rng.uniform(-1, 1, self.n)
            v = rng.uniform(-1, 1, m)
            qdot = self.velocity(q, v, params)
            inputs = np.r_[q, qdot, 0.0, p]
            values, jac = tape(inputs), tape.jacobian(inputs)
            qddot = model.rhs(0.0, np.r_[q, qdot], params)[self.n:]
            gamma_phi = jac[:, : self.n] @ qdot + jac[:, self.n: 2 * self.n] @ qddot
            R = self.structure_functions(q, params)
            lam = self.multipliers(q, v, 0.0, params)
            res1.append(np.einsum("a,aib,b->i", values, R[m:, :m, :m], v))
            res2.append(gamma_phi + np.einsum("b,bai,i->a", values, R[m:, m:, :m], v) - lam)
            pts.append(np.r_[q, v])
        res1, res2 = np.array(res1), np.array(res2)
        holds = bool(np.abs(res1).max() < tol and np.abs(res2).max() < tol)
        result = CriterionResult(holds, res1, res2, points=np.array(pts))
        if holds:
            self._lagrangian(phi, result, params)
        return result

    def _lagrangian(self, phi, result: CriterionResult, params) -> None:
        system = self.system
        qd = sp.Matrix(system.velocities)
        L = (qd.T * sp.Matrix(system.metric) * qd)[0] / 2 - system.potential
        theta = self.vectors.inv()[self.rank:, :]  # the constraint rows of the coframe
        v_constraint = theta * qd
        Ltilde = sp.expand(L - sum(f * va for f, va in zip(phi, v_constraint)))
        H = sp.hessian(Ltilde, list(system.velocities))
        result.lagrangian, result.hessian = Ltilde, H
        result.force = None if all(f == 0 for f in system.force) else system.force
        result.hessian_det = sp.factor(sp.simplify(H.det()))
        f = sp.lambdify([*system.coordinates, *system.parameters], H, "numpy")
        q = result.points[0, : self.n]
        eig = np.linalg.eigvalsh(np.asarray(f(*q, *self._params(params)), dtype=float))
        scale = np.abs(eig).max()
        result.signature = (int((eig > 1e-12 * scale).sum()), int((eig < -1e-12 * scale).sum()))
        result.regular = bool(np.abs(eig).min() > 1e-12 * scale)

    def __repr__(self) -> str:
        return f"<nonholo.AnholonomicFrame {self.name!r}: n={self.n}, rank D = {self.rank}>"

    def __reduce__(self):
        return (rebuild_frame, (self.system, self._spec))


def rebuild_frame(system, spec) -> AnholonomicFrame:
    """The frame of ``spec`` = (vectors, solved, form[, offset, velocity names])
    (``AnholonomicFrame._spec``), for pickling."""
    vectors, solved, form, *rest = spec
    offset, names = rest if rest else (None, None)
    return AnholonomicFrame(system, vectors, solved=solved, form=form, offset=offset, velocity_names=names)


def _offset(offset, n: int, system) -> sp.ImmutableMatrix:
    """The offset w0(q) as an (n, 1) matrix in the coordinates and parameters."""
    w0 = sp.ImmutableMatrix(offset)
    if w0.shape == (1, n):
        w0 = w0.T
    if w0.shape != (n, 1):
        raise ValueError(f"offset has shape {w0.shape}, expected ({n}, 1)")
    if system.time in w0.free_symbols:
        raise ValueError(f"offset depends on the time {system.time}: an anholonomic frame and its offset are "
                         "functions of q; constraints A v = b(q, t) integrate q' (system.nonholonomic(form='qdot'))")
    check_free_symbols(list(w0), {*system.coordinates, *system.parameters}, "offset")
    return w0
