"""Deprecated location: use :mod:`nonholo.systems.chaplygin_sleigh.frames`."""

import warnings

from .systems.chaplygin_sleigh.frames import *  # noqa: F401,F403
from .systems.chaplygin_sleigh.frames import __all__  # noqa: F401

warnings.warn("nonholo.sleigh_frames moved to nonholo.systems.chaplygin_sleigh.frames; the old path will be removed "
              "in the next release", DeprecationWarning, stacklevel=2)
