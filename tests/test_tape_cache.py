"""The compile cache is trusted only as far as it can be: a cached object with intact ELF headers
but corrupt code is built again, not run (it killed the process with SIGILL); a cache others can
write (a group- or world-writable directory, another user's) is replaced by a private one with a
CacheWarning, and an object there that is not the user's own is never loaded; a build killed
half-way leaves no folder behind once the next build ran."""

import os
import signal
import stat
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core
from nonholo.expressions import compiled, tape_cache

pytestmark = pytest.mark.slow  # compiles C kernels

Y0 = [0.0, 0.0, 0.3, 0.0, 0.0, 0.5]


def _sources(model):
    return [_core.tape_c_source(model.core, which, compiled._SYMBOL) for which in model.core.rhs_tapes]


def _text_section(path):
    """(offset, size) of the .text section of an ELF64 little-endian object."""
    data = path.read_bytes()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    names_offset, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        header = shoff + i * shentsize
        name, = struct.unpack_from("<I", data, header)
        if data[names_offset + name:data.index(b"\0", names_offset + name)] == b".text":
            offset, size = struct.unpack_from("<QQ", data, header + 0x18)
            return offset, size
    raise AssertionError("no .text section")


CHILD = """
import sys, numpy as np, nonholo as nh
model = nh.systems.chaplygin_sleigh().nonholonomic()
model.compile(cache_dir=sys.argv[1], fuse=False)
print(nh.simulate(model, (0, 2), {y0}, t_eval=[2.0]).y[:, -1].tolist())
"""


def test_a_cached_object_with_corrupt_code_is_rebuilt_not_run(tmp_path):
    """The code of each cached object is overwritten with ud2 (an illegal instruction): its ELF
    headers are intact, so only the checksum sees it. Run in a child: loading it kills the process."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    paths = compiled._build_all(_sources(model), compiled._compiler(), tmp_path)
    clean = [p.read_bytes() for p in paths]
    assert all(compiled._complete(p) for p in paths)
    for path in paths:
        offset, size = _text_section(path)
        with open(path, "r+b") as f:
            f.seek(offset)
            f.write(b"\x0f\x0b" * (size // 2))
        assert not compiled._complete(path)
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD.format(y0=Y0)))
    child = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, (child.returncode, child.stderr[-2000:])
    reference = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 2), Y0, t_eval=[2.0]).y[:, -1]
    assert np.array_equal(np.array(eval(child.stdout.strip().splitlines()[-1])), reference)  # noqa: S307 - a list
    assert [p.read_bytes() for p in paths] == clean  # rebuilt in place, the same object


def _plant(directory, model):
    """Objects under the names the cache would look up, which write NaN: a planted kernel."""
    poison = "void nonholo_tape(const double* in, double* out) { for (int i = 0; i < 64; ++i) out[i] = 0.0/0.0; }\n"
    sources = _sources(model)
    command = [compiled._compiler(), *compiled.FLAGS]
    built = compiled._build_all([poison], compiled._compiler(), directory)
    for source in sources:
        os.link(built[0], directory / f"{compiled._digest(command, source)}.so")
    return sources


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_cache_others_can_write_is_replaced_by_a_private_one(tmp_path, mode):
    cache = tmp_path / "shared"
    cache.mkdir()
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    _plant(cache, model)
    cache.chmod(mode)
    before = sorted(os.listdir(cache))
    with pytest.warns(tape_cache.CacheWarning, match=r"compile cache .*shared is not used: it is writable by "
                                                      r"(others|its group)"):
        model.compile(cache_dir=cache, fuse=False)
    assert model.compiled and sorted(os.listdir(cache)) == before  # nothing loaded from it, nothing added
    reference = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 2), Y0, t_eval=[2.0])
    assert np.array_equal(nh.simulate(model, (0, 2), Y0, t_eval=[2.0]).y, reference.y)


def test_the_default_private_cache_is_used_without_a_warning(tmp_path, monkeypatch):
    """The default: a cache directory created by nonholo is private (mode 700) and trusted."""
    monkeypatch.setenv("NONHOLO_CACHE", str(tmp_path / "new" / "tapes"))
    import warnings

    model = nh.systems.chaplygin_sleigh().nonholonomic()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.compile(fuse=False)
    directory = tmp_path / "new" / "tapes"
    assert model.compiled and stat.S_IMODE(directory.stat().st_mode) == 0o700
    objects = list(directory.glob("*.so"))
    assert objects and all(stat.S_IMODE(p.stat().st_mode) & 0o022 == 0 for p in objects)
    assert all(tape_cache.verified(p) for p in objects)


def test_a_cache_of_another_user_or_under_a_writable_parent_is_refused(tmp_path, monkeypatch):
    cache = tmp_path / "theirs"
    cache.mkdir()
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    _plant(cache, model)
    real = os.geteuid()
    monkeypatch.setattr(tape_cache.os, "geteuid", lambda: real + 4321)  # the directory is now someone else's
    with pytest.warns(tape_cache.CacheWarning, match=f"belongs to the user id {real}, not to this user"):
        assert tape_cache.trusted_directory(cache) != cache
    monkeypatch.undo()
    open_parent = tmp_path / "open"
    open_parent.mkdir()
    open_parent.chmod(0o777)  # not sticky: anyone may rename the cache away and put their own
    with pytest.warns(tape_cache.CacheWarning, match="its parent .*open: is writable by others"):
        assert tape_cache.trusted_directory(open_parent / "tapes") != open_parent / "tapes"
    open_parent.chmod(0o1777)  # sticky, like /tmp: only the owner may rename what is in it
    assert tape_cache.trusted_directory(open_parent / "tapes") == open_parent / "tapes"


def test_an_object_others_can_write_in_a_private_cache_is_rebuilt(tmp_path):
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    paths = compiled._build_all(_sources(model), compiled._compiler(), tmp_path)
    assert all(compiled._complete(p) for p in paths)
    paths[0].chmod(0o666)
    assert not compiled._complete(paths[0]) and compiled._complete(paths[1])
    model.compile(cache_dir=tmp_path, fuse=False)
    assert model.compiled and all(compiled._complete(p) for p in paths)


def test_a_killed_build_leaves_no_folder_after_the_next_build(tmp_path):
    """A build killed while its compiler runs (SIGKILL: no clean-up) leaves its build folder; the
    next build in the cache removes it (its process is gone)."""
    slow = tmp_path / "slow-cc"
    slow.write_text('#!/bin/sh\ncase "$1" in --version) echo slow 1.0 ;; *) sleep 60 ;; esac\n')
    slow.chmod(0o755)
    cache = tmp_path / "cache"
    script = tmp_path / "child.py"
    script.write_text(f"import nonholo as nh\nnh.systems.chaplygin_sleigh().nonholonomic().compile("
                      f"cache_dir={str(cache)!r}, fuse=False)\n")
    child = subprocess.Popen([sys.executable, str(script)], env={**os.environ, "CC": str(slow)},
                             start_new_session=True, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(cache.glob(".build-*/*.c")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(cache.glob(".build-*")), "the build did not start"
    os.killpg(child.pid, signal.SIGKILL)  # the child and its compilers
    child.wait(timeout=30)
    assert list(cache.glob(".build-*"))  # left behind
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    model.compile(cache_dir=cache, fuse=False)
    assert model.compiled
    assert sorted(p.suffix for p in cache.iterdir()) == [".so", ".so"]  # the objects, no folder
