"""Figures of the papers, recomputed by nonholo.

Each figure is a function ``fig_*(path) -> dict`` that writes one PNG and returns the numbers
worth reporting beside it. :func:`make_all` runs every registered figure and writes
``REPORT.md`` with our numbers beside the papers'; ``make figures`` calls it through
``python -m papers``.
"""

from __future__ import annotations

from .registry import FIGURES, REPORT_SECTIONS, make_all

__all__ = ["FIGURES", "REPORT_SECTIONS", "make_all"]
