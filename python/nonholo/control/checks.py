"""Checks of the arguments of optimal control problems (:class:`~nonholo.OptimalControlProblem`) and
their solutions: each bad value raises ValueError or TypeError naming the argument, strings are
parsed without evaluation (:func:`~nonholo.expressions.parsing.to_sympy`), and sizes that cannot be
held are refused before anything is allocated."""

from __future__ import annotations

import ast
import math
import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import sympy as sp

from ..expressions.lowering import check_free_symbols
from ..expressions.parsing import parse, to_sympy

__all__ = ["expression", "real", "sympy_real", "inequalities", "ipopt_options", "MAX_NLP_VARIABLES", "mesh_size",
           "times", "frames", "tolerance", "endpoint", "duration", "named_bounds", "ends_on_holonomic",
           "ends_within_bounds", "minimum_time_attained", "symbol_kinds", "unpenalized_controls"]

#: The largest NLP (variables) a solve builds: about 0.2 GB for its vectors alone, far beyond the
#: meshes IPOPT solves in reasonable time; a larger ``nodes`` is refused before anything is allocated.
MAX_NLP_VARIABLES = 10**7
#: The most frames ``animate`` draws (each is a redraw of the figure).
MAX_FRAMES = 100_000
#: IPOPT options whose values load HSL's library when the solve starts: where it is missing, IPOPT 3.11
#: aborts the process ("You need to compile the HSL dynamic library ... Abort", an outside probe's
#: linear_solver "ma97" and nlp_scaling_method "equilibration-based"), where other HSL choices (ma27)
#: come back as an invalid option.
HSL_CHOICES = {("linear_solver", s) for s in ("ma27", "ma57", "ma77", "ma86", "ma97")} | {
    ("nlp_scaling_method", "equilibration-based"), ("linear_system_scaling", "mc19")}
_INEQUALITIES = {ast.LtE: sp.LessThan, ast.Lt: sp.StrictLessThan, ast.GtE: sp.GreaterThan, ast.Gt: sp.StrictGreaterThan}


def real(value, what: str, *, finite: bool = True) -> float:
    """``value`` as a float: TypeError for what is not a real number (a bool, a complex number, a
    string, a SymPy expression with symbols), ValueError for NaN (and inf when ``finite``). A SymPy
    number is one whatever its form (pi, sqrt(2), a Rational, a Float: :func:`sympy_real`)."""
    if isinstance(value, sp.Basic):
        x = sympy_real(value, what)
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {value!r}")
    else:
        x = float(value)
    if math.isnan(x) or finite and not math.isfinite(x):
        raise ValueError(f"{what} must be a finite number, got {value!r:.200}")
    return x


def sympy_real(value: sp.Basic, what: str) -> float:
    """A SymPy number as a float (NaN for nan, +-inf for +-oo): an outside probe's initial [0, 0, pi]
    was refused as no real number while Rational(3, 2) passed. TypeError naming ``what`` for an
    expression with symbols, no expression (a matrix, a relational) or a number not real (I, zoo), its
    value to within rounding (exp(I pi/3) + exp(-I pi/3) evaluates to 1 + 7e-21 I)."""
    if value is sp.nan:
        return math.nan
    if not isinstance(value, sp.Expr) or not value.is_number or value.is_extended_real is False:
        raise TypeError(f"{what} must be a real number, got {value!r:.200}")
    try:
        z = complex(value.evalf())
    except (TypeError, ValueError, ArithmeticError):
        raise TypeError(f"{what} must be a real number, got {value!r:.200}") from None
    if z.imag != 0 and not (value.is_extended_real or abs(z.imag) <= 1e-12 * abs(z.real)):
        raise TypeError(f"{what} must be a real number, got {value!r:.200} (= {z:.6g})")
    return z.real


def expression(value, what: str, allowed: set, kinds: Mapping | None = None, others: Mapping | None = None) -> sp.Expr:
    """A scalar SymPy expression of the symbols ``allowed``, finite: a string parsed without
    evaluation; TypeError or ValueError naming ``what`` otherwise. ``kinds`` (a description such
    as "the states" -> their names) says what ``what`` may contain, ``others`` (a description ->
    names) what a refused symbol is when it is known (a control in a terminal cost, the time)."""
    expr = to_sympy(value, what)
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        raise ValueError(f"{what} must be a scalar SymPy expression, got {value!r:.200}")
    if expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan) or expr.is_number and not expr.is_finite:
        raise ValueError(f"{what} must be finite, got {expr}")
    # a symbol spelled as one of the allowed but with other assumptions (a string parses to plain
    # symbols; the system's may be real=True) is that one
    names = {}
    for symbol in allowed:
        names.setdefault(str(symbol), []).append(symbol)
    same = {x: names[str(x)][0] for x in expr.free_symbols if x not in allowed and len(names.get(str(x), ())) == 1}
    if same:
        expr = expr.xreplace(same)
    if kinds is not None:
        outside = sorted({str(x) for x in expr.free_symbols if x not in allowed})
        if outside:
            known = {name: kind for kind, names in (others or {}).items() for name in names}
            may = " and ".join(f"{kind} {list(names)}" for kind, names in kinds.items() if names)
            raise ValueError(f"{what} may contain only {may}: "
                             + ", ".join(f"{name} is {known.get(name, 'none of them')}" for name in outside))
    check_free_symbols([expr], allowed, what)
    return expr


def symbol_kinds(problem, model) -> tuple:
    """({description: names} of the symbols a problem's costs and constraints may contain, the same
    of known symbols they may not): the messages of :func:`expression`."""
    kinds = {"the states": problem.state_names, "the controls": problem.control_names,
             "the algebraic variables": [str(z) for z in problem.algebraic]}
    time = getattr(model, "time", None)
    others = {"the time, which a cost or constraint cannot contain (only the states and controls at each point)":
              [str(time)] if time is not None else [],
              "a control, which a terminal cost (a function of the final state) cannot contain": problem.control_names,
              "a parameter of the system, which a cost or constraint cannot contain: substitute its value "
              "(expr.subs(symbol, value))": [str(p) for p in getattr(model, "parameters", ())
                                            if str(p) not in problem.control_names]}
    # a coordinate velocity that is no state (the Voronets frame's dependent ones): what the states give for it,
    # printed only in a refusal (the rates of a large system print slowly)
    rates = list(getattr(problem.dynamics, "rhs", ()))
    for i, v in enumerate(getattr(model, "velocities", ())[:len(rates)]):
        if str(v) not in problem.state_names:
            others[_DependentVelocity(v, rates[i])] = [str(v)]
    return kinds, others


class _DependentVelocity:
    """:func:`symbol_kinds`' description of a dependent velocity, its expression in the states formatted when
    a message prints it."""

    def __init__(self, velocity, rate):
        self.velocity, self.rate = velocity, rate

    def __str__(self) -> str:
        return (f"a velocity the constraints give from the states, {self.velocity} = {str(self.rate):.200} "
                "(write that instead)")


def _parsed_inequality(text: str, what: str):
    """``"lhs <= rhs"`` (or <, >=, >) as a SymPy relational, each side parsed without evaluation."""
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval").body
    except SyntaxError:
        tree = None
    if isinstance(tree, ast.Compare) and len(tree.ops) == 1 and type(tree.ops[0]) in _INEQUALITIES:
        lhs = parse(ast.unparse(tree.left), what)
        rhs = parse(ast.unparse(tree.comparators[0]), what)
        return _INEQUALITIES[type(tree.ops[0])](lhs, rhs)
    parse(text, what)  # refused with parse's message (a string that is no inequality at all)
    raise ValueError(f"{what}: the string {text!r:.200} is not an inequality (lhs <= rhs, lhs >= rhs)")


def inequalities(constraints, allowed: set, what: str = "path_constraints", kinds: Mapping | None = None,
                 others: Mapping | None = None):
    """(expressions g, bounds (-inf, 0)): each constraint a SymPy inequality or a string
    ``"lhs <= rhs"`` parsed without evaluation, as g <= 0; one inequality is a list of one
    (``kinds``, ``others``: :func:`expression`'s)."""
    if constraints is None:
        return [], []
    if isinstance(constraints, (sp.Basic, str)):
        constraints = [constraints]
    exprs, bounds = [], []
    for c in constraints:
        if isinstance(c, str):
            c = _parsed_inequality(c, what)
        if isinstance(c, (sp.LessThan, sp.StrictLessThan)):
            g = c.lhs - c.rhs
        elif isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)):
            g = c.rhs - c.lhs
        else:
            raise ValueError(f"{what} must be SymPy inequalities (<=, >=), got {c!r:.200}")
        exprs.append(expression(g, what, allowed, kinds, others))
        bounds.append((-math.inf, 0.0))
    return exprs, bounds


def solve_numbers(tol, max_iter, refine, refine_tol, max_wall_time, print_level) -> None:
    """ValueError naming the first of solve()'s numeric arguments out of its range."""
    if not (isinstance(tol, numbers.Real) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"tol must be positive and finite, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or not 0 <= max_iter < 2 ** 31:
        raise ValueError(f"max_iter must be a non-negative integer below 2**31 (IPOPT's C int), got {max_iter!r}")
    if isinstance(refine, bool) or not isinstance(refine, numbers.Integral) or refine < 0:
        raise ValueError(f"refine must be a non-negative integer, got {refine!r}")
    if refine_tol is not None and not real(refine_tol, "refine_tol") > 0:
        raise ValueError(f"refine_tol must be positive, got {refine_tol!r}")
    if max_wall_time is not None and not real(max_wall_time, "max_wall_time", finite=False) > 0:
        raise ValueError(f"max_wall_time must be positive, got {max_wall_time!r}")
    if isinstance(print_level, bool) or not isinstance(print_level, numbers.Integral) or not 0 <= print_level <= 12:
        raise ValueError(f"print_level must be an integer from 0 to 12 (IPOPT's), got {print_level!r}")


def mesh_size(nodes: int, step: int, block: int) -> None:
    """Refuse a mesh whose NLP would have more than MAX_NLP_VARIABLES variables."""
    variables = (step * (nodes - 1) + 1) * block
    if variables > MAX_NLP_VARIABLES:
        raise ValueError(f"nodes = {nodes} gives an NLP of {variables:.3g} variables, more than the "
                         f"{MAX_NLP_VARIABLES:.0e} a solve builds: use fewer nodes (or refine=)")


def times(t, t_final: float, what: str = "t") -> np.ndarray:
    """Times within [0, t_final] (to rounding) as a 1-D float array."""
    try:
        t = np.atleast_1d(np.asarray(t, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be times (numbers), got {t!r:.100}") from None
    if t.ndim != 1:
        raise ValueError(f"{what} must be one time or a 1-D sequence of times, got shape {t.shape}")
    slack = 1e-9 * max(1.0, t_final)
    if not np.all(np.isfinite(t)) or np.any(t < -slack) or np.any(t > t_final + slack):
        bad = t[~(np.isfinite(t) & (t >= -slack) & (t <= t_final + slack))]
        # every digit of a float (repr): a time 1e-6 past t_final = 1.0 read "got 1"
        raise ValueError(f"{what} must lie within the plan's [0, t_final] = [0, {float(t_final)!r}] (no "
                         f"extrapolation), got {float(bad[0])!r}")
    return np.clip(t, 0.0, t_final)


def frames(value) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"frames must be an integer, got {value!r}")
    if not 1 <= value <= MAX_FRAMES:
        raise ValueError(f"frames must be between 1 and {MAX_FRAMES}, got {value}")
    return int(value)


def tolerance(value, what: str) -> float:
    x = real(value, what)
    if not x > 0:
        raise ValueError(f"{what} must be positive, got {value!r}")
    return x


BOUND_RELAX = 1e-8  # IPOPT's bound_relax_factor: each bound relaxed by it times max(1, |bound|)


def default_ipopt_options(problem) -> list:
    """The IPOPT options a solve sets before the caller's: IPOPT's own test for an unbounded problem at
    1e12, not its 1e20 (a cost -x with v unbounded ran 3000 iterations to -2e19); and where a box of a
    state or a control is narrower than 1, its bound_relax_factor scaled down by the box's width: IPOPT
    relaxes a bound by the factor times max(1, |bound|), absolutely below 1, and an outside probe's double
    integrator with |a| <= 1e-6 sent 1e-6 ahead took T = 1.99011 for the least time 2 (the bound relaxed by
    1 %, 2 / sqrt(1.01)), its plan a success and its re-run 1 % short."""
    widths = [hi - lo for lo, hi in (*problem.state_bounds.values(), *problem.control_bounds.values())
              if math.isfinite(lo) and math.isfinite(hi) and hi > lo]
    narrowest = min(widths, default=1.0)
    return [("diverging_iterates_tol", 1e12)] + (
        [("bound_relax_factor", BOUND_RELAX * narrowest)] if narrowest < 1.0 else [])


def ipopt_options(options) -> list:
    """IPOPT's options as (name, value) pairs, the values as str, int or float; IPOPT itself checks
    the names and values (``_core.solve_collocation`` raises ValueError naming the option)."""
    if options is None:
        return []
    if not isinstance(options, Mapping):
        raise ValueError(f"ipopt_options must be a mapping of IPOPT option names to values, got {options!r}")
    out = []
    for name, value in options.items():
        if not isinstance(name, str):
            raise ValueError(f"ipopt_options names must be strings, got {name!r}")
        if isinstance(value, str):
            if name == "output_file":  # IPOPT cannot open it: no solve at all, and nothing said why
                _writable(value, name)
            if (name, value.lower()) in HSL_CHOICES and not _hsl_available():
                raise ValueError(f"ipopt_options[{name!r}] = {value!r} needs HSL's library (libhsl.so or "
                                 "libcoinhsl.so), which is not installed: IPOPT would load it at the solve and abort "
                                 "the interpreter where it is missing. Install HSL, or leave the option out")
            out.append((name, value))
        elif isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
            if not -2 ** 31 <= int(value) < 2 ** 31:  # IPOPT's integer options are C ints
                raise ValueError(f"ipopt_options[{name!r}] must fit a C int (|value| < 2**31), got {value!r}")
            out.append((name, int(value)))
        elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
            if not math.isfinite(value):
                raise ValueError(f"ipopt_options[{name!r}] must be finite, got {value!r}")
            out.append((name, float(value)))
        else:
            raise ValueError(f"ipopt_options[{name!r}] must be a string, an integer or a number, got {value!r}")
    return out


def _writable(path: str, name: str) -> None:
    import os

    folder = os.path.dirname(os.path.abspath(path))
    if not (os.path.isdir(folder) and os.access(folder, os.W_OK)) or os.path.isdir(path):
        raise ValueError(f"ipopt_options[{name!r}]: {path!r} cannot be written (its folder {folder!r} does not "
                         "exist or is not writable, or it is a folder)")


# The problem's arguments (OptimalControlProblem.__init__).

HOLONOMIC_TOL = 1e-8  # a fixed end state farther from phi(y) = 0 than this is refused


def endpoint(values, n: int, what: str, names: list) -> list:
    if values is None:
        return [None] * n
    array = np.asarray(values, dtype=object)
    if array.ndim != 1:
        raise ValueError(f"{what} must be a flat list of {n} values (one per state: {names}, None for a free "
                         f"one), got shape {array.shape}")
    values = list(array)
    if len(values) != n:
        raise ValueError(f"{what} has {len(values)} entries, expected {n} (one per state: {names})")
    return [None if v is None else real(v, f"{what}[{i}]") for i, v in enumerate(values)]


def duration(t_final, cost):
    """(free, fixed value, bounds) of the duration."""
    if t_final is None:
        if cost != "time":
            raise ValueError("t_final is required (a duration or its bounds (lo, hi)) unless cost='time'")
        return True, None, (1e-8, math.inf)
    if isinstance(t_final, (tuple, list)):
        if len(t_final) != 2:
            raise ValueError(f"t_final bounds must be (lo, hi), got {t_final!r}")
        lo, hi = (real(b, "t_final bounds", finite=False) for b in t_final)
        if not (0 <= lo < hi):
            raise ValueError(f"t_final bounds must satisfy 0 <= lo < hi, got {t_final!r}")
        return True, None, (max(lo, 1e-8), hi)
    value = real(t_final, "t_final", finite=False)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"t_final must be a positive finite duration (or bounds (lo, hi) for a free one), got "
                         f"{t_final!r}")
    if cost == "time":
        raise ValueError("cost='time' with a fixed t_final has nothing to minimize; give t_final bounds (lo, hi)")
    return False, value, (value, value)


def named_bounds(bounds, names: list, what: str, others: Mapping | None = None) -> dict:
    """{name: (lo, hi)} of ``bounds``, each name one of ``names``; ``others`` (a description -> names, as
    :func:`expression` takes) says what a refused name is where it is known (a dependent velocity)."""
    out = {}
    if bounds is not None and not isinstance(bounds, Mapping):
        raise TypeError(f"{what} must be a mapping name -> (lo, hi), got {bounds!r:.100}")
    for key, pair in dict(bounds or {}).items():
        name = str(key)
        if name not in names:
            known = [kind for kind, listed in (others or {}).items() if name in listed]
            raise ValueError(f"{what} names {name!r}, which is not one of {names}"
                             + (f": it is {known[0]}; a bound on it is a path constraint" if known else ""))
        try:  # numbers: float("1") would read a string, float(True) a bool
            values = list(pair)
            if isinstance(pair, (str, bytes)) or any(isinstance(v, (str, bytes, bool, np.bool_)) for v in values):
                raise TypeError(f"{what}[{name!r}] holds a string or a bool")
            lo, hi = (float(v) for v in values)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{what}[{name!r}] must be a pair (lo, hi) of numbers, got {pair!r:.200}") from err
        if math.isnan(lo) or math.isnan(hi):
            raise ValueError(f"{what}[{name!r}] = ({lo}, {hi}) has a NaN (use -inf or inf for no bound)")
        if not lo <= hi or lo == math.inf or hi == -math.inf:
            raise ValueError(f"{what}[{name!r}] = ({lo}, {hi}) is empty")
        out[name] = (lo, hi)
    return out


def ends_on_holonomic(phi: list, states: list, initial: list, final: list) -> tuple:
    """(rows, rows): the holonomic constraints whose states are all fixed at the initial, the final
    end (not imposed there: rows without a free variable); ValueError naming the end if such a fixed
    end state violates one by more than HOLONOMIC_TOL."""
    out = []
    for what, values in (("initial", initial), ("final", final)):
        fixed = []
        for r, h in enumerate(phi):
            deps = [i for i, s in enumerate(states) if s in h.free_symbols]
            if deps and all(values[i] is not None for i in deps):
                residual = float(h.xreplace({states[i]: values[i] for i in deps}))
                if not abs(residual) <= HOLONOMIC_TOL:
                    raise ValueError(f"{what}: the end state violates the holonomic constraint {h} = 0 (residual "
                                     f"{residual:.3g})")
                fixed.append(r)
        out.append(fixed)
    return tuple(out)


def ends_within_bounds(initial, final, names, bounds) -> None:
    """A fixed end state outside its state bounds: an infeasible problem, refused (the fixed value
    would override the bound at that node)."""
    for what, values in (("initial", initial), ("final", final)):
        for name, value in zip(names, values):
            lo, hi = bounds.get(name, (-math.inf, math.inf))
            if value is not None and not lo <= value <= hi:
                raise ValueError(f"{what}[{name!r}] = {value:g} lies outside state_bounds[{name!r}] = ({lo:g}, {hi:g})")


def minimum_time_attained(problem) -> None:
    """Refuse a minimum-time problem (a free duration down to 0, a positive constant running cost, no
    terminal cost) whose minimum is not attained, IPOPT's "success" at t_final = 3e-7 notwithstanding:
    controls without bounds, in no path constraint, on which the dynamics grow without bound and whose
    directions at the start, with what they carry in no time (:func:`_reached`), reach the goal (x' = u1
    + u2 with only u1 bounded, x'' = F1 + F2 rest to rest, the car with its speed unbounded: the duration
    shrinks to 0; not the Heisenberg particle with only x_dot bounded sent along x, which takes 1 / max
    |x_dot|, nor a unicycle with its turning rate unbounded and |v| <= 1, nor one at constant speed
    with every control unbounded: its turn is instant, its travel takes the distance over the speed);
    or end states that one state meets (each entry free at an end or the same at both, no path
    constraint: a plan of duration 0 stands at the goal)."""
    p = problem
    running = sp.sympify(p.running_cost)
    if not (p.free_time and p.terminal_cost is None and p.t_bounds[0] <= 1e-8 and running.is_number
            and running > 0):
        return
    remedy = "a positive lower bound of t_final"
    constrained = set().union(*(sp.sympify(g).free_symbols for g in p.path_constraints))
    unbounded = [j for j, name in enumerate(p.control_names)
                 if not any(math.isfinite(b) for b in p.control_bounds.get(name, (-math.inf, math.inf)))]
    fast = _carrying(p, [j for j in unbounded if p.controls[j] not in constrained])
    if fast and len(unbounded) == len(p.controls) and not set(p.controls) & constrained:
        raise ValueError("cost='time' with every control unbounded: the duration can shrink to 0 (the minimum is not "
                         f"attained); give control_bounds, a path constraint on the controls or {remedy}")
    if fast:
        raise ValueError(f"cost='time' with the controls {fast} unbounded (no control_bounds, in no path constraint) "
                         "and the dynamics growing without bound along them toward the goal: their optimum is "
                         "impulsive and the minimum is not attained (the duration shrinks toward what the bounded "
                         f"controls alone hold it to, 0 where nothing does); bound them, add a running cost such as "
                         f"1 + {fast[0]}**2, or give {remedy}")
    if not p.path_constraints and all(a is None or b is None or a == b for a, b in zip(p.initial, p.final)):
        raise ValueError("cost='time' with end states that one state meets (each entry free at an end or the same "
                         "at both; initial and final default to free): a plan of duration 0 stands there, so the "
                         f"minimum is not attained; fix the ends or give {remedy}")


def unpenalized_controls(problem) -> str | None:
    """Warns (UserWarning, pointing at the problem's construction) and returns the warning for controls
    that neither the running cost nor the terminal cost contains and no bound or path constraint
    restrains (forces under cost="energy", the kinetic energy): the problem is singular in them. An
    outside probe's rolling disc under two torques, cost="energy" over a fixed time: rest to rest the
    costs fell as the nodes doubled (1.045, 1.036, 1.032) with torques of 25, 53 and 3300 (the infimum
    needs impulses and is not attained), and with the end speeds free Hermite-Simpson's node and
    midpoint torques alternated up to 1e4 where the true ones are below 0.44 (the trapezoid's cost 29%
    above the optimum), each "Optimal Solution Found." None where the cost is the time or every control is
    in the cost, bounded or in a path constraint."""
    if isinstance(problem.cost, str) and problem.cost == "time":
        return None
    costs = [sp.sympify(problem.running_cost)] + ([] if problem.terminal_cost is None else [problem.terminal_cost])
    used = set().union(*(c.free_symbols for c in costs))
    constrained = set().union(*(sp.sympify(g).free_symbols for g in problem.path_constraints))
    # each control on its own: tau unbounded beside a cost of F**2 is as free as under a cost of x**2
    free = [name for c, name in zip(problem.controls, problem.control_names) if c not in constrained | used
            and not all(math.isfinite(b) for b in problem.control_bounds.get(name, (-math.inf, math.inf)))]
    if not free:
        return None
    cost = f"cost={problem.cost!r}" if isinstance(problem.cost, str) else "the cost"
    message = (f"{cost} does not contain the controls {free}, which no bound restrains: the problem is singular in "
               "them (the plan's controls may chatter between the nodes), and where the cost falls with ever larger "
               "controls (impulses) its minimum is not attained. Add a penalty on them (a running cost such as the "
               f"energy + c * {free[0]}**2) or give them control_bounds")
    warnings.warn(message, UserWarning, stacklevel=3)
    return message


def _carrying(problem, controls: list) -> list:
    """The names of the ``controls`` (indices) when the dynamics grow without bound along them
    (|f(y0, u + s e_j) - f(y0, u)| at s = +-1e6 more than 100 times that at +-1e3: linear growth
    gives 1000, a bounded dependence such as sin(u_j) about 1) and the goal's
    displacement (its entries fixed at both ends) lies in the span of those directions at the start
    y0 and what the dynamics carry them to (:func:`_reached`), at three random values u of the controls
    within their bounds (together); else []."""
    if not controls:
        return []
    dyn, ends = problem.dynamics, list(zip(problem.initial, problem.final))
    y0 = np.array([a if a is not None else (b if b is not None else 0.0) for a, b in ends])
    fixed = [i for i, (a, b) in enumerate(ends) if a is not None and b is not None]
    d = np.array([ends[i][1] - ends[i][0] for i in fixed])
    lo = np.array([max(problem.control_bounds[c][0], -1.0) for c in problem.control_names])
    hi = np.array([min(problem.control_bounds[c][1], 1.0) for c in problem.control_names])
    rng = np.random.default_rng(1)
    reached = []
    for _ in range(3):
        u = rng.uniform(lo, hi)
        columns = [u]
        for j in controls:
            for s in (1e3, -1e3, 1e6, -1e6):
                v = u.copy()
                v[j] += s
                columns.append(v)
        with np.errstate(all="ignore"):
            try:
                F = np.asarray(dyn.vector_field(np.repeat(y0[:, None], len(columns), axis=1), np.array(columns).T),
                               dtype=float)
            except (ArithmeticError, ValueError, np.linalg.LinAlgError):
                return []  # not evaluable there: not refused (the solve says what it finds)
        if not np.all(np.isfinite(F)):
            continue
        G = (F[:, 1:] - F[:, :1]).reshape(len(y0), len(controls), 4)
        grows = np.linalg.norm(G[:, :, 2:], axis=0).min(axis=1) > 100 * np.linalg.norm(G[:, :, :2], axis=0).max(axis=1)
        if not grows.any():
            continue
        if not d.size or not np.linalg.norm(d) > 0:
            continue  # the ends' own check (a plan of duration 0)
        # with the directions at the other draws' values of the bounded controls: a car's unbounded speed
        # at two curvatures turns it as well as driving it (the path traced in no time)
        fast = [j for j, g in zip(controls, grows) if g]
        reached.append(_reached(dyn, y0, u, fast, G[:, grows, 2:].reshape(len(y0), -1), held_in_range(problem)))
        directions = np.hstack(reached)[fixed]
        coef = np.linalg.lstsq(directions, d, rcond=1e-10)[0]
        if np.linalg.norm(directions @ coef - d) <= 1e-9 * np.linalg.norm(d):
            return [problem.control_names[j] for j, g in zip(controls, grows) if g]
    return []


def _null_space(M: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the null space of M (columns), by its SVD."""
    _, sv, Vt = np.linalg.svd(M, full_matrices=True)
    rank = int(np.sum(sv > 1e-9 * max(float(sv[0]) if sv.size else 0.0, 1.0)))
    return Vt[rank:].T


def held_in_range(problem) -> np.ndarray:
    """Per state, whether a state bound (finite on a side) or a path constraint (which may bound it) holds
    its range: the dynamics' growth along such a state is no motion in no time (x' = v_x with v_x in
    [-1, 1] driven by an unbounded force: the minimum time 1 to x = 1 is attained)."""
    from .reintegration import bounded_states

    held = np.zeros(len(problem.states), dtype=bool)
    held[[i for i, _, _ in bounded_states(problem)]] = True
    constrained = set().union(*(sp.sympify(g).free_symbols for g in problem.path_constraints))
    return held | np.array([s in constrained for s in problem.states], dtype=bool)


def _reached(dyn, y0: np.ndarray, u: np.ndarray, fast: list, B: np.ndarray, held=None) -> np.ndarray:
    """An orthonormal basis of the directions in which the controls ``fast`` (indices), unbounded and
    growing the dynamics without bound along the columns of ``B`` (their fields at y0), move the state
    in a vanishing time: B, closed under two steps that need no bounded control's help. Along a fast
    direction d, (i) the fast fields at y0 + s d (s = +-0.5, +-1): an unbounded car speed, once the
    heading has turned, drives sideways too; (ii) the dynamics at y0 + S d where they grow without
    bound in S (|f| at S = 1e6 over 100 times that at 1e3): a velocity driven by an unbounded force
    carries its position (x'' = F); and (iii) the same growth from points y0 + c reached already (c in
    the span of the directions found): a sleigh's unbounded torque turns it at once, and from the turned
    heading its unbounded push carries it sideways. Not a direction a bounded control moves at a bounded
    rate: the unicycle's unbounded turning rate turns it at once, but |v| <= 1 keeps its position at
    speed 1; nor growth along the states ``held`` in a range (:func:`held_in_range`): (ii) and (iii) take
    only the directions found that leave those states alone (a car's curvature in [-1, 1] set at once by
    an unbounded rate turns it at |v kappa| <= 1)."""
    n, m = len(y0), len(u)

    def basis(M):
        M = M[:, np.all(np.isfinite(M), axis=0)]
        norms = np.linalg.norm(M, axis=0)
        M = M[:, norms > 0] / norms[norms > 0]
        if not M.size:
            return np.zeros((n, 0))
        U_, sv, _ = np.linalg.svd(M, full_matrices=False)
        return U_[:, sv > 1e-6 * max(sv[0], 1.0)]

    S = basis(B)
    rng = np.random.default_rng(2)
    kicks = [np.where(np.arange(m) == j, 1e6, 0.0) for j in fast]
    for _ in range(n):
        if S.shape[1] in (0, n):
            break
        # the directions found that move no state held in a range: those the dynamics may grow along
        free = S if held is None or not np.any(held) else S @ _null_space(S[held])
        Y, U = [y0], [u]
        for d in S.T:
            for shift in (0.5, -0.5, 1.0, -1.0):
                Y += [y0 + shift * d] * (1 + len(fast))
                U += [u] + [u + kick for kick in kicks]
        for d in free.T:
            Y += [y0 + 1e3 * d, y0 + 1e6 * d]
            U += [u, u]
        bases = [y0 + S @ c / np.linalg.norm(c) for c in rng.standard_normal((3, S.shape[1]))]
        for b in bases:
            Y += [b] + [b + scale * d for d in free.T for scale in (1e3, 1e6)]
            U += [u] * (1 + 2 * free.shape[1])
        with np.errstate(all="ignore"):
            try:
                F = np.asarray(dyn.vector_field(np.array(Y).T, np.array(U).T), dtype=float)
            except (ArithmeticError, ValueError, np.linalg.LinAlgError):
                return S
        found, k = [], 1
        for _d in S.T:
            for _shift in range(4):
                found.append(F[:, k + 1:k + 1 + len(fast)] - F[:, k:k + 1])
                k += 1 + len(fast)
        for _d in free.T:
            small, large = F[:, k] - F[:, 0], F[:, k + 1] - F[:, 0]
            if np.all(np.isfinite(large)) and np.linalg.norm(large) > 100 * np.linalg.norm(small):
                found.append(large[:, None])
            k += 2
        for _b in bases:
            base, k = F[:, k], k + 1
            for _d in free.T:
                small, large = F[:, k] - base, F[:, k + 1] - base
                if np.all(np.isfinite(large)) and np.linalg.norm(large) > 100 * np.linalg.norm(small):
                    found.append(large[:, None])
                k += 2
        wider = basis(np.hstack([S, *found]))
        if wider.shape[1] == S.shape[1]:
            break
        S = wider
    return S


def _hsl_available() -> bool:
    """Whether HSL's shared library, which IPOPT loads for its HSL options, can be loaded."""
    import ctypes

    for name in ("libhsl.so", "libcoinhsl.so"):
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False
