"""A plan made with a kinematic (nonholonomic) model, driven through the friction realization of a
dynamic system: the slip the plan leaves out, and the tracking error it causes.

The plan's states map to the system's coordinates (``coordinates``); the system's inputs (symbols
of its constraints or force) are either given as expressions of the plan's states and controls
(``inputs``, e.g. a steering angle from the curvature) or solved by inverse dynamics
(``feedforward``, e.g. a drive force): along the planned motion q_p(t), which satisfies the
constraints, the feedforward inputs u_ff make the constrained (nonholonomic) system follow it,

    X^T (G q_p'' + c(q_p, q_p') + dV/dq - F(q_p, q_p', u_ff)) = 0,   X a basis of ker A,

the projection of the equations of motion that the constraint forces A^T lambda drop out of (one
equation per free direction: the feedforward inputs must be as many as the free directions). Then
the friction realization G q'' = F - dV/dq - c - (1/eps) A^T mu A q' is integrated from the plan's
initial state under those inputs. With eps -> 0 it tends to the nonholonomic system, which follows
the plan exactly: the slip A q' and the tracking error q - q_p are O(eps) (Tikhonov).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import sympy as sp

__all__ = ["TrackingResult", "track"]


class TrackingResult:
    """What :func:`track` returns.

    Attributes
    ----------
    t : ndarray (T,)
    y : ndarray (2 n, T)
        The system's coordinates and velocities (``state_names``).
    plan : ndarray (n, T)
        The planned coordinates q_p(t) (the plan's states mapped by ``coordinates``).
    error : ndarray (n, T)
        q(t) - q_p(t): the tracking error.
    slip : ndarray (k, T)
        A(q) q', the constraint rows' slip velocities (0 on the plan).
    inputs : dict name -> ndarray (T,)
        The system's inputs over time (given and feedforward).
    eps : float or None
        The linear realization's eps (None when realized by a law).
    success : bool
        Whether the tracking run reached the plan's end.
    message : str
        The run's message; it also says so where the plan tracked was no success.
    plan_success : bool
        The tracked plan's own ``success`` (a failed plan tracks too: its errors are then those of
        no optimal plan).
    """

    def __init__(self, t, y, plan, slip, inputs, state_names, eps, success, message, plan_success=True):
        self.t, self.y, self.plan, self.slip, self.inputs = t, y, plan, slip, inputs
        self.state_names = state_names
        n = plan.shape[0]
        self.error = y[:n] - plan
        self.eps, self.success, self.message, self.plan_success = eps, success, message, plan_success

    @property
    def max_error(self) -> float:
        """max over time and coordinates of |q - q_p|."""
        return float(np.max(np.abs(self.error)))

    @property
    def max_slip(self) -> float:
        """max over time and constraint rows of |A q'|."""
        return float(np.max(np.abs(self.slip)))

    def __getitem__(self, name: str) -> np.ndarray:
        """A state by name, ``"slip"``, ``"error"``, or an input by name."""
        if name in self.state_names:
            return self.y[self.state_names.index(name)]
        if name == "slip":
            return self.slip
        if name == "error":
            return self.error
        if name in self.inputs:
            return self.inputs[name]
        raise KeyError(f"{name!r} is none of {self.state_names}, 'slip', 'error' or the inputs {list(self.inputs)}")

    def __repr__(self) -> str:
        eps = "law" if self.eps is None else f"{self.eps:.3g}"
        return (f"TrackingResult(eps={eps}, max_error={self.max_error:.3g}, max_slip={self.max_slip:.3g}, "
                f"success={self.success}" + ("" if self.plan_success else ", plan_success=False") + ")")


def _symbols(system, names, what: str) -> list:
    """The system's parameters named ``names`` (the inputs of its force); ValueError naming ``what``
    for a name of no symbol, or of a coordinate or a velocity (which the motion, not the plan, sets),
    or for a symbol named twice (one input solved twice leaves another out: an outside probe's
    feedforward ["F", "F"] left the knife edge's torque at 0, a tracking error of 0.31 for 0.0003)."""
    out = []
    for name in names:
        try:
            symbol = system.symbol(name)
        except KeyError as err:
            raise ValueError(f"{what} names {str(name)!r}, which is not a symbol of {system.name!r}") from err
        if symbol not in system.parameters:
            raise ValueError(f"{what} names {str(name)!r}, which is not an input of {system.name!r}: name symbols "
                             f"of its force among its parameters {list(system.parameter_names)}")
        if symbol in out:
            raise ValueError(f"{what} names {str(symbol)!r} twice: name each input once")
        out.append(symbol)
    return out


#: The most samples track takes (each solves the inverse dynamics and is an output point of the run).
MAX_SAMPLES = 10**6


def _run_options(samples, rtol, atol, n: int) -> tuple:
    """(samples, rtol, atol) checked: samples an integer from 2 (the ends of the plan) to MAX_SAMPLES,
    the tolerances positive and finite (atol a scalar or one per entry of the state, of size n); a
    TypeError or ValueError naming the argument (rtol = -1 reached SciPy as a complex comparison)."""
    from .. import options as check

    samples = check.count(samples, "samples", minimum=2)
    if samples > MAX_SAMPLES:
        raise ValueError(f"samples must be at most {MAX_SAMPLES}, got {samples}")
    rtol, atol = check.tolerances(rtol, atol, n)
    return samples, rtol, float(atol[0]) if atol.size == 1 else atol


#: The largest slip |A(q_p) q_p'| / (|A| |q_p'|) of a plan, at its nodes, that track accepts as a motion
#: of the system's constraints (a plan of the constraints' kinematics has none; a wrong coordinate map
#: gives one of order 1: a unicycle mirrored by y = -Y, 0.87).
PLAN_SLIP = 1e-4


def feedforward_at(residual, start: np.ndarray, least_squares) -> np.ndarray:
    """The feedforward inputs u with residual(u) = 0 (least squares), from the last sample's ``start``: two
    Gauss-Newton steps with a forward-difference Jacobian (the residuals are linear in forces and
    torques: the first step solves them), then ``least_squares`` where they leave a residual, as the
    step d from ``start``, from d = 0. Its first trust region is |x0|: from the start itself, a force that
    crossed zero at -1.6e-15 stalled there on ftol while the inverse dynamics rose to 28.7 N (an outside
    probe's lane change, 161 samples stuck)."""
    u = np.array(start, dtype=float)
    r = np.asarray(residual(u), dtype=float)
    size = 1.0 + float(np.linalg.norm(r))
    for _ in range(2):
        steps = 1e-7 * np.maximum(np.abs(u), 1.0)
        J = np.column_stack([(np.asarray(residual(u + np.where(np.arange(u.size) == j, steps[j], 0.0)), dtype=float)
                              - r) / steps[j] for j in range(u.size)])
        u = u + np.linalg.lstsq(J, -r, rcond=None)[0]
        r = np.asarray(residual(u), dtype=float)
        if np.all(np.isfinite(r)) and float(np.linalg.norm(r)) <= 1e-12 * size:
            return u
    base = np.array(start, dtype=float)
    return base + least_squares(lambda d: residual(base + d), np.zeros_like(base), xtol=1e-14, ftol=1e-14,
                                gtol=1e-14).x


def track(plan, system, eps: float | None = None, coordinates: Mapping | None = None, inputs: Mapping | None = None,
          feedforward: Sequence = (), *, law=None, normal=None, speed=None, samples: int = 400, rtol: float = 1e-8,
          atol: float = 1e-10, method: str = "Radau") -> TrackingResult:
    """Drive ``plan`` (an :class:`~nonholo.control.solution.OptimalControlSolution`) through the
    friction realization of ``system`` (a :class:`~nonholo.System` with linear constraints) at
    ``eps``, or realized by the friction ``law`` (a :mod:`nonholo.laws` law or one per contact,
    with its ``normal`` loads and rolling ``speed``, as :meth:`nonholo.System.friction`):
    :meth:`OptimalControlSolution.track` (the module docstring says how).

    ``coordinates``: the system's coordinate name -> SymPy expression of the plan's states (every
    coordinate; default: the plan's states of the same names); ``inputs``: symbol name -> SymPy
    expression of the plan's states and controls; ``feedforward``: names of symbols of the force
    solved by inverse dynamics along the plan. The other parameters take the system's values.
    Integrated by SciPy (``method``, implicit by default: the friction model is stiff for small eps)
    on the pieces of the plan's mesh (its intervals, split where a control is clipped to a bound inside
    one: the controls have kinks there), restarted at each; the given inputs evaluated from the plan at
    each time, the feedforward solved at about ``samples`` times (an integer from 2 to MAX_SAMPLES; at
    least 3 per piece, equally spaced: the result's times) and joined by a cubic spline on each piece.
    ``rtol`` and ``atol`` (a scalar or one per entry of (q, q')) are positive and finite.
    """
    from scipy.integrate import solve_ivp
    from scipy.interpolate import CubicSpline
    from scipy.optimize import least_squares

    if (eps is None) == (law is None):
        raise ValueError("track needs eps (the linear friction realization) or law= (a nonholo.laws law), not both")
    if eps is not None:
        from .checks import real

        eps = real(eps, "eps")
        if not eps > 0:
            raise ValueError(f"eps must be positive, got {eps!r}")
        if normal is not None or speed is not None:
            raise ValueError("normal and speed go with law=; the linear realization of eps uses neither")
    else:
        from ..expressions.laws import laws_of

        law = laws_of(law)  # TypeError naming law for what is no nonholo.laws law (as System.friction)
        if any(getattr(one, "relaxation_length", None) is not None for one in (law if isinstance(law, list)
                                                                               else [law])):
            raise ValueError("law: a law with a relaxation_length is not supported by track (its lagged forces are "
                             "states of the friction model beyond (q, q')): track with the law without it "
                             "(law.static, its steady state), or run nh.simulate(system.friction(law=...), ...) "
                             "with the plan's inputs")
    from ..expressions.parsing import to_sympy

    if not (hasattr(system, "constraints") and hasattr(system, "coordinates") and hasattr(system, "k")):
        raise TypeError(f"system must be a nonholo.System, got {type(system).__name__}")
    if coordinates is None:  # the default: the plan's states of the coordinates' names
        names = [str(s) for s in system.coordinates]
        missing = [nm for nm in names if nm not in plan.state_names]
        if missing:
            raise ValueError(f"coordinates must map every coordinate of the system to the plan's states: the plan's "
                             f"states {plan.state_names} do not include {missing}, so none is taken by name")
        coordinates = {nm: nm for nm in names}
    if not isinstance(coordinates, Mapping):
        raise TypeError(f"coordinates must be a mapping name -> expression, got {type(coordinates).__name__}")
    if inputs is not None and not isinstance(inputs, Mapping):
        raise TypeError(f"inputs must be a mapping symbol name -> expression, got {type(inputs).__name__}")
    if system.k == 0:
        raise ValueError(f"{system.name!r} has no constraints: it has no friction realization to track with")
    if any(not b.is_zero for b in system.affine):
        raise ValueError(f"{system.name!r} has affine constraints: not supported by track")
    q, v = list(system.coordinates), list(system.velocities)
    n = len(q)
    samples, rtol, atol = _run_options(samples, rtol, atol, 2 * n)
    coordinates = dict(coordinates)
    names = [str(s) for s in q]
    missing = [nm for nm in names if nm not in {str(k) for k in coordinates}]
    if missing:
        raise ValueError(f"coordinates must give every coordinate of the system; missing {missing}")
    extra = [str(k) for k in coordinates if str(k) not in names]
    if extra:
        raise ValueError(f"coordinates names {extra}, which are not coordinates of {names}")
    by_name = {str(k): to_sympy(e, f"coordinates[{str(k)!r}]") for k, e in coordinates.items()}
    ys, us = list(plan.problem.states), list(plan.problem.controls)
    phi = sp.Matrix([by_name[nm] for nm in names])
    allowed = set(ys) | set(us)
    bad = phi.free_symbols - set(ys)
    if bad:
        raise ValueError(f"coordinates must be expressions of the plan's states {plan.state_names}, found {bad}")
    given = dict(zip(_symbols(system, list((inputs or {}).keys()), "inputs"),
                     [to_sympy(e, f"inputs[{str(k)!r}]") for k, e in (inputs or {}).items()]))
    for s, e in given.items():
        if e.free_symbols - allowed:
            raise ValueError(f"inputs[{str(s)!r}] must be an expression of the plan's states and controls, "
                             f"found {e.free_symbols - allowed}")
    if feedforward is None:
        feedforward = ()
    if isinstance(feedforward, (str, sp.Symbol)):  # one name (a string is no list of its letters)
        feedforward = [feedforward]
    ff = _symbols(system, list(feedforward), "feedforward")
    both = [str(s) for s in ff if s in given]
    if both:
        raise ValueError(f"feedforward names {both}, which inputs gives already: an input is given or solved, "
                         "not both")
    if len(ff) not in (0, n - system.k):
        raise ValueError(f"feedforward must name {n - system.k} symbols (one per free direction), got {len(ff)}")
    u_sym = [*given, *ff]
    values = {p: val for p, val in system.parameters.items() if p not in u_sym}
    G = sp.Matrix(system.metric).subs(values)
    A = sp.Matrix(system.constraints).subs(values)
    mu = sp.Matrix(system.friction_coefficients).subs(values)
    Q = (sp.Matrix(system.force) - sp.Matrix([sp.diff(system.potential, qi) for qi in q])).subs(values)
    if system.time in Q.free_symbols:
        raise ValueError("a time-dependent force is not supported by track")
    c = sp.Matrix([sum((sp.diff(G[i, j], q[k]) - sp.diff(G[j, k], q[i]) / 2) * v[j] * v[k]
                       for j in range(n) for k in range(n)) for i in range(n)])
    args = [q, v, u_sym]
    G_f, A_f, mu_f = (sp.lambdify(args, M, "numpy") for M in (G, A, mu))
    rest_f = sp.lambdify(args, Q - c, "numpy")  # F - dV/dq - c
    if law is not None:  # the contacts' forces of the law in place of -(1/eps) A^T mu A v
        from ..system.law_realization import realized_by

        realized = realized_by(system, law, normal, speed)
        extra = {p: val for p, val in realized.parameters.items() if p not in u_sym}
        contact = (sp.Matrix(realized.force) - sp.Matrix(system.force)).subs(extra).subs(values)
        contact_f = sp.lambdify(args, contact, "numpy")

    # the plan: q_p = phi(y), q_p' = phi_y f(y, u), q_p'' = d/dy(q_p') f + d/du(q_p') u'
    f = sp.Matrix(plan.problem.dynamics.rhs)
    qd = phi.jacobian(ys) * f
    phi_f = sp.lambdify([ys], phi, "numpy")
    qd_f = sp.lambdify([ys, us], qd, "numpy")
    qdd_y_f = sp.lambdify([ys, us], qd.jacobian(ys) * f, "numpy")
    qd_u_f = sp.lambdify([ys, us], qd.jacobian(us), "numpy")
    given_f = sp.lambdify([ys, us], list(given.values()), "numpy")

    def planned(t, lo, hi):
        """q_p, q_p', q_p'' and the given inputs at t in the mesh interval [lo, hi] (the controls'
        rate from inside it: it jumps at the nodes)."""
        y, u = plan.states_at([t])[:, 0], plan.controls_at([t])[:, 0]
        h = 1e-6 * (hi - lo)
        a, b = max(t - h, lo), min(t + h, hi)
        du = (plan.controls_at([b])[:, 0] - plan.controls_at([a])[:, 0]) / (b - a)
        if b == hi and hi < plan.t_final:  # controls_at(hi) is the next interval's: the limit from inside
            du = (plan.controls_at([b - 1e-9 * (hi - lo)])[:, 0] - plan.controls_at([a])[:, 0]) / (b - 1e-9 * (hi - lo)
                                                                                                 - a)
        qp = np.asarray(phi_f(y), dtype=float).reshape(-1)
        qpd = np.asarray(qd_f(y, u), dtype=float).reshape(-1)
        qpdd = (np.asarray(qdd_y_f(y, u), dtype=float).reshape(-1)
                + np.asarray(qd_u_f(y, u), dtype=float).reshape(n, -1) @ du)
        return qp, qpd, qpdd, np.asarray(given_f(y, u), dtype=float).reshape(-1)

    guess = np.array([float(system.parameters.get(s, 0.0)) for s in ff])

    def inputs_on(times, lo, hi):
        """The inputs (given and feedforward) at ``times`` in the mesh interval [lo, hi]."""
        nonlocal guess
        U = np.zeros((len(u_sym), times.size))
        for j, t in enumerate(times):
            qp, qpd, qpdd, ug = planned(t, lo, hi)
            if ff:
                def residual(uf, qp=qp, qpd=qpd, qpdd=qpdd, ug=ug):
                    uu = [*ug, *uf]
                    Gm, Am = np.asarray(G_f(qp, qpd, uu), float), np.asarray(A_f(qp, qpd, uu), float)
                    X = np.linalg.svd(Am)[2][system.k:].T  # a basis of ker A
                    return X.T @ (Gm @ qpdd - np.asarray(rest_f(qp, qpd, uu), float).reshape(-1))

                guess = feedforward_at(residual, guess, least_squares)
            U[:, j] = [*ug, *guess]
        return U

    def accel(qq, vv, uu):
        force = np.asarray(rest_f(qq, vv, uu), float).reshape(-1)
        if law is not None:
            force = force + np.asarray(contact_f(qq, vv, uu), float).reshape(-1)
        else:
            Am = np.asarray(A_f(qq, vv, uu), float)
            force = force - Am.T @ (np.asarray(mu_f(qq, vv, uu), float) @ (Am @ vv)) / eps
        return np.linalg.solve(np.asarray(G_f(qq, vv, uu), float), force)

    # interval by interval of the plan's mesh (its controls have kinks at the nodes, the
    # feedforward jumps there): the inputs sampled inside each, the integration restarted at each node
    from .reintegration import kinks

    nodes = np.asarray(plan.t, dtype=float)
    for k, node in enumerate(nodes):
        qp, qpd, _, ug = planned(node, nodes[max(k - 1, 0)], nodes[max(k, 1)])
        Am = np.asarray(A_f(qp, qpd, [*ug, *guess]), float)
        slip = np.linalg.norm(Am @ qpd) / max(np.linalg.norm(Am) * np.linalg.norm(qpd), 1e-300)
        if slip > PLAN_SLIP:
            raise ValueError(f"the plan, mapped by coordinates, is no motion of the constraints of {system.name!r}: "
                             f"its relative slip |A(q_p) q_p'| / (|A| |q_p'|) is {slip:.3g} at t = {node:.4g} (at most "
                             f"{PLAN_SLIP:g}); check the coordinates map")
    # the pieces: the mesh's intervals, split where a control is clipped to a bound inside one (a kink)
    # (not within round-off of a node or another kink: a piece of no length, on which the controls' rate is
    # 0 / 0; an outside probe's least-time car through a cusp, two kinks 1.7e-10 apart, raised LinAlgError)
    tol = 1e-9 * max(plan.t_final, 1e-300)
    for clip in np.sort(np.asarray(kinks(plan), dtype=float).reshape(-1)):
        if np.abs(nodes - clip).min() > tol:
            nodes = np.union1d(nodes, [clip])
    per = max(3, -(-samples // (nodes.size - 1)) + 1)
    qp0, qpd0, _, _ = planned(0.0, nodes[0], nodes[1])
    z = np.concatenate([qp0, qpd0])
    ts, ys, us, qps, slips = [], [], [], [], []
    success, message = True, "The solver successfully reached the end of the integration interval."
    for k, (lo, hi) in enumerate(zip(nodes[:-1], nodes[1:])):
        times = np.linspace(lo, hi, per)
        U = inputs_on(times, lo, hi)
        # the given inputs at t itself, the feedforward's samples by a cubic spline inside the interval: the
        # inputs linearly interpolated between the samples (an error of h^2, more where a control is clipped
        # inside the interval) moved an outside probe's trailer park's tracking error by 47 % at 400 samples
        between = CubicSpline(times, U[len(given):], axis=1) if ff else None

        def rhs(t, zz, between=between):
            y, u = plan.states_at([t])[:, 0], plan.controls_at([t])[:, 0]
            uu = np.r_[np.asarray(given_f(y, u), dtype=float).reshape(-1), between(t) if ff else []]
            return np.concatenate([zz[n:], accel(zz[:n], zz[n:], uu)])

        with np.errstate(all="ignore"):
            start = rhs(lo, z)
        if not np.all(np.isfinite(start)):  # SciPy's own words were "array must not contain infs or NaNs"
            raise ValueError(f"the friction model's acceleration is not finite at t = {lo:.4g} of the plan (at its "
                             f"state there): a law whose rolling speed vanishes there (a plan from rest or through a "
                             f"stop, speed=|V|) defines no force; track the part of the plan where it moves")
        run = solve_ivp(rhs, (lo, hi), z, method=method, t_eval=times, rtol=rtol, atol=atol)
        if not run.success:
            success, message = False, str(run.message)
            break
        keep = slice(0, None) if k == 0 else slice(1, None)  # each node once
        z = run.y[:, -1]
        ts.append(run.t[keep])
        ys.append(run.y[:, keep])
        us.append(U[:, keep])
        qps.append(np.array([planned(t, lo, hi)[0] for t in run.t[keep]]).T)
        slips.append(np.array([np.asarray(A_f(run.y[:n, i], run.y[n:, i], U[:, i]), float) @ run.y[n:, i]
                               for i in range(run.t.size)])[keep].T)
    t_all = np.concatenate(ts) if ts else np.empty(0)
    Y = np.concatenate(ys, axis=1) if ys else np.empty((2 * n, 0))
    Qp = np.concatenate(qps, axis=1) if qps else np.empty((n, 0))
    slip = np.concatenate(slips, axis=1) if slips else np.empty((system.k, 0))
    U_all = np.concatenate(us, axis=1) if us else np.empty((len(u_sym), 0))
    state_names = names + [str(s) for s in v]
    sampled = {str(s): U_all[i] for i, s in enumerate(u_sym)}
    if not plan.success:
        message += f" The plan tracked is no success ({plan.message[:200]})."
    return TrackingResult(t_all, Y, Qp, slip, sampled, state_names, eps, success, message, plan.success)
