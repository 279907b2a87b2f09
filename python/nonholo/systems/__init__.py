"""Built-in systems, each an ordinary :class:`~nonholo.System` defined in SymPy.

Every factory takes the physical parameters as defaults of runtime parameters, so the same
compiled system serves a sweep over them (``simulate(..., params={...})``).
"""

from .chaplygin_sleigh import chaplygin_sleigh
from .vertical_rolling_disk import vertical_rolling_disk

__all__ = ["chaplygin_sleigh", "vertical_rolling_disk"]
