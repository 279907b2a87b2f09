"""A friction model's eps that follows the parameters it is a function of (System.friction_scale,
nonholo.system.friction_scale): the single-track car's tires, eps = |U| / C, C = (C_f + C_r) / 2.

Before, eps stayed as the model was built: a run with params={"C_f": 6e4} turned 5.6% faster than the
car with that stiffness (both stiffnesses 8/7 of the new ones), and an eigenvalue path over U of an
oversteering car found no critical speed in [20, 60] m/s where the closed form gives 39.53 (an outside
probe). References: the closed forms of the linear single-track model (yaw-rate gain, critical
speed and stiffness) and runs of cars built at the new values; sensitivities against central
differences."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.single_track_car import characteristic_speed, tire_eps, yaw_rate_gain

OVERSTEER = dict(m=1200.0, I_z=1800.0, l_f=1.0, l_r=1.5, C_f=9.0e4, C_r=5.0e4, k_d=1200.0)


def settled_gain(model, U, params=None):
    run = nh.simulate(model, (0, 30), [0, 0, 0, U, 0, 0], params=params, t_eval=[30], rtol=1e-10, atol=1e-12)
    return run["psi_dot"][-1] / 0.01


def test_a_run_that_changes_a_stiffness_or_the_speed_moves_the_tires_eps():
    car = nh.systems.single_track_car()
    model = car.friction(tire_eps(10, 8e4, 8e4))
    assert model.eps_at() == model.eps == tire_eps(10, 8e4, 8e4)  # the default path: as built
    assert model.eps_at({"U": 30}) == pytest.approx(tire_eps(30, 8e4, 8e4), rel=1e-15)
    assert model.eps_at({"C_f": 6e4}) == pytest.approx(tire_eps(10, 6e4, 8e4), rel=1e-15)
    assert model.eps_at({"U": -5}) == pytest.approx(tire_eps(5, 8e4, 8e4), rel=1e-15)  # reversing
    assert model.eps_at({"U": 30, "eps": 1e-4}) == 1e-4  # given: as it is
    rebuilt = nh.systems.single_track_car(C_f=6e4)
    fresh = settled_gain(rebuilt.friction(tire_eps(10, 6e4, 8e4)), 10)
    assert settled_gain(model, 10, {"C_f": 6e4}) == pytest.approx(fresh, rel=1e-9)  # 5.6% above it before
    assert fresh == pytest.approx(yaw_rate_gain(10, 1500, 1.2, 1.4, 6e4, 8e4), rel=2e-3)
    at_30 = settled_gain(model, 30, {"U": 30})
    assert at_30 == pytest.approx(settled_gain(model, 30, {"U": 30, "eps": tire_eps(30, 8e4, 8e4)}), rel=1e-12)
    assert at_30 == pytest.approx(yaw_rate_gain(30, 1500, 1.2, 1.4, 8e4, 8e4), rel=3e-3)  # 9.8837 for 7.6961 before
    # friction() is the car's own tires; a model built with another eps keeps it (an eps computed for
    # the parameters a run passes, or a study of eps)
    assert car.friction().eps == model.eps and car.friction().eps_at({"U": 30}) == model.eps_at({"U": 30})
    other = car.friction(tire_eps(30, 6e4, 6e4))
    assert other.eps_at({"U": 30, "C_f": 6e4, "C_r": 6e4}) == other.eps == tire_eps(30, 6e4, 6e4)
    assert car.friction(1e-6).eps_at({"U": 30}) == 1e-6
    with pytest.raises(TypeError, match="friction_scale"):
        nh.systems.chaplygin_sleigh().friction()
    # the reduced model of order 2 follows as the friction model does
    reduced = car.reduced(tire_eps(10, 8e4, 8e4), order=2)
    assert reduced.eps_at({"U": 30}) == pytest.approx(tire_eps(30, 8e4, 8e4), rel=1e-15)
    # a new system from a with_* method carries the scale
    assert car.with_parameters({"k_d": 1000.0}).friction_scale == car.friction_scale


def test_the_critical_speed_and_stiffness_of_an_oversteering_car():
    car = nh.systems.single_track_car(**OVERSTEER, delta=0.0, U=10.0)
    model = car.friction(tire_eps(10.0, OVERSTEER["C_f"], OVERSTEER["C_r"]))
    (speed,) = nh.critical_values(model, "U", np.linspace(20, 60, 9), lambda U: [0, 0, 0, U, 0, 0])
    critical = characteristic_speed(*(OVERSTEER[k] for k in ("m", "l_f", "l_r", "C_f", "C_r")))
    assert speed.kind == "divergence" and speed.direction == "destabilizing"
    assert speed.value == pytest.approx(critical, rel=1e-9)  # 39.528; none found before
    # the rear stiffness at which the straight run at 30 m/s loses stability: 1 + K_us U^2 / L = 0
    m, l_f, l_r, C_f = (OVERSTEER[k] for k in ("m", "l_f", "l_r", "C_f"))
    L, U = l_f + l_r, 30.0
    C_r = l_f / (l_r / C_f + L**2 / (m * U**2))
    (stiffness,) = nh.critical_values(model, "C_r", np.linspace(3e4, 6e4, 7), lambda c: [0, 0, 0, U, 0, 0],
                                      params={"U": U})
    assert stiffness.value == pytest.approx(C_r, rel=1e-9)  # 44536.08; 44030.67 before


def test_sensitivities_to_the_parameters_eps_follows_are_total_derivatives():
    car = nh.systems.single_track_car(C_f=6e4)
    model = car.friction(tire_eps(10, 6e4, 8e4))
    y0, t = [0, 0, 0, 10, 0, 0], np.linspace(0, 3, 7)
    tight = dict(t_eval=t, rtol=1e-12, atol=1e-14)
    run = nh.simulate(model, (0, 3), y0, sensitivities=["C_f", "U"], t_eval=t, rtol=1e-10, atol=1e-12)
    assert run.sensitivity_names == ["C_f", "U"] and run.sensitivities.shape == (6, 2, 7)
    held = nh.simulate(model, (0, 3), y0, sensitivities=["C_f"], params={"eps": model.eps}, t_eval=t, rtol=1e-10,
                       atol=1e-12)
    for j, (name, h) in enumerate((("C_f", 10.0), ("U", 1e-4))):
        base = model.params[name]
        up, down = (nh.simulate(model, (0, 3), y0, params={name: base + s}, **tight).y for s in (h, -h))
        fd = (up - down) / (2 * h)
        assert np.abs(run.sensitivities[:, j] - fd).max() < 1e-6 * np.abs(fd).max(), name
    up, down = (nh.simulate(model, (0, 3), y0, params={"C_f": 6e4 + s, "eps": model.eps}, **tight).y for s in (10, -10))
    fd = (up - down) / 20
    assert np.abs(held.sensitivities[:, 0] - fd).max() < 1e-6 * np.abs(fd).max()  # eps given: held fixed
    batch = nh.simulate_many(model, (0, 3), np.array([y0, y0]), params={"C_f": [6e4, 7e4]}, sensitivities=["C_f"],
                             t_eval=t, rtol=1e-10, atol=1e-12)
    one = nh.simulate(model, (0, 3), y0, params={"C_f": 7e4}, sensitivities=["C_f"], t_eval=t, rtol=1e-10,
                      atol=1e-12)
    assert batch[1].sensitivity_names == ["C_f"] and np.array_equal(batch[1].sensitivities, one.sensitivities)
    data = nh.simulate(model, (0, 3), y0, params={"C_f": 7e4}, **tight)
    fit = nh.fit(model, t, data.y[[2, 5]], {"C_f": 6e4}, y0, observe=["psi", "psi_dot"])
    assert fit.success and fit.params["C_f"] == pytest.approx(7e4, rel=1e-7)


def test_a_system_of_ones_own_with_a_friction_scale():
    """A sleigh whose knife edge is a viscous contact of stiffness k: eps = 1 / k."""
    x, y, phi, k = sp.symbols("x y phi k")
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)],
                   [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), 1.04]])
    sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]), parameters={k: 1e3})
    sleigh.friction_scale = 1 / k
    model = sleigh.friction(1e-3)
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    follows = nh.simulate(model, (0, 2), y0, params={"k": 1e4}, t_eval=[2], rtol=1e-10, atol=1e-12)
    given = nh.simulate(model, (0, 2), y0, params={"eps": 1e-4}, t_eval=[2], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(follows.y, given.y, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match=r"friction scale 1/k .* is -1.0 at k = -1"):
        nh.simulate(model, (0, 2), y0, params={"k": -1.0})
    sleigh.friction_scale = 1 / sp.Symbol("stiffness")
    with pytest.raises(ValueError, match=r"friction_scale .* uses \['stiffness'\], which are not parameters"):
        sleigh.friction()
    assert sleigh.friction(1e-3).eps_at({"k": 2.0}) == 1e-3  # an eps of its own: the scale unused


def test_a_scale_without_a_value_is_named_and_blocks_only_the_models_that_use_it():
    """A second probe's 1/k at k = 0 raised a bare ZeroDivisionError, I/k a bare TypeError, and either
    refused friction(0.01), a model with an eps of its own that never uses the scale."""
    x, y, phi, k = sp.symbols("x y phi k")
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)],
                   [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), 1.04]])
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    for scale, k0, where in ((1 / k, 0.0, "k = 0"), (sp.I / k, 1e3, "k = 1000")):
        sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                           parameters={k: k0})
        sleigh.friction_scale = scale
        with pytest.raises(ValueError, match=rf"friction_scale .* has no real value at {where} "):
            sleigh.friction()
        assert nh.simulate(sleigh.friction(0.01), (0, 1), y0).success
    sleigh.friction_scale = 1 / k  # followed at k = 1000, undefined at a run's k = 0
    with pytest.raises(ValueError, match=r"has no real value at k = 0"):
        nh.simulate(sleigh.friction(), (0, 1), y0, params={"k": 0.0})


def test_a_model_keeps_the_scale_it_was_built_with():
    """An outside probe set a system's friction_scale to one it could not evaluate after building a model: the
    model then ran at its built eps without a word (a run at k = 1e4 as at k = 1e3). A model now keeps the
    scale it was built with; reduced() takes its default eps from the scale, as friction() does."""
    x, y, phi, k = sp.symbols("x y phi k")
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)],
                   [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), 1.04]])
    sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]), parameters={k: 1e3})
    sleigh.friction_scale = 1 / k
    model, reduced = sleigh.friction(), sleigh.reduced(order=1)
    assert model.eps == reduced.eps == 1e-3
    sleigh.friction_scale = sp.Symbol("zq") / k  # not a parameter: friction() refuses it, built models keep 1/k
    with pytest.raises(ValueError, match=r"uses \['zq'\]"):
        sleigh.friction()
    assert model.eps_at({"k": 1e4}) == reduced.eps_at({"k": 1e4}) == pytest.approx(1e-4, rel=1e-15)
    y0 = [0, 0, 0, 1.0, 0, 0.5]
    at_k = nh.simulate(model, (0, 1), y0, params={"k": 1e4}, t_eval=[1], rtol=1e-10, atol=1e-12)
    direct = nh.simulate(model, (0, 1), y0, params={"eps": 1e-4}, t_eval=[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(at_k.y, direct.y, rtol=0, atol=1e-12)
    plain = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]))
    with pytest.raises(TypeError, match=r"reduced\(\) needs eps"):
        plain.reduced(order=1)


def test_messages_name_a_bad_scale_and_a_bad_grid():
    """An outside probe's adversarial cases: friction_scale = [k] gave AttributeError ('list' object has no
    attribute 'free_symbols'), nh.sweep(f, None) 'NoneType' object is not iterable, a grid axis of unequal
    lists NumPy's 'inhomogeneous shape', and an integer grid key failed at every point."""
    x, y, k = sp.symbols("x y k")
    system = nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[1, -1]]), parameters={k: 2.0})
    system.friction_scale = [k]
    with pytest.raises(TypeError, match=r"friction_scale of .* must be a SymPy expression"):
        system.friction()
    assert system.friction(0.5).eps_at({"k": 3.0}) == 0.5  # a model with its own eps runs
    with pytest.raises(TypeError, match=r"grid must be a mapping name -> values or a sequence of mappings, got None"):
        nh.sweep(lambda a: a, None)
    with pytest.raises(ValueError, match=r"grid\['a'\] must be a non-empty 1-d sequence"):
        nh.sweep(lambda a: a, {"a": [[1, 2], [3]]})
    with pytest.raises(TypeError, match=r"grid's keys must be names"):
        nh.sweep(lambda a: a, {1: [1, 2]})
    assert list(nh.sweep(lambda a: 2 * a, {"a": [1, 2]}, progress=False).values["value"]) == [2, 4]


def test_a_scale_given_as_a_string_a_matrix_or_in_symbols_of_other_assumptions():
    """An outside probe: a string scale was sympified (evaluated: it could run code), a parameter declared
    positive was not found by a plain Symbol of its name (refused as unknown), and a 1 x 1 Matrix raised a
    bare NameError from the lambdified code."""
    x, y, phi = sp.symbols("x y phi")
    k = sp.Symbol("k", positive=True)
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)],
                   [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), 1.04]])
    sleigh = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]), parameters={k: 1e3})
    for scale in ("1/k", 1 / sp.Symbol("k"), 1 / k):  # the default path: the system's own symbol
        sleigh.friction_scale = scale
        assert sleigh.friction().eps_at({"k": 1e4}) == pytest.approx(1e-4, rel=1e-15)
    sleigh.friction_scale = "__import__('os').getpid() or 0.01"
    with pytest.raises(ValueError, match=r"friction_scale: the string .* is refused"):
        sleigh.friction()
    sleigh.friction_scale = sp.Matrix([0.01])
    with pytest.raises(TypeError, match=r"friction_scale of .* must be a SymPy expression .* got Matrix"):
        sleigh.friction()
