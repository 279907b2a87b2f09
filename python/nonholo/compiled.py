"""Compiled evaluation: a system's tapes translated to C, built once and cached on disk.

The interpreter in the C++ core evaluates every tape by default. :func:`compile_system` writes
each tape as straight-line C (``_core.tape_c_source``: one local per instruction, the same
operations in the same order, constants written exactly), builds it with the C compiler into a
shared object cached under a hash of the source and the compiler command, and attaches it, so
that every double evaluation of that tape (right-hand sides, projections, point queries) runs
the compiled function. Jacobians by dual numbers and Taylor expansions stay on the interpreter.
Without a compiler nothing changes and the reason is returned.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import _core

__all__ = ["compile_system", "cache_directory", "detach"]

_SYMBOL = "nonholo_tape"
_FLAGS = ("-O1", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")
DEFAULT_TAPES = ("dynamics", "constraints")


def cache_directory() -> Path:
    """Where compiled tapes are kept: ``$NONHOLO_CACHE``, else ``~/.cache/nonholo/tapes``."""
    root = os.environ.get("NONHOLO_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "nonholo" / "tapes"


def _compiler() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _build(source: str, compiler: str, directory: Path) -> Path:
    """The shared object of ``source``, compiled unless the cache holds it already."""
    command = [compiler, *_FLAGS]
    digest = hashlib.sha256("\0".join([*command, source]).encode()).hexdigest()[:32]
    target = directory / f"{digest}.so"
    if target.exists():
        return target
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        c_file, so_file = Path(tmp) / "tape.c", Path(tmp) / "tape.so"
        c_file.write_text(source)
        proc = subprocess.run([*command, str(c_file), "-o", str(so_file), "-lm"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"the C compiler failed on a generated tape ({' '.join(command)}): "
                               + (proc.stderr or proc.stdout).strip()[-2000:])
        os.replace(so_file, target)  # atomic: concurrent builds of one tape agree
    return target


def compile_system(core, tapes=DEFAULT_TAPES, cache_dir=None) -> str | None:
    """Compile and attach the tapes ``tapes`` of a ``_core.MechanicalSystem``.

    Returns None when every tape is compiled, else the reason none is (no C compiler); the
    interpreter then stays in use. Raises ValueError for an unknown tape name and RuntimeError
    when the compiler rejects the generated source.
    """
    names = _core.tape_names()
    for which in tapes:
        if which not in names:
            raise ValueError(f"tapes must be among {names}, got {which!r}")
    compiler = _compiler()
    if compiler is None:
        return "no C compiler found (set CC, or install cc, gcc or clang)"
    directory = Path(cache_dir) if cache_dir is not None else cache_directory()
    for which in tapes:
        path = _build(_core.tape_c_source(core, which, _SYMBOL), compiler, directory)
        _core.attach_compiled(core, which, str(path), _SYMBOL)
    return None


def detach(core, tapes=tuple(_core.tape_names())) -> None:
    """Return the tapes ``tapes`` of ``core`` to the interpreter."""
    for which in tapes:
        _core.attach_compiled(core, which, "", "")
