"""Strings given as expressions are parsed, never evaluated: a string that runs code through
sympify (``nh.Event("__import__('os').system(...) or phi")`` ran the command) is refused with a
ValueError naming the argument and asking for a SymPy expression; plain arithmetic strings give
the same expressions sympify gives."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.builders.bodies import RigidBody
from nonholo.expressions.parsing import parse, to_sympy

x, y, phi = sp.symbols("x y phi")


def _payload(flag):
    return f"__import__('pathlib').Path({str(flag)!r}).touch() or phi"


def _attacks(flag):
    """Every public entry point a user string reaches, with the payload in it."""
    code = _payload(flag)
    return {
        "Event expression": lambda: nh.Event(code),
        "potential": lambda: nh.System([x, y], sp.eye(2), potential=code),
        "metric": lambda: nh.System([x, y], [[code, 0], [0, 1]]),
        "constraints": lambda: nh.System([x, y], sp.eye(2), constraints=[[1, code]]),
        "force": lambda: nh.System([x, y], sp.eye(2), force=[code, 0]),
        "friction": lambda: nh.System([x, y], sp.eye(2), constraints=[[1, 1]], friction=[[code]]),
        "holonomic": lambda: nh.System([x, y], sp.eye(2), holonomic=[code]),
        "lagrangian": lambda: nh.System.from_lagrangian(code, [x], [sp.Symbol("x_dot")]),
        "mass": lambda: RigidBody(code, sp.eye(3)),
    }


@pytest.mark.parametrize("argument", list(_attacks("unused")))
def test_a_string_that_runs_code_is_refused_and_not_run(tmp_path, argument):
    flag = tmp_path / "ran"
    with pytest.raises(ValueError, match=f"{argument}: the string .* is refused: .*pass a SymPy expression"):
        _attacks(flag)[argument]()
    assert not flag.exists()


@pytest.mark.parametrize("text", ["x.__class__", "lambda: x", "[x][0]", "x if y else phi", "f(x)", "sin(x, k=1)",
                                  "'a' * 3", "9**9**9", "(9**4096)**4096", "x +", "(x for x in y)", "x < y"])
def test_what_is_not_plain_arithmetic_is_refused(text):
    with pytest.raises(ValueError, match="Event expression: the string .* is refused"):
        nh.Event(text)


@pytest.mark.parametrize("text", ["phi - 1", "m*g*y + x**2/2", "sin(x)^2 + 1/2", "-x + 0.1*y", "atan2(y, x)*pi",
                                  "sqrt(x**2 + y**2) - exp(-x) + Abs(log(y))", "2**10 * x**-3", "1e-3*x"])
def test_plain_arithmetic_strings_give_what_sympify_gives(text):
    assert parse(text) == sp.sympify(text)


def test_strings_still_build_and_run_systems():
    """A system and an event written as strings give the run of the same system written in SymPy."""
    m, g = sp.symbols("m g")
    by_string = nh.System([x, y], [["m", 0], [0, "m"]], potential="m*g*y", parameters={"m": 2.0, "g": 9.81})
    by_sympy = nh.System([x, y], sp.diag(m, m), potential=m * g * y, parameters={m: 2.0, g: 9.81})
    runs = [nh.simulate(s.nonholonomic(), (0, 2), [0, 1, 1, 0], events=[nh.Event("y", terminal=True)])
            for s in (by_string, by_sympy)]
    assert np.array_equal(runs[0].y, runs[1].y) and runs[0].status == 1
    assert abs(runs[0].t[-1] - np.sqrt(2 / 9.81)) < 1e-6  # fell from y = 1


def test_objects_that_are_not_expressions_are_refused_by_type():
    class Sneaky:
        def __str__(self):
            return "__import__('os').getcwd()"

    with pytest.raises(TypeError, match="potential must be a SymPy expression or a number, got Sneaky"):
        to_sympy(Sneaky(), "potential")
    assert to_sympy(["x", 1, ("y", 2.5)]) == [x, 1, (y, sp.Float(2.5))]


@pytest.mark.parametrize("extend", ["with_potential", "with_force", "with_constraints", "with_constraints friction"])
def test_extending_a_system_parses_its_strings_without_running_them(tmp_path, extend):
    """The ``System.with_*`` methods are entry points too: the payload is refused and never runs,
    and plain strings still extend the system."""
    flag = tmp_path / "ran"
    code = _payload(flag).replace(" or phi", "")
    sleigh = nh.systems.chaplygin_sleigh()
    calls = {
        "with_potential": lambda: sleigh.with_potential(code + " + x"),
        "with_force": lambda: sleigh.with_force([code, 0, 0]),
        "with_constraints": lambda: sleigh.with_constraints([code, 0, 0]),
        "with_constraints friction": lambda: sleigh.with_constraints([1, 0, 0], friction=code),
    }
    with pytest.raises(ValueError, match="is refused: .*pass a SymPy expression"):
        calls[extend]()
    assert not flag.exists()
    assert sleigh.with_potential("m*x").potential == sleigh.potential + sleigh.symbol("m") * sleigh.symbol("x")
