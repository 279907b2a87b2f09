"""A lane change of the Whipple bicycle with a steer torque (issue 44; docs/gallery/bicycle_lane_change.py):
the benchmark bicycle linearized about upright running (``nh.systems.whipple_bicycle_linear``), checked
against the eigenvalues of the nonlinear ``nh.systems.whipple_bicycle``; and planned on the nonlinear
bicycle in Kane's speeds (docs/gallery/bicycle_lane_change_nonlinear.py) against the linear plan."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.whipple_bicycle import upright_state

T = sp.Symbol("T_delta")


def jacobian_eigenvalues(system):
    J = sp.Matrix(system.rhs).jacobian(system.states)
    lam = np.linalg.eigvals(np.array(J, dtype=float))
    return np.sort_complex(lam[np.abs(lam) > 1e-12])  # psi and y add two zero eigenvalues


def test_linear_bicycle_is_the_linearization_of_the_nonlinear_one():
    bike = nh.systems.whipple_bicycle()
    speeds = np.array([2.0, 5.0, 8.0])
    path = nh.eigenvalue_path(bike.nonholonomic(), "speed", speeds, lambda v: upright_state(bike, v))
    for v, nonlinear in zip(speeds, path.physical):
        linear = jacobian_eigenvalues(nh.systems.whipple_bicycle_linear(speed=v))
        assert linear.size == 4
        assert np.allclose(linear, np.sort_complex(nonlinear), rtol=1e-7, atol=1e-7)


@pytest.fixture(scope="module")
def lane_change():
    bike = nh.systems.whipple_bicycle_linear(speed=5.0)
    return nh.OptimalControlProblem(bike, cost=T**2, t_final=3.0, initial=[0] * 6, final=[0, 0, 0, 0, 0, 1.0])


def test_lane_change_with_a_steer_torque(lane_change):
    sol = lane_change.solve(nodes=31)
    assert sol.success, sol.message
    assert sol.state_names == ["phi", "delta", "phi_dot", "delta_dot", "psi", "y"] and list(sol.u) == ["T_delta"]
    # the torque, re-simulated, moves the bicycle 1 m aside and leaves it upright and straight
    sim = sol.simulate()
    assert np.max(np.abs(sim.y_final - sol.y[:, -1])) <= sol.defect
    assert sim.y_final[5] == pytest.approx(1.0, abs=sol.defect)
    assert np.max(np.abs(sim.y_final[:5])) <= sol.defect
    # counter-steering: to go right, the rider first steers left (and the bicycle leans right)
    assert sol["T_delta"][0] < 0 and sol["delta"][1] < 0
    assert sol["phi"][np.argmax(np.abs(sol["phi"]))] > 0


def test_lane_change_effort_converges_and_the_torque_bound_holds(lane_change):
    coarse, fine = lane_change.solve(nodes=21), lane_change.solve(nodes=41)
    assert abs(coarse.objective - fine.objective) < coarse.defect
    assert fine.defect < coarse.defect / 8  # measured: 5.6e-3 -> 6.6e-4 (halving h)
    peak = np.max(np.abs(fine["T_delta"]))
    bike = nh.systems.whipple_bicycle_linear(speed=5.0, max_torque=0.6 * peak)
    bounded = nh.OptimalControlProblem(bike, cost=T**2, t_final=3.0, initial=[0] * 6,
                                       final=[0, 0, 0, 0, 0, 1.0]).solve(nodes=41)
    assert bounded.success
    assert np.max(np.abs(bounded.u_points)) <= 0.6 * peak + 1e-8
    assert bounded.objective > fine.objective * 1.01


def test_linear_bicycle_bad_input():
    with pytest.raises(ValueError, match="max_torque must be positive"):
        nh.systems.whipple_bicycle_linear(max_torque=0.0)
    with pytest.raises(ValueError, match="speed must be finite"):
        nh.systems.whipple_bicycle_linear(speed=float("nan"))


def driven_by(bike, plan, degree=40):
    """``bike`` with the plan's steer torque (a Chebyshev fit in time, by the recurrence) in its force."""
    from numpy.polynomial import chebyshev

    fine = np.linspace(0.0, plan.t_final, 2000)
    coefficients = chebyshev.chebfit(2 * fine / plan.t_final - 1, plan.controls_at(fine)[0], degree)
    s = 2 * bike.time / plan.t_final - 1
    basis = [sp.Integer(1), s]
    while len(basis) < coefficients.size:
        basis.append(2 * s * basis[-1] - basis[-2])
    torque = sum(float(a) * b for a, b in zip(coefficients, basis))
    steer = bike.coordinate_names.index("steer")
    force = sp.Matrix(bike.force) + sp.Matrix([torque if i == steer else 0 for i in range(bike.n)])
    return nh.System(bike.coordinates, bike.metric, bike.potential, bike.constraints, bike.affine,
                     bike.friction_coefficients, force=force, parameters=bike.parameters, velocities=bike.velocities,
                     time=bike.time, holonomic=bike.holonomic)


def test_planned_torque_through_the_nonlinear_bicycle():
    """nh.simulate of the nonlinear bicycle under the planned torque ends where the plan does up to
    the cubic terms the linear model leaves out: the end error grows like the cube of the lane
    change (slope 3 +- 0.3 between 0.1 and 1 m; measured 4.4e-5 m and 4.4e-2 m)."""
    bike = nh.systems.whipple_bicycle()
    linear = nh.systems.whipple_bicycle_linear(speed=5.0)
    errors = []
    for aside in (0.1, 1.0):
        plan = nh.OptimalControlProblem(linear, cost=T**2, t_final=3.0, initial=[0] * 6,
                                        final=[0, 0, 0, 0, 0, aside]).solve(nodes=41)
        run = nh.simulate(driven_by(bike, plan).nonholonomic(), (0, 3.0), upright_state(bike, 5.0), t_eval=plan.t,
                          rtol=1e-10, atol=1e-12)
        assert run.success, run.message
        assert np.max(np.abs(run["y"] - plan["y"])) < 0.1 * aside
        errors.append(abs(run["y"][-1] - aside))
    assert 2.7 < np.log10(errors[1] / errors[0]) < 3.3


def test_lane_change_of_the_nonlinear_bicycle_tends_to_the_linear_plan_as_it_gets_smaller():
    """The lane change planned on the nonlinear Whipple bicycle (SymPy's model in Kane's speeds with a
    steer torque, its pitch held by the holonomic contact at position level, the rear contact's
    position integrated from the speeds; docs/gallery/bicycle_lane_change_nonlinear.py) against the
    linearized bicycle's plan: their efforts differ by the cubic terms the linear model leaves out,
    a few percent for 1 m at 5 m/s (measured 3.63%) and about a hundredth of that for 0.1 m (measured
    0.037%: the relative difference falls like the amplitude squared), the effort itself like the
    amplitude squared; the plan's torques agree; the contact's pitch constraint holds at every point."""
    km, values = nh.systems.whipple_bicycle_kane(steer_torque=True)
    bicycle = nh.System.from_kanes_method(km, values)
    torque = bicycle.symbol("T_delta")
    dynamics = nh.OptimalControlProblem(bicycle, controls=[torque], cost=torque**2, t_final=3.0).dynamics
    lane = dynamics.with_states({"x": km.rear_contact_velocity[0].subs(values),
                                 "y": km.rear_contact_velocity[1].subs(values)})
    names = lane.state_names
    initial = [0.0] * len(names)
    initial[names.index("u3")] = 5.0 / 0.3
    linear = nh.systems.whipple_bicycle_linear(speed=5.0)
    gaps = []
    for aside in (1.0, 0.1):
        final = [None] * len(names)
        for name, value in (("q1", 0.0), ("q2", 0.0), ("q5", 0.0), ("u2", 0.0), ("u5", 0.0), ("y", -aside)):
            final[names.index(name)] = value  # Kane's y points left: -aside is to the right
        plan = nh.OptimalControlProblem(lane, cost=torque**2, t_final=3.0, initial=initial,
                                        final=final).solve(nodes=31)
        reference = nh.OptimalControlProblem(linear, cost=T**2, t_final=3.0, initial=[0] * 6,
                                             final=[0, 0, 0, 0, 0, aside]).solve(nodes=31)
        assert plan.success and reference.success
        phi = sp.lambdify([lane.states], lane.holonomic[0])
        assert max(abs(phi(y)) for y in plan.y.T) < 1e-10
        gaps.append(plan.objective / reference.objective - 1)
        if aside == 1.0:
            effort = plan.objective
            assert np.abs(plan.u["T_delta"] - reference.u["T_delta"]).max() < 0.1 * np.abs(reference.u["T_delta"]).max()
        else:
            assert plan.objective == pytest.approx(effort / 100, rel=0.05)
    assert 0.01 < gaps[0] < 0.1 and abs(gaps[1]) < gaps[0] / 30
