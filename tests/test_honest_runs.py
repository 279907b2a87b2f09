"""Runs say when they are wrong, and input errors name the fix: reduced models outside their range
of validity warn (exactly there), time-named symbols are refused, complex states are TypeErrors,
t_eval=[] keeps only the final state, the failures of a too-short t_span and of an unresolvable
friction layer say why, and Ctrl-C keeps the work that finished (SIGINT to a child process)."""

import json
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.models import validity

SLEIGH_Y0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 1.0])


def _run(model, y0, t_span=(0, 10), **kw):
    """simulate, with the SimulationWarnings it emits."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = nh.simulate(model, t_span, y0, **kw)
    return sol, [str(w.message) for w in caught if issubclass(w.category, nh.SimulationWarning)]


def _independent_delta(system, eps, t, y, h=1e-6):
    """|lambda_(k+1)| / |lambda_k| of the friction model's Jacobian by central differences of its
    right-hand side (not the core's AD Jacobian the estimate uses)."""
    friction = system.friction(eps)
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        e = np.zeros(y.size)
        e[j] = h
        J[:, j] = (friction.rhs(t, y + e) - friction.rhs(t, y - e)) / (2 * h)
    moduli = np.sort(np.abs(np.linalg.eigvals(J)))[::-1]
    return moduli[system.k] / moduli[system.k - 1]


@pytest.mark.parametrize("eps", [0.5, 2.0])
@pytest.mark.parametrize("order", [1, 2])
def test_sleigh_far_outside_its_range_warns(sleigh, eps, order):
    sol, caught = _run(sleigh.reduced(eps, order=order), SLEIGH_Y0)
    assert sol.success and len(caught) == 1 and sol.warnings == caught
    assert "left the range where its expansion in eps is valid" in caught[0] and f"eps = {eps:g}" in caught[0]
    assert not sol.validity.valid and sol.validity.max > validity.THRESHOLD


@pytest.mark.parametrize("eps", [1e-2, 3e-3, 1e-4])
@pytest.mark.parametrize("order", [1, 2, 3])
def test_small_eps_at_order_one_and_above_is_silent(sleigh, disk, eps, order):
    sol, caught = _run(sleigh.reduced(eps, order=order), SLEIGH_Y0)
    assert caught == [] and sol.warnings == [] and sol.validity.valid
    q0 = np.array([0.1, 0.2, 0.3, 0.4])
    sol, caught = _run(disk.reduced(eps, order=order), np.r_[q0, disk.project(q0, [1.0, 0.5, -0.2, 0.7])])
    assert caught == [] and sol.validity.valid


def test_warning_fires_exactly_outside_the_range(sleigh):
    """Over eps from 1e-3 to 2 the warning fires exactly where the estimate exceeds its bounds, the
    estimate's delta is the friction Jacobian's (by finite differences) at the sampled states, and
    it grows like eps (its first-order form): the warned eps are the largest ones."""
    eps_values = [1e-3, 1e-2, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0]
    warned = []
    for eps in eps_values:
        model = sleigh.reduced(eps, order=1)
        sol, caught = _run(model, SLEIGH_Y0)
        est = validity.estimate(sol, SLEIGH_Y0, samples=validity.RUN_SAMPLES, exact=True)  # eigenvalues everywhere
        assert bool(caught) == (np.max(est.delta) > validity.THRESHOLD
                                or np.max(est.next_term) > validity.NEXT_TERM_THRESHOLD)
        checked = sol.validity  # the run's own check: the bound where it decides, the same verdict, at the
        same = np.isin(est.t, checked.t)  # states it evaluated (those between ends with the margin skipped)
        assert same.sum() == checked.t.size == est.t.size - checked.skipped and checked.valid == est.valid
        assert np.all(checked.delta >= est.delta[same] * (1 - 1e-12))
        assert np.array_equal(checked.delta[~checked.bounded], est.delta[same][~checked.bounded])
        i = int(np.argmax(est.delta))  # the estimate against finite differences at its worst state
        j = int(np.flatnonzero(sol.t == est.t[i])[-1]) if est.t[i] in sol.t else None
        y = SLEIGH_Y0 if j is None else sol.y[:, j]
        state = np.r_[y[:3], model.velocity(est.t[i], y)]
        assert est.delta[i] == pytest.approx(_independent_delta(sleigh, eps, est.t[i], state), rel=1e-4)
        warned.append(bool(caught))
    assert warned == sorted(warned) and warned[0] is False and warned[-1] is True  # one switch, at large eps
    assert warned[eps_values.index(0.5)] and not warned[eps_values.index(1e-2)]


def test_nilpotent_slow_flow_is_caught_by_the_next_term():
    """The knife edge on an inclined plane: every slow eigenvalue is zero (delta = 0), but at eps = 2
    the first dropped term is 0.26 of the run's largest velocity, beyond the threshold 0.1."""
    knife = nh.systems.inclined_knife_edge()
    rng = np.random.default_rng(1)
    q0 = rng.uniform(0.1, 0.5, 3)
    y0 = np.r_[q0, knife.project(q0, rng.uniform(-1, 1, 3))]
    sol, caught = _run(knife.reduced(2.0, order=1), y0)
    assert np.max(sol.validity.delta) < 1e-12 and np.max(sol.validity.next_term) > 2 * validity.NEXT_TERM_THRESHOLD
    assert caught and "eps^2 h^(2)" in caught[0]
    assert _run(knife.reduced(1e-2, order=1), y0)[1] == []


def test_simulate_many_warns_once_for_the_runs_outside(sleigh):
    Y0 = np.tile(SLEIGH_Y0, (3, 1))
    with pytest.warns(nh.SimulationWarning, match=r"2 of 3 runs \(runs \[1, 2\]\)"):
        results = nh.simulate_many(sleigh.reduced(1e-2, order=1), (0, 5), Y0, params={"eps": [1e-2, 0.5, 2.0]})
    assert [bool(r.warnings) for r in results] == [False, True, True]


# ------------------------------------------------------------------ names, states, inputs
def test_a_run_that_leaves_the_range_between_sparse_samples_warns():
    """A sleigh (mass 0.5 ahead of the blade, plain SymPy) spun up by a torque pulse at t = 2 and damped
    down again: at eps = 0.05 the reduced model leaves its range near t = 2.2 (delta 0.52) and is back
    by t = 6, 0.42 off in y. With t_eval=[6] the check saw the start and the end only, and said nothing."""
    x, y, th, t = sp.symbols("x y theta t")
    xd, yd, thd = sp.symbols("x_dot y_dot theta_dot")
    a = 0.5
    G = sp.Matrix([[1, 0, -a * sp.sin(th)], [0, 1, a * sp.cos(th)], [-a * sp.sin(th), a * sp.cos(th), 1 + a**2]])
    F = sp.Matrix([-2 * xd, -2 * yd, 80 * sp.exp(-((t - 2) / 0.3) ** 2) - 2 * thd])
    sleigh = nh.System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]), force=F, time=t,
                       velocities=[xd, yd, thd])
    y0 = np.array([0, 0, 0, 1.0, 0, 0])
    for t_eval in ([6.0], [0, 3, 6.0], None):  # None: the default, every step stored
        run, caught = _run(sleigh.reduced(0.05), y0, (0, 6), t_eval=t_eval)
        assert len(caught) == 1 and "left the range" in caught[0], t_eval
        assert run.validity.delta.max() > 0.4 and run.t.size == (len(t_eval) if t_eval else run.t.size)
    # well inside its range (eps 1e-3), the same sparse run is silent
    run, caught = _run(sleigh.reduced(1e-3), y0, (0, 6), t_eval=[6.0])
    assert caught == [] and run.validity.valid


def test_a_start_off_the_holonomic_constraints_is_refused():
    """A pendulum in Cartesian coordinates, x^2 + y^2 = 1 as a holonomic constraint and its derivative as
    the velocity row, in plain SymPy: the run enforces h' = 0 only, so a start at radius 1.05 (|h| = 0.1025) swung on a
    circle of radius 1.05 with no complaint (a Whipple bicycle's front wheel 5 cm above the ground
    carried 285 N the same way)."""
    x, y = sp.symbols("x y")
    pendulum = nh.System([x, y], sp.eye(2), potential=9.81 * y, constraints=sp.Matrix([[x, y]]),
                         holonomic=[x**2 + y**2 - 1])
    with pytest.raises(ValueError, match=r"holonomic constraints h\(q\) = 0: \|h\| = 0.103"):
        nh.simulate(pendulum.nonholonomic(), (0, 1), [1.05, 0, 0, 0.5])
    # on the circle, the default run keeps it there
    c, s = np.cos(0.3), np.sin(0.3)
    run = nh.simulate(pendulum.nonholonomic(), (0, 1), [c, s, -0.5 * s, 0.5 * c])
    assert run.success and np.abs(run.q[0] ** 2 + run.q[1] ** 2 - 1).max() < 1e-7


def test_constraint_residual_of_friction_and_reduced_runs_is_their_slip(sleigh):
    """|A v| / (|A| |v|) (2-norms) with the physical velocity: it read 0 on a friction run (a model without
    constraint rows) and 1e-13 on a reduced one (its state's u), where the slip is 1e-2."""
    y0 = np.array([0, 0, 0, 1.0, 0.3, 1.0])
    for model, start in ((sleigh.friction(0.01), y0), (sleigh.reduced(0.01), np.r_[y0[:3], sleigh.project(y0[:3],
                                                                                                       y0[3:])])):
        run = nh.simulate(model, (0, 2), start, t_eval=np.linspace(0, 2, 5))
        A = np.array([sleigh.constraint_matrix(q)[0][0] for q in run.q.T])
        v = run.velocity.T
        slip = np.abs(np.sum(A * v, axis=1)) / (np.linalg.norm(A, axis=1) * np.linalg.norm(v, axis=1))
        assert np.allclose(run.constraint_residual(), slip, rtol=1e-9) and slip.max() > 1e-3, model.kind
    # the default, the nonholonomic model: its drift, at the level of the tolerance
    assert nh.simulate(sleigh.nonholonomic(), (0, 2), start).constraint_residual().max() < 1e-9


@pytest.mark.parametrize("where", ["coordinate", "velocity", "parameter"])
def test_symbols_named_like_the_time_are_refused_at_build_time(where):
    x, t, c = sp.symbols("x t c")
    coords, vels, params = [x, sp.Symbol("y")], None, {"c": 1.0}
    if where == "coordinate":
        coords = [x, t]
    elif where == "velocity":
        vels = [sp.Symbol("x_dot"), t]
    else:
        params = {"t": 1.0}
    with pytest.raises(nh.ModelError, match=f"the {where} 't' has the name of the time symbol 't'"):
        nh.System(coords, sp.eye(2), velocities=vels, parameters=params)
    tau = sp.Symbol("tau")  # another time symbol frees the name
    nh.System([x, t], sp.eye(2), time=tau)


def test_a_complex_state_is_a_type_error(sleigh):
    bad = SLEIGH_Y0 + 1e-3j
    with pytest.raises(TypeError, match="y0 must be real"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), bad)
    with pytest.raises(TypeError, match="Y0 must be real"):
        nh.simulate_many(sleigh.nonholonomic(), (0, 1), [bad, bad])
    with pytest.raises(TypeError, match="y0 must be real"):
        nh.simulate_discrete(sleigh.discrete(0.1), (0, 1), bad)
    real = nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_Y0 + 0j, t_eval=[1.0])  # zero imaginary part
    assert np.array_equal(real.y, nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_Y0, t_eval=[1.0]).y)


def test_empty_t_eval_keeps_only_the_final_state(sleigh):
    full = nh.simulate(sleigh.friction(1e-3), (0, 2), SLEIGH_Y0)
    empty = nh.simulate(sleigh.friction(1e-3), (0, 2), SLEIGH_Y0, t_eval=[])
    assert empty.t.shape == (0,) and empty.y.shape == (6, 0) and empty.success
    assert empty.t_last == 2.0 and np.array_equal(empty.y_final, full.y[:, -1])
    batch = nh.simulate_many(sleigh.friction(1e-3), (0, 2), [SLEIGH_Y0], t_eval=[])
    assert batch[0].y.shape == (6, 0) and np.array_equal(batch[0].y_final, full.y[:, -1])


@pytest.mark.parametrize("direction", ["up", float("nan"), 2, 0.5, None, True])
def test_event_direction_is_checked_by_name(direction):
    with pytest.raises(ValueError, match="event direction must be -1 .*, 0 .* or 1"):
        nh.Event(sp.Symbol("x"), direction=direction)


@pytest.mark.parametrize("threads", [2.7, 2**40, 0, -1, True])
def test_simulate_many_threads_is_checked_by_name(sleigh, threads):
    with pytest.raises((TypeError, ValueError), match="threads must be"):
        nh.simulate_many(sleigh.nonholonomic(), (0, 1), [SLEIGH_Y0], threads=threads)


def test_simulate_many_with_zero_runs_returns_an_empty_list(sleigh):
    assert nh.simulate_many(sleigh.nonholonomic(), (0, 1), np.zeros((0, 6))) == []


@pytest.mark.parametrize("t_span", [(0.0, 1e-200), (1.0, 1.0 + 4e-16), (1e10, 1e10 + 2e-6)])
def test_a_t_span_below_the_solvers_resolution_says_so(sleigh, t_span):
    """CVODE cannot step across it and says so; DOP853 (the default here) takes one step, which
    is y0 + h f(y0) up to the h^2 term and rounding (h = tf - t0)."""
    sol, caught = _run(sleigh.nonholonomic(), SLEIGH_Y0, t_span, method="bdf")
    assert sol.status == -1 and "is below the solver's resolution" in sol.message and caught == [sol.message]
    auto, caught = _run(sleigh.nonholonomic(), SLEIGH_Y0, t_span)
    assert auto.success and auto.method == "dop853" and caught == []
    rate = sleigh.nonholonomic().core.rhs(t_span[0], SLEIGH_Y0, sleigh.param_vector())
    h = t_span[1] - t_span[0]
    assert np.allclose(auto.y[:, -1], SLEIGH_Y0 + h * np.asarray(rate), rtol=1e-15, atol=10 * h**2)


@pytest.mark.parametrize("eps", [1e-12, 1e-14])
def test_friction_at_tiny_eps_off_the_constraint_names_the_layer_and_the_remedy(sleigh, eps):
    off = np.array([0.0, 0.0, 0.0, 1.0, 0.5, 1.0])  # lateral velocity 0.5: off the constraint
    sol, _ = _run(sleigh.friction(eps), off)
    assert sol.status == -1
    for words in ("initial layer", "project_y0=True", "system.nonholonomic()", "system.reduced(eps)"):
        assert words in sol.message
    projected, caught = _run(sleigh.friction(eps), off, project_y0=True)  # the remedy works
    assert projected.success and caught == []
    reference = nh.simulate(sleigh.nonholonomic(), (0, 10), off, project_y0=True, t_eval=[10.0])
    assert np.abs(projected.y[:3, -1] - reference.y[:3, -1]).max() < 1e-5  # the nonholonomic limit


# ------------------------------------------------------------------ Ctrl-C keeps what finished
CHILD = """
import json, signal, sys, time, warnings
import numpy as np
import nonholo as nh
from nonholo.models import validity

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal (see test_sweep_failures)
warnings.simplefilter("ignore")
S = nh.systems.chaplygin_sleigh()
Y0 = [0, 0, 0, 1.0, 0, 0.5]
LONG = dict(max_step=1e-3, max_steps=10**15)

def simulate():
    return nh.simulate(S.friction(1e-4), (0, 1e9), Y0, **LONG)

def simulate_many():
    return nh.simulate_many(S.friction(1e-4), (0, 1e9), [Y0] * 4, threads=2, **LONG)

def sensitivities():
    return nh.simulate(S.nonholonomic(), (0, 1e5), Y0, t_eval=np.linspace(0, 1e5, 200001), sensitivities=["a"],
                       **LONG)

def convergence():
    disk = nh.systems.vertical_rolling_disk(m=1.0, R=1.0, I=0.25, J=0.5)  # rolls in circles: no step grows long
    q0 = np.array([0.1, 0.2, 0.3, 0.4])
    y0 = np.r_[q0, disk.project(q0, [1.0, 0.5, -0.2, 0.7])]
    return nh.studies.convergence(disk, 1e-3 / 2.0 ** np.arange(12), y0, (0, 3000), orders=(1,), t_eval=[3000],
                                  progress=False)

def eigenvalue_path():
    model = S.nonholonomic()
    state = np.r_[0, 0, 0, 1.0, 0, 0]
    return nh.eigenvalue_path(model, "a", np.linspace(0.1, 1.0, 10**6), state, compile=False)  # no build first

# the modules each call imports on first use are imported before "ready": on a loaded machine an
# interrupt sent while SciPy is still importing would stop the import, not the run
nh.eigenvalue_path(S.nonholonomic(), "a", [0.1, 0.2], np.r_[0, 0, 0, 1.0, 0, 0], compile=False)
nh.studies.convergence(S, [1e-2, 5e-3], np.r_[0, 0, 0, 1.0, 0, 0.5], (0, 0.1), orders=(1,), t_eval=[0.1],
                       progress=False)
print("ready", flush=True)
try:
    globals()[sys.argv[1]]()
    print(json.dumps({"finished": "all"}), flush=True)
except KeyboardInterrupt as exc:
    p = exc.partial
    if sys.argv[1] == "simulate":
        report = {"t_last": p.t_last, "status": p.status, "flag": p.flag_name, "n": int(p.t.size)}
    elif sys.argv[1] == "sensitivities":
        s = p.sensitivities
        report = {"n": int(p.t.size), "shape": None if s is None else list(s.shape),
                  "names": p.sensitivity_names, "finite": bool(s is not None and np.isfinite(s).all())}
    elif sys.argv[1] == "simulate_many":
        report = {"status": [r.status for r in p], "flags": [r.flag_name for r in p]}
    elif sys.argv[1] == "convergence":
        report = {"eps": p.eps.tolist(), "errors": p.errors[1].tolist()}
    else:
        report = {"values": int(len(p.values)), "shape": list(p.eigenvalues.shape)}
    print(json.dumps(report), flush=True)
"""


def _interrupt(tmp_path, what, after):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD))
    child = subprocess.Popen([sys.executable, *(["-S"] if sys.flags.no_site else []), str(script), what],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(after)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert out.strip(), err
    report = json.loads(out.strip().splitlines()[-1])
    assert "finished" not in report, f"the {what} run ended before the interrupt: make it longer"
    # no wall clock: each run takes far longer than the test allows, so a report without "finished"
    # proves that the interrupt stopped it, and the communicate timeout catches one that does not stop
    return report


def test_ctrl_c_stops_simulate_with_the_trajectory_so_far(tmp_path):
    report = _interrupt(tmp_path, "simulate", 1.0)
    assert report["flag"] == "INTERRUPTED" and report["status"] == -1 and report["t_last"] > 0 and report["n"] > 100


def test_ctrl_c_keeps_the_sensitivities_of_the_trajectory_so_far(tmp_path):
    """The partial result of an interrupted run with sensitivities had none (sensitivities None): they
    were computed to the interrupt and dropped."""
    report = _interrupt(tmp_path, "sensitivities", 1.0)
    assert report["n"] > 10 and report["shape"] == [6, 1, report["n"]] and report["names"] == ["a"]
    assert report["finite"]


def test_ctrl_c_stops_simulate_many_with_every_run(tmp_path):
    report = _interrupt(tmp_path, "simulate_many", 1.0)
    assert len(report["status"]) == 4 and set(report["flags"]) == {"INTERRUPTED"}


def test_ctrl_c_stops_the_convergence_study_with_the_eps_done(tmp_path):
    report = _interrupt(tmp_path, "convergence", 4.0)  # the first eps done, also on a loaded machine
    assert 1 <= len(report["eps"]) < 12 and len(report["errors"]) == len(report["eps"])
    assert report["eps"][0] == 1e-3 and all(0 < e < 1e-3 for e in report["errors"])


def test_ctrl_c_stops_eigenvalue_path_with_the_values_done(tmp_path):
    report = _interrupt(tmp_path, "eigenvalue_path", 1.5)
    assert 1 <= report["values"] < 10**6 and report["shape"][0] == report["values"]


def test_ctrl_c_in_the_state_callable_of_eigenvalue_path_keeps_the_values_done():
    """The state callable was called for every value before the first linearization, so Ctrl-C in it
    (a Newton search per value) lost everything: exc.partial was None. It is now called value by
    value: interrupted at the fourth, the path holds the first three (the default path: a model
    parameter)."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()

    def state(a):
        if a > 0.35:
            raise KeyboardInterrupt
        return np.r_[0, 0, 0, 1.0, 0, 0]

    with pytest.raises(KeyboardInterrupt) as info:
        nh.eigenvalue_path(model, "a", np.linspace(0.1, 1.0, 10), state, compile=False)
    partial = info.value.partial
    assert partial is not None and np.allclose(partial.values, [0.1, 0.2, 0.3])
    assert partial.eigenvalues.shape[0] == 3


def test_a_run_continues_from_its_own_final_state():
    """A run keeps |A v - b| near its tolerance, not at 1e-10: the reduced sleigh's final state at the
    default tolerances is 6e-10 off (its truncation), the nonholonomic sleigh's at rtol 1e-6 about 2e-9
    (drift control, rtol / 10), and continuing from it raised 'y0 violates the constraints'. A start off
    by at most max(1e-10, rtol) is accepted; a larger violation is still refused by name."""
    sleigh = nh.systems.chaplygin_sleigh()
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    for model, tolerances in ((sleigh.reduced(0.01, order=1), {}), (sleigh.nonholonomic(), dict(rtol=1e-6, atol=1e-8))):
        first = nh.simulate(model, (0, 8), y0, **tolerances)
        residual = first.constraint_residual()[-1]
        assert residual > 1e-10  # the case
        second = nh.simulate(model, (8, 12), first.y_final, **tolerances)
        whole = nh.simulate(model, (0, 12), y0, t_eval=[12.0], **tolerances)
        assert second.status == 0
        np.testing.assert_allclose(second.y_final, whole.y_final, atol=1e3 * tolerances.get("rtol", 1e-8))
    off = np.array(y0, dtype=float)
    off[4] += 1e-5  # y' off the blade's constraint
    with pytest.raises(ValueError, match="y0 violates the constraints"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), off, rtol=1e-6, atol=1e-8)


def test_a_reduced_model_of_a_system_without_constraints_does_not_warn():
    """With no constraint there is no fast scale: the reduced model is the system's own dynamics at any
    eps, and matches them; its validity check compared rates of a spectrum without a fast part and
    warned 'left the range where its expansion in eps is valid' (delta = 3.07)."""
    x1, x2 = sp.symbols("x1 x2")
    springs = nh.System([x1, x2], sp.Matrix([[2, 0.5], [0.5, 1]]), potential=3 * x1**2 / 2 + (x2 - x1)**2)
    y0 = [0.1, -0.3, 0.2, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", nh.SimulationWarning)
        reduced = nh.simulate(springs.reduced(0.1, order=1), (0, 5), y0, t_eval=[5.0])
    exact = nh.simulate(springs.nonholonomic(), (0, 5), y0, t_eval=[5.0])
    assert reduced.status == 0 and not reduced.warnings
    np.testing.assert_allclose(reduced.y, exact.y, atol=1e-7)
