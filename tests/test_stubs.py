"""The typed API: the committed stub of nonholo._core matches the compiled module, covers it, and
ships in the wheel with py.typed."""

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import nonholo as nh
from nonholo import _core
from tools import stubgen as _stubgen

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "nonholo"


def _header_version(text: str) -> str:
    match = re.search(r"pybind11-stubgen ([^)]+)\)", text)
    return match.group(1) if match else "?"


def test_stub_matches_the_compiled_module():
    committed = _stubgen.stub_path().read_text()
    fresh = _stubgen.generate()
    if committed != fresh:
        ours, theirs = _header_version(committed), _header_version(fresh)
        hint = "" if ours == theirs else (f" (the stub was written by pybind11-stubgen {ours}, this environment has "
                                          f"{theirs}: install the version of the test extra)")
        pytest.fail(f"python/nonholo/_core.pyi has drifted from the compiled nonholo._core{hint}; "
                    "regenerate it with `python tools/stubgen.py` and commit it")


def test_stub_is_next_to_the_package_sources_and_parses():
    assert _stubgen.stub_path() == PACKAGE / "_core.pyi"
    tree = ast.parse(_stubgen.stub_path().read_text())
    assert "nonholo::" not in _stubgen.stub_path().read_text()
    # no placeholder annotations: every return type was resolved
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and isinstance(node.returns, ast.Constant):
            assert node.returns.value is not Ellipsis, f"{node.name} has an unresolved return type"


def test_stub_covers_every_public_name_and_method():
    tree = ast.parse(_stubgen.stub_path().read_text())
    top = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            top[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            top[node.target.id] = node
    public = [name for name in dir(_core) if not name.startswith("_")]
    assert public and set(public) <= set(top), sorted(set(public) - set(top))
    for name in public:
        obj = getattr(_core, name)
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            members = {n.name for n in top[name].body if isinstance(n, ast.FunctionDef)}
            runtime = {m for m in vars(obj) if not m.startswith("_") or m == "__call__"}
            runtime = {m for m in runtime if callable(getattr(obj, m, None)) or isinstance(vars(obj)[m], property)}
            assert runtime <= members, (name, sorted(runtime - members))


def test_package_is_typed_and_ships_the_stub():
    assert (PACKAGE / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'wheel\.packages\s*=\s*\["python/nonholo"\]', text)
    assert "wheel.exclude" not in text and "sdist.exclude" not in text
    # scikit-build-core copies every file of python/nonholo that git does not ignore
    if shutil.which("git") and (ROOT / ".git").exists():
        ignored = subprocess.run(["git", "check-ignore", "python/nonholo/py.typed", "python/nonholo/_core.pyi"],
                                 cwd=ROOT, capture_output=True, text=True)
        assert ignored.stdout.strip() == "", f"git ignores {ignored.stdout.split()}: they would not ship"
    try:
        from scikit_build_core.build._pathutil import iter_package_files
        files = {str(target) for _, target in iter_package_files(
            packages={"nonholo": str(PACKAGE)}, include=[], src_exclude=[], target_exclude=[],
            build_dir="build/{wheel_tag}", mode="default")}
    except (ImportError, TypeError):
        return  # scikit-build-core's internal API differs: the git check above stands in for it
    assert {"nonholo/py.typed", "nonholo/_core.pyi", "nonholo/__init__.py"} <= files


def test_stub_command_writes_and_checks(tmp_path, monkeypatch, capsys):
    """`python tools/stubgen.py [--check] [--output PATH]`: writes the stub, reports drift with exit
    status 1 (the generator itself is exercised by test_stub_matches_the_compiled_module)."""
    monkeypatch.setattr(_stubgen, "generate", lambda: "# stub\n")
    target = tmp_path / "_core.pyi"
    assert _stubgen.main(["--check", "--output", str(target)]) == 1  # missing counts as drift
    assert _stubgen.main(["--output", str(target)]) == 0 and target.read_text() == "# stub\n"
    assert _stubgen.main(["--check", "--output", str(target)]) == 0
    assert "up to date" in capsys.readouterr().out
    target.write_text("# edited by hand\n")
    assert _stubgen.main(["--check", "--output", str(target)]) == 1
    assert "python tools/stubgen.py" in capsys.readouterr().err


def test_stub_records_the_module_version():
    assert f"__version__: str = '{nh.__version__}'" in _stubgen.stub_path().read_text()
