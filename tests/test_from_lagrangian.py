"""System.from_lagrangian (issue 28): no sympy.simplify by default, the same trajectories as
System(q, hessian(L, v)), simplification on request, and bad Lagrangians refused. Build times of
the car with trailers: benchmarks/from_lagrangian.py."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.testing import car_with_trailers


@pytest.mark.parametrize("trailers", [1, 4])
def test_car_with_trailers_same_trajectory_as_the_hessian(trailers):
    L, q, v, A, params = car_with_trailers(trailers)
    fast = nh.System.from_lagrangian(L, q, v, constraints=A, parameters=params)
    direct = nh.System(q, sp.hessian(L, v), constraints=A, parameters=params)
    assert fast.metric == direct.metric  # the Hessian itself, unsimplified
    qd0 = np.zeros(len(q))
    qd0[0], qd0[2] = 1.0, 0.4  # drive forward, steer
    y0 = np.r_[np.zeros(2), 0.1 * np.arange(trailers + 1), qd0]
    y0[len(q):] = direct.project(y0[: len(q)], y0[len(q):])
    a, b = (nh.simulate(s.nonholonomic(), (0, 2), y0, t_eval=[1.0, 2.0], method="adams") for s in (fast, direct))
    assert a.success and np.array_equal(a.y, b.y)


def test_simplify_on_request_gives_the_same_motion():
    L, q, v, A, params = car_with_trailers(1)
    plain = nh.System.from_lagrangian(L, q, v, constraints=A, parameters=params)
    nice = nh.System.from_lagrangian(L, q, v, constraints=A, parameters=params, simplify=True)
    assert sum(sp.count_ops(e) for e in nice.metric) < sum(sp.count_ops(e) for e in plain.metric)
    rng = np.random.default_rng(0)
    for _ in range(3):
        qv = rng.uniform(-1, 1, len(q))
        np.testing.assert_allclose(nice.metric_at(qv), plain.metric_at(qv), rtol=1e-13, atol=1e-13)


def test_gyroscopic_term_and_bad_lagrangians():
    x, y, xd, yd, B = sp.symbols("x y x_dot y_dot B")
    # a charge in a magnetic field B: L = 1/2 |v|^2 + B/2 (x y' - y x') gives the force B (y', -x')
    s = nh.System.from_lagrangian((xd ** 2 + yd ** 2) / 2 + B / 2 * (x * yd - y * xd), [x, y], [xd, yd],
                                  parameters={B: 2.0})
    assert sp.simplify(s.force - sp.Matrix([B * yd, -B * xd])) == sp.zeros(2, 1)
    with pytest.raises(nh.ModelError, match="not quadratic in the velocities"):
        nh.System.from_lagrangian(xd ** 4 + yd ** 2, [x, y], [xd, yd])
    with pytest.raises(nh.ModelError, match="not quadratic in the velocities|not of the form"):
        nh.System.from_lagrangian(xd ** 2 + sp.Abs(yd), [x, y], [xd, yd])


def test_a_time_dependent_linear_term_gives_its_time_derivative_as_a_force():
    """L = |v|^2 / 2 + B(t) (x y' - y x') / 2, a charge in the field B(t) = B0 + beta t along z:
    d/dt of the momentum v + g holds partial g / partial t, the induced electric field
    -(B'/2) (-y, x), which was dropped (the run ended at (1.374, -0.023) instead of (0.630,
    -0.182)). The rotations about z are a symmetry of L at every t, so the canonical angular
    momentum x y' - y x' + B(t) (x^2 + y^2) / 2 is conserved."""
    x, y, z, xd, yd, zd, t, B0, beta = sp.symbols("x y z x_dot y_dot z_dot t B0 beta")
    L = (xd**2 + yd**2 + zd**2) / 2 + (B0 + beta * t) * (x * yd - y * xd) / 2
    for time in (None, t):  # the default time symbol (named t), and given
        charge = nh.System.from_lagrangian(L, [x, y, z], [xd, yd, zd], constraints=sp.Matrix([[0, 0, 1]]),
                                           affine=sp.Matrix([0.3]), parameters={B0: 1.0, beta: 0.5}, time=time)
        run = nh.simulate(charge.nonholonomic(), (0, 5), [1, 0, 0, 0, 0.5, 0.3], t_eval=np.linspace(0, 5, 11))
        (qx, qy, _), (vx, vy, _) = run.q, run.v
        momentum = qx * vy - qy * vx + (1.0 + 0.5 * run.t) * (qx**2 + qy**2) / 2
        assert np.ptp(momentum) < 1e-8
        np.testing.assert_allclose(run.q[:2, -1], [0.62998, -0.18173], atol=1e-5)  # solve_ivp, rtol 1e-13
