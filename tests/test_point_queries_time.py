"""Queries at one point of a system that depends on time need t: taking t = 0 silently was wrong.

``system.multipliers(q, v)`` defaults to t = 0, so on a system whose force or affine constraint
part b contains t it returned the multipliers of another time without a word (an outside probe's
sleigh on a moving belt with a time-varying torque: 2.1 off). Without ``t`` such a system now
warns, naming ``t``; a system that does not depend on time needs none (no warning: pytest's
filterwarnings is error)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, t, m = sp.symbols("x y t m")


def particle(force, affine=None):
    """A particle of mass m in the plane whose y-velocity is prescribed: y' = b(t)."""
    return nh.System([x, y], sp.diag(m, m), constraints=sp.Matrix([[0, 1]]), affine=affine,
                     force=sp.Matrix(force), parameters={m: 2.0}, time=t)


def test_a_time_dependent_force_needs_t_and_gives_the_multiplier_at_t():
    system = particle([0, sp.sin(t)])  # m y'' = sin t + lambda = 0
    q, v = [0.3, -0.2], [1.0, 0.0]
    with pytest.warns(UserWarning, match="t not given: taking t = 0"):
        system.multipliers(q, v)
    for time in (0.0, 1.1, 3.0):
        assert np.isclose(system.multipliers(q, v, t=time)[0], -np.sin(time), rtol=0, atol=1e-14)
    with pytest.warns(UserWarning, match="t not given: taking t = 0"):
        system.slip(q, v, order=1)
    assert np.allclose(system.project(q, [1.0, 0.5]), [1.0, 0.0])  # b = 0: the projection needs no t


def test_a_time_dependent_affine_part_needs_t():
    system = particle([0, 0], affine=sp.Matrix([sp.cos(t)]))  # y' = cos t: m y'' = -m sin t = lambda
    q = [0.0, 0.0]
    with pytest.warns(UserWarning, match="t not given: taking t = 0"):
        system.project(q, [1.0, 0.0])
    with pytest.warns(UserWarning, match="t not given: taking t = 0"):
        system.constraint_matrix(q)
    assert np.allclose(system.project(q, [1.0, 0.0], t=np.pi / 3), [1.0, 0.5])
    assert np.allclose(system.constraint_matrix(q, t=np.pi)[1], [-1.0])
    assert np.isclose(system.multipliers(q, [1.0, np.cos(2.0)], t=2.0)[0], -2.0 * np.sin(2.0), atol=1e-14)
    assert np.allclose(system.metric_at(q), 2.0 * np.eye(2))  # G has no t


def test_a_system_that_does_not_depend_on_time_needs_no_t():
    system = particle([0, 1.5])
    q, v = [0.3, -0.2], [1.0, 0.0]
    assert np.isclose(system.multipliers(q, v)[0], -1.5)
    assert np.array_equal(system.multipliers(q, v), system.multipliers(q, v, t=7.0))
