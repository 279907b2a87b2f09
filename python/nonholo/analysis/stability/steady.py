r"""Steady motions: states whose velocities stay constant while only cyclic coordinates move.

For a model y' = f(t, y) with cyclic coordinates q_c (see :mod:`.linearize`), a steady motion
solves

    f(t, y)[i] = 0   for every state component i except the cyclic coordinates,
    Phi(y) = 0       (the constraint set: A(q) v = b(q, t), h(q) = 0),
    y[j] = value     for the components the caller fixes (a speed, a lean angle, ...),
    q_c = guess      (a shift of a cyclic coordinate is the same motion).

The system is usually over-determined but consistent (f is tangent to the constraint set), so
we take Gauss-Newton steps, least-squares solutions of the linearized equations, with the
Jacobian from automatic differentiation (the model's Jacobian and the constraint Jacobian from
the system's tape). Steady motions come in families (a speed for each), so each step is the
one toward the solution set's point nearest the guess: the least-squares step of the equations
with the pull back to the guess within the Jacobian's null space (the minimum-norm step alone
walked along a family where the residual depends weakly on the speed). These steps converge
linearly; a final plain step, taken where it is small, converges quadratically.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .manifold import constraint_set, cyclic_directions, model_cyclic_indices, tied
from .linearize import analysed_model, check_autonomous
from ... import options as check
from ...errors import ModelError, NonholoError, SimulationWarning
from ..states import check_contacts, in_quasi_velocities, model_label, model_state, parameter_mapping
from ...integrate.arguments import pandas_like
from ...models.start_check import check_start

__all__ = ["SteadyMotion", "SteadyMotionError", "steady_motions"]


class SteadyMotionError(NonholoError, ValueError):
    """Newton's method found no steady motion near the guess."""


@dataclass(frozen=True)
class SteadyMotion:
    """A steady motion found by :func:`steady_motions`.

    Attributes
    ----------
    state : ndarray (N,)
        The state y (on the constraint set).
    drift : dict
        Rates of the cyclic coordinates that move, {name: rate}.
    residual : float
        Largest residual of the equations (module docstring) at ``state``.
    iterations : int
    model : Model
    params : dict or None
        The parameter values given to :func:`steady_motions` (the model's own for the others).
    cyclic : list of str or None
        The cyclic coordinates given to :func:`steady_motions` (None: the default ones).
    t : float
    """

    state: np.ndarray
    drift: dict
    residual: float
    iterations: int
    model: object
    params: dict | None = None
    cyclic: list | None = None
    t: float = 0.0

    def linearize(self, **kwargs):
        """:func:`~nonholo.linearize` of the model at this state, with the ``params``, ``cyclic``
        and ``t`` the steady motion was found with (without them a motion found at other parameter
        values was linearized at the model's own: a sleigh solved at a = -0.2 came out stable, at
        a = +0.2). ``kwargs`` override them: ``cyclic``, ``t`` replace, ``params`` is merged over
        the steady motion's."""
        from .linearize import linearize

        options = {"t": self.t, "cyclic": self.cyclic, **kwargs}
        given = parameter_mapping(kwargs.get("params"))
        options["params"] = {**(self.params or {}), **(given or {})} if self.params or given else None
        return linearize(self.model, self.state, **options)


def steady_motions(system, guess, fixed=None, model=None, t: float = 0.0, params=None, cyclic=None,
                   tol: float = 1e-12, max_iterations: int = 50):
    r"""Solve for a steady motion near ``guess`` (module docstring).

    Parameters
    ----------
    system : System or Model
        A system (its nonholonomic model is used unless ``model`` is given) or a model.
    guess : array_like (N,) or (G, N)
        Initial state(s). With several guesses, the distinct solutions found are returned
        (distinct modulo the cyclic coordinates: motions that differ only in them are one); a
        guess that cannot be used (NaN, a singular frame) counts as one that failed. A pandas
        Series (a DataFrame, a guess a row) is read by its labels, as ``simulate`` reads y0. A model in
        quasi-velocities (Kane's speeds) also takes [q, q'] ((2n,) or (G, 2n)), a guess, so q'
        need not satisfy the constraints: it is mapped to the quasi-velocities with its
        components along the constraints dropped. A guess of the model's own length N is always
        the model's state (with no dependent speeds N equals 2n, and it is [q, u]).
    fixed : mapping {state name: value}, optional
        State components to hold at given values (e.g. ``{"phi_dot": 0.0, "x_dot": 2.0}``).
    model : Model, optional
        Which model's steady motions (default ``system.nonholonomic()``).
    t, params, cyclic
        As for :func:`~nonholo.linearize`.
    tol : float
        Convergence: every residual below ``tol * scale`` (scale: the size of the state and f);
        positive and finite.
    max_iterations : int

    Returns
    -------
    SteadyMotion or list of SteadyMotion
        The steady motion found; for several guesses, the list of the distinct ones found.

    Raises
    ------
    SteadyMotionError
        No solution near the guess (the message gives the residual and the equation that
        failed); for several guesses, when none converged (the message gives each guess's
        failure).
    ValueError
        A single guess that cannot be used, or one where the model does not hold (with the
        ``fixed`` values set), as ``simulate`` refuses such a y0: a friction law's contact with a
        negative normal load, a tire law's rolling speed V <= 0 (for several guesses such a guess
        counts as one that failed, and so does a motion found there); a tolerance that is not
        positive and finite.
    TypeError
        ``params`` or ``fixed`` not a mapping.

    Warns
    -----
    SimulationWarning
        A guess moving (a velocity above 0.05) with no velocity in ``fixed`` that converged to rest or
        near it, its velocities below 1e-3 of the guess's: near rest (above 1e-9 of them), the search
        slid along a family of steady motions (a speed for each) toward rest; at rest, it found rest,
        a steady motion but not one at the guess's speed; fix one speed with ``fixed=`` to find the
        motion at that speed. A body with a quaternion attitude that converged to rest.

    Examples
    --------
    >>> import nonholo as nh
    >>> sleigh = nh.systems.chaplygin_sleigh()
    >>> straight = nh.steady_motions(sleigh, [0, 0, 0, 1.0, 0, 0])  # moving straight at speed 1
    >>> straight.state, straight.drift
    (array([0., 0., 0., 1., 0., 0.]), {'x': 1.0})
    """
    if model is None:
        model = system.nonholonomic() if hasattr(system, "nonholonomic") else analysed_model(system, "system")
    elif analysed_model(model) is not None and hasattr(system, "nonholonomic") and model.system is not system and \
            not (getattr(model, "recipe", None) and model.recipe[0] is system):  # a law's model: built from it
        raise ValueError("model was built from another system than the one given")
    check_autonomous(model, "solve for")
    params = parameter_mapping(params)
    tol = check.positive(tol, "tol")
    max_iterations = check.count(max_iterations, "max_iterations")
    t = check.finite_float(t, "t")
    # a pandas Series (a DataFrame: a guess a row) is read by its labels, as simulate reads y0: NumPy
    # drops them, and a Series of the state names out of order was solved from another state
    labelled = pandas_like(guess)
    guesses = guess if labelled and getattr(guess, "ndim", 0) in (1, 2) else np.asarray(guess, dtype=float)
    N, n = model.n_states, model.system.n
    if guesses.ndim == 1:
        return _solve(model, _checked_guess(model, guesses, t, params, fixed=fixed), fixed, t, params, cyclic, tol,
                      max_iterations)
    widths = {N, 2 * n} if in_quasi_velocities(model) else {N}
    if guesses.ndim != 2 or guesses.shape[1] not in widths:
        alternative = f" or (G, {2 * n}) [q, q'] (mapped to {model.state_names[n:]})" if len(widths) > 1 else ""
        raise ValueError(f"guess must have shape ({N},) or (G, {N}) ordered as {model.state_names}{alternative}, "
                         f"got {guesses.shape}")
    model.param_vector(params)  # unknown parameter -> ValueError, whatever the guesses
    _fixed(model, fixed)  # a bad fixed -> TypeError/ValueError, not one failure per guess
    # motions that differ only in cyclic coordinates are one (a shift of them, and of the coordinates
    # tied to them, is the same motion)
    keep = [i for i in range(N) if i not in set(model_cyclic_indices(model, cyclic)) | set(tied(model.system))]
    found, errors = [], []
    for i, g in enumerate((row for _, row in guesses.iterrows()) if labelled else guesses):  # rows as Series
        try:
            y = _checked_guess(model, g, t, params, f"guess[{i}]", fixed)
        except ValueError as exc:  # a guess that cannot be used: one failed guess
            errors.append(str(exc))
            continue
        try:
            sm = _solve(model, y, fixed, t, params, cyclic, tol, max_iterations)
        except SteadyMotionError as exc:
            errors.append(f"guess[{i}]: {exc}")
            continue
        if not any(np.allclose(sm.state[keep], other.state[keep], rtol=1e-8, atol=1e-8) for other in found):
            found.append(sm)
    if not found:
        listed = "; ".join(errors[:3]) + ("; ..." if len(errors) > 3 else "")
        raise SteadyMotionError(f"no steady motion found from any of the {len(guesses)} guesses ({listed})")
    return found


def _checked_guess(model, g, t, params, what: str = "guess", fixed=None) -> np.ndarray:
    """The guess as a state of the model: [q, q'] mapped approximately (q' need not satisfy the
    constraints: its constraint components are dropped) for a model in quasi-velocities; with the
    ``fixed`` values set, a state where the model holds (a law's contacts: :func:`check_contacts`, as
    simulate checks y0: a tire law's rolling speed V > 0, a normal load >= 0)."""
    try:
        g = model_state(model, g, t, params, what, approximate=True)
    except np.linalg.LinAlgError as exc:  # the frame X(q) singular at the guess's q
        raise ValueError(f"{what} cannot be mapped to the model's state {model.state_names}: the frame is singular "
                         f"at its coordinates ({exc})") from None
    if not np.all(np.isfinite(g)):
        raise ValueError(f"{what} contains NaN or inf")
    fix_idx, fix_val = _fixed(model, fixed)
    at = g.copy()
    at[fix_idx] = fix_val
    check_contacts(model, t, at, model.param_vector(params), what + (" with the fixed values" if fix_idx else ""))
    return g.copy()


def _fixed(model, fixed) -> tuple:
    names = model.state_names
    if fixed is None:
        return [], np.zeros(0)
    if not hasattr(fixed, "items"):
        raise TypeError(f"fixed must be a mapping {{state name: value}}, got {fixed!r}")
    unknown = [k for k in fixed if k not in names]
    if unknown:
        raise ValueError(f"fixed contains {unknown}, which are not state names; the states are {names}")
    idx = [names.index(k) for k in fixed]
    vals = np.array([float(v) for v in fixed.values()])
    if not np.all(np.isfinite(vals)):
        raise ValueError("fixed contains NaN or inf")
    return idx, vals


POLISH_STEP = 1e-6  # the largest final plain Newton step taken (relative to the state), see _polished


def _polished(model, t, y, params, r, J, residual, *rows):
    """``y`` after one plain Gauss-Newton step where that step is small (at most POLISH_STEP of the
    state) and lowers the residual: the pulled steps converge linearly, the plain one quadratically
    (the snakeboard's residual 1.2e-16 became 2.5e-32). A large plain step is a walk along a family
    of steady motions, and is not taken."""
    step = np.linalg.lstsq(J, -r, rcond=None)[0]
    if not np.all(np.isfinite(step)) or np.abs(step).max() > POLISH_STEP * max(1.0, np.abs(y).max()):
        return y
    polished = y + step
    r_polished = _equations(model, t, polished, params, *rows)[0]
    return polished if np.abs(r_polished).max() <= residual else y


def _solve(model, y, fixed, t, params, cyclic, tol, max_iterations) -> SteadyMotion:
    names = model.state_names
    check_start(model, t, y, model.param_vector(params))  # unknown parameter -> ValueError; eps <= 0
    cyc = model_cyclic_indices(model, cyclic)
    steady_rows = [i for i in range(len(y)) if i not in set(cyc)]
    S = cyclic_directions(model, cyc, y, params)[1]  # the tied coordinates move with the cyclic ones
    fix_idx, fix_val = _fixed(model, fixed)
    anchor_idx = [c for c in cyc if c not in set(fix_idx)]
    anchor_val = y[anchor_idx].copy()
    y[fix_idx] = fix_val
    residual, r, labels = np.inf, np.zeros(1), ["(no iteration)"]
    start = y.copy()
    for it in range(1, max_iterations + 1):
        try:
            r, J, labels = _equations(model, t, y, params, steady_rows, fix_idx, fix_val, anchor_idx, anchor_val,
                                      names, cyc, S)
            scale = max(1.0, np.abs(y).max(), np.abs(model.rhs(t, y, params)).max())
        except ModelError as exc:
            if it == 1:
                raise
            raise SteadyMotionError(f"no steady motion of the {model_label(model)} model found near the guess: its "
                                    f"Newton step {it - 1} left the states where the model holds{_norms(model, y)} "
                                    f"({exc}). {_advice(model, cyc)}") from None
        residual = float(np.abs(r).max())
        if residual <= tol * scale:
            y = _polished(model, t, y, params, r, J, residual, steady_rows, fix_idx, fix_val, anchor_idx, anchor_val,
                          names, cyc, S)
            try:  # converged where the model does not hold (a tire law's rolling speed through zero)
                check_contacts(model, t, y, model.param_vector(params), "the steady motion found")
            except ValueError as exc:
                raise SteadyMotionError(f"{exc}: guess a state where it holds, or fix a speed with fixed=") from None
            f = model.rhs(t, y, params)
            drift = {names[c]: float(f[c]) for c in cyc if abs(f[c]) > tol * scale}
            _check_moving_cyclic(model, t, y, params, steady_rows, [names.index(c) for c in drift], scale,
                                 {c: S[:, j] for j, c in enumerate(cyc)})
            _warn_at_rest(model, start, y, fix_idx, cyc)
            return SteadyMotion(y, drift, residual, it - 1, model, dict(params) if params is not None else None,
                                list(cyclic) if cyclic is not None else None, t)
        # the Gauss-Newton step toward the solution set's point nearest the guess: its least-squares
        # part, and the pull back to the guess within the null space of J (steady motions come in
        # families, a speed for each; the least-squares step alone walked along them in
        # quasi-velocities, where the residual depends weakly on the speed: a sleigh's 1.2 became 24.8)
        pull = start - y
        step = np.linalg.lstsq(J, -r - J @ pull, rcond=None)[0] + pull
        if not np.all(np.isfinite(step)):
            break
        y = y + step
    worst = int(np.argmax(np.abs(r)))
    # the least-squares steps spread an inconsistency over every row: name the worst equation of motion too
    motion = [i for i, label in enumerate(labels) if label.startswith("d(")]
    worst_motion = max(motion, key=lambda i: abs(r[i])) if motion and worst not in motion else None
    of_motion = "" if worst_motion is None else \
        f"; of the equations of motion, {abs(r[worst_motion]):.3g} ({labels[worst_motion]})"
    raise SteadyMotionError(
        f"no steady motion of the {model_label(model)} model found near the guess: after {max_iterations} Newton steps "
        f"the largest residual is {residual:.3g} ({labels[worst]}{of_motion}){_norms(model, y)}. "
        f"{_advice(model, cyc, cyclic)}")


def _advice(model, cyc, cyclic=None) -> str:
    """What a failed search may try: the cyclic coordinates, another guess or other fixed components."""
    names = model.state_names
    moving = [names[c] for c in cyc] or "none"
    left_out = [names[c] for c in model_cyclic_indices(model) if c not in set(cyc)] if cyclic is not None else []
    replaced = f" cyclic= replaces the default cyclic coordinates: name {left_out} too, where they move." \
        if left_out else ""
    return (f"The coordinates free to move are {moving} (cyclic): a motion that moves another one (a circling "
            f"disc's yaw, a rolling body's attitude) is steady only where the equations do not contain it; name it "
            f"with cyclic=[...] then.{replaced} Or try another guess, or fix (or free) other state components with "
            "fixed={...}")


def _norms(model, y) -> str:
    """The norms of the state's unit-norm groups (a quaternion attitude), where one is far from 1: where a
    search for a rolling body's steady motion took it (an outside probe's ball with x' fixed: 7e6)."""
    groups = getattr(model.system, "unit_norm", None) or []
    coordinates = [str(q) for q in model.system.coordinates]
    far = []
    for group in groups:
        idx = [g if isinstance(g, int) else coordinates.index(str(g)) for g in group]
        norm = float(np.linalg.norm(y[idx]))
        if not abs(norm - 1.0) <= 1e-3:
            far.append(f"{[coordinates[i] for i in idx]} of norm {norm:.3g}")
    return f" (its unit-norm coordinates {', '.join(far)}: rolling moves the attitude, no steady motion)" if far else ""


CYCLIC_SHIFTS = (0.5, -1.3)  # how far a moving cyclic coordinate is shifted to check that the motion stays steady


def _check_moving_cyclic(model, t, y, params, steady_rows, moving, scale, directions) -> None:
    """SteadyMotionError unless the other components' rates stay where they are when each cyclic
    coordinate that moves is shifted (by CYCLIC_SHIFTS, along its symmetry direction in
    ``directions``: with the coordinates tied to it): a steady motion moves them, and stays steady
    only where the equations do not depend on them. A name given in cyclic= that is no symmetry (a
    ball's Euler angle q1 on a turntable) converged to a state whose other rates held only while q1
    stood still: simulated, q2 swung by 1.1 rad."""
    names = model.state_names
    base = model.rhs(t, y, params)[steady_rows]
    bad = {}
    for c in moving:
        for shift in CYCLIC_SHIFTS:
            shifted = y + shift * directions[c]
            with np.errstate(all="ignore"):
                change = np.abs(model.rhs(t, shifted, params)[steady_rows] - base)
            worst = float(np.nanmax(change, initial=0.0)) if np.all(np.isfinite(change)) else np.inf
            if worst > 1e-8 * scale:
                row = steady_rows[int(np.argmax(np.nan_to_num(change, nan=np.inf)))]
                bad[names[c]] = f"shifted by {shift:g}, the rate of {names[row]} changes by {worst:.3g}"
                break
    if bad:
        raise SteadyMotionError(
            f"the state found keeps the other components steady only while the cyclic coordinates "
            f"{list(bad)} stand still, but it moves them, and the equations depend on them ("
            + "; ".join(f"{k} {v}" for k, v in bad.items()) + "): no steady motion. They are no symmetry of the "
            f"{model_label(model)} model: drop them from cyclic, which holds them fixed "
            f"(cyclic= replaces the default set, {[names[i] for i in model_cyclic_indices(model)]})")


MOVING_GUESS = 0.05  # velocities of a guess above which its converging to rest is worth a warning
SLID_TO_REST = 1e-3  # velocities found below this fraction of a moving guess's: the search slid toward rest
AT_REST = 1e-9  # ... and below this fraction: at rest (to rounding), a steady motion in its own right


def _warn_at_rest(model, start, found, fix_idx, cyc) -> None:
    """A warning where a guess moving at more than MOVING_GUESS, with no velocity fixed, converged to rest
    or near it. A body with a quaternion attitude (a unit-norm group) at rest: no rolling or spinning motion
    of it is steady in its coordinates (turning its quaternion). Any model near rest, its velocities below
    SLID_TO_REST of the guess's but not at rest (above AT_REST of them): the search slid along a family of
    steady motions (a speed for each) toward its end at rest, where the equations hardly tell the speeds
    apart, and stopped where the residual, about the square of the speeds, met the tolerance (a free Suslov
    top guessed spinning at 1.9 stopped at 7e-6, off the family's direction, and its linearization there
    gave rates of 1e-6). Any model at rest: rest is a steady motion, to which a guess that was none (a
    sleigh guessed moving along a coordinate that is not cyclic) converges, but a towed caster guessed
    moving at 1 along its cyclic x converged to rest as well, with no word, where its motion at that
    speed needs the speed fixed."""
    n = model.system.n
    if any(i >= n for i in fix_idx):  # a speed given: the search cannot slide along it
        return
    velocities = slice(n, n + model.n_velocities)
    guessed, reached = np.abs(start[velocities]).max(initial=0.0), np.abs(found[velocities]).max(initial=0.0)
    # a guess with a small spin (0.005: a top nudged to find its rest) asked for the rest it found
    if not guessed > MOVING_GUESS:
        return
    moving = [model.state_names[c] for c in cyc]
    if model.system.unit_norm and reached <= AT_REST * guessed:
        warnings.warn(f"steady_motions converged to rest from a guess moving at {guessed:.3g}: the attitude of "
                      f"{model.system.name!r} is a quaternion, which turns as the body rolls or spins, so no such "
                      f"motion is steady in its coordinates (only the cyclic ones {moving} may move). Build it with "
                      "Euler angles (nh.multibody.Mechanism, or KanesMethod) for its stability", SimulationWarning,
                      stacklevel=4)
    elif reached <= AT_REST * guessed:
        speeds = model.state_names[velocities]
        if cyc and model.n_velocities == n:  # the state's rates are the coordinates': a cyclic one's
            speeds = [model.state_names[n + c] for c in cyc]
        warnings.warn(f"steady_motions converged to rest from a guess moving at {guessed:.3g}: rest is a steady "
                      "motion, but not one at the guess's speed. Where the model has steady motions at any speed "
                      f"(a family along its cyclic coordinates {moving}), fix one speed with "
                      f"fixed={{{speeds[0]!r}: ...}} to find the motion at that speed", SimulationWarning, stacklevel=4)
    elif reached <= SLID_TO_REST * guessed:
        speeds = model.state_names[velocities]
        warnings.warn(f"steady_motions converged near rest, but not to rest, from a guess moving at {guessed:.3g}: "
                      f"its velocities {speeds} are at most {reached:.3g}, below {SLID_TO_REST:g} of the guess's. The "
                      "search slid along a family of steady motions (a speed for each) toward rest, where the "
                      "equations hardly tell the speeds apart: this state meets the tolerance only for being slow, "
                      "is not the motion at the guess's speed, and its linearization sees rates of about its small "
                      f"speeds. Fix one speed with fixed={{{speeds[0]!r}: ...}} to find the motion at that speed, or "
                      "guess rest to find rest", SimulationWarning, stacklevel=4)


def _equations(model, t, y, params, steady_rows, fix_idx, fix_val, anchor_idx, anchor_val, names, cyc, S):
    """Residuals and their Jacobian (AD): f without the cyclic rows (the tied coordinates' rates
    less the cyclic ones' along the symmetry directions S), Phi, fixed and anchored values."""
    f = model.rhs(t, y, params)
    Df = model.jacobian(t, y, params)
    f, Df = f - S @ f[cyc], Df - S @ Df[cyc]  # zero in the cyclic rows, which are not used
    cs = constraint_set(model, t, y, params)
    E = np.eye(len(y))
    r = np.concatenate([f[steady_rows], cs.residual, y[fix_idx] - fix_val, y[anchor_idx] - anchor_val])
    J = np.vstack([Df[steady_rows], cs.jacobian, E[fix_idx], E[anchor_idx]])
    labels = ([f"d({names[i]})/dt" for i in steady_rows] + ["constraint residual"] * cs.residual.size
              + [f"fixed {names[i]}" for i in fix_idx] + [f"cyclic {names[i]} held" for i in anchor_idx])
    return r, J, labels
