"""Benchmark: optimal control side by side, nonholo's OptimalControlProblem against opty and CasADi's
Opti, both with IPOPT, on the same problems with the same node counts and transcriptions (issue 44).

Problem A, opty's own parallel-parking example (opty 1.5.0, examples-gallery/intermediate/
plot_parallel_park.py): the nonholonomic bicycle model of a car (Kane's equations of a body and a
steered front wheel, m = 1200 kg, propulsion force F at the rear axle, steer torque T), 8 states
(x, y, theta, delta, vx, vy, omega, beta), moved 2 m sideways from rest to rest in a fixed 30 s;
minimize the integral of F^2 + T^2; |delta| <= 45 deg, |T| <= 50 N m, |F| <= 300 N; 501 nodes;
the example's guess (x out to 6 m and back, y a ramp, every other variable 1). The equations
are the example's, written as opty's implicit eom(x', x, u) = 0 and handed unchanged to CasADi.

Problem B, the minimum-time parking of a kinematic car with one trailer: states x, y, theta0,
theta1 (hitch length 1, on-axle), controls v and kappa in [-1, 1]; from (0, 0, 0, 0) sideways
to (0, 2, 0, 0), car and trailer aligned at both ends; free duration; bounds x, y in [-10, 10],
theta0, theta1 in [-pi, pi] (no jackknife bound on theta0 - theta1: opty bounds variables only);
101 nodes; guess: straight line between the poses, controls 0.5, duration 8. A nonconvex problem
with cusps: the tools may end at different local optima, which the objective column shows.

The transcriptions: opty's "backward euler" (its default, what the example uses: x' at node i is
(x_i - x_{i-1}) / h and the rest at node i; the running cost is h times the sum over nodes 1..N-1)
and opty's "midpoint"; CasADi takes the same discrete equations. nonholo collocates with
trapezoid or Hermite-Simpson: its rows are compared with CasADi's trapezoid, which this script
also writes, since opty has no trapezoid (on the parallel park's implicit equations it carries x'
at the nodes as further variables).

What is reported, per tool: the objective, IPOPT's iterations, the time to solve (the solve call
alone: opty's code generation and compilation and nonholo's problem set-up come before it;
CasADi Opti's solve includes building its NLP function, under a second in these sizes), the NLP
size (variables, constraints) and IPOPT's status; medians of interleaved repeats; the ratio to the
fastest row of the same problem and transcription. opty gives IPOPT no Hessian (cyipopt then uses
the limited-memory quasi-Newton one); CasADi and nonholo give the exact one, and CasADi is also run
with IPOPT's limited-memory Hessian (the row "CasADi Opti, L-BFGS") to compare like with like.

Usage: python benchmarks/ocp_vs_opty_casadi.py [--quick] [--repeats N] [--problem A|B|both]
[--implicit-trapezoid] [--peer-methods METHOD ...] [--markdown PATH] [--json PATH]. A peer that
does not import is skipped with the reason printed; nonholo's rows need ``nh.OptimalControlProblem``
(issue 44) and say so when it is missing. nonholo starts from its own default guess (opty and
CasADi from the example's). On A nonholo's rows use its "backward-euler" transcription (opty's
rule) on the car of the example's KanesMethod in Kane's speeds (6 states; v_y, omega, the four
speeds' rates and two multipliers as variables at every node: 16 a node against the peers' 10),
with IPOPT's monotone and adaptive barrier updates, and on the explicit ODE of the same car in its six
states (``park_problem_explicit``: 8 a node), with the default options and with the objective scaled
by 1e-4 (``ipopt_options={"obj_scaling_factor": 1e-4}``); on B trapezoid and Hermite-Simpson.

Measured 2026-12-02 on a 2-core AMD EPYC VM loaded by up to six other engineers' builds and tests
(load average 6.6 at the start, 10.5 at the end: absolute times are slow and noisy, compare within
a run); medians of 3 interleaved repeats; nonholo's rows not yet possible (no
OptimalControlProblem on this branch). Stored in benchmarks/results/ocp_vs_opty_casadi.json and
shown in benchmarks/README.md ("Optimal control against opty and CasADi"):

    A, parallel park, 501 nodes        objective  iterations  time (s)  variables  constraints
    opty, backward Euler                  320227          49      17.4       5010         4016
    CasADi Opti, backward Euler           320227         769      77.9       5010         4016
    CasADi Opti L-BFGS, backward Euler    320227          78      14.8       5010         4016
    opty, midpoint                        320379         167      32.9       5010         4016
    CasADi Opti, midpoint                 320379        1162     152         5010         4016

    B, trailer, minimum time, 101 nodes
    opty, backward Euler                   6.758          50       1.51       607          408
    CasADi Opti, backward Euler            7.840         132       2.72       607          408
    CasADi Opti L-BFGS, backward Euler     6.687          45       0.402      607          408
    opty, midpoint                         6.417         451      11.4        607          408  (acceptable level)
    CasADi Opti, midpoint                  7.189         114       1.05       607          408
    CasADi Opti, trapezoid                 6.530         167       1.17       607          408

nonholo's rows on B, --problem B --repeats 3 with the ocp2 branch (load average about 7-8,
results/ocp_vs_opty_casadi_trailer.json): nonholo trapezoid 6.5051 in 19 iterations (after 37 on
26-node coarse meshes from its two starts), 0.693 s, against CasADi's trapezoid 6.5299 in 167
iterations, 1.59 s (ratio 0.44), and CasADi L-BFGS backward Euler 6.687 in 0.487 s; nonholo
Hermite-Simpson 6.5212 in 26 iterations, 2.6 s (1207 variables, 800 constraints). Before the
coarse starts (both default starts solved on the full mesh) the trapezoid took 7.31 s and
Hermite-Simpson 39.4 s; of the trapezoid's time over 90% went to the straight-line start, which fails.

nonholo's rows on A (--problem A --repeats 3 --peer-methods "backward euler", load average 15.7
at the start, results/ocp_vs_opty_casadi_park.json), after the equations of motion in Kane's speeds
were scaled to O(1): 320249 (the peers 320227, +0.007%) in 28 iterations on the full mesh after 204
on the coarse meshes of its two starts (default, monotone) and 22 after 57 (mu_strategy="adaptive");
CPU time 1.60 and 0.96 times CasADi L-BFGS's (wall time 1.39 and 0.77); before the scaling 2.14
and 1.19 (249 and 119 coarse iterations). Not the issue's half. From the example's guess
nonholo ends at a worse local optimum (2.203e6 after 2723 iterations, before the scaling). Before Kane's speeds the
parallel park did not set up (voronets_split: no pair of the car's coordinates has an invertible
constraint block at every q, x, y at delta = 0 included).

Where the park's time goes and what did not pay (measured 2026-12-02, load average 15-23 on the
2 cores; iterations exact, CPU times from time.process_time): the coarse mesh (126 nodes) from the
turn-drive-turn start takes 193 iterations, 185 of them at IPOPT's first barrier value mu = 0.1
with primal steps of 1e-3 to 1e-2 (the fraction-to-the-boundary rule: the Newton step would move
T, F or delta far beyond their bounds), then 8 to converge; the straight-line start ends locally
infeasible after 11; the full mesh, started from the interpolated coarse optimum (primal
infeasibility 3e-2 there), crawls the same way for 20 of its 28 iterations. Tried, each checked on
the 29 problems of benchmarks/ocp_mu_strategy.py against their stored monotone objectives
(benchmarks/ocp_against_baseline.py does this check):
- mu_init = 10 everywhere: the park 95 iterations in all instead of 232 (the same optimum), but 5
  problems end at worse optima (the car to [2.01, 1.91, -0.68] in 8 s +14.8%, in minimum time +1.1%,
  to [2.31, 1.71, -1.17] +0.95%; the trailer's minimum time +0.36% trapezoid, +0.23% Hermite-Simpson).
- mu_init = 10 on the full mesh only (after the coarse starts): the park 220 iterations instead of
  232, but parking with two trailers +7.9% and the trailer's minimum time +0.36% and +0.23%.
- mumps_permuting_scaling = 0: the same objectives on all 29 and about a third less CPU time per
  iteration on the park's full mesh, but different pivots: parking with two trailers 1608
  iterations instead of 670 (the park 175 instead of 232).
- mumps_pivot_order = 0 (AMD): the same objectives on all 29, the same iterations on 26 (two
  trailers 453 instead of 670, one trailer 365 instead of 351, the park 234 instead of 232), the
  park's full mesh not measurably faster under this load (CPU medians of 5 interleaved repeats
  1.12 s against 1.41 s, minima 1.06 s against 1.01 s).
- the controls scaled to [-1, 1] (T = 50 T', F = 300 F'): full mesh 14 iterations, coarse 540.
- warm-start options on the full mesh without the coarse multipliers (mu_init 1e-5 or 1e-3,
  bound_push 1e-6, bound multipliers mu-based): 114 and 54 iterations instead of 28.
- IPOPT's L-BFGS Hessian in nonholo: coarse 356 iterations, full 44, each slower.
- the example's own guess, full mesh directly: no solution within 150 s.
- the coarse optimum's multipliers carried to the full mesh (solve(warm_multipliers=True), measured
  2026-12-03): 24 full-mesh iterations instead of 28, 21 with adaptive mu; as the default it moved
  parking with two trailers to an optimum 11.9% longer, so it is opt-in.
- obj_scaling_factor 1e-2 on the coarse mesh: 67 iterations instead of 193 (same optimum), but
  5e-2 takes 405 and 1e-4 170: no rule found that predicts the good scale.
- the full mesh straight from the turn-drive-turn start (no coarse stage): 202 iterations, 18 s CPU.
What is left: fewer variables per node (16 here against the peers' 10: the speeds' rates and the
multipliers solved, not collocated), and a scale of the cost that IPOPT's monotone barrier update
can use (the coarse mesh's 185 iterations at mu = 0.1 are its dual infeasibility, 4e3-8e3, far above mu).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli import add_output_options, emit, output_of  # noqa: E402

NODES_A, DURATION_A = 501, 30.0
NODES_B = 101
GOAL_B = (0.0, 2.0, 0.0, 0.0)
TOL = 1e-8
MAX_ITER = 3000
# IPOPT's ApplicationReturnStatus, named as CasADi names them
IPOPT_STATUS = {0: "Solve_Succeeded", 1: "Solved_To_Acceptable_Level", 2: "Infeasible_Problem_Detected",
                -1: "Maximum_Iterations_Exceeded", -2: "Restoration_Failed", -3: "Error_In_Step_Computation",
                -4: "Maximum_CpuTime_Exceeded"}


def peers() -> dict:
    """name -> module or the reason it is not importable."""
    found = {}
    for name in ("opty", "casadi"):
        try:
            found[name] = __import__(name)
        except Exception as exc:  # noqa: BLE001 (any import failure skips the peer)
            found[name] = f"{type(exc).__name__}: {exc}"
    try:
        import nonholo as nh
        found["nonholo"] = nh if hasattr(nh, "OptimalControlProblem") else \
            "requires nh.OptimalControlProblem (issue 44; not on this branch yet)"
    except Exception as exc:  # noqa: BLE001
        found["nonholo"] = f"{type(exc).__name__}: {exc}"
    return found


# ---------------------------------------------------------------------------------------------------
# Problem A: opty's parallel park, its equations as written in the example.

def parallel_park_equations() -> dict:
    """The example's Kane equations, constants and instance constraints (opty 1.5.0)."""
    m, I, a, b = sm.symbols("m, I, a, b", real=True)
    x, y, vx, vy = me.dynamicsymbols("x, y, v_x, v_y", real=True)
    theta, omega = me.dynamicsymbols("theta, omega", real=True)
    delta, beta = me.dynamicsymbols("delta, beta", real=True)
    T, F = me.dynamicsymbols("T, F", real=True)
    t = me.dynamicsymbols._t
    O, Ao, Pr, Pf = sm.symbols("O, A_o, P_r, P_F", cls=me.Point)
    N, A, B = sm.symbols("N, A, B", cls=me.ReferenceFrame)
    A.orient_axis(N, theta, N.z)
    B.orient_axis(A, delta, A.z)
    Ao.set_pos(O, x * N.x + y * N.y)
    Pr.set_pos(Ao, -b * A.x)
    Pf.set_pos(Ao, a * A.x)
    A.set_ang_vel(N, omega * N.z)
    kinematical = [vx - (x.diff() * N.x + y.diff() * N.y).dot(A.x), vy - (x.diff() * N.x + y.diff() * N.y).dot(A.y),
                   omega - theta.diff(), beta - delta.diff()]
    O.set_vel(N, 0)
    Ao.set_vel(N, vx * A.x + vy * A.y)
    Pr.v2pt_theory(Ao, N, A)
    Pf.v2pt_theory(Ao, N, A)
    nonholonomic = [Pr.vel(N).dot(A.y), Pf.vel(N).dot(B.y)]
    car = me.RigidBody("A", Ao, A, m, (me.inertia(A, 0, 0, I), Ao))
    wheel = me.RigidBody("B", Pf, B, m / 6, (me.inertia(B, 0, 0, I / 32), Pf))
    loads = [(Pr, F * A.x), (A, -T * B.z), (B, T * B.z)]
    kane = me.KanesMethod(N, [x, y, theta, delta], [vx, beta], kd_eqs=kinematical, u_dependent=[vy, omega],
                          velocity_constraints=nonholonomic)
    fr, frstar = kane.kanes_equations([car, wheel], loads)
    eom = (fr + frstar).col_join(sm.Matrix(nonholonomic)).col_join(sm.Matrix(kinematical))
    states = (x, y, theta, delta, vx, vy, omega, beta)
    final = {s: 0.0 for s in states} | {y: 2.0}
    return dict(eom=eom, states=states, inputs=(T, F), t=t, kane=kane, nonholonomic=nonholonomic,
                params={I: 1 / 12 * 1200 * (2**2 + 3**2), m: 1200, a: 1.5, b: 1.5},
                bounds={delta: (np.deg2rad(-45.0), np.deg2rad(45.0)), T: (-50.0, 50.0), F: (-300.0, 300.0)},
                initial={s: 0.0 for s in states}, final=final, cost=F**2 + T**2)


def parallel_park_guess(N: int = NODES_A, duration: float = DURATION_A) -> np.ndarray:
    """The example's guess, as (8 + 2) x N: x out to 6 m and back, y a ramp to 2, the rest 1."""
    time_ = np.linspace(0.0, duration, N)
    x = 3.0 / duration * 2.0 * time_
    x[N // 2:] = 6.0 - 3.0 / duration * 2.0 * time_[N // 2:]
    guess = np.ones((10, N))
    guess[0], guess[1] = x, 2.0 / duration * time_
    return guess


# ---------------------------------------------------------------------------------------------------
# Problem B: the car with one trailer, minimum time (written once as an explicit x' = f(x, u)).

def trailer_equations() -> dict:
    t = me.dynamicsymbols._t
    x, y, th0, th1 = me.dynamicsymbols("x y theta0 theta1")
    v, kappa = me.dynamicsymbols("v kappa")
    hitch = 1.0
    rhs = sm.Matrix([v * sm.cos(th0), v * sm.sin(th0), v * kappa, v / hitch * sm.sin(th0 - th1)])
    states = (x, y, th0, th1)
    return dict(states=states, inputs=(v, kappa), t=t, rhs=rhs,
                eom=sm.Matrix([s.diff(t) for s in states]) - rhs,
                bounds={v: (-1.0, 1.0), kappa: (-1.0, 1.0), x: (-10.0, 10.0), y: (-10.0, 10.0),
                        th0: (-math.pi, math.pi), th1: (-math.pi, math.pi)},
                initial=dict(zip(states, (0.0, 0.0, 0.0, 0.0))), final=dict(zip(states, GOAL_B)))


def trailer_guess(N: int = NODES_B, duration: float = 8.0) -> tuple:
    s = np.linspace(0.0, 1.0, N)
    states = np.array([g * s for g in GOAL_B])
    return np.vstack([states, np.full((2, N), 0.5)]), duration


# ---------------------------------------------------------------------------------------------------
# The solvers. Each returns dict(objective, iterations, seconds, n_variables, n_constraints, status).

def solve_opty(spec: dict, guess: np.ndarray, N: int, method: str, free_time: bool, duration: float) -> dict:
    import opty

    states, inputs = spec["states"], spec["inputs"]
    h = sm.symbols("h", positive=True)
    interval = h if free_time else duration / (N - 1)
    t_end = (N - 1) * h if free_time else duration
    instance = tuple(s.func(0.0) - v for s, v in spec["initial"].items()) + \
        tuple(s.func(t_end) - v for s, v in spec["final"].items())
    bounds = dict(spec["bounds"])
    if free_time:
        bounds[h] = (1e-3, 1.0)

        def obj(free):
            return (N - 1) * free[-1]

        def obj_grad(free):
            grad = np.zeros_like(free)
            grad[-1] = N - 1
            return grad
        flat_guess = np.r_[guess.ravel(), duration / (N - 1)]
    else:
        obj, obj_grad = opty.create_objective_function(sm.Integral(spec["cost"], spec["t"]), states, inputs, tuple(),
                                                       N, interval, integration_method=method,
                                                       time_symbol=spec["t"])
        flat_guess = guess.ravel()
    with tempfile.TemporaryDirectory() as tmp:
        problem = opty.Problem(obj, obj_grad, spec["eom"], states, N, interval,
                               known_parameter_map=spec.get("params", {}), instance_constraints=instance,
                               bounds=bounds, time_symbol=spec["t"], integration_method=method, tmp_dir=tmp)
    if "params" in spec:  # what the example sets
        problem.add_option("nlp_scaling_method", "gradient-based")
    for key, value in (("print_level", 0), ("tol", TOL), ("max_iter", MAX_ITER)):
        problem.add_option(key, value)
    n_var, n_con = problem.num_free, problem.num_constraints

    def run():
        problem.obj_value = []
        start, cpu = time.perf_counter(), time.process_time()
        solution, info = problem.solve(flat_guess.copy())
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return dict(objective=float(info["obj_val"]), iterations=len(problem.obj_value) - 1, seconds=seconds, cpu=cpu,
                    n_variables=n_var, n_constraints=n_con, status=IPOPT_STATUS.get(info["status"], info["status"]),
                    success=info["status"] in (0, 1))
    return run


def _casadi_function(ca, expr: sm.Matrix, args: list, name: str):
    """A SymPy matrix of plain symbols as a CasADi Function of ``args`` (lists of symbols)."""
    sx = [ca.SX.sym(f"a{i}", len(group)) for i, group in enumerate(args)]
    flat = [s for group in args for s in group]
    fn = sm.lambdify(flat, list(expr), modules=[{"sin": ca.sin, "cos": ca.cos, "tan": ca.tan, "sqrt": ca.sqrt,
                                                "exp": ca.exp, "log": ca.log}, "math"])
    values = fn(*[sx_i[j] for sx_i in sx for j in range(sx_i.shape[0])])
    return ca.Function(name, sx, [ca.vertcat(*values)])


def solve_casadi(spec: dict, guess: np.ndarray, N: int, method: str, free_time: bool, duration: float,
                 hessian: str = "exact"):
    """CasADi Opti on the same discrete equations: opty's backward Euler or midpoint on the implicit
    eom(x', x, u) = 0, or the trapezoid rule: on an explicit x' = f(x, u) where the problem has one (the
    trailer), else on the implicit eom with x' at the nodes as variables (eom(x'_i, x_i, u_i) = 0 and
    x_{i+1} - x_i = h (x'_i + x'_{i+1}) / 2)."""
    import casadi as ca

    states, inputs, t = spec["states"], spec["inputs"], spec["t"]
    n, q = len(states), len(inputs)
    xs, xds, us = sm.symbols(f"x0:{n}"), sm.symbols(f"xd0:{n}"), sm.symbols(f"u0:{q}")
    subs = {s.diff(t): d for s, d in zip(states, xds)} | dict(zip(states, xs)) | dict(zip(inputs, us))
    subs |= {p: v for p, v in spec.get("params", {}).items()}
    explicit = method == "trapezoid" and "rhs" in spec
    implicit = None if explicit else _casadi_function(ca, spec["eom"].xreplace(subs), [xds, xs, us], "eom")
    rhs = _casadi_function(ca, spec["rhs"].xreplace(subs), [xs, us], "rhs") if explicit else None
    opti = ca.Opti()
    X, U = opti.variable(n, N), opti.variable(q, N)
    if free_time:
        hvar = opti.variable()
        h = hvar
        opti.subject_to(opti.bounded(1e-3, hvar, 1.0))
        opti.set_initial(hvar, duration / (N - 1))
        opti.minimize((N - 1) * hvar)
    else:
        h = duration / (N - 1)
        cost = _casadi_function(ca, sm.Matrix([spec["cost"].xreplace(subs)]), [xs, us], "cost")
        if method == "backward euler":
            opti.minimize(h * ca.sum2(cost.map(N - 1)(X[:, 1:], U[:, 1:])))
        elif method == "trapezoid":
            c = cost.map(N)(X, U)
            opti.minimize(h * (ca.sum2(c) - 0.5 * (c[0] + c[N - 1])))
        else:
            opti.minimize(h * ca.sum2(cost.map(N - 1)(0.5 * (X[:, 1:] + X[:, :-1]), 0.5 * (U[:, 1:] + U[:, :-1]))))
    dX = X[:, 1:] - X[:, :-1]
    if method == "backward euler":
        opti.subject_to(implicit.map(N - 1)(dX / h, X[:, 1:], U[:, 1:]) == 0)
    elif method == "midpoint":
        opti.subject_to(implicit.map(N - 1)(dX / h, 0.5 * (X[:, 1:] + X[:, :-1]), 0.5 * (U[:, 1:] + U[:, :-1])) == 0)
    elif explicit:
        F = rhs.map(N)(X, U)
        opti.subject_to(dX - 0.5 * h * (F[:, 1:] + F[:, :-1]) == 0)
    else:
        XD = opti.variable(n, N)
        opti.subject_to(implicit.map(N)(XD, X, U) == 0)
        opti.subject_to(dX - 0.5 * h * (XD[:, 1:] + XD[:, :-1]) == 0)
        opti.set_initial(XD, np.gradient(guess[:n], h, axis=1) if not free_time else 0.0)
    bound_rows = 1 if free_time else 0
    index = {s: i for i, s in enumerate(states)}
    for s, v in spec["initial"].items():
        opti.subject_to(X[index[s], 0] == v)
    for s, v in spec["final"].items():
        opti.subject_to(X[index[s], -1] == v)
    for s, (lo, hi) in spec["bounds"].items():
        row = X[index[s], :] if s in index else U[inputs.index(s), :]
        opti.subject_to(opti.bounded(lo, row, hi))
        bound_rows += N
    opti.set_initial(X, guess[:n])
    opti.set_initial(U, guess[n:])
    options = {"print_level": 0, "tol": TOL, "max_iter": MAX_ITER}
    if hessian != "exact":
        options["hessian_approximation"] = "limited-memory"
    if "params" in spec:
        options["nlp_scaling_method"] = "gradient-based"
    # variable bounds go to IPOPT as bounds, not as constraint rows (as opty and nonholo give them)
    opti.solver("ipopt", {"print_time": False, "detect_simple_bounds": True}, options)
    n_var = opti.nx
    n_con = opti.ng - bound_rows

    def run():
        start, cpu = time.perf_counter(), time.process_time()
        try:
            sol = opti.solve()
            stats, objective = sol.stats(), float(sol.value(opti.f))
        except RuntimeError:  # IPOPT's failure: Opti raises, the debug values stay readable
            stats, objective = opti.stats(), float(opti.debug.value(opti.f))
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        return dict(objective=objective, iterations=int(stats["iter_count"]), seconds=seconds, cpu=cpu,
                    n_variables=n_var,
                    n_constraints=n_con, status=str(stats["return_status"]), success=bool(stats["success"]))
    return run


def park_problem(nh):
    """nonholo's OptimalControlProblem of problem A: the car from the example's KanesMethod
    (``System.from_kanes_method``) in Kane's speeds, its bounds, at rest at both ends, y = 2 at the end."""
    spec = parallel_park_equations()
    # The inputs T(t), F(t) become the system's symbols T, F (parameters of a simulation,
    # controls here); the state is the problem's (at rest at both ends, y = 2 at the end).
    T, F = spec["inputs"]
    Ts, Fs = sm.symbols("T F")
    params = {str(k): v for k, v in spec["params"].items()} | {"T": 0.0, "F": 0.0}
    system = nh.System.from_kanes_method(spec["kane"], params, specified={T: Ts, F: Fs})
    # controls= takes the System (its Lagrange-d'Alembert dynamics); its state names first
    names = list(nh.OptimalControlProblem(system, cost=Fs**2 + Ts**2, controls=[Ts, Fs],
                                          t_final=DURATION_A).state_names)
    return nh.OptimalControlProblem(
        system, cost=Fs**2 + Ts**2, controls=[Ts, Fs], t_final=DURATION_A,
        initial=[0.0] * len(names), final=[2.0 if name == "y" else 0.0 for name in names],
        state_bounds={"delta": (np.deg2rad(-45.0), np.deg2rad(45.0))},
        control_bounds={"T": (-50.0, 50.0), "F": (-300.0, 300.0)})


def park_problem_explicit(nh):
    """Problem A on the example's KanesMethod solved for its rates by hand (SymPy, at set-up): the
    explicit ODE x' = f(x, u) in the six states x, y, theta, delta, v_x, beta (8 variables a node
    with the controls, against 16 in Kane's speeds), v_y and omega eliminated by the nonholonomic
    constraints (their block, with the denominator (a + b) cos(delta), is regular within the bound
    |delta| <= 45 deg), the rates of v_x and beta from the mass matrix by LU; a
    ``nh.KinematicSystem``. The same discrete problem as :func:`park_problem` (the same optimum to 14
    digits, an outside probe found)."""
    spec = parallel_park_equations()
    kane, t, params = spec["kane"], spec["t"], spec["params"]
    x, y, theta, delta, vx, vy, omega, beta = spec["states"]
    T, F = spec["inputs"]
    dependent = sm.solve([c.xreplace(params) for c in spec["nonholonomic"]], [vy, omega], dict=True)[0]
    rates = kane.mass_matrix.xreplace(params).LUsolve(kane.forcing.xreplace(params))  # vx', beta', vy', omega'
    kd = kane.kindiffdict()
    states = (x, y, theta, delta, vx, beta)
    symbols = sm.symbols("x y theta delta v_x beta")
    Ts, Fs = sm.symbols("T F")
    plain = dict(zip(states, symbols)) | {T: Ts, F: Fs}
    rhs = [kd[s.diff(t)].xreplace(params) for s in states[:4]] + [rates[0], rates[1]]
    rhs = [e.xreplace(dependent).xreplace(plain) for e in rhs]
    rhs = [sm.simplify(sm.trigsimp(e)) if sm.count_ops(e) < 400 else e for e in rhs]
    car = nh.KinematicSystem(list(symbols), [Ts, Fs], sm.Matrix(rhs), name="parallel park, explicit")
    return nh.OptimalControlProblem(
        car, cost=Fs**2 + Ts**2, t_final=DURATION_A, initial=[0.0] * 6, final=[0.0, 2.0, 0.0, 0.0, 0.0, 0.0],
        state_bounds={"delta": (np.deg2rad(-45.0), np.deg2rad(45.0))},
        control_bounds={"T": (-50.0, 50.0), "F": (-300.0, 300.0)})


def solve_nonholo(nh, which: str, N: int, method: str, mu_strategy: str = "monotone", explicit: bool = False,
                  ipopt_options: dict | None = None):
    """nonholo's rows, through the public API of issue 44 (``nh.OptimalControlProblem``): on A the
    car from the example's KanesMethod (``System.from_kanes_method``), posed in Kane's speeds
    (states x, y, theta, delta, v_x, beta; v_y, omega, the speeds' rates and the multipliers as
    algebraic variables at every point), from nonholo's default start; ``explicit``: the explicit ODE
    of :func:`park_problem_explicit`, ``ipopt_options`` passed to IPOPT."""
    if which == "A":
        problem = park_problem_explicit(nh) if explicit else park_problem(nh)
    else:
        truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
        problem = nh.OptimalControlProblem(truck, cost="time", initial=[0.0, 0.0, 0.0, 0.0], final=list(GOAL_B),
                                           state_bounds={"x": (-10.0, 10.0), "y": (-10.0, 10.0),
                                                         "theta0": (-math.pi, math.pi),
                                                         "theta1": (-math.pi, math.pi)})

    problem.solve(nodes=11, method=method, max_iter=1)  # the tapes, built once per problem (set-up)

    def run():
        start, cpu = time.perf_counter(), time.process_time()
        sol = problem.solve(nodes=N, method=method, tol=TOL, max_iter=MAX_ITER, mu_strategy=mu_strategy,
                            ipopt_options=ipopt_options)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        s = sol.stats
        return dict(objective=float(sol.objective), iterations=int(s["iterations"]), seconds=seconds, cpu=cpu,
                    n_variables=int(s["n_variables"]), n_constraints=int(s["n_constraints"]),
                    status=str(sol.message), success=bool(sol.success), time_ipopt=float(s["time_ipopt"]),
                    time_evaluations=float(s["time_evaluations"]), coarse_iterations=int(s.get("coarse_iterations", 0)))
    return run


# ---------------------------------------------------------------------------------------------------

def rows_for(problem: str, found: dict, quick: bool, implicit_trapezoid: bool = False, only=None) -> list:
    """(label, method, runner) of every tool that imports, and the lines saying who was skipped."""
    runners, notes = [], []
    if problem == "A":
        spec, guess, N, free, duration = parallel_park_equations(), parallel_park_guess(), NODES_A, False, DURATION_A
        methods = ("backward euler",) if quick else ("backward euler", "midpoint")
        methods += ("trapezoid",) if implicit_trapezoid else ()
    else:
        spec = trailer_equations()
        (guess, duration), N, free = trailer_guess(), NODES_B, True
        methods = ("backward euler", "trapezoid") if quick else ("backward euler", "midpoint", "trapezoid")
    methods = tuple(m for m in methods if only is None or m in only)
    for method in methods:
        if method != "trapezoid":
            if isinstance(found["opty"], str):
                notes.append(f"opty skipped: {found['opty']}")
            else:
                runners.append(("opty", method, solve_opty(spec, guess, N, method, free, duration)))
        if isinstance(found["casadi"], str):
            notes.append(f"CasADi skipped: {found['casadi']}")
        else:
            runners.append(("CasADi Opti", method, solve_casadi(spec, guess, N, method, free, duration)))
            if method == "backward euler":
                runners.append(("CasADi Opti, L-BFGS", method,
                                solve_casadi(spec, guess, N, method, free, duration, hessian="limited-memory")))
    # (label, the table's transcription, nonholo's method, IPOPT's mu_strategy, explicit ODE, IPOPT options)
    ours = [("nonholo", "backward euler", "backward-euler", "monotone", False, None),
            ("nonholo, adaptive mu", "backward euler", "backward-euler", "adaptive", False, None),
            ("nonholo, explicit ODE", "backward euler", "backward-euler", "monotone", True, None),
            ("nonholo, explicit ODE, objective x 1e-4", "backward euler", "backward-euler", "monotone", True,
             {"obj_scaling_factor": 1e-4})] if problem == "A" else \
        [("nonholo", m, m, "monotone", False, None) for m in ("trapezoid", "hermite-simpson")]
    for label, column, method, mu, explicit, options in ours:
        if isinstance(found["nonholo"], str):
            notes.append(f"nonholo ({method}) skipped: {found['nonholo']}")
            continue
        try:
            runners.append((label, column, solve_nonholo(found["nonholo"], problem, N, method, mu, explicit, options)))
        except Exception as exc:  # noqa: BLE001 (a benchmark reports what failed and goes on)
            notes.append(f"nonholo ({method}) could not set up the problem: {type(exc).__name__}: {exc}")
    return runners, sorted(set(notes), key=notes.index)


def measure(runners: list, repeats: int) -> list:
    """Interleaved repeats: each round runs every tool once; the median time of each."""
    results = {i: [] for i in range(len(runners))}
    for _ in range(repeats):
        for i, (_, _, run) in enumerate(runners):
            results[i].append(run())
    out = []
    for i, (label, method, _) in enumerate(runners):
        last = results[i][-1]
        out.append(dict(last, tool=label, method=method, seconds=statistics.median(r["seconds"] for r in results[i]),
                        cpu=statistics.median(r["cpu"] for r in results[i]),
                        spread=(min(r["seconds"] for r in results[i]), max(r["seconds"] for r in results[i]))))
    return out


def table(title: str, results: list) -> str:
    lines = [f"### {title}", "",
             "| tool | transcription | objective | iterations | time to solve (s) | / fastest peer | CPU (s) | "
             "CPU / fastest peer's | variables | constraints | IPOPT status |",
             "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|:---|"]
    for r in results:
        peers_same = [p["seconds"] for p in results if p["method"] == r["method"]
                      and not p["tool"].startswith("nonholo") and p["success"]]
        fastest = min(peers_same) if peers_same else min(p["seconds"] for p in results if p["success"] or p is r)
        cpus = [p["cpu"] for p in results if p["method"] == r["method"] and not p["tool"].startswith("nonholo")
                and p["success"]]
        fastest_cpu = min(cpus) if cpus else min(p["cpu"] for p in results if p["success"] or p is r)
        lines.append(f"| {r['tool']} | {r['method']} | {r['objective']:.6g} | {r['iterations']} | {r['seconds']:.3g} | "
                     f"{r['seconds'] / fastest:.2f} | {r['cpu']:.3g} | {r['cpu'] / fastest_cpu:.2f} | "
                     f"{r['n_variables']} | {r['n_constraints']} | {r['status']} |")
    ours = [r for r in results if "time_ipopt" in r]
    if ours:
        lines += ["", "nonholo's time (last repeat): " + "; ".join(
            f"{r['tool']} ({r['method']}): IPOPT {r['time_ipopt']:.3g} s of which evaluations "
            f"{r['time_evaluations']:.3g} s on the full mesh, after {r['coarse_iterations']} iterations on the coarse "
            "meshes of its starts" for r in ours) + "."]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat, fewer transcriptions")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--problem", choices=("A", "B", "both"), default="both")
    parser.add_argument("--implicit-trapezoid", action="store_true",
                        help="also CasADi's trapezoid on the parallel park (x' as variables: slow, over 10 minutes a "
                             "solve with L-BFGS on the loaded 2-core machine)")
    parser.add_argument("--peer-methods", nargs="+", choices=("backward euler", "midpoint", "trapezoid"),
                        help="run the peers with these transcriptions only (default: all of the problem's)")
    add_output_options(parser)
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else args.repeats
    found = peers()
    blocks = [f"Medians of {repeats} interleaved repeats; times are the solve call alone; '/ fastest peer' divides "
              "by the fastest of opty and CasADi at the same transcription (by the fastest row where no peer "
              "has it). Load average at the start: "
              f"{os.getloadavg()[0]:.1f} (2 cores, shared)."]
    titles = {"A": f"A: opty's parallel park (dynamic car, 8 states, 2 forces, {NODES_A} nodes, T = {DURATION_A:g} s)",
              "B": f"B: car with one trailer, minimum time to (0, 2, 0, 0) ({NODES_B} nodes, free duration)"}
    for problem in ("A", "B") if args.problem == "both" else (args.problem,):
        runners, notes = rows_for(problem, found, args.quick, args.implicit_trapezoid, args.peer_methods)
        blocks.append(table(titles[problem], measure(runners, repeats)))
        if notes:
            blocks.append("\n".join(f"- {note}" for note in notes))
    emit("\n\n".join(blocks), output_of(args, argv))


if __name__ == "__main__":
    main()
