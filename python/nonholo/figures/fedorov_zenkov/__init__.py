"""Fedorov and Zenkov (2005), "Dynamics of the discrete Chaplygin sleigh": Figures 1-3

Split by role: :mod:`.experiments` (computations returning data), :mod:`.figures` (plots of that
data, registered for ``make figures``), :mod:`.report` (the REPORT.md section). The package's
namespace holds all three, so ``from nonholo.figures import fedorov_zenkov as X; X.name`` keeps working.
"""

from . import experiments, figures, report

for _module in (experiments, figures, report):
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
del _module
