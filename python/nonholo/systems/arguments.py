"""Checks of the built-in systems' numeric arguments: each refusal names the argument.

A value must be a real number (an ``int``, a ``float``, a NumPy scalar; not a bool, a string or a
SymPy expression) and finite; ``positive`` and ``non_negative`` add the sign. Called before a
symbol is made, so that a bad value fails at once with a ValueError or TypeError saying which
argument and why, not later in SymPy, in the compiled code or in an integrator that never ends.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def real(value, name: str, *, positive: bool = False, non_negative: bool = False, why: str = "") -> float:
    """``value`` as a finite float; TypeError unless a real number (bools refused), ValueError
    if not finite, or not > 0 (``positive``) or not >= 0 (``non_negative``). ``why``: a reason
    appended to the message in parentheses."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {value!r:.100}")
    x = float(value)
    reason = f" ({why})" if why else ""
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}{reason}")
    if positive and not x > 0:
        raise ValueError(f"{name} must be positive, got {x:g}{reason}")
    if non_negative and not x >= 0:
        raise ValueError(f"{name} must be non-negative, got {x:g}{reason}")
    return x


def reals(value, name: str, *, positive: bool = False, why: str = ""):
    """A real number or an array of them (e.g. the speeds of a gain curve), finite (and > 0 with
    ``positive``), as a float or a float array; the refusals of :func:`real`."""
    if isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_)):
        return real(value, name, positive=positive, why=why)
    try:
        array = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything that is not an array of numbers
        array = np.asarray(None)
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or an array of real numbers, got {value!r:.100}")
    array = array.astype(float)
    reason = f" ({why})" if why else ""
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite, got {value!r:.100}{reason}")
    if positive and not np.all(array > 0):
        raise ValueError(f"{name} must be positive, got {value!r:.100}{reason}")
    return array


def integer(value, name: str, *, minimum: int = 1, why: str = "") -> int:
    """``value`` as an int: a Python or NumPy integer, or an integral float (``3.0``); TypeError naming
    ``name`` for a bool, a fraction, a string or anything else, ValueError below ``minimum``
    ("must be a positive integer" for minimum 1, "a non-negative integer" for 0)."""
    reason = f" ({why})" if why else ""
    kind = {1: "a positive integer", 0: "a non-negative integer"}.get(minimum, f"an integer >= {minimum}")
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {kind}{reason}, got the bool {value!r}")
    if isinstance(value, numbers.Integral):
        n = int(value)
    elif isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value).is_integer():
        n = int(float(value))
    else:
        raise TypeError(f"{name} must be {kind}{reason}, got {value!r:.100}")
    if n < minimum:
        raise ValueError(f"{name} must be {kind}{reason}, got {n}")
    return n


def not_text(value, name: str, *, optional: bool = False):
    """``value`` unchanged unless it is a string or a bool (TypeError naming ``name``: ``"1"`` or ``True``
    would be taken as a number later, or fail there without the argument's name); None passes when
    ``optional``. For values that may also be symbols (runtime parameters), which :func:`real` refuses."""
    if value is None and optional:
        return value
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number, got {value!r:.100}")
    return value


def number_or_symbol(value, name: str, *, positive: bool = False, non_negative: bool = False, why: str = ""):
    """``value`` checked by :func:`real` (with its sign conditions) when it is a number, returned as a
    float; a SymPy expression (a value given as a symbol) passes unchanged; a string, a bool or None is
    refused (:func:`not_text`)."""
    value = not_text(value, name)
    if isinstance(value, numbers.Real):
        return real(value, name, positive=positive, non_negative=non_negative, why=why)
    return value


def finite_product(value, name: str, what: str):
    """``value`` (a float computed from the arguments, such as an inertia m r^2 / 4) unless it is not finite:
    ValueError naming the arguments ``name`` and the quantity ``what`` (a radius of 1e300 squared)."""
    if isinstance(value, numbers.Real) and not math.isfinite(float(value)):
        raise ValueError(f"{what} from {name} is {float(value)}: not a finite number (give smaller values of {name})")
    return value
