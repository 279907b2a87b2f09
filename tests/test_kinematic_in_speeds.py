"""system.kinematic(frame="speeds"): the kinematic control system in the system's own velocity frame.
The Voronets chart of a unicycle solves y' = tan(theta) x', singular at theta = pi/2, so a geodesic of
SE(2) that turns through pi/2 has no plan in it (an outside probe's (1, 1, pi/2): its length 2.2117064717
by shooting on the normal Pontryagin equations, refused as crossing the chart's singular set); in the
body velocities (v, omega) the frame is regular everywhere, and the plan is the geodesic."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th = sp.symbols("x y theta")
c, s = sp.cos(th), sp.sin(th)
BODY = sp.Matrix([[c, 0, -s], [s, 0, c], [0, 1, 0]])  # v along the heading, omega; then the sideways vector


def unicycle(vectors=BODY):
    return nh.System([x, y, th], sp.eye(3), constraints=sp.Matrix([[-s, c, 0]]), speeds=(["v", "omega"], vectors, None))


def test_a_geodesic_through_the_voronets_charts_edge_is_planned_in_body_velocities():
    system = unicycle()
    goal = [1.0, 1.0, math.pi / 2]
    in_chart = nh.OptimalControlProblem(system.kinematic(), cost="energy", t_final=1.0, initial=[0, 0, 0],
                                        final=goal).solve(nodes=60)  # the default frame: Voronets
    assert not in_chart.success and "singularity of its chart" in in_chart.message
    kin = system.kinematic("speeds")
    assert kin.control_names == ["v", "omega"] and system.kinematic("speeds") is kin
    plan = nh.OptimalControlProblem(kin, cost="energy", t_final=1.0, initial=[0, 0, 0], final=goal).solve(nodes=100)
    assert plan.success and math.sqrt(2 * plan.objective) == pytest.approx(2.2117064717, rel=1e-7)
    # the same geodesic by the shooting solver, from the plan
    shot = nh.vakonomic_bvp(system, [0, 0, 0], goal, 1.0, guess=plan)
    assert shot.length == pytest.approx(2.2117064717, rel=1e-8)
    assert np.abs(plan.simulate().y_final - plan.y[:, -1]).max() < 1e-6


def test_frame_is_checked():
    with pytest.raises(ValueError, match="frame must be 'voronets' or 'speeds', got 'body'"):
        unicycle().kinematic("body")
    with pytest.raises(ValueError, match="has no velocity frame of its own"):
        nh.systems.chaplygin_sleigh().kinematic("speeds")
    sideways_first = sp.Matrix([[-s, c, 0], [0, 0, 1], [c, s, 0]])  # its first vectors leave the constraint set
    with pytest.raises(nh.ModelError, match=r"do not satisfy its constraints A X_D = 0"):
        unicycle(sideways_first).kinematic("speeds")
