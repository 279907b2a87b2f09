"""result.acceleration() is the acceleration of the run's own motion, for every model kind: checked
against the derivative of the run's velocity and, for the frame-vakonomic model, against the
vakonomic model in coordinates, on a knife edge on an incline written here in plain SymPy."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def knife_on_incline():
    x, y, phi = sp.symbols("x y phi")
    m, J, g, alpha = sp.symbols("m J g alpha", positive=True)
    return nh.System([x, y, phi], sp.diag(m, m, J), potential=-m * g * sp.sin(alpha) * x,
                     constraints=sp.Matrix([[sp.sin(phi), -sp.cos(phi), 0]]),
                     parameters={m: 1.0, J: 0.5, g: 9.81, alpha: 0.3}, name="knife on an incline")


def derivative_of_velocity(result):
    """d/dt of the stored velocity by fourth-order central differences (interior samples)."""
    v, h = result.velocity, result.t[1] - result.t[0]
    return (-v[:, 4:] + 8 * v[:, 3:-1] - 8 * v[:, 1:-3] + v[:, :-4]) / (12 * h)


T = np.linspace(0.0, 4.0, 2001)


@pytest.mark.parametrize("kind", ["nonholonomic", "vakonomic"])
def test_acceleration_is_the_derivative_of_the_runs_velocity(kind):
    s = knife_on_incline()
    y0 = [0, 0, 0, 0.7, 0, 1.3] + ([0.4] if kind == "vakonomic" else [])
    r = nh.simulate(getattr(s, kind)(), (0, 4), y0, t_eval=T, rtol=1e-11, atol=1e-13)
    a = r.acceleration()
    assert a.shape == (3, T.size)
    scale = np.abs(a).max()
    assert np.abs(a[:, 2:-2] - derivative_of_velocity(r)).max() < 1e-6 * scale
    if kind == "vakonomic":
        # the vakonomic motion with lambda(0) != 0 is not the nonholonomic one: the nonholonomic
        # right-hand side at the same (q, v), which this accessor returned before, is far off
        nonholonomic = np.array([s.nonholonomic().rhs(t, r.y[:6, i])[3:] for i, t in enumerate(T)]).T
        assert np.abs(nonholonomic - a).max() > 0.1 * scale


def test_frame_vakonomic_acceleration_is_the_vakonomic_one_across_resplits():
    s = knife_on_incline()
    frame_run = nh.simulate(nh.frames.AnholonomicFrame(s).vakonomic(), (0, 4), [0, 0, 0, 0.7, 1.3, 0.4],
                            t_eval=T, rtol=1e-11, atol=1e-13)
    assert frame_run.frame_switches  # the Voronets frame is re-split on the way
    # the same motion in coordinates: lambda(0) = A_s^-T mu(0) with the split's block A_s = -cos(0)
    coordinates = nh.simulate(s.vakonomic(), (0, 4), [0, 0, 0, *frame_run.velocity[:, 0], -0.4], t_eval=T,
                              rtol=1e-11, atol=1e-13)
    assert np.abs(frame_run.q - coordinates.q).max() < 1e-8
    a = frame_run.acceleration()
    scale = np.abs(a).max()
    assert np.abs(a - coordinates.acceleration()).max() < 1e-7 * scale
    assert np.abs(a[:, 2:-2] - derivative_of_velocity(frame_run)).max() < 1e-6 * scale
    # the default Hamel model of the same frame: exact through the nonholonomic model
    hamel = nh.simulate(nh.frames.AnholonomicFrame(s).hamel(), (0, 4), [0, 0, 0, 0.7, 1.3], t_eval=T,
                        rtol=1e-11, atol=1e-13)
    assert np.abs(hamel.acceleration()[:, 2:-2] - derivative_of_velocity(hamel)).max() < 1e-6 * np.abs(
        hamel.acceleration()).max()
