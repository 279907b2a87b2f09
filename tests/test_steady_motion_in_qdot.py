"""A motion steady in body speeds (a body circling at constant speed and turning rate) changes q' in
[q, q'] coordinates: x' and y' turn with the heading. An outside probe's rolling disc in [q, q'] at a
circling motion was told to name its coordinates cyclic; named, it was told that a steady motion moves
only cyclic coordinates, "those the equations do not contain", listing the ones it had named (which
the equations contain). The refusal now says that no naming helps in [q, q'] and where the motion is
steady; a sleigh with its centre of mass on the blade (a = 0) circles the same way."""

import numpy as np
import pytest

import nonholo as nh

CIRCLING = [0, 0, 0, 1.0, 0, 0.5]  # along x at unit speed, turning at 0.5 rad/s


@pytest.mark.parametrize("cyclic", [None, ["x", "y", "phi"]])
def test_a_circling_motion_in_qdot_is_sent_to_a_model_in_speeds(cyclic):
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    with pytest.raises(ValueError, match=r"no steady motion in \[q, q'\]: linearize a model in speeds") as err:
        nh.linearize(model, CIRCLING, params={"a": 0.0}, cyclic=cyclic)
    assert "name them with cyclic" not in str(err.value)
    assert "those the equations do not contain:" not in str(err.value)


def test_a_straight_motion_in_qdot_still_linearizes():
    """The sleigh along its blade at unit speed: steady in [q, q'], its eigenvalue -m a u / (I + m a^2)."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    lin = nh.linearize(model, [0, 0, 0, 1.0, 0, 0])
    m, inertia, a = (model.params[k] for k in ("m", "I", "a"))
    assert np.min(np.abs(lin.physical_eigenvalues - (-m * a / (inertia + m * a**2)))) < 1e-10
