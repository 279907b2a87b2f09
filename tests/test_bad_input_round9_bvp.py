"""Round 9 of bad input to vakonomic_bvp: a huge ``segments`` is refused before the shooting (it hung),
and a model in place of the system is a TypeError naming the argument."""

import numpy as np
import pytest

import nonholo as nh


@pytest.fixture(scope="module")
def heisenberg():
    return nh.systems.heisenberg()


def test_huge_segments_are_refused_at_once(heisenberg):
    with pytest.raises(ValueError, match="segments"):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], [1, 0, 0.1], 1.0, segments=10**6)


def test_segments_beyond_the_memory_are_refused(heisenberg):
    with pytest.raises(ValueError, match="segments.*GB"):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], [1, 0, 0.1], 1.0, segments=10**9)


def test_segments_beyond_n_points_are_refused(heisenberg):
    with pytest.raises(ValueError, match="segments.*n_points"):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], [1, 0, 0.1], 1.0, segments=50, n_points=11)


def test_usual_segments_still_run(heisenberg):
    r = nh.vakonomic_bvp(heisenberg, [0, 0, 0], [1, 0, 0.1], 1.0, segments=np.int64(10))
    assert r.endpoint_error < 1e-8
    r = nh.vakonomic_bvp(heisenberg, [0, 0, 0], [1, 0, 0.1], 1.0)  # the default: single shooting
    assert r.endpoint_error < 1e-8


def test_a_model_is_not_a_system(heisenberg):
    with pytest.raises(TypeError, match="system"):
        nh.vakonomic_bvp(heisenberg.vakonomic(), [0, 0, 0], [1, 0, 0.1], 1.0)
    with pytest.raises(TypeError, match="system"):
        nh.vakonomic_bvp("heisenberg", [0, 0, 0], [1, 0, 0.1], 1.0)
