"""The package's layers import one way: core -> systems -> testing -> tools -> figures.

Nothing in a lower layer imports a module of a higher one (module-level or inside a function),
read from the source with ``ast``, so the check needs no import side effects. ``nonholo`` itself
(the facade ``__init__``) may be imported only from the top layer.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "nonholo"
LAYERS = ("core", "systems", "testing", "tools", "figures")
# deprecated top-level locations of sleigh modules that belong to the sleigh system
SYSTEM_MODULES = {"nonholo.sleigh_frames", "nonholo.discrete_sleigh"}
TOOLS = {"nonholo.studies", "nonholo.plot"}


def layer(module: str) -> int:
    """Index in LAYERS of a dotted module name inside nonholo (the facade ``nonholo`` is the top)."""
    parts = module.split(".")
    if module == "nonholo" or parts[1] in ("figures", "papers"):
        return LAYERS.index("figures")
    if parts[1] == "systems" or module in SYSTEM_MODULES:
        return LAYERS.index("systems")
    if parts[1] == "testing":
        return LAYERS.index("testing")
    if ".".join(parts[:2]) in TOOLS:
        return LAYERS.index("tools")
    return LAYERS.index("core")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(dotted: str) -> bool:
    where = PACKAGE.parent / Path(*dotted.split("."))
    return where.is_dir() or any(where.parent.glob(where.name + ".*"))


def imported_modules(path: Path, source: str | None = None) -> set:
    """Every nonholo module ``path`` (or ``source`` read as if at ``path``) imports, with relative
    imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text() if source is None else source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "nonholo"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "nonholo":
                continue
            # "from pkg import sub" imports the submodule pkg.sub when it is one
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if _is_module(sub) else target)
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "_stubgen.py" and p != PACKAGE / "__init__.py")


def test_layers_are_assigned_to_every_module():
    names = {module_name(p) for p in SOURCES}
    assert {"nonholo.system", "nonholo.testing", "nonholo.systems.chaplygin_sleigh"} <= names
    assert layer("nonholo.figures.eldering.figures") > layer("nonholo.testing") > layer("nonholo.systems.polar_disk") \
        > layer("nonholo.system")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_no_module_imports_a_higher_layer(path):
    here = layer(module_name(path))
    upward = sorted(m for m in imported_modules(path) if layer(m) > here)
    assert not upward, f"{module_name(path)} ({LAYERS[here]}) imports higher layers: {upward}"


def test_the_check_catches_an_upward_import():
    """A systems module importing a figure module is reported (the check can fail)."""
    path = PACKAGE / "systems" / "polar_disk.py"
    found = imported_modules(path, path.read_text() + "\nfrom ..figures import registry\n")
    assert "nonholo.figures.registry" in found
    assert layer("nonholo.figures.registry") > layer(module_name(path))
    assert imported_modules(PACKAGE / "system.py") >= {"nonholo._core", "nonholo.errors"}
