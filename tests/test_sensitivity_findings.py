"""Findings of a probe of the sensitivities and of fit.

1. simulate_many with sensitivities and a run rejected at its start: the batch returns, the good runs
   keep their sensitivities, the rejected one has status -1, its message and empty sensitivities (it
   raised KeyError: 'sensitivities').
2. A parameter of the constraints A(q, p): a y0 given in coordinate velocities starts at p from its
   G-orthogonal projection onto the constraints at p in every form (coordinates, frame, Kane's speeds),
   so every form has the sensitivities of the coordinate form and of differences of projected runs (the
   frame form had +0.005960 for -0.008519, the speeds form -0.000838 for -0.016271). A y0 in the model's
   own state stays held fixed.
3. fit of such a parameter projects y0 at its trial points by default (it raised "y0 violates the
   constraints" at the first trial step), and a trial failure it cannot reject names the trial point.
4. fit's messages: an unknown name in fixed, the simulate arguments fit sets itself, t_obs against y_obs.
"""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh
from nonholo.errors import SimulationWarning

T, H = 1.0, 1e-6
Y0 = np.array([0.1, -0.2, 0.0, 0.8, -0.1, 1.0])  # A v = 0 at bb = 0.1


def _blade(**values):
    """A sleigh whose knife edge sits a distance bb from the reference point: bb enters A(q, p)."""
    x, y, phi, m, I, a, bb = sp.symbols("x y phi m I a bb")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    params = {m: 1.3, I: 0.7, a: 0.25, bb: 0.1}
    params.update({s: values[s.name] for s in params if s.name in values})
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), bb]]), parameters=params)


@pytest.fixture(scope="module")
def blade():
    return _blade()


@pytest.fixture(scope="module")
def kane():
    """The same blade written with KanesMethod: speeds u1, u3 independent, u2 = -bb u3."""
    x, y, phi = me.dynamicsymbols("x y phi")
    u1, u2, u3 = me.dynamicsymbols("u1 u2 u3")
    m, I, a, bb = sp.symbols("m I a bb")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [phi, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * B.x + u2 * B.y)
    B.set_ang_vel(N, u3 * N.z)
    C = P.locatenew("C", a * B.x)
    C.v2pt_theory(P, N, B)
    kd = [x.diff() - (u1 * sp.cos(phi) - u2 * sp.sin(phi)), y.diff() - (u1 * sp.sin(phi) + u2 * sp.cos(phi)),
          phi.diff() - u3]
    body = me.RigidBody("body", C, B, m, (me.inertia(B, 0, 0, I), C))
    km = me.KanesMethod(N, q_ind=[x, y, phi], u_ind=[u1, u3], u_dependent=[u2], kd_eqs=kd,
                        velocity_constraints=[u2 + bb * u3])
    km.kanes_equations([body], [])
    values = {m: 1.3, I: 0.7, a: 0.25, bb: 0.1}
    return (nh.System.from_kanes_method(km, parameters=values).nonholonomic(),
            nh.System.from_kanes_method(km, parameters=values, state="qdot").nonholonomic())


def _sensitivity(model, y0, **kw):
    run = nh.simulate(model, (0, T), y0, t_eval=[T], sensitivities=["bb"], rtol=1e-10, atol=1e-12, **kw)
    return run.sensitivities[:3, 0, -1]


def _differences(model, y0, **kw):
    ends = [nh.simulate(model, (0, T), y0, t_eval=[T], params={"bb": 0.1 + s}, rtol=1e-12, atol=1e-14, **kw).y[:3, -1]
            for s in (H, -H)]
    return (ends[0] - ends[1]) / (2 * H)


def _close(a, b, rtol=1e-7):
    return np.abs(np.asarray(a) - b).max() <= rtol * np.abs(b).max()


# ------------------------------------------------------------------ 1. simulate_many, a rejected run

REJECTIONS = {
    "y0 off the constraint": (np.array([[0, 0, 0, 1, 0, 1.0], [0, 0, 0, 1, 0.5, 1.0]]), None, "y0 violates"),
    "NaN parameter": (np.array([[0, 0, 0, 1, 0, 1.0], [0, 0, 0, 3, 0, 5.0]]), {"a": np.array([0.2, np.nan])},
                      "must be finite"),
    "mass against its assumptions": (np.array([[0, 0, 0, 1, 0, 1.0], [0, 0, 0, 3, 0, 5.0]]),
                                     {"m": np.array([1.0, -1.0])}, "contradicts its symbol's assumptions"),
}


@pytest.mark.parametrize("case", list(REJECTIONS))
def test_a_batch_with_sensitivities_keeps_its_good_runs_and_reports_the_rejected_one(case):
    """Failed before the fix (KeyError: 'sensitivities' from attach_sensitivities)."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    starts, params, why = REJECTIONS[case]
    with pytest.warns(SimulationWarning, match=r"1 of 2 runs failed \(runs \[1\]\)"):
        plain = nh.simulate_many(model, (0, 1), starts, params=params, compile=False, threads=1)
    with pytest.warns(SimulationWarning, match=r"1 of 2 runs failed \(runs \[1\]\)"):
        runs = nh.simulate_many(model, (0, 1), starts, params=params, sensitivities=["a"], compile=False, threads=1)
    assert [r.status for r in plain] == [r.status for r in runs] == [0, -1]
    assert runs[1].message == plain[1].message and runs[1].message.startswith("Run 1 did not start")
    assert why in runs[1].message and runs[1].flag_name == "INITIAL_STATE_REJECTED"
    assert runs[1].sensitivities.shape == (6, 1, 0) and runs[1].sensitivities_final is None
    assert runs[1].t_events_sensitivities == [] and runs[1].y_events_sensitivities == []
    # the good run: as simulate gives it alone, and d phi(1)/d a as central differences of runs
    alone = nh.simulate(model, (0, 1), starts[0], params={k: v[0] for k, v in (params or {}).items()},
                        sensitivities=["a"], compile=False)
    assert runs[0].sensitivity_names == ["a"]
    assert np.array_equal(runs[0].sensitivities, alone.sensitivities)
    a = model.params["a"] if params is None or "a" not in params else params["a"][0]
    ends = [nh.simulate(model, (0, 1), starts[0], t_eval=[1], params={"a": a + s}, rtol=1e-12, atol=1e-14).y[2, -1]
            for s in (H, -H)]
    assert abs(runs[0].sensitivities[2, 0, -1] - (ends[0] - ends[1]) / (2 * H)) < 1e-6


# ------------------------------------------------------------------ 2. one convention in every form

def test_the_frame_form_started_from_coordinate_velocities_has_the_coordinate_forms_sensitivities(blade):
    """Before the fix the frame form without project_y0 gave d x(1)/d bb = +0.005960 (the read-off
    u_r held fixed) against -0.008519 of the coordinate form and of the differences."""
    coordinates = blade.reduced(0.02, order=1)
    frame = blade.reduced(0.02, order=1, velocities="frame")
    fd = _differences(coordinates, Y0, project_y0=True)
    assert abs(fd[0] - (-0.008519279)) < 1e-8
    assert _close(_differences(frame, Y0, project_y0=True), fd)
    for model in (coordinates, frame):
        for project in (False, True):  # the default and the option
            assert _close(_sensitivity(model, Y0, project_y0=project), fd), (model.velocities, project)
    # y0 in the frame form's own state [q, w] is held fixed: its differences, a different number
    own = nh.simulate(frame, (0, T), Y0, t_eval=[0]).y[:, 0]
    held = _differences(frame, own)
    assert abs(held[0] - 0.005960) < 1e-5
    assert _close(_sensitivity(frame, own), held)


def test_a_batch_in_the_frame_form_starts_each_run_at_its_projections_derivative(blade):
    frame = blade.reduced(0.02, order=1, velocities="frame")
    starts = np.array([Y0, np.r_[Y0[:3], 1.5 * Y0[3:]]])
    runs = nh.simulate_many(frame, (0, T), starts, t_eval=[T], sensitivities=["bb"], rtol=1e-10, atol=1e-12,
                            compile=False)
    for run, y0 in zip(runs, starts):
        assert _close(run.sensitivities[:3, 0, -1], _differences(frame, y0, project_y0=True))


def test_kanes_speeds_started_from_qdot_have_the_coordinate_forms_sensitivities(kane):
    """Before the fix the speeds model started from [q, q'] gave d x(1)/d bb = -0.000838 (the map
    held at the given q') against -0.016271 with project_y0=True, state="qdot" and the differences."""
    speeds, qdot = kane
    fd = _differences(speeds, Y0, project_y0=True)
    assert abs(fd[0] - (-0.016270620)) < 1e-8
    assert _close(_differences(qdot, Y0, project_y0=True), fd)
    for project in (False, True):
        assert _close(_sensitivity(speeds, Y0, project_y0=project), fd), project
        assert _close(_sensitivity(qdot, Y0, project_y0=project), fd), project
    # y0 in the speeds' own state [q, u1, u3]: held fixed
    own = np.r_[Y0[:3], 0.8, 1.0]
    held = _differences(speeds, own)
    assert abs(held[0] - (-0.000838)) < 1e-6
    assert _close(_sensitivity(speeds, own), held)


# ------------------------------------------------------------------ 3. fit of a parameter of A(q, p)

def _fit_data(model, t_obs):
    return nh.simulate(model, (t_obs[0], t_obs[-1]), Y0, t_eval=t_obs, params={"bb": 0.15}, project_y0=True,
                       rtol=1e-12, atol=1e-14).y[:2]


@pytest.mark.parametrize("form", ["coordinates", "frame", "speeds"])
def test_fit_of_a_constraint_parameter_projects_y0_at_its_trial_points(blade, kane, form):
    """Before the fix the default raised ValueError: y0 violates the constraints (|A v - b| = 0.0503)
    at the first trial step."""
    model = {"coordinates": blade.nonholonomic(), "frame": blade.reduced(0.02, order=1, velocities="frame"),
             "speeds": kane[0]}[form]
    t_obs = np.linspace(0, 1.2, 9)
    data = _fit_data(model, t_obs)
    for options in ({}, {"project_y0": True}):  # the default and the option
        result = nh.fit(model, t_obs, data, {"bb": 0.1}, Y0, observe=["x", "y"], compile=False, **options)
        assert result.success and abs(result.params["bb"] - 0.15) < 1e-8, options


def test_fit_names_the_trial_point_where_a_run_fails_for_good(blade):
    """Before the fix the message named neither the trial point nor the fit."""
    model = blade.nonholonomic()
    t_obs = np.linspace(0, 3, 13)
    data = _fit_data(model, t_obs)
    with pytest.raises(ValueError, match=r"y0 violates the constraints.*at the trial point \{'bb': 0\.1\d+\} of "
                                         r"the fit.*\['bb'\] appear in the constraints"):
        nh.fit(model, t_obs, data, {"bb": 0.1}, Y0, observe=["x", "y"], project_y0=False, compile=False)
    # by default y0 must lie on the constraints at the start: not projected silently there
    off = np.r_[Y0[:3], 0.8, 0.3, 1.0]
    with pytest.raises(ValueError, match=r"y0 violates the constraints.*at the starting point of the fit, "
                                         r"\{'bb': 0\.1\}"):
        nh.fit(model, t_obs, data, {"bb": 0.1}, off, observe=["x", "y"], compile=False)


# ------------------------------------------------------------------ 4. fit's messages

@pytest.fixture(scope="module")
def sleigh_data():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    y0, t = [0, 0, 0, -1.5, 0, 1.0], np.linspace(0, 5, 11)
    phi = nh.simulate(model, (0, 5), y0, t_eval=t, params={"a": 0.3}, rtol=1e-12, atol=1e-14)["phi"][None]
    return model, y0, t, phi


def test_fit_names_fixed_for_an_unknown_name(sleigh_data):
    """Before the fix: "unknown parameter 'qq'; the parameters are ..." from simulate, without fixed."""
    model, y0, t, phi = sleigh_data
    with pytest.raises(ValueError, match=r"fixed names unknown parameters \['qq'\]"):
        nh.fit(model, t, phi, ["a"], y0, observe=["phi"], fixed={"qq": 1.0}, compile=False)
    result = nh.fit(model, t, phi, {"a": 0.2}, y0, observe=["phi"], fixed={"m": 1.0}, compile=False)
    assert abs(result.params["a"] - 0.3) < 1e-8
    result = nh.fit(model, t, phi, {"a": 0.2}, y0, observe=["phi"], compile=False)  # the default: no fixed
    assert abs(result.params["a"] - 0.3) < 1e-8


@pytest.mark.parametrize("option", [{"sensitivities": ["m"]}, {"t_eval": [0, 1]}, {"raise_on_failure": False}])
def test_fit_refuses_the_simulate_arguments_it_sets(sleigh_data, option):
    """Before the fix: TypeError "got multiple values for keyword argument"."""
    model, y0, t, phi = sleigh_data
    with pytest.raises(ValueError, match=rf"fit sets \['{next(iter(option))}'\] of its simulations itself"):
        nh.fit(model, t, phi, ["a"], y0, observe=["phi"], compile=False, **option)


@pytest.mark.parametrize("times", [5, 12])
def test_fit_names_t_obs_and_y_obs_when_their_lengths_differ(sleigh_data, times):
    """Before the fix: "the observed values have shape (1, 5), y_obs has (1, 11)"."""
    model, y0, _, phi = sleigh_data
    with pytest.raises(ValueError, match=rf"t_obs has {times} times and y_obs 11 columns \(shape \(1, 11\)\)"):
        nh.fit(model, np.linspace(0, 5, times), phi, ["a"], y0, observe=["phi"], compile=False)
