"""The documentation's sources: the reference lists every public name, the guide's code runs.

The site itself is built by ``make docs`` (Sphinx, warnings as errors) and opened in a browser by
``make docs-check``; these tests need neither Sphinx nor a browser.
"""

import importlib.util
import re
from pathlib import Path

import pytest

import nonholo as nh

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _reference_pages():
    spec = importlib.util.spec_from_file_location("reference_pages", DOCS / "reference_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entries(text: str) -> list[tuple[str, str]]:
    """(current module, name) of every autosummary entry and cross-reference of a page."""
    found, module = [], None
    for line in text.splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif line.startswith("   ") and not line.strip().startswith(":") and module:
            found.append((module, line.strip()))
        found += [(target.rsplit(".", 1)[0], target.rsplit(".", 1)[1])
                  for target in re.findall(r"<(nonholo\.[\w.]+)>`", line)]
    return found


def test_every_public_name_is_in_the_reference(tmp_path):
    pages = _reference_pages().write(tmp_path)
    assert {p.name for p in pages} >= {"api_system.rst", "api_integrate.rst", "api_analysis.rst", "api_systems.rst"}
    entries = [e for p in pages for e in _entries(p.read_text())]
    documented = {name for module, name in entries if module == "nonholo"}
    namespaces = {module.split(".")[1] for module, _ in entries if module.count(".") == 1}
    missing = [name for name in nh.__all__ if name != "__version__" and name not in documented | namespaces]
    assert not missing, f"not in the reference: {missing}"
    # every name of each public namespace, either with its own page or linked to the one it shares
    for ns in ("systems", "contact", "bodies", "surfaces", "multibody", "frames", "stability", "studies", "plot",
               "drawing"):
        listed = {name for module, name in entries if module == f"nonholo.{ns}"}
        linked = {name for p in pages for name in re.findall(rf":obj:`{ns}\.(\w+) <", p.read_text())}
        assert set(getattr(nh, ns).__all__) <= listed | linked, ns


def test_reference_entries_import(tmp_path):
    """Each entry names an object that exists under that name (autosummary would fail the build)."""
    pages = _reference_pages().write(tmp_path)
    for module, name in (e for p in pages for e in _entries(p.read_text())):
        obj = nh
        for part in f"{module}.{name}".split(".")[1:]:
            obj = getattr(obj, part)
        assert obj is not None


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "guide").glob("*.md")
                                        if "(tested)" in p.read_text().splitlines()[0]))
def test_guide_code_runs(page, capsys):
    """The Python blocks of a guide page marked (tested) run in order, in one namespace."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "guide" / page).read_text(), re.S)
    assert blocks
    exec(compile("\n".join(blocks), page, "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.strip()
