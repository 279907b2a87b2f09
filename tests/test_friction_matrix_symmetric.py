"""The friction coefficients mu must be symmetric. A non-symmetric mu was refused by system.friction()
only: System accepted it, the order-2 reduced model ran on it (status 0), and qmat returned the inverse
of its lower triangle read as a symmetric matrix, so Q F_R# = P_perp failed."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th = sp.symbols("x y theta")
ROWS = sp.Matrix([[1, 0, 0], [0, 1, 0]])


def system(mu):
    return nh.System([x, y, th], sp.eye(3), constraints=ROWS, friction=mu)


@pytest.mark.parametrize("mu", [[[2, 5], [0, 3]], [[2, 0], [5, 3]], [[2, sp.sin(th)], [0, 3]],
                                # small entries: an outside probe's 1e-12 [[1, 0.5], [0, 1]] was taken
                                (1e-12 * sp.Matrix([[1, 0.5], [0, 1]])).tolist(),
                                [[1e-12, 1e-13 * sp.sin(th)], [0, 1e-12]]])
def test_a_friction_matrix_that_is_not_symmetric_is_refused(mu):
    with pytest.raises(ValueError, match=r"friction must be a symmetric matrix .*mu\[\d, \d\]"):
        system(sp.Matrix(mu))


def test_symmetric_friction_matrices_are_taken():
    """Symmetric as expressions, or equal only as functions (sin^2 + cos^2 against 1); the default
    (no friction=) is the identity."""
    for mu in (sp.Matrix([[2, 1], [1, 3]]), sp.Matrix([[2, sp.sin(th)**2 + sp.cos(th)**2], [1, 3]]),
               1e-12 * sp.Matrix([[2, sp.sin(th)**2 + sp.cos(th)**2], [1, 3]])):
        sys_ = system(mu)
        Q = sys_.qmat([0.0, 0.0, 0.3])
        assert np.allclose(Q, Q.T)
    default = system(None)
    np.testing.assert_allclose(default.qmat([0.0, 0.0, 0.3]), np.diag([1.0, 1.0, 0.0]), atol=1e-15)
