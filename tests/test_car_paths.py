"""nh.analysis.reeds_shepp_* and dubins_*: the car's shortest paths in closed form.

The oracle is independent of the module: a path is driven segment by segment with this file's own
closed-form arcs, and must land on the goal; lengths are checked at exact cases, against the
symmetries of the problem (reflection, time reversal, scaling), the triangle inequality, a lower
bound (the distance and the heading change) and an upper bound (a left-straight-left path built
here from the tangent of the two left turning circles).
"""

import math

import numpy as np
import pytest

import nonholo as nh

RS, DUBINS = nh.analysis.reeds_shepp_length, nh.analysis.dubins_length
PI = math.pi


def wrap(a):
    return (a + PI) % (2 * PI) - PI


def drive(start, path, R):
    """The end pose of ``path``'s segments driven from ``start``, by this file's own arcs."""
    x, y, th = start
    for letter, sign, length in zip(path.word[0::2], path.word[1::2], path.lengths):
        s = length if sign == "+" else -length
        if letter == "S":
            x, y = x + s * math.cos(th), y + s * math.sin(th)
        else:
            k = 1.0 if letter == "L" else -1.0  # left: centre at R (-sin th, cos th)
            cx, cy = x - k * R * math.sin(th), y + k * R * math.cos(th)
            th = th + k * s / R
            x, y = cx + k * R * math.sin(th), cy - k * R * math.cos(th)
    return np.array([x, y, th])


def random_pose(rng, spread=5.0):
    return np.r_[rng.uniform(-spread, spread, 2), rng.uniform(-PI, PI)]


def lands(start, goal, path, R):
    end = drive(start, path, R)
    return max(abs(end[0] - goal[0]), abs(end[1] - goal[1]), abs(wrap(end[2] - goal[2])))


@pytest.mark.parametrize("which", ["rs", "dubins"])
def test_paths_land_on_the_goal_at_200_random_goals(which):
    """The returned segments, driven from the start with closed-form arcs, end at the goal to
    1e-10, and the segment lengths add up to the length."""
    find = nh.analysis.reeds_shepp_path if which == "rs" else nh.analysis.dubins_path
    rng = np.random.default_rng(44)
    words = set()
    for _ in range(200):
        start, goal, R = random_pose(rng), random_pose(rng), rng.uniform(0.3, 3.0)
        path = find(start, goal, turning_radius=R)
        assert lands(start, goal, path, R) < 1e-10
        assert path.length == pytest.approx(sum(path.lengths), rel=1e-14)
        assert len(path.word) == 2 * len(path.lengths) and len(path.lengths) <= 5
        if which == "dubins":
            assert "-" not in path.word and len(path.lengths) <= 3
        words.add(path.word.replace("+", "").replace("-", ""))
    # many kinds of word are the shortest somewhere: the families are all in use
    assert len(words) >= (12 if which == "rs" else 5)


def test_sample_follows_the_path():
    """CarPath.sample: the first pose is the start, the last the goal, the poses are one arc-length
    step apart in the plane at most, and each matches this file's drive of the truncated path."""
    start, goal = np.array([1.0, -0.5, 0.3]), np.array([-1.0, 2.0, -2.0])
    path = nh.analysis.reeds_shepp_path(start, goal, turning_radius=0.8)
    s, poses = path.sample(401)
    assert s[0] == 0 and s[-1] == pytest.approx(path.length)
    assert np.allclose(poses[0], start, atol=1e-14)
    assert np.allclose(poses[-1, :2], goal[:2], atol=1e-10) and abs(wrap(poses[-1, 2] - goal[2])) < 1e-10
    steps = np.hypot(*np.diff(poses[:, :2], axis=0).T)
    assert np.all(steps <= np.diff(s) * (1 + 1e-9))
    v = [(1.0 if g == "+" else -1.0) for g in path.word[1::2]]
    kappa = [{"L": 1 / 0.8, "R": -1 / 0.8, "S": 0.0}[c] for c in path.word[0::2]]
    assert path.controls == [(a, b, L) for a, b, L in zip(v, kappa, path.lengths)]


@pytest.mark.parametrize("R", [1.0, 2.5])
def test_exact_cases(R):
    """Straight ahead and behind, pure arcs (whose heading change bounds the length from below),
    the U-turn, and start == goal."""
    O = [0.0, 0.0, 0.0]
    assert RS(O, [3.0, 0, 0], R) == pytest.approx(3.0, abs=1e-12)
    assert RS(O, [-3.0, 0, 0], R) == pytest.approx(3.0, abs=1e-12)
    assert DUBINS(O, [3.0, 0, 0], R) == pytest.approx(3.0, abs=1e-12)
    assert nh.analysis.reeds_shepp_path(O, [-3.0, 0, 0], R).word == "S-"
    for a in (0.3, 1.0, 2.0, 3.0):
        arc = [R * math.sin(a), R * (1 - math.cos(a)), a]
        assert RS(O, arc, R) == pytest.approx(R * a, abs=1e-12)
        assert DUBINS(O, arc, R) == pytest.approx(R * a, abs=1e-12)
        assert nh.analysis.dubins_path(O, arc, R).word == "L+"
        back_left = [-R * math.sin(a), R * (1 - math.cos(a)), -a]  # steering left, driven backward
        assert RS(O, back_left, R) == pytest.approx(R * a, abs=1e-12)
        assert nh.analysis.reeds_shepp_path(O, back_left, R).word == "L-"
    assert RS(O, [0, 2 * R, PI], R) == pytest.approx(PI * R, abs=1e-12)  # the U-turn
    assert DUBINS(O, [0, 2 * R, PI], R) == pytest.approx(PI * R, abs=1e-12)
    # a right U-turn then straight on: the forward car turns through pi, then drives on
    assert DUBINS(O, [-1.5, -2 * R, PI], R) == pytest.approx(PI * R + 1.5, abs=1e-12)
    assert RS([1, 2, 3], [1, 2, 3], R) == 0 and nh.analysis.reeds_shepp_path([1, 2, 3], [1, 2, 3], R).word == ""


def test_dubins_turns_around_where_reeds_shepp_reverses():
    """Behind the car, Dubins must turn round: its heading passes pi / 2 and comes back, so its
    arcs alone are pi long at least, and the path is longer than the straight reverse."""
    path = nh.analysis.dubins_path([0, 0, 0], [-3.0, 0, 0])
    arcs = sum(L for c, L in zip(path.word[0::2], path.lengths) if c != "S")
    assert arcs >= PI - 1e-12 and path.length > 3.0
    assert RS([0, 0, 0], [-3.0, 0, 0]) == pytest.approx(3.0)


def test_symmetries_at_random_poses():
    """Reflection y -> -y, theta -> -theta of both poses; a rigid motion of both; time reversal
    (Reeds-Shepp: length(a, b) = length(b, a); Dubins: length(a, b) = length(b + pi, a + pi), the
    path driven back with the headings turned round); scaling of poses and radius together."""
    rng = np.random.default_rng(1)
    for _ in range(150):
        a, b = random_pose(rng), random_pose(rng)
        R = rng.uniform(0.5, 2.0)
        flip = np.array([1.0, -1.0, -1.0])
        turn = rng.uniform(-PI, PI)
        c, s = math.cos(turn), math.sin(turn)
        shift = rng.normal(size=2)

        def moved(p):
            return np.r_[c * p[0] - s * p[1] + shift[0], s * p[0] + c * p[1] + shift[1], p[2] + turn]

        k = rng.uniform(0.2, 5.0)
        for f in (RS, DUBINS):
            L = f(a, b, R)
            assert f(a * flip, b * flip, R) == pytest.approx(L, rel=1e-9)
            assert f(moved(a), moved(b), R) == pytest.approx(L, rel=1e-9)
            assert f(np.r_[k * a[:2], a[2]], np.r_[k * b[:2], b[2]], k * R) == pytest.approx(k * L, rel=1e-9)
        assert RS(b, a, R) == pytest.approx(RS(a, b, R), rel=1e-9)
        assert DUBINS(b + [0, 0, PI], a + [0, 0, PI], R) == pytest.approx(DUBINS(a, b, R), rel=1e-9)


def test_triangle_inequality_and_continuity():
    """length(a, c) <= length(a, b) + length(b, c) at random triples, and with b a small
    perturbation of c (which also bounds the jump of the length at c: a missing word shows up as
    a jump)."""
    rng = np.random.default_rng(2)
    for _ in range(300):
        a, b, c = random_pose(rng), random_pose(rng), random_pose(rng)
        near = c + rng.normal(scale=1e-2, size=3)
        for f in (RS, DUBINS):
            assert f(a, c) <= f(a, b) + f(b, c) + 1e-9
            assert f(a, c) <= f(a, near) + f(near, c) + 1e-9
            assert f(a, near) <= f(a, c) + f(c, near) + 1e-9


def test_bounds_reeds_shepp_below_dubins():
    """distance and R |heading change| <= Reeds-Shepp <= Dubins <= a left-straight-left path
    built here (the outer tangent of the two left turning circles), which lands on the goal."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        a, b = random_pose(rng), random_pose(rng)
        R = rng.uniform(0.5, 2.0)
        rs, du = RS(a, b, R), DUBINS(a, b, R)
        assert max(math.hypot(*(b[:2] - a[:2])), R * abs(wrap(b[2] - a[2]))) <= rs + 1e-12
        assert rs <= du + 1e-12
        c1 = a[:2] + R * np.array([-math.sin(a[2]), math.cos(a[2])])
        c2 = b[:2] + R * np.array([-math.sin(b[2]), math.cos(b[2])])
        heading = math.atan2(*(c2 - c1)[::-1])
        t, u, v = (heading - a[2]) % (2 * PI), float(np.linalg.norm(c2 - c1)), (b[2] - heading) % (2 * PI)
        lsl = nh.analysis.CarPath("L+S+L+", (R * t, u, R * v), R * t + u + R * v, R, tuple(a))
        assert lands(a, b, lsl, R) < 1e-10
        assert du <= lsl.length + 1e-12


@pytest.mark.parametrize("bad, match", [
    (dict(start=[0, 0]), "start"), (dict(goal=[0, 0, 0, 1]), "goal"), (dict(goal=[0, np.nan, 0]), "goal"),
    (dict(turning_radius=0.0), "turning_radius"), (dict(turning_radius=-1), "turning_radius"),
    (dict(turning_radius="a"), "turning_radius"),
])
def test_bad_input_names_the_argument(bad, match):
    args = dict(start=[0, 0, 0], goal=[1, 1, 0], turning_radius=1.0) | bad
    for f in (RS, DUBINS, nh.analysis.reeds_shepp_path, nh.analysis.dubins_path):
        with pytest.raises((ValueError, TypeError), match=match):
            f(**args)
