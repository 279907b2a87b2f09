"""What the guide says of a re-run of the controls (``sol.simulate()``) holds: it ends within
``sol.error_bound`` (to first order), not within ``sol.defect``, an estimate that the motion can
exceed (a car's error of heading turns the rest of its path).

Before, the guide's accuracy section said flatly that the re-run ends within the defect; on the
car's random goals of the tests it ended beyond it at 7 of 10 goals on 100 nodes, by up to 3.7
times, always within the error bound."""

import math
import re
from pathlib import Path

import numpy as np

import nonholo as nh

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "optimal_control.md"


def _accuracy_section() -> str:
    text = GUIDE.read_text()
    return re.search(r"## Accuracy: .*?(?=\n## )", text, re.S).group(0)


def _random_goals():
    """The ten random goals of the car (x in [2, 6], y in [-2, 2], theta in [-pi/2, pi/2])."""
    rng = np.random.default_rng(987654)
    n = 10
    return np.column_stack([rng.uniform(2, 6, n), rng.uniform(-2, 2, n), rng.uniform(-math.pi / 2, math.pi / 2, n)])


def test_the_re_run_ends_within_the_error_bound_and_may_exceed_the_defect_as_the_guide_says():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    goals = _random_goals()
    ratios = []
    for goal in goals[[5, 2]]:  # the largest ratio of the ten, and one within the defect
        sol = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=list(goal)).solve(nodes=100)
        gap = np.abs(sol.simulate().y_final - sol.y[:, -1]).max()
        assert sol.success and gap <= sol.error_bound
        ratios.append(gap / sol.defect)
    assert ratios[0] > 3 and ratios[1] < 1
    section = _accuracy_section()
    assert "ends within the defect" not in section and "not a bound" in section
    assert "`sol.error_bound`" in section and f"up to {ratios[0]:.1f} times the defect" in section
