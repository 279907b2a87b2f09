"""Checks of the arguments every solver entry point shares, in one place.

``simulate``, ``simulate_many``, ``simulate_discrete``, ``vakonomic_bvp``, ``fit`` and the studies
take the same kinds of arguments (a time span, tolerances, a method, step limits, counts). Each is
checked here once, before anything is integrated, and a bad value raises ``ValueError`` (or
``TypeError`` for a value of the wrong kind) naming the argument and the value received. The C++
core repeats the essential checks for its own callers (``cpp/src/integrate/integration.cpp``); Python callers
meet these messages first.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import numpy.typing as npt

from . import _core

__all__ = ["real_number", "finite_float", "positive", "non_negative", "count", "t_span", "tolerances", "method",
           "t_eval", "all_finite", "wall_time", "step_options", "solver_options", "cvode_knobs", "CVODE_KNOBS",
           "PASSED_THROUGH", "METHODS", "threads", "MAX_THREADS", "real_state", "real_array", "compile_option"]

METHODS = ("auto", "bdf", "adams", "dop853")
MACHINE_EPSILON = float(np.finfo(float).eps)  # the smallest rtol a step can meet (tolerances)


def real_number(value, name: str) -> float:
    """``value`` as a float; TypeError naming ``name`` for what is no real number: a bool (``True``
    would be taken as 1.0), a string (``float("0.2")`` would read it), anything float() refuses."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got the bool {value!r}")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a real number, got the string {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}") from None


def finite_float(value, name: str) -> float:
    """``value`` as a float; TypeError when it is not a real number (a bool is not one: ``True``
    would be taken as 1.0), ValueError when NaN or inf."""
    x = real_number(value, name)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def positive(value, name: str, *, allow_inf: bool = False) -> float:
    """``value`` > 0 as a float (finite unless ``allow_inf``); a bool is not a number here."""
    x = real_number(value, name)
    if not (x > 0 and (allow_inf or math.isfinite(x))):
        raise ValueError(f"{name} must be positive{'' if allow_inf else ' and finite'}, got {x}")
    return x


def non_negative(value, name: str) -> float:
    """``value`` >= 0 and finite as a float; None counts as 0 (no limit)."""
    if value is None:
        return 0.0
    x = real_number(value, name)
    if not (x >= 0 and math.isfinite(x)):
        raise ValueError(f"{name} must be non-negative and finite, got {x}")
    return x


def count(value, name: str, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (integral floats are accepted; bools and fractions are not)."""
    if type(value) is int and minimum <= value <= MAX_COUNT:  # the usual case, at once
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if not isinstance(value, (int, np.integer)) and not (math.isfinite(float(value)) and float(value) == int(value)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {int(value)}")
    if int(value) > MAX_COUNT:
        raise ValueError(f"{name} must be at most {MAX_COUNT} (a 64-bit integer), got {value!r}")
    return int(value)


MAX_COUNT = 2**63 - 1  # counts go to C++ as 64-bit integers


# the most worker threads simulate_many and sweep start: far above any machine's cores, far below
# what would exhaust the process's memory for stacks (8 MiB each by default)
MAX_THREADS = 1024


def flag(value, name: str, none: bool = False) -> bool | None:
    """True or False (NumPy's too; None when ``none``); TypeError naming ``name`` for anything else,
    where ``bool("no")`` would silently be True."""
    if value is None and none:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False{' (or None)' if none else ''}, got {value!r:.80}")


def compile_option(value) -> bool | str:
    """``compile`` of the batch calls: True, False or "auto"."""
    if value is True or value is False or (isinstance(value, str) and value == "auto"):
        return value
    raise ValueError(f"compile must be True, False or 'auto', got {value!r}")


def threads(value) -> int | None:
    """A thread count: None (all cores) or an integer in 1..MAX_THREADS (bools, fractions and
    strings are TypeError: ``threads=2.7`` is not silently truncated)."""
    if value is None:
        return None
    n = count(value, "threads")
    if n > MAX_THREADS:
        raise ValueError(f"threads must be at most {MAX_THREADS}, got {n}")
    return n


def _no_text_or_bools(value, name: str, depth: int = 0) -> None:
    """TypeError naming ``name`` for a string or a bool inside nested lists or tuples, which NumPy would
    take as numbers (``[0, True]`` as [0., 1.], ``[0.5, "0.7"]`` as strings, read by float)."""
    for x in value:
        if isinstance(x, (bool, np.bool_)):
            raise TypeError(f"{name} must hold real numbers, got the bool {x!r}")
        if isinstance(x, (str, bytes)):
            raise TypeError(f"{name} must hold real numbers, got the string {x!r:.80}")
        if isinstance(x, (list, tuple)) and depth < 32:
            _no_text_or_bools(x, name, depth + 1)


def real_array(value, name: str, copy: bool = False) -> np.ndarray:
    """``value`` as a float array (a copy when ``copy``); TypeError naming ``name`` for strings, bools,
    sets and mappings (taken as numbers, or in no order) and for what is no number; ValueError for a
    ragged nesting and for integers beyond the range of a float."""
    if isinstance(value, (str, bytes, set, frozenset, Mapping)):
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__} {value!r:.80}")
    if isinstance(value, (list, tuple)):
        _no_text_or_bools(value, name)
    try:
        array = np.array(value) if copy else np.asarray(value)
    except ValueError as exc:  # "inhomogeneous shape": rows of different lengths
        raise ValueError(f"{name} must be a rectangular array of numbers (rows of equal length), got "
                         f"{value!r:.80} ({exc})") from None
    kind = array.dtype.kind
    if kind == "f":
        return array if array.dtype == np.float64 else array.astype(float)
    if kind in "iu":
        return array.astype(float)
    if kind == "b":
        raise TypeError(f"{name} must hold real numbers, got booleans")
    if kind in "USa":
        raise TypeError(f"{name} must hold real numbers, got strings {value!r:.80}")
    if kind == "c":
        if np.any(array.imag != 0):
            raise TypeError(f"{name} must be real, got a complex array with non-zero imaginary part "
                            f"(max |imag| = {np.abs(array.imag).max():.3g})")
        return array.real.astype(float)
    if kind == "O":  # Python ints beyond int64, or numbers of other kinds (SymPy's, Fraction, Decimal)
        values = []
        for x in array.reshape(-1).tolist():
            if isinstance(x, (bool, np.bool_, str, bytes)):
                raise TypeError(f"{name} must hold real numbers, got {x!r:.80}")
            try:
                values.append(float(x))
            except OverflowError:
                raise ValueError(f"{name} holds a number too large for a float: {x!r:.40}") from None
            except (TypeError, ValueError):
                raise TypeError(f"{name} must hold real numbers, got {type(x).__name__} {x!r:.80}") from None
        return np.array(values, dtype=float).reshape(array.shape)
    raise TypeError(f"{name} must be an array of real numbers, got {value!r:.80}")


def real_state(value, name: str = "y0") -> np.ndarray:
    """A state as a float array (a copy); a complex one is a TypeError when its imaginary part is not
    zero (NumPy would drop it with only a ComplexWarning); strings, bools, ragged rows and integers
    beyond a float's range are refused naming ``name`` (:func:`real_array`)."""
    return real_array(value, name, copy=True)


TIME_LIMIT = 1e150  # the largest |t0|, |tf| of a t_span (t_span)


def t_span(value, *, forward: bool = False) -> tuple:
    """(t0, tf): two finite numbers, t0 != tf (t0 < tf when ``forward``), neither beyond TIME_LIMIT in
    magnitude; not a string or booleans (the string "01" read as (0, 1))."""
    unordered = isinstance(value, (str, bytes, set, frozenset, Mapping))  # a set has no order
    if unordered or (isinstance(value, np.ndarray) and value.ndim != 1) or any(
            isinstance(x, (bool, np.bool_, str, bytes)) for x in
            (value if isinstance(value, (tuple, list, np.ndarray)) else ())):
        raise ValueError(f"t_span must be a pair (t0, tf) of numbers, got {value!r:.80}")
    try:
        t0, tf = (float(x) for x in value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"t_span must be a pair (t0, tf) of numbers, got {value!r}") from None
    if not (math.isfinite(t0) and math.isfinite(tf)):
        raise ValueError(f"t_span must be finite, got ({t0}, {tf})")
    if t0 == tf:
        raise ValueError("t_span must have t0 != tf")
    if max(abs(t0), abs(tf)) > TIME_LIMIT:
        raise ValueError(f"t_span = ({t0:g}, {tf:g}) reaches beyond {TIME_LIMIT:g}: the solvers' first step estimate "
                         "multiplies two bounds of the order of the times (CVODE's geometric mean), which overflows a "
                         "double past about 1e160 (a sleigh run to 1e200 by BDF ended at y = 0 as a success)")
    if forward and tf < t0:
        raise ValueError(f"t_span must run forward (t0 < tf), got ({t0}, {tf})")
    return t0, tf


def tolerances(rtol, atol, n_states: int | None = None) -> tuple:
    """(rtol, atol): rtol a finite number not below np.finfo(float).eps (a large one makes the error test
    never bind: fixed steps with first_step = max_step, as the order tests take them); atol positive and
    finite, a scalar or one entry per state (any length when ``n_states`` is None). atol comes back as a 1-d array."""
    rtol = positive(rtol, "rtol")
    if rtol < MACHINE_EPSILON:
        raise ValueError(f"rtol = {rtol:.3g} is below double precision's resolution {MACHINE_EPSILON:.3g} "
                         "(np.finfo(float).eps): no step can meet it (one spent 500,000 steps to t = 0.074 of 1); "
                         "about 1e-13 is the tightest rtol that helps")
    if type(atol) is float or type(atol) is int:  # the usual scalar: plain comparisons
        if not (atol > 0 and math.isfinite(atol)):
            raise ValueError("atol must be positive and finite")
        return rtol, np.array((float(atol),))
    given = np.asarray(atol)
    if given.dtype.kind not in "fiu":  # a string ("1e-10" read as the number), a bool, a complex number
        raise TypeError(f"atol must be a positive number or one per state, got {atol!r:.80}")
    try:
        atol = np.atleast_1d(np.asarray(given, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"atol must be a number or an array of numbers, got {atol!r}") from None
    if atol.ndim != 1 or (n_states is not None and atol.size not in (1, n_states)):
        raise ValueError(f"atol must be a scalar or have shape ({n_states},), got shape {atol.shape}")
    if not np.all((atol > 0) & np.isfinite(atol)):
        raise ValueError("atol must be positive and finite")
    return rtol, atol


def method(value) -> str:
    """'auto', 'bdf', 'adams' or 'dop853' (any case), lower-cased."""
    if not isinstance(value, str) or value.lower() not in METHODS:
        raise ValueError(f"method must be 'auto', 'bdf', 'adams' or 'dop853', got {value!r}")
    return value.lower()


def t_eval(value: npt.ArrayLike | None, t0: float, tf: float) -> np.ndarray | None:
    """Output times inside [t0, tf], finite and sorted in the direction of integration."""
    if value is None:
        return None
    times = real_array(value, "t_eval")
    if times.ndim > 1:  # a (1, n) array was flattened silently
        raise ValueError(f"t_eval must be one-dimensional (a sequence of times), got shape {times.shape}")
    times = times.reshape(-1)
    if _in_order(times, t0, tf):
        return times
    if not np.all(np.isfinite(times)):
        raise ValueError("t_eval contains NaN or inf")
    lo, hi = min(t0, tf), max(t0, tf)
    if times.size and (times.min() < lo or times.max() > hi):
        raise ValueError(f"t_eval must lie within t_span = ({t0}, {tf})")
    raise ValueError("t_eval must be sorted in the direction of integration")


def _in_order(times: np.ndarray, t0: float, tf: float) -> bool:
    """t0 <= times[0] <= ... <= times[-1] <= tf (>= when tf < t0): the times are finite (NaN
    fails every comparison, t0 and tf are finite), inside t_span and sorted. A loop over
    floats for the usual few times, NumPy for many."""
    forward = tf > t0
    if times.size <= 64:
        prev = t0
        for x in times.tolist():
            if not (prev <= x if forward else prev >= x):
                return False
            prev = x
        return prev <= tf if forward else prev >= tf
    bounded = np.concatenate(((t0,), times, (tf,)))
    return bool((bounded[1:] >= bounded[:-1] if forward else bounded[1:] <= bounded[:-1]).all())


def all_finite(values: np.ndarray) -> bool:
    """True when every entry of a float array is finite: a finite plain sum says so at once (a
    NaN or inf would make it NaN or inf); NumPy's elementwise test when the sum overflows."""
    return math.isfinite(sum(values.reshape(-1).tolist())) or bool(np.isfinite(values).all())


def wall_time(value, name: str = "max_wall_time") -> float:
    """A wall-clock limit in seconds, positive: None or inf for none (returned as 0, the core's "no
    limit"); 0 is refused (it read as no limit, where the documentation says stop after 0 s)."""
    if value is None or (isinstance(value, (int, float, np.integer, np.floating)) and math.isinf(value) and value > 0):
        return 0.0
    return positive(value, name)


def step_options(max_step=math.inf, first_step=None, max_steps: int = 500_000, max_wall_time=None) -> dict:
    """CVODE's step limits in the core's convention (0 = no limit / CVODE's choice)."""
    max_step = positive(max_step, "max_step", allow_inf=True)
    return dict(max_step=0.0 if math.isinf(max_step) else max_step, first_step=non_negative(first_step, "first_step"),
                max_steps=count(max_steps, "max_steps"), max_wall_time=wall_time(max_wall_time))


def solver_options(n_states: int, rtol, atol, method_name, max_step=math.inf, first_step=None,
                   max_steps: int = 500_000, max_wall_time=None) -> dict:
    """All of simulate's scalar solver options, checked: rtol, atol, method, max_step, first_step,
    max_steps, max_wall_time (the keys of the returned dict)."""
    rtol, atol = tolerances(rtol, atol, n_states)
    options = dict(rtol=rtol, atol=atol, method=method(method_name))
    options.update(step_options(max_step, first_step, max_steps, max_wall_time))
    return options


# CVODE's tuning knobs: name -> (type, smallest value, largest value or None), read from the core's
# one list of solver_options keys (cpp/bindings/expose_integrate.cpp, kSolverOptionKeys), which
# also names the keys that take other values (unit_norm's index pairs: PASSED_THROUGH).
_KINDS = {"int": int, "float": float}
CVODE_KNOBS = {name: (_KINDS[kind], _KINDS[kind](low), None if high is None else _KINDS[kind](high))
               for name, (kind, low, high) in _core.solver_option_keys().items() if kind in _KINDS}
PASSED_THROUGH = tuple(name for name in _core.solver_option_keys() if name not in CVODE_KNOBS)
# keys that take one of a few strings: name -> the strings (jacobian_costs: "measured" or "estimated")
CHOICES = {name: tuple(low) for name, (kind, low, _) in _core.solver_option_keys().items() if kind == "choice"}


# the highest order of each method's CVODE instance (max_order): BDF's 5 (also auto's, whose stiff phase is BDF),
# Adams' 12; DOP853 has the fixed order 8. CVODE refused 6 and above for BDF only at its setup, "CVodeSetMaxOrd
# (flag -22)", naming neither the option nor the limit, and DOP853 ignored the option.
HIGHEST_ORDER = {"bdf": 5, "auto": 5, "adams": 12}


def cvode_knobs(options: Mapping | None, method: str | None = None, also: tuple = ()) -> dict:
    """The checked ``solver_options`` mapping of simulate (names, types, ranges and choices; ``max_order``
    against ``method``'s highest order where the method is given); ``unit_norm`` (PASSED_THROUGH) passes
    through (the core checks its indices). ``also``: keys a caller takes out first (a stick-slip run's
    max_switches), named among the known ones where a key is unknown."""
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"solver_options must be a mapping, got {type(options).__name__}")
    checked = {}
    for key, value in (options or {}).items():
        if key in CHOICES and not (isinstance(value, str) and value in CHOICES[key]):
            raise ValueError(f"solver_options[{key!r}] must be one of {', '.join(map(repr, CHOICES[key]))}, "
                             f"got {value!r}")
        if key in PASSED_THROUGH:
            checked[key] = value
            continue
        if key not in CVODE_KNOBS:
            raise ValueError(f"unknown key {key!r} in solver_options; known: "
                             f"{', '.join([*_core.solver_option_keys(), *also])}")
        kind, low, high = CVODE_KNOBS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or (
                kind is int and float(value) != int(value)):
            raise TypeError(f"solver_options[{key!r}] must be {'an integer' if kind is int else 'a number'}, "
                            f"got {value!r}")
        value = kind(value)
        if not (math.isfinite(value) and value >= low and (high is None or value <= high)) or (
                kind is float and value <= low):
            bound = f"between {low} and {high}" if high is not None else f"greater than {low}"
            raise ValueError(f"solver_options[{key!r}] must be {bound}, got {value}")
        checked[key] = value
    if method is not None and "max_order" in checked:
        if method not in HIGHEST_ORDER:
            raise ValueError(f"solver_options['max_order'] sets the order of CVODE's Adams and BDF; method={method!r} "
                             "has a fixed order (DOP853's 8)")
        if checked["max_order"] > HIGHEST_ORDER[method]:
            what = {"auto": "BDF's (auto's stiff phase is BDF)", "bdf": "BDF's", "adams": "Adams'"}[method]
            raise ValueError(f"solver_options['max_order'] must be at most {HIGHEST_ORDER[method]} with "
                             f"method={method!r}, {what} highest order; got {checked['max_order']}")
    return checked
