"""Shared fixtures and the tolerance constants of the test suite, each with its reason."""

import hashlib
import os
import pickle
import sys
from pathlib import Path

import pytest
import sympy as sp

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


# ------------------------------------------------------------------ cached SymPy references
# Independent SymPy derivations (references the tests compare nonholo against) can take a minute
# and change only with their inputs: they are pickled under ~/.cache/nonholo/test-references (or
# NONHOLO_TEST_CACHE), keyed by the content of the files they depend on and SymPy's version.
# Never used for nonholo's own output: a cached answer of the code under test would test nothing.
REFERENCE_CACHE = Path(os.environ.get("NONHOLO_TEST_CACHE", Path.home() / ".cache" / "nonholo" / "test-references"))


def cached_reference(name: str, compute, *depends):
    """``compute()``, or its pickled value from an earlier run with the same ``depends`` (paths
    of the source files whose content defines it) and the same SymPy."""
    digest = hashlib.sha256(f"{name}|{sp.__version__}|{sys.version_info[:2]}".encode())
    for path in depends:
        digest.update(Path(path).read_bytes())
    where = REFERENCE_CACHE / f"{name}-{digest.hexdigest()[:20]}.pkl"
    try:
        return pickle.loads(where.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
        pass
    value = compute()
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        partial = where.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(pickle.dumps(value))
        partial.replace(where)  # atomic: parallel workers never read half a file
    except OSError:
        pass  # a read-only home: compute each time
    return value
