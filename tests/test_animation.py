"""result.animate(): drawings of the built-in systems, user drawings, the 3-D fallback from a pose,
the HTML/JavaScript representation, files, and bad input."""

import pickle
import re

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.ball_on_turntable import ball_state


def _frames_in(html: str) -> int:
    return len(re.findall(r"frames\[\d+\] = ", html))


def _run(system, y0, T=4.0, n=41):
    return nh.simulate(system.nonholonomic(), (0, T), y0, t_eval=np.linspace(0, T, n))


@pytest.fixture(scope="module")
def sleigh_run():
    return _run(nh.systems.chaplygin_sleigh(), [0, 0, 0, -1.5, 0, 1.0])


def test_animation_has_the_frames_asked_for_and_an_html_player(sleigh_run):
    anim = sleigh_run.animate(frames=5)
    assert anim.n_frames == 5 and np.array_equal(anim.t, sleigh_run.t[[0, 10, 20, 30, 40]])
    html = anim._repr_html_()
    assert "<script" in html and _frames_in(html) == 5
    # more frames than outputs: one frame per output time
    assert sleigh_run.animate(frames=1000).n_frames == sleigh_run.t.size


def test_frames_follow_the_configuration(sleigh_run):
    """The sleigh's outline is its body polygon placed at the state's contact point and heading."""
    anim = sleigh_run.animate(frames=3)
    outline = anim._fig.axes[0].patches[0]
    for k, i in enumerate([0, 20, 40]):
        anim._func(k)
        x, y, phi = sleigh_run.q[:, i]
        # the outline's first vertex is its rear tip, sqrt(I/m) = 1 behind the contact point
        assert np.allclose(outline.get_xy()[0], [x - np.cos(phi), y - np.sin(phi)], atol=1e-12)


@pytest.mark.parametrize("system, y0", [
    (nh.systems.knife_edge_chain(3), None),
    (nh.systems.vertical_rolling_disk(), [0, 0, 0, 0, 0.5, 1.0, 0, 1.0]),
    (nh.systems.ball_on_turntable(), "ball"),
], ids=["knife_edge_chain", "vertical_rolling_disk", "ball_on_turntable"])
def test_builtin_systems_carry_their_drawing(system, y0):
    if y0 is None:
        q0 = np.zeros(system.n)
        y0 = np.r_[q0, system.project(q0, np.r_[1.0, 0.0, 0.3, np.zeros(system.n - 3)])]
    elif isinstance(y0, str):
        y0 = ball_state(system, 5.0, 0.0, 0.0, 3.0)
    anim = _run(system, y0, T=1.0, n=5).animate(frames=3)
    assert _frames_in(anim.to_jshtml()) == 3


def test_user_drawing_function_and_system_drawing():
    """A system without a drawing: a clear error; a drawing function (q, t, params) -> shapes works
    when passed, and when registered on the system (pickled with it)."""
    particle = nh.systems.planar_particle()
    sol = nh.simulate(particle.nonholonomic(), (0, 1), [1.0, 0.0, 0.0, 1.0], t_eval=np.linspace(0, 1, 6))
    with pytest.raises(ValueError, match="carries no drawing"):
        sol.animate()
    anim = sol.animate(drawing=_particle_shapes, frames=6)
    assert anim.n_frames == 6 and _frames_in(anim.to_jshtml()) == 6
    particle.drawing = nh.drawing.Drawing(_particle_shapes, trace=_particle_trace)
    clone = pickle.loads(pickle.dumps(particle))
    assert clone.drawing.shapes(np.zeros(particle.n), 0.0, {})[0].kind == "dot"
    with pytest.raises(TypeError, match="drawing must be"):
        sol.animate(drawing=42)
    with pytest.raises(ValueError, match="frames must be a positive integer"):
        sol.animate(drawing=_particle_shapes, frames=0)


def _particle_shapes(q, t, params):
    return [nh.drawing.dot(q[:2], color="tab:red")]


def _particle_trace(q, t, params):
    return [q[:2]]


def test_pose_gives_the_3d_fallback():
    """A system exposing pose(q, params) -> (position, attitude) is drawn as a body frame in 3-D."""
    x, y, th = sp.symbols("x y theta")
    system = nh.System([x, y, th], sp.eye(3))
    system.pose = _planar_pose
    sol = nh.simulate(system.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 2], t_eval=np.linspace(0, 1, 4))
    anim = sol.animate(frames=4)
    assert anim.n_frames == 4 and anim._fig.axes[0].name == "3d"
    anim._func(3)
    red = anim._fig.axes[0].lines[0].get_data_3d()  # the body x axis, from the position along R e_x
    assert np.allclose(np.array(red)[:, 1] - np.array(red)[:, 0], [np.cos(2.0), np.sin(2.0), 0.0], atol=1e-12)
    assert _frames_in(anim.to_jshtml()) == 4


def _planar_pose(q, params):
    return np.array([q[0], q[1], 0.0]), nh.drawing.rotation_z(q[2])


def test_save_gif(sleigh_run, tmp_path):
    path = tmp_path / "sleigh.gif"
    sleigh_run.animate(frames=3).save(path, writer="pillow")
    assert path.read_bytes()[:6] == b"GIF89a"


def test_combined_drawings_draw_every_part():
    """Two discs on one axle (a pair of wheels), each from its own pose, as one drawing."""
    disk = nh.systems.vertical_rolling_disk()
    left, right = (nh.drawing.rigid_body(_wheel_pose(side), radius="R", contact=_wheel_contact(side))
                   for side in (1, -1))
    sol = _run(disk, [0, 0, 0, 0, 0.5, 1.0, 0, 1.0], T=1.0, n=5)
    anim = sol.animate(drawing=nh.drawing.combine(left, right), frames=3)
    ax = anim._fig.axes[0]
    assert len(ax.collections) == 2 and len(ax.lines) == 2 + 2  # two discs with spokes, two contact paths
    assert _frames_in(anim.to_jshtml()) == 3
    with pytest.raises(ValueError, match="all planar or all in space"):
        nh.drawing.combine(left, nh.systems.chaplygin_sleigh().drawing)


class _wheel_pose:
    """The disk's pose shifted sideways by half a track width along its axle (picklable)."""

    def __init__(self, side):
        self.side = side

    def __call__(self, q, params):
        from nonholo.systems.vertical_rolling_disk import disk_pose

        position, R = disk_pose(q, params)
        return position + 0.5 * self.side * R[:, 1], R


class _wheel_contact(_wheel_pose):
    def __call__(self, q, params):
        position, R = super().__call__(q, params)
        return position - [0, 0, params["R"]]


def test_rolling_bodies_on_a_plane_are_drawn_from_their_pose():
    """roll_on_plane systems expose their pose (the rolling disc draws a disc, the Chaplygin ball its
    body axes); the pose survives pickling, and the disc's centre is drawn at height z(q)."""
    from nonholo.builders.contact import rolling_state

    disc = nh.systems.rolling_disc()
    tilted = [np.cos(0.15), np.sin(0.15), 0.0, 0.0]  # leaning by 0.3 rad about the x axis
    sol = nh.simulate(disc.nonholonomic(), (0, 0.5), rolling_state(disc, tilted, [0.0, 6.0, 0.0]),
                      t_eval=np.linspace(0, 0.5, 4))
    anim = sol.animate(frames=4)
    assert _frames_in(anim.to_jshtml()) == 4
    position, R = pickle.loads(pickle.dumps(disc)).pose(sol.q[:, 0], sol.params)
    assert np.isclose(position[2], sol["z"][0], atol=1e-12) and np.allclose(R @ R.T, np.eye(3))
    ball = nh.systems.chaplygin_ball(m=1.0, r=0.5, inertia=(0.2, 0.3, 0.45))
    sol = nh.simulate(ball.nonholonomic(), (0, 0.5), rolling_state(ball, [1, 0, 0, 0], [1.0, 2.0, 0.5]),
                      t_eval=np.linspace(0, 0.5, 3))
    assert _frames_in(sol.animate(frames=3).to_jshtml()) == 3


def test_a_drawing_with_no_finite_point_is_refused_by_name(sleigh_run):
    """A drawing whose points are NaN at every frame: a ValueError naming the drawing (it was NumPy's
    'zero-size array to reduction operation'); one finite point in some frame still draws."""
    with pytest.raises(ValueError, match="drawing: no point of the drawing"):
        sleigh_run.animate(lambda q, t, p: [nh.drawing.dot([np.nan, np.nan])], frames=3)
    anim = sleigh_run.animate(lambda q, t, p: [nh.drawing.dot([np.nan, np.nan] if t > 0 else [0.0, 0.0])], frames=3)
    assert anim.n_frames == 3


@pytest.mark.parametrize("returned", [5, None, "dot", [1, 2]])
def test_a_drawing_function_that_returns_no_shapes_is_named(sleigh_run, returned):
    """A drawing function returning 5 gave a bare "'int' object is not iterable"."""
    run = sleigh_run

    def draw(q, t, params):
        return returned

    with pytest.raises(TypeError, match=r"the drawing's function draw must return a list of shapes"):
        run.animate(drawing=draw)
    good = run.animate(drawing=lambda q, t, params: [nh.drawing.dot((q[0], q[1]))])  # a list of shapes: drawn
    assert good is not None
