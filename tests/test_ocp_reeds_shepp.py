"""Issue 44's numbers for the kinematic car: the minimum time of nh.OptimalControlProblem against
the exact shortest paths of nh.analysis (Reeds-Shepp forward and backward, Dubins forward only).

Ten fixed goals drawn with a seed (x in [2, 6], y in [-2, 2], theta in [-pi/2, pi/2]), each solved
from the problem's default initial guess at 200 nodes. The issue asks for the time within 1% of the
path length at 9 of the 10 and never below it by more than 0.5% (a time below the shortest path is
an infeasible plan that the transcription let through). The default start solves the line and the
heading guess on a 50-node coarse mesh and, when their coarse optima disagree in a problem that can
drive backwards (the car: v -> -v reverses it), also the line with its heading bumped by +-0.5 and
+-1; the full mesh is solved from the three best distinct coarse optima. Measured: 10 of 10
within 1% (worst 1.0091); before the bumped starts two goals whose shortest paths end with a cusp
and a backward arc (L+S+R+L-) stopped at 1.0329 and 1.0157 times the length. A second set of 20
goals from a seed not used to choose the starts checks that the default holds beyond the goals it
was measured on (at least 90% within 1%; measured 20 of 20, worst 1.0056).
"""

import math

import numpy as np
import pytest

import nonholo as nh

pytestmark = pytest.mark.slow  # 20 solves of 600-variable NLPs with IPOPT



def goals(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(2, 6, n), rng.uniform(-2, 2, n), rng.uniform(-math.pi / 2, math.pi / 2, n)])


GOALS = goals(20261202, 10)
HELD_OUT = goals(20261205, 20)


def check_against(lengths, times, successes, at_least):
    ratios = np.asarray(times) / np.asarray(lengths)
    close = [s and abs(r - 1) <= 0.01 for s, r in zip(successes, ratios)]
    assert sum(close) >= at_least, f"time / shortest length: {np.round(ratios, 4)}, success {successes}"
    below = [r for s, r in zip(successes, ratios) if s and r < 1 - 0.005]
    assert not below, f"a plan faster than the shortest path: time / length {below}"


def solve_all(goals_):
    car = nh.systems.kinematic_car(turning_radius=1.0)
    times, successes, lengths = [], [], []
    for goal in goals_:
        sol = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=goal).solve(nodes=200)
        times.append(sol.t_final)
        successes.append(bool(sol.success))
        lengths.append(nh.analysis.reeds_shepp_length([0, 0, 0], goal, turning_radius=1.0))
        assert np.all(np.abs(sol.u["v"]) <= 1 + 1e-6) and np.all(np.abs(sol.u["kappa"]) <= 1 + 1e-6)
    return lengths, times, successes


def test_minimum_time_is_the_reeds_shepp_length():
    """The issue's number: at least 9 of the 10 goals within 1%, none below by more than 0.5%."""
    check_against(*solve_all(GOALS), at_least=9)


def test_minimum_time_on_held_out_goals():
    """20 goals from a seed not used to choose the default's starts: at least 18 within 1%."""
    check_against(*solve_all(HELD_OUT), at_least=18)


def test_forward_only_minimum_time_is_the_dubins_length():
    """v in [0, 1] through control_bounds: the car cannot reverse, and its least time is Dubins'
    length. Never below it by more than 0.5%; within 1% at every goal whose Dubins path is a
    curve-straight-curve word. Two of the goals need a forward loop (L+R+L+, over 2.5 times the
    distance): a plan that starts from a straight line between the poses is not asked to find
    that loop."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    for goal in GOALS:
        problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=goal,
                                           control_bounds={"v": (0, 1)})
        sol = problem.solve(nodes=200)
        path = nh.analysis.dubins_path([0, 0, 0], goal, turning_radius=1.0)
        assert np.all(sol.u["v"] >= -1e-6)
        if sol.success:
            assert sol.t_final >= path.length * (1 - 0.005), (goal, sol.t_final, path.length)
        if "S" in path.word:
            assert sol.success and sol.t_final <= path.length * 1.01, (goal, sol.t_final, path.length)


def test_goals_span_both_kinds_of_path():
    """The fixed goals are not all easy: some shortest paths reverse (Reeds-Shepp shorter than
    Dubins), so the two tests above check different things."""
    rs = [nh.analysis.reeds_shepp_path([0, 0, 0], g) for g in GOALS]
    du = [nh.analysis.dubins_length([0, 0, 0], g) for g in GOALS]
    assert sum("-" in p.word for p in rs) >= 2
    assert sum(d > p.length * 1.01 for p, d in zip(rs, du)) >= 2
    assert sum("S" in nh.analysis.dubins_path([0, 0, 0], g).word for g in GOALS) == 8
