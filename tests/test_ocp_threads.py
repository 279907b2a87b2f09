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


def test_one_fresh_problem_solved_from_two_threads_at_once():
    """Two threads solving the same never-solved problem: its functions are built on the first solve, and
    the second thread found them half built (AttributeError: no attribute '_f', 4 of 4 runs of an outside
    probe). Each round builds a car with expressions not compiled before (its curvature scaled by 1 + i / 10),
    so that the functions are built inside the race; both threads get the answer of a solve in turn."""
    import threading

    import sympy as sp

    x, y, th, v, k = sp.symbols("x y theta v kappa")
    for i in range(3):
        car = nh.KinematicSystem([x, y, th], [v, k], [v * sp.cos(th), v * sp.sin(th), v * k * (1 + i / 10)],
                                 control_bounds={"v": (-1, 1), "kappa": (-1, 1)})
        problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5])
        out, barrier = {}, threading.Barrier(2)

        def work(j, problem=problem, out=out, barrier=barrier):
            barrier.wait()
            try:
                out[j] = problem.solve(nodes=50).t_final
            except Exception as err:  # noqa: BLE001 -- recorded and asserted below
                out[j] = repr(err)

        threads = [threading.Thread(target=work, args=(j,)) for j in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        serial = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, 0.5]).solve(nodes=50)
        assert out == {0: serial.t_final, 1: serial.t_final}
