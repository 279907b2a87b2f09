"""Vakonomic two-point problems by multiple shooting with forward sensitivities.

The vakonomic trajectory from q0 to q1 in time T (Lewis-Murray 1995, eq. (2.2) as corrected in
docs/errata.md) is a critical point of the action among curves satisfying the constraints;
for a free particle (no potential, no force) it is a sub-Riemannian geodesic (Montgomery 2002,
section 1.4: the normal geodesics are the projections of the vakonomic trajectories). The
unknowns are the initial velocity on D(q0) (m = n - k coordinates in a basis of ker A(q0)) and
the initial multipliers lambda(0) (k), plus the full states at interior nodes for
``segments > 1`` (Stoer-Bulirsch, *Introduction to Numerical Analysis*, section 7.3.5). Newton's
method with minimum-norm steps (the shooting matrix may be singular along a symmetry of the
solution set, e.g. rotations of the Heisenberg geodesics about the z axis) and backtracking;
the matrix comes from the sensitivities dy(T)/dy(0).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import options as check
from ..errors import IntegrationError, ModelError, NonholoError
from ..integrate.simulation import simulate
from .states import parameter_mapping

__all__ = ["vakonomic_bvp", "ShootingError"]

LINE_IN_D = 0.1  # a default start whose straight line has less than this part in D starts along D

# Singular values of the shooting matrix below RCOND times the largest are treated as zero: the
# matrix is exactly singular along a symmetry of the solution set (rotations of the Heisenberg
# geodesics), and numerically its singular value there is of the size of the integration error
# (1e-10 and below), which a minimum-norm step must not divide by.
RCOND = 1e-8
RETRY_SEGMENTS = 4  # the default's shooting intervals where single shooting fails
OFF_THE_LINE = (0.3, 1.0)  # the default start's bumps off an abnormal curve, relative to its speed (_off_the_line)
# What a trial step of the shooting may raise: an integration that fails, or a state its projection
# cannot handle (a metric no longer positive definite at a trial node)
TRIAL_FAILURES = (IntegrationError, ModelError)


class ShootingError(NonholoError, RuntimeError):
    """The shooting iteration found no trajectory: no convergence, or a singular shooting
    matrix (the endpoint is not reachable from the current guess). ``residual`` holds the
    remaining endpoint mismatch, ``iterations`` the Newton steps taken."""

    def __init__(self, message: str, residual: float, iterations: int):
        super().__init__(message)
        self.residual = residual
        self.iterations = iterations


def _distribution_basis(system, q, t, params):
    """An orthonormal basis N (n, m) of ker A(q) and the minimum-norm v_p with A v_p = b."""
    A, b = system.constraint_matrix(q, t, params)
    k = A.shape[0]
    _, s, Vt = np.linalg.svd(A)
    if k and s[-1] <= 1e-12 * max(s[0], 1.0):
        raise ShootingError(f"the constraint rows are linearly dependent at q0 = {q}", np.inf, 0)
    vp = np.linalg.lstsq(A, b, rcond=None)[0] if k else np.zeros(system.n)
    return Vt[k:].T, vp


class _Shooting:
    def __init__(self, system, q0, q1, T, segments, params, rtol, atol):
        self.model = system.vakonomic()
        self.system, self.params, self.rtol, self.atol = system, params, rtol, atol
        self.n, self.k = system.n, system.k
        self.ns = self.model.n_states
        self.q0, self.q1 = q0, q1
        self.nodes = np.linspace(0.0, T, segments + 1)
        self.N, self.vp = _distribution_basis(system, q0, 0.0, params)
        self.n_first = self.N.shape[1] + self.k

    def first_state(self, z):
        m = self.N.shape[1]
        return np.concatenate([self.q0, self.vp + self.N @ z[:m], z[m:self.n_first]])

    def states(self, z):
        interior = z[self.n_first:].reshape(-1, self.ns)
        return [self.first_state(z), *interior]

    def _segment(self, i, y, jac: bool):
        first = i == 0
        sens = None
        if jac:
            sens = [("y0", j) for j in range(self.n, self.ns)] if first else ["y0"]
        sol = simulate(self.model, (self.nodes[i], self.nodes[i + 1]), y, t_eval=[self.nodes[i + 1]],
                       params=self.params, rtol=self.rtol, atol=self.atol, sensitivities=sens,
                       project_y0=not first, raise_on_failure=True)
        S = None
        if jac:
            S = sol.sensitivities[:, :, -1]
            if first:  # d/d(a, lambda0): v0 = v_p + N a
                S = np.hstack([S[:, : self.n] @ self.N, S[:, self.n:]])
        return sol.y[:, -1], S

    def residual(self, z, jac: bool = True):
        Y = self.states(z)
        n_seg = len(Y)
        r, blocks = [], []
        for i, y in enumerate(Y):
            end, S = self._segment(i, y, jac)
            if i < n_seg - 1:
                r.append(end - Y[i + 1])
            else:
                r.append(end[: self.n] - self.q1)
            blocks.append(S)
        r = np.concatenate(r)
        if not jac:
            return r, None
        J = np.zeros((r.size, z.size))
        row = 0
        for i, S in enumerate(blocks):
            rows = self.ns if i < n_seg - 1 else self.n
            col = 0 if i == 0 else self.n_first + (i - 1) * self.ns
            J[row:row + rows, col:col + S.shape[1]] = S[:rows]
            if i < n_seg - 1:
                nxt = self.n_first + i * self.ns
                J[row:row + rows, nxt:nxt + self.ns] -= np.eye(self.ns)
            row += rows
        return r, J


_FIT_STEPS = 2000  # a trajectory guess's acceleration at t = 0 by differences of step T / _FIT_STEPS


def _trajectory_of(shoot: _Shooting, guess, T: float):
    """(q at given times, as a function of them; q' at 0, h, 2h with h = T / _FIT_STEPS) of a
    trajectory given as the guess: an optimal control solution whose states are the coordinates
    (``system.kinematic()``'s), or a simulation result whose state starts with [q, q'] (None: not
    a trajectory)."""
    n = shoot.n
    start = np.array([0.0, 1.0, 2.0]) * T / _FIT_STEPS
    if hasattr(guess, "states_at") and hasattr(guess, "controls_at") and hasattr(guess, "problem"):
        if list(guess.state_names) != list(shoot.system.coordinate_names):
            raise ValueError(f"guess: an optimal control solution's states must be the coordinates "
                             f"{shoot.system.coordinate_names}, got {list(guess.state_names)}")
        if abs(guess.t_final - T) > 1e-9 * T:
            raise ValueError(f"guess: the solution's duration {guess.t_final} is not T = {T}")
        return guess.states_at, guess.problem._rhs(guess.states_at(start), guess.controls_at(start))
    t, y = getattr(guess, "t", None), getattr(guess, "y", None)
    if t is None or y is None or np.ndim(y) != 2 or np.shape(y)[0] < 2 * n:
        return None
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    if t.size < 2 or abs(t[0]) > 1e-12 * max(T, 1.0) or t[-1] < 0.999 * T:
        raise ValueError(f"guess: the trajectory must cover [0, T] = [0, {T}], got t in [{t[0]}, {t[-1]}]")
    return (lambda ts: np.array([np.interp(ts, t, row) for row in y[:n]]),
            np.array([np.interp(start, t, row) for row in y[n:2 * n]]))


def _multipliers_fitted(shoot: _Shooting, positions, V: np.ndarray, T: float) -> np.ndarray:
    """lambda0 whose vakonomic motion from (q0, v0) follows the trajectory: first the one whose
    acceleration at t = 0 is closest to the trajectory's (v' is affine in lambda: k + 1
    evaluations and a least-squares solve; a multiplier that v'(0) does not see stays 0), then the
    positions at 10 times of [0, w] matched in least squares (Levenberg-Marquardt in lambda0) for
    w = T/8, T/4, T/2 and T, each window from the last's lambda0."""
    from scipy.optimize import least_squares

    h = T / _FIT_STEPS
    v0 = V[:, 0]
    accel = (-3 * V[:, 0] + 4 * V[:, 1] - V[:, 2]) / (2 * h)
    n, k = shoot.n, shoot.k

    def v_rate(lam):
        return shoot.model.rhs(0.0, np.concatenate([shoot.q0, v0, lam]), shoot.params)[n:2 * n]

    base = v_rate(np.zeros(k))
    M = np.column_stack([v_rate(np.eye(k)[j]) - base for j in range(k)])
    lam0 = np.linalg.lstsq(M, accel - base, rcond=None)[0]
    for window in (T / 8, T / 4, T / 2, T):  # short windows first: there the positions are nearly affine in lambda0
        ts = np.linspace(0.0, window, 11)[1:]
        target = positions(ts)
        scale = max(1.0, float(np.max(np.abs(target))))

        def mismatch(lam, ts=ts, target=target, scale=scale):
            try:
                run = simulate(shoot.model, (0.0, ts[-1]), np.concatenate([shoot.q0, v0, lam]), t_eval=ts,
                               params=shoot.params, rtol=1e-8, atol=1e-10, raise_on_failure=True)
            except IntegrationError:
                return np.full(target.size, 10.0 * scale)
            return (run.y[:n] - target).ravel()

        lam0 = least_squares(mismatch, lam0, method="lm", xtol=1e-10, ftol=1e-10).x
    return lam0


def _initial_guess(shoot: _Shooting, guess, T: float):
    """(a, lambda0) from guess = None, a mapping {"v0", "lambda0"}, an array or a trajectory
    (v0 its velocity at t = 0, lambda0 fitted to its motion, _multipliers_fitted), then the
    interior nodes from one integration of that start."""
    v0 = lam0 = None
    path = None if guess is None or isinstance(guess, (dict, list, tuple, np.ndarray)) else \
        _trajectory_of(shoot, guess, T)
    if path is not None:
        positions, V = path
        v0, lam0 = V[:, 0], _multipliers_fitted(shoot, positions, V, T)
    elif isinstance(guess, dict):
        unknown = sorted(set(guess) - {"v0", "lambda0"})
        if unknown:
            raise ValueError(f"guess: a mapping takes the keys 'v0' and 'lambda0', got {unknown}")
        v0, lam0 = guess.get("v0"), guess.get("lambda0")
        for key, value, size in (("v0", v0, shoot.n), ("lambda0", lam0, shoot.k)):
            if value is not None and np.shape(value) != (size,):
                raise ValueError(f"guess[{key!r}] must have shape ({size},), got {np.shape(value)}")
            if value is not None and not np.all(np.isfinite(np.asarray(value, dtype=float))):
                raise ValueError(f"guess[{key!r}] contains NaN or inf")
    elif guess is not None:
        g = np.asarray(guess, dtype=float).reshape(-1)
        if g.size != shoot.n + shoot.k:
            raise ValueError(f"guess must have n + k = {shoot.n + shoot.k} entries (v0, lambda0), got {g.size}")
        v0, lam0 = g[: shoot.n], g[shoot.n:]
    if v0 is None:
        v0 = (shoot.q1 - shoot.q0) / T
        if np.linalg.norm(shoot.N.T @ v0) < LINE_IN_D * max(np.linalg.norm(v0), 1.0):
            # the straight line (nearly) leaves D: start along the first direction of D instead (the
            # Heisenberg particle from (0.1, 0, 0) to (0.1, 0, 0.3): 5% of the line in D, and a first
            # Newton step to multipliers of 1e4 that no integration survived)
            v0 = shoot.N[:, 0] * max(np.linalg.norm(shoot.q1 - shoot.q0), 1.0) / T
    a = shoot.N.T @ (np.asarray(v0, dtype=float) - shoot.vp)
    lam0 = np.zeros(shoot.k) if lam0 is None else np.asarray(lam0, dtype=float).reshape(shoot.k)
    z = np.concatenate([a, lam0])
    if len(shoot.nodes) > 2:
        try:
            sol = simulate(shoot.model, (0.0, T), shoot.first_state(z), t_eval=shoot.nodes[1:-1],
                           params=shoot.params, rtol=shoot.rtol, atol=shoot.atol, raise_on_failure=True)
        except TRIAL_FAILURES as err:
            raise ShootingError(f"vakonomic_bvp: the integration of its start through the {len(shoot.nodes) - 2} "
                                f"interior nodes failed ({err}); give a guess (a plan or a simulation) nearer the "
                                "geodesic", np.inf, 0) from None
        z = np.concatenate([z, sol.y.T.reshape(-1)])
    return z


def _off_the_line(system, q0, q1, T: float, params, options: dict) -> list:
    """The geodesics the default start reaches when bumped off its line: where that start lies on an
    abnormal curve (the shooting matrix singular there, the endpoint off its range: the flat Martinet
    distribution's line y = 0 from (0, 0, 0) to (1, 0, 0.01), where its two mirror-image minimizers,
    1.0921983, lie either side), v0 moved by each of OFF_THE_LINE times |v0| along each other direction
    of D at q0, both ways, lambda0 = 0; each that converges (an outside probe's guess, v0 = (1, +-0.3, 0);
    to (1, 0, 0.05) only the bump of 1 reaches the shortest, 1.37795, the others 2.02304)."""
    N, vp = _distribution_basis(system, q0, 0.0, params)
    a = N.T @ ((q1 - q0) / T - vp)
    size = float(np.linalg.norm(a))
    if not size > 0:
        return []
    found = []
    for j in range(N.shape[1]):
        e = np.eye(N.shape[1])[j] - a * a[j] / size**2  # the j-th direction of D, off the line's
        if not np.linalg.norm(e) > 1e-8:
            continue
        for bump in (b * sign for b in OFF_THE_LINE for sign in (1.0, -1.0)):
            v0 = vp + N @ (a + bump * size * e / np.linalg.norm(e))
            try:
                found.append(vakonomic_bvp(system, q0, q1, T, {"v0": v0, "lambda0": np.zeros(system.k)},
                                           params=params, **options))
            except ShootingError:
                continue
    return found


def _diagnose(J, r) -> str:
    s = np.linalg.svd(J, compute_uv=False)
    rank = int(np.sum(s > RCOND * s[0])) if s.size and s[0] > 0 else 0
    if rank < min(J.shape):
        in_range = J @ np.linalg.lstsq(J, r, rcond=RCOND)[0]
        if np.linalg.norm(r - in_range) > 0.5 * np.linalg.norm(r):
            return (f"the shooting matrix is singular (rank {rank} of {min(J.shape)}) and the endpoint mismatch "
                    "lies outside its range: q1 is not reachable from this guess. The guess may lie on an abnormal "
                    "curve, along which the endpoint does not depend on lambda0 to first order (the Martinet "
                    "distribution's line y = 0 from a straight start): try a velocity off it and lambda0 != 0, or a "
                    "plan of least energy as the guess; else q1 may violate an integrable constraint")
    return "no Newton step reduces the endpoint mismatch (try another guess or more segments)"


def vakonomic_bvp(system, q0, q1, T: float, guess=None, *, params=None, segments: int | None = None, tol: float = 1e-10,
                  max_iterations: int = 50, rtol: float = 1e-12, atol: float = 1e-14, n_points: int = 2001):
    """The vakonomic trajectory from q0 to q1 in time T, by (multiple) shooting.

    Parameters
    ----------
    system : System
        Any system with constraints (its vakonomic model is used).
    q0, q1 : array_like, shape (n,)
        Endpoints (t = 0 and t = T).
    T : float
        Duration (positive).
    guess : None, mapping {"v0": ..., "lambda0": ...}, array (v0, lambda0) or a trajectory
        Starting point: v0 is projected onto ker A(q0); default v0 = (q1 - q0)/T (along D
        when that leaves D) and lambda0 = 0. A trajectory from q0 to q1 in time T (an
        :class:`~nonholo.OptimalControlProblem` solution of ``system.kinematic()`` with
        ``cost="energy"``, or a simulation result with state [q, q', ...]) gives v0 = q'(0) and
        lambda0 fitted to its motion (its acceleration at t = 0, then its positions over growing
        windows of [0, T]): a start near the geodesic where the default
        stalls (the vertical rolling disk turning 0.3 rad while moving 0.5 sideways of its
        rolling). Newton converges to the vakonomic trajectory
        nearest the guess, which need not be the shortest one (from (0, 0, 0) to (0, 0, z1)
        the Heisenberg particle has geodesics winding k times, of length 2 sqrt(k pi z1)):
        compare ``length`` between guesses when the shortest is wanted.
    segments : int, optional
        Shooting intervals (1: single shooting). By default single shooting, then, where it fails,
        RETRY_SEGMENTS intervals from the same guess (single shooting failed on 3 of 7 endpoints of
        the Heisenberg particle within its unit ball, (0.1, 0, 0.3) for one, which 4 intervals
        reach).
    tol : float
        Converged when max |mismatch| (endpoint and node continuity) <= tol.

    Returns
    -------
    SimulationResult
        From ``simulate`` on ``n_points`` equally spaced times, with additional attributes
        ``length`` (integral of sqrt(v^T G v)), ``action`` (integral of 1/2 v^T G v - V),
        ``endpoint_error`` (|q(T) - q1|, inf norm), ``iterations``, ``v0``, ``lambda0``.

    Raises
    ------
    ShootingError
        No convergence within ``max_iterations``, or a singular shooting matrix with the
        mismatch outside its range (an unreachable endpoint), instead of a wrong trajectory.

    Examples
    --------
    >>> import nonholo as nh
    >>> geodesic = nh.vakonomic_bvp(nh.systems.heisenberg(), [0, 0, 0], [1.0, 0.5, 0.3], 1.0)
    >>> round(geodesic.length, 6)  # the sub-Riemannian distance
    1.422574
    """
    from scipy.integrate import simpson

    _check_system(system)
    q0 = np.asarray(q0, dtype=float).reshape(-1)
    q1 = np.asarray(q1, dtype=float).reshape(-1)
    if system.k == 0:
        raise ValueError("vakonomic_bvp needs a system with constraints (k > 0)")
    for name, q in (("q0", q0), ("q1", q1)):
        if q.shape != (system.n,) or not np.all(np.isfinite(q)):
            raise ValueError(f"{name} must be {system.n} finite numbers, got {q}")
    params = parameter_mapping(params)
    T = check.positive(T, "T")
    if segments is None:
        try:
            return vakonomic_bvp(system, q0, q1, T, guess, params=params, segments=1, tol=tol,
                                 max_iterations=max_iterations, rtol=rtol, atol=atol, n_points=n_points)
        except ShootingError as single:
            try:
                return vakonomic_bvp(system, q0, q1, T, guess, params=params, segments=RETRY_SEGMENTS, tol=tol,
                                     max_iterations=max_iterations, rtol=rtol, atol=atol, n_points=n_points)
            except ShootingError as multiple:
                abnormal = guess is None and "abnormal curve" in str(single) + str(multiple)
                found = _off_the_line(system, q0, q1, T, params, dict(tol=tol, max_iterations=max_iterations,
                                      rtol=rtol, atol=atol, n_points=n_points)) if abnormal else []
                if found:
                    best = min(found, key=lambda g: g.length)
                    lengths = sorted({round(g.length, 8) for g in found})
                    warnings.warn(f"vakonomic_bvp: the default start lies on an abnormal curve (the shooting matrix "
                                  f"is singular there); starts bumped off it reached geodesics of lengths {lengths}, "
                                  f"and the shortest of them is returned. The shortest geodesic may be another: "
                                  "compare with a plan of least energy as the guess", UserWarning, stacklevel=2)
                    return best
                single = str(single).rstrip(" .")
                tried = (" Starts bumped off the default's (v0 moved by 0.3 and 1 |v0| along the other directions "
                         "of D, both ways) failed too." if abnormal else "")
                raise ShootingError(f"{single}. With {RETRY_SEGMENTS} segments: {multiple}{tried}", multiple.residual,
                                    multiple.iterations) from None
    segments = check.count(segments, "segments")
    tol = check.positive(tol, "tol")
    max_iterations = check.count(max_iterations, "max_iterations", minimum=0)
    n_points = check.count(n_points, "n_points", minimum=2)
    _check_n_points(n_points, 2 * system.n + system.k)
    _check_segments(segments, n_points, 2 * system.n + system.k)
    rtol, atol = check.tolerances(rtol, atol)
    atol = float(atol[0]) if atol.size == 1 else atol
    shoot = _Shooting(system, q0, q1, T, segments, params, rtol, atol)
    z = _initial_guess(shoot, guess, T)
    try:
        r, J = shoot.residual(z)
    except TRIAL_FAILURES as err:
        raise ShootingError(f"vakonomic_bvp: the shooting from its start failed to integrate ({err}); give a "
                            "guess (a plan or a simulation) nearer the geodesic", np.inf, 0) from None
    it = 0
    while np.max(np.abs(r)) > tol:
        if it >= max_iterations:
            raise ShootingError(f"vakonomic_bvp did not converge in {max_iterations} Newton steps "
                                f"(max mismatch {np.max(np.abs(r)):.3g} > tol = {tol:g})", float(np.max(np.abs(r))), it)
        dz = np.linalg.lstsq(J, -r, rcond=RCOND)[0]
        alpha, accepted = 1.0, False
        while alpha >= 1e-4:
            try:
                r_new, _ = shoot.residual(z + alpha * dz, jac=False)
            except TRIAL_FAILURES:  # backtrack
                r_new = None
            if r_new is not None and np.linalg.norm(r_new) < (1 - 1e-4 * alpha) * np.linalg.norm(r):
                try:  # the step's sensitivities too: their integration may fail where the state's did not
                    r_next, J_next = shoot.residual(z + alpha * dz)
                    accepted = True
                    break
                except TRIAL_FAILURES:
                    pass
            alpha /= 2
        if not accepted:
            mismatch = float(np.max(np.abs(r)))
            scale = max(1.0, float(np.max(np.abs(q1))), float(np.max(np.abs(q0))))
            why = (f"the mismatch stalls at the integration's accuracy (rtol = {rtol:g}): loosen tol or tighten rtol"
                   if mismatch < 1e3 * rtol * scale else _diagnose(J, r))
            raise ShootingError(f"vakonomic_bvp failed after {it} Newton steps (max mismatch {mismatch:.3g}): {why}",
                                mismatch, it)
        z = z + alpha * dz
        r, J = r_next, J_next
        it += 1

    y0 = shoot.first_state(z)
    sol = simulate(shoot.model, (0.0, T), y0, t_eval=np.linspace(0.0, T, n_points), params=params, rtol=rtol,
                   atol=atol, raise_on_failure=True)
    n = system.n
    kinetic = np.array([0.5 * v @ system.metric_at(q, params) @ v for q, v in zip(sol.y[:n].T, sol.y[n:2 * n].T)])
    potential = np.array([system.energy(q, np.zeros(n), params) for q in sol.y[:n].T])
    sol.length = float(simpson(np.sqrt(2.0 * kinetic), x=sol.t))
    sol.action = float(simpson(kinetic - potential, x=sol.t))
    sol.endpoint_error = float(np.max(np.abs(sol.y[:n, -1] - q1)))
    sol.iterations = it
    sol.v0 = y0[n:2 * n]
    sol.lambda0 = y0[2 * n:]
    return sol


def _check_n_points(n_points: int, n_states: int) -> None:
    """ValueError naming ``n_points`` where the returned trajectory (and its lengths' integrands) would not
    fit in the available memory (n_points = 1e9 ended in a raw MemoryError after the shooting)."""
    from ..system.checks import refuse_beyond_memory

    refuse_beyond_memory(8 * n_points * (n_states + 4), f"n_points = {n_points} samples of {n_states} states need",
                         "8 bytes per value", "take fewer")


# The most unknowns of the shooting (segments x states) whose least-squares steps (O(N^3) on a dense
# N x N matrix) take seconds: 400 segments of the Heisenberg particle (2800 unknowns) took 12 s a Newton
# step, 800 segments 47 s, 1e6 segments never ended
MAX_SHOOTING_UNKNOWNS = 3000


def _check_system(system) -> None:
    """TypeError naming ``system`` for anything but a System (a Model has no k: its attributes were
    read before this was asked)."""
    from ..models.model import Model

    if isinstance(system, Model):
        raise TypeError("system must be a nonholo System (its vakonomic model is used), got a "
                        f"{type(system).__name__}: pass model.system")
    if not hasattr(system, "k") or not hasattr(system, "vakonomic") or not hasattr(system, "n"):
        raise TypeError(f"system must be a nonholo System (its vakonomic model is used), got {type(system).__name__}")


def _check_segments(segments: int, n_points: int, n_states: int) -> None:
    """ValueError naming ``segments`` where its shooting matrix (about segments x n_states unknowns,
    dense, with the least-squares solver's copies) does not fit in the memory, where it has more
    intervals than the returned trajectory has (n_points - 1, at least RETRY_SEGMENTS), or more
    unknowns than MAX_SHOOTING_UNKNOWNS (segments = 1e6 hung in its first Newton step)."""
    from ..system.checks import refuse_beyond_memory

    unknowns = segments * n_states
    refuse_beyond_memory(3 * 8.0 * unknowns**2, f"segments = {segments}: the shooting matrix of {unknowns} unknowns "
                         "needs", "dense, 8 bytes per entry, with the least-squares solver's copies",
                         "take fewer segments")
    limit = max(n_points - 1, RETRY_SEGMENTS)
    if segments > limit:
        raise ValueError(f"segments must be at most {limit} (n_points - 1 with n_points = {n_points}, or "
                         f"{RETRY_SEGMENTS}: a shooting interval per interval of the returned trajectory at most), "
                         f"got {segments}")
    if unknowns > MAX_SHOOTING_UNKNOWNS:
        raise ValueError(f"segments = {segments} gives a shooting matrix of {unknowns} unknowns ({n_states} states "
                         f"per segment), more than {MAX_SHOOTING_UNKNOWNS}: each Newton step's least-squares solve "
                         f"grows as its cube (minutes beyond); take at most {MAX_SHOOTING_UNKNOWNS // n_states} "
                         "segments")
