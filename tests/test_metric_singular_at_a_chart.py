"""A metric that fails where the coordinates do: a Mechanism's disc in the angles yaw (z), roll (x), spin
(y) lying flat (roll = pi/2: the yaw and spin axes aligned) was refused with "the metric is not positive
definite ... (failed pivot 3)" alone (an outside probe), where the pose is no fault of the body's. The
message now names the chart; an upright pose evaluates."""

import numpy as np
import pytest

import nonholo as nh


def wheel():
    mechanism = nh.multibody.Mechanism(nh.bodies.RigidBody(1.0, (0.25, 0.5, 0.25)), "disc",
                                       attitude=(("yaw", "z"), ("roll", "x"), ("spin", "y")))
    mechanism.roll_on_plane("disc", nh.surfaces.Disc(1.0, axis=(0, 1, 0)))
    return mechanism.system(gravity=1.0).nonholonomic()


def test_a_metric_singular_at_gimbal_lock_names_the_chart():
    model = wheel()
    assert model.state_names[:5] == ["x", "y", "yaw", "roll", "spin"]
    upright = np.zeros(10)
    assert np.all(np.isfinite(model.rhs(0.0, upright)))
    flat = upright.copy()
    flat[3] = np.pi / 2
    with pytest.raises(nh.ModelError, match=r"metric is not positive definite .* where the coordinates are singular "
                                            r"\(Euler angles with two of their axes aligned\)"):
        model.rhs(0.0, flat)
