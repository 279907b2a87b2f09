r"""Friction laws as values: the force of one contact as a function of its slip.

A contact has slip components :math:`s = (s_1, \dots, s_r)` (the rows :math:`A v - b` of its
no-slip constraints: one for a knife edge, two for a wheel or a ball on a plane) and a normal load
:math:`N`. A law gives the tangential force :math:`z(s, N)` on the contact, in the same
components, opposing the slip (:math:`z \cdot s \le 0`). Each law is a SymPy expression, so it is
lowered to tapes, differentiated by automatic differentiation and compiled like every other
expression of a system.

- ``Viscous(mu, eps)``: :math:`z = -(\mu / \varepsilon)\, s`, the linear law of ``system.friction(eps)``.
- ``Coulomb(mu, v_s)``: :math:`z = -\mu N s / \sqrt{\lVert s \rVert^2 + v_s^2}`, regularized dry
  friction; ``v_s=None`` is the set-valued law (stick-slip models only).
- ``Stribeck(mu_s, mu_k, v_s, viscous=0)``: :math:`z = -N \big(\mu_k + (\mu_s - \mu_k)
  e^{-\lVert s \rVert^2 / v_s^2}\big)\, s / \sqrt{\lVert s \rVert^2 + (\delta v_s)^2} - c_v s`.
- ``MagicFormula(B, C, D, E)``: Pacejka's lateral force of the slip angle
  :math:`\alpha = \arctan(s / V)`, :math:`V` the contact's rolling speed:
  :math:`z = -N D \sin\big(C \arctan(B\alpha - E (B\alpha - \arctan B\alpha))\big)`;
  with ``rows=2``, ``longitudinal=`` and ``combined=``, Pacejka's combined slip of a longitudinal
  and a lateral slip (MF 5.2 weights, without shifts); with ``relaxation_length=sigma``, Pacejka's
  first-order transient tire, whose deflection a' = s - |V| a / sigma lags the slip over the rolled
  distance sigma (:mod:`nonholo.system.law_relaxation`).
- ``Brush(c, mu)``: Fiala's brush tire of the same slip angle, saturating at :math:`\mu N`.
- ``Law(expr, slip=..., normal=...)``: any law written in SymPy.

Every smooth law here has the form :math:`z = \mu N \varphi(s / v)` with a velocity scale
:math:`v` (:math:`\varepsilon`, :math:`v_s`, or the inverse slip stiffness :math:`V / (BCD)` of a
tire), the small parameter of its slow manifold. To leading order, the slip of a contact that must
carry the force :math:`f` solves :math:`z(s, N) = f` (:meth:`Law.steady_slip`), which has a
solution only while :math:`\lVert f \rVert < \mu N`, inside the friction cone
(:attr:`Law.saturation`). For regularized Coulomb friction it is the creep
:math:`s = -v_s\, r / \sqrt{1 - \lVert r \rVert^2}` with :math:`r = f / (\mu N)`.
"""

from __future__ import annotations

import copy
import numbers
from typing import Mapping

import numpy as np
import sympy as sp

from .pacejka import PEAK_SAMPLES, check_curve
from .pacejka import magic as _magic
from .pacejka import magic_peak as _magic_peak
from .parsing import to_sympy

__all__ = ["Law", "Viscous", "Coulomb", "Stribeck", "MagicFormula", "Brush"]

#: The most slip components one contact has here (a point contact has two, three with spin): a
#: larger ``rows`` is refused before its symbols are built (10**7 of them hung).
MAX_ROWS = 64


def _rows(rows) -> int:
    if isinstance(rows, (bool, np.bool_)) or not isinstance(rows, numbers.Integral):
        raise TypeError(f"rows must be a positive integer (the slip components of one contact), got {rows!r}")
    if not 1 <= rows <= MAX_ROWS:
        raise ValueError(f"rows must be between 1 and {MAX_ROWS} (the slip components of one contact), got {rows}")
    return int(rows)


def _number(x, what: str, positive: bool = False) -> float:
    """A real finite number (a bool, a complex number, a string, NaN and inf refused), > 0 when ``positive``."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (bool, np.bool_, str)) or not isinstance(x, (numbers.Real, sp.Expr)) \
            or isinstance(x, sp.Expr) and not (x.is_number and x.is_real):
        raise TypeError(f"{what} must be a real number, got {x!r:.100}")
    value = float(x)
    if not np.isfinite(value):
        raise ValueError(f"{what} must be finite, got {x!r}")
    if positive and not value > 0:
        raise ValueError(f"{what} must be positive, got {x!r}")
    return value


def _symbols(slip, what: str) -> tuple:
    if not isinstance(slip, (sp.Symbol, str, list, tuple)):
        raise TypeError(f"{what} must be SymPy symbols or names, got {slip!r:.100}")
    items = [slip] if isinstance(slip, (sp.Symbol, str)) else list(slip)
    if not items:
        raise ValueError(f"{what} must name at least one slip component")
    out = tuple(sp.Symbol(x) if isinstance(x, str) else x for x in items)
    if not all(isinstance(x, sp.Symbol) for x in out):
        raise TypeError(f"{what} must be SymPy symbols or names, got {slip!r}")
    if len(set(out)) != len(out):
        raise ValueError(f"{what} repeats a symbol: {out}")
    return out


def _sympify(x, what: str):
    """``to_sympy(x)`` with a non-finite NumPy scalar refused by name: SymPy converts a float32 or
    longdouble NaN through a ratio of integers and fails with a message that names nothing."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, np.generic) and x.dtype.kind in "fc" and not np.isfinite(x):
        raise ValueError(f"{what} must be finite, got {x!r}")
    return to_sympy(x, what)


def _finite_expr(x, what: str):
    """An expression for a law's slip, load or speed, a NaN or inf in it refused by name."""
    expr = _sympify(x, what)
    if isinstance(expr, sp.Basic) and expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise ValueError(f"{what} must be finite, got {x!r:.100}")
    return expr


def _value(x, what: str, positive: bool = False, nonnegative: bool = False):
    """A law's parameter: a number (checked) or a SymPy expression of the system's parameters."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} must be a number or a SymPy expression, got the bool {x!r}")
    sign = " and positive" if positive else " and nonnegative" if nonnegative else ""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        x = x[()]
    if isinstance(x, (float, np.floating)) and not np.isfinite(x):
        raise ValueError(f"{what} must be finite{sign}, got {float(x)!r}")
    expr = _sympify(x, what)
    if not isinstance(expr, sp.Expr) or isinstance(expr, sp.MatrixBase):
        raise TypeError(f"{what} must be a number or a scalar SymPy expression, got {x!r:.100}")
    if expr.has(sp.oo, -sp.oo, sp.zoo, sp.nan):  # before the realness test: SymPy's oo is not real
        raise ValueError(f"{what} must be finite{sign}, got {x!r:.100}")
    if expr.is_number and expr.is_real is False:
        raise TypeError(f"{what} must be real, got {x!r}")
    if expr.is_number:
        value = float(expr)
        if not np.isfinite(value):
            raise ValueError(f"{what} must be finite{sign}, got {x!r}")
        if positive and value <= 0:
            raise ValueError(f"{what} must be positive, got {x!r}")
        if nonnegative and value < 0:
            raise ValueError(f"{what} must be nonnegative, got {x!r}")
    return expr


_TINY = np.finfo(float).tiny


def _in_range(quantity) -> str | None:
    """'overflows' or 'underflows to 0' where a numeric SymPy value is beyond double precision, else None."""
    try:
        value = float(quantity)
    except TypeError:  # symbolic: checked where the law is used
        return None
    if not np.isfinite(value):
        return "overflows"
    return "underflows to 0" if sp.sympify(quantity).is_zero is False and abs(value) < _TINY else None


def _representable(quantities, arguments: Mapping) -> None:
    """The derived constants of a law (``(text, value, names)``: the constant, its value and the
    arguments it comes from), each a double: a constant that overflows or underflows to 0 raises
    ValueError naming the argument of those farthest from 1 (Stribeck's v_s = 1e-300 gives
    exp(-1e600 s^2), lowered as -inf)."""
    for text, quantity, names in quantities:
        how = _in_range(quantity)
        if how is None:
            continue
        numeric = {k: abs(float(arguments[k])) for k in names if arguments[k].is_number and not arguments[k].is_zero}
        name = max(numeric, key=lambda k: abs(np.log10(numeric[k])))
        size = "small" if numeric[name] < 1 else "large"
        others = ", ".join(f"{k} = {float(arguments[k]):g}" for k in names if k != name and k in numeric)
        raise ValueError(f"{name} = {float(arguments[name]):g} is too {size}: {text} = {sp.Float(quantity, 4)} {how} "
                         f"in double precision{f' (with {others})' if others else ''}")


class Law:
    r"""A friction law of one contact: the force ``expr`` on the contact, a function of its slip.

    Parameters
    ----------
    expr : SymPy expression or sequence of expressions
        The force z, one component per slip symbol (a single expression for a contact of one row),
        opposing the slip (z . s <= 0); a function of ``slip``, ``normal``, ``speed`` and
        parameters (symbols whose values the system or ``parameters`` gives).
    slip : symbol, name or sequence of them
        The slip components s of the contact (its rows A v - b), in the order of ``expr``.
    normal : symbol or name, optional
        The normal load N in ``expr``; None for a law that does not depend on it.
    speed : symbol or name, optional
        The contact's rolling speed V in ``expr`` (tire laws of the slip angle atan(s / V)).
    scale : SymPy expression, optional
        The law's velocity scale (the small parameter of its slow manifold: eps, v_s, ...).
    saturation : SymPy expression, optional
        The largest force the law can give in any direction, as a multiple of N (mu for Coulomb):
        beyond it no slip carries the force, and a no-slip model needs more friction than there is.
        For a law whose range is not a disc (an anisotropic law, mu_x in one direction and mu_y < mu_x
        in another) it is the largest of them, mu_x: a bound, not the edge of the range in every
        direction. The reduced models measure the fold of their slow manifold against the law's own
        largest force in the direction of the needed force, found on the law itself (the friction
        ratio, ``result.friction_ratio``), so they need no saturation: a law with a local peak (a
        Stribeck law with a viscous term, which has none) folds at that peak. The built-in laws whose
        forces fill the disc of radius saturation x N (``disc_range``: Coulomb's, Stribeck's without a
        viscous term, the brush and the lateral magic formula, each isotropic or odd) give the ratio
        |lambda| / (saturation N) at once; a Law of your own is searched.
    name : str, optional
    relaxation_length : length or sequence of lengths, optional
        The relaxation length sigma of each slip component, for a law of the slip angle
        atan(s / V) (a tire): its friction model then carries the deflection a of each component,
        a' = s - |V| a / sigma, and the force is the law's at the transient slip angle
        atan(a / sigma) (:meth:`relaxed_force`), regular as V goes to 0. At a steady slip,
        a = sigma s / |V| and the force is the law's. ``law(s, N, V)``, :meth:`steady_slip` and the
        reduced models use the steady law (:attr:`static`).

    Examples
    --------
    >>> import sympy as sp, nonholo as nh
    >>> s, N = sp.symbols("s N")
    >>> law = nh.laws.Law(-0.8 * N * sp.tanh(s / 0.01), slip=s, normal=N, scale=0.01, saturation=0.8)
    >>> print(f"{float(law([0.02], N=10.0)[0]):.4f}")
    -7.7122
    """

    #: Whether the law's forces fill the disc of radius saturation x N in every direction (set by the
    #: built-in laws that do): the friction ratio is then |lambda| / (saturation N), with no search.
    disc_range = False

    def __init__(self, expr, slip, normal=None, speed=None, scale=None, saturation=None, name: str | None = None,
                 relaxation_length=None):
        self.slip = _symbols(slip, "slip")
        self.normal = None if normal is None else _symbols(normal, "normal")[0]
        self.speed = None if speed is None else _symbols(speed, "speed")[0]
        roles = [*self.slip, *(x for x in (self.normal, self.speed) if x is not None)]
        if len(set(roles)) != len(roles):
            raise ValueError(f"slip, normal and speed must be distinct symbols, got {slip!r}, normal={normal!r}, "
                             f"speed={speed!r}")
        self.expr = None
        if expr is not None:
            items = [expr] if not isinstance(expr, (list, tuple, sp.MatrixBase)) else list(expr)
            self.expr = sp.ImmutableMatrix([_sympify(e, "expr") for e in items])
            if self.expr.shape[0] != len(self.slip):
                raise ValueError(f"expr has {self.expr.shape[0]} components for {len(self.slip)} slip symbols")
            if any(e.has(sp.oo, -sp.oo, sp.zoo, sp.nan) for e in self.expr):
                raise ValueError(f"expr must be finite, got {list(self.expr)}")
            for number in self.expr.atoms(sp.Number):
                if _in_range(number):
                    raise ValueError(f"expr has the constant {sp.Float(number, 4)}, which {_in_range(number)} in "
                                     f"double precision: give the law's numbers within about 1e-300..1e300")
        self.scale = None if scale is None else _value(scale, "scale", positive=True)
        self.saturation = None if saturation is None else _value(saturation, "saturation", positive=True)
        self.name = name or type(self).__name__
        if self.expr is not None:
            self._check_opposes_slip()
        self.relaxation_length = None if relaxation_length is None else self._relaxation(relaxation_length)

    def _relaxation(self, relaxation_length) -> tuple:
        """The relaxation lengths, one per slip component, checked: positive, and the law one of the
        slip angle (with a speed V, finite at V = 0 once the slip is V a / sigma)."""
        if self.speed is None or self.expr is None:
            raise ValueError(f"relaxation_length needs a law of the slip angle atan(s / V), with a rolling speed V; "
                             f"the {self.name} law has {'no force' if self.expr is None else 'no speed'}")
        given = relaxation_length
        several = isinstance(given, (list, tuple)) or isinstance(given, np.ndarray) and given.ndim > 0
        items = list(given) if several else [given] * self.rows
        if len(items) != self.rows:
            raise ValueError(f"relaxation_length has {len(items)} lengths for {self.rows} slip components: give one, "
                             "or one per component")
        lengths = tuple(_value(x, "relaxation_length", positive=True) for x in items)
        at_rest = self._deflected(self.expr, lengths).xreplace({self.speed: 0})
        if at_rest.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ValueError(f"relaxation_length needs a law of the slip angle atan(s / V): the {self.name} law at the "
                             "slip V a / sigma is not finite at V = 0")
        return lengths

    def _deflected(self, expr, lengths):
        """``expr`` at the slip s = V a / sigma of the deflections a (the symbols ``_deflection``):
        the slip angle atan(s / V) becomes atan(a / sigma), free of V."""
        return expr.xreplace({s: self.speed * a / sigma for s, a, sigma in zip(self.slip, self._deflection, lengths)})

    @property
    def _deflection(self) -> tuple:
        """The deflections' symbols in the relaxed force (Dummies: no name of the law's can clash)."""
        if "_deflection_symbols" not in self.__dict__:
            self._deflection_symbols = tuple(sp.Dummy(f"a_{i + 1}", real=True) for i in range(self.rows))
        return self._deflection_symbols

    @property
    def static(self) -> "Law":
        """This law without relaxation (itself when it has none): the steady state of the relaxed one."""
        if self.relaxation_length is None:
            return self
        law = copy.copy(self)
        law.relaxation_length = None
        return law

    def relaxed_force(self, a, N=None, V=None) -> sp.Matrix:
        """The force at the deflections ``a`` of a law with a relaxation length: the law's at the slip
        V a / sigma, i.e. at the transient slip angle atan(a / sigma) (the expressions of ``a``,
        ``N`` and ``V`` as in :meth:`force`)."""
        if self.relaxation_length is None:
            raise ValueError(f"the {self.name} law has no relaxation length: its force is force(s, N, V)")
        return self._substituted(self._deflected(self.expr, self.relaxation_length), self._deflection, a, N, V, "a")

    def deflection_rates(self, a, s, V) -> list:
        """a' = s - |V| a / sigma per component: the lag of the deflections ``a`` behind the slip ``s``."""
        if self.relaxation_length is None:
            raise ValueError(f"the {self.name} law has no relaxation length")
        V = _finite_expr(V, "V")
        return [_finite_expr(x, "s") - sp.Abs(V) * _finite_expr(y, "a") / sigma
                for x, y, sigma in zip(s, a, self.relaxation_length)]

    def _check_opposes_slip(self, values: Mapping | None = None) -> None:
        """A law numeric at N = V = 1 and the parameter ``values`` (name -> value) must oppose the slip, z . s <= 0,
        at slips across its scale (with parameters: checked where used, law_realization.check_laws)."""
        subs = {x: 1 for x in (self.normal, self.speed) if x is not None}
        subs.update({x: values[x.name] for x in self.expr.free_symbols if values and x.name in values})
        scale = sp.sympify(sp.sympify(1 if self.scale is None else self.scale).xreplace(subs))
        if scale.is_number and not (scale.is_extended_real and scale.is_finite and scale > 0):
            raise ValueError(f"its scale {self.scale} is {scale} there: it must be positive and finite")
        scale = float(scale) if scale.is_number else 1.0
        expr = self.expr.xreplace(subs)
        if expr.free_symbols - set(self.slip):
            return
        f = sp.lambdify([self.slip], list(expr), "math")
        if self.rows == 2:  # every 5 degrees (a combined-slip tire pushed along s between the axes)
            angles = np.linspace(0.0, 2 * np.pi, 72, endpoint=False)
            directions = np.column_stack([np.cos(angles), np.sin(angles)])
        else:
            count = 2 if self.rows == 1 else 64
            directions = [*np.eye(self.rows), *np.random.default_rng(0).normal(size=(count, self.rows))]
        sizes = (1e-3, 0.1, 0.3, 1.0, 3.0, 10.0, 100.0, 1e3, 1e4)  # Stribeck's scale is 1e-2 v_s
        for slip in (b * a * scale * d / np.linalg.norm(d) for a in sizes for d in directions for b in (1.0, -1.0)):
            try:
                z = np.array(f(list(slip)), dtype=float)
            except (ArithmeticError, ValueError, TypeError, NameError):
                continue
            if np.all(np.isfinite(z)) and z @ slip > 1e-12 * np.linalg.norm(z) * np.linalg.norm(slip):
                raise ValueError(f"expr must oppose the slip (z . s <= 0, friction dissipates), but at s = "
                                 f"{slip.tolist()} (N = V = 1) it gives z = {z.tolist()}")

    def for_rows(self, rows: int) -> "Law":
        """This law for a contact of ``rows`` slip components (an isotropic built-in law takes any
        number; a law written for a fixed number of components only that one)."""
        rows = _rows(rows)
        if rows == self.rows:
            return self
        arguments = getattr(self, "_arguments", None)
        if arguments is None or self.fixed_rows:
            raise ValueError(f"the {self.name} law is written for contacts of {self.rows} slip component(s); "
                             f"the contact has {rows}")
        return type(self)(**{**arguments, "rows": rows})

    fixed_rows = False  # a tire law: its slip components are given (lateral; longitudinal and lateral)

    @property
    def set_valued(self) -> bool:
        """True for a law without a force expression (Coulomb with ``v_s=None``)."""
        return self.expr is None

    @property
    def rows(self) -> int:
        """The number of slip components of one contact."""
        return len(self.slip)

    def force(self, s, N=None, V=None) -> sp.Matrix:
        """z(s, N, V) as SymPy expressions: ``s`` the contact's slip components (expressions of a
        system's coordinates and velocities), ``N`` its normal load, ``V`` its rolling speed."""
        if self.set_valued:
            raise ValueError(f"{self.name} with v_s=None is set-valued: it has no force as a function of the slip "
                             "(use it in a stick-slip model, or give v_s)")
        return self._substituted(self.expr, self.slip, s, N, V)

    def _substituted(self, expr, symbols, s, N, V, what: str = "s") -> sp.Matrix:
        s = list(s) if isinstance(s, (list, tuple, sp.MatrixBase, np.ndarray)) else [s]
        if len(s) != self.rows:
            raise ValueError(f"{what} must have {self.rows} components for this contact, got {len(s)}")
        subs = dict(zip(symbols, (_finite_expr(x, what) for x in s)))
        for symbol, value, what in ((self.normal, N, "N"), (self.speed, V, "V")):
            if symbol is not None:
                if value is None:
                    raise ValueError(f"{self.name} depends on the {'normal load' if what == 'N' else 'rolling speed'}"
                                     f": give {what}")
                subs[symbol] = _finite_expr(value, what)
        return sp.Matrix(expr.xreplace(subs))

    def __call__(self, s, N=None, V=None, parameters: Mapping | None = None) -> np.ndarray:
        """The force at numeric slip ``s`` (the contact's components), load ``N`` >= 0 and speed ``V`` > 0."""
        s, N, V = self._point(s, N, V, parameters)
        z = self.force([sp.Float(x) for x in s], None if N is None else sp.Float(N), None if V is None else sp.Float(V))
        if parameters:
            z = z.xreplace({sp.Symbol(k) if isinstance(k, str) else k: v for k, v in parameters.items()})
        try:
            return np.array([float(x) for x in z])
        except TypeError:
            raise ValueError(f"{self.name} has parameters without values: {sorted(map(str, z.free_symbols))}; "
                             "give them in parameters") from None

    def _point(self, s, N, V, parameters, what: str = "s"):
        """(s, N, V) checked for a numeric evaluation: s finite with one entry per slip component,
        N >= 0 and V > 0 where the law has them, parameters a mapping."""
        if parameters is not None and not isinstance(parameters, Mapping):
            raise TypeError(f"parameters must be a mapping name -> value, got {type(parameters).__name__}")
        for key, value in (parameters or {}).items():
            _number(value, f"parameters[{str(key)!r}]")
        try:
            s = np.atleast_1d(np.asarray(s, dtype=float))
        except (TypeError, ValueError):
            raise TypeError(f"{what} must be numbers, got {s!r:.100}") from None
        if s.shape != (self.rows,):
            raise ValueError(f"{what} must have {self.rows} components for this contact, got shape {s.shape}")
        if not np.all(np.isfinite(s)):
            raise ValueError(f"{what} must be finite, got {s.tolist()}")
        if self.normal is not None:
            if N is None:
                raise ValueError(f"the {self.name} law depends on the normal load: give N")
            N = _number(N, "N")
            if N < 0:
                raise ValueError(f"N (the normal load) must be non-negative, got {N}")
        if self.speed is not None:
            if V is None:
                raise ValueError(f"the {self.name} law depends on the rolling speed: give V")
            V = _number(V, "V", positive=True)
        return s, (None if N is None else float(N)), (None if V is None else float(V))

    def slip_jacobian(self) -> sp.Matrix:
        """dz/ds (rows x rows) as SymPy expressions of the law's symbols."""
        if self.set_valued:
            raise ValueError(f"{self.name} with v_s=None is set-valued: it has no derivative")
        return self.expr.jacobian(sp.Matrix(self.slip))

    def steady_slip(self, force, N=None, V=None, parameters: Mapping | None = None, tol: float = 1e-14) -> np.ndarray:
        """The slip s with z(s, N, V) = ``force``: the leading-order slip of a contact that must
        carry ``force`` (minus the constraint force it replaces). Newton's method on z, from the
        linearization at s = 0; raises ValueError where no slip gives the force (outside the friction
        cone: the norm of ``force`` at least ``saturation`` x N)."""
        if self.set_valued:
            raise ValueError(f"the {self.name} law is set-valued (v_s=None): no slip function, no steady slip")
        target, N, V = self._point(force, N, V, parameters, "force")
        if not (isinstance(tol, numbers.Real) and 0 < tol < 1):
            raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
        if self.normal is not None and N == 0:
            raise ValueError("N must be positive: no slip carries a force under a zero normal load")
        subs = {k: sp.Float(v) for k, v in ((self.normal, N), (self.speed, V)) if k is not None}
        subs.update({sp.Symbol(k) if isinstance(k, str) else k: v for k, v in (parameters or {}).items()})
        missing = (set().union(*(e.free_symbols for e in self.expr)) - set(self.slip) - set(subs)) | \
            (self.saturation.free_symbols - set(subs) if self.saturation is not None else set())
        if missing:
            raise ValueError(f"the {self.name} law has parameters without values: {sorted(map(str, missing))}; give "
                             "them in parameters")
        if self.saturation is not None and self.normal is not None:
            limit = float(self.saturation.xreplace(subs)) * N
            if np.linalg.norm(target) >= limit:
                raise ValueError(f"|force| = {np.linalg.norm(target):.6g} is outside the friction cone "
                                 f"(at most {limit:.6g} = saturation x N): no slip carries it")
        z = sp.lambdify([self.slip], self.expr.xreplace(subs), "numpy")
        dz = sp.lambdify([self.slip], self.slip_jacobian().xreplace(subs), "numpy")

        def residual(x):
            return np.asarray(z(x), dtype=float).reshape(-1) - target

        def jacobian(x):
            return np.asarray(dz(x), dtype=float).reshape(self.rows, self.rows)

        if not np.any(target):
            return np.zeros(self.rows)
        s = _start(residual, jacobian, target, self.scale, subs)
        r = residual(s)
        scale = np.linalg.norm(target)  # relative: forces of 1e-12 met to 1e-14 absolute were 1.6e-3 off
        for _ in range(200):
            if np.linalg.norm(r) <= tol * scale:
                return s
            step = np.linalg.lstsq(jacobian(s), r, rcond=None)[0]
            t = 1.0
            while t > 1e-12 and not np.linalg.norm(residual(s - t * step)) <= (1 - 1e-4 * t) * np.linalg.norm(r):
                t /= 2
            if t <= 1e-12 or np.linalg.norm(t * step) <= 1e-15 * np.linalg.norm(s):
                if np.linalg.norm(r) <= 1e-10 * scale:  # stalled at rounding: solved
                    return s
                break
            s = s - t * step
            r = residual(s)
        raise ValueError(f"no slip carries the force {target.tolist()} under the {self.name} law (Newton's method "
                         f"stalled at residual {np.linalg.norm(r):.3g}: the force is beyond what the law gives)")

    def __repr__(self) -> str:
        return f"<nonholo.laws.{type(self).__name__} {self.name}: z = {None if self.expr is None else list(self.expr)}>"


def _start(residual, jacobian, target, scale, subs) -> np.ndarray:
    """A start for Newton's method on z(s) = f: the linearization at s = 0 where its slope is regular,
    else (a law with zero slope at zero slip, z = -N s^3) the best point of a search along -f, the
    direction a law that opposes the slip answers in."""
    J0 = jacobian(np.zeros(target.size))
    if np.all(np.isfinite(J0)) and np.linalg.matrix_rank(J0) == target.size:
        s = -np.linalg.solve(-J0, target)
        if np.all(np.isfinite(residual(s))):
            return s
    unit = -target / np.linalg.norm(target)
    base = float(scale.xreplace(subs)) if scale is not None and scale.xreplace(subs).is_number else 1.0
    candidates = [0.0] + [base * 10.0 ** k for k in np.arange(-8, 8.5, 0.5)]
    values = [np.linalg.norm(residual(a * unit)) for a in candidates]
    values = [v if np.isfinite(v) else np.inf for v in values]
    return candidates[int(np.argmin(values))] * unit


def _contact_slip(rows: int) -> tuple:
    """The slip symbols of a built-in law (real: |s| and sign(s) then differentiate as real functions)."""
    return sp.symbols(f"s_1:{rows + 1}", real=True) if rows > 1 else (sp.Symbol("s", real=True),)


def _norm2(s) -> sp.Expr:
    return sum(x**2 for x in s)


class Viscous(Law):
    r"""The linear law :math:`z = -(\mu / \varepsilon)\, s`: the force of ``system.friction(eps)``
    with friction coefficient ``mu``; velocity scale ``eps``. ``rows``: the slip components of one
    contact."""

    def __init__(self, mu=1.0, eps=1.0, rows: int = 1):
        rows = _rows(rows)
        self.mu, self.eps = _value(mu, "mu", positive=True), _value(eps, "eps", positive=True)
        _representable([("mu / eps", self.mu / self.eps, ("mu", "eps"))], dict(mu=self.mu, eps=self.eps))
        s = _contact_slip(rows)
        super().__init__([-(self.mu / self.eps) * x for x in s], slip=s, scale=self.eps, name="viscous")
        self._arguments = dict(mu=mu, eps=eps)


class Coulomb(Law):
    r"""Regularized Coulomb friction :math:`z = -\mu N s / \sqrt{\lVert s \rVert^2 + v_s^2}`,
    isotropic over the rows of one contact; :math:`\lVert z \rVert < \mu N` for every slip.
    ``v_s=None``: the set-valued law (:math:`\lVert z \rVert \le \mu N` at :math:`s = 0`,
    :math:`z = -\mu N s / \lVert s \rVert` otherwise), usable only in a stick-slip model:
    ``system.stick_slip(nh.laws.Coulomb(mu), normal=N)``."""

    def __init__(self, mu, v_s=None, rows: int = 1):
        rows = _rows(rows)
        self.mu = _value(mu, "mu", positive=True)
        self.v_s = None if v_s is None else _value(v_s, "v_s", positive=True)
        if v_s is not None:
            _representable([("v_s**2", self.v_s**2, ("v_s",)),
                            ("mu / v_s (the slope at zero slip)", self.mu / self.v_s, ("mu", "v_s"))],
                           dict(mu=self.mu, v_s=self.v_s))
        s, N = _contact_slip(rows), sp.Symbol("N", positive=True)
        expr = None if v_s is None else [-self.mu * N * x / sp.sqrt(_norm2(s) + self.v_s**2) for x in s]
        self.disc_range = v_s is not None  # isotropic, |z| < mu N approached as |s| grows
        super().__init__(expr, slip=s, normal=N, scale=self.v_s, saturation=self.mu,
                         name="coulomb" if v_s is not None else "coulomb (set-valued)")
        self._arguments = dict(mu=mu, v_s=v_s)

    def creep(self, force, N) -> np.ndarray:
        r"""The closed form of :meth:`steady_slip`: :math:`s = -v_s r / \sqrt{1 - \lVert r \rVert^2}`
        with :math:`r = f / (\mu N)`, ``force`` :math:`f`."""
        if self.set_valued:
            raise ValueError("the set-valued coulomb law (v_s=None) has no creep: give v_s")
        force, N, _ = self._point(force, N, None, None, "force")
        if not N > 0:
            raise ValueError(f"N must be positive: no slip carries a force under the normal load {N}")
        r = force / (float(self.mu) * N)
        if np.linalg.norm(r) >= 1:
            raise ValueError(f"|force| / (mu N) = {np.linalg.norm(r):.6g} >= 1: outside the friction cone")
        return -float(self.v_s) * r / np.sqrt(1 - r @ r)


class Stribeck(Law):
    r"""Stribeck friction: the coefficient falls from ``mu_s`` at rest to ``mu_k`` in sliding over
    the Stribeck velocity ``v_s``, :math:`z = -N \big(\mu_k + (\mu_s - \mu_k) e^{-\lVert s
    \rVert^2 / v_s^2}\big)\, s / \sqrt{\lVert s \rVert^2 + (\delta v_s)^2} - c_v s` with
    :math:`c_v` = ``viscous``, regularized at rest over :math:`\delta v_s` (``regularization``
    :math:`\delta`). Its ``saturation``, the largest force over :math:`N`, is the curve's peak,
    below :math:`\max(\mu_s, \mu_k)`: the regularization takes off the top (0.99113 :math:`\mu_s`
    at :math:`\mu_s = 0.5`, :math:`\mu_k = 0.3`, :math:`\delta = 0.01`). With ``viscous`` > 0 the force
    grows without bound and the saturation is None; the slow manifold still folds at the curve's local
    peak, where the reduced models' friction ratio (against the law's own largest force) reaches 1."""

    def __init__(self, mu_s, mu_k, v_s, viscous=0, regularization=0.01, rows: int = 1):
        rows = _rows(rows)
        self.mu_s, self.mu_k = _value(mu_s, "mu_s", positive=True), _value(mu_k, "mu_k", positive=True)
        self.v_s, self.viscous = _value(v_s, "v_s", positive=True), _value(viscous, "viscous", nonnegative=True)
        delta = _value(regularization, "regularization", positive=True)
        _representable([("1 / v_s**2", self.v_s**-2, ("v_s",)),
                        ("(regularization * v_s)**2", (delta * self.v_s)**2, ("regularization", "v_s")),
                        ("max(mu_s, mu_k) / (regularization * v_s) (the slope at zero slip)",
                         sp.Max(self.mu_s, self.mu_k) / (delta * self.v_s), ("mu_s", "mu_k", "regularization", "v_s")),
                        ("regularization**2", delta**2, ("regularization",))],
                       dict(mu_s=self.mu_s, mu_k=self.mu_k, v_s=self.v_s, regularization=delta))
        s, N = _contact_slip(rows), sp.Symbol("N", positive=True)
        mu = self.mu_k + (self.mu_s - self.mu_k) * sp.exp(-_norm2(s) / self.v_s**2)
        expr = [-N * mu * x / sp.sqrt(_norm2(s) + (delta * self.v_s) ** 2) - self.viscous * x for x in s]
        # is_zero, not != 0: SymPy's Float(0.0) != 0 is True (viscous=0.0 had no saturation, viscous=0 had)
        saturation = None if not self.viscous.is_zero else _stribeck_peak(self.mu_s, self.mu_k, delta)
        self.disc_range = saturation is not None  # isotropic, its peak in every direction
        super().__init__(expr, slip=s, normal=N, scale=delta * self.v_s, saturation=saturation, name="stribeck")
        self._arguments = dict(mu_s=mu_s, mu_k=mu_k, v_s=v_s, viscous=viscous, regularization=regularization)


def _stribeck_peak(mu_s, mu_k, delta):
    """The largest |force| / N of Stribeck's curve (mu_k + (mu_s - mu_k) e^(-x^2)) x / sqrt(x^2 + delta^2),
    x = |s| / v_s: below max(mu_s, mu_k), since the regularization takes off the curve's top (mu_s = 0.5,
    mu_k = 0.3, delta = 0.01: 0.99113 mu_s); mu_k, its limit, when it rises to it. Max(mu_s, mu_k) for
    symbolic coefficients (a bound)."""
    try:
        s_, k_, d_ = (float(x) for x in (mu_s, mu_k, delta))
    except TypeError:
        return sp.Max(mu_s, mu_k)
    from scipy.optimize import minimize_scalar

    def curve(x):
        return (k_ + (s_ - k_) * np.exp(-x * x)) * x / np.hypot(x, d_)

    x = np.geomspace(1e-6 * d_, 10.0 + 10.0 * d_, PEAK_SAMPLES)
    i = int(np.argmax(curve(x)))
    lo, hi = x[max(i - 1, 0)], x[min(i + 1, x.size - 1)]
    best = minimize_scalar(lambda z: -curve(z), bounds=(lo, hi), method="bounded", options={"xatol": 1e-14 * hi})
    return float(max(curve(best.x), curve(x[i]), k_))


def _slip_angle(s, V):
    return sp.atan(s / V)


def _combined_peak(expr, s, N, V, bound):
    """The largest |z| / N of a combined-slip force ``expr`` (two components of the slips ``s``, the
    load ``N`` and the speed ``V``) over every slip: over (arctan kappa, alpha) in (-pi/2, pi/2)^2 at
    V = 1, on a grid refined three times around its best point (relative error below 1e-9 where the
    maximum is smooth); ``bound`` (an upper bound) where the law's factors are symbols."""
    free = sp.Matrix(expr).free_symbols - {*s, N, V}
    if free:
        return bound
    f = sp.lambdify([s[0], s[1]], list(sp.Matrix(expr).xreplace({N: 1, V: 1})), "numpy")

    def size(u, a):  # kappa = tan u = -s_x, alpha = a = arctan s_y at V = 1
        zx, zy = (np.broadcast_to(np.asarray(c, dtype=float), u.shape) for c in f(-np.tan(u), np.tan(a)))
        return np.hypot(zx, zy)

    edge = np.pi / 2 * (1 - 1e-9)
    centre, half = np.zeros(2), np.full(2, edge)
    best = 0.0
    for _ in range(4):
        u, a = np.meshgrid(*(np.linspace(max(c - h, -edge), min(c + h, edge), 201) for c, h in zip(centre, half)))
        values = size(u, a)
        i = np.unravel_index(int(np.nanargmax(values)), values.shape)
        best, centre, half = max(best, float(values[i])), np.array([u[i], a[i]]), half / 20
    return sp.Float(best)


class MagicFormula(Law):
    r"""Pacejka's Magic Formula tire.

    With one slip component (``rows=1``, the default): the lateral force of the slip angle
    :math:`\alpha = \arctan(s / V)` (:math:`s` the lateral slip velocity, :math:`V` the rolling
    speed), :math:`z = -N D \sin\big(C \arctan(B\alpha - E (B\alpha - \arctan B\alpha))\big)`:
    ``D`` the peak friction coefficient (the peak force over :math:`N`), ``B`` the stiffness, ``C``
    the shape and ``E`` the curvature factor. The curve reaches its peak at a slip angle below
    :math:`\pi/2` when :math:`C > 1` and :math:`B` is large enough; otherwise (e.g. :math:`B = 3`,
    :math:`C = 0.9`) the largest force, the law's ``saturation``, is the curve's value at
    :math:`\alpha \to \pi/2`, below :math:`D N`. The cornering stiffness per unit load is :math:`BCD`;
    the velocity scale :math:`V / (BCD)`.

    With two (``rows=2``, combined slip): :math:`s = (s_x, s_y)`, the longitudinal slip velocity
    :math:`s_x` (the contact point's forward velocity minus the wheel's rolling speed, :math:`v_x -
    \omega R`) and the lateral one :math:`s_y`, with the longitudinal slip :math:`\kappa = -s_x / V`
    and the slip angle :math:`\alpha = \arctan(s_y / V)`. ``longitudinal=(Bx, Cx, Dx, Ex)`` is the
    pure longitudinal curve :math:`F_{x0}(\kappa)` and ``(B, C, D, E)`` the pure lateral one
    :math:`F_{y0}(\alpha)`; ``combined=(r_Bx1, r_Bx2, C_xa, r_By1, r_By2, C_yk)`` the weights of
    Pacejka's combined slip (MF 5.2, without shifts):

    .. math::
        z_x = N G_{x\alpha} F_{x0}(\kappa), \quad G_{x\alpha} = \cos(C_{x\alpha} \arctan(B_{x\alpha}
        \alpha)), \quad B_{x\alpha} = r_{Bx1} \cos(\arctan(r_{Bx2} \kappa)),

        z_y = -N G_{y\kappa} F_{y0}(\alpha), \quad G_{y\kappa} = \cos(C_{y\kappa} \arctan(B_{y\kappa}
        \kappa)), \quad B_{y\kappa} = r_{By1} \cos(\arctan(r_{By2} \alpha)).

    At :math:`\kappa = 0` the lateral force is the pure one, at :math:`\alpha = 0` the longitudinal,
    and each weight lies in [-1, 1], so each component stays within its pure curve's peak; their
    norm can exceed both, up to :math:`\sqrt{D^2 + D_x^2}\,N` as the weights tend to 0 (where
    :math:`G = 1`). The velocity scale is
    :math:`V` over the larger slip stiffness, the saturation the largest :math:`\lvert z \rvert / N`
    over all slips, found on a grid (:math:`\sqrt{D^2 + D_x^2}`, a bound, for symbolic factors).

    ``relaxation_length``: the relaxation length :math:`\sigma` (one, or :math:`(\sigma_\kappa,
    \sigma_\alpha)` with two rows), Pacejka's first-order transient tire. The friction model
    then carries a deflection :math:`a` per slip component, :math:`a' = s - \lvert V \rvert
    a / \sigma`, and the force is the curve's at :math:`\tan\alpha' = a / \sigma` (and
    :math:`\kappa' = -a_x / \sigma_\kappa`): it builds up over the rolled distance
    :math:`\sigma`, reaches the steady force at a steady slip, and stays regular as
    :math:`V \to 0`, where the tire holds a side load as a spring of stiffness
    :math:`N B C D / \sigma` instead of dividing by :math:`V`."""

    fixed_rows = True

    def __init__(self, B, C, D, E=0, rows: int = 1, longitudinal=None, combined=None, relaxation_length=None):
        self._arguments = dict(B=B, C=C, D=D, E=E, rows=rows, longitudinal=longitudinal, combined=combined,
                               relaxation_length=relaxation_length)  # its checks at a run's values (check_laws)
        rows = _rows(rows)
        self.B, self.C = _value(B, "B", positive=True), _value(C, "C", positive=True)
        self.D, self.E = _value(D, "D", positive=True), _value(E, "E")
        check_curve(self.B, self.C, self.E)
        _representable([("B * C * D (the cornering stiffness per unit load)", self.B * self.C * self.D,
                         ("B", "C", "D"))], dict(B=self.B, C=self.C, D=self.D))
        s, N, V = _contact_slip(rows), sp.Symbol("N", positive=True), sp.Symbol("V", positive=True)
        if rows == 1:
            if longitudinal is not None or combined is not None:
                raise ValueError("longitudinal= and combined= describe a contact of two slip components (rows=2)")
            expr = -N * _magic(self.B, self.C, self.D, self.E, _slip_angle(s[0], V))
            self.disc_range = True  # odd in the slip, its peak either way
            super().__init__(expr, slip=s, normal=N, speed=V, scale=V / (self.B * self.C * self.D),
                             saturation=_magic_peak(self.B, self.C, self.D, self.E), name="magic formula",
                             relaxation_length=relaxation_length)
            return
        if rows != 2:
            raise ValueError(f"rows must be 1 (lateral) or 2 (longitudinal and lateral) for the magic formula, "
                             f"got {rows}")
        if longitudinal is None or combined is None:
            raise ValueError("rows=2 needs longitudinal=(Bx, Cx, Dx, Ex) and combined=(r_Bx1, r_Bx2, C_xa, r_By1, "
                             "r_By2, C_yk)")
        self.longitudinal = _parameters(longitudinal, "longitudinal", ("Bx", "Cx", "Dx", "Ex"), free=("Ex",))
        self.combined = _parameters(combined, "combined", ("r_Bx1", "r_Bx2", "C_xa", "r_By1", "r_By2", "C_yk"),
                                    nonnegative=("r_Bx2", "r_By2"))
        Bx, Cx, Dx, Ex = self.longitudinal
        check_curve(Bx, Cx, Ex, ("Bx", "Cx", "Ex"), slip_ratio=True, what="longitudinal's ")
        _representable([("Bx * Cx * Dx (the longitudinal slip stiffness)", Bx * Cx * Dx, ("Bx", "Cx", "Dx"))],
                       dict(Bx=Bx, Cx=Cx, Dx=Dx))
        rBx1, rBx2, Cxa, rBy1, rBy2, Cyk = self.combined
        kappa, alpha = -s[0] / V, _slip_angle(s[1], V)
        G_xa = sp.cos(Cxa * sp.atan(rBx1 * sp.cos(sp.atan(rBx2 * kappa)) * alpha))
        G_yk = sp.cos(Cyk * sp.atan(rBy1 * sp.cos(sp.atan(rBy2 * alpha)) * kappa))
        expr = [N * G_xa * _magic(Bx, Cx, Dx, Ex, kappa), -N * G_yk * _magic(self.B, self.C, self.D, self.E, alpha)]
        stiffness = sp.Max(self.B * self.C * self.D, Bx * Cx * Dx)
        peak = _combined_peak(expr, s, N, V, sp.sqrt(self.D**2 + Dx**2))
        super().__init__(expr, slip=s, normal=N, speed=V, scale=V / stiffness, saturation=peak,
                         name="magic formula (combined slip)", relaxation_length=relaxation_length)


def _parameters(values, what: str, names: tuple, free: tuple = (), nonnegative: tuple = ()) -> tuple:
    """A tuple of a law's parameters, one per name (numbers or SymPy expressions), checked: positive,
    except the names in ``free`` (any real) and in ``nonnegative``."""
    if isinstance(values, Mapping) or not isinstance(values, (list, tuple)) or len(values) != len(names):
        raise TypeError(f"{what} must be a sequence ({', '.join(names)}), got {values!r:.100}")
    return tuple(_value(x, f"{what}'s {name}", positive=name not in free + nonnegative,
                        nonnegative=name in nonnegative) for name, x in zip(names, values))


class Brush(Law):
    r"""The brush (Fiala) tire: lateral force of the slip angle :math:`\alpha = \arctan(s / V)`
    with cornering stiffness :math:`cN` (``c`` per unit load) and friction coefficient ``mu``: with
    :math:`t = \tan\alpha` and :math:`t_{sl} = 3\mu / c`, :math:`z = -N (c t - c^2 \lvert t
    \rvert t / (3\mu) + c^3 t^3 / (27\mu^2))` for :math:`\lvert t \rvert < t_{sl}` and
    :math:`\mp \mu N` beyond (full sliding), continuous with its first derivative at
    :math:`t_{sl}`. ``relaxation_length``: its relaxation length, as :class:`MagicFormula`'s."""

    fixed_rows = True

    def __init__(self, c, mu, relaxation_length=None):
        self._arguments = dict(c=c, mu=mu, relaxation_length=relaxation_length)  # as MagicFormula's
        self.c, self.mu = _value(c, "c", positive=True), _value(mu, "mu", positive=True)
        s, N, V = sp.Symbol("s", real=True), sp.Symbol("N", positive=True), sp.Symbol("V", positive=True)
        c, mu = self.c, self.mu
        _representable([("3 mu / c", 3 * mu / c, ("mu", "c")), ("c**2 / (3 mu)", c**2 / (3 * mu), ("c", "mu")),
                        ("c**3 / (27 mu**2)", c**3 / (27 * mu**2), ("c", "mu"))], dict(c=c, mu=mu))
        # t clamped to [-t_sl, t_sl] by |.| (which the tapes lower, unlike a Piecewise): the cubic
        # reaches +-mu with zero slope at +-t_sl, so beyond it the force is +-mu N
        t_sl = 3 * mu / c
        t = (sp.Abs(s / V + t_sl) - sp.Abs(s / V - t_sl)) / 2
        expr = -N * (c * t - c**2 * sp.Abs(t) * t / (3 * mu) + c**3 * t**3 / (27 * mu**2))
        self.disc_range = True  # odd in the slip, mu N either way
        super().__init__(expr, slip=s, normal=N, speed=V, scale=V / c, saturation=mu, name="brush",
                         relaxation_length=relaxation_length)


def law_of(law, what: str = "law") -> Law:
    """``law`` checked: a :class:`Law`."""
    if not isinstance(law, Law):
        raise TypeError(f"{what} must be a nonholo.laws law (Viscous, Coulomb, Stribeck, MagicFormula, Brush or "
                        f"Law), got {type(law).__name__}")
    return law


def laws_of(law):
    """``law`` checked: a :class:`Law`, or a non-empty list of them (one per contact)."""
    if isinstance(law, (list, tuple)):
        if not law:
            raise ValueError("law as a list needs one law per contact, got an empty list")
        return [law_of(x, f"law[{i}]") for i, x in enumerate(law)]
    return law_of(law)
