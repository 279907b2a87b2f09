"""Arguments given twice or to nothing, named by what the caller wrote (an outside probe's list):
a parameter given by its name and by its symbol (the last one won, silently); sweep's threads with an
executor (ignored); fit's params naming one twice (blamed on sensitivities); an unknown keyword of
System.from_kanes_method (named the internal kanes_method_arguments()); a list as one Event
(a bare "unhashable type: 'list'" at simulate)."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from concurrent.futures import ThreadPoolExecutor

import nonholo as nh

SLEIGH_START = [0, 0, 0, 1.0, 0, 0.5]


def test_a_parameter_given_by_name_and_by_symbol_is_refused():
    sleigh = nh.systems.chaplygin_sleigh()
    m = next(s for s in sleigh.parameters if s.name == "m")
    with pytest.raises(ValueError, match=r"params gives parameter 'm' twice \(by its name and by its symbol\)"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, params={"m": 2.0, m: 3.0})
    by_name = nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, params={"m": 3.0})
    by_symbol = nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, params={m: 3.0})
    default = nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START)
    np.testing.assert_array_equal(by_name.y, by_symbol.y)
    assert np.abs(by_name.y[:, -1] - default.y[:, -1]).max() > 1e-3


def test_sweep_refuses_threads_with_an_executor():
    with ThreadPoolExecutor(2) as pool, pytest.raises(ValueError, match="give one of threads and executor"):
        nh.sweep(lambda a: 2 * a, {"a": [1.0, 2.0]}, executor=pool, threads=2, progress=False)
    with ThreadPoolExecutor(2) as pool:
        assert list(nh.sweep(lambda a: 2 * a, {"a": [1.0, 2.0]}, executor=pool, progress=False)
                    .values["value"]) == [2.0, 4.0]


def test_fit_names_a_parameter_given_twice_in_params():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    t = np.linspace(0, 1, 5)
    y = nh.simulate(model, (0, 1), SLEIGH_START, t_eval=t).y
    with pytest.raises(ValueError, match=r"params names \['a'\] more than once"):
        nh.fit(model, t, y, params=["a", "a"], y0=SLEIGH_START)


def test_from_kanes_method_names_itself_for_an_unknown_keyword():
    x, u = me.dynamicsymbols("x u")
    N = me.ReferenceFrame("N")
    P = me.Point("P")
    P.set_vel(N, u * N.x)
    km = me.KanesMethod(N, [x], [u], kd_eqs=[x.diff() - u])
    km.kanes_equations([me.Particle("p", P, 1)], [])
    with pytest.raises(TypeError, match=r"System.from_kanes_method\(\) got unexpected keyword arguments \['stat'\]"):
        nh.System.from_kanes_method(km, stat="qdot")
    assert nh.System.from_kanes_method(km, state="qdot").nonholonomic().state_names == ["x", "x_dot"]


def test_a_list_is_not_one_event():
    theta, x = sp.symbols("phi x")
    with pytest.raises(TypeError, match=r"Event expression must be one scalar expression, got a list"):
        nh.Event([theta, x])
    run = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 5), SLEIGH_START,
                      events=[nh.Event(theta - 1), nh.Event(sp.Symbol("x") - 0.5)])
    assert len(run.t_events) == 2 and run.t_events[0].size == 1


def test_the_retry_with_segments_starts_a_sentence_of_its_own():
    """vakonomic_bvp retries with 4 segments; its message ran the two together ('...constraint With 4
    segments: ...'). An integrable constraint z' = x' with the goal off its leaf fails both."""
    x, y, z = sp.symbols("x y z")
    system = nh.System([x, y, z], sp.eye(3), constraints=sp.Matrix([[-1, 0, 1]]))
    with pytest.raises(nh.ShootingError, match=r"integrable constraint\. With 4 segments: vakonomic_bvp failed"):
        nh.vakonomic_bvp(system, [0, 0, 0], [1, 0.5, 0.3], 1.0)
