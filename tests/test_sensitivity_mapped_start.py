"""Sensitivities of a model in Kane's speeds started from [q, q']: y0 starts, at the parameters p, from
its projection onto the constraints there, so the parameter sensitivities start at the derivative of
its map into the speeds (the frame X(q) and the projection depend on the parameters). Checked against
central differences of the same call."""

import numpy as np
import pytest
import sympy as sp
from test_mechanics import rolling_disc_with_contact_point

import nonholo as nh

T, H = 1.5, 1e-5


@pytest.fixture(scope="module")
def disc():
    """A rolling disc written with KanesMethod (test_mechanics.rolling_disc_with_contact_point: speeds
    in the lean frame, x and y speeds dependent): the radius r enters the rolling constraints, hence the map
    [q, q'] -> speeds."""
    km, (r, m, g), _ = rolling_disc_with_contact_point()
    speeds = nh.System.from_kanes_method(km, {r: 1.0, m: 1.0, g: 9.81}).nonholonomic()
    yu = np.r_[0.3, 0.2, 0.0, 0.0, 0.0, 0.5, 4.0, 0.3]
    yq = np.r_[yu[:5], speeds.velocity(0.0, yu, {"r": 1.0})]  # [q, q'] on the constraint set at r = 1
    return speeds, yu, yq


def _differences(model, y0, **kw):
    ends = [nh.simulate(model, (0, T), y0, t_eval=[T], params={"r": 1.0 + s}, rtol=1e-12, atol=1e-14, **kw).y[:, -1]
            for s in (H, -H)]
    return (ends[0] - ends[1]) / (2 * H)


def test_a_start_given_as_qdot_carries_the_maps_derivative(disc):
    speeds, yu, yq = disc
    run = nh.simulate(speeds, (0, T), yq, t_eval=[T], sensitivities=["r"], project_y0=True, rtol=1e-10, atol=1e-12)
    fd = _differences(speeds, yq, project_y0=True)
    assert np.abs(fd).max() > 1.0  # the map's derivative matters here (5.07 off when it started at zero)
    assert np.abs(run.sensitivities[:, 0, -1] - fd).max() < 1e-6 * np.abs(fd).max()
    # the default form, y0 in the model's own state [q, u]: held fixed itself, the start is zero
    run = nh.simulate(speeds, (0, T), yu, t_eval=[T], sensitivities=["r"], rtol=1e-10, atol=1e-12)
    fd = _differences(speeds, yu)
    assert np.abs(run.sensitivities[:, 0, -1] - fd).max() < 1e-6 * np.abs(fd).max()


def test_every_run_of_a_batch_starts_at_its_own_maps_derivative(disc):
    speeds, yu, yq = disc
    Y0 = np.array([yq, np.r_[yq[:5], 1.3 * yq[5:]]])
    runs = nh.simulate_many(speeds, (0, T), Y0, t_eval=[T], sensitivities=["r"], project_y0=True,
                            rtol=1e-10, atol=1e-12)
    for run, y0 in zip(runs, Y0):
        fd = _differences(speeds, y0, project_y0=True)
        assert np.abs(run.sensitivities[:, 0, -1] - fd).max() < 1e-6 * np.abs(fd).max()


def test_fit_recovers_a_parameter_of_the_rolling_constraint_from_a_qdot_start(disc):
    speeds, _, yq = disc
    t = np.linspace(0, T, 16)
    data = nh.simulate(speeds, (0, T), yq, t_eval=t, params={"r": 0.8}, project_y0=True)
    fit = nh.fit(speeds, t, np.array([data["q1"], data["q2"]]), {"r": 1.0}, yq, observe=["q1", "q2"], project_y0=True)
    assert fit.success and abs(fit.params["r"] - 0.8) < 1e-7  # it stayed at 1.0, "successfully", before


def _offset_sleigh():
    """A sleigh with its mass a distance a ahead of the blade, in plain SymPy."""
    x, y, phi, m, I, a = sp.symbols("x y phi m I a")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                     parameters={m: 1.0, I: 1.0, a: 0.2})


@pytest.mark.parametrize("kind", ["nonholonomic", "friction"])
def test_initial_state_sensitivities_of_a_projected_start_follow_the_given_velocity(kind):
    """y0 off the constraint set with project_y0: d y(t)/d y0[i] is the derivative of the projected runs,
    whose start P(q) v moves with q at the given v (the unit vector projected at the projected start
    missed that: d y(2)/d phi0 had the y component -0.079 for +1.066)."""
    system = _offset_sleigh()
    model = system.nonholonomic() if kind == "nonholonomic" else system.friction(0.05)
    y0 = np.array([0.1, -0.2, 0.4, -1.0, 0.5, 1.0])  # A v = 0.907
    t_end = 2.0 if kind == "nonholonomic" else 0.8
    run = nh.simulate(model, (0, t_end), y0, t_eval=[0, t_end], project_y0=True, sensitivities="y0",
                      rtol=1e-10, atol=1e-12)
    h = 1e-6
    for i in range(6):
        e = np.zeros(6)
        e[i] = h
        ends = [nh.simulate(model, (0, t_end), y0 + s * e, t_eval=[0, t_end], project_y0=True, rtol=1e-12,
                            atol=1e-14).y for s in (1, -1)]
        fd = (ends[0] - ends[1]) / (2 * h)
        assert np.abs(run.sensitivities[:, i, :] - fd).max() < 1e-6 * max(1.0, np.abs(fd).max()), i
    # the default: a y0 on the constraint set, not projected (the constrained model's admissible
    # perturbation of phi moves v onto the constraint at the new phi; the friction model's keeps v)
    y0 = np.r_[y0[:3], system.project(y0[:3], y0[3:])]
    run = nh.simulate(model, (0, t_end), y0, t_eval=[t_end], sensitivities=[("y0", "phi")], rtol=1e-10, atol=1e-12)
    e = np.zeros(6)
    e[2] = h
    ends = [nh.simulate(model, (0, t_end), y0 + s * e, t_eval=[t_end], project_y0=kind == "nonholonomic",
                        rtol=1e-12, atol=1e-14).y[:, -1] for s in (1, -1)]
    assert np.abs(run.sensitivities[:, 0, -1] - (ends[0] - ends[1]) / (2 * h)).max() < 1e-6
