"""Shared fixtures and the tolerance constants of the test suite, each with its reason."""

import pytest

import nonholo as nh
# the tolerances (each with its reason) and helpers live in nonholo.testing; re-exported for the tests
from nonholo.testing import (  # noqa: F401
    ANALYTIC_TOL, FD_STEP, FD_TOL, IDENTITY_TOL, TIGHT_ATOL, TIGHT_RTOL, central_difference, random_system,
)


@pytest.fixture(scope="session")
def sleigh():
    return nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)


@pytest.fixture(scope="session")
def disk():
    return nh.systems.vertical_rolling_disk(m=1.0, R=1.0, I=0.25, J=0.5)
