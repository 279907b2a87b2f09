"""The reduced models' right-hand side does no heap allocation once its workspace is sized.

A counting allocator (malloc, calloc, realloc, memalign and posix_memalign forwarded to glibc,
each call counted) is compiled and preloaded into a fresh interpreter, which evaluates the
right-hand sides of reduced models (coordinate and frame forms, orders 0..3 with compiled
coefficients, and the Taylor-mode path above the compiled maximum) many times through
``_core.diagnostics.allocations_in_rhs``; every count must be zero. As a check that the counter sees the
core's allocations, building a model (its workspace and Geometry vectors) must count some.
"""

import os
import subprocess
import sys
import textwrap


COUNTER = r"""
#include <stddef.h>
extern void *__libc_malloc(size_t), *__libc_calloc(size_t, size_t), *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static long count;
static void hit(void) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); }
void *malloc(size_t n) { hit(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { hit(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { hit(); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { hit(); return __libc_memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) { hit(); *p = __libc_memalign(a, n); return *p ? 0 : 12; }
long nonholo_allocation_count(void) { return count; }
"""

SCRIPT = textwrap.dedent("""
    import ctypes
    import numpy as np, sympy as sp
    import nonholo as nh
    from nonholo import _core

    def count(model, y):
        return _core.diagnostics.allocations_in_rhs(model.core, 0.1, y, model.param_vector(), 200)

    sleigh, disk = nh.systems.chaplygin_sleigh(), nh.systems.vertical_rolling_disk()
    chain = nh.systems.knife_edge_chain(4)
    phi = sleigh.coordinates[2]
    body = sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])
    out = {}
    for name, system, frame in (("sleigh", sleigh, body), ("disk", disk, None), ("chain", chain, None)):
        q = np.linspace(0.2, 0.5, system.n)
        u = system.project(q, np.linspace(1.0, -0.5, system.n))
        for K in (0, 1, 2, 3):
            out[f"{name} coordinates {K}"] = count(system.reduced(1e-2, order=K), np.r_[q, u])
            model = system.reduced(1e-2, order=K, velocities="frame", frame=frame)
            out[f"{name} frame {K}"] = count(model, np.r_[q, model.frame.state(q, u)[system.n:]])
    K = _core.max_compiled_slip_order + 1
    q = np.array([0.1, 0.2, 0.3]); u = sleigh.project(q, np.array([1.0, 0.0, 0.5]))
    out["sleigh taylor"] = count(sleigh.reduced(1e-2, order=K), np.r_[q, u])
    counter = ctypes.CDLL(None).nonholo_allocation_count
    counter.restype = ctypes.c_long
    before = counter()
    model = _core.reduced_model(chain.core, 1)  # std::make_shared in the core
    out["building a model"] = counter() - before
    print(repr(out))
""")


def allocation_counts(tmp_path, script: str) -> dict:
    """Run ``script`` in a fresh interpreter with the counting malloc preloaded; the dict literal
    it prints last."""
    src = tmp_path / "counter.c"
    src.write_text(COUNTER)
    lib = tmp_path / "libcounter.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    env = dict(os.environ, LD_PRELOAD=str(lib))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our own script's dict literal


def test_reduced_rhs_does_not_allocate(tmp_path):
    counts = allocation_counts(tmp_path, SCRIPT)
    building = counts.pop("building a model")
    assert counts and all(c == 0 for c in counts.values()), counts
    assert building > 0  # the counter sees the core's allocations
