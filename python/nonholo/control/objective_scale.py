"""A plan whose objective is far below 1, solved once more with the objective scaled to 1.

IPOPT's tolerances are absolute (``tol`` on its NLP error, the barrier parameter's floor
``mu_min`` 1e-11), and its gradient-based scaling only scales an objective down (to a gradient of
100), never up. A problem posed in small units has a small objective, and IPOPT stopped early with
the barrier still weighing on it: an outside probe's oscillator x'' = -x + F, moved from (k, 0) to
rest in T = 1 at the least integral of F^2 / 2 with bounds |F| <= 10 k that never act, came back
"Optimal Solution Found." 10 % above its closed-form optimum at k = 1e-4 and 1e-6 (after 2-3
iterations), and a unicycle's least time to turn in place by 1e-6 came back 16 % above 1e-6.

Where a solve succeeds with 0 < |J| < SMALL (0.1), it is solved again from its plan with IPOPT's
``obj_scaling_factor`` 1 / |J| (the scaled objective of order one): the oscillator and the turn
then end within 3e-8 and 2e-7 of their optima at every scale. The second solve's plan is kept
where it succeeds and costs no more than the first's (by 1e-3 |J|: its constraints are met more
tightly); a caller who sets ``obj_scaling_factor`` or ``nlp_scaling_method`` in ``ipopt_options``
is left to it.
"""

from __future__ import annotations

__all__ = ["SMALL", "rescaled"]

#: An objective below it (in magnitude) is solved again scaled to 1: IPOPT's absolute tolerances leave
#: an error of about 1.5e-7 / |J| relative (a double integrator's least time T = 2 sqrt(D): 7.5e-7 at
#: T = 0.2, 7.5e-5 at T = 0.002), 1.5e-6 at most above it.
SMALL = 0.1
#: The caller's options that leave the objective's scaling to the caller.
CALLERS = ("obj_scaling_factor", "nlp_scaling_method")


def rescaled(sol, solve_again, options: dict):
    """``sol``, or the plan of ``solve_again(options)`` from it with its objective scaled to 1 (module
    docstring). ``options``: the solve's options (``ipopt_options`` among them, the caller's last)."""
    J = float(sol.objective)
    tally = options.get("tally")
    if not sol.success or not 0.0 < abs(J) < SMALL or any(name in CALLERS for name, _ in options["ipopt_options"]):
        return sol
    if tally is not None and not tally.may_start():
        return sol
    scaled = dict(options, warm=False, ipopt_options=[*options["ipopt_options"], ("obj_scaling_factor", 1.0 / abs(J))])
    again = solve_again(scaled)
    if again.success and again.objective <= J + 1e-3 * abs(J):
        again.stats["objective_scaling"] = 1.0 / abs(J)
        return again
    return sol
