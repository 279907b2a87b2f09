r"""Splitting a state matrix into its zero modes (symmetry, conserved quantities, families of
steady motions) and its physical part, by exact deflation of invariant subspaces.

A state matrix A (m x m) at a steady motion has zero eigenvalues for structural reasons:

1. a cyclic coordinate q_c (the equations do not contain it): A e_c = 0, the drift of the
   motion along q_c;
2. neighbouring steady motions (another speed, heading, ...): vectors w with A w in the span of
   the drift directions, i.e. the kernel of the matrix induced on the quotient by them;
3. longer chains: w with A w in the span of (1) and (2), e.g. a slow circular motion near a
   straight one, whose heading drifts.

Each level is an invariant subspace. We deflate them one after the other: the cyclic directions
exactly (unit vectors), each further level by the SVD kernel of the induced quotient matrix
(orthonormal bases, so every step is an orthogonal similarity). The zero eigenvalues come out
exactly zero with their multiplicities; the remaining physical eigenvalues are those of the last
quotient matrix, computed without the rounding a defective zero eigenvalue would spread
(errors of order sqrt(machine eps) when the full matrix is handed to an eigenvalue solver).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ZeroMode", "Deflation", "deflate"]


@dataclass(frozen=True)
class ZeroMode:
    """A group of zero eigenvalues with one cause.

    Attributes
    ----------
    kind : str
        ``"cyclic"`` (a symmetry: the coordinate does not enter the equations and the motion
        drifts along it), ``"conserved"`` (neighbouring steady motion at another value of a
        conserved quantity, e.g. the energy), ``"family"`` (neighbouring steady motions not tied
        to a quantity found conserved, e.g. a rotation symmetry that is no cyclic coordinate in
        these coordinates) or ``"chain"`` (a generalized eigenvector: a neighbouring motion whose
        perturbation grows linearly in a neutral direction, or a critical point where a physical
        mode reaches zero).
    multiplicity : int
    reason : str
        A sentence saying why.
    vectors : ndarray, shape (N, multiplicity)
        The directions in the full state.
    coordinate : str or None
        The cyclic coordinate's name (``kind == "cyclic"``), else None.
    """

    kind: str
    multiplicity: int
    reason: str
    vectors: np.ndarray
    coordinate: str | None = None


@dataclass(frozen=True)
class Deflation:
    """Result of :func:`deflate`: zero levels and the physical quotient matrix."""

    levels: list          # [(m x g_i) orthonormal bases]: level 0 the cyclic unit vectors
    physical: np.ndarray  # the quotient matrix on the complement, (m - m0) x (m - m0)
    complement: np.ndarray  # its orthonormal basis in R^m, m x (m - m0)

    @property
    def counts(self) -> list:
        return [L.shape[1] for L in self.levels]

    @property
    def n_zero(self) -> int:
        return sum(self.counts)


#: Below ROUNDING * machine eps * ||A||_2 a singular value is A's rounding, whatever its vector touches: the
#: entries of a stiff matrix carry that much from cancelling terms of size ||A|| (a friction model at eps
#: 1e-8, d(A^T A v / eps)/dq at a v off the constraints by 1e-16, left a heading's chain zero at +2.6e-9)
ROUNDING = 100


def deflate(A: np.ndarray, cyclic: list, tol: float = 1e-12, counts: list | None = None) -> Deflation:
    """Deflate the cyclic directions and then the kernels of the successive quotient matrices.

    ``tol``: a singular value s with right singular vector w counts as zero when s <= tol *
    max(1, ||A||_2) and, where smaller, s <= tol * max(1, || |B| |w| ||_2), B the quotient matrix:
    the size of B w's rounding, which for a slow mode of a stiff matrix (a sleigh carrying a spring
    of k = 1e9, ||A|| = 1e9) does not see the large entries its vector does not touch (its
    unstable 9.6e-4 passed for a zero mode under the first bound alone). ``counts`` (the dimensions
    of the levels after the cyclic one) fixes the structure instead, as the root finder of
    :func:`~nonholo.critical_values` needs near a critical point.
    """
    m = A.shape[0]
    rest = [i for i in range(m) if i not in set(cyclic)]
    Z0 = np.eye(m)[:, list(cyclic)]
    R = np.eye(m)[:, rest]
    Bq = A[np.ix_(rest, rest)]
    levels = [Z0]
    norm = np.linalg.norm(A, 2) if m else 0.0
    threshold = tol * max(1.0, norm)
    rounding = ROUNDING * np.finfo(float).eps * norm
    level = 0
    while Bq.shape[0]:
        _, s, Wh = np.linalg.svd(Bq)
        if counts is not None:
            g = counts[level] if level < len(counts) else 0
        else:
            local = tol * np.maximum(1.0, np.linalg.norm(np.abs(Bq) @ np.abs(Wh.T), axis=0))
            zero = s <= np.maximum(np.minimum(threshold, local), rounding)
            g = len(s) if zero.all() else int(np.argmin(zero[::-1]))  # the trailing ones
        if g == 0:
            break
        W = Wh.T
        K, Wr = W[:, -g:], W[:, :-g]
        levels.append(R @ K)
        R = R @ Wr
        Bq = Wr.T @ Bq @ Wr
        level += 1
    return Deflation(levels, Bq, R)
