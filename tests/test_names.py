"""Names work with assumptions (issue 28): wherever a symbol can be given by name, the name (or a
symbol of that name with other assumptions) means the system's symbol of that name; two
different symbols of one name in a system are refused with both named."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

m, I, a = sp.symbols("m I a", positive=True)
x, y, phi = sp.symbols("x y phi", real=True)
VALUES = {"m": 1.0, "I": 1.0, "a": 0.2}
Y0 = [0.0, 0.0, 0.0, 1.0, 0.0, 0.5]


def sleigh(parameters=None, metric_extra=0):
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a ** 2 + metric_extra]])
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    return nh.System([x, y, phi], G, constraints=A, parameters=VALUES if parameters is None else parameters)


@pytest.fixture(scope="module")
def system():
    return sleigh()


def reference(params):
    """The same sleigh with plain symbols everywhere: what every spelling must reproduce."""
    mp, Ip, ap, php = sp.symbols("m I a phi")
    G = sp.Matrix([[mp, 0, -mp * ap * sp.sin(php)], [0, mp, mp * ap * sp.cos(php)],
                   [-mp * ap * sp.sin(php), mp * ap * sp.cos(php), Ip + mp * ap ** 2]])
    plain = nh.System(sp.symbols("x y phi"), G, constraints=[[-sp.sin(php), sp.cos(php), 0]], parameters=VALUES)
    return nh.simulate(plain.nonholonomic(), (0, 2), Y0, t_eval=[2.0], params=params, rtol=1e-10, atol=1e-12).y[:, -1]


def test_parameters_by_name_bind_to_symbols_with_assumptions(system):
    assert list(system.parameters) == [m, I, a]  # the expressions' symbols, not plain ones
    by_symbol = sleigh({sp.Symbol("m"): 1.0, sp.Symbol("I"): 1.0, sp.Symbol("a"): 0.2})  # plain keys
    assert list(by_symbol.parameters) == [m, I, a]


@pytest.mark.parametrize("key", ["a", sp.Symbol("a"), a])
def test_simulate_params_by_name_or_symbol(system, key):
    sol = nh.simulate(system.nonholonomic(), (0, 2), Y0, t_eval=[2.0], params={key: 0.35}, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol.y[:, -1], reference({"a": 0.35}), rtol=0, atol=1e-12)


def test_simulate_many_and_sweep_by_symbol(system):
    runs = nh.simulate_many(system.nonholonomic(), (0, 2), Y0, params={sp.Symbol("a"): [0.2, 0.35]},
                            t_eval=[2.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(runs[1].y[:, -1], reference({"a": 0.35}), rtol=0, atol=1e-12)

    def end_x(a):
        return nh.simulate(system.nonholonomic(), (0, 2), Y0, t_eval=[2.0], params={"a": a}, rtol=1e-10,
                           atol=1e-12).y[0, -1]

    swept = nh.sweep(end_x, {a: [0.2, 0.35]})  # a grid keyed by the symbol with assumptions
    assert swept.coords["a"].tolist() == [0.2, 0.35]
    np.testing.assert_allclose(swept.values["value"], [reference({"a": 0.2})[0], reference({"a": 0.35})[0]],
                               rtol=0, atol=1e-12)


def test_sensitivities_and_fit_by_symbol(system):
    model = system.nonholonomic()
    by_name = nh.simulate(model, (0, 2), Y0, t_eval=[2.0], sensitivities=["a"], method="bdf")
    by_symbol = nh.simulate(model, (0, 2), Y0, t_eval=[2.0], sensitivities=[sp.Symbol("a")], method="bdf")
    np.testing.assert_array_equal(by_name.sensitivities, by_symbol.sensitivities)
    assert by_symbol.sensitivity_names == ["a"]
    t = np.linspace(0.5, 2, 6)
    data = nh.simulate(model, (0, 2), Y0, t_eval=np.r_[0, t], params={"a": 0.3}, rtol=1e-11, atol=1e-13).y[:2, 1:]
    res = nh.fit(model, t, data, params={a: 0.25}, y0=Y0, observe=["x", "y"], t_span=(0, 2))
    assert res.names == ["a"] and abs(res.params["a"] - 0.3) < 1e-6
    assert list(res.stderr) == ["a"]


def test_event_on_a_real_coordinate_by_plain_symbol(system):
    event = nh.Event(sp.Symbol("phi") - 0.3, terminal=True)  # phi was declared real=True
    sol = nh.simulate(system.nonholonomic(), (0, 5), Y0, events=event, rtol=1e-10, atol=1e-12)
    assert sol.status == 1
    assert abs(sol.y_events[0][0][2] - 0.3) < 1e-9
    # parameters in events by name too
    sol = nh.simulate(system.nonholonomic(), (0, 5), Y0, events=nh.Event(sp.Symbol("phi") - sp.Symbol("a"),
                                                                          terminal=True), rtol=1e-10, atol=1e-12)
    assert abs(sol.y_events[0][0][2] - 0.2) < 1e-9


def test_two_symbols_of_one_name_are_refused():
    with pytest.raises(nh.ModelError, match=r"two different symbols are named 'm': .*positive=True.*no assumptions"
                                            r"|two different symbols are named 'm': .*no assumptions.*positive=True"):
        sleigh(metric_extra=sp.Symbol("m"))
    with pytest.raises(nh.ModelError, match=r"named 'phi': phi \(real=True\) in coordinates and phi "
                                            r"\(no assumptions\) in metric"):
        nh.System([x, y, phi], sp.diag(1, 1, 1 + sp.Symbol("phi") ** 2))
    with pytest.raises(ValueError, match="parameters gives 'm' twice"):
        sleigh({"m": 1.0, sp.Symbol("m"): 2.0, "I": 1.0, "a": 0.2})


def test_time_and_velocities_by_name():
    t = sp.Symbol("t", real=True)
    xd = sp.Symbol("x_dot", real=True)
    s = nh.System([x], sp.Matrix([[1]]), force=[sp.cos(t) - xd])  # default time and velocity found by name
    assert s.time is t and s.velocities == (xd,)
    sol = nh.simulate(s.nonholonomic(), (0, 1), [0.0, 0.0], t_eval=[1.0], rtol=1e-11, atol=1e-13)
    # x'' = cos t - x', x(0) = x'(0) = 0: x' = (cos t + sin t - e^-t) / 2
    assert abs(sol.y[1, -1] - (np.cos(1) + np.sin(1) - np.exp(-1)) / 2) < 1e-9


def test_from_kanes_method_with_positive_parameters_by_name():
    import sympy.physics.mechanics as me
    q, u = me.dynamicsymbols("q u")
    mass, k = sp.symbols("mass k", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q * N.x)
    P.set_vel(N, u * N.x)
    km = me.KanesMethod(N, [q], [u], kd_eqs=[q.diff() - u])
    km.kanes_equations([me.Particle("p", P, mass)], [(P, -k * q * N.x)])
    s = nh.System.from_kanes_method(km, {"mass": 2.0, "k": 8.0})
    assert {str(p) for p in s.parameters} == {"mass", "k"} and mass in s.parameters
    sol = nh.simulate(s.nonholonomic(), (0, 1), [1.0, 0.0], t_eval=[1.0], params={"k": 2.0}, rtol=1e-11,
                      atol=1e-13)
    assert abs(sol.y[0, -1] - np.cos(1.0)) < 1e-8  # omega = sqrt(k / mass) = 1
