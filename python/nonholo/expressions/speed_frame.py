"""A velocity frame given by unsolved speeds: Kane's kinematic differential equations and velocity
constraints, with the dependent speeds solved numerically at each evaluation."""

from __future__ import annotations

import sympy as sp

__all__ = ["DependentSpeeds"]


class DependentSpeeds:
    r"""The frame of speeds u = (u_ind, u_dep) (m and k of them) with

        q' = J(q) u + q0(q),        C(q) u + f(q) = 0,    C = [C_ind | C_dep],

    whose quasi-velocities are u_ind: u_dep = Bk u_ind + e with Bk = -C_dep^-1 C_ind and
    e = -C_dep^-1 f, so q' = X_D u_ind + w0 with X = J [[I, 0], [Bk, I]] and w0 = J [0; e] + q0.

    ``System(speeds=(names, DependentSpeeds(...), None))`` (:meth:`System.from_kanes_method`
    gives it) evaluates X, w0 and their q-derivatives in C++ by a pivoted LU of C_dep and
    implicit differentiation (``nonholo._core.Frame.kane_speeds``), never through a symbolic
    inverse: a symbolic solve divides by factors that can vanish where C_dep is regular (0/0 at
    SymPy's upright bicycle). :meth:`vectors` and :meth:`offset` build X and w0 symbolically, on
    request only (display, symbolic structure functions).

    Parameters
    ----------
    kinematics : (n, n) SymPy matrix
        J(q): column j is dq'/du_j.
    kinematics_offset : (n, 1) SymPy matrix
        q0(q).
    constraints : (k, n) SymPy matrix
        C(q), the coefficients of the speeds in the velocity constraints.
    constraints_offset : (k, 1) SymPy matrix
        f(q).
    """

    def __init__(self, kinematics, kinematics_offset, constraints, constraints_offset):
        self.kinematics = sp.ImmutableMatrix(kinematics)
        n = self.kinematics.rows
        if self.kinematics.shape != (n, n):
            raise ValueError(f"kinematics must be square (n, n), got {self.kinematics.shape}")
        self.kinematics_offset = _column(kinematics_offset, n, "kinematics_offset")
        C = sp.ImmutableMatrix(constraints) if constraints is not None and len(constraints) else sp.zeros(0, n)
        if C.cols != n:
            raise ValueError(f"constraints must have n = {n} columns (one per speed), got {C.shape}")
        self.constraints = sp.ImmutableMatrix(C)
        k = C.rows
        self.constraints_offset = _column(constraints_offset if k else sp.zeros(0, 1), k, "constraints_offset")

    @property
    def n(self) -> int:
        return self.kinematics.rows

    @property
    def k(self) -> int:
        return self.constraints.rows

    @property
    def has_offset(self) -> bool:
        """False where q0 = 0 and f = 0 (then w0 = 0)."""
        return any(not sp.sympify(x).is_zero for x in [*self.kinematics_offset, *self.constraints_offset])

    def outputs(self) -> list:
        """[J (row-major), q0, C (row-major), f]: the outputs of the frame's tape."""
        return [*self.kinematics, *self.kinematics_offset, *self.constraints, *self.constraints_offset]

    def singular_block(self, symbols, values, threshold: float) -> str | None:
        """Which block leaves the frame singular at a point (the q and parameter values ``values`` of
        ``symbols``): "constraints" where C_dep's condition number (1-norm) exceeds ``threshold``
        (other dependent speeds, or the coordinate model, are regular there), "kinematics" where
        C_dep is regular and J is not (the coordinates themselves are singular there, Euler angles at
        their gimbal lock: no choice of speeds helps, and the coordinate model is singular too), None
        where neither is, or where they cannot be evaluated numerically."""
        import numpy as np

        try:
            with np.errstate(all="ignore"):  # 1 / sin(b) at b = 0: nan, which is the verdict
                J, C_dep = (np.asarray(M, dtype=float) for M in sp.lambdify(
                    list(symbols), [self.kinematics, self.constraints[:, self.n - self.k:]], "numpy")(*values))
        except (TypeError, ValueError, ZeroDivisionError):  # t or another symbol left: no verdict
            return None

        def singular(M) -> bool:
            return bool(M.size) and not float(np.linalg.cond(M, 1)) <= threshold

        return "constraints" if singular(C_dep) else "kinematics" if singular(J) else None

    def dependent_condition(self, symbols):
        """``cond(values)``: how much the dependent speeds u_dep = -C_dep^-1 (C_ind u_ind + f) amplify
        errors of the independent ones, |C|_2 |C_dep^-1|_2 (1 / |cos(theta)| for a skate whose sideways
        speed is the dependent one), at each point of ``values``, an array (len(symbols), P) of the
        symbols' values (q and the parameters), shape (P,); inf where C_dep is singular or cannot be
        evaluated."""
        import numpy as np

        key = tuple(symbols)
        cache = self.__dict__.setdefault("_conditions", {})
        if key not in cache:
            rows = sp.lambdify(list(symbols), list(self.constraints), "numpy")

            def cond(values):
                values = np.asarray(values, dtype=float)
                with np.errstate(all="ignore"):
                    entries = [np.broadcast_to(np.asarray(e, dtype=float), values.shape[1:]) for e in rows(*values)]
                C = np.moveaxis(np.array(entries).reshape(self.k, self.n, -1), -1, 0)
                bad = ~np.isfinite(C).all(axis=(1, 2))
                C = np.where(bad[:, None, None], 0.0, C)
                whole = np.linalg.svd(C, compute_uv=False)[:, 0]
                dependent = np.linalg.svd(C[:, :, self.n - self.k:], compute_uv=False)[:, -1]
                with np.errstate(divide="ignore", invalid="ignore"):
                    out = whole / dependent
                return np.where(bad | ~np.isfinite(out), np.inf, out)

            cache[key] = cond
        return cache[key]

    def applyfunc(self, fn) -> "DependentSpeeds":
        return DependentSpeeds(*(M.applyfunc(fn) for M in (self.kinematics, self.kinematics_offset,
                                                             self.constraints, self.constraints_offset)))

    def _solved(self):
        m = self.n - self.k
        E, e = sp.eye(self.n), sp.zeros(self.n, 1)
        if self.k:
            C_dep = self.constraints[:, m:]
            E[m:, :m] = -C_dep.LUsolve(self.constraints[:, :m])
            e[m:, 0] = -C_dep.LUsolve(self.constraints_offset)
        return E, e

    def vectors(self) -> sp.ImmutableMatrix:
        """X = J [[I, 0], [Bk, I]] symbolically (for display: where the symbolic solve divides by
        a vanishing factor it is 0/0, where the numeric frame is regular)."""
        return sp.ImmutableMatrix(self.kinematics * self._solved()[0])

    def offset(self) -> sp.ImmutableMatrix | None:
        """w0 = J [0; e] + q0 symbolically, or None without offset."""
        if not self.has_offset:
            return None
        return sp.ImmutableMatrix(self.kinematics * self._solved()[1] + self.kinematics_offset)

    def __eq__(self, other) -> bool:
        return isinstance(other, DependentSpeeds) and self.outputs() == other.outputs() and self.n == other.n

    __hash__ = None

    def __getstate__(self) -> dict:
        """Pickled without the NumPy functions :meth:`dependent_condition` keeps (built again on use)."""
        return {k: v for k, v in self.__dict__.items() if k != "_conditions"}

    def __repr__(self) -> str:
        return f"<DependentSpeeds: n={self.n}, k={self.k} dependent speeds{', offset' if self.has_offset else ''}>"


def _column(x, n: int, what: str) -> sp.ImmutableMatrix:
    v = sp.ImmutableMatrix(x) if n else sp.ImmutableMatrix.zeros(0, 1)
    if v.shape == (1, n) and n != 1:
        v = v.T
    if v.shape != (n, 1):
        raise ValueError(f"{what} must have shape ({n}, 1), got {v.shape}")
    return v
