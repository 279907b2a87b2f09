"""The derivatives of a collocation point's functions, by automatic differentiation on the lowered
graph in C++ (``nonholo.control.transcription.point_functions``): against SymPy's derivatives at
random points, and their sparsity against the variables each function depends on."""

import numpy as np
import sympy as sp

from nonholo.control.transcription import point_functions


def _outputs():
    a, b, c, d, e = z = sp.symbols("a b c d e")
    return list(z), [
        a * sp.sin(b) + c**3 / (1 + d**2),
        sp.sqrt(2 + sp.cos(a * e)) - sp.exp(-b * c) + sp.atan(d - e),
        sp.Integer(3) * e,  # linear: no second derivative
        (a - b) ** 2 * sp.log(3 + c**2) + sp.tanh(d) * e,
        sp.Integer(7),  # a constant: no derivative at all
    ]


def test_jacobian_and_hessian_equal_sympys_at_random_points():
    z, F = _outputs()
    pf = point_functions(z, F)
    m, n = len(F), len(z)
    J_exact = sp.Matrix(F).jacobian(z)
    mu = sp.symbols("mu0:%d" % m)
    H_exact = sp.hessian(sum(w * f for w, f in zip(mu, F)), z)
    J_f, H_f = sp.lambdify([z], J_exact, "numpy"), sp.lambdify([z, mu], H_exact, "numpy")
    rng = np.random.default_rng(7)
    for _ in range(5):
        x, w = rng.uniform(-1, 1, n), rng.normal(size=m)
        values = np.asarray(pf.node(x))
        assert np.allclose(values[:m], [float(f.subs(dict(zip(z, x)))) for f in F], rtol=1e-14, atol=1e-14)
        J = np.zeros((m, n))
        J[pf.jac_rows, pf.jac_cols] = values[m:]
        assert np.allclose(J, np.asarray(J_f(x), dtype=float), rtol=1e-13, atol=1e-14)
        H = np.zeros((n, n))
        H[pf.hess_rows, pf.hess_cols] = np.asarray(pf.hessian(np.r_[x, w]))
        assert all(r >= c for r, c in zip(pf.hess_rows, pf.hess_cols))  # the lower triangle, each entry once
        H_ref = np.asarray(H_f(x, w), dtype=float)
        assert np.allclose(np.tril(H_ref), H, rtol=1e-13, atol=1e-14)


def test_the_sparsity_is_the_dependence():
    z, F = _outputs()
    pf = point_functions(z, F)
    pattern = set(zip(pf.jac_rows, pf.jac_cols))
    expected = {(o, i) for o, f in enumerate(F) for i, s in enumerate(z) if s in f.free_symbols}
    assert pattern == expected  # the constant output has no entry, 3 e only its column
    # the Hessian's entries are those of sum_o w_o F_o that do not vanish identically (the linear
    # and the constant outputs add none)
    second = {(r, c) for r, c in zip(pf.hess_rows, pf.hess_cols)}
    hessian = sp.hessian(sum(sp.Symbol(f"w{o}") * f for o, f in enumerate(F)), z)
    assert second == {(r, c) for r in range(len(z)) for c in range(r + 1) if hessian[r, c] != 0}
