"""The on-disk cache of compiled tapes: where it lives, whether it may be trusted, and the check
of each object before it is loaded.

Loading a shared object runs its code, so the cache is trusted only when nobody else can write
it: the directory must belong to the user (or root, for root) and be writable by nobody else, and
so must every directory above it, except sticky ones such as /tmp (where nobody may rename what
another made). A cache that fails this (``NONHOLO_CACHE=/tmp``, a group-writable directory, one
another user made) is not used: a private directory of this process takes its place, with a
:class:`CacheWarning` naming the reason. Each object must then belong to the user and be writable
by nobody else, or it is built again.

An object is written in a build folder beside its place and renamed into it, with a trailer that
holds the SHA-256 of its bytes; an object whose bytes do not match its trailer (cut short,
corrupted on disk, written by an older version) is built again, never loaded: loading corrupt
code can kill the process (SIGILL, SIGSEGV) rather than fail. The build folders of builds that
were killed are removed by the next build.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import socket
import stat
import tempfile
import time
import warnings
from pathlib import Path

__all__ = ["cache_directory", "trusted_directory", "verified", "seal", "build_folder", "CacheWarning"]

#: The trailer appended to every cached object: this tag, then the SHA-256 of the bytes before it.
#: The dynamic loader maps only the segments the ELF headers name, so trailing bytes are ignored.
TAG = b"\0nonholo-sha256\0"
TRAILER = len(TAG) + 32
BUILD_PREFIX = ".build-"
#: A build folder of another machine (a shared cache) is taken as abandoned after this long.
STALE_SECONDS = 24 * 3600.0


class CacheWarning(RuntimeWarning):
    """The compile cache cannot be trusted (others can write it): a private one is used instead."""


def cache_directory() -> Path:
    """Where compiled tapes are kept: ``$NONHOLO_CACHE``, else ``~/.cache/nonholo/tapes``."""
    root = os.environ.get("NONHOLO_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "nonholo" / "tapes"


def _foreign_writer(info: os.stat_result, sticky_ok: bool) -> str | None:
    """Why someone other than the user can change a file or directory with ``info``; None if nobody."""
    uid = os.geteuid()
    if info.st_uid not in (uid, 0):
        return f"it belongs to the user id {info.st_uid}, not to this user ({uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        if sticky_ok and info.st_mode & stat.S_ISVTX:
            return None
        return f"it is writable by {'others' if info.st_mode & stat.S_IWOTH else 'its group'} " \
               f"(mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _untrusted(directory: Path) -> str | None:
    """Why ``directory`` (which exists) cannot be trusted with objects to load; None when it can."""
    info = os.stat(directory)
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory"
    if info.st_uid != os.geteuid():
        return f"it belongs to the user id {info.st_uid}, not to this user ({os.geteuid()})"
    reason = _foreign_writer(info, sticky_ok=False)
    if reason:
        return reason
    for parent in directory.resolve().parents:
        reason = _foreign_writer(os.stat(parent), sticky_ok=True)
        if reason:
            return f"its parent {parent}: {reason.replace('it ', '', 1)}"
    return None


_private: list = []


def _private_directory() -> Path:
    """A directory of this process only (mode 700), removed at exit."""
    if not _private:
        path = tempfile.mkdtemp(prefix="nonholo-tapes-")
        atexit.register(shutil.rmtree, path, True)
        _private.append(Path(path))
    return _private[0]


def trusted_directory(directory=None, create: bool = True) -> Path:
    """``directory`` (default :func:`cache_directory`), created private (mode 700) if missing, when
    nobody else can write it; else a private directory of this process, with a CacheWarning.
    ``create=False``: a missing directory is returned as it is (nothing is cached there yet)."""
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"cache_dir must be a path (str or os.PathLike) or None, got {type(directory).__name__}")
    directory = Path(directory) if directory is not None else cache_directory()
    try:
        if not directory.exists():
            if not create:
                return directory
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        reason = _untrusted(directory)
    except OSError as error:
        reason = f"it cannot be used ({error})"
    if reason is None:
        return directory
    private = _private_directory()
    warnings.warn(f"the compile cache {directory} is not used: {reason}, so another user could plant code "
                  f"that nonholo would run; compiled tapes go to the private directory {private} for this "
                  "process. Point NONHOLO_CACHE (or cache_dir) at a directory only you can write.",
                  CacheWarning, stacklevel=4)
    return private


def verified(path: Path) -> bool:
    """True when ``path`` is an object this user wrote, nobody else can change, whose bytes match
    the SHA-256 of its trailer (see :func:`seal`); False for a missing, foreign, writable, corrupt
    or unsealed object, which is then built again."""
    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or _foreign_writer(info, False):
                return False
            data = f.read()
    except OSError:
        return False
    if len(data) <= TRAILER or data[-TRAILER:-32] != TAG:
        return False
    return hashlib.sha256(data[:-TRAILER]).digest() == data[-32:]


def seal(path: Path) -> None:
    """Append the trailer of a freshly built object ``path`` and make it writable by its owner only."""
    with open(path, "r+b") as f:
        digest = hashlib.sha256(f.read()).digest()
        f.write(TAG + digest)
    os.chmod(path, 0o644)


def _alive(pid: int) -> bool:
    """Whether the process ``pid`` of this machine still runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _host() -> str:
    return socket.gethostname().replace("-", "_") or "host"


def remove_stale_builds(directory: Path) -> None:
    """Remove the build folders of killed builds: those of this machine whose process is gone,
    and those of other machines older than STALE_SECONDS."""
    host = _host()
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(BUILD_PREFIX) or not entry.is_dir(follow_symlinks=False):
            continue
        parts = entry.name[len(BUILD_PREFIX):].split("-")
        try:
            stale = not _alive(int(parts[1])) if parts[0] == host else \
                time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
        except (IndexError, ValueError, OSError):
            continue
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)


def build_folder(directory: Path) -> tempfile.TemporaryDirectory:
    """A temporary build folder inside ``directory`` (same file system: objects are renamed into
    place atomically), named after this machine and process so that the next build can tell a
    killed build's folder; the stale ones are removed first."""
    remove_stale_builds(directory)
    return tempfile.TemporaryDirectory(prefix=f"{BUILD_PREFIX}{_host()}-{os.getpid()}-", dir=directory)
