"""The built-in systems refuse a mass, an inertia, a length or a radius that is not positive, and a
friction coefficient or a spring that is negative, naming the argument (adversarial round 14: eleven
builders took m = 0 and m = -1; differential_drive(r=0) and knife_edge_chain(l=-1) then simulated
"successfully", a wheel of radius 0 spinning in place). Offsets (a, d) and gravity along a slope may
have either sign, and the defaults build."""

import math

import pytest

import nonholo as nh

REFUSED = [
    ("chaplygin_sleigh", {"m": 0}, "m must be positive"),
    ("chaplygin_sleigh", {"I": 0}, "I must be positive"),  # the metric's determinant is m^2 I
    ("chaplygin_sleigh", {"mu": -1}, "mu must be non-negative"),
    ("chaplygin_sleigh", {"m": "1"}, "m must be a real number"),
    ("vertical_rolling_disk", {"R": 0}, "R must be positive"),
    ("vertical_rolling_disk", {"J": -0.5}, "J must be positive"),
    ("heisenberg", {"mass": 0}, "mass must be positive"),
    ("snakeboard", {"J_w": -1}, "J_w must be positive"),
    ("snakeboard", {"k": -1}, "k must be non-negative"),
    ("differential_drive", {"r": 0}, "r must be positive"),
    ("differential_drive", {"b": math.inf}, "b must be finite"),
    ("knife_edge_chain", {"l": -1}, "l must be positive"),
    ("knife_edge_chain", {"m": 0}, "m must be positive"),
    ("polar_disk", {"mu": math.inf}, "mu must be finite"),
    ("polar_disk", {"m": 0}, "m must be positive"),
    ("inclined_knife_edge", {"J": 0}, "J must be positive"),
]


@pytest.mark.parametrize("builder, arguments, message", REFUSED)
def test_a_non_physical_argument_is_refused_by_name(builder, arguments, message):
    with pytest.raises((ValueError, TypeError), match=message):
        getattr(nh.systems, builder)(**arguments)


@pytest.mark.parametrize("builder, arguments", [
    ("chaplygin_sleigh", {}), ("chaplygin_sleigh", {"a": -0.2}), ("differential_drive", {"d": -0.1}),
    ("knife_edge_chain", {"I": 0.0}), ("inclined_knife_edge", {"g": -1.0}), ("snakeboard", {"k": 0.0}),
    ("vertical_rolling_disk", {}), ("heisenberg", {}), ("polar_disk", {}),
])
def test_offsets_and_slopes_of_either_sign_and_the_defaults_build(builder, arguments):
    system = getattr(nh.systems, builder)(**arguments)
    assert set(arguments) <= set(system.parameter_names)  # each kept as a runtime parameter, with its value
    for name, value in arguments.items():
        assert float(system.parameters[system.symbol(name)]) == value


@pytest.mark.parametrize("builder, arguments, message", [
    ("ball_on_turntable", {"inertia_ratio": math.inf}, "inertia_ratio must be finite"),  # it said "kappa"
    ("ball_on_turntable", {"m": 0}, "m must be positive"),
    ("rolling_disc", {"r": 1e300}, r"A = m r\^2 / 4 from m and r is inf"),  # a raw OverflowError before
    ("rolling_disc", {"r": "1"}, "r must be a real number"),
    ("tippe_top", {"R": 0}, "R must be positive"),
    ("tippe_top", {"R": 1e300}, r"I3 = 2/5 m R\^2 from m and R is inf"),
    ("whipple_bicycle_linear", {"speed": 1e300}, "from speed is inf"),
])
def test_builders_with_symbols_allowed_check_their_numbers(builder, arguments, message):
    with pytest.raises((ValueError, TypeError), match=message):
        getattr(nh.systems, builder)(**arguments)
