"""The geometric objects of a system in closed form, with SymPy (for display and checks).

The numerical path (``System.projectors``, ``friction_operator``, ``qmat``, ``christoffel``) runs
in C++ on the system's tape; this module forms the same objects symbolically from the system's
SymPy expressions (Gzenda-Chhabra: eq. (5) of section 2.1, eqs. (9)-(11) of section 2.1.1,
eqs. (37)-(38) of section 3 and Lemma 4 of section 4.1; the coordinate closed forms of P_perp and
Qmat are our derivation):

    M = A G^-1 A^T,   P_perp = G^-1 A^T M^-1 A,   P = Id - P_perp,
    FR# = G^-1 A^T mu A,   Qmat = G^-1 A^T M^-1 mu^-1 M^-1 A,
    Gamma^i_jk = 1/2 G^il (d_k G_jl + d_j G_kl - d_l G_jk).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["geometry_symbolic"]


def geometry_symbolic(system, simplify: bool = True) -> dict:
    """P, P_perp, FR#, Qmat and the Christoffel symbols of ``system`` as SymPy objects.

    Parameters
    ----------
    system : nonholo.System
    simplify : bool
        Simplify every entry (``sympy.simplify``); slow for large systems. Without it the
        entries are correct but unsimplified.

    Returns
    -------
    dict
        ``"M"`` (k x k), ``"P"``, ``"P_perp"``, ``"FR"`` (FR# = G^-1 A^T mu A), ``"Qmat"`` (n x n
        matrices) and ``"christoffel"``, an n x n x n ``sympy.Array`` with
        ``christoffel[i, j, k]`` = Gamma^i_jk (the layout of ``System.christoffel``). Functions
        of the coordinates and the parameters (symbols as in ``system.coordinates`` and
        ``system.parameters``). For a system without constraints P = Id and P_perp, FR#, Qmat
        are zero.
    """
    n, k = system.n, system.k
    q = list(system.coordinates)
    tidy = (lambda e: sp.simplify(e)) if simplify else (lambda e: e)
    G = sp.Matrix(system.metric)
    Ginv = _inverse(G, tidy)
    if k:
        A = sp.Matrix(system.constraints)
        mu = sp.Matrix(system.friction_coefficients)
        GinvAT = Ginv * A.T
        M = (A * GinvAT).applyfunc(tidy)
        Minv = _inverse(M, tidy)
        P_perp = (GinvAT * Minv * A).applyfunc(tidy)
        P = (sp.eye(n) - P_perp).applyfunc(tidy)
        FR = (GinvAT * mu * A).applyfunc(tidy)
        Qmat = (GinvAT * Minv * _inverse(mu, tidy) * Minv * A).applyfunc(tidy)
    else:
        M = sp.zeros(0, 0)
        P, P_perp, FR, Qmat = sp.eye(n), sp.zeros(n, n), sp.zeros(n, n), sp.zeros(n, n)
    dG = [G.diff(qk) for qk in q]  # dG[k][j, l] = d_k G_jl
    gamma = sp.MutableDenseNDimArray.zeros(n, n, n)
    for i in range(n):
        for j in range(n):
            for kk in range(j, n):
                value = sum(Ginv[i, l] * (dG[kk][j, l] + dG[j][kk, l] - dG[l][j, kk]) for l in range(n)) / 2
                gamma[i, j, kk] = gamma[i, kk, j] = tidy(value)
    return {"M": M, "P": P, "P_perp": P_perp, "FR": FR, "Qmat": Qmat, "christoffel": sp.ImmutableDenseNDimArray(gamma)}


def _inverse(matrix: sp.Matrix, tidy) -> sp.Matrix:
    """adj(matrix)/det(matrix) by Berkowitz's algorithm: division-free, no pivoting and hence no
    zero tests on symbolic pivots (SymPy's default Gauss-Jordan inverse can stall on them)."""
    det = tidy(matrix.det(method="berkowitz"))
    if det == 0:
        raise ValueError("singular matrix in geometry_symbolic (dependent constraint rows, or a degenerate metric)")
    return matrix.adjugate(method="berkowitz") / det
