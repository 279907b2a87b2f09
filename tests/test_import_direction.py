"""The package's folders are its layers, and imports run one way.

    base (errors, option checks, progress, _core) -> expressions -> system -> models -> integrate
    -> analysis -> control (optimal control: its default start drives analysis's shortest car paths);
    viz (drawing, animation, plot) and
    builders (bodies, surfaces, contact, multibody) beside them; systems (the built-in systems) on
    top; testing apart, imported by no library code.

Read from the source with ``ast`` (module-level imports and those inside functions), so the check
needs no import side effects. The one sanctioned upward edge is a factory: ``System`` and its
frames build their models (``system.nonholonomic()``, ``frame.hamel()``, ``system.kinematic()``)
with an import inside the method, never at module level. ``papers/`` (outside the package) uses only public modules.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "nonholo"
BASE = {"_core", "errors", "options", "progress", "numerics"}
LAYERS = ("base", "expressions", "system", "viz", "builders", "models", "integrate", "analysis", "control", "systems",
          "testing", "facade")
# which layers each layer may import (its own included)
ALLOWED = {
    "base": {"base"},
    "expressions": {"base", "expressions"},
    "system": {"base", "expressions", "system"},
    "viz": {"base", "viz"},
    "builders": {"base", "expressions", "system", "builders", "viz"},
    "models": {"base", "expressions", "system", "models"},
    "integrate": {"base", "expressions", "system", "models", "integrate", "viz"},
    "analysis": {"base", "expressions", "system", "models", "integrate", "analysis"},
    "control": {"base", "expressions", "system", "models", "integrate", "analysis", "control", "viz"},
    "systems": {"base", "expressions", "system", "viz", "builders", "models", "integrate", "control", "systems"},
    "testing": set(LAYERS) - {"facade"},
    "facade": set(LAYERS),
}
FACTORIES = {("system", "models"), ("system", "control")}  # allowed inside functions only


def layer(module: str) -> str:
    parts = module.split(".")
    if module == "nonholo":
        return "facade"
    if parts[1] in BASE:
        return "base"
    if parts[1] in LAYERS:
        return parts[1]
    raise KeyError(f"{module} belongs to no layer: add it to one (tests/test_import_direction.py)")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    where = PACKAGE.parent / Path(*dotted.split("."))
    return where.is_dir() or any(where.parent.glob(where.name + ".*"))


def imported_modules(path: Path, source: str | None = None, name: str | None = None) -> dict:
    """{nonholo module: True when imported at module level} for every nonholo module that ``path``
    (or ``source`` read as if at ``path``) imports, relative imports resolved."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text() if source is None else source)
    top = {id(node) for node in tree.body}
    found: dict = {}

    def add(module, at_top):
        found[module] = found.get(module, False) or at_top

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "nonholo":
                    add(a.name, id(node) in top)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "nonholo":
                continue
            for alias in node.names:  # "from pkg import sub" imports the submodule pkg.sub when it is one
                sub = f"{target}.{alias.name}"
                add(sub if _is_module(sub) else target, id(node) in top)
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py"))


def wrong_way(path: Path, source: str | None = None) -> list:
    here = layer(module_name(path))
    bad = []
    for module, at_top in imported_modules(path, source).items():
        there = layer(module)
        if there in ALLOWED[here] or (not at_top and (here, there) in FACTORIES):
            continue
        bad.append(f"{module} ({there}{', module level' if at_top else ''})")
    return sorted(bad)


def test_every_module_has_a_layer():
    names = {module_name(p) for p in SOURCES}
    assert {"nonholo.system.system", "nonholo.testing", "nonholo.systems.chaplygin_sleigh"} <= names
    assert {layer(n) for n in names} == set(LAYERS)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_no_module_imports_against_the_layers(path):
    bad = wrong_way(path)
    assert not bad, f"{module_name(path)} ({layer(module_name(path))}) imports against the layers: {bad}"


def test_the_check_catches_wrong_way_imports():
    """An upward import is reported, and so is a factory import moved to module level."""
    system = PACKAGE / "system" / "system.py"
    assert wrong_way(system) == []
    assert wrong_way(system, system.read_text() + "\nfrom ..models.model import Model\n") == \
        ["nonholo.models.model (models, module level)"]
    builder = PACKAGE / "builders" / "contact.py"
    assert wrong_way(builder, builder.read_text() + "\ndef f():\n    from ..models import reduced\n") == \
        ["nonholo.models.reduced (models)"]
    plot = PACKAGE / "viz" / "plot.py"
    assert wrong_way(plot, plot.read_text() + "\nfrom ..testing import loglog_slope\n") == \
        ["nonholo.testing (testing, module level)"]


def private_imports(path: Path, source: str | None = None) -> list:
    """Private names (``_name``, a module or an attribute) that a module imports from another module
    of the package: a helper shared between modules is public within the package."""
    tree = ast.parse(path.read_text() if source is None else source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            parts = (node.module or "").split(".")
            names = [a.name for a in node.names]
            private = [p for p in parts if p.startswith("_") and p != "_core"]
            private += [n for n in names if n.startswith("_") and not n.startswith("__") and n != "_core"]
            found += [f"line {node.lineno}: {'.' * node.level}{node.module or ''} {name}" for name in private]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_no_module_imports_a_private_name_from_another(path):
    bad = private_imports(path)
    assert not bad, f"{module_name(path)} imports private names of the package: {bad}"


def test_the_check_catches_private_imports():
    system = PACKAGE / "system" / "system.py"
    assert private_imports(system) == []
    assert private_imports(system, system.read_text() + "\nfrom .arguments import _helper\n") == \
        [f"line {len(system.read_text().splitlines()) + 2}: .arguments _helper"]


def test_top_level_holds_at_most_twelve_modules_and_no_file_is_too_long():
    top = [p for p in PACKAGE.iterdir() if p.suffix == ".py"]
    assert len(top) <= 12, sorted(p.name for p in top)
    long = [(str(p.relative_to(ROOT)), n) for p in [*PACKAGE.rglob("*.py"), *(ROOT / "papers").rglob("*.py")]
            if (n := len(p.read_text().splitlines())) > 800]
    assert not long, f"Python files over 800 lines: {long}"


def test_no_cpp_source_is_over_700_lines():
    sources = [*(ROOT / "cpp").rglob("*.cpp"), *(ROOT / "cpp").rglob("*.hpp")]
    long = [(str(p.relative_to(ROOT)), n) for p in sources if (n := len(p.read_text().splitlines())) > 700]
    assert sources and not long, f"C++ files over 700 lines: {long}"


PAPERS = sorted((ROOT / "papers").rglob("*.py"))


@pytest.mark.parametrize("path", PAPERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_papers_use_only_public_modules(path):
    """The reproduction of the papers lives outside the package and uses its public API: no module
    whose dotted path has a private part (``nonholo._core``, ``nonholo.integrate.simulation._x``)."""
    private = [m for m in imported_modules(path, name="papers.x")
               if any(part.startswith("_") for part in m.split("."))]
    assert not private, f"{path.name} imports private modules {private}"


def test_the_package_holds_no_paper_reproduction():
    assert not (PACKAGE / "figures").exists() and not (PACKAGE / "papers").exists()
    assert (ROOT / "papers" / "__main__.py").exists()
