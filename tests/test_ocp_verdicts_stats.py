"""``sol.stats`` of a whole solve: the totals over every IPOPT call (``ipopt_calls``,
``iterations_total``, ``time_ipopt_total``, ``time_total``, ``calls_not_started``) beside the keys of
the call that gave the plan, and the keys of the default start (``starts``, ``coarse_nodes``,
``coarse_iterations``, ``full_solves``) on every path.

Before, stats described the last IPOPT call alone: parking with two trailers at 200 nodes made 17
IPOPT calls taking 21.7 s, and its stats said 23 iterations and 0.26 s; ``full_solves`` and
``coarse_iterations`` were missing (KeyError) on the paths without the coarse mesh."""

import math

import pytest
import sympy as sp

import nonholo as nh

KEYS = ("iterations", "time_ipopt", "starts", "coarse_nodes", "coarse_iterations", "full_solves", "ipopt_calls",
        "iterations_total", "time_ipopt_total", "time_total", "calls_not_started")
CAR = nh.systems.kinematic_car(turning_radius=1.0)


@pytest.fixture
def calls(monkeypatch):
    """The outputs of every IPOPT call (collocation and DMOC's interval NLP)."""
    seen = []
    for name in ("solve_collocation", "solve_interval_nlp"):
        original = getattr(nh._core, name)

        def counted(*args, _original=original, **kwargs):
            out = _original(*args, **kwargs)
            seen.append(out)
            return out

        monkeypatch.setattr(nh._core, name, counted)
    return seen


def _knife_edge():
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    system = nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                       force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})
    return nh.OptimalControlProblem(system, cost=(F**2 + tau**2) / 2, t_final=1.0, controls=[F, tau],
                                    initial=[0, 0, 0, 0, 0], final=[1, 0, 0, 0, 0])


SOLVES = {  # name: (problem, solve's arguments, (starts, coarse_nodes, full_solves) or None: more than one)
    "default start of a car (coarse mesh)": (lambda: nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0],
                                                                              final=[3.0, 1.0, 0.3]),
                                             dict(nodes=40), (2, 11, 1)),
    "one start": (lambda: nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[3.0, 1.0, 0.3]),
                  dict(nodes=30, guess="line"), (1, 0, 1)),
    "one start, refined": (lambda: nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[3.0, 1.0, 0.3]),
                           dict(nodes=20, guess="heading", refine=2), (1, 0, 1)),
    "default start, refined": (lambda: nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0],
                                                                final=[3.0, 1.0, 0.3]),
                               dict(nodes=40, refine=1, refine_tol=1e-4), (2, 11, 1)),
    "lifts of the final heading": (lambda: nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0],
                                                                    final=[3.0, 1.0, 0.3 + 2 * math.pi],
                                                                    angles=["theta"]), dict(nodes=30), None),
    "no planar vehicle": (lambda: nh.OptimalControlProblem(nh.systems.heisenberg().kinematic(), cost="energy",
                                                           t_final=1.0, initial=[0, 0, 0], final=[1.0, 0.5, 0.3]),
                          dict(nodes=15), (1, 0, 1)),
    "a System's dynamics (a knife edge: a planar vehicle)": (_knife_edge, dict(nodes=15), None),
    "DMOC": (_knife_edge, dict(nodes=15, method="dmoc"), (2, 11, 1)),
    "DMOC, one start": (_knife_edge, dict(nodes=15, method="dmoc", guess="line"), (1, 0, 1)),
}


@pytest.mark.parametrize("name", SOLVES)
def test_stats_hold_the_totals_of_the_whole_solve_on_every_path(calls, name):
    make, options, how = SOLVES[name]
    problem = make()
    calls.clear()  # the problem's own set-up solves nothing; counted from here
    sol = problem.solve(**options)
    assert sol.success
    assert all(key in sol.stats for key in KEYS), [key for key in KEYS if key not in sol.stats]
    stats = sol.stats
    assert stats["ipopt_calls"] == len(calls) >= 1 and stats["calls_not_started"] == 0
    assert stats["iterations_total"] == sum(out["iterations"] for out in calls) >= stats["iterations"]
    assert stats["time_ipopt_total"] == pytest.approx(sum(out["time_ipopt"] for out in calls), rel=1e-9)
    assert stats["time_total"] >= stats["time_ipopt_total"] >= stats["time_ipopt"]
    # the kept plan's own keys are those of one of the calls
    assert (stats["iterations"], stats["time_ipopt"]) in [(out["iterations"], out["time_ipopt"]) for out in calls]
    if how is not None:
        assert (stats["starts"], stats["coarse_nodes"], stats["full_solves"]) == how
        assert (stats["coarse_iterations"] > 0) == (how[1] > 0)
    if options.get("refine"):
        assert stats["ipopt_calls"] >= (3 if how[1] else 2)  # a round ran


def test_the_totals_say_what_the_multistart_cost():
    """The car to a sideways goal widens its starts (six on the coarse mesh, then the full mesh from
    the best distinct coarse optima, here two); the totals count all of them, the kept plan's own
    keys one call."""
    sol = nh.OptimalControlProblem(CAR, cost="time", initial=[0, 0, 0], final=[0.0, 1.0, 0.0]).solve(nodes=44)
    stats = sol.stats
    assert sol.success and stats["starts"] == 6 and stats["coarse_nodes"] == 11 and stats["full_solves"] >= 2
    assert stats["ipopt_calls"] == stats["starts"] + stats["full_solves"]
    assert stats["iterations_total"] >= stats["coarse_iterations"] + stats["iterations"]
