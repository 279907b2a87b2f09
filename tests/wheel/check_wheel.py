"""Check the self-contained wheel and the sdist (``make wheel-test``; CI runs it after ``make test``).

1. The repaired wheel carries every SUNDIALS library its extension needs (nonholo.libs/) and the
   extension's DT_NEEDED names point at those copies.
2. In a fresh virtual environment with the wheel installed (numpy and sympy from the index), the
   README's quick start runs with an empty LD_LIBRARY_PATH; ``ldd`` and the process's own memory
   map show that no libsundials comes from outside the environment. Where a private mount
   namespace is available (root, ``unshare``), the system's libsundials files are also hidden
   (bind-mounted over by /dev/null) while the quick start runs.
3. The sdist's CMake configuration, with SUNDIALS or Eigen made unfindable, stops with a message
   that names the missing package.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import nonholo, os
libs = sorted({line.split()[-1] for line in open("/proc/self/maps") if "sundials" in line})
print("LOADED", *libs, sep="\\n  ")
outside = [lib for lib in libs if not lib.startswith(os.path.dirname(os.path.dirname(nonholo.__file__)))]
assert libs and not outside, f"libsundials loaded from outside the environment: {outside}"
"""


def run(cmd, **kw) -> subprocess.CompletedProcess:
    line = " ".join(map(str, cmd))
    print("+", line if len(line) < 300 else line[:300] + " ...", flush=True)
    return subprocess.run(cmd, check=True, text=True, **kw)


def quick_start() -> str:
    """The first Python block of the README's "A first example"."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A first example", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def check_contents(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    bundled = [n for n in names if n.startswith("nonholo.libs/")]
    sundials = [n for n in bundled if "libsundials" in n]
    print("bundled:", *bundled, sep="\n  ")
    if not sundials:
        raise SystemExit(f"{wheel.name} bundles no libsundials: was it repaired by auditwheel?")
    if "manylinux" not in wheel.name:
        raise SystemExit(f"{wheel.name} has no manylinux tag")
    # the reproduction of the papers (papers/) and the developer tools (tools/) stay in the checkout
    outside = [n for n in names if n.split("/")[0] in ("papers", "tools") or "/figures/" in n or "stubgen" in n]
    if outside:
        raise SystemExit(f"{wheel.name} carries what belongs to the checkout only: {outside[:5]}")


def fresh_environment(wheel: Path, work: Path) -> Path:
    venv = work / "venv"
    shutil.rmtree(venv, ignore_errors=True)
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", wheel])
    return python


def check_linking(python: Path) -> None:
    core = run([python, "-c", "import nonholo._core as c; print(c.__file__)"], capture_output=True,
               env={**os.environ, "LD_LIBRARY_PATH": ""}).stdout.strip()
    ldd = run(["ldd", core], capture_output=True).stdout
    print(ldd)
    site = str(Path(core).parents[1])
    lines = [ln for ln in ldd.splitlines() if "sundials" in ln]
    bad = [ln for ln in lines if "=>" not in ln or not ln.split("=>")[1].strip().startswith(site)]
    if not lines or bad:
        raise SystemExit(f"libsundials resolves outside {site}: {bad or 'none found'}")


def hidden_system_libraries() -> list[str]:
    return sorted(glob.glob("/usr/lib/*/libsundials*.so*") + glob.glob("/usr/lib/libsundials*.so*")
                  + glob.glob("/usr/local/lib/libsundials*.so*"))


def check_quick_start(python: Path, work: Path) -> None:
    script = work / "quick_start.py"
    script.write_text(quick_start() + PROBE)
    env = {**os.environ, "LD_LIBRARY_PATH": "", "PYTHONPATH": ""}
    run([python, script], env=env, cwd=work)
    system_copies = hidden_system_libraries()
    if system_copies and os.geteuid() == 0 and shutil.which("unshare"):
        hide = "; ".join(f"mount --bind /dev/null {lib}" for lib in system_copies)
        run(["unshare", "--mount", "sh", "-c", f"{hide} && exec {python} {script}"], env=env, cwd=work)
        print(f"quick start ran with the {len(system_copies)} system libsundials files hidden")
    else:
        print("no private mount namespace here: the system copies were not hidden (ldd and the memory map "
              "checked instead)")


def check_sdist_messages(sdist: Path, work: Path) -> None:
    """CMake of the sdist with SUNDIALS, then Eigen, unfindable: the message names the package."""
    src = work / "sdist"
    shutil.rmtree(src, ignore_errors=True)
    with tarfile.open(sdist) as tf:
        tf.extractall(src, filter="data")
    (top,) = src.iterdir()
    import pybind11

    common = [f"-Dpybind11_DIR={pybind11.get_cmake_dir()}", f"-DPython_EXECUTABLE={sys.executable}",
              "-DSKBUILD_PROJECT_NAME=nonholo", "-DSKBUILD_PROJECT_VERSION=0.0.0"]
    cases = {
        "libsundials-dev": ["-DCMAKE_DISABLE_FIND_PACKAGE_SUNDIALS=ON",
                            "-DCMAKE_IGNORE_PATH=/usr/include;/usr/lib/x86_64-linux-gnu;/usr/lib;/usr/local/lib"],
        "libeigen3-dev": ["-DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON"],
    }
    for package, flags in cases.items():
        build = work / f"cmake-without-{package}"
        shutil.rmtree(build, ignore_errors=True)
        out = subprocess.run(["cmake", "-S", top, "-B", build, *common, *flags], text=True, capture_output=True)
        text = out.stdout + out.stderr
        if out.returncode == 0 or package not in text:
            raise SystemExit(f"CMake without {package}: expected a failure naming it, got (rc "
                             f"{out.returncode}):\n{text}")
        print(f"without {package}: CMake stops and names it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "wheel" / "check")
    args = parser.parse_args()
    wheels = sorted(args.dist.glob("nonholo-*manylinux*.whl"))
    sdists = sorted(args.dist.glob("nonholo-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise SystemExit(f"expected one repaired wheel and one sdist in {args.dist}, found {wheels + sdists}")
    args.work.mkdir(parents=True, exist_ok=True)
    check_contents(wheels[0])
    python = fresh_environment(wheels[0].resolve(), args.work.resolve())
    check_linking(python)
    check_quick_start(python, args.work.resolve())
    check_sdist_messages(sdists[0], args.work.resolve())
    print("wheel and sdist checks passed")


if __name__ == "__main__":
    main()
