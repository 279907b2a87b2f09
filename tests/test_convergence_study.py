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
