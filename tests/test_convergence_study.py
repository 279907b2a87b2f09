"""nh.studies.convergence on systems written here in plain SymPy: the errors and slopes against the
order K + 1 the theory gives, and what it does with inputs that have no such slope."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def knife_on_incline():
    x, y, phi = sp.symbols("x y phi")
    m, J, g, alpha = sp.symbols("m J g alpha", positive=True)
    return nh.System([x, y, phi], sp.diag(m, m, J), potential=-m * g * sp.sin(alpha) * x,
                     constraints=sp.Matrix([[sp.sin(phi), -sp.cos(phi), 0]]),
                     parameters={m: 1.0, J: 0.5, g: 9.81, alpha: 0.3})


EPS = [1e-2, 5e-3, 2.5e-3]
Y0 = [0, 0, 0, 0.7, 0, 1.3]


def test_default_orders_have_slopes_k_plus_one_and_repeated_orders_are_refused():
    knife = knife_on_incline()
    study = nh.studies.convergence(knife, EPS, Y0, (0, 2), orders=(0, 1), progress=False)
    assert study.orders == (0, 1)
    assert 0.9 < study.slopes[0] < 1.1 and 1.85 < study.slopes[1] < 2.15
    # a repeated order paired each error with the wrong eps (slope 0.80 for 1.99): refused by name
    with pytest.raises(ValueError, match="orders has the order 1 twice"):
        nh.studies.convergence(knife, EPS, Y0, (0, 2), orders=(0, 1, 1), progress=False)
    with pytest.raises(TypeError, match=r"orders\[0\] must be an integer >= 0, got 1.5"):
        nh.studies.convergence(knife, EPS, Y0, (0, 2), orders=(1.5,), progress=False)
    with pytest.raises(ValueError, match=r"orders\[1\] must be an integer from 0 to 16, got -1"):
        nh.studies.convergence(knife, EPS, Y0, (0, 2), orders=(0, -1), progress=False)


def test_backward_span_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="t_span must run forward in time"):
        nh.studies.convergence(knife_on_incline(), EPS, Y0, (2, 0), orders=(0,), progress=False)


def test_exact_reduced_model_gives_nan_slopes_with_a_warning_and_keeps_the_study():
    """A constraint y' = 0 that no force pushes against: the friction force is zero, every reduced
    model is exact, errors and slips are zero to rounding. The study comes back (it raised after all
    its runs were done) with NaN where no rate can be fitted."""
    x, y = sp.symbols("x y")
    free = nh.System([x, y], sp.eye(2), potential=x**2 / 2, constraints=sp.Matrix([[0, 1]]))
    with pytest.warns(RuntimeWarning, match="slip residuals of order 0 are zero at eps = 0.01, 0.005, 0.0025"):
        study = nh.studies.convergence(free, EPS, [1.0, 0, 0, 0], (0, 2), orders=(0,), progress=False)
    assert np.all(study.slip_residuals[0] == 0) and np.isnan(study.slip_slopes[0])
    assert np.all(study.errors[0] < 1e-9)


def test_the_friction_reference_takes_a_jacobian_every_step():
    """The study's friction runs are its reference: a kept Jacobian left them 5.8e-10 off at rtol 1e-12 on an
    outside probe's sleigh with its mass off the blade's line (a = 0.4 ahead, 0.15 beside), which flattened
    order 2's slope to 1.77 (3.03 against a reference of the probe's own). The order-2 error at eps = 1e-4,
    about 8e-12 by that reference, is now within 1e-10 (5.4e-11), and the slope above 2.1."""
    x, y, th = sp.symbols("x y theta")
    m, inertia, a, b = 1.0, 0.3, 0.4, 0.15
    c, s = sp.cos(th), sp.sin(th)
    J = sp.Matrix([[1, 0, -a * s - b * c], [0, 1, a * c - b * s]])  # the mass's velocity
    G = sp.simplify(m * J.T * J + sp.diag(0, 0, inertia))
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-s, c, 0]]))
    q0 = np.array([0.1, -0.2, 0.3])
    u0 = sleigh.project(q0, np.array([1.0, 0.5, 0.8]))
    study = nh.studies.convergence(sleigh, np.geomspace(1e-4, 1e-2, 5), np.r_[q0, u0], (0, 5), orders=(0, 1, 2),
                                   progress=False)
    assert study.errors[2][0] < 1e-10
    assert study.slopes[2] > 2.1
    assert abs(study.slopes[1] - 2.0) < 0.05
