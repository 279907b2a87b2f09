"""Presentation: drawings of configurations, animations of results and plots (matplotlib, imported
lazily so that nonholo itself does not need it)."""

from . import animation, drawing, plot

__all__ = ["animation", "drawing", "plot"]
