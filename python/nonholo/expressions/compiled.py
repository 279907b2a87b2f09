"""Compiled evaluation: a model's tapes translated to C, built once and cached on disk.

The interpreter in the C++ core evaluates every tape by default. :func:`compile_model` (what
``model.compile()`` calls) writes each tape the model's right-hand side evaluates in doubles
(``_core.Model.rhs_tapes``: the system's tapes it uses, a CompiledSlip's h^(1..K), a frame's)
as straight-line C (``_core.tape_c_source``: one local per instruction, the same operations in
the same order, constants written exactly), builds it with the C compiler into a shared object
cached under a hash of the source, the compiler command, the compiler's version and the machine
architecture, and attaches it, so that every
double evaluation of that tape (right-hand sides, projections, point queries, by every model
sharing it) runs the compiled function. Jacobians by dual numbers and Taylor expansions stay
on the interpreter. Without a compiler nothing changes and the reason is returned.

The cache may be shared by several machines (a home directory on the nodes of a cluster): an
object is written in a build folder beside its place and renamed into it (a reader never sees
half of one), sealed with the SHA-256 of its bytes, which is checked before every load; an object
that does not match (truncated, corrupt) or fails to load (built for another machine) is built
again rather than run or reported. A cache others can write is replaced by a private one with a
warning (:mod:`nonholo.expressions.tape_cache`).
:func:`compile_system` compiles tapes of a system by name.
"""

from __future__ import annotations

import functools
import hashlib
import os
import platform
import shutil
import subprocess
import warnings
from pathlib import Path

from .. import _core
from .tape_cache import build_folder, cache_directory, seal, trusted_directory, verified

__all__ = ["compile_model", "compile_system", "cache_directory", "detach", "auto_compile"]

_SYMBOL = "nonholo_tape"
#: The compiler flags (part of the cache key). -ffp-contract=off and no fast math keep every
#: operation the interpreter's, so compiled values equal interpreted ones bit for bit. No
#: -march=native: the cache may be shared between machines (a home directory on a cluster), and
#: a kernel built for one CPU can crash on another. The optimization level is measured in
#: README ("Against other tools, and compiled evaluation").
FLAGS = ("-O1", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")
DEFAULT_TAPES = ("dynamics", "constraints")


def _compiler() -> str | None:
    """The C compiler: ``$CC``, else cc, gcc or clang on the ``PATH`` (looked up once per value of
    the two variables: every run with compile="auto" asks)."""
    return _find_compiler(os.environ.get("CC"), os.environ.get("PATH"))


@functools.lru_cache(maxsize=8)
def _find_compiler(cc: str | None, path: str | None) -> str | None:
    for name in (cc, "cc", "gcc", "clang"):
        found = shutil.which(name, path=path) if name else None
        if found:
            return found
    return None


@functools.lru_cache(maxsize=None)
def _compiler_version(compiler: str) -> str:
    """The first line of ``compiler --version`` (asked once per process and compiler); empty when
    the compiler does not answer."""
    try:
        proc = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = proc.stdout.strip().splitlines()
    return lines[0].strip() if lines else ""


def _machine() -> str:
    """The machine architecture the objects are built for (``platform.machine()``)."""
    return platform.machine()


def _digest(command: list, source: str) -> str:
    """The cache key of ``source`` built with ``command`` (compiler first, then the flags): also the
    compiler's version and the machine architecture, so that nodes of a cluster sharing the cache,
    or an upgraded compiler, build their own objects."""
    key = [*command, f"machine={_machine()}", f"compiler={_compiler_version(command[0])}", source]
    return hashlib.sha256("\0".join(key).encode()).hexdigest()[:32]


def _complete(path: Path) -> bool:
    """True when ``path`` is a cached object safe to load (:func:`tape_cache.verified`: this user's,
    writable by nobody else, its bytes those its build sealed); else it is built again."""
    return verified(path)


def _build_all(sources: list, compiler: str, directory: Path, rebuild: bool = False) -> list:
    """The shared objects of ``sources``, those the cache lacks or holds unverified (all of them with
    ``rebuild``) compiled side by side (one compiler process each, so a model's tapes build in the
    time of the largest on a multi-core machine). Each is written under a temporary name in
    ``directory`` and renamed into place."""
    command = [compiler, *FLAGS]
    targets = [directory / f"{_digest(command, source)}.so" for source in sources]
    missing = {target: source for target, source in zip(targets, sources) if rebuild or not _complete(target)}
    if not missing:
        return targets
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with build_folder(directory) as tmp:
        jobs = []
        for i, (target, source) in enumerate(missing.items()):
            c_file, so_file = Path(tmp) / f"tape{i}.c", Path(tmp) / f"tape{i}.so"
            c_file.write_text(source)
            proc = subprocess.Popen([*command, str(c_file), "-o", str(so_file), "-lm"], stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            jobs.append((proc, so_file, target))
        failures = []
        for proc, so_file, target in jobs:
            output, _ = proc.communicate()
            if proc.returncode != 0:
                failures.append(output.strip()[-2000:])
            else:
                seal(so_file)  # the checksum of the complete object, checked before every load
                os.replace(so_file, target)  # atomic: concurrent builds of one tape agree
        if failures:
            raise RuntimeError(f"the C compiler failed on a generated tape ({' '.join(command)}): " + failures[0])
    return targets


def _compile_tapes(owner, tapes, cache_dir) -> str | None:
    """Build (or find in the cache) and attach the tapes ``tapes`` of ``owner``, a
    ``_core.MechanicalSystem`` or a ``_core.Model``; the reason when no compiler is found."""
    if not tapes:
        return None
    compiler = _compiler()
    if compiler is None:
        return "no C compiler found (set CC, or install cc, gcc or clang)"
    directory = trusted_directory(cache_dir)
    sources = [_core.tape_c_source(owner, which, _SYMBOL) for which in tapes]
    for which, source, path in zip(tapes, sources, _build_all(sources, compiler, directory)):
        try:
            _core.attach_compiled(owner, which, str(path), _SYMBOL)
        except ValueError:
            # a cached object that does not load (corrupt, another machine's; one cut short is
            # caught by _complete before it is loaded): built again, replacing it atomically
            [path] = _build_all([source], compiler, directory, rebuild=True)
            _core.attach_compiled(owner, which, str(path), _SYMBOL)
    return None


def _check_names(tapes, names) -> tuple:
    if isinstance(tapes, str):
        tapes = (tapes,)
    tapes = tuple(tapes)
    for which in tapes:
        if which not in names:
            raise ValueError(f"tapes must be among {list(names)}, got {which!r}")
    return tapes


def compile_system(core, tapes=DEFAULT_TAPES, cache_dir=None) -> str | None:
    """Compile and attach the tapes ``tapes`` of a ``_core.MechanicalSystem``.

    Returns None when every tape is compiled, else the reason none is (no C compiler); the
    interpreter then stays in use. Raises ValueError for an unknown tape name and RuntimeError
    when the compiler rejects the generated source.
    """
    return _compile_tapes(core, _check_names(tapes, _core.tape_names()), cache_dir)


def compile_model(core, tapes=None, cache_dir=None, params=None) -> str | None:
    """Compile and attach the tapes of a ``_core.Model``: by default ``core.rhs_tapes``, the tapes
    its right-hand side evaluates in doubles (its system's, and its own: a CompiledSlip's
    ``"slip"``, a frame's ``"frame"`` / ``"frame_values"`` / ``"frame_along"``) and, for a model whose whole
    right-hand side can be traced (``core.fusable``: the friction and nonholonomic models, the
    reduced models in coordinates of orders 0 and 1 and with a CompiledSlip), the fused right-hand
    side ``"rhs"`` (when its trace stays under 30 000 operations), traced
    with the parameters ``params`` (``core.fuse``: tapes, factorizations and solves as one
    straight-line function); else ``tapes``, any of ``core.tape_names``. Returns None or the
    reason nothing is compiled, as :func:`compile_system`.
    """
    if tapes is None and params is not None and core.fusable and _compiler() is not None:
        try:
            core.fuse(params)
        except ValueError as error:  # no regular point to trace at, or a graph over the budget
            warnings.warn(f"model.compile(): the right-hand side is not fused ({error}); its tapes are compiled",
                          RuntimeWarning, stacklevel=3)
    tapes = tuple(core.rhs_tapes) if tapes is None else _check_names(tapes, core.tape_names)
    # tapes shared with a model compiled before (the system's, a CompiledSlip cached on the
    # system) are attached already: nothing to do for them
    return _compile_tapes(core, tuple(t for t in tapes if not _core.tape_compiled(core, t)), cache_dir)


#: The cost model of ``compile="auto"``, in nanoseconds per tape instruction: the time a compiled
#: tape saves per instruction and right-hand side, the C compiler's per instruction of the largest
#: tape, and the loading of cached tapes (a fixed part and per instruction). Measured on the
#: Whipple bicycle, the knife-edge chain and the sleigh (the numbers and how:
#: cpp/include/nonholo/cost_constants.hpp, where every fitted constant lives).
_COSTS = _core.cost_constants()
SAVED_NS_PER_INSTRUCTION = _COSTS["compile_saved_ns_per_instruction"]
BUILD_NS_PER_INSTRUCTION = _COSTS["compile_build_ns_per_instruction"]
LOAD_NS_PER_INSTRUCTION = _COSTS["compile_load_ns_per_instruction"]
LOAD_NS = _COSTS["compile_load_ns"]


def load_cost_ns(sizes) -> float:
    """Nanoseconds to find tapes of ``sizes`` instructions in the cache and load them."""
    return LOAD_NS + LOAD_NS_PER_INSTRUCTION * sum(sizes)


def _cached(core, tapes, directory: Path, compiler: str) -> bool:
    """True when the cache holds a complete object of every tape of ``tapes``."""
    command = [compiler, *FLAGS]
    return all(_complete(directory / f"{_digest(command, _core.tape_c_source(core, which, _SYMBOL))}.so")
               for which in tapes)


def _uncompiled(core) -> tuple:
    """The tapes of ``core.rhs_tapes`` (bit for bit the interpreter's) not compiled yet."""
    return tuple(t for t in core.rhs_tapes if not _core.tape_compiled(core, t))


def _pending(core) -> tuple | None:
    """``(tapes, instructions of each, compiler)`` of what compile="auto" could build; None when
    nothing is left to compile, no C compiler is found, or ``$NONHOLO_AUTO_COMPILE`` is ``0`` (for
    runs that must not start a compiler, such as the sanitizer build's tests)."""
    if os.environ.get("NONHOLO_AUTO_COMPILE") == "0":
        return None
    tapes = _uncompiled(core)
    compiler = _compiler() if tapes else None
    if compiler is None:
        return None
    return tapes, [_core.diagnostics.tape_size(core, which)[0] for which in tapes], compiler


def auto_compile(core, n_rhs: float, parallel: int = 1, cache_dir=None) -> bool:
    """``compile="auto"``: compile the tapes of ``core.rhs_tapes`` (those bit for bit the
    interpreter's; never the fused right-hand side, equal only to rounding) when ``n_rhs``
    right-hand sides, run ``parallel`` at a time, are predicted to save more wall time than the
    build costs:

        n_rhs * SAVED_NS_PER_INSTRUCTION * I / parallel > cost,   cost = I_max * BUILD_NS_PER_INSTRUCTION

    with I the instructions of the tapes not compiled yet and I_max those of the largest (they are
    built side by side), and cost = :func:`load_cost_ns` when the cache holds them already.
    Returns True when the tapes are compiled afterwards; without a C compiler nothing changes (and
    nothing is said: the interpreter was not asked to go)."""
    pending = _pending(core)
    if pending is None:
        return not _uncompiled(core)
    tapes, sizes, compiler = pending
    saved = n_rhs * SAVED_NS_PER_INSTRUCTION * sum(sizes) / max(parallel, 1)
    if saved <= load_cost_ns(sizes):  # not even a cached kernel pays
        return False
    directory = trusted_directory(cache_dir, create=False)
    if saved <= BUILD_NS_PER_INSTRUCTION * max(sizes) and not _cached(core, tapes, directory, compiler):
        return False
    return _compile_tapes(core, tapes, cache_dir) is None


def detach(core, tapes=None) -> None:
    """Return the tapes ``tapes`` (default: all) of ``core``, a ``_core.MechanicalSystem`` or a
    ``_core.Model``, to the interpreter."""
    if tapes is None:
        tapes = core.tape_names if isinstance(core, _core.Model) else _core.tape_names()
    for which in tapes:
        _core.attach_compiled(core, which, "", "")


#: compile="auto" in a single run starts the build once the run has lasted as long as the build
#: costs divided by this fraction, the part of a run's time the compiled tapes save (the
#: benchmarks: 10-47% faster right-hand sides, model.compile()'s docstring): a run that has gone
#: on for T is taken to go on for about T more (the elapsed time is the best guess of the time
#: left), and the build then pays within it.
SAVED_FRACTION = 0.25


def hot_delay(core) -> tuple | None:
    """``(seconds, tapes)``: when a single run of ``core`` should start compiling the tapes of
    ``core.rhs_tapes`` not compiled yet (those bit for bit the interpreter's) and which; None when
    there is nothing to compile or no C compiler. A cached build costs its loading only."""
    pending = _pending(core)
    if pending is None:
        return None
    tapes, sizes, compiler = pending
    if _cached(core, tapes, trusted_directory(create=False), compiler):
        cost = load_cost_ns(sizes)
    else:
        cost = BUILD_NS_PER_INSTRUCTION * max(sizes)
    return cost * 1e-9 / SAVED_FRACTION, tapes


def hot_earliest(core) -> float | None:
    """The shortest :func:`hot_delay` ``core`` can have (its tapes found in the cache), without
    looking at the cache: generating and hashing the C source costs more than a short run (a
    millisecond on the knife-edge chain), so it is asked only of runs that last this long. None
    when :func:`hot_delay` is."""
    pending = _pending(core)
    return None if pending is None else load_cost_ns(pending[1]) * 1e-9 / SAVED_FRACTION


def compile_tapes(core, tapes) -> None:
    """Build (or load from the cache) and attach ``tapes`` of ``core``; RuntimeError when no
    compiler is found."""
    reason = _compile_tapes(core, tapes, None)
    if reason is not None:
        raise RuntimeError(reason)
