"""Deprecated location: use :mod:`nonholo.systems.chaplygin_sleigh.discrete`."""

import warnings

from .systems.chaplygin_sleigh.discrete import *  # noqa: F401,F403
from .systems.chaplygin_sleigh.discrete import __all__  # noqa: F401

warnings.warn("nonholo.discrete_sleigh moved to nonholo.systems.chaplygin_sleigh.discrete; the old path will be "
              "removed in the next release", DeprecationWarning, stacklevel=2)
