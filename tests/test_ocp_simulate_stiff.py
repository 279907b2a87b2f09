"""sol.simulate() of a plan whose dynamics are stiff: the re-run integrates each stiff segment with Radau.

An outside probe's sleigh, its blade a lateral force of stiffness k (no constraint: the slip is a force), planned
with least effort: sol.simulate() ran SciPy's DOP853 on every segment, held by stability at steps of about
1 / k: 5.2 s at k = 1e3, 19.8 s at 1e4, 165 s at 1e5, where Radau restarted per interval took 2 s and ended at
the same state. A segment whose (b - a) ||df/dy|| exceeds STIFF_SEGMENT now runs Radau."""

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh
from nonholo.control.kinematic import STIFF_SEGMENT

M, INERTIA, A = 1.0, 0.2, 0.3


def blade_sleigh(k):
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot")
    slip = -sp.sin(th) * xd + sp.cos(th) * yd - A * thd
    force = [F * sp.cos(th) + k * slip * sp.sin(th), F * sp.sin(th) - k * slip * sp.cos(th), tau + A * k * slip]
    return nh.System([x, y, th], sp.diag(M, M, INERTIA), force=force, parameters={F: 0.0, tau: 0.0}), (F, tau)


@pytest.mark.parametrize("k", [1e4, 10.0])
def test_the_re_run_of_a_stiff_plan_takes_radau_and_ends_where_scipy_does(k):
    system, controls = blade_sleigh(k)
    problem = nh.OptimalControlProblem(system, cost=(controls[0] ** 2 + controls[1] ** 2) / 2, t_final=4.0,
                                       controls=list(controls), initial=[0] * 6, final=[2.0, 1.0, 1.4, 0, 0, 0])
    sol = problem.solve(nodes=21)
    assert sol.success
    run = sol.simulate()

    def f(t, Y):
        u = sol.controls_at(t)[:, 0]
        c, s = np.cos(Y[2]), np.sin(Y[2])
        v = -s * Y[3] + c * Y[4] - A * Y[5]
        return [Y[3], Y[4], Y[5], (u[0] * c + k * v * s) / M, (u[0] * s - k * v * c) / M, (u[1] + A * k * v) / INERTIA]

    y = sol.y[:, 0]
    for a, b in zip(sol.t[:-1], sol.t[1:]):  # the reference: Radau restarted at the nodes, as the kinks are
        y = solve_ivp(f, (a, b), y, method="Radau", rtol=1e-11, atol=1e-13).y[:, -1]
    assert np.abs(run.y_final - y).max() < 1e-7
    stiff = (sol.t[1] - sol.t[0]) * k * (1 + A**2 / INERTIA) / M > STIFF_SEGMENT  # the blade's decay rate
    assert stiff == (k > 100)
    if stiff:  # DOP853 took about 1e5 evaluations here, held at steps of 1 / k
        assert run.nfev < 5000, run.nfev


def test_a_lightly_damped_fast_oscillation_is_no_stiffness_for_the_re_run():
    """A second probe: x' = u, z' = w, w' = -k (z - x) - 0.02 sqrt(k) w took Radau (its ||df/dy|| is large), 7.6 s
    at k = 1e4 and 29.9 s at 1e6 where DOP853 per interval took 0.9 s and 5.7 s: accuracy, not stability, holds
    the steps of an oscillation. The choice reads the eigenvalues' real parts: the same with 2 sqrt(k) (critical
    damping) is stiff."""
    x, z, w, u = sp.symbols("x z w u")
    for k in (1e6, 1e8):  # over a segment of length 1
        for damping, method in ((0.02, "DOP853"), (2.0, "Radau")):
            system = nh.KinematicSystem([x, z, w], [u], [u, w, -k * (z - x) - damping * np.sqrt(k) * w],
                                        control_bounds={"u": (-1, 1)})
            assert system._segment_method(0.0, 1.0, np.array([0.0, 0.1, 0.0]), [0.5]) == method, (k, damping)
