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


GUIDE = sorted(p.name for p in (DOCS / "guide").glob("*.md") if "```python" in p.read_text())


def shown_examples(text: str) -> list[tuple[str, str | None]]:
    """(code, the output shown under it or None) of each Python block of a page: a ```text block
    right after a ```python block is what that block prints."""
    found = []
    for m in re.finditer(r"```python\n(.*?)```(\s*```text\n(.*?)```)?", text, re.S):
        found.append((m.group(1), m.group(3)))
    return found


@pytest.mark.parametrize("page", GUIDE)
def test_guide_code_runs_and_prints_what_the_page_shows(page, capsys):
    """The Python blocks of a guide page run in order, in one namespace, and each block that the
    page follows with a text block prints that text (whitespace aside): the outputs shown are the
    current ones."""
    text = (DOCS / "guide" / page).read_text()
    namespace = {"__name__": "__docs__"}
    printed = ""
    for i, (code, shown) in enumerate(shown_examples(text)):
        exec(compile(code, f"{page} block {i + 1}", "exec"), namespace)
        out = capsys.readouterr().out
        printed += out
        if shown is not None:
            assert out.split() == shown.split(), f"{page} block {i + 1} printed:\n{out}\nthe page shows:\n{shown}"
    assert printed.strip()


# the guide's pages that are lists rather than topics: the index, the one-page summary of the API,
# the papers' references; the installation page opens with its commands and has its own check
NOT_TOPICS = {"index.md", "api_at_a_glance.md", "papers.md", "installation.md"}


def test_guide_pages_open_with_an_example_and_its_output():
    """Each guide page about using the package opens with a short runnable example and its output
    (a ```python block followed by a ```text block before the page's first section)."""
    topics = sorted(p.name for p in (DOCS / "guide").glob("*.md") if p.name not in NOT_TOPICS)
    for page in topics:
        first_section = (DOCS / "guide" / page).read_text().split("\n## ", 1)[0]
        examples = shown_examples(first_section)
        assert examples and examples[0][1] is not None, f"{page} does not open with an example and its output"


def test_page_titles_say_what_the_page_is_about():
    for page in sorted((DOCS / "guide").glob("*.md")):
        title = page.read_text().splitlines()[0]
        assert title.startswith("# ") and "(tested)" not in title, f"{page.name}: {title}"


def test_installation_check_prints_what_the_page_says():
    """The installation page's three-line check runs and prints the sentence the page quotes."""
    import subprocess
    import sys

    page = (DOCS / "guide" / "installation.md").read_text()
    section = page.split("## Check that it works", 1)[1].split("\n## ", 1)[0]
    code = re.search(r'python -c "(.*?)"\n```', section, re.S).group(1)
    assert len(code.splitlines()) == 3
    said = re.search(r"It prints `(.*?)`", section).group(1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == said


def test_readme_is_short_and_its_quick_start_runs(capsys):
    """At most about 200 lines; the Python blocks of "A first example" (the first is the wheel
    check's quick start) run and print the four convergence rows."""
    readme = (DOCS.parent / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    section = readme.split("## A first example", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    exec(compile("\n".join(blocks), "README.md", "exec"), {"__name__": "__readme__"})
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("eps = ")]
    assert len(rows) == 4


def test_readme_and_guide_links_resolve():
    """Relative Markdown links of the README and of the guide name files that exist (Sphinx checks
    the site's own references; external links need the network: tests/test_external_links.py keeps
    them in an allow-list)."""
    pages = [DOCS.parent / "README.md", DOCS.parent / "benchmarks" / "README.md",
             *sorted((DOCS / "guide").glob("*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            path = (page.parent / target).resolve()
            if path.suffix in ("", ".md") and not path.exists():  # a page Sphinx builds from .rst or .py
                path = path.with_suffix(".rst") if path.with_suffix(".rst").exists() else path.with_suffix(".py")
            if path.parent == DOCS.resolve() / "tutorials" and path.suffix == ".ipynb":  # copied there by the build
                path = DOCS.parent / "notebooks" / path.name
            assert path.exists(), f"{page.name}: broken link {target}"
