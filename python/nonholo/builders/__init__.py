"""Builders of Systems: rigid bodies, convex surfaces, rolling contact, multibody mechanisms.
They produce ordinary :class:`~nonholo.System` objects and import nothing above the System layer
(but the drawing primitives of ``nonholo.viz.drawing`` for a mechanism's picture)."""

from . import bodies, contact, multibody, surfaces

__all__ = ["bodies", "contact", "multibody", "surfaces"]
