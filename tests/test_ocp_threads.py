"""Optimal control problems solved in threads at once (a sweep's default, or the caller's pool) give
each its own answer: IPOPT's linear solver (Debian's sequential MUMPS) keeps global state, and two
solves at once crashed the interpreter (a segmentation fault in dmumps_load_update, 9 runs of 10);
the solves now take turns."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

import nonholo as nh


def park(goal):
    problem = nh.OptimalControlProblem(nh.systems.kinematic_car(), initial=[0, 0, 0], final=goal)
    return problem.solve(nodes=30)


def test_solves_in_threads_agree_with_solves_in_turn():
    goals = [[4, 1, 0.5], [3, -1, 0.2], [4, 1, 0.5], [5, 0.5, -0.3]]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(park, goals))
    alone = [park(goal) for goal in goals[:2]]  # the default: one solve at a time
    assert all(s.success for s in threaded + alone)
    np.testing.assert_allclose([s.t_final for s in threaded[:2]], [s.t_final for s in alone], rtol=1e-9)
    np.testing.assert_allclose(threaded[0].t_final, threaded[2].t_final, rtol=1e-9)
