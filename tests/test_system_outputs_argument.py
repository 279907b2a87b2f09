"""System(outputs=...) is checked when the system is built: a mapping of names to callables. An
expression or a number there failed only at result[name] ("'Symbol' object is not callable"), a
string failed with "dictionary update sequence element #0 has length 1", and a name that is not a
string was accepted and never reachable."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y = sp.symbols("x y")


@pytest.mark.parametrize("outputs, message", [
    ({"a": 5}, r"outputs\['a'\] must be a callable"), ({"a": x}, r"outputs\['a'\] must be a callable"),
    ({1: lambda q, v, p: q[0]}, "the names must be non-empty strings"), ("abc", "outputs must be a mapping"),
    ([("a", abs)], "outputs must be a mapping")])
def test_outputs_that_are_not_named_callables_are_refused(outputs, message):
    with pytest.raises(TypeError, match=message):
        nh.System([x, y], sp.eye(2), outputs=outputs)


def test_named_callables_are_outputs_and_none_is_the_default():
    assert nh.System([x, y], sp.eye(2)).outputs == {}
    system = nh.System([x, y], sp.eye(2), outputs={"radius": lambda q, v, p: np.hypot(q[0], q[1])})
    run = nh.simulate(system.nonholonomic(), (0, 1), [3, 4, 0, 0], t_eval=[0, 1])
    np.testing.assert_allclose(run["radius"], [5.0, 5.0])


def test_indefinite_metric_is_a_boolean():
    with pytest.raises(TypeError, match="indefinite_metric"):
        nh.System([x, y], sp.eye(2), indefinite_metric="no")
    assert nh.System([x, y], sp.eye(2)).indefinite_metric is False
