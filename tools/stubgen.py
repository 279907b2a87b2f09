"""Generate ``python/nonholo/_core.pyi``, the type stub of the compiled module ``nonholo._core``.

Run ``python tools/stubgen.py`` after changing the bindings (``cpp/bindings``) and commit the
result; ``python tools/stubgen.py --check`` (and ``tests/test_stubs.py``) regenerate it and
fail when the committed stub has drifted from the compiled module.

The stub comes from pybind11-stubgen (``pip install pybind11-stubgen``, part of the ``test``
extra), which reads the signatures pybind11 writes into the docstrings. Afterwards:

- C++ type names that leaked into a signature (a class used in a signature before pybind11
  registered it, e.g. ``nonholo::PointGeometry``) are replaced by the Python class of the same
  name, after checking that ``nonholo._core`` has it;
- the stub is parsed with :mod:`ast`, so an invalid expression fails here and not in a user's
  type checker;
- a header names the generator and its version.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["generate", "stub_path", "main"]

_CXX_NAME = re.compile(r"\bnonholo::(\w+)")


def stub_path() -> Path:
    """Where the committed stub lives: python/nonholo/_core.pyi of this checkout."""
    return Path(__file__).resolve().parents[1] / "python" / "nonholo" / "_core.pyi"


def _stubgen_version() -> str:
    try:
        from importlib.metadata import version

        return version("pybind11-stubgen")
    except Exception:  # noqa: BLE001 - metadata missing: the import below reports it
        return "unknown"


def _fold_submodule(text: str, name: str, sub: str) -> str:
    """The stub of the submodule ``_core.<name>`` (e.g. ``diagnostics``) folded into the one file of
    ``_core`` as a namespace class of static methods, so that ``_core.<name>.f(...)`` type-checks and
    the stub stays a single file: its imports join the module's, its functions are indented."""
    text = text.replace(f"from . import {name}\n", "")
    sub = sub.replace("nonholo._core.", "")  # the module's own names, unqualified in its stub
    head, body, imports = [], [], []
    for line in sub.splitlines():
        if line.startswith(("from ", "import ")):
            if line not in text and "__future__" not in line and line != "import nonholo._core":
                imports.append(line)
        elif line.startswith("__all__"):
            continue
        else:
            body.append(line)
    doc = ""
    while body and not body[0].strip():
        body.pop(0)
    if body and body[0].startswith('"""'):  # the submodule's docstring
        doc = body.pop(0)
    members = []
    for line in body:
        if line.startswith("def "):
            members += ["    @staticmethod", "    " + line]
        elif line.strip():
            members.append("    " + line)
    head = [f"class {name}:", f"    {doc}" if doc else f'    """The submodule nonholo._core.{name}."""', *members]
    if imports:
        text = text.replace("from __future__ import annotations\n", "from __future__ import annotations\n" +
                            "\n".join(imports) + "\n", 1)
    return text.rstrip("\n") + "\n\n" + "\n".join(head) + "\n"


def generate() -> str:
    """The stub text for the compiled ``nonholo._core`` that this interpreter imports."""
    try:
        import pybind11_stubgen  # noqa: F401
    except ImportError as exc:
        raise ImportError("generating the stub needs pybind11-stubgen: pip install pybind11-stubgen "
                          '(or pip install "nonholo[test]")') from exc
    from nonholo import _core

    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pybind11_stubgen", "nonholo._core", "-o", tmp,
             "--print-invalid-expressions-as-is"],
            capture_output=True, text=True, check=False)
        out = Path(tmp) / "nonholo" / "_core.pyi"
        package = Path(tmp) / "nonholo" / "_core"  # the layout pybind11-stubgen writes for submodules
        if not out.exists() and (package / "__init__.pyi").exists():
            out = package / "__init__.pyi"
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"pybind11-stubgen failed ({proc.returncode}):\n{proc.stderr}")
        text = out.read_text()
        for sub in sorted(package.glob("*.pyi")) if out.parent == package else []:
            if sub.name != "__init__.pyi":
                text = _fold_submodule(text, sub.stem, sub.read_text())

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if not hasattr(_core, name):
            raise RuntimeError(f"the C++ type nonholo::{name} appears in a signature but nonholo._core has no "
                               f"class {name}; fix the binding")
        return name

    text = _CXX_NAME.sub(replace, text)
    ast.parse(text)  # an invalid annotation fails here
    header = (f"# Type stub of the compiled module nonholo._core, generated by `python tools/stubgen.py`\n"
              f"# (pybind11-stubgen {_stubgen_version()}); do not edit by hand. tests/test_stubs.py fails when it\n"
              f"# no longer matches the compiled module.\n")
    return header + text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/stubgen.py", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed stub instead of writing it")
    parser.add_argument("--output", type=Path, default=None, help="where to write (default: next to _core)")
    args = parser.parse_args(argv)
    text = generate()
    path = args.output or stub_path()
    if args.check:
        current = path.read_text() if path.exists() else ""
        if current != text:
            print(f"{path} differs from the compiled module; run python tools/stubgen.py", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.write_text(text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
