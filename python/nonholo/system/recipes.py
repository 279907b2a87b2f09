"""How a model was made: the factory call that makes it again, the one way every model unpickles.

Every factory of a model (``System.nonholonomic``, ``friction``, ``vakonomic``, ``reduced``,
``discrete``; ``AnholonomicFrame.hamel``, ``vakonomic``) is wrapped by :func:`model_factory`,
which records on the model it returns the call ``(owner, factory, args, kwargs)``. A model pickles
as that call (``Model.__reduce__``): unpickling makes the system (or frame) again and calls the
same factory with the same arguments. A model kind added later needs no pickling code of its own.
"""

from __future__ import annotations

import functools

__all__ = ["model_factory"]


def model_factory(method):
    """Record on the model ``method`` returns how it was made (``model.recipe``)."""

    @functools.wraps(method)
    def make(owner, *args, **kwargs):
        model = method(owner, *args, **kwargs)
        model.recipe = (owner, method.__name__, args, kwargs)
        return model

    return make
