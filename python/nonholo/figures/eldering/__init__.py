"""Eldering (2016), "Realizing nonholonomic dynamics as limit of friction forces": every figure

Split by role: :mod:`.experiments` (computations returning data), :mod:`.figures` (plots of that
data, registered for ``make figures``), :mod:`.report` (the REPORT.md section). The package's
namespace holds all three, so ``from nonholo.figures import eldering as X; X.name`` keeps working.
"""

from . import experiments, figures, report

for _module in (experiments, figures, report):
    globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
del _module
