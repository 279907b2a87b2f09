r"""Extending a system: a NEW :class:`~nonholo.System` with an added force, potential, constraint
rows or other parameter defaults (systems are values; the original is unchanged).

Each method rebuilds the system from everything it carries: coordinates, velocities, time, name,
parameters, outputs, holonomic constraints, unit-norm groups, drawing and pose, and the applied
force of a Kane system (updated: r = F - c - dV/dq gains the added F, or loses the added dV/dq,
so it stays the same function as the one the metric, potential and force define). Added
expressions are read in the system's symbols by name (:meth:`System.resolve`), so
``sympy.Symbol("x")`` means the system's coordinate ``x`` whatever its assumptions; new symbols
must be given a value in ``parameters``.

Adding constraint rows changes D, so the velocity frame ``speeds`` of the system (whose first
n - k columns span D) is dropped: the new system's ``nonholonomic()`` is in ``[q, q']``
(``System.speeds`` is None). Everything else is kept.

Tilted gravity is an added potential, -m g . r for each body (``with_potential``), or the
builders' argument ``gravity`` given as a vector (:func:`nonholo.contact.roll_on_plane`).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import sympy as sp

from .. import options as check
from ..expressions.parsing import to_sympy
from .arguments import as_matrix, key_name, parsed_matrix
from .normal_forces import normal_force_output, outputs_with_normal, outputs_with_unknown_vertical

__all__ = ["Extensions"]


class Extensions:
    """The ``with_*`` methods of :class:`~nonholo.System` (a mixin; module docstring)."""

    def with_force(self, force, parameters: Mapping | None = None, name: str | None = None):
        r"""A new system with the generalized force ``force`` added: F(q, v, t) + ``force``.

        Parameters
        ----------
        force : length-n SymPy vector
            A covector in the coordinates q, a function of q, the velocities (the system's
            ``velocities``, default ``<name>_dot``), the time and parameters.
        parameters : mapping {symbol or name: value}, optional
            Defaults of the new symbols ``force`` uses.
        name : str, optional
            The new system's name; default the old one.

        Returns
        -------
        System
            Everything else as in this system; a Kane system's applied force gains ``force``.

        Examples
        --------
        >>> import sympy as sp, nonholo as nh
        >>> sleigh = nh.systems.chaplygin_sleigh()
        >>> pushed = sleigh.with_force([sp.Symbol("F"), 0, 0], parameters={"F": 0.5})
        >>> pushed.parameter_names
        ['m', 'I', 'a', 'mu', 'F']
        """
        added = self._added_column(force, "force")
        state = self._state_with(parameters, name, new_only="with_force")
        state["force"] = sp.ImmutableMatrix(self.force + added)
        state["outputs"] = outputs_with_unknown_vertical(state["outputs"], "with_force")
        if self.applied_force is not None:
            state["applied_force"] = sp.ImmutableMatrix(self.applied_force + added)
        return self._rebuilt(state)

    def with_potential(self, potential, parameters: Mapping | None = None, name: str | None = None):
        r"""A new system with ``potential`` added to V(q): V(q) + ``potential``.

        Tilted gravity on a body of mass m at position r(q) is the added potential
        -m (g_tilted - g) . r(q); on a whole system, -sum_i m_i g . r_i(q) with the old gravity
        term removed by ``with_potential`` of its negative (docs/guide/extending.md).

        Parameters
        ----------
        potential : SymPy expression
            A function of q and parameters.
        parameters : mapping {symbol or name: value}, optional
            Defaults of the new symbols ``potential`` uses.
        name : str, optional
            The new system's name; default the old one.

        Returns
        -------
        System
            Everything else as in this system; a Kane system's applied force loses dV/dq.
        """
        added = to_sympy(potential, "potential")
        if not isinstance(added, sp.Expr) or isinstance(added, sp.MatrixBase):  # a list too (not resolvable)
            raise TypeError(f"potential must be a scalar SymPy expression, got {potential!r}")
        added = self.resolve(added)
        if not isinstance(added, sp.Expr) or isinstance(added, sp.MatrixBase):
            raise TypeError(f"potential must be a scalar SymPy expression, got {potential!r}")
        state = self._state_with(parameters, name, new_only="with_potential")
        state["potential"] = self.potential + added
        state["outputs"] = outputs_with_unknown_vertical(state["outputs"], "with_potential")
        if self.applied_force is not None:
            gradient = sp.Matrix([added]).jacobian(list(self.coordinates)).T
            state["applied_force"] = sp.ImmutableMatrix(self.applied_force - gradient)
        return self._rebuilt(state)

    def with_constraints(self, rows, affine=None, friction=None, parameters: Mapping | None = None,
                         name: str | None = None):
        r"""A new system with constraint rows added: [A; ``rows``] v = [b; ``affine``].

        Parameters
        ----------
        rows : (j, n) SymPy matrix
            The added constraint one-forms A_new(q).
        affine : length-j SymPy vector, optional
            Their affine part b_new(q, t); default 0.
        friction : (j, j) SymPy matrix or scalar, optional
            Friction coefficients of the added rows for the friction model (block diagonal with
            the old ones); default the identity.
        parameters : mapping {symbol or name: value}, optional
            Defaults of the new symbols the rows use.
        name : str, optional
            The new system's name; default the old one.

        Returns
        -------
        System
            The velocity frame ``speeds`` is dropped (it spans the old D); everything else is kept.
        """
        n = self.n
        new_rows = sp.Matrix(parsed_matrix(rows, "rows"))  # strings parsed, never evaluated
        if new_rows.shape[1] != n and new_rows.shape == (n, 1):
            new_rows = new_rows.T  # one row given as a vector
        if new_rows.shape[0] == 0 or new_rows.shape[1] != n:
            raise ValueError(f"rows has shape {new_rows.shape}, expected (j, {n}) with j >= 1: one row per constraint")
        j = new_rows.shape[0]
        new_rows = new_rows.applyfunc(self.resolve)
        b_new = sp.zeros(j, 1) if affine is None else sp.Matrix(as_matrix(affine, (j, 1), "affine"))
        if friction is None:
            mu_new = sp.eye(j)
        elif isinstance(friction, (int, float, str, sp.Expr)) and not isinstance(friction, sp.MatrixBase):
            mu_new = sp.eye(j) * to_sympy(friction, "friction")
        else:
            mu_new = sp.Matrix(as_matrix(friction, (j, j), "friction"))
        state = self._state_with(parameters, name, new_only="with_constraints")
        old_mu = sp.Matrix(self.friction_coefficients)
        state["constraints"] = sp.ImmutableMatrix(sp.Matrix.vstack(sp.Matrix(self.constraints), new_rows))
        state["affine"] = sp.ImmutableMatrix(sp.Matrix.vstack(sp.Matrix(self.affine), b_new.applyfunc(self.resolve)))
        state["friction"] = sp.ImmutableMatrix(sp.diag(old_mu, mu_new.applyfunc(self.resolve)))
        state["speeds"] = None
        if state.get("contacts") is not None:  # each new row its own contact
            state["contacts"] = [*state["contacts"], *([self.k + i] for i in range(j))]
        return self._rebuilt(state)

    def with_parameters(self, parameters: Mapping, name: str | None = None, *, new: bool = False):
        r"""A new system with other default values of its parameters.

        Parameters
        ----------
        parameters : mapping {symbol or name: value}
            New defaults of existing parameters (an unknown name is a ValueError naming it, a
            typo caught).
        name : str, optional
            The new system's name; default the old one.
        new : bool
            Also declare the names that are not parameters yet, with these defaults: the symbols
            of what is given later, a friction law's coefficients (``friction(law=...)``), an
            event or a cost (symbols of new expressions of the system come with them, e.g.
            :meth:`with_force`).

        Returns
        -------
        System

        Examples
        --------
        >>> import nonholo as nh, sympy as sp
        >>> blade = nh.systems.chaplygin_sleigh().with_parameters({"mu_k": 0.4}, new=True)
        >>> model = blade.friction(law=nh.laws.Coulomb(sp.Symbol("mu_k"), 0.01), normal=9.81)
        >>> model.param_names
        ['m', 'I', 'a', 'mu', 'mu_k']
        """
        if not isinstance(parameters, Mapping):
            raise TypeError("parameters must be a mapping {symbol or name: value}")
        known = set(self.parameter_names)
        unknown = [key_name(k) for k in parameters if key_name(k) not in known]
        if unknown and not check.flag(new, "new"):
            raise ValueError(f"parameters: {unknown} are not parameters of {self.name!r}; its parameters are "
                             f"{sorted(known)} (new=True declares new ones)")
        added = {k: value for k, value in parameters.items() if key_name(k) in unknown}
        for k in added:
            if isinstance(k, str) and not k.isidentifier():
                raise ValueError(f"parameters: a new parameter's name must be an identifier, got {k!r}")
        return self._rebuilt(self._state_with({(sp.Symbol(k) if isinstance(k, str) and k in added else k): value
                                               for k, value in parameters.items()}, name))

    def with_normal_force(self, normal, gravity=9.81, contacts=None, name: str | None = None):
        r"""A new system whose output ``"normal_force"`` derives the normal force of each contact with a
        plane from its vertical constraint (:mod:`nonholo.system.normal_forces`), on every model.

        Parameters
        ----------
        normal : int, Lift, or a list of them (one per contact)
            An int r: the contact keeps its vertical constraint, row r is the vertical velocity of its
            support point (dh/dt, up positive) and N = lambda_r. A :class:`nonholo.contact.Lift`: the
            coordinates eliminate it; N = sum_b m_b (z_b'' + g) - sum_(r in rows) lambda_r.
        gravity : number, SymPy expression or 3-vector
            g pressing on the plane (along -z), or the gravity vector in the plane's axes (an incline).
        contacts : list of lists of int, optional
            The no-slip rows of each contact (its friction force and friction margin); default
            ``system.contacts``, or every row but the normal ones for a single contact.
        name : str, optional

        Returns
        -------
        System
            With ``result["normal_force"]`` (shape (n_t,) for one contact, (contacts, n_t) otherwise);
            ``system.friction_margin(mu)`` and ``system.liftoff_margin()`` then need no ``normal=``.
        """
        output = normal_force_output(self, normal, gravity, contacts)
        state = self._state_with(None, name)
        state["outputs"] = outputs_with_normal(state["outputs"], output)  # a friction ratio divides by it
        # a kept vertical row is the contact's normal, no friction contact: it stays a constraint where
        # friction(law=...) and stick_slip realize the others (law_realization.normal_rows); before, a
        # cylinder's height row slid under Coulomb friction and the cylinder fell through its floor
        kept = [int(x) for x in (normal if isinstance(normal, (list, tuple)) else [normal])
                if isinstance(x, (int, np.integer))]
        if kept:
            state["normal_rows"] = sorted({*(getattr(self, "normal_rows", None) or []), *kept})
        if contacts is not None and self.contacts is None:
            state["friction_contacts"] = [[int(r) for r in group] for group in contacts]
        return self._rebuilt(state)

    # ------------------------------------------------------------------ helpers
    def _added_column(self, vector, what: str) -> sp.Matrix:
        return sp.Matrix(as_matrix(vector, (self.n, 1), what)).applyfunc(self.resolve)

    def _state_with(self, parameters: Mapping | None, name: str | None, new_only: str | None = None) -> dict:
        """The constructor arguments of this system (its pickled state), with ``parameters`` merged
        into its defaults (by name) and ``name`` if given. ``new_only`` (the method's name): the
        defaults of new symbols only, so that a parameter that changes an existing default is refused
        (with_force(..., parameters={"a": 5}) on a sleigh moved its offset a from 0.2 to 5, metric and
        all, where a damping named a was meant)."""
        if new_only and parameters is not None and isinstance(parameters, Mapping):
            _refuse_changed_defaults(self, parameters, new_only)
        state = self.__getstate__()
        if parameters is not None:
            if not isinstance(parameters, Mapping):
                raise TypeError("parameters must be a mapping {symbol or name: value}")
            merged = {s.name: (s, value) for s, value in state["parameters"].items()}
            for key, value in parameters.items():
                if not isinstance(key, (str, sp.Symbol)):
                    raise TypeError(f"parameter keys must be symbols or names, got {key!r}")
                key_name = key if isinstance(key, str) else key.name
                symbol = merged[key_name][0] if key_name in merged else key
                merged[key_name] = (symbol, value)
            state["parameters"] = {symbol: value for symbol, value in merged.values()}
        if name is not None:
            if not isinstance(name, str):
                raise TypeError(f"name must be a string, got {name!r}")
            state["name"] = name
        return state

    def _rebuilt(self, state: dict):
        from .system import System

        system = System.__new__(System)
        system.__setstate__(state)  # the constructor, then the carried attributes (System.CARRIED)
        return system


def _refuse_changed_defaults(system, parameters: Mapping, method: str) -> None:
    """ValueError naming the entries of ``parameters`` that give an existing parameter of ``system``
    another value (:meth:`Extensions._state_with`)."""
    current = {s.name: value for s, value in system.parameters.items()}
    changed = []
    for key, value in parameters.items():
        name = key_name(key)
        if name in current and not _same_value(current[name], value):
            changed.append(f"{name} ({current[name]!r} -> {value!r})")
    if changed:
        which = "is already a parameter" if len(changed) == 1 else "are already parameters"
        raise ValueError(f"parameters: {', '.join(changed)} {which} of {system.name!r}, whose "
                         f"expressions use it; {method}'s parameters give the defaults of "
                         "new symbols. Name the new symbol differently, or change a default with "
                         "system.with_parameters({...})")


def _same_value(a, b) -> bool:
    try:
        return bool(sp.sympify(a) == sp.sympify(b)) or float(a) == float(b)
    except (TypeError, ValueError, sp.SympifyError):
        return False
