"""Forward sensitivities (CVODES) against central differences of tightly solved trajectories,
for every model kind, at events and in batches; fit and vakonomic_bvp."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.ball_on_turntable import ball_state
from nonholo.testing import random_system

# Sensitivities and differences both at rtol 1e-12. The five-point central difference with
# relative step 1e-2 has O(h^4) ~ 1e-8 truncation and O(tol / h) ~ 1e-10 noise from the
# adaptive step sequence (projected runs are noisier: with steps of 1e-4 the noise alone reaches
# 1e-6 on the ball), the sensitivities their own O(tol) error, so a norm-wise relative error
# below 1e-6 (the bound) has margin.
SENS_TOL = 1e-6
TIGHT = dict(rtol=1e-12, atol=1e-14)
REL_STEP = 1e-2


def _fd(run, names, params, y0, param_step=REL_STEP):
    """Five-point central differences of run(params, y0) -> (n_states, n_t) for each name."""
    cols = []
    for name in names:
        p, y = dict(params), np.array(y0, dtype=float)
        if isinstance(name, tuple):
            h = REL_STEP
            e = np.eye(y.size)[name[1]]
            f = lambda d: run(p, y + d * e)  # noqa: E731
        else:
            step = param_step.get(name, REL_STEP) if isinstance(param_step, dict) else param_step
            h = step * max(abs(p[name]), 1e-3)
            f = lambda d: run({**p, name: p[name] + d}, y)  # noqa: E731
        cols.append((f(-2 * h) - 8 * f(-h) + 8 * f(h) - f(2 * h)) / (12 * h))
    return np.stack(cols, axis=1)


def _rel_errors(S, FD):
    """Norm-wise relative error of each sensitivity (columns of the middle axis)."""
    return [np.max(np.abs(S[:, j] - FD[:, j])) / max(np.max(np.abs(FD[:, j])), 1e-300) for j in range(S.shape[1])]


def _check(model, y0, names, params, t, param_step=REL_STEP, **kw):
    sol = nh.simulate(model, (t[0], t[-1]), y0, t_eval=t, params=params, sensitivities=names, **TIGHT, **kw)
    assert sol.sensitivities.shape == (model.n_states, len(names), t.size)
    assert len(sol.sensitivity_names) == len(names)

    def run(p, y):
        return nh.simulate(model, (t[0], t[-1]), y, t_eval=t, params=p, **TIGHT, **kw).y

    all_params = {**model.params, **(params or {})}
    fd = _fd(run, names, all_params, y0, param_step)
    errors = _rel_errors(sol.sensitivities, fd)
    assert max(errors) < SENS_TOL, dict(zip(sol.sensitivity_names, errors))
    return sol


Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]


def test_friction_sleigh_parameters_and_initial_state(sleigh):
    t = np.linspace(0, 3, 7)
    names = ["a", "mu", "eps", *[("y0", i) for i in range(6)]]
    sol = _check(sleigh.friction(1e-2), [0.0, 0.0, 0.0, -1.5, 0.1, 1.0], names, None, t)
    assert sol.sensitivity_names[:3] == ["a", "mu", "eps"] and sol.sensitivity_names[3] == "y0[x]"


def test_nonholonomic_with_drift_control_matches_projected_runs(sleigh):
    """The sensitivities are those of the projected trajectory: differences of runs whose
    initial velocities are projected (project_y0) and which project after every step."""
    t = np.linspace(0, 4, 9)
    names = ["a", "m", ("y0", 2), ("y0", 3), ("y0", 5)]
    sol = _check(sleigh.nonholonomic(), Y0, names, None, t, project_y0=True)
    # tangent to the constraint set: d/dtheta (A v) = 0 along the trajectory
    phi, xd, yd = sol.y[2], sol.y[3], sol.y[4]
    S = sol.sensitivities
    lin = -np.cos(phi) * S[2] * xd[None] - np.sin(phi) * S[2] * yd[None] - np.sin(phi) * S[3] + np.cos(phi) * S[4]
    assert np.max(np.abs(lin)) < 1e-8


def test_ball_on_turntable():
    """Differences of projected runs of the ball are noisier (relative 1e-6 with a 1% step in
    nu): a 3% step in nu, where the five-point truncation is still below 1e-7 (not in delta,
    whose rolling term v_rel/|v_rel| is more strongly nonlinear: 3e-6 there, 6e-8 with 1%)."""
    ball = nh.systems.ball_on_turntable(nu=2.0, delta=0.003)
    y0 = ball_state(ball, 10.0, 0.0, 0.0, 5.0)
    t = np.linspace(0, 2, 5)
    _check(ball.nonholonomic(), y0, ["nu", "delta", ("y0", 0), ("y0", 6)], None, t, param_step={"nu": 3e-2},
           project_y0=True)


def _with_parameter(system, seed):
    """The random system with its potential scaled by a parameter kappa (random value)."""
    kappa = sp.Symbol("kappa", positive=True)
    value = float(np.random.default_rng(seed).uniform(0.5, 1.5))
    return nh.System(system.coordinates, system.metric, kappa * system.potential, system.constraints,
                     system.affine, system.friction_coefficients, system.force, {kappa: value},
                     velocities=system.velocities, time=system.time)


# eps up to 0.2 on a random system may leave the reduced model's range of validity (a SimulationWarning):
# the sensitivities of the model as it is are checked here, not its accuracy against friction
@pytest.mark.filterwarnings("ignore:the reduced model:nonholo.errors.SimulationWarning")
@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.parametrize("kind", ["nonholonomic", "vakonomic", "friction", "reduced"])
def test_random_systems(seed, kind):
    system = _with_parameter(random_system(seed, n=3, k=1, affine=True, force=True), seed)
    rng = np.random.default_rng(seed + 100)
    q0, v0 = rng.uniform(-0.5, 0.5, 3), rng.uniform(-0.5, 0.5, 3)
    eps = float(rng.uniform(0.05, 0.2))
    model = {"nonholonomic": system.nonholonomic, "vakonomic": system.vakonomic,
             "friction": lambda: system.friction(eps), "reduced": lambda: system.reduced(eps, order=2)}[kind]()
    v0 = system.project(q0, v0, 0.0) if kind != "friction" else v0
    y0 = np.concatenate([q0, v0, [0.3]]) if kind == "vakonomic" else np.concatenate([q0, v0])
    names = ["kappa", ("y0", 1), ("y0", 4)] + (["eps"] if kind in ("friction", "reduced") else [])
    names += [("y0", 6)] if kind == "vakonomic" else []
    _check(model, y0, names, None, np.linspace(0, 1.5, 4), project_y0=kind != "friction")


def test_event_time_sensitivities(sleigh):
    """dt*/dtheta and dy(t*)/dtheta by the implicit function theorem against differences of
    the event times and states."""
    model = sleigh.nonholonomic()
    x = sleigh.coordinates[0]
    event = nh.Event(x + 0.5, direction=-1)
    names = ["a", ("y0", 5)]

    def run(p, y):
        sol = nh.simulate(model, (0, 4), y, params=p, events=[event], **TIGHT)
        return np.concatenate([sol.t_events[0][:1], sol.y_events[0][0]])[:, None]

    sol = nh.simulate(model, (0, 4), Y0, events=[event], sensitivities=names, **TIGHT)
    assert sol.t_events_sensitivities[0].shape == (len(sol.t_events[0]), 2)
    assert sol.y_events_sensitivities[0].shape == (len(sol.t_events[0]), 6, 2)
    S = np.concatenate([sol.t_events_sensitivities[0][:1], sol.y_events_sensitivities[0][0]])[:, :, None]
    fd = _fd(run, names, model.params, Y0)
    assert max(_rel_errors(S, fd)) < SENS_TOL


def test_methods_agree_and_batches_equal_single_runs(sleigh):
    model = sleigh.friction(1e-2)
    t = np.linspace(0, 2, 5)
    kw = dict(t_eval=t, sensitivities=["a", "y0"], **TIGHT)
    stg = nh.simulate(model, (0, 2), Y0, **kw)
    sim = nh.simulate(model, (0, 2), Y0, sensitivity_method="simultaneous", **kw)
    loose = nh.simulate(model, (0, 2), Y0, sensitivity_error_control=False, **kw)
    scale = np.max(np.abs(stg.sensitivities))
    assert np.max(np.abs(stg.sensitivities - sim.sensitivities)) < 1e-8 * scale
    assert np.max(np.abs(stg.sensitivities - loose.sensitivities)) < 1e-6 * scale
    many = nh.simulate_many(model, (0, 2), [Y0, Y0], params={"a": [0.2, 0.3]}, threads=2, **kw)
    assert np.array_equal(many[0].sensitivities, stg.sensitivities)
    single = nh.simulate(model, (0, 2), Y0, params={"a": 0.3}, **kw)
    assert np.array_equal(many[1].sensitivities, single.sensitivities)


def test_adams_without_drift_control(sleigh):
    t = np.linspace(0, 2, 5)
    _check(sleigh.nonholonomic(), Y0, ["a", ("y0", 3)], None, t, method="adams", drift_control=False,
           project_y0=True)


def test_bad_sensitivity_requests(sleigh):
    model = sleigh.nonholonomic()
    with pytest.raises(ValueError, match="unknown parameter 'b'"):
        nh.simulate(model, (0, 1), Y0, sensitivities=["b"])
    with pytest.raises(ValueError, match=r"\('y0', i\) needs"):
        nh.simulate(model, (0, 1), Y0, sensitivities=[("y0", 6)])
    with pytest.raises(ValueError, match="more than once"):
        nh.simulate(model, (0, 1), Y0, sensitivities=["a", "a"])
    with pytest.raises(ValueError, match="sensitivity_method"):
        nh.simulate(model, (0, 1), Y0, sensitivities=["a"], sensitivity_method="forward")
    with pytest.raises(ValueError, match="symbolic events"):
        nh.simulate(model, (0, 1), Y0, sensitivities=["a"], events=[lambda t, y: y[0] - 1])
    with pytest.raises(TypeError, match=r"sensitivities must be a list .* got dict"):  # its keys were taken
        nh.simulate(model, (0, 1), Y0, sensitivities={"a": 1})
    # dense output takes a time or a 1-d array of times; a 2-d one raised NumPy's conversion error
    sol = nh.simulate(model, (0, 1), Y0, dense_output=True)
    assert sol.sol(0.5).shape == (6,) and sol.sol([0.1, 0.2]).shape == (6, 2)
    with pytest.raises(ValueError, match=r"t must be a time or a 1-d array of times .* shape \(2, 2\)"):
        sol.sol(np.ones((2, 2)))


def test_the_final_states_sensitivities_are_kept_without_samples(sleigh):
    """t_eval=[] stores no samples but keeps y_final, and now its sensitivities too (they were dropped
    with the samples): equal to those of the last sample of a run that stores it, and None where
    the last stored sample is before t_last."""
    model = sleigh.nonholonomic()
    stored = nh.simulate(model, (0, 2), Y0, t_eval=[1.0, 2.0], sensitivities=["a", ("y0", 5)], rtol=1e-10, atol=1e-12)
    bare = nh.simulate(model, (0, 2), Y0, t_eval=[], sensitivities=["a", ("y0", 5)], rtol=1e-10, atol=1e-12)
    assert bare.sensitivities.shape == (6, 2, 0) and bare.sensitivities_final.shape == (6, 2)
    np.testing.assert_allclose(bare.sensitivities_final, stored.sensitivities[..., -1], atol=1e-12)
    np.testing.assert_array_equal(stored.sensitivities_final, stored.sensitivities[..., -1])
    early = nh.simulate(model, (0, 2), Y0, t_eval=[1.0], sensitivities=["a"], rtol=1e-10, atol=1e-12)
    assert early.y_final is None and early.sensitivities_final is None
    assert nh.simulate(model, (0, 2), Y0, t_eval=[]).sensitivities_final is None
