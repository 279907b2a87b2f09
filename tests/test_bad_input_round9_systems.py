"""Round 9 of bad input to the built-in systems: counts accept NumPy integers (and integral floats)
and refuse bools, fractions and strings; numbers refuse strings and bools; each names the argument."""

import numpy as np
import pytest

import nonholo as nh


@pytest.mark.parametrize("builder, name", [(nh.systems.knife_edge_chain, "N"), (nh.systems.platoon, "K")])
def test_counts_accept_numpy_integers(builder, name):
    assert builder(**{name: np.int64(2)}).n == builder(**{name: 2}).n
    assert builder(**{name: np.int32(3)}).n == builder(**{name: 3}).n


def test_trailers_accept_numpy_integers():
    trailers = nh.systems.kinematic_car_trailers
    assert trailers(np.int64(2)).state_names == trailers(2).state_names


@pytest.mark.parametrize("builder, name", [(nh.systems.knife_edge_chain, "N"), (nh.systems.platoon, "K"),
                                           (nh.systems.kinematic_car_trailers, "n_trailers")])
@pytest.mark.parametrize("bad", [True, np.True_, 2.5, "3", b"3", 1 + 0j, None, [2]])
def test_counts_refuse_what_is_no_integer(builder, name, bad):
    with pytest.raises(TypeError, match=f"{name} must be"):
        builder(**{name: bad})


@pytest.mark.parametrize("builder, name", [(nh.systems.knife_edge_chain, "N"), (nh.systems.platoon, "K")])
def test_counts_below_one_are_value_errors(builder, name):
    with pytest.raises(ValueError, match=f"{name} must be a positive integer"):
        builder(**{name: np.int64(0)})


CASES = [(nh.systems.kinematic_car, "turning_radius"), (nh.systems.kinematic_car_trailers, "turning_radius"),
         (nh.systems.kinematic_car_trailers, "hitch"), (nh.systems.polar_disk, "m"), (nh.systems.polar_disk, "R"),
         (nh.systems.polar_disk, "I"), (nh.systems.polar_disk, "J"), (nh.systems.polar_disk, "mu"),
         (nh.systems.polar_disk, "spring"), (nh.systems.polar_disk, "tilt"), (nh.systems.rattleback, "eps"),
         (nh.systems.rattleback, "friction_coefficient"), (nh.systems.tippe_top, "R"), (nh.systems.tippe_top, "eps"),
         (nh.systems.tippe_top, "friction_coefficient"), (nh.systems.whipple_bicycle, "friction_coefficient"),
         (nh.systems.ball_on_turntable, "inertia_ratio")]


@pytest.mark.parametrize("builder, name", CASES)
@pytest.mark.parametrize("bad", ["1", True])
def test_numbers_refuse_strings_and_bools(builder, name, bad):
    with pytest.raises(TypeError, match=name):
        builder(**{name: bad})


def test_numbers_still_accept_numpy_and_ints():
    assert nh.systems.kinematic_car(turning_radius=np.float64(2.0)).name
    assert nh.systems.kinematic_car(turning_radius=2).name
    assert nh.systems.polar_disk(m=np.float32(2.0), R=2).n == 4
    assert nh.systems.tippe_top(R=np.float64(0.03)).n == 6
