"""Every ``nh.systems.<name>`` the documentation writes is an attribute of ``nonholo.systems``.

A factory is the function, not the module of its name (``from .x import x`` in the package's
``__init__`` binds the function after the import system has set the submodule); the closed-form
references ``disk_exact`` and ``ball_on_turntable_exact`` are modules, imported when first named so
that ``import nonholo`` needs no SciPy.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

import nonholo as nh

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_MODULES = {"disk_exact", "ball_on_turntable_exact"}
# nh.systems.<name> or nonholo.systems.<name>, the first component after systems
NAME = re.compile(r"\b(?:nh|nonholo)\.systems\.(\w+)")


def documented_names() -> dict[str, set[str]]:
    """{name: the pages naming it} over the README, the user pages and the notebooks' Markdown."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "guide").glob("*.md"))]
    texts = {p.relative_to(ROOT).as_posix(): p.read_text() for p in pages}
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text())["cells"]
        texts[notebook.relative_to(ROOT).as_posix()] = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    found: dict[str, set[str]] = {}
    for page, text in texts.items():
        for name in NAME.findall(text):
            found.setdefault(name, set()).add(page)
    return found


DOCUMENTED = documented_names()


def test_the_papers_page_names_are_found():
    listed = {"polar_disk", "inclined_knife_edge", "nonholonomic_particle", "damped_mass_pair",
              "noncompact_counterexample", "disk_exact", "ball_on_turntable_exact"}
    assert listed <= {n for n, pages in DOCUMENTED.items() if "docs/guide/papers.md" in pages}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_documented_name_is_an_attribute_of_nh_systems(name):
    obj = getattr(nh.systems, name)  # AttributeError: a page names what nh.systems does not have
    if name in REFERENCE_MODULES:
        assert isinstance(obj, types.ModuleType) and obj.__name__ == f"nonholo.systems.{name}"
    else:
        assert callable(obj) and not isinstance(obj, types.ModuleType), (name, sorted(DOCUMENTED[name]))


def test_the_functions_win_over_their_modules():
    """The errata's spelling builds the system, also after the submodule is imported by its path."""
    import nonholo.systems.damped_mass_pair  # noqa: F401  (the module is loaded; the attribute stays the function)
    from nonholo.systems.noncompact_counterexample import noncompact_counterexample

    assert nh.systems.noncompact_counterexample is noncompact_counterexample
    assert isinstance(nh.systems.noncompact_counterexample(printed=False), nh.System)
    assert isinstance(nh.systems.damped_mass_pair(), nh.System)
    assert {"damped_mass_pair", "noncompact_counterexample"} <= set(nh.systems.__all__)
    assert not REFERENCE_MODULES & set(nh.systems.__all__)  # modules: not reference entries of their own
    with pytest.raises(AttributeError):
        nh.systems.no_such_system  # noqa: B018


def test_import_nonholo_needs_no_scipy():
    code = "import sys, nonholo; assert 'scipy' not in sys.modules, 'import nonholo imported scipy'"
    subprocess.run([sys.executable, "-c", code], check=True)
