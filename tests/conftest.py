"""Shared fixtures and the tolerance constants of the test suite, each with its reason."""

import numpy as np
import pytest

import nonholo as nh
from nonholo.testing import random_system  # noqa: F401  (re-exported for the tests)

# Integrations run at TIGHT_RTOL/TIGHT_ATOL and are compared with analytic solutions at
# ANALYTIC_TOL: CVODE's global error is a modest multiple of its local tolerance over the
# O(10) time units these tests use (the tolerance hierarchy of AMICI's tests).
TIGHT_RTOL = 1e-11
TIGHT_ATOL = 1e-13
ANALYTIC_TOL = 1e-7

# Pointwise identities of linear algebra at random points: round-off of O(n) Cholesky solves on
# well-conditioned matrices (condition numbers below 1e3 by construction).
IDENTITY_TOL = 1e-11

# Central finite differences with step h have error O(h^2 f''') + O(eps_mach / h): with
# h = 1e-6 both are below 1e-8 for the O(1) functions used here.
FD_STEP = 1e-6
FD_TOL = 1e-7


@pytest.fixture(scope="session")
def sleigh():
    return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)


@pytest.fixture(scope="session")
def disk():
    return nh.systems.vertical_rolling_disk(m=1.0, R=1.0, I=0.25, J=0.5)


def central_difference(f, x, h=FD_STEP):
    """d f / d x by central differences, shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    cols = [(np.asarray(f(x + h * e)) - np.asarray(f(x - h * e))) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)
