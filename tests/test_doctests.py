"""The ``>>>`` examples in the docstrings of the public API run and print what they show.

Each module below is run with the standard library's doctest (the examples round what they print,
so no float-comparison option is needed); a second test checks that the most used public names
keep an example, so that one cannot be dropped silently; a third that every module of the package
whose source has a ``>>>`` example is in the list, so that a new example cannot go unrun.
"""

import doctest
import importlib
from pathlib import Path

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
    "nonholo.control.problem",
    "nonholo.expressions.laws",
    "nonholo.system.extend",
]

# The public names that must carry an example (each documented in one of MODULES).
WITH_EXAMPLES = [nh.System, nh.System.nonholonomic, nh.System.friction, nh.System.reduced, nh.simulate,
                 nh.simulate_many, nh.systems.chaplygin_sleigh, nh.linearize, nh.sweep, nh.fit,
                 nh.System.from_kanes_method, nh.contact.roll_on_plane, nh.analysis.reeds_shepp_length,
                 nh.analysis.dubins_length, nh.steady_motions, nh.eigenvalue_path, nh.critical_values,
                 nh.simulate_discrete, nh.vakonomic_bvp, nh.Event, nh.OptimalControlProblem, nh.laws.Law,
                 nh.System.with_force]

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


def test_every_module_with_examples_is_run():
    """The modules whose source shows a ``>>>`` example are exactly MODULES."""
    package = Path(nh.__file__).resolve().parent
    with_examples = set()
    for path in package.rglob("*.py"):
        if ">>> " in path.read_text():
            parts = list(path.relative_to(package.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            with_examples.add(".".join(parts))
    assert with_examples == set(MODULES), (f"not run: {sorted(with_examples - set(MODULES))}; "
                                           f"without examples: {sorted(set(MODULES) - with_examples)}")
