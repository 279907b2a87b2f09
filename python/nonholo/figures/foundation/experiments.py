r"""Foundation figures: the Chaplygin sleigh, nonholonomic and with friction, and the benchmark.

This module: the computations (experiments returning data); plots in ``figures.py``, report text in
``report.py``.
"""

from __future__ import annotations

SLEIGH = dict(m=1.0, I=1.0, a=0.2)
U0, OMEGA0, T = -1.5, 1.0, 20.0
EPS = [1e-1, 1e-2, 1e-3]
Y0 = [0.0, 0.0, 0.0, U0, 0.0, OMEGA0]


