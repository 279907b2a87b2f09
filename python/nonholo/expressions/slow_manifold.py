"""The slow-manifold coefficients h^(k) in closed form, with SymPy (for display and checks).

The numerical path (``System.slip``) runs in C++ by Taylor arithmetic; this module derives the
same coefficients symbolically from the coordinate form of the invariance equation, so the
two are independent implementations of one definition. With v = u + s, u on the constraint
set and s = sum_k eps^k h^(k)(t, q, u) in D_perp (our coordinate form of the generating equation,
Gzenda-Chhabra Theorem 1, section 4.1):

    s = eps Qmat (f(q, v, t) - u' - s'),   s' = ds/dq v + ds/du u' + ds/dt,
    u' = P [f - G^-1 (dA_v^T M^-1 A s - dG_v s)] + G^-1 A^T M^-1 (a + dA_v s),

and h^(k+1) = Qmat [eps^k-coefficient of f - u' - s'].
"""

from __future__ import annotations

import sympy as sp

__all__ = ["slip_symbolic"]


def _directional(matrix: sp.Matrix, coords, direction) -> sp.Matrix:
    """sum_l d(matrix)/d q^l direction_l."""
    out = sp.zeros(*matrix.shape)
    for ql, dl in zip(coords, direction):
        out += matrix.diff(ql) * dl
    return out


def slip_symbolic(system, order: int = 2, simplify: bool = True) -> list:
    """h^(1), ..., h^(order) as SymPy column vectors in the coordinates, the time, the
    parameters and the velocity symbols (standing for u = P v + v_b on the constraint set).

    Intended for small systems and low orders (symbolic inverses of G and M are formed).
    """
    if order < 1:
        raise ValueError("order must be at least 1")
    q = sp.Matrix(system.coordinates)
    u = sp.Matrix(system.velocities)
    t = system.time
    eps = sp.Symbol("epsilon")
    n = system.n
    G, A, b = sp.Matrix(system.metric), sp.Matrix(system.constraints), sp.Matrix(system.affine)
    mu, V = sp.Matrix(system.friction_coefficients), system.potential
    # The building blocks are small: simplify them once, so the expansion below stays compact.
    tidy = sp.simplify if simplify else (lambda e: e)
    Ginv = tidy(G.inv())
    GinvAT = tidy(Ginv * A.T)
    Minv = tidy((A * GinvAT).inv())
    P = tidy(sp.eye(n) - GinvAT * Minv * A)
    Qmat = tidy(GinvAT * Minv * mu.inv() * Minv * A)
    dV = sp.Matrix([V.diff(qi) for qi in q])

    def applied_force(v):
        # F - c(q, v) - dV, c_i = sum_jk (d_k G_ij - 1/2 d_i G_jk) v^j v^k
        c = _directional(G, q, v) * v - sp.Matrix([(v.T * G.diff(qi) * v)[0] / 2 for qi in q])
        F = sp.Matrix(system.force).subs({s: v[i] for i, s in enumerate(system.velocities)}, simultaneous=True)
        return F - c - dV

    def projected_acceleration(v, s):
        f = Ginv * applied_force(v)
        dG_v, dA_v = _directional(G, q, v), _directional(A, q, v)
        a = b.jacobian(q) * v + b.diff(t) - dA_v * v
        X = dA_v.T * Minv * A * s - dG_v * s
        return f, P * (f - Ginv * X) + GinvAT * Minv * (a + dA_v * s)

    s_sym = sp.Matrix(sp.symbols(f"_s0:{n}"))
    f_u, U0 = projected_acceleration(u, sp.zeros(n, 1))
    h1 = tidy(Qmat * tidy(f_u - U0))
    coefficients = [h1]
    if order >= 2:
        # eps^1 of f(u + s) - u'(s) - s' with s = eps h1: directional derivatives at s = 0
        f_s, U_s = projected_acceleration(u + s_sym, s_sym)
        at_zero = {si: 0 for si in s_sym}
        J_f = f_s.jacobian(s_sym).subs(at_zero)
        J_U = U_s.jacobian(s_sym).subs(at_zero)
        h1_dot = h1.jacobian(q) * u + h1.jacobian(u) * U0 + h1.diff(t)
        coefficients.append(tidy(Qmat * tidy(J_f * h1 - J_U * h1 - h1_dot)))
    for k in range(2, order):
        # higher orders: the eps-coefficient of the whole invariance equation (slow but general)
        s = sp.zeros(n, 1)
        for j, h in enumerate(coefficients, start=1):
            s += eps**j * h
        v = u + s
        f, udot = projected_acceleration(v, s)
        sdot = s.jacobian(q) * v + s.jacobian(u) * udot + s.diff(t)
        coeff = (f - udot - sdot).diff(eps, k).subs(eps, 0) / sp.factorial(k)
        coefficients.append(tidy(Qmat * tidy(coeff)))
    return coefficients
