"""The solution of an optimal control problem: the trajectory at the mesh nodes, the controls by
name, IPOPT's statistics, the local errors of the collocation, and a re-run of the controls."""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..numerics import rows
from .cost_errors import SubstepStates, objective_note

__all__ = ["OptimalControlSolution", "vectorized", "state_scale", "scale_unit"]


def _almost_everywhere(expr):
    """``expr`` with the derivatives of piecewise constant functions (sign, Heaviside: SymPy's
    Derivative(sign(v), v) or DiracDelta) at 0, their value off the jump, as the tapes differentiate
    them: a Coulomb friction u - mu sign(v) in the dynamics has df/dv = 0."""
    expr = sp.sympify(expr)
    jumps = (sp.sign, sp.Heaviside)
    expr = expr.replace(lambda e: isinstance(e, sp.Derivative) and isinstance(e.expr, jumps), lambda e: sp.S.Zero) \
        .replace(lambda e: isinstance(e, sp.DiracDelta), lambda e: sp.S.Zero)
    # the states and controls are real: SymPy's d|u|/du of a symbol not declared real holds re(u) and
    # Derivative(re(u), u), which NumPy cannot print (an outside probe's |u| <= 3 next to a sqrt failed
    # in the note on an invalid number with SymPy's printer error)
    def part_rate(e):  # d re(f) / dz = df / dz and d im(f) / dz = 0, f real
        return sp.diff(e.expr.args[0], *e.variable_count) if isinstance(e.expr, sp.re) else sp.S.Zero

    expr = expr.replace(lambda e: isinstance(e, sp.Derivative) and isinstance(e.expr, (sp.re, sp.im)), part_rate)
    return expr.replace(lambda e: isinstance(e, sp.re), lambda e: e.args[0]) \
        .replace(lambda e: isinstance(e, sp.im), lambda e: sp.S.Zero)


def vectorized(exprs: list, states: list, controls: list):
    """F(Y, U) -> array (len(exprs), P) for Y (n_y, P), U (n_u, P): the expressions in NumPy."""
    fn = sp.lambdify([list(states), list(controls)], [_almost_everywhere(e) for e in exprs], "numpy")

    def call(Y, U):
        Y, U = np.asarray(Y, dtype=float), np.asarray(U, dtype=float)
        return rows(fn(list(Y), list(U)), Y.shape[1])

    return call


class _Controls(dict):
    """``sol.u``: the controls by name or by SymPy symbol (``sol.u[v]`` for the control ``v``); an
    unknown name's KeyError lists the controls."""

    def __missing__(self, name):
        if isinstance(name, sp.Symbol) and str(name) in self:
            return self[str(name)]
        raise KeyError(f"{name!r} is not a control of the problem: its controls are {list(self)}")


#: The largest local error of a plan's interval, relative to the largest range of a state over the
#: plan (max - min: a translation of the problem changes no verdict) + :func:`scale_unit`, that counts
#: as a motion of its dynamics (:meth:`OptimalControlSolution.unresolved`): coarse plans the tests
#: accept reach 0.04 (backward Euler on 100 nodes, a U-turn on 4), the forward-only car that stood still
#: at its nodes 0.38. The same fraction bounds the change of a chart's normalized determinant under an interval's
#: error (:func:`~nonholo.control.charts.chart_reach`).
UNRESOLVED = 0.1
#: A success whose re-run misses its final state by more than this fraction (of the same scale), and less
#: than UNRESOLVED, says so (:func:`_amplification`): backward Euler's least time of an oscillator,
#: 7.288 for 7.937 (|u| <= 1 from (5, 0) to rest, 100 nodes), its re-run 0.60 from the goal, was told nothing.
GAP_NOTE = 0.01
ERROR_SUBSTEPS = 16  # steps of an interval in interval_errors and in the check of every solve
#: The keys of ``stats`` that say how the default start found a plan (a solve with refine= keeps them).
MULTISTART_KEYS = ("starts", "coarse_nodes", "coarse_iterations", "full_solves", "duration_starts")


def _spreads(Y: np.ndarray) -> np.ndarray:
    """The range (max - min) of each state over the columns of Y (n_y, P), 0 where not finite."""
    Y = np.asarray(Y, dtype=float)
    if Y.size == 0:
        return np.zeros(Y.shape[0])
    with np.errstate(invalid="ignore"):
        spread = np.max(Y, axis=1) - np.min(Y, axis=1)
    return np.where(np.isfinite(spread), spread, 0.0)


UNIT_FLOOR = 1e-6  # the least unit of a plan's error scales (scale_unit): far above round-off, below any motion


def scale_unit(Y: np.ndarray) -> float:
    """The unit that the scales of a plan's errors add to each range: min(1, max(r, UNIT_FLOOR)), r the
    largest range of a state over the plan. A unit of 1 made the check absolute for a plan whose states
    all move much less than 1: an outside probe's oscillator moved from (eps, 0) to rest, its plan on 5
    nodes costing 2.5 times the optimum and its re-run missing by 1.2 eps, was no success at eps = 1 and
    a success at eps = 0.01 (all errors below 0.1); with this unit the verdict is the same at every eps
    down to UNIT_FLOOR, and unchanged where some state moves by 1 or more. The floor keeps a plan that
    stands still (a free duration ended at zero: states that move by 1e-12, errors of round-off) a motion."""
    return min(1.0, max(float(np.max(_spreads(Y), initial=0.0)), UNIT_FLOOR))


def state_scale(Y: np.ndarray) -> float:
    """:func:`scale_unit` + the largest range (max - min) of a state over the columns of Y (n_y, P): the
    scale of a plan's errors, unchanged by a translation of the problem (1 + max |y| was not: the
    forward-only car that stands still at its nodes passed the check 100 away from the origin)."""
    return scale_unit(Y) + float(np.max(_spreads(Y), initial=0.0))


def own_scales(Y: np.ndarray) -> np.ndarray:
    """Each state's scale of an error carried to the end of the plan: :func:`scale_unit` + its own range
    over the plan. One scale for all (:func:`state_scale`) put a knife edge's x, of range 1, on the scale
    of its spin rate, of range 1161, a disc's y, of range 0.5, on that of its spin angle, of range 103,
    and a unicycle's x, of range 2, on that of its heading, of range 25, spun by multiples of pi between
    the nodes: plans whose re-runs ended 1.0, 0.41 and 1.3 from their goals passed as motions."""
    return scale_unit(Y) + _spreads(Y)


class OptimalControlSolution:
    """What :meth:`OptimalControlProblem.solve` returns.

    Attributes
    ----------
    t : ndarray (N,)
        The mesh nodes' times.
    y : ndarray (n_states, N)
        The states at ``t``, rows in ``state_names`` order.
    u : dict name -> ndarray (N,)
        The controls at ``t``. Backward Euler's control of interval k is u_{k+1} (its equations
        hold f(y_{k+1}, u_{k+1}); u_0 is in none): ``u[name][0]`` is reported as ``u[name][1]``.
    t_points, y_points, u_points :
        Every collocation point (with Hermite-Simpson, the interval midpoints too).
    z_points : ndarray (n_algebraic, P)
        The algebraic variables at every point (dependent speeds, rates, multipliers of a
        model in Kane's speeds, ``problem.algebraic``; no rows for other models).
    t_final : float
        The duration.
    objective : float
        The cost at the solution.
    success : bool
        IPOPT's status is "Optimal Solution Found" (or "Solved To Acceptable Level"), and the plan
        is a motion of its dynamics (:meth:`unresolved`) that does not cross a chart's singular set.
    message : str
        IPOPT's status, or why the plan is no success.
    stats : dict
        Of the IPOPT call that gave this plan (the last one on its mesh): iterations,
        n_variables, n_constraints, nnz_jacobian, nnz_hessian, time_ipopt (s, that whole IPOPT
        call), time_evaluations (s, in its C++ callbacks), n_evaluations, max_nlp_defect (the
        largest collocation residual at IPOPT's point), last_regularization (IPOPT's Hessian
        regularization at its last iteration: > 0 where the point is no certified minimum).
        How the default start found it (:meth:`OptimalControlProblem.solve`): starts (the starts
        solved), coarse_nodes and coarse_iterations (the coarse mesh's nodes and the iterations of
        its solves, summed; 0 without a coarse mesh), full_solves (the solves on the full mesh the
        plan was kept among; 1 for a single start), duration_starts (the further starts at durations
        spread over the bounds of a free ``t_final`` where the plan's ended on one,
        :mod:`~nonholo.control.durations`; 0 otherwise), refine_rounds. Of the whole solve, every start, mesh, lift
        of the final headings and round of ``refine``: ipopt_calls, iterations_total,
        time_ipopt_total (s), time_total (s, the wall time of ``solve``), calls_not_started (the
        solves left at their start when ``max_wall_time`` was spent, :mod:`~nonholo.control.tally`).
    interval_errors : ndarray (N - 1,)
        (Computed on first access.) On each interval, |y(t_{k+1}) - y_{k+1}|_inf with y integrated from y_k under the
        interpolated controls (:meth:`controls_at`; 16 steps of RK4, or of the 3-stage Radau IIA rule on a stiff
        interval: :mod:`nonholo.control.reintegration`): the local error of the collocation.
    defect : float
        The sum of ``interval_errors``: an estimate of the error of the planned final state (a
        re-run of the controls, :meth:`simulate`, ends within it when errors are not amplified).
    final_error : ndarray (n_states,)
        The local errors carried to the final time by the linearized dynamics,
        e_{k+1} = Phi_k e_k + d_k (d_k the signed error of interval k, Phi_k its state-transition
        matrix, integrated with it): a first-order estimate of ``simulate().y_final - y[:, -1]``,
        where an unstable motion (a trailer driven backwards) amplifies the local errors.
    error_bound : float
        sum_k |Phi(t_N, t_{k+1})|_inf |d_k|_inf: the bound of that propagation (equal to
        ``defect`` when nothing amplifies errors); a re-run ends within it to first order.
    cost_errors : ndarray (N - 1,)
        Each interval's running cost along its re-run minus its quadrature (:mod:`~nonholo.control.cost_errors`).
    objective_error : float
        Their sum: the cost of the planned controls minus ``objective``, to the states' errors.
    holonomic_residual : ndarray (N,)
        max_r |phi_r(y)| at the nodes for the holonomic constraints phi(y) = 0 of the dynamics
        (zeros without them).
    gamma : ndarray (n_stencils, n_h, N - 1)
        The holonomic corrections of the defects (``holonomic="position"``): stencil d of interval
        k carries -h_k dphi/dy^T gamma[d, :, k] (trapezoid: one stencil; Hermite-Simpson: Simpson's
        rule, then the Hermite interpolant). They vanish as the mesh refines: O(h^2) for the
        trapezoid, O(h^4) on Simpson's rule and O(h^3) on the Hermite interpolant. Empty (n_h = 0)
        without position-level constraints.
    method : str
    """

    def __init__(self, problem, scheme, dtau, out: dict):
        self.problem = problem
        self.method = scheme.name
        self._scheme = scheme
        self.dtau = np.asarray(dtau, dtype=float)
        n_y, n_u, n_z = len(problem.states), len(problem.controls), len(problem.algebraic)
        x = np.asarray(out["x"])
        P = scheme.step * self.dtau.size + 1
        blocks = x[: P * (n_y + n_u + n_z)].reshape(P, n_y + n_u + n_z).T
        self.t_final = float(x[-1]) if problem.free_time else float(problem.t_final)
        n_gamma = x.size - P * (n_y + n_u + n_z) - (1 if problem.free_time else 0)
        n_h = len(problem.holonomic) if n_gamma else 0
        self.gamma = x[P * (n_y + n_u + n_z): P * (n_y + n_u + n_z) + n_gamma].reshape(
            self.dtau.size, len(scheme.stencils) if n_h else 0, n_h).transpose(1, 2, 0)
        from .transcription import interval_points

        tau = interval_points(self.dtau, scheme.step)
        self.t_points = tau * self.t_final
        self.y_points = blocks[:n_y].copy()
        self.u_points = blocks[n_y:n_y + n_u].copy()
        self.z_points = blocks[n_y + n_u:].copy()
        if scheme.controls == "hold" and self.dtau.size:  # u_0 is in no equation: the first interval's u_1
            self.u_points[:, 0] = self.u_points[:, 1]
            if n_z:  # the algebraic variables consistent with it
                self.z_points[:, :1] = problem.dynamics.algebraic_values(self.y_points[:, :1], self.u_points[:, :1],
                                                                         self.z_points[:, :1])
        step = scheme.step
        self.t = self.t_points[::step].copy()
        self.y = self.y_points[:, ::step].copy()
        self.u = _Controls({name: self.u_points[i, ::step].copy() for i, name in enumerate(problem.control_names)})
        self.holonomic_residual = problem.holonomic_residual(self.y)
        self.state_names, self.control_names = problem.state_names, problem.control_names
        self.objective = float(out["objective"])
        self.success = bool(out["success"])
        self.message = str(out["message"])
        self.multipliers = np.asarray(out["multipliers"])
        # what a warm start on another mesh needs (control/warm_start.py): the bound multipliers,
        # the bounds, the holonomic constraints' (point, row) and the number of gamma variables
        self._warm = None if "warm" not in out else dict(
            out["warm"], z=(np.asarray(out["bound_multipliers_lo"]), np.asarray(out["bound_multipliers_hi"])))
        self.stats = {k: out[k] for k in ("iterations", "n_variables", "n_constraints", "nnz_jacobian", "nnz_hessian",
                                          "time_ipopt", "time_evaluations", "n_evaluations")}
        # how the plan was found: one start on its own mesh, unless the default's multi-start says otherwise
        self.stats.update(starts=1, coarse_nodes=0, coarse_iterations=0, full_solves=1, duration_starts=0)
        # IPOPT's Hessian regularization at its last iteration: > 0 where the point is no certified minimum
        self.stats["last_regularization"] = float(out.get("last_regularization", 0.0))
        self.stats["max_nlp_defect"] = float(out["max_defect"])
        self._earlier = list(out.get("earlier", ()))  # (iterations, time_ipopt) of a call retried (ipopt_lock)
        self._errors = self._substeps = None  # the re-integration's errors and states (_error_data), kept
        self._signed = None  # the signed local errors alone (the check's), the same numbers as _errors[0]
        self._samples = None  # the states at the check's inner substeps, with path constraints (their note)
        self._crossing = False  # set by the problem: the plan crosses its chart's singular set (control/charts.py)
        self._not_started = False  # set by the problem: max_wall_time was spent before its solve (control/tally.py)

    def _error_data(self) -> tuple:
        """(signed local errors (n_y, K), state-transition matrices (K, n_y, n_y)) of the intervals:
        computed on first access (a re-integration of every interval), then kept."""
        if self._errors is None:  # the states at the inner substeps kept for cost_errors (the same run)
            self._substeps = SubstepStates(len(self.state_names), self.dtau.size, ERROR_SUBSTEPS)
            self._errors = self._interval_errors(visit=self._substeps)
        return self._errors

    def _signed_errors(self, visit=None) -> np.ndarray:
        """The signed local errors (n_y, K): those of :meth:`_error_data` (the same integration
        without the transition matrices, which do not change them), kept; ``visit`` sees the
        states at the inner substeps (a run again where they were computed without it)."""
        if self._errors is not None and visit is None:
            return self._errors[0]
        if self._signed is None or visit is not None:
            with np.errstate(all="ignore"):
                self._signed = self._interval_errors(ERROR_SUBSTEPS, False, visit=visit)[0]
        return self._signed

    @property
    def interval_errors(self) -> np.ndarray:
        """The largest |local error| of each interval (its re-integration under the interpolated
        controls against the next node), shape (K,): what the check of every solve
        (:meth:`unresolved`) judges."""
        with np.errstate(invalid="ignore"):
            return np.max(np.abs(self._signed_errors()), axis=0)

    @property
    def defect(self) -> float:
        return float(np.sum(self.interval_errors))

    @property
    def final_error(self) -> np.ndarray:
        return _propagate(*self._error_data())[0]

    @property
    def error_bound(self) -> float:
        return _propagate(*self._error_data())[1]

    @property
    def cost_errors(self) -> np.ndarray:
        """Per interval (N - 1,): the running cost along its re-run from its first node minus its quadrature."""
        from .cost_errors import cost_errors
        return cost_errors(self)

    @property
    def objective_error(self) -> float:
        """The sum of :attr:`cost_errors`: the cost of the planned controls minus the objective, to first order."""
        return float(np.sum(self.cost_errors))

    # ------------------------------------------------------------------ interpolation
    def controls_at(self, t) -> np.ndarray:
        """The controls at times t (n_u, len(t)): piecewise linear between the nodes (trapezoid,
        DMOC), piecewise quadratic through node, midpoint and node (Hermite-Simpson), and for
        backward Euler, whose equations use f(y_{k+1}, u_{k+1}), the zero-order hold u_{k+1} on
        (t_k, t_{k+1}] (u_1 at t = 0); clipped to the control bounds, which the quadratic through
        bounded points can overshoot (a saturated control). What :attr:`interval_errors`, the
        check of :meth:`unresolved` and :meth:`simulate` integrate. ``t`` within [0, t_final]
        (ValueError outside: no extrapolation)."""
        from .checks import times
        from .reintegration import controls_at

        return controls_at(self, times(t, self.t_final))

    def states_at(self, t) -> np.ndarray:
        """The states at times t (n_y, len(t)): the cubic Hermite interpolant of the nodes and
        their derivatives f(y_k, u_k); ``t`` within [0, t_final] (ValueError outside)."""
        from .checks import times

        t = times(t, self.t_final)
        k, s = self._locate(t)
        step = self._scheme.step
        Y, U = self.y_points, np.vstack([self.u_points, self.z_points])
        self.problem._point_functions()  # its NumPy f (rebuilt after unpickling)
        F = self.problem._f(Y, U)
        h = self.dtau[k] * self.t_final
        y0, y1, f0, f1 = Y[:, step * k], Y[:, step * (k + 1)], F[:, step * k], F[:, step * (k + 1)]
        h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
        return y0 * h00 + h * f0 * h10 + y1 * h01 + h * f1 * h11

    def _node_times(self) -> np.ndarray:
        return np.concatenate([[0.0], np.cumsum(self.dtau)]) * self.t_final

    def _locate(self, t):
        nodes = self._node_times()
        k = np.clip(np.searchsorted(nodes, t, side="right") - 1, 0, self.dtau.size - 1)
        s = (t - nodes[k]) / (nodes[k + 1] - nodes[k])
        return k, s

    def _interval_errors(self, substeps: int = ERROR_SUBSTEPS, transition: bool = True, intervals=None,
                         adapt: bool = True, visit=None):
        """The signed local errors (n_y, K) of the K intervals (or of ``intervals``) and their
        state-transition matrices (K, n_y, n_y): y' = f(y, u(t)) and Phi' = df/dy Phi integrated
        from each node on ``substeps`` steps (:func:`~nonholo.control.reintegration.interval_runs`:
        of RK4, or of Radau IIA on an interval where RK4's step would leave its stability region;
        ``adapt`` False: of RK4 everywhere; ``visit``: sees the states at the inner steps).
        ``transition`` False: the errors alone, and None (df/dy costs 2 n_y evaluations of f by
        differences through a model's algebraic solve, 2.2 s on opty's parallel park at 501 nodes)."""
        from .reintegration import interval_runs

        return interval_runs(self, substeps, transition, intervals, adapt, visit)

    # ------------------------------------------------------------------ checks and views
    def unresolved(self) -> str | None:
        """Why the plan is no motion of its dynamics, or None. The check of every solve (its verdict,
        :func:`resolved`), on the errors the solution reports (:attr:`interval_errors`, whose sum is
        :attr:`defect`): an interval whose re-integration under the planned controls ends more than
        UNRESOLVED (u + r, r the largest range of a state over the plan, u = :func:`scale_unit`)
        from the next node, or not at all (not finite), or intervals each below that whose errors add up to more
        than UNRESOLVED times the smallest scale of :func:`own_scales` (the defect) and, carried to the
        end by the motion, leave a state beyond UNRESOLVED times its scale there (:meth:`_carried`: a
        forward-only car whose curvature chattered at 70 of 100 nodes, each interval's error at most
        0.019, the defect 0.96 and its re-run 1.2 from the goal; not backward Euler's exact bang-bang
        plan, whose errors cancel), or a state whose given ends differ moved by its own errors
        (:meth:`_displaced_by_errors`). IPOPT solves the collocation equations at the points;
        on intervals far too long for the motion they hold without the dynamics holding between them
        (a forward-only car standing still at every node but three 12 s intervals that carry the
        whole manoeuvre). Each interval is integrated by RK4 on ERROR_SUBSTEPS steps, or by Radau
        IIA where a step h has h ||df/dy|| beyond RK4's stability region (a stiff model, on which
        RK4 would report a motion as none: a knife edge realized by friction).

        With dynamics in a chart (a Voronets frame, :mod:`~nonholo.control.charts`): also an
        interval whose error moves the chart's normalized determinant d by more than UNRESOLVED
        |d| (:func:`~nonholo.control.charts.chart_reach`): the plan is within its own error of the
        chart's singular set, the frame solves velocities with 1/d, and an error small in the
        chart's states is a large one of the motion (a sleigh at rest at theta = 1.5707: the error
        3.4e-5 of x' is the speed 0.35, y' = tan(theta) x').

        DMOC's plans are judged alike where the chart its states are in (the Voronets frame) is regular
        along them (an outside probe's knife edge pushed 1 ahead on 3 nodes: "success" at cost 16 for
        the optimum 6, its re-run 0.33 past the goal); None where the chart reaches its singular set (a
        knife edge turning through pi/2), where a re-integration of the chart's equations means nothing:
        the nodes are a trajectory of the discrete mechanics by construction."""
        if self.method == "dmoc":
            from .charts import CHART_TOL, normalized_determinant

            d = normalized_determinant(self.problem.dynamics, self.problem.states, self.y)
            if d is not None and not (np.all(np.abs(d) > CHART_TOL) and np.all(np.sign(d) == np.sign(d[0]))):
                return None
        from .reintegration import bounded_states

        visit = None
        if self.problem.path_constraints or bounded_states(self.problem):  # the states along the way (notes)
            self._samples = np.full((ERROR_SUBSTEPS - 1, len(self.state_names), self.dtau.size), np.nan)

            def visit(i, k, Y):
                self._samples[i - 1][:, k] = Y

        signed = self._signed_errors(visit)
        with np.errstate(invalid="ignore"):
            errors = np.max(np.abs(signed), axis=0)
        nodes = self._node_times()
        total = float(np.sum(errors))
        # an interval on the largest scale: a fast velocity's transient that its damping removes within the
        # interval (a cart with drag 30 on 0.1 s intervals) leaves an error that reaches no later state
        scale, unit = state_scale(self.y_points), f"{scale_unit(self.y_points):.3g}"
        bad = ~(errors <= UNRESOLVED * scale)
        if bad.any():
            k = int(np.argmax(np.where(bad, np.nan_to_num(errors, nan=np.inf), -np.inf)))
            where = f"on interval {k} of {errors.size} (t from {nodes[k]:.4g} to {nodes[k + 1]:.4g})"
            advice = "the collocation equations hold at the points only. Solve with more nodes, with refine=, or " \
                     "from another guess"
            if not np.isfinite(errors[k]):  # the re-run overflowed or left the dynamics' domain: no distance
                return (f"the plan is no motion of the dynamics: {where} the re-run of the planned controls does not "
                        f"stay finite (a state overflows or leaves the dynamics' domain; the plan's states reach "
                        f"{float(np.max(np.abs(self.y_points))):.3g} at the points); {advice}")
            return (f"the plan is no motion of the dynamics: {where} the planned controls take the state "
                    f"{errors[k]:.3g} away from the next node (more than {UNRESOLVED:g} ({unit} + the largest range of "
                    f"a state over the plan) = {UNRESOLVED * scale:.3g}; the plan's defect {total:.3g}); {advice}")
        # the errors carried to the end, each state's judged on its own scale (a System's dynamics), unless
        # their sum is small on the smallest (a velocity's error, small beside the largest range, moves the
        # coordinates over the rest of the plan: a knife edge whose spin rate ranged over 1161 ended 1.0
        # from its goal in x)
        own = own_scales(self.y_points)
        measure = f"({unit} + the largest range of a state over the plan)" if np.all(own == scale) else \
            f"({unit} + its range over the plan)"
        carried = self._carried(own) if not total <= UNRESOLVED * float(np.min(own)) else None
        if carried is not None:  # each interval resolved, their sum and its propagation to the end not
            k = int(np.argmax(errors))
            i, gap = carried
            return (f"the plan is no motion of the dynamics: its intervals' errors add up to a defect of {total:.3g}, "
                    f"each within {UNRESOLVED:g} ({unit} + the largest range of a state over the plan) = "
                    f"{UNRESOLVED * scale:.3g} (the largest {errors[k]:.3g}, on interval {k} of {errors.size}), and "
                    f"carried to the end by the motion they leave the planned final {self.state_names[i]} {gap:.3g} "
                    f"away, more than {UNRESOLVED:g} {measure} = {UNRESOLVED * own[i]:.3g} (sol.final_error, the "
                    "re-run's gap to first order): controls that chatter between nodes, or a mesh too coarse. Solve "
                    "with more nodes, with refine=, or from another guess")
        displaced = self._displaced_by_errors(signed)
        if displaced is not None:
            return displaced
        from .charts import chart_reach

        reach = chart_reach(self.problem.dynamics, self.problem.states, self.y, signed, UNRESOLVED)
        if reach is None:
            return None
        k, change, d, solved = reach
        return (f"the plan is within its own error of a singularity of its chart: on interval {k} of {errors.size} (t "
                f"from {nodes[k]:.4g} to {nodes[k + 1]:.4g}) the re-integration's error {errors[k]:.3g}, over the "
                f"chart's normalized determinant {d:.3g} at one of its nodes (0 on the singular set), moves it or the "
                f"velocities by {change:.0%} (of d, or of 1 + the velocity states' range), and the Voronets frame "
                f"solves the velocities of {solved} with 1/d: the plan's defect "
                f"{total:.3g}, measured in the chart's states, is no bound of its error there. Solve with more nodes, "
                "or pose it in a frame regular along the motion (a KinematicSystem in body velocities, or a System "
                "from from_kanes_method in such speeds)")

    def _displaced_by_errors(self, signed: np.ndarray) -> str | None:
        """Why the plan is none where a state's own local errors (row of ``signed``, summed with their signs:
        errors that cancel move nothing, backward Euler's bang-bang plan) add up to more than UNRESOLVED
        times (its displacement, final - initial, + its range over the plan), for a state whose ends are
        given and differ: the plan moves it by its errors. On its own scale, not on the largest state's nor
        on a unit of 1: an outside probe's Heisenberg plan from 0 to (k, k/2, 0.3 k^2), k = 1e-3, went
        straight (x u2 - y u1 = 2e-13) while its nodes' z climbed to 3e-7 by the intervals' errors alone, a
        success at 0.625 times the optimum, its re-run's z at 1.6e-14."""
        with np.errstate(all="ignore"):
            sums = np.abs(np.nansum(signed, axis=1))
        spreads = _spreads(self.y_points)
        for i, (a, b) in enumerate(zip(self.problem.initial, self.problem.final)):
            if a is None or b is None or a == b:
                continue
            limit = UNRESOLVED * (abs(b - a) + spreads[i])
            if sums[i] > limit:
                return (f"the plan is no motion of the dynamics: the intervals' errors in {self.state_names[i]} add "
                        f"up to {sums[i]:.3g} (with their signs), more than {UNRESOLVED:g} (its displacement "
                        f"{abs(b - a):.3g} + its range over the plan {spreads[i]:.3g}) = {limit:.3g}: the plan moves "
                        "it by its errors, not by its dynamics. Solve with more nodes, with refine=, or from another "
                        "guess")
        return None

    def _carried(self, scales: np.ndarray) -> tuple | None:
        """(state, |component|) of :attr:`final_error` (the local errors carried to the end by the
        linearized motion: the re-run's gap to first order) that exceeds UNRESOLVED times its state's
        scale (``scales``, :func:`own_scales`) the most, else None. The defect sums the errors' sizes,
        and errors of opposite signs cancel (backward Euler's bang-bang double integrator: +h^2/2
        accelerating, -h^2/2 braking, a defect 2D/(N - 1) where the re-run ends at the goal to 1e-8)."""
        with np.errstate(all="ignore"):
            final = np.abs(self.final_error)
            over = np.nan_to_num(final / scales, nan=np.inf)
        i = int(np.argmax(over))
        return None if over[i] <= UNRESOLVED else (i, float(final[i]))

    def simulate(self, rtol: float = 1e-10, atol: float = 1e-12):
        """Integrate the dynamics from the planned initial state under the interpolated controls
        (:meth:`controls_at`), restarted at the nodes and where a control is clipped to a bound (its
        kinks), sampled at the nodes; ``result.y_final`` is to be compared with the planned final state
        ``y[:, -1]`` (within :attr:`defect`, or :attr:`error_bound` where the motion amplifies
        errors). Backward Euler's zero-order hold: one run per interval under its u_{k+1}."""
        from .checks import tolerance

        rtol, atol = tolerance(rtol, "rtol"), tolerance(atol, "atol")
        if self._scheme.controls == "hold":
            return self._simulate_held(rtol, atol)
        from .reintegration import kinks

        return self.problem.dynamics.simulate((0.0, self.t_final), self.y[:, 0], lambda t: self.controls_at(t)[:, 0],
                                              t_eval=self.t, rtol=rtol, atol=atol,
                                              breakpoints=np.union1d(self.t, kinks(self)))

    def _simulate_held(self, rtol: float, atol: float):
        """:meth:`simulate` under a zero-order hold: interval k run alone under u_{k+1} (a run
        across the nodes would see the next interval's control at its last stage)."""
        from .kinematic import failed_run
        from .reintegration import control_values

        y, ys, result = self.y[:, 0].copy(), [self.y[:, 0].copy()], None
        for k in range(self.dtau.size):
            u = control_values(self, np.array([k]), np.array([1.0]))[:, 0]
            try:
                result = self.problem.dynamics.simulate((self.t[k], self.t[k + 1]), y, lambda t, u=u: u, rtol=rtol,
                                                        atol=atol)
            except ValueError as err:  # f not finite at an interval's start (checked at the first)
                if k == 0:
                    raise
                result = failed_run(f"interval {k}: {err}")
            if not result.success:
                break
            y = np.asarray(result.y_final, dtype=float)
            ys.append(y.copy())
        result.t, result.y = self.t[:len(ys)].copy(), np.array(ys).T
        result.y_final = y.copy() if result.success else None
        return result

    def track(self, system, eps: float | None = None, coordinates=None, inputs=None, feedforward=(), **options):
        """Drive the plan through the friction realization of ``system`` at ``eps`` and return the
        slip it leaves out and the tracking error
        (:class:`~nonholo.control.tracking.TrackingResult`: ``result["slip"]``,
        ``result["error"]``, ``max_error``, ``max_slip``).

        ``coordinates`` maps each coordinate of ``system`` to an expression of the plan's states (e.g.
        the centre of mass from the rear axle; default: the plan's states of the coordinates' names);
        ``inputs`` maps symbols of the system (in its constraints or force: a steering angle) to
        expressions of the plan's states and controls; ``feedforward`` names force symbols (a drive)
        solved by inverse dynamics so that the nonholonomic system follows the plan exactly: the slip
        and the error are then those of the friction realization alone, O(eps). Instead of ``eps``,
        ``law=`` (with ``normal=`` and ``speed=``) realizes the constraints by a friction law, e.g. a
        tire's ``nh.laws.MagicFormula``. ``options``: ``law``, ``normal``, ``speed``, ``samples``,
        ``rtol``, ``atol``, ``method`` (:func:`~nonholo.control.tracking.track`).
        """
        from .tracking import track

        return track(self, system, eps, coordinates, inputs=inputs, feedforward=feedforward, **options)

    def __getstate__(self):
        return {**self.__dict__, "_errors": None, "_signed": None, "_samples": None, "_substeps": None}

    def __getitem__(self, name: str) -> np.ndarray:
        """A state or a control at the nodes, by name or SymPy symbol."""
        name = str(name) if isinstance(name, sp.Symbol) else name
        if name in self.state_names:
            return self.y[self.state_names.index(name)]
        if name in self.u:
            return self.u[name]
        raise KeyError(f"{name!r} is neither a state {self.state_names} nor a control {self.control_names}")

    def _ipython_key_completions_(self) -> list:
        """The states' and the controls' names, for ``sol["`` then Tab in IPython and Jupyter."""
        return [*self.state_names, *self.control_names]

    def plot(self, names=None, ax=None, **kwargs):
        """The states and controls against time (matplotlib): ``names`` (states or controls) on one set of
        axes, or by default two panels, the states and the controls, titled with the objective, the
        duration and the verdict. ``kwargs`` go to ``Axes.plot``. Returns the Axes, or the list of panels
        (:func:`nonholo.viz.plot.plan`)."""
        from ..viz.plot import plan

        return plan(self, names, ax, **kwargs)

    def animate(self, frames: int = 100, ax=None, interval: float = 40.0, *, x: str | None = None,
                y: str | None = None, heading: str | None = None):
        """A matplotlib animation of the planned motion in the plane: the path of the states named
        ``x`` and ``y`` (grey, at the nodes), a dot at the position and the heading as a line 0.3
        long (the state ``theta``, else the first whose name starts with ``theta``, e.g. ``theta0``
        of a car with trailers), at ``frames`` times spread evenly over the plan (interpolated,
        :meth:`states_at`). ``x``, ``y``, ``heading``: the names of other states to draw as the
        position and the heading. A plan without states that give a position (none named x and y)
        is refused, saying what to pass. A failed plan says so in the title.

        Returns the same kind of animation as ``result.animate()``
        (:class:`nonholo.viz.animation.Animation`: a ``FuncAnimation`` that plays inline in Jupyter,
        with ``n_frames`` and the frame times ``t``; ``save("plan.gif")``), on its own figure
        unless ``ax`` is given."""
        from matplotlib.axes import Axes

        from ..viz.animation import animation, figure
        from .checks import frames as frame_count, real

        frames = frame_count(frames)
        if not real(interval, "interval") > 0:
            raise ValueError(f"interval must be positive (milliseconds between frames), got {interval!r}")
        if ax is not None and not isinstance(ax, Axes):
            raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
        ix, iy, ith = self._planar_states(x, y, heading)
        if ax is None:
            ax = figure()
        names = self.state_names
        ts = np.linspace(0.0, self.t_final, frames)
        Y = self.states_at(ts)
        ax.plot(self.y[ix], self.y[iy], color="0.7", lw=1)
        ax.set_aspect("equal")
        ax.set_xlabel(names[ix])
        ax.set_ylabel(names[iy])
        (point,) = ax.plot([], [], "o", color="C0")
        (line,) = ax.plot([], [], "-", color="C1", lw=2)
        note = ""
        if not self.success:
            message = self.message if len(self.message) <= 70 else self.message[:67] + "..."
            note = f"\nthe plan failed: {message}"
        title = ax.set_title(" ", fontsize=10, **({"color": "#b00000"} if note else {}))

        def draw(i):
            point.set_data([Y[ix, i]], [Y[iy, i]])
            if ith is not None:
                c, s = np.cos(Y[ith, i]), np.sin(Y[ith, i])
                line.set_data([Y[ix, i], Y[ix, i] + 0.3 * c], [Y[iy, i], Y[iy, i] + 0.3 * s])
            title.set_text(f"t = {ts[i]:.3g}{note}")
            return point, line, title

        draw(0)
        return animation(ax.figure, draw, ts, interval)

    def _planar_states(self, x, y, heading) -> tuple:
        """(index of the x position, of the y position, of the heading or None) for :meth:`animate`."""
        names = self.state_names

        def index(name, what):
            if name is None:
                return None
            if name not in names:
                raise ValueError(f"animate(): {what}={name!r} is not a state of the plan; its states are {names}")
            return names.index(name)

        ix = index(x, "x") if x is not None else (names.index("x") if "x" in names else None)
        iy = index(y, "y") if y is not None else (names.index("y") if "y" in names else None)
        if ix is None or iy is None:
            raise ValueError("animate() draws the plan in the plane: it needs the states of the position, named 'x' "
                             f"and 'y' (and a heading named theta...), but the plan's states are {names}; pass "
                             "x= and y= (and heading=) naming the states to draw")
        if heading is not None:
            return ix, iy, index(heading, "heading")
        thetas = [i for i, name in enumerate(names) if name.startswith("theta") and i not in (ix, iy)]
        ith = names.index("theta") if "theta" in names and names.index("theta") not in (ix, iy) else \
            (thetas[0] if thetas else None)
        return ix, iy, ith

    def __repr__(self) -> str:
        return (f"OptimalControlSolution(success={self.success}, t_final={self.t_final:.6g}, "
                f"objective={self.objective:.6g}, iterations={self.stats['iterations']}, method={self.method!r}, "
                f"nodes={self.t.size}, defect={self.defect:.2g}, message={self.message!r})")


def _propagate(errors: np.ndarray, phis: np.ndarray):
    """e_{k+1} = Phi_k e_k + d_k from e_0 = 0, and sum_k |Phi(t_N, t_{k+1})|_inf |d_k|_inf."""
    n, K = errors.shape
    e = np.zeros(n)
    carry = np.eye(n)  # Phi(t_N, t_{k+1}), built from the last interval back
    bound = 0.0
    for k in range(K - 1, -1, -1):
        bound += float(np.max(np.sum(np.abs(carry), axis=1))) * float(np.max(np.abs(errors[:, k])))
        carry = carry @ phis[k]
    for k in range(K):
        e = phis[k] @ e + errors[:, k]
    return e, bound


def resolved(sol: OptimalControlSolution) -> OptimalControlSolution:
    """``sol``, no success when it is no motion of its dynamics (:meth:`OptimalControlSolution.unresolved`)
    or its re-run crosses a path constraint's set between the points by more than UNRESOLVED (1 + max |g|
    at the points); a success whose re-run violates one by less says so in its message
    (:func:`~nonholo.control.reintegration.path_violations`; once). DMOC: the path constraints at its
    nodes and along its discrete trajectory, by the same measures (:func:`_path_verdict`)."""
    from .durations import standing_still, vanishing_duration

    why = (vanishing_duration(sol) or sol.unresolved()) if sol.success else None
    if not sol.success and not getattr(sol, "_failure_noted", False):
        from .failure_notes import diverging_note, infeasible_note, invalid_number_note, nonsmooth_note

        sol.message += (invalid_number_note(sol) if "Invalid number" in sol.message else "") + nonsmooth_note(sol) \
            + (diverging_note(sol) if "Iterates diverging" in sol.message else "") \
            + (infeasible_note(sol) if "infeasibility" in sol.message else "")
        sol._failure_noted = True
    if why:
        sol.success, sol.message = False, why
    elif sol.success and (sol._samples is not None or sol.method == "dmoc" and sol.problem.path_constraints) \
            and not getattr(sol, "_noted", False):
        note, crossing = _path_verdict(sol)
        if crossing:
            sol.success, sol.message = False, crossing
        else:
            sol.message += note
        sol._noted = True
    if sol.success and not getattr(sol, "_still_noted", False):
        sol.message += standing_still(sol)
        sol._still_noted = True
    return sol


def amplified(sol: OptimalControlSolution) -> OptimalControlSolution:
    """``sol``, its message noting (once) a success whose re-run ends away from its final state, by amplified
    errors or within the verdict's limit (:func:`_amplification`), or whose objective is far from its controls'
    cost (``objective_note``): for the plan a solve returns."""
    if sol.success and not getattr(sol, "_amplified_noted", False):
        sol.message += _amplification(sol) + objective_note(sol)
        sol._amplified_noted = True
    return sol


def _amplification(sol) -> str:
    """A note for a success whose re-run ends more than GAP_NOTE (u + its range) from its final state in some state
    (how far), and, beyond UNRESOLVED, for one whose intervals' errors the motion amplifies: their signed
    propagation to the end (:attr:`OptimalControlSolution.final_error`, so not where they cancel: backward
    Euler's bang-bang double integrator, bound 7.69 and final error 3.6e-8) beyond UNRESOLVED (u + its range
    over the plan) in some state, each judged on its own scale as the verdict does (:func:`own_scales`; on the
    largest range an outside probe's minimum-time lane change, re-run 0.54 m off in its lateral position of
    range 3.5, was judged against 0.1 (1 + 47), its longitudinal one's). Each interval resolved, the plan re-run
    open loop may still end far from its final state (a car backing two trailers 5 m in 10 s: defect 0.079,
    error bound 47, its simulate() 2.85 from the plan's end; more nodes left it at 2.2-2.6, the controls
    chattering at the ends). Not for DMOC (no re-integration). With algebraic variables too (Kane's speeds,
    their transition matrices by differences through the algebraic solve, all at once: 0.2 s for a car with a
    trailer on 41 nodes, whose re-run missed its goal by 0.37 in y with a clean success before)."""
    if sol.method == "dmoc":
        return ""
    own = own_scales(sol.y_points)
    with np.errstate(all="ignore"):
        final, bound = _propagate(*sol._error_data())  # sol.final_error and sol.error_bound, propagated once
        final = np.abs(final)
        over = np.nan_to_num(final / own, nan=np.inf)
    i = int(np.argmax(over))
    if not over[i] > GAP_NOTE:  # errors of opposite signs cancel
        return ""
    if not over[i] > UNRESOLVED:  # a re-run that misses by less than the verdict's limit, said
        return (f" Re-run open loop (sol.simulate()), the planned controls end about {final[i]:.3g} from the "
                f"planned final {sol.state_names[i]} (sol.final_error, to first order), {over[i]:.1%} of its scale "
                f"({scale_unit(sol.y_points):.3g} + its range over the plan): the objective is that of a motion the "
                "controls make only to that accuracy. More nodes or refine= bring them together.")
    return (f" The motion amplifies the intervals' errors (defect {sol.defect:.3g}) to an error bound of {bound:.3g} "
            f"at the end, {final[i]:.3g} in {sol.state_names[i]} carried to first order (sol.final_error; more than "
            f"{UNRESOLVED:g} ({scale_unit(sol.y_points):.3g} + its range over the plan) = {UNRESOLVED * own[i]:.3g}): "
            "re-run open loop "
            "(sol.simulate()), the planned controls may end far from the planned final state. Solve with more nodes or "
            "refine=, or follow the plan with feedback.")


def _path_verdict(sol) -> tuple:
    """(note, crossing) of the path constraints between the points
    (:func:`~nonholo.control.reintegration.path_violations`); for DMOC, at
    the plan's nodes and along its discrete trajectory between them
    (:func:`~nonholo.control.dmoc.path_samples`), by the same measures."""
    from .reintegration import bound_violations, depth_measure, judged, path_points, path_violations

    if sol.method != "dmoc":
        note, crossing = path_violations(sol, sol._samples, UNRESOLVED) if sol.problem.path_constraints else ("", None)
        return note + bound_violations(sol, sol._samples), crossing
    from .path_starts import path_values

    Y, U, times, at_points, nodes, node_values = path_points(sol)
    G = path_values(sol.problem, Y, U)
    depth = depth_measure(sol.problem, Y, U, times, nodes, node_values)
    return judged(sol.problem, G, times, at_points, UNRESOLVED,
                  " At the nodes (sol.y) and between them on the discrete trajectory (the coordinates linear from "
                  "node to node), where path constraints are imposed at the midpoints and (without a velocity) the "
                  "nodes, the plan violates ", "the plan crosses a path constraint at its nodes or between them, "
                  "where DMOC imposes it at the midpoints only: it violates ", depth)
