"""Gzenda and Chhabra: the rolling disk's slow manifold, computed.

Split by role: :mod:`.experiments` (computations returning data), :mod:`.figures` (plots of that
data, registered for ``make figures``), :mod:`.report` (the REPORT.md section). The package's
namespace holds all three, so ``from papers import gzenda_chhabra as X; X.name`` keeps working.
"""

from ..registry import export_roles
from . import experiments, figures, report

export_roles(globals(), experiments, figures, report)
