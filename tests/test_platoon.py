"""nh.systems.platoon(K): K robots with no-slip axles in a line, joined by springs."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


@pytest.fixture(scope="module")
def platoon3():
    return nh.systems.platoon(3)


def test_structure(platoon3):
    system = platoon3
    assert (system.n, system.k, system.K) == (9, 3, 3)
    G, A = system.metric, system.constraints
    for i in range(3):  # block diagonal G, one constraint row per robot on its own coordinates
        for j in range(3):
            if i != j:
                assert G[3 * i:3 * i + 3, 3 * j:3 * j + 3] == sp.zeros(3, 3)
        assert A[i, :].free_symbols <= set(system.coordinates[3 * i:3 * i + 3])
        assert all(A[i, c] == 0 for c in range(9) if c // 3 != i)


def test_initial_state_is_moving_in_a_line_on_the_constraint_set(platoon3):
    system = platoon3
    y0 = system.initial_state(speed=2.0, perturbation=0.01, seed=3)
    n = system.n
    q, v = y0[:n], y0[n:]
    theta = q[2::3]
    residual = -np.sin(theta) * v[0::3] + np.cos(theta) * v[1::3]  # A(q) v, one row per robot
    np.testing.assert_allclose(residual, 0.0, atol=1e-15)
    np.testing.assert_allclose(q[0::3], -np.arange(3.0), atol=0.05)  # a line along x, spacing L = 1
    assert np.all(np.abs(np.hypot(v[0::3], v[1::3]) - 2.0) < 0.1)  # driving forward at about 2
    assert np.all(np.cos(theta) * v[0::3] + np.sin(theta) * v[1::3] > 0)
    A = np.array(system.constraints.subs(dict(zip(system.coordinates, q))), dtype=float)
    np.testing.assert_allclose(A @ v, 0.0, atol=1e-15)
    with pytest.raises(ValueError, match="K must be a positive integer"):
        nh.systems.platoon(0)


def test_energy_is_conserved_by_the_nonholonomic_model(platoon3):
    system = platoon3
    model = system.nonholonomic()
    y0 = system.initial_state(perturbation=0.05, seed=1)
    result = nh.simulate(model, (0, 2), y0, t_eval=np.linspace(0, 2, 21), rtol=1e-10, atol=1e-12)
    assert result.status == 0
    energy = model.energy(result.t, result.y)
    assert np.ptp(energy) < 1e-8 * abs(energy[0])
    # not trivially: the springs (spacings perturbed) change the robots' speeds by far more
    speeds = np.hypot(result.y[9::3], result.y[10::3])
    assert np.ptp(speeds, axis=1).max() > 1e-3
    # the constraints hold along the run (A v = 0 is an invariant of the nonholonomic model)
    theta, v = result.y[2:9:3], result.y[9:]
    np.testing.assert_allclose(-np.sin(theta) * v[0::3] + np.cos(theta) * v[1::3], 0.0, atol=1e-8)


def _reference_platoon_expressions(K):
    """G, A and V built the straightforward way (3 x 3 blocks, evaluated SymPy throughout)."""
    m, I, d, k, L = sp.symbols("m I d k L", positive=True)  # noqa: E741
    q = [s for i in range(1, K + 1) for s in sp.symbols(f"x_{i} y_{i} theta_{i}", real=True)]
    G, A = sp.zeros(3 * K, 3 * K), sp.zeros(K, 3 * K)
    for i in range(K):
        s, c = sp.sin(q[3 * i + 2]), sp.cos(q[3 * i + 2])
        G[3 * i:3 * i + 3, 3 * i:3 * i + 3] = sp.Matrix([[m, 0, -m * d * s], [0, m, m * d * c],
                                                         [-m * d * s, m * d * c, m * d**2 + I]])
        A[i, 3 * i], A[i, 3 * i + 1] = -s, c
    V = sp.Add(*(k / 2 * (sp.sqrt((q[3 * i + 3] - q[3 * i])**2 + (q[3 * i + 4] - q[3 * i + 1])**2) - L)**2
                 for i in range(K - 1)))
    return G, A, V


def test_fast_builder_gives_the_evaluated_expressions():
    # K = 12: names of one and two digits, whose order SymPy's canonical forms depend on
    system = nh.systems.platoon(12)
    G, A, V = _reference_platoon_expressions(12)
    assert sp.srepr(system.potential) == sp.srepr(V)  # the same tree, not only the same function
    assert system.metric.todok() == G.todok() and system.constraints.todok() == A.todok()
    assert system.metric == G and system.constraints == A


def test_sizes_that_cannot_be_held_are_refused_before_allocating(monkeypatch):
    """platoon(10**6) ran towards the out-of-memory killer: the size is refused, naming K, before
    a symbol is made (the traced allocations stay under a megabyte)."""
    import tracemalloc

    from nonholo.system import checks

    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"K = 1000000: a system of n = 3000000 coordinates .* GB of memory "
                                              r"available"):
            nh.systems.platoon(10**6)
        with pytest.raises(ValueError, match=r"N = 1000000: a system of n = 1000002 coordinates"):
            nh.systems.knife_edge_chain(10**6)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1e6, peak
    # the rule is the estimate against the memory available, whatever the size
    monkeypatch.setattr(checks, "available_memory", lambda: checks.system_bytes(30, 10) - 1)
    with pytest.raises(ValueError, match="K = 10: .* more than the"):
        nh.systems.platoon(10)
    x = sp.symbols("x0:30")
    with pytest.raises(ValueError, match=r"coordinates \(30 symbols\)"):  # a System written by hand too
        nh.System(list(x), sp.eye(30), constraints=sp.eye(10, 30))
    monkeypatch.setattr(checks, "available_memory", lambda: checks.system_bytes(30, 10))
    assert nh.systems.platoon(10).n == 30
    monkeypatch.setattr(checks, "available_memory", lambda: None)  # unknown: no refusal
    assert nh.systems.platoon(2).n == 6


def test_sparse_systems_are_stored_sparsely():
    """The platoon's G, A and mu are SymPy sparse matrices of their nonzeros (7 + 2 + 1 per robot),
    not n^2 entries (an immutable dense matrix holds a tuple of all of them: 288 MB at K = 2000),
    with the entries of the dense construction; a mostly-zero dense matrix given to System is kept
    sparse too, a small or full one dense."""
    system = nh.systems.platoon(12)
    G, A, mu = system.metric, system.constraints, system.friction_coefficients
    assert all(isinstance(M, sp.ImmutableSparseMatrix) for M in (G, A, mu))
    assert (len(G.todok()), len(A.todok()), len(mu.todok())) == (7 * 12, 2 * 12, 12)
    theta, m, d = system.coordinates[2], *(next(s for s in system.parameters if s.name == name) for name in "md")
    assert G[0, 2] == -m * d * sp.sin(theta) and G[2, 0] == G[0, 2] and A[0, 0] == -sp.sin(theta) and G[0, 3] == 0
    x = sp.symbols("x0:30")
    dense = sp.diag(*[1 + xi**2 for xi in x])
    assert isinstance(nh.System(list(x), dense).metric, sp.ImmutableSparseMatrix)
    assert nh.System(list(x), dense).metric == dense
    assert isinstance(nh.System(list(x), sp.ones(30, 30) + 30 * sp.eye(30)).metric, sp.ImmutableDenseMatrix)
    assert isinstance(nh.systems.chaplygin_sleigh().metric, sp.ImmutableDenseMatrix)
