"""A solution's multipliers carried to another mesh (nonholo.control.warm_start): IPOPT's warm start
from a coarser optimum, the default's coarse-to-full step and the multipliers' mesh scaling.

Oracles: the identity on the same mesh (the carried multipliers are the solution's), the mesh
independence of the multipliers' continuous counterparts (a coarse optimum's multipliers carried
to a finer mesh are close to the finer optimum's own: a wrong scaling is off by the mesh ratio),
and the cold start's optimum."""

import numpy as np
import pytest

import nonholo as nh
from nonholo.control.transcription import scheme
from nonholo.control.warm_start import carried_multipliers, point_weights


@pytest.fixture(scope="module")
def car_problem():
    """The car to a goal it reaches with its curvature and speed bounds active (bound multipliers)."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    return nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.0, 1.0, 0.8])


@pytest.fixture(scope="module")
def energy_problem():
    """The car's energy to a goal in a fixed time, its heading bound active on part of the way."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    return nh.OptimalControlProblem(car, cost="energy", t_final=4.0, initial=[0, 0, 0], final=[3.0, 1.0, 0.0],
                                    state_bounds={"theta": (-0.45, 0.45)})


def _carry(problem, sol, method, nodes):
    """The carried (lambda, z_lo, z_hi) on a uniform mesh of ``nodes`` and the fine NLP's bounds."""
    fine = problem.solve(nodes=nodes, method=method, guess=sol)
    w = fine._warm
    dtau = np.full(nodes - 1, 1.0 / (nodes - 1))
    carried = carried_multipliers(sol, problem, scheme(method), dtau, w["n_gamma"], w["x_lo"], w["x_hi"],
                                  fine.multipliers.size)
    return fine, carried


def test_point_weights_sum_to_one():
    tau = np.sort(np.concatenate([[0.0, 1.0], np.random.default_rng(1).uniform(size=9)]))
    w = point_weights(tau)
    assert w.sum() == pytest.approx(1.0, rel=1e-14)
    assert w[0] == pytest.approx((tau[1] - tau[0]) / 2, rel=1e-14)


@pytest.mark.parametrize("method", ["trapezoid", "hermite-simpson", "backward-euler"])
def test_same_mesh_carries_the_solution_s_own_multipliers(car_problem, method):
    sol = car_problem.solve(nodes=21, method=method, guess="line")
    assert sol.success, sol.message
    w = sol._warm
    lam, z_lo, z_hi = carried_multipliers(sol, car_problem, scheme(method), sol.dtau, w["n_gamma"], w["x_lo"],
                                          w["x_hi"], sol.multipliers.size)
    np.testing.assert_allclose(lam, sol.multipliers, rtol=1e-12, atol=1e-14)
    free = w["x_hi"] > w["x_lo"]  # a fixed end variable's multiplier is not carried (IPOPT drops it)
    for carried, own, bound in ((z_lo, w["z"][0], w["x_lo"]), (z_hi, w["z"][1], w["x_hi"])):
        keep = free & np.isfinite(bound)
        np.testing.assert_allclose(carried[keep], own[keep], rtol=1e-12, atol=1e-14)
        assert np.all(carried[~np.isfinite(bound)] == 0.0)


@pytest.mark.parametrize("method", ["trapezoid", "hermite-simpson"])
def test_carried_multipliers_approximate_the_finer_optimum_s(energy_problem, method):
    """Costates are mesh independent, per-point multipliers scale with h: the coarse optimum's,
    carried to a mesh twice as fine, are within 10% of that optimum's own (the O(h) ones would be
    off by 2x with the costates' scaling, the Hermite interpolant's too)."""
    coarse = energy_problem.solve(nodes=41, method=method, guess="line")
    assert coarse.success, coarse.message
    fine, (lam, z_lo, z_hi) = _carry(energy_problem, coarse, method, 81)
    assert fine.success, fine.message
    scale = np.max(np.abs(fine.multipliers))
    assert np.max(np.abs(lam - fine.multipliers)) < 0.1 * scale
    n_def = 80 * len(scheme(method).stencils) * 3
    for d in range(len(scheme(method).stencils)):  # each stencil's block on its own scale
        block = fine.multipliers[:n_def].reshape(80, -1, 3)[:, d]
        assert np.max(np.abs(lam[:n_def].reshape(80, -1, 3)[:, d] - block)) < 0.1 * np.max(np.abs(block))
    # the heading's upper bound is active near a point: its multipliers' sum (the bound's force
    # over the way, mesh independent) is carried
    own = fine._warm["z"][1]
    assert own.max() > 1e-4
    assert abs(z_hi.sum() - own.sum()) < 0.15 * own.sum()


def test_warm_start_reaches_the_cold_optimum_in_fewer_iterations(car_problem):
    coarse = car_problem.solve(nodes=31, guess="heading")
    assert coarse.success, coarse.message
    cold = car_problem.solve(nodes=121, guess="heading")
    primal = car_problem.solve(nodes=121, guess=coarse)  # the default: the coarse point, IPOPT's multipliers
    warm = car_problem.solve(nodes=121, guess=coarse, warm_multipliers=True)
    assert cold.success and primal.success and warm.success, (cold.message, primal.message, warm.message)
    for sol in (primal, warm):
        assert sol.objective == pytest.approx(cold.objective, rel=1e-6)  # a singular arc: flat to ~1e-7
    # measured: cold 14, primal 25, warm 9
    assert warm.stats["iterations"] < min(primal.stats["iterations"], cold.stats["iterations"])
    # the default start's coarse-to-full step and refinement carry them too, to the same optimum
    for kw in (dict(nodes=121), dict(nodes=61, method="trapezoid", refine=1, refine_tol=1e-3)):
        plain, carried = car_problem.solve(**kw), car_problem.solve(warm_multipliers=True, **kw)
        assert carried.success and carried.objective == pytest.approx(plain.objective, rel=1e-6)


def test_replanning_to_another_goal_from_a_solution_s_multipliers():
    """A solution of another problem of the same layout (the car to a nearby goal): its multipliers
    carry (a re-plan), to the cold start's optimum in fewer iterations; a problem of another layout
    (a trailer) carries none."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    first = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.0, 1.0, 0.8])
    moved = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.05, 1.0, 0.8])
    before = first.solve(nodes=81)
    cold = moved.solve(nodes=81)
    primal = moved.solve(nodes=81, guess=before)
    warm = moved.solve(nodes=81, guess=before, warm_multipliers=True)
    assert cold.success and primal.success and warm.success
    assert warm.objective == pytest.approx(cold.objective, rel=1e-6)
    assert warm.stats["iterations"] < primal.stats["iterations"]
    truck = nh.systems.kinematic_car_trailers(n_trailers=1, turning_radius=1.0, hitch=1.0)
    other = nh.OptimalControlProblem(truck, cost="time", initial=[0] * 4, final=[2.0, 1.0, 0.0, 0.0])
    w = warm._warm
    assert carried_multipliers(warm, other, scheme("hermite-simpson"), warm.dtau, 0, w["x_lo"], w["x_hi"],
                               warm.multipliers.size) is None
    with pytest.raises(ValueError, match="warm_multipliers"):
        moved.solve(nodes=11, warm_multipliers="yes")


def test_bad_multipliers_are_refused(car_problem):
    sol = car_problem.solve(nodes=11, method="trapezoid", guess="line")
    from nonholo import _core
    lam, z_lo, z_hi = (np.asarray(a) for a in (sol.multipliers, *sol._warm["z"]))
    for bad, what in (((lam[:-1], z_lo, z_hi), "warm start"), ((lam, -np.abs(z_lo) - 1, z_hi), "non-negative")):
        with pytest.raises(ValueError, match=what):
            _solve_again(car_problem, sol, bad, _core)


def _solve_again(problem, sol, multipliers, core):
    """_core.solve_collocation with the solution's NLP and the given multipliers (the refusal is
    checked before any iteration)."""
    captured = {}
    real = core.solve_collocation

    def capture(**kw):
        captured.update(kw)
        return real(**kw)

    core.solve_collocation = capture
    try:
        problem.solve(nodes=11, method="trapezoid", guess="line", max_iter=0)
    finally:
        core.solve_collocation = real
    captured["multipliers"] = tuple(list(map(float, a)) for a in multipliers)
    return real(**captured)
