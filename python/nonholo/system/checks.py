"""Checks of a :class:`~nonholo.System`: before anything is allocated, that the memory holds a
system of its size; once its C++ system is built, the metric's symmetry and the applied force
against the one the metric, potential and force define."""

from __future__ import annotations

import os

import numpy as np

from ..errors import ModelError


#: Bytes a system holds per entry of its n x n metric, k x n constraint rows and k x k friction
#: coefficients, zero or not: the lowered graph's outputs and the core's tapes and workspaces are
#: laid out densely. Measured (maximum resident size, the system built): the platoon at K = 300
#: (n = 900) 63 B, at K = 100 (n = 300) 99 B per n^2 entry; the larger count is taken.
BYTES_PER_ENTRY = 100


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation (MemAvailable of /proc/meminfo, else the free
    physical pages); None when the system does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def system_bytes(n: int, k: int) -> int:
    """The memory a system of ``n`` coordinates and ``k`` constraints takes (BYTES_PER_ENTRY)."""
    return BYTES_PER_ENTRY * (n * n + k * n + k * k)


def check_size(n: int, k: int, argument: str) -> None:
    """ValueError naming ``argument`` (e.g. ``"K = 2000000"``) when a system of ``n`` coordinates
    and ``k`` constraints would take more memory than is available: asked before anything is
    allocated, so that a size that cannot be held fails at once instead of ending in the
    out-of-memory killer."""
    refuse_beyond_memory(system_bytes(n, k), f"{argument}: a system of n = {n} coordinates and k = {k} constraints "
                         "needs", f"its n x n matrices are held densely, about {BYTES_PER_ENTRY} bytes per entry",
                         "choose a smaller size")


def refuse_beyond_memory(need: float, what: str, detail: str, advice: str) -> None:
    """ValueError "``what`` about X GB (``detail``), more than the Y GB of memory available; ``advice``"
    where ``need`` bytes exceed the memory available (:func:`available_memory`): asked before the work
    that would allocate them, by every size check (a system's, a sweep's grid, a trajectory's samples)."""
    have = available_memory()
    if have is not None and need > have:
        raise ValueError(f"{what} about {need / 1e9:.3g} GB ({detail}), more than the {have / 1e9:.3g} GB of memory "
                         f"available; {advice}")


def check_built(system) -> None:
    """The checks of a system once built: G and mu symmetric, the applied force consistent, the unit-norm
    groups' invariance."""
    check_metric_symmetric(system)
    check_friction_symmetric(system)
    check_applied_force(system)
    check_unit_norm_invariant(system)


def check_metric_symmetric(system) -> None:
    """G = G^T: at once where each G_ij is the expression G_ji (O(nonzeros)), else at 3 random points."""
    if all(G.get((j, i)) == e for G in [system.metric.todok()] for (i, j), e in G.items()):
        return
    rng = np.random.default_rng(0)
    p = system.param_vector()
    for _ in range(3):
        q = rng.uniform(-1.0, 1.0, system.n)
        try:
            G = system._core.at(0.0, q, None, p).metric()
        except (ValueError, RuntimeError):
            continue  # not positive definite here; checked where it is used
        if not np.allclose(G, G.T, rtol=1e-12, atol=1e-12 * (1.0 + np.abs(G).max())):
            raise ModelError("the metric is not symmetric")


def check_friction_symmetric(system) -> None:
    """mu = mu^T (the friction model's F = -mu N ... pairs rows symmetrically, and the reduced models'
    Q = (A G^-1 A^T mu)^-1 reads mu as symmetric): at once where each mu_ij is the expression mu_ji,
    else at 3 random points. A non-symmetric mu was refused by system.friction() only: the reduced
    model ran on it and qmat inverted its lower triangle read as symmetric."""
    mu = system.friction_coefficients
    if mu is None or mu.shape[0] < 2 or mu == mu.T:
        return
    import sympy as sp

    args = [*system.coordinates, *system.parameters, system.time]
    values = sp.lambdify(args, [mu, mu - mu.T], "numpy")
    rng = np.random.default_rng(0)
    p = np.asarray(system.param_vector(), dtype=float)
    for _ in range(3):
        with np.errstate(all="ignore"):
            m, d = (np.asarray(v, dtype=float) for v in values(*rng.uniform(-1.0, 1.0, system.n), *p, 0.5))
        if np.any(np.abs(d) > 1e-12 * np.nanmax(np.abs(m))):  # relative: 1e-12 [[1, .5], [0, 1]] is no rounding
            i, j = np.unravel_index(int(np.nanargmax(np.abs(d))), d.shape)
            raise ValueError(f"friction must be a symmetric matrix (mu_ij = mu_ji), got mu[{i}, {j}] = "
                             f"{mu[i, j]} and mu[{j}, {i}] = {mu[j, i]}")


def check_applied_force(system) -> None:
    """applied_force against F - c(q, v) - dV/dq at three random states (c_i = G_il Gamma^l_jk
    v^j v^k from the metric's Christoffel symbols, dV by central differences, hence the loose
    relative tolerance 1e-6: a check for a different function, not for rounding)."""
    if system.applied_force is None:
        return
    rng = np.random.default_rng(1)
    p = system.param_vector()
    n, h = system.n, 1e-5
    for _ in range(3):
        q, v = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
        try:
            at = system._core.at(0.0, q, v, p)
            G, vdot = at.metric(), at.nonholonomic_acceleration()
            given = G @ vdot - at.constraint_matrix().T @ at.multipliers()
            c = G @ np.einsum("ljk,j,k->l", np.asarray(at.christoffel()).reshape(n, n, n), v, v)
            dV = np.array([(system._core.at(0.0, q + h * e, None, p).potential()
                            - system._core.at(0.0, q - h * e, None, p).potential()) / (2 * h) for e in np.eye(n)])
        except (ValueError, RuntimeError):
            continue  # singular here; checked where it is used
        expected = at.force() - c - dV
        if not np.allclose(given, expected, rtol=0, atol=1e-6 * max(1.0, np.abs(expected).max())):
            raise ModelError("applied_force is not F - c(q, v) - dV/dq of the metric, potential and force "
                             f"(at q = {np.round(q, 3).tolist()}, v = {np.round(v, 3).tolist()}: "
                             f"{given} against {expected})")


def check_unit_norm_invariant(system) -> None:
    """The energies of a system with unit-norm groups against the groups scaled, q_g -> s q_g and
    v_g -> s v_g (s = 1.3), at three random states: the integrator scales the groups back to norm 1
    after its steps, which changes nothing only when V and T do not see the scale. A spherical
    pendulum in Cartesian coordinates with V = g z and |(x, y, z)| = 1 declared as unit norm ran to
    |q| = 16.6 with status 0."""
    if not system.unit_norm:
        return
    rng = np.random.default_rng(2)
    p = system.param_vector()
    n = system.n
    for _ in range(3):
        q, v = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
        for group in system.unit_norm:
            q[group] /= np.linalg.norm(q[group])
        qs, vs = q.copy(), v.copy()
        for group in system.unit_norm:
            qs[group] *= 1.3
            vs[group] *= 1.3
        try:
            at, scaled = system._core.at(0.0, q, v, p), system._core.at(0.0, qs, vs, p)
            energies = [(x.potential(), 0.5 * y @ x.metric() @ y) for x, y in ((at, v), (scaled, vs))]
        except (ValueError, RuntimeError):
            continue  # singular here; checked where it is used
        for (a, b), name in zip(zip(*energies), ("potential", "kinetic energy")):
            if not abs(a - b) <= 1e-8 * max(1.0, abs(a), abs(b)):
                raise ModelError(f"unit_norm: the {name} changes when a unit-norm group of coordinates is scaled "
                                 f"({a:.6g} at q, {b:.6g} with the group times 1.3): the integrator scales the groups "
                                 "back to norm 1 after its steps, which is right only for expressions invariant under "
                                 "q_g -> s q_g, v_g -> s v_g (a quaternion's); use a holonomic constraint instead")
