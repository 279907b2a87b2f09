"""The ``>>>`` examples in the docstrings of the public API run and print what they show.

Each module below is run with the standard library's doctest (the examples round what they print,
so no float-comparison option is needed); a second test checks that the most used public names
keep an example, so that one cannot be dropped silently.
"""

import doctest
import importlib

import pytest

import nonholo as nh

MODULES = [
    "nonholo.system.system",
    "nonholo.integrate.simulation",
    "nonholo.systems.chaplygin_sleigh",
    "nonholo.analysis.stability.linearize",
    "nonholo.analysis.sweeps",
    "nonholo.analysis.fitting",
    "nonholo.analysis.car_paths",
    "nonholo.builders.contact",
    "nonholo.control.kinematic",
    "nonholo.analysis.stability.steady",
    "nonholo.analysis.stability.eigenpath",
    "nonholo.integrate.discrete",
    "nonholo.analysis.bvp",
    "nonholo.integrate.events",
]

# The public names that must carry an example (each documented in one of MODULES).
WITH_EXAMPLES = [nh.System, nh.System.nonholonomic, nh.System.friction, nh.System.reduced, nh.simulate,
                 nh.simulate_many, nh.systems.chaplygin_sleigh, nh.linearize, nh.sweep, nh.fit,
                 nh.System.from_kanes_method, nh.contact.roll_on_plane, nh.analysis.reeds_shepp_length,
                 nh.analysis.dubins_length, nh.steady_motions, nh.eigenvalue_path, nh.critical_values,
                 nh.simulate_discrete, nh.vakonomic_bvp, nh.Event]

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    tests = [t for t in doctest.DocTestFinder().find(module, name) if t.examples]
    assert tests, f"{name} has no docstring examples"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (output above)"


@pytest.mark.parametrize("obj", WITH_EXAMPLES, ids=lambda obj: obj.__qualname__)
def test_public_names_have_examples(obj):
    doc = obj.__doc__ or ""
    assert "Examples\n" in doc and ">>> " in doc, f"{obj.__qualname__}'s docstring has no Examples section"
    assert obj.__module__ in MODULES, f"{obj.__module__} is not run by test_docstring_examples_run"
