"""The zero modes and the steady check of a stiff friction model at small eps (an outside probe's vertical
rolling disc): its Jacobian's entries of size 1/eps carry rounding of about machine eps / eps wherever large
terms cancel, which the deflation's local bound (the entries a zero mode's vector touches) did not see. A
heading's chain zero came out as a physical +2.6e-9 at eps = 1e-8 and is_stable() said False; at eps = 1e-9
a straight run on the constraints to 1e-16 was refused as no steady motion. The exact spectrum (the model
G v' = -(1/eps) A^T A v by hand): six zeros, -1/(m eps) and -(1/m + R^2/J)/eps, for every eps."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

M, R, I, J = 2.0, 0.4, 0.3, 0.5


def vertical_disc():
    x, y, th, ph, m, r, i, j = sp.symbols("x y theta phi m R I J")
    A = sp.Matrix([[1, 0, 0, -r * sp.cos(th)], [0, 1, 0, -r * sp.sin(th)]])
    return nh.System([x, y, th, ph], sp.diag(m, m, i, j), constraints=A, parameters={m: M, r: R, i: I, j: J})


def straight_run(heading=0.7, spin=3.0):
    return np.array([0, 0, heading, 0, R * spin * np.cos(heading), R * spin * np.sin(heading), 0.0, spin])


@pytest.mark.parametrize("eps", [1e-3, 1e-6, 1e-7, 1e-8, 1e-9])
def test_a_stiff_friction_model_keeps_its_zero_modes_and_its_verdict(eps):
    lin = nh.linearize(vertical_disc().friction(eps), straight_run())
    assert lin.n_zero == 6
    fast = np.sort(lin.physical_eigenvalues.real)
    np.testing.assert_allclose(fast, sorted([-1 / (M * eps), -(1 / M + R**2 / J) / eps]), rtol=1e-7)
    assert np.abs(lin.physical_eigenvalues.imag).max() == 0
    assert lin.is_stable()


def test_no_critical_value_along_eps():
    path = nh.eigenvalue_path(vertical_disc().friction(1e-3), "eps", np.logspace(-8.5, -4, 19),
                              lambda eps: straight_run())
    assert nh.critical_values(path) == []


def test_a_slow_physical_eigenvalue_of_a_stiff_model_stays_physical():
    """The floor is the Jacobian's rounding, far below a slow mode: a sleigh backing up slowly at eps 1e-10
    keeps its unstable -2 m a u / (I + m a^2) = +6.8e-3, and forward its stable one."""
    x, y, phi = sp.symbols("x y phi")
    m, i, a = 2.0, 0.7, 0.3
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), i + m * a**2]])
    sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]))
    for u in (0.01, -0.01):
        lin = nh.linearize(sleigh.friction(1e-10), [0, 0, 0, u, 0, 0])
        slow = lin.physical_eigenvalues[np.argmin(np.abs(lin.physical_eigenvalues))]
        assert lin.n_zero == 4
        assert abs(slow - (-m * a * u / (i + m * a**2))) < 1e-6 * abs(u)
        assert lin.is_stable() == (u > 0)
