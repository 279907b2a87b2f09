r"""A friction model's eps that follows the parameters it is a function of (``System.friction_scale``).

The linear law's scale is a parameter of its own: G v' + ... = -(1/eps) A^T mu (A v - b). Where it is
physical, a function of the system's parameters (linear tires: eps = |U| / C, the speed over the mean
cornering stiffness, :func:`nonholo.systems.single_track_car`), a run that changes those parameters
without eps left the tires as they were built: the single-track car run with ``params={"C_f": 6e4}``
turned 5.6% faster than the car with that stiffness (its stiffnesses were both 8/7 of the new ones),
and an eigenvalue path over the speed U found no critical speed (39.53 m/s) in [20, 60].

A system whose ``friction_scale`` is set (an expression of its parameters) gives a friction or reduced
model built at the scale's value at the system's defaults (``friction()``, or the same number, such as
``tire_eps(U, C_f, C_r)`` of the car's own values) the eps ``scale(p)`` at the parameters p of a run,
unless the run gives eps itself (``params={"eps": ...}``), which is taken as it is. A model built with
another eps (a study of eps, or the physical eps of other parameters passed with them) keeps its eps.
A model keeps the scale it was built with: setting ``friction_scale`` afterwards changes the models
built from then on (``friction()`` and ``reduced()`` without eps take the scale at the defaults).
Every use of the parameters goes through :meth:`Model.param_vector`, so runs, linearizations, paths,
sweeps and fits all follow; sensitivities to a parameter the scale depends on are total derivatives,
through eps too (:func:`eps_gradient`), unless the run gives eps (then they hold it fixed).
"""

from __future__ import annotations

import math
from typing import Mapping

import sympy as sp

from ..expressions.parsing import to_sympy
from .arguments import key_name

__all__ = ["scale_rule", "followed", "gives_eps", "eps_gradient", "default_scale", "eps_index"]

BUILT_AT_DEFAULTS = 1e-9  # a model's eps this close (relative) to the scale at the defaults follows it


def eps_index(model) -> int:
    """The index of the model's eps in its parameter vector (the system's parameters, then the model's own)."""
    return len(model.system.parameters) + list(model._extra).index("eps")


def gives_eps(params: Mapping | None) -> bool:
    """True when ``params`` names eps (by name or symbol)."""
    return bool(params) and any(key_name(k) == "eps" for k in params)


def _compiled(system, scale=None):
    """(f(parameter vector) -> scale, free parameter names, scale at the defaults, gradient) of ``scale``
    (default: the system's friction_scale), cached on the system."""
    scale = system.friction_scale if scale is None else scale
    cached = system.__dict__.get("_friction_scale_rule")
    if cached is not None and cached[0] is scale:
        return cached[1]
    try:  # a string is parsed, never evaluated; names mean the system's symbols whatever their assumptions
        expr = system.resolve(to_sympy(scale, "friction_scale"))
    except TypeError:
        expr = None
    if not isinstance(expr, sp.Expr) or expr.is_Matrix:  # an immutable Matrix is an Expr
        raise TypeError(f"friction_scale of {system.name!r} must be a SymPy expression of its parameters (eps as a "
                        f"function of them), got {scale!r:.80}")
    symbols = list(system.parameters)
    unknown = sorted(str(s) for s in expr.free_symbols - set(symbols))
    if unknown:
        raise ValueError(f"friction_scale of {system.name!r} uses {unknown}, which are not parameters of it")
    f = sp.lambdify(symbols, expr, "math")
    base = _value(f, list(system.parameters.values()), system, list(system.parameter_names))
    if not (math.isfinite(base) and base > 0):
        raise ValueError(f"friction_scale of {system.name!r} is {base!r} at its default parameters: it must be "
                         "positive and finite there")
    free = sorted(expr.free_symbols, key=lambda x: x.name)
    gradient = {x.name: sp.lambdify(symbols, sp.diff(expr, x), "math") for x in free}
    rule = (f, [x.name for x in free], base, gradient)
    system.__dict__["_friction_scale_rule"] = (scale, rule)
    return rule


def _value(f, p: list, system, names: list) -> float:
    """The scale at the parameter values ``p`` (a real number, possibly not positive); ValueError naming
    the scale where it is undefined there (1/k at k = 0) or not real."""
    try:
        return float(f(*p))
    except (ZeroDivisionError, ValueError, TypeError, OverflowError) as exc:
        at = ", ".join(f"{n} = {v:g}" for n, v in zip(names, p))
        raise ValueError(f"friction_scale {system.friction_scale} of {system.name!r} has no real value at {at} "
                         f"({type(exc).__name__}: {exc}); it must be positive there") from None


def scale_rule(model):
    """The model's rule as :func:`_compiled` gives it, or None: a friction or reduced model of a system
    whose friction_scale is set, built at its value at the defaults (to rounding). A model built with
    an eps of its own does not use the scale, even one that cannot be evaluated (friction() says why)."""
    system, scale = model.system, getattr(model, "_friction_scale", None)  # the scale the model was built with
    if scale is None or "eps" not in model._extra or model.kind not in ("friction", "reduced"):
        return None
    try:
        rule = _compiled(system, scale)
    except (ValueError, TypeError):
        return None
    return rule if abs(model._extra["eps"] - rule[2]) <= BUILT_AT_DEFAULTS * rule[2] else None


def default_scale(system, method: str = "friction") -> float:
    """``system.friction()``'s and ``system.reduced()``'s eps: the friction scale at the defaults
    (TypeError without one, naming ``method``)."""
    if getattr(system, "friction_scale", None) is None:
        raise TypeError(f"{method}() needs eps (the linear law's scale) or law= (a nonholo.laws law); a system "
                        "with a friction_scale (eps as a function of its parameters) takes it from there")
    return _compiled(system)[2]


def followed(model, p: list, params: Mapping | None) -> list:
    """The parameter vector ``p`` (the system's, then the model's own) with eps following the scale."""
    rule = scale_rule(model)
    if rule is None or gives_eps(params):
        return p
    f, names, base, _ = rule
    k = len(model.system.parameters)
    now = _value(f, p[:k], model.system, list(model.system.parameter_names))
    if now == base:
        return p
    if not (math.isfinite(now) and now > 0):
        values = dict(zip(model.system.parameter_names, p[:k]))
        raise ValueError(f"params: the friction scale {model._friction_scale} of {model.system.name!r} is "
                         f"{now!r} at {', '.join(f'{n} = {values[n]:g}' for n in names)}; it must be positive "
                         "(give eps in params to set it yourself)")
    out = list(p)
    out[eps_index(model)] = now
    return out


def eps_gradient(model, values: Mapping) -> dict:
    """d eps / d p = d scale / d p for each parameter p the scale depends on, at the parameter
    ``values`` (name -> value, the system's)."""
    f, names, base, gradient = scale_rule(model)
    p = [float(values[name]) for name in model.system.parameter_names]
    return {name: float(gradient[name](*p)) for name in names}
