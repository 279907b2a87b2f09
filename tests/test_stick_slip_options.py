"""A stick-slip run's options and edge loads, as an outside probe tried them: a block (unit mass, one
no-slip row x' = 0) pushed along x by 8 sin(w t).

- A contact with no load (N = 0, a cone of zero width) stayed stuck however hard it was pushed: the
  cone's margin mu_s N - |lambda| was zero at t0, where its event reports no root. Frictionless, the
  block moves as x = 4 t - 2 sin 2t; under N = 9.81 t it slides until the cone has grown to hold it.
- ``solver_options`` and ``drift_control`` were dropped unchecked (``{"bogus": 1}`` accepted,
  ``{"max_order": 2}`` without effect); a run that ran out of switches failed without a warning,
  and their number could not be raised (``solver_options={"max_switches": n}`` now).
- A stick-slip run (each switch's time repeated in ``t``) was refused as an optimal-control guess."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, t, c, w = sp.symbols("x y t c w")


def block(rate=2.0):
    return nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[1, 0]]), force=[c * sp.sin(w * t), 0],
                     parameters={c: 8.0, w: rate}, time=t)


TIGHT = dict(rtol=1e-10, atol=1e-12)


def test_a_contact_without_load_slides_as_soon_as_it_is_pushed():
    free = nh.simulate(block().stick_slip(0.5, 0.3, normal=0.0), (0, 3), [0, 0, 0, 0], **TIGHT)
    assert free.success and len(free.switches) == 1 and free.switches[0][1:] == ("stick", "slip")
    assert free.switches[0][0] < 1e-12
    np.testing.assert_allclose(free["x"][-1], 12 - 2 * np.sin(6), rtol=0, atol=1e-8)
    loaded = nh.simulate(block().stick_slip(0.5, 0.3, normal=1.0), (0, 3), [0, 0, 0, 0], **TIGHT)  # the default path
    np.testing.assert_allclose(loaded.switches[0][0], np.arcsin(0.5 / 8) / 2, rtol=0, atol=1e-9)


def test_a_growing_load_holds_the_block_once_its_cone_is_wide_enough():
    """N = 9.81 t from zero: the block slides at once under the kinetic force 0.3 N, v = 4 (1 - cos 2t)
    - 0.3 9.81 t^2 / 2, and sticks where v returns to zero with 8 sin 2t inside 0.5 N for good."""
    from scipy.optimize import brentq

    v = lambda s: 4 * (1 - np.cos(2 * s)) - 0.3 * 9.81 * s**2 / 2  # noqa: E731
    t_stop = brentq(v, 1.0, 3.0, xtol=1e-15)
    x_stop = 4 * t_stop - 2 * np.sin(2 * t_stop) - 0.3 * 9.81 * t_stop**3 / 6
    assert abs(8 * np.sin(2 * t_stop)) <= 0.5 * 9.81 * t_stop
    run = nh.simulate(block().stick_slip(0.5, 0.3, normal=9.81 * t), (0, 3), [0, 0, 0, 0], **TIGHT)
    assert [s[1:] for s in run.switches] == [("stick", "slip"), ("slip", "stick")]
    np.testing.assert_allclose(run.switches[1][0], t_stop, rtol=0, atol=1e-7)
    np.testing.assert_allclose(run["x"][-1], x_stop, rtol=0, atol=1e-8)


def test_solver_options_reach_the_phases_and_are_checked():
    model = block().stick_slip(0.5, 0.3, normal=9.81)
    with pytest.raises(ValueError, match="unknown key 'bogus' in solver_options; known: .*max_switches"):
        nh.simulate(model, (0, 3), [0, 0, 0, 0], solver_options={"bogus": 1})
    with pytest.raises(TypeError, match="drift_control"):
        nh.simulate(model, (0, 3), [0, 0, 0, 0], drift_control="x")
    with pytest.raises(ValueError, match=r'solver_options\["max_switches"\] must be at least 0'):
        nh.simulate(model, (0, 3), [0, 0, 0, 0], solver_options={"max_switches": -1})
    plain = nh.simulate(model, (0, 3), [0, 0, 0, 0])  # the default: no options
    default = nh.simulate(model, (0, 3), [0, 0, 0, 0], method="bdf")
    low = nh.simulate(model, (0, 3), [0, 0, 0, 0], method="bdf", solver_options={"max_order": 2})
    np.testing.assert_allclose(plain["x"][-1], default["x"][-1], rtol=0, atol=1e-5)
    assert low.stats["n_steps"] > default.stats["n_steps"]  # order 2 takes more steps than order 5
    assert max(phase.stats["last_order"] for phase in low.phases) <= 2
    np.testing.assert_allclose(low["x"][-1], default["x"][-1], rtol=0, atol=1e-5)


def test_a_run_out_of_switches_warns_and_more_can_be_allowed():
    model = block(2000.0).stick_slip(0.5, 0.3, normal=9.81)
    with pytest.warns(nh.SimulationWarning, match="max_switches = 1000"):
        run = nh.simulate(model, (0, 2), [0, 0, 0, 0])
    assert run.status == -1 and run.flag_name == "MAX_SWITCHES" and len(run.switches) == 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        more = nh.simulate(model, (0, 2), [0, 0, 0, 0], solver_options={"max_switches": 5000})
    assert more.success and 1000 < len(more.switches) <= 5000


def test_a_stick_slip_run_starts_a_plan():
    F = sp.Symbol("F")
    system = nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[0, 1]]), force=[F, 0], parameters={F: 5.0})
    run = nh.simulate(block().stick_slip(0.5, normal=0.3), (0, 1), [0, 0, 0, 0])  # the same states
    assert run.success and run.switches[0][0] > 0 and np.any(np.diff(run.t) == 0)  # the switch time repeated
    problem = nh.OptimalControlProblem(system, cost=F**2 / 2, t_final=1.0, controls=[F], initial=[0, 0, 0],
                                       final=[1, 0, 0])
    plan = problem.solve(nodes=30, guess=run)
    line = problem.solve(nodes=30)
    assert plan.success and line.success
    np.testing.assert_allclose(plan.objective, 6.0, rtol=1e-6)  # u = 6 - 12 t: the integral of u^2 / 2
    np.testing.assert_allclose(line.objective, 6.0, rtol=1e-6)


def test_a_batch_of_stick_slip_runs_is_refused_with_the_way_to_run_it():
    model = block().stick_slip(0.5, 0.3, normal=9.81)
    with pytest.raises(TypeError, match="stick-slip model runs phase by phase.*nh.sweep"):
        nh.simulate_many(model, (0, 1), np.zeros((2, 4)))
    runs = [nh.simulate(model, (0, 1), y0) for y0 in np.zeros((2, 4))]  # the default: one at a time
    assert all(run.success for run in runs) and np.array_equal(runs[0].y, runs[1].y)


def test_a_run_says_which_methods_its_phases_ran():
    run = nh.simulate(block().stick_slip(0.5, 0.3, normal=9.81), (0, 3), [0, 0, 0, 0])
    assert run.method == ", ".join(dict.fromkeys(phase.method for phase in run.phases)) and run.method
    assert nh.simulate(block().stick_slip(0.5, 0.3, normal=9.81), (0, 3), [0, 0, 0, 0], method="bdf").method == "bdf"


def test_running_out_of_switches_tells_phases_of_their_own_from_chatter():
    """A block pushed by 2000 sin(...)-like forcing switches each period: its phases are real, and the
    warning said the contact chattered between the modes."""
    model = block(2000.0).stick_slip(0.5, 0.3, normal=9.81)
    with pytest.warns(nh.SimulationWarning, match=r"max_switches = 1000.*last phases lasted .* s on average"):
        run = nh.simulate(model, (0, 2), [0, 0, 0, 0])
    assert "chatter" not in run.message
    times = [s[0] for s in run.switches[-10:]]
    assert float(run.message.split("lasted ")[1].split(" s")[0]) == pytest.approx((times[-1] - times[0]) / 9,
                                                                                   rel=1e-2)
    with pytest.warns(nh.SimulationWarning, match=r"last 10 switches came within .* s, a contact chattering"):
        fast = nh.simulate(block(1e9).stick_slip(0.5, 0.3, normal=9.81), (0, 1), [0, 0, 0, 0],
                           solver_options={"max_switches": 20})
    assert fast.flag_name == "MAX_SWITCHES" and fast.switches[-1][0] < 1e-6


def test_the_set_valued_coulomb_law_is_its_coefficient():
    """help(nh.laws.Coulomb) said v_s=None is "usable only in a stick-slip model", which refused it
    (TypeError: mu_s must be a real number). It runs as mu_s = mu_k = mu; a law with a slip scale is
    refused naming mu_s and friction(law=)."""
    by_law = nh.simulate(block().stick_slip(nh.laws.Coulomb(0.5), normal=1.0), (0, 3), [0, 0, 0, 0], **TIGHT)
    by_number = nh.simulate(block().stick_slip(0.5, normal=1.0), (0, 3), [0, 0, 0, 0], **TIGHT)
    assert by_law.switches == by_number.switches and len(by_law.switches) >= 2
    np.testing.assert_allclose(by_law.switches[0][0], np.arcsin(0.5 / 8) / 2, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(by_law.y, by_number.y)
    for law in (nh.laws.Coulomb(0.5, v_s=0.01), nh.laws.Viscous(1.0)):
        with pytest.raises(ValueError, match=r"mu_s: stick_slip runs the set-valued Coulomb law.*friction\(law="):
            block().stick_slip(law, normal=1.0)
