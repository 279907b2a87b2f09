"""The reduced model of a nonlinear law (system.reduced(order=K, law=...)) as every model: pickled,
run in batches (nh.simulate_many), with events (state expressions and friction margins) and
sensitivities, each against the single run, the zero of the event function along the run, and finite
differences."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
LAW = nh.laws.Coulomb(0.5, v_s=1e-3)
Y0 = np.array([0, 0, 0, 1.0, 0, 0.4])
TIGHT = dict(rtol=1e-10, atol=1e-12)


def model(order=2, normal=9.81):
    return SLEIGH.reduced(order=order, law=LAW, normal=normal)


def test_the_model_pickles_as_the_call_that_made_it():
    original = model()
    back = pickle.loads(pickle.dumps(original))
    assert (back.order, back.law.name, back.state_names) == (2, "coulomb", original.state_names)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = rng.uniform(-1, 1, 3)
        u = SLEIGH.project(q, rng.uniform(-1, 1, 3))
        np.testing.assert_array_equal(back.rhs(0.2, np.r_[q, u]), original.rhs(0.2, np.r_[q, u]))
    a = nh.simulate(original, (0, 1), Y0, t_eval=[1.0], **TIGHT)
    b = nh.simulate(back, (0, 1), Y0, t_eval=[1.0], **TIGHT)
    np.testing.assert_array_equal(a.y, b.y)


def test_a_batch_is_each_run_of_simulate_and_a_start_outside_the_cone_fails_alone():
    m = model()
    Y = np.array([Y0, Y0 * [1, 1, 1, 1.5, 1, 1], Y0 * [1, 1, 1, 1, 1, 40.0]])  # the last needs |lambda| > mu N
    loads = {"m": [1.0, 1.3, 1.0]}
    with pytest.warns(nh.SimulationWarning, match="run"):
        batch = nh.simulate_many(m, (0, 2), Y, params=loads, t_eval=[1.0, 2.0], threads=2, **TIGHT)
    assert [r.status for r in batch] == [0, 0, -1] and "friction ratio" in batch[2].message
    for i in range(2):
        alone = nh.simulate(m, (0, 2), Y[i], params={"m": loads["m"][i]}, t_eval=[1.0, 2.0], **TIGHT)
        np.testing.assert_array_equal(batch[i].y, alone.y)
        np.testing.assert_array_equal(batch[i].friction_ratio, alone.friction_ratio)
        assert batch[i].model is m and batch[i].params["m"] == loads["m"][i]


def test_a_state_event_stops_the_run_where_the_heading_crosses_its_value():
    m = model()
    run = nh.simulate(m, (0, 2), Y0, events=nh.Event(sp.Symbol("phi") - 0.3, terminal=True), **TIGHT)
    assert run.status == 1 and run.flag_name != "SLOW_MANIFOLD_FOLD" and len(run.t_events) == 1
    np.testing.assert_allclose(run.y_events[0][0][2], 0.3, rtol=0, atol=1e-12)
    default = nh.simulate(m, (0, 2), Y0, t_eval=[run.t_events[0][0]], **TIGHT)  # no event: phi passes 0.3 there
    np.testing.assert_allclose(default["phi"][0], 0.3, rtol=0, atol=1e-8)


def test_a_friction_margin_event_is_located_at_the_zero_of_the_margin_along_the_run():
    """A load falling in time, N = 9.81 (1 - t / 4): the margin 0.1 N - |lambda| of the no-slip motion
    reaches zero mid-run, where the law's own friction ratio (mu = 0.5) is 0.2, far from its fold."""
    m = model(normal="9.81*(1 - t/4)")
    margin = SLEIGH.friction_margin(0.1, normal="9.81*(1 - t/4)")
    t = np.linspace(0, 3.5, 36)
    along = nh.simulate(m, (0, 3.5), Y0, t_eval=t, **TIGHT)
    # the event reads the state [q, u] as (q, v): the margin of the no-slip motion through (q, u)
    g = np.array([margin.value(y[:3], y[3:], ti) for ti, y in zip(along.t, along.y.T)])
    crossing = np.flatnonzero(np.diff(np.sign(g)) < 0)
    assert crossing.size == 1
    run = nh.simulate(m, (0, 3.5), Y0, events=nh.Event(margin, terminal=True, direction=-1), **TIGHT)
    assert run.status == 1 and run.flag_name != "SLOW_MANIFOLD_FOLD"
    t_event = run.t_events[0][0]
    assert t[crossing[0]] < t_event < t[crossing[0] + 1]
    y = run.y_events[0][0]
    np.testing.assert_allclose(margin.value(y[:3], y[3:], t_event), 0.0, rtol=0, atol=1e-10)
    at = nh.simulate(m, (0, 3.5), Y0, t_eval=[t_event], **TIGHT)  # the run without the event passes there
    np.testing.assert_allclose(at.y[:, 0], y, rtol=0, atol=1e-8)


def test_sensitivities_are_the_derivatives_of_the_run_by_central_differences():
    m = model(order=1)
    run = nh.simulate(m, (0, 1), Y0, sensitivities=["m"], t_eval=[1.0], **TIGHT)
    plain = nh.simulate(m, (0, 1), Y0, t_eval=[1.0], **TIGHT)  # the default: no sensitivities, the same run
    assert plain.sensitivities is None
    np.testing.assert_allclose(run.y, plain.y, rtol=1e-8)
    h, mass = 1e-5, run.params["m"]
    ends = [nh.simulate(m, (0, 1), Y0, params={"m": mass + s * h}, t_eval=[1.0], rtol=1e-13, atol=1e-15).y[:, -1]
            for s in (1, -1)]
    np.testing.assert_allclose(run.sensitivities[:, 0, -1], (ends[0] - ends[1]) / (2 * h), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("seed", [2, 3])
def test_the_start_on_a_laws_slow_manifold_is_the_reduced_models_velocity(seed):
    """system.on_slow_manifold(q, u, order=K, law=...) is v = u + sum_k eps^k h^(k), eps the law's
    scale: the q' of reduced(order=K, law=...) at [q, u] (to rounding), and the friction model of the
    law started from [q, v] follows the reduced model to O(eps^(K+1)): the order-2 start and model
    gain at least a factor 10 on order 1 (random systems, regularized Coulomb at v_s = 1e-3). The
    default, eps, is the linear law's, and exactly one of eps and law= is taken."""
    system = nh.testing.random_system(seed, n=4, k=2)
    rng = np.random.default_rng(seed)
    q = rng.uniform(-0.5, 0.5, 4)
    u = system.project(q, rng.normal(size=4))
    law, normal = nh.laws.Coulomb(2.0, 1e-3), [1.0, 1.0]
    errors = []
    for K in (0, 1, 2):
        reduced = system.reduced(order=K, law=law, normal=normal)
        v = system.on_slow_manifold(q, u, order=K, law=law, normal=normal)
        assert np.abs(v - reduced.rhs(0.0, np.r_[q, u])[:4]).max() <= 1e-15 * (1 + np.abs(v).max())
        friction = nh.simulate(system.friction(law=law, normal=normal), (0, 1), np.r_[q, v], **TIGHT)
        run = nh.simulate(reduced, (0, 1), np.r_[q, u], **TIGHT)
        errors.append(np.abs(run.y[:4, -1] - friction.y[:4, -1]).max())
    assert errors[2] < errors[1] / 10 < errors[0] / 100
    assert np.array_equal(system.on_slow_manifold(q, u, 1e-3, order=2),
                          system._core_slow_manifold_velocity(2, 1e-3, 0.0, np.r_[q, u]))
    for args, kwargs in (((q, u, 1e-3), {"law": law, "normal": normal}), ((q, u), {})):
        with pytest.raises(ValueError, match="needs eps .* or law="):
            system.on_slow_manifold(*args, **kwargs)


def test_a_negative_load_at_the_start_is_refused_as_a_lift_off():
    """A sleigh on a Coulomb law whose load 9.81 - 100 x' is -90.19 at the start: the reduced model's run
    failed at t = 0 with "|lambda| / (saturation N) = -0 >= 1, where the slow manifold folds" (its
    velocity u + s needs the law's slip, undefined there); it is refused as the friction model's run is,
    the contact lifted off. The default load (9.81) runs."""
    sleigh = nh.systems.chaplygin_sleigh()
    law = nh.laws.Coulomb(0.5, v_s=1e-3)
    y0 = [0, 0, 0, 1.0, 0, 0]
    for model in (sleigh.reduced(order=1, law=law, normal=9.81 - 100 * sleigh.symbol("x_dot")),
                  sleigh.friction(law=law, normal=9.81 - 100 * sleigh.symbol("x_dot"))):
        with pytest.raises(ValueError, match=r"normal load of contact 0 is N = -90.19 < 0 at the start"):
            nh.simulate(model, (0, 1), y0)
    assert nh.simulate(sleigh.reduced(order=1, law=law, normal=9.81), (0, 1), y0).success
