"""Rolling bodies report lean and heading: continuous along a run, against the closed-form steady
motion of the rolling disc and against the attitude at random points."""

import pickle

import numpy as np
import pytest

import nonholo as nh

OPTS = dict(rtol=1e-11, atol=1e-12)


def steady_disc_state(system, beta: float, Omega: float, m=1.0, r=1.0, A=0.25, C=0.5, g=9.81):
    """The disc leaning by beta (its plane from the vertical, towards +y) whose heading turns at Omega:
    with n its axis and the angular velocity Omega e_z + s n, the moment balance about G gives
    s = (Omega^2 sin(beta) (C - A + m r^2) + m g r tan(beta)) / (Omega (C + m r^2))."""
    s = (Omega**2 * np.sin(beta) * (C - A + m * r**2) + m * g * r * np.tan(beta)) / (Omega * (C + m * r**2))
    R = np.array([[1, 0, 0], [0, np.cos(beta), np.sin(beta)], [0, -np.sin(beta), np.cos(beta)]])
    omega = Omega * np.array([0, 0, 1.0]) + s * R[:, 1]
    return nh.contact.rolling_state(system, nh.bodies.quaternion_from_euler(0, 0, -beta), R.T @ omega)


@pytest.mark.parametrize("beta, Omega", [(0.3, 1.5), (-0.6, 2.5)])
def test_disc_lean_and_heading_follow_the_steady_motion_through_several_revolutions(beta, Omega):
    disc = nh.systems.rolling_disc()
    T = 4 * 2 * np.pi / Omega  # four turns of the heading, many more of the wheel
    t = np.linspace(0, T, 2001)
    run = nh.simulate(disc.nonholonomic(), (0, T), steady_disc_state(disc, beta, Omega), t_eval=t, **OPTS)
    assert np.abs(run["lean"] + beta).max() < 1e-6  # the disc's axis points down by beta: lean = -beta
    assert np.abs(run["heading"] - Omega * t).max() < 1e-6  # unwrapped: it advances by 8 pi
    assert np.abs(np.diff(run["heading"])).max() < 1.01 * Omega * (t[1] - t[0])
    # the Euler "roll" is the body's z-y-x angle, not the lean: it swings far from it as the disc turns
    assert np.abs(run["roll"] + beta).max() > 0.5


def test_upright_disc_lean_has_no_jumps_where_the_roll_angle_does():
    """Rolling straight and upright through several wheel revolutions, lean = 0 and heading constant,
    while the z-y-x roll angle jumps by pi where the pitch passes +-pi/2."""
    disc = nh.systems.rolling_disc()
    y0 = nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0.4, 0, 0), [0, 6.0, 0])
    t = np.linspace(0, 5, 1001)
    run = nh.simulate(disc.nonholonomic(), (0, 5), y0, t_eval=t, **OPTS)
    assert np.abs(run["lean"]).max() < 1e-8 and np.abs(run["heading"] - 0.4).max() < 1e-8
    assert np.abs(np.diff(run["roll"])).max() > 3  # the old output's jumps (4.8 revolutions)


def test_lean_and_heading_at_random_attitudes():
    """For a disc: sin(lean) = (R e)_z and the heading is the azimuth of e x e_z; for any other surface:
    cos(lean) = (R e_3)_z, the heading the azimuth of R e_1 (modulo 2 pi)."""
    rng = np.random.default_rng(3)
    quats = rng.standard_normal((4, 50))
    q = np.vstack([np.zeros((2, 50)), quats])
    R = nh.bodies.rotation_matrices(quats)
    disc, top = nh.systems.rolling_disc(), nh.systems.tippe_top()
    e = R[:, :, 1]  # the disc's axis e_y in space
    assert np.sin(disc.outputs["lean"](q, None, {})) == pytest.approx(e[:, 2], abs=1e-12)
    heading = disc.outputs["heading"](q, None, {})
    rolling_direction = np.cross(e, [0, 0, 1])
    assert np.cos(heading) * np.hypot(*rolling_direction[:, :2].T) == pytest.approx(rolling_direction[:, 0], abs=1e-12)
    assert np.sin(heading) * np.hypot(*rolling_direction[:, :2].T) == pytest.approx(rolling_direction[:, 1], abs=1e-12)
    lean = top.outputs["lean"](q, None, {})
    assert np.cos(lean) == pytest.approx(R[:, 2, 2], abs=1e-12) and np.all((lean >= 0) & (lean <= np.pi))
    heading = top.outputs["heading"](q, None, {})
    assert np.exp(1j * heading) == pytest.approx(np.exp(1j * np.arctan2(R[:, 1, 0], R[:, 0, 0])), abs=1e-12)
    copy = pickle.loads(pickle.dumps(disc))
    assert np.array_equal(copy.outputs["heading"](q, None, {}), disc.outputs["heading"](q, None, {}))


def test_tippe_top_lean_is_the_tilt_of_its_symmetry_axis():
    """The tippe top's lean is the angle of its symmetry axis from the vertical: arccos of e3z."""
    top = nh.systems.tippe_top()
    y0 = nh.contact.rolling_state(top, nh.bodies.quaternion_from_euler(0, 0.1, 0), [0, 0, 20.0])
    run = nh.simulate(top.nonholonomic(), (0, 0.5), y0, t_eval=np.linspace(0, 0.5, 101), **OPTS)
    R = nh.bodies.rotation_matrices(run.q[2:6])
    assert run["lean"][0] == pytest.approx(0.1, abs=1e-12)
    assert np.cos(run["lean"]) == pytest.approx(R[:, 2, 2], abs=1e-12)
    assert np.abs(np.diff(run["heading"])).max() < np.pi / 2  # unwrapped (20 rad/s spin, 0.005 s steps)
