"""A plan whose objective is far below 1, solved once more with the objective scaled to 1.

IPOPT's tolerances are absolute (``tol`` on its NLP error, the barrier parameter's floor
``mu_min`` 1e-11), and its gradient-based scaling only scales an objective down (to a gradient of
100), never up. A problem posed in small units has a small objective, and IPOPT stopped early with
the barrier still weighing on it: an outside probe's oscillator x'' = -x + F, moved from (k, 0) to
rest in T = 1 at the least integral of F^2 / 2 with bounds |F| <= 10 k that never act, came back
"Optimal Solution Found." 10 % above its closed-form optimum at k = 1e-4 and 1e-6 (after 2-3
iterations), and a unicycle's least time to turn in place by 1e-6 came back 16 % above 1e-6.

Where a solve succeeds with a cost whose size S (:func:`~nonholo.control.cost_errors.cost_size`: the
largest of |J| and the integral of the magnitudes of the running cost's terms, so that a cost near 0
by the cancellation of terms of order one is left alone) is below SMALL (0.1), it is solved again from
its plan with IPOPT's ``obj_scaling_factor`` 1 / S (the scaled cost of order one): the oscillator
and the turn then end within 3e-8 and 2e-7 of their optima at every scale. Where S is 0 (a first
solve that stopped at a plan at rest, its objective 0 for -c / 6 under c (u^2 / 2 - x) at c = 1e-7),
S is the cost's change for a unit change of a variable. The second solve's plan is kept where it
succeeds and costs no more than the first's (by 1e-3 S: its constraints are met more tightly); a
caller who sets ``obj_scaling_factor`` or ``nlp_scaling_method`` in ``ipopt_options`` is left to it.

A solve from a plan that was solved scaled (the default start's coarse optimum, a round of ``refine``)
starts with its scaling: the least time of a car of turning radius 0.01 took 265 IPOPT iterations on
the full mesh unscaled, before the scaled solve's 24 (361 in all, 35 times the radius 1 car's time).
"""

from __future__ import annotations

__all__ = ["SMALL", "rescaled", "scaled_solve"]

#: An objective below it (in magnitude) is solved again scaled to 1: IPOPT's absolute tolerances leave
#: an error of about 1.5e-7 / |J| relative (a double integrator's least time T = 2 sqrt(D): 7.5e-7 at
#: T = 0.2, 7.5e-5 at T = 0.002), 1.5e-6 at most above it.
SMALL = 0.1
#: The caller's options that leave the objective's scaling to the caller.
CALLERS = ("obj_scaling_factor", "nlp_scaling_method")


def scaled_solve(solve_once, guess, options: dict):
    """``solve_once(guess, options)``: with the objective scaling of a guess that was solved scaled
    (where that solve succeeds), else unscaled and then :func:`rescaled`."""
    factor = getattr(guess, "stats", {}).get("objective_scaling")
    if factor is not None and not any(name in CALLERS for name, _ in options["ipopt_options"]):
        scaled = [*options["ipopt_options"], ("obj_scaling_factor", factor)]
        sol = solve_once(guess, dict(options, ipopt_options=scaled))
        if sol.success:
            sol.stats["objective_scaling"] = factor
            return sol
    sol = solve_once(guess, options)
    return rescaled(sol, lambda scaled: solve_once(sol, scaled), options)


def rescaled(sol, solve_again, options: dict):
    """``sol``, or the plan of ``solve_again(options)`` from it with its objective scaled to 1 (module
    docstring). ``options``: the solve's options (``ipopt_options`` among them, the caller's last)."""
    from .cost_errors import cost_size

    J = float(sol.objective)
    tally = options.get("tally")
    if not sol.success or any(name in CALLERS for name, _ in options["ipopt_options"]):
        return sol
    size = cost_size(sol)
    if not 0.0 < size < SMALL or (tally is not None and not tally.may_start()):
        return sol
    scaled = dict(options, warm=False, ipopt_options=[*options["ipopt_options"], ("obj_scaling_factor", 1.0 / size)])
    again = solve_again(scaled)
    if again.success and again.stats["iterations"] == 0:  # the plan met the scaled conditions as it was: kept,
        sol.stats["objective_scaling"] = 1.0 / size  # with its own first solve's iterations (0 is a saddle's sign)
        return sol
    if again.success and again.objective <= J + 1e-3 * size:
        again.stats["objective_scaling"] = 1.0 / size
        return again
    return sol
