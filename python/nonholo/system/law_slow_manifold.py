r"""The slow manifold of a system realized by a nonlinear friction law, expanded in the law's scale.

The friction model of a law (:mod:`nonholo.system.law_realization`) is
:math:`G v' = r(t, q, v) + A^T z`, where each contact :math:`c` carries the force
:math:`z_c = \Phi_c(\sigma_c / \varepsilon)` of its slip :math:`\sigma = A v - b`, and
:math:`\varepsilon` is the law's velocity scale (``law.scale``: :math:`v_s` for Coulomb and
Stribeck, :math:`\varepsilon` for the linear law), so that :math:`\Phi_c` does not depend on it. For
the regularized Coulomb law, :math:`\Phi(\varsigma) = \mu N \varphi(\varsigma)` with
:math:`\varphi(\varsigma) = -\varsigma / \sqrt{1 + \lVert\varsigma\rVert^2}`; for the linear law
:math:`\Phi(\varsigma) = -\mu \varsigma`.

Split :math:`v = u + s`, :math:`u = P v + v_b` on the constraint set (:math:`A u = b`) and
:math:`s = W \sigma`, :math:`W = G^{-1} A^T M^{-1}`, :math:`M = A G^{-1} A^T`. Differentiating
:math:`\sigma = A v - b` along the motion gives :math:`\sigma' = A f - a + M z`, with
:math:`f = G^{-1} r` and :math:`a = b_q v + b_t - (D_v A) v`, that is, the invariance equation

.. math::

    \Phi(\varsigma) = M^{-1} \sigma' - \lambda(t, q, u + W\sigma), \qquad
    \lambda = M^{-1} (A f - a), \qquad \sigma = \varepsilon \varsigma,

where :math:`-\lambda` is the multiplier of the nonholonomic model (the constraint force). The
law of :math:`u` does not involve the law at all (:math:`P G^{-1} A^T = 0`): it is the projected
acceleration of the linear case, :math:`G u' = r - X + A^T \mu'`, :math:`A u' = a + (D_v A) s`,
:math:`X = (D_v A)^T M^{-1} \sigma - (D_v G) s`, at :math:`v = u + s`. So the reduced model of order
:math:`K` of any law is the one of the linear law with another slip,
:math:`s = W \sum_{k=1}^{K} \varepsilon^k \varsigma_{k-1}(t, q, u)`.

Order by order in :math:`\varepsilon`, :math:`\varsigma = \varsigma_0 + \varepsilon \varsigma_1 +
\dots`:

* :math:`\varepsilon^0`: :math:`\Phi(\varsigma_0) = -\lambda(t, q, u)`, the force of the law equals the
  nonholonomic constraint force, a nonlinear equation per contact (Newton's method, the Jacobian
  :math:`\Phi'` from SymPy). For Coulomb, :math:`\varsigma_0 = -\rho / \sqrt{1 - \lVert\rho\rVert^2}`
  with :math:`\rho = -\lambda / (\mu N)`: the creep. It has a solution only inside the friction
  cone, :math:`\lVert\lambda_c\rVert < \mu N_c` (the law's ``saturation`` times :math:`N_c`): at the
  cone's edge the slow manifold folds.
* :math:`\varepsilon^j`, :math:`j \ge 1`: :math:`\Phi'(\varsigma_0)\, \varsigma_j = R_j`, linear in
  :math:`\varsigma_j` with the local slope of the law (for the linear law :math:`-\mu`: the
  recursion of ``system.slip``), :math:`R_j` the :math:`\varepsilon^j` coefficient of the right-hand
  side minus the nonlinear remainder of :math:`\Phi` (its Taylor terms of degree at least two).

The coefficients are computed as the C++ expansion computes the linear one (``slow_manifold.hpp``):
along a slow trajectory through :math:`(t_0, q_0, u_0)` every quantity is a series in
:math:`(\varepsilon, \tau = t - t_0)` truncated at total degree :math:`K - 1`
(:mod:`nonholo.expressions.jets`); :math:`q = q_0 + \int v`, :math:`u = u_0 + \int u'` and a chord
step :math:`\varsigma \leftarrow \varsigma + \Phi'(\varsigma_0)^{-1} (M^{-1} \sigma' - \lambda -
\Phi(\varsigma))` are iterated; each makes one more weight :math:`2a + b` of the coefficients of
:math:`\varepsilon^a \tau^b` exact, so :math:`2K - 1` sweeps give :math:`\varsigma_{K-1}`. The
system's data and the law are evaluated on the series by lambdified SymPy expressions, with no
symbolic inverse.
"""

from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from .. import options as check
from ..errors import ModelError
from ..expressions.jets import Jet, jet_function, variable
from .arguments import order_argument
from .law_realization import check_speed_used, contact_rows, own_speeds, per_contact, viscous_coefficients

__all__ = ["FoldError", "LawSlowManifold", "reduced_by_law"]


class FoldError(ModelError):
    """The constraint force leaves the friction cone: the slow manifold of the law folds there."""


# ---------------------------------------------------------------- series of vectors and matrices
# A series array X has shape (D+1, D+1, *shape): X[a, b] the coefficient of eps^a tau^b (zero for a + b > D).

def _series(values, D: int, shape: tuple) -> np.ndarray:
    """The nested list ``values`` (numbers or jets) as a series array."""
    if D == 0:  # numbers (a right-hand side of order 1)
        return np.asarray(values, dtype=float).reshape((1, 1, *shape))
    flat = np.asarray(values, dtype=object).reshape(-1)
    out = np.zeros((D + 1, D + 1, flat.size))
    for i, x in enumerate(flat):
        if isinstance(x, Jet):
            out[:, :, i] = x.c
        else:
            out[0, 0, i] = float(x)
    return out.reshape((D + 1, D + 1, *shape))


def _jets(X: np.ndarray) -> list:
    D = X.shape[0] - 1
    flat = X.reshape(D + 1, D + 1, -1)
    if D == 0:
        return [float(x) for x in flat[0, 0]]
    return [Jet(flat[:, :, i].copy()) for i in range(flat.shape[2])]


@functools.lru_cache(maxsize=None)
def _terms(D: int):
    return [(a, b) for d in range(D + 1) for a in range(d + 1) for b in (d - a,)]


def _mul(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The series product X @ Y (matrix times matrix or vector)."""
    D = X.shape[0] - 1
    if D == 0:
        return (X[0, 0] @ Y[0, 0])[None, None]
    out = np.zeros((D + 1, D + 1, *np.shape(X[0, 0] @ Y[0, 0])))
    for a, b in _terms(D):
        for i in range(a + 1):
            for j in range(b + 1):
                out[a, b] += X[i, j] @ Y[a - i, b - j]
    return out


def _solve(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Z with X Z = Y as series: Z_ab = X_00^-1 (Y_ab - sum over (i, j) != 0 of X_ij Z_(a-i)(b-j))."""
    D = X.shape[0] - 1
    if D == 0:
        return np.linalg.solve(X[0, 0], Y[0, 0])[None, None]
    lu = np.linalg.inv(X[0, 0])
    Z = np.zeros_like(Y)
    for a, b in _terms(D):
        rest = Y[a, b].copy()
        for i in range(a + 1):
            for j in range(b + 1):
                if i or j:
                    rest -= X[i, j] @ Z[a - i, b - j]
        Z[a, b] = lu @ rest
    return Z


def _shift_eps(X: np.ndarray) -> np.ndarray:
    """eps X."""
    out = np.zeros_like(X)
    out[1:] = X[:-1]
    D = X.shape[0] - 1
    for a in range(D + 1):
        out[a, D + 1 - a:] = 0.0
    return out


def _d_tau(X: np.ndarray) -> np.ndarray:
    out = np.zeros_like(X)
    D = X.shape[0] - 1
    for b in range(1, D + 1):
        out[:, b - 1] = b * X[:, b]
    return out


def _integral_tau(x0, X: np.ndarray) -> np.ndarray:
    """x0 + int_0^tau X (degree kept)."""
    D = X.shape[0] - 1
    out = np.zeros_like(X)
    out[0, 0] = x0
    for b in range(D):
        out[:, b + 1] = X[:, b] / (b + 1)
    for a in range(D + 1):
        out[a, D + 1 - a:] = 0.0
    return out


def _transpose(X: np.ndarray) -> np.ndarray:
    return np.swapaxes(X, -1, -2)


# ---------------------------------------------------------------- the expansion
def _expandable(law) -> None:
    """ValueError naming ``law`` when it has no slow manifold to expand."""
    if law.set_valued:
        raise ValueError(f"law: the {law.name} law is set-valued (v_s=None): it has no slow manifold; give v_s, "
                         "or use the stick-slip model (system.stick_slip)")
    if law.scale is None:
        raise ValueError(f"law: the {law.name} law gives no scale (Law(..., scale=)): the slow manifold is "
                         "expanded in it")
    if law.relaxation_length is not None:
        raise ValueError(f"law: the {law.name} law has a relaxation length: its deflections lag the slip over "
                         "sigma / |V|, a time scale of their own that the expansion in the law's scale does not "
                         "carry; the reduced model and the slip take the steady law, law.static (sigma -> 0)")


def _expansion_scale(system, law, speed, parameters: set):
    """The constant eps of the expansion: the law's scale at the contact's rolling speed, or, where
    that speed is a function of the state (a tire's V / (B C D) on a car), the scale per unit speed
    (1 / (B C D)): the law's force is then Phi(varsigma) = z(eps varsigma) with V inside, and the
    orders are powers of that constant (the slip, V / (B C D) times a function of the state, is
    O(eps) all the same)."""
    scale = system.resolve(law.scale.xreplace({law.speed: speed}) if law.speed is not None else law.scale)
    if not scale.free_symbols <= parameters and law.speed is not None:
        per_speed = system.resolve(law.scale.xreplace({law.speed: 1}))
        if per_speed.free_symbols <= parameters:
            return per_speed
    if not scale.free_symbols <= parameters:
        raise ValueError(f"law: the scale of the {law.name} law, {law.scale}, depends on the state "
                         f"({sorted(map(str, scale.free_symbols - parameters))}); its slow manifold is expanded in "
                         "a constant scale")
    return scale


# The ray of slips x d (in units of the law's scale, whose features lie near 1) on which a law's largest force
# in a direction is sought, as the C++ ratio does (law_slow_manifold.cpp): a geometric scan, then golden sections.
# The C++ scan starts at the slip that carries the force and stops where the law has turned flat (a saturating
# law); this reference scans the whole ray, and the two agree to rounding (tests/test_law_fold_ranges.py).
RAY_FIRST, RAY_LAST, RAY_FACTOR, GOLDEN_STEPS = 1e-4, 1e10, 1.25, 48


def largest_force_along(g) -> float:
    """The first peak of g(x) (the law's force along a direction at the slip x d), x from 0 where g is 0,
    or its supremum (the value at RAY_LAST) where it rises all the way; a fall by more than rounding
    marks the peak, refined by golden-section search."""
    before = last = g_last = 0.0
    x = RAY_FIRST
    while x <= RAY_LAST:
        value = g(x)
        if not np.isfinite(value):
            return g_last
        if value < g_last - 1e-12 * abs(g_last):
            phi = 0.5 * (np.sqrt(5.0) - 1.0)
            a, b = before, x
            x1, x2 = b - phi * (b - a), a + phi * (b - a)
            g1, g2 = g(x1), g(x2)
            for _ in range(GOLDEN_STEPS):
                if g1 >= g2:
                    b, x2, g2 = x2, x1, g1
                    x1 = b - phi * (b - a)
                    g1 = g(x1)
                else:
                    a, x1, g1 = x1, x2, g2
                    x2 = a + phi * (b - a)
                    g2 = g(x2)
            return max(g_last, g1, g2)
        before, last, g_last = last, x, value
        x *= RAY_FACTOR
    return g_last


class LawSlowManifold:
    """The slow manifold of ``system`` realized by ``law`` (module docstring): its slip coefficients
    at a point (:meth:`coefficients`), the reduced right-hand side (:meth:`reduced_rhs`) and the
    friction ratio per contact, |lambda_c| over the law's largest force in its direction
    (:meth:`friction_ratio`)."""

    def __init__(self, system, law, normal=None, speed=None, contacts=None):
        if system.k == 0:
            raise ValueError(f"{system.name!r} has no constraint rows to realize by a friction law")
        laws = list(law) if isinstance(law, (list, tuple)) else [law]
        for one in laws:
            _expandable(one)
        self.groups = contact_rows(system, contacts, laws[0])
        count = len(self.groups)
        speed = own_speeds(system, laws, speed, count)
        check_speed_used(laws, speed)
        self.system, self.law = system, laws[0]
        self.realization = (law, normal, speed, contacts)  # the arguments of its friction model (friction())
        if len(laws) == 1:
            laws = laws * count
        elif len(laws) != count:
            raise ValueError(f"law has {len(laws)} laws for {count} contacts: give one law, or one per contact")
        self.disc = [bool(getattr(one, "disc_range", False)) for one in laws]  # ratio |lambda| / (saturation N)
        if any(one.normal is not None for one in laws) and normal is None:
            raise ValueError(f"normal: the {self.law.name} law depends on the normal load: give normal= (a value or "
                             "expression, or one per contact)")
        if any(one.speed is not None for one in laws) and speed is None:
            raise ValueError(f"speed: the {self.law.name} law depends on the rolling speed: give speed=")
        loads = per_contact(normal, count, "normal", system) if normal is not None else [None] * count
        speeds = per_contact(speed, count, "speed", system) if speed is not None else [None] * count
        t, q, v, p = system.time, list(system.coordinates), list(system.velocities), list(system.parameters)
        self._args = [t, *q, *v, *p]
        scale = _expansion_scale(system, laws[0], speeds[0], set(p))
        self._scale = sp.lambdify(p, scale, "math")
        # the law per contact as Phi_c(varsigma; t, q, v, p) = z_c(eps varsigma), and its Jacobian;
        # the expressions are kept for the C++ model (nonholo.models.law_core lowers them to tapes)
        self._phi, self._dphi, self._limit = [], [], []
        self.expressions = dict(scale=scale, laws=[], limits=[])
        for c, rows in enumerate(self.groups):
            law_c = laws[c].for_rows(len(rows))
            zeta = sp.symbols(f"_varsigma_{c}_1:{len(rows) + 1}", real=True)
            # simplified in the law's own N and V (small), then the contact's load and speed put in
            z = law_c.force([scale * x for x in zeta], law_c.normal, law_c.speed)
            z = sp.Matrix([sp.simplify(e) for e in z]) if len(rows) == 1 else z
            z = system.resolve(z.xreplace({k: v for k, v in ((law_c.normal, loads[c]), (law_c.speed, speeds[c]))
                                           if k is not None}))
            extra = z.free_symbols - set(self._args) - set(zeta)
            if extra:
                raise ValueError(f"law: the {law_c.name} law has symbols the system does not give: "
                                 f"{sorted(map(str, extra))}")
            self.expressions["laws"].append((list(zeta), list(z)))
            self._phi.append(jet_function([*zeta, *self._args], list(z), "the law"))
            self._dphi.append(sp.lambdify([*zeta, *self._args], z.jacobian(sp.Matrix(zeta)).tolist(), "math"))
            limit = None
            if law_c.saturation is not None and (law_c.normal is None or loads[c] is not None):
                limit = system.resolve(law_c.saturation * (loads[c] if law_c.normal is not None else 1))
            self.expressions["limits"].append(limit)
            self._limit.append(None if limit is None else sp.lambdify(self._args, limit, "math"))

    @functools.cached_property
    def friction_model(self):
        """The friction model of the law (``system.friction(law=..., ...)``), whose time scales say
        where the expansion holds (:meth:`CoreLawReducedModel.spectral_gap`)."""
        law, normal, speed, contacts = self.realization
        return self.system.friction(law=law, normal=normal, speed=speed, contacts=contacts)

    @functools.cached_property
    def _data(self):
        """The system's data on series (:meth:`_lambdify_data`), built on first use: the C++ model of
        the law (nonholo.models.law_core) does not need them."""
        return self._lambdify_data()

    # ------------------------------------------------------------ the system's data on series
    def _lambdify_data(self):
        """The system's data as jet functions, cached on the system (they do not depend on the law):
        [G, A] of q, and [dG/dq^l, dA/dq^l, db/dq, db/dt, dV/dq, F (or the applied force)] of (t, q, v);
        the velocity terms are assembled in series arithmetic (:meth:`_evaluate`), so that no
        symbolic product of the derivatives is formed."""
        s = self.system
        cached = s.__dict__.get("_law_series_data")
        if cached is not None:
            self._geometry, self._shapes = cached[0], cached[2]
            return cached[1]
        q = list(s.coordinates)
        G, A, b = sp.Matrix(s.metric), sp.Matrix(s.constraints), sp.Matrix(s.affine)
        n, k = s.n, s.k
        dG = [G[i, j].diff(x) for i in range(n) for j in range(n) for x in q]  # [i, j, l]
        dA = [A[a, j].diff(x) for a in range(k) for j in range(n) for x in q]  # [a, j, l]
        db = [b[a].diff(x) for a in range(k) for x in q]
        bt = [b[a].diff(s.time) for a in range(k)]
        given = s.applied_force is not None
        dV = [sp.sympify(s.potential).diff(x) for x in q]
        force = list(s.applied_force) if given else list(s.force)
        self._shapes = dict(n=n, k=k, given=given)
        self._geometry = jet_function([*q, *s.parameters], [*G, *A], "the system")
        data = jet_function(self._args, [*dG, *dA, *db, *bt, *dV, *force], "the system")
        s.__dict__["_law_series_data"] = (self._geometry, data, self._shapes)
        return data

    def _evaluate(self, t, q, v, p, D: int, geometry: list | None = None) -> list:
        """[G, A, r, dG_v, dA_v, a] as series arrays at series (or numbers) t, q, v: r = F - c - dV
        (c_i = (dG_v v)_i - 1/2 v^T dG/dq^i v), dG_v = sum_l dG/dq^l v^l, a = db/dq v + db/dt - dA_v v;
        ``geometry``: [G, A] at q when known already."""
        values = self._data(t, *q, *v, *p)
        n, k = self._shapes["n"], self._shapes["k"]
        G, A = geometry if geometry is not None else self._metric_rows(q, p, D)
        sizes = [n * n * n, k * n * n, k * n, k, n, n]
        parts, start = [], 0
        for size in sizes:
            parts.append(values[start: start + size])
            start += size
        dG = _series(parts[0], D, (n * n, n))
        dA = _series(parts[1], D, (k * n, n))
        db, bt = _series(parts[2], D, (k, n)), _series(parts[3], D, (k,))
        dV, F = _series(parts[4], D, (n,)), _series(parts[5], D, (n,))
        V = _series(v, D, (n,))
        dG_v = _mul(dG, V).reshape(D + 1, D + 1, n, n)
        dA_v = _mul(dA, V).reshape(D + 1, D + 1, k, n)
        a = _mul(db, V) + bt - _mul(dA_v, V)
        if self._shapes["given"]:
            r = F
        else:  # 1/2 v^T dG/dq^i v: w[(j, l)] ... from the rows j of dG (i j l) contracted with v_i, then v_j
            w = _mul(V[:, :, None, :], dG.reshape(D + 1, D + 1, n, n * n)).reshape(D + 1, D + 1, n, n)
            half = _mul(V[:, :, None, :], w).reshape(D + 1, D + 1, n)
            r = F - (_mul(dG_v, V) - 0.5 * half) - dV
        return [G, A, r, dG_v, dA_v, a]

    def _metric_rows(self, q, p, D: int) -> list:
        """[G, A] as series arrays at q."""
        self._data  # noqa: B018 - builds self._geometry on first use
        values = self._geometry(*q, *p)
        n, k = self._shapes["n"], self._shapes["k"]
        return [_series(values[: n * n], D, (n, n)), _series(values[n * n:], D, (k, n))]

    def scale(self, p) -> float:
        """The law's scale at the parameters p (the system's, in its order)."""
        return float(self._scale(*p))

    def _phi_series(self, sigma: list, t, q, v, p, D: int) -> np.ndarray:
        z = []
        for c, rows in enumerate(self.groups):
            z += list(self._phi[c](*[sigma[i] for i in rows], t, *q, *v, *p))
        return _series(z, D, (self.system.k,))

    def _slope(self, sigma0, t, q, v, p) -> np.ndarray:
        """dPhi/dvarsigma (k x k, block-diagonal by contact) at numbers."""
        k = self.system.k
        J = np.zeros((k, k))
        for c, rows in enumerate(self.groups):
            J[np.ix_(rows, rows)] = np.asarray(self._dphi[c](*sigma0[rows], t, *q, *v, *p), dtype=float)
        return J

    # ------------------------------------------------------------ the leading order
    def _multipliers(self, t, q, u, p, geometry: list | None = None) -> tuple:
        """lambda = M^-1 (A f - a) at (t, q, u) (numbers), with G^-1 A^T and M; ``geometry``: [G, A]
        at q as series arrays of degree 0, when known already."""
        G, A, r, _, _, a = (X[0, 0] for X in self._evaluate(t, q, u, p, 0, geometry))
        GinvAT = np.linalg.solve(G, A.T)
        M = A @ GinvAT
        lam = np.linalg.solve(M, A @ np.linalg.solve(G, r) - a)
        return lam, GinvAT, M

    def friction_ratio(self, t, q, u, p) -> np.ndarray:
        """The friction ratio per contact at (t, q, u) on the constraint set: |f_c| over the law's largest
        force along f_c / |f_c| (f_c = -lambda_c, the force the contact must carry), whatever the shape
        of the law's range (:func:`largest_force_along`); the slow manifold exists while it is below 1,
        and it is at least 1 where no slip of the law carries f_c. NaN where the law gives no force."""
        lam = self._multipliers(t, q, u, p)[0]
        out = np.full(len(self.groups), np.nan)
        for c, rows in enumerate(self.groups):
            f = -lam[rows]
            norm = np.linalg.norm(f)
            if norm == 0:
                out[c] = 0.0
                continue
            if self.disc[c] and self._limit[c] is not None:  # its forces fill the disc of radius L_c
                out[c] = norm / float(self._limit[c](t, *q, *u, *p))
                continue
            try:
                d = self._newton(c, rows, f, t, q, u, p) if self._inside_limit(c, norm, t, q, u, p) else None
            except FoldError:
                d = None
            if d is not None:  # a stalled Newton iteration short of the force (at the law's peak) carries nothing
                miss = np.asarray(self._phi[c](*d, t, *q, *u, *p), dtype=float) - f
                d = d if np.linalg.norm(miss) <= 1e-10 * max(1.0, norm) else None
            carried = d is not None
            if d is None or not np.linalg.norm(d) > 0 or not np.all(np.isfinite(d)):
                slope = np.asarray(self._dphi[c](*np.zeros(len(rows)), t, *q, *u, *p), dtype=float)
                slope = slope.reshape(len(rows), len(rows))
                if np.linalg.matrix_rank(slope) < len(rows):
                    continue  # the law gives no force here (no load): NaN
                d = np.linalg.solve(slope, f)

            def g(x, d=d / np.linalg.norm(d), e=f / norm, c=c):
                return float(np.dot(np.asarray(self._phi[c](*(x * d), t, *q, *u, *p), dtype=float), e))

            largest = largest_force_along(g)
            rho = norm / largest if largest > 0 else np.inf
            out[c] = rho if carried else max(rho, 1.0)
        return out

    def _inside_limit(self, c, norm, t, q, u, p) -> bool:
        """Whether the force's norm is below the contact's bound saturation N_c (True without one)."""
        return self._limit[c] is None or norm < float(self._limit[c](t, *q, *u, *p))

    def leading_slip(self, t, q, u, p, lam=None) -> np.ndarray:
        """varsigma_0: Phi(varsigma_0) = -lambda per contact, by Newton's method (FoldError outside the
        friction cone)."""
        if lam is None:
            lam = self._multipliers(t, q, u, p)[0]
        sigma = np.zeros(self.system.k)
        for c, rows in enumerate(self.groups):
            target = -lam[rows]
            if self._limit[c] is not None:
                limit = float(self._limit[c](t, *q, *u, *p))
                if np.linalg.norm(target) >= limit:
                    raise FoldError(f"the constraint force of contact {c} leaves the friction cone at t = {t:.6g}: "
                                    f"|lambda| / (saturation N) = {np.linalg.norm(target) / limit:.6g} >= 1, where "
                                    f"the slow manifold of the {self.law.name} law folds (no slip carries the force)")
            sigma[rows] = self._newton(c, rows, target, t, q, u, p)
        return sigma

    def _newton(self, c, rows, target, t, q, u, p) -> np.ndarray:
        def residual(x):
            return np.asarray(self._phi[c](*x, t, *q, *u, *p), dtype=float) - target

        def jacobian(x):
            return np.asarray(self._dphi[c](*x, t, *q, *u, *p), dtype=float).reshape(len(rows), len(rows))

        x = np.linalg.solve(jacobian(np.zeros(len(rows))), target)
        scale = np.linalg.norm(target)  # relative: a force of 1e-15 met to 1e-15 absolute was the linear start
        for _ in range(100):
            res = residual(x)
            if np.linalg.norm(res) <= 1e-15 * scale:
                return x
            step = np.linalg.solve(jacobian(x), res)
            length = 1.0
            while length > 1e-10 and np.linalg.norm(residual(x - length * step)) > (1 - 1e-4 * length) * \
                    np.linalg.norm(res):
                length /= 2
            x = x - length * step
            if length <= 1e-10 or np.linalg.norm(length * step) <= 1e-15 * (1 + np.linalg.norm(x)):
                return x
        raise FoldError(f"the leading slip of contact {c} did not converge at t = {t:.6g} (residual "
                        f"{np.linalg.norm(residual(x)):.3g}): no slip of the {self.law.name} law carries the "
                        "constraint force there")

    # ------------------------------------------------------------ the expansion
    def coefficients(self, t0: float, q0, u0, p, order: int, lam=None) -> np.ndarray:
        """varsigma_0, ..., varsigma_(order-1) at (t0, q0, u0), shape (order, k): the slip of the slow
        manifold is sigma = A v - b = sum_k eps^k varsigma_(k-1). ``lam``: lambda there, when known."""
        k, n = self.system.k, self.system.n
        if order == 0:
            return np.zeros((0, k))
        q0, u0 = np.asarray(q0, dtype=float), np.asarray(u0, dtype=float)
        sigma0 = self.leading_slip(t0, q0, u0, p, lam)
        D = order - 1
        if D == 0:
            return sigma0[None, :]
        slope = self._slope(sigma0, t0, q0, u0, p)
        Sg = np.zeros((D + 1, D + 1, k))
        Sg[0, 0] = sigma0
        Q, U = _integral_tau(q0, np.zeros((D + 1, D + 1, n))), _integral_tau(u0, np.zeros((D + 1, D + 1, n)))
        t = variable(t0, D, "tau")
        for _ in range(2 * order - 1):
            q = _jets(Q)
            G, A = self._metric_rows(q, p, D)
            GinvAT = _solve(G, _transpose(A))
            M = _mul(A, GinvAT)
            s = _mul(GinvAT, _solve(M, _shift_eps(Sg)))
            V = U + s
            v = _jets(V)
            G, A, r, dG_v, dA_v, a = self._evaluate(t, q, v, p, D, [G, A])
            lam = _solve(M, _mul(A, _solve(G, r)) - a)
            rhs = _solve(M, _shift_eps(_d_tau(Sg))) - lam
            phi = self._phi_series(_jets(Sg), t, q, v, p, D)
            Sg = Sg + np.linalg.solve(slope, (rhs - phi).reshape(-1, k).T).T.reshape(Sg.shape)
            udot = self._acceleration(G, A, r, dG_v, dA_v, a, GinvAT, M, s)
            Q, U = _integral_tau(q0, V), _integral_tau(u0, udot)
        return Sg[:order, 0]

    def _acceleration(self, G, A, r, dG_v, dA_v, a, GinvAT, M, s) -> np.ndarray:
        """u' of G u' = r - X + A^T mu, A u' = a + dA_v s, X = dA_v^T M^-1 A s - dG_v s (series)."""
        y = _solve(M, _mul(A, s))
        X = _mul(_transpose(dA_v), y) - _mul(dG_v, s)
        w = _solve(G, r - X)
        mu = _solve(M, a + _mul(dA_v, s) - _mul(A, w))
        return w + _mul(GinvAT, mu)

    def slip(self, t0: float, q0, u0, p, order: int) -> np.ndarray:
        """h^(1..order) (order, n): the slip s = sum_k eps^k h^(k), h^(k) = W varsigma_(k-1)."""
        sigma = self.coefficients(t0, q0, u0, p, order)
        G, A = (X[0, 0] for X in self._metric_rows(q0, p, 0))
        GinvAT = np.linalg.solve(G, A.T)
        W = GinvAT @ np.linalg.inv(A @ GinvAT)
        return sigma @ W.T

    def reduced_rhs(self, t: float, q, u, p, order: int, eps: float) -> tuple:
        """(q', u') of the reduced model of this order at (t, q, u): q' = v = u + s,
        s = W sum_k eps^k varsigma_(k-1), u' the projected acceleration at v."""
        q, u = np.asarray(q, dtype=float), np.asarray(u, dtype=float)
        geometry = self._metric_rows(q, p, 0)
        lam, GinvAT, M = self._multipliers(t, q, u, p, geometry) if order else (None, None, None)
        sigma = np.zeros(self.system.k)
        for j, x in enumerate(self.coefficients(t, q, u, p, order, lam)):
            sigma = sigma + eps ** (j + 1) * x
        if not order:
            G, A = (X[0, 0] for X in geometry)
            GinvAT = np.linalg.solve(G, A.T)
            M = A @ GinvAT
        s = GinvAT @ np.linalg.solve(M, sigma)
        v = u + s
        data = self._evaluate(t, q, v, p, 0, geometry)
        series = [X[None, None] for X in (GinvAT, M, s)]
        udot = self._acceleration(*data, *series)[0, 0]
        return v, udot


def reduced_by_law(system, law, eps, order, velocities, frame, max_order, normal, speed, contacts):
    """``system.reduced(order=..., law=law, ...)``: the linear law's C++ model for ``Viscous`` with
    numeric coefficients, else a :class:`~nonholo.models.law_core.CoreLawReducedModel`, the C++ model of
    the expansion of this module (``eps``, if given, must equal the law's scale)."""
    from ..expressions.laws import Viscous, laws_of
    from ..models.law_core import CoreLawReducedModel

    law = laws_of(law)
    if isinstance(law, Viscous) and law.eps.is_number and contacts is None and normal is None:
        if eps is not None and not np.isclose(check.positive(eps, "eps"), float(law.eps), rtol=1e-12, atol=0):
            raise ValueError(f"eps = {eps!r} and law = {law!r} disagree: the law carries its scale; give one of them")
        return viscous_coefficients(system, law).reduced(float(law.eps), order=order, velocities=velocities,
                                                         frame=frame, max_order=max_order)
    if order == "auto" or velocities != "coordinates" or frame is not None:
        raise ValueError("the reduced model of a nonlinear law takes a fixed order and velocities='coordinates' "
                         f"(got order={order!r}, velocities={velocities!r})")
    expansion = LawSlowManifold(system, law, normal, speed, contacts)
    if eps is not None:
        scale = expansion.scale(system.param_vector())
        if not np.isclose(check.positive(eps, "eps"), scale, rtol=1e-12, atol=0):
            raise ValueError(f"eps = {eps!r} and law: the {expansion.law.name} law's scale is {scale:g}; the law "
                             "carries its scale, give one of them")
    return CoreLawReducedModel(system, expansion, order_argument(order))
