"""The validity check of reduced models covers the whole run, not only its start (adversarial
finding 2 of issue 40): a sleigh pushed by a constant torque leaves the range of its order-1 model
part-way, and the run warns; a run that stays inside does not."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.models import validity

Y0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 1.0])


def pushed_sleigh(torque: float = 10.0) -> nh.System:
    """The Chaplygin sleigh (m = I = 1, a = 0.2, mu = 1) with a constant torque on its heading."""
    x, y, phi = sp.symbols("x y phi")
    m, I, a = 1, 1, sp.Rational(1, 5)  # noqa: E741
    s, c = sp.sin(phi), sp.cos(phi)
    G = sp.Matrix([[m, 0, -m * a * s], [0, m, m * a * c], [-m * a * s, m * a * c, I + m * a**2]])
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-s, c, 0]]), friction=sp.Matrix([[1]]),
                     force=sp.Matrix([0, 0, torque]), name="pushed sleigh")


def _run(model, y0, t_span, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = nh.simulate(model, t_span, y0, **kw)
    return sol, [str(w.message) for w in caught if issubclass(w.category, nh.SimulationWarning)]


@pytest.fixture(scope="module")
def pushed():
    return pushed_sleigh()


@pytest.mark.parametrize("t_eval", [None, np.linspace(0, 10, 41)], ids=["steps", "t_eval with t0"])
def test_a_run_that_leaves_the_range_later_warns(pushed, t_eval):
    """delta = 0.016 at the start, above 0.1 from t = 1 on (the velocity grows to 11.6): the run warns,
    at a state after the start, and it is indeed far from the friction model (2.9 in q)."""
    eps = 0.05
    sol, caught = _run(pushed.reduced(eps, order=1), Y0, (0, 10), t_eval=t_eval)
    assert sol.success and len(caught) == 1 and sol.warnings == caught
    assert "left the range where its expansion in eps is valid" in caught[0] and "delta" in caught[0]
    est = sol.validity
    exact = validity.estimate(sol, Y0, samples=validity.RUN_SAMPLES, exact=True)
    assert exact.delta[0] < 0.02 < validity.THRESHOLD < np.max(exact.delta)  # valid at y0, not later
    assert est.t[int(np.argmax(est.delta))] > 1.0 and not est.valid
    # where the check's bound did not decide it computed the ratio itself: the values that exceed
    # the threshold are exact
    assert np.array_equal(est.delta[~est.bounded], exact.delta[~est.bounded]) and not est.bounded[-1]
    stored = validity.sample_indices(sol.t.size, validity.RUN_SAMPLES)  # evenly over the run, the end included
    assert set(sol.t[stored]) <= set(est.t) and est.t.max() == 10.0
    n = pushed.n
    start = np.r_[Y0[:n], pushed.on_slow_manifold(Y0[:n], Y0[n:], eps, order=4)]
    friction = nh.simulate(pushed.friction(eps), (0, 10), start, t_eval=sol.t, rtol=1e-10, atol=1e-12)
    assert np.abs(friction.q - sol.q).max() > 1.0  # the silent wrong answer the warning reports


@pytest.mark.parametrize("t_eval", [None, np.linspace(0, 10, 41)], ids=["steps", "t_eval with t0"])
def test_a_run_that_stays_in_the_range_does_not_warn(pushed, t_eval):
    """The same push at eps = 1e-3: delta stays near 0.003 over the whole run, no warning."""
    sol, caught = _run(pushed.reduced(1e-3, order=1), Y0, (0, 10), t_eval=t_eval)
    assert sol.success and caught == [] and sol.warnings == [] and sol.validity.valid
    stored = validity.sample_indices(sol.t.size, validity.RUN_SAMPLES)
    assert set(sol.t[stored]) <= set(sol.validity.t)
    # the check decided by its bound alone, no eigenvalue problem; the ratio itself stays near 0.003
    assert sol.validity.bounded.all() and np.max(sol.validity.delta) <= validity.THRESHOLD
    exact = validity.estimate(sol, Y0, samples=validity.RUN_SAMPLES, exact=True)
    assert not exact.bounded.any() and np.max(exact.delta) < 0.01
    assert np.all(sol.validity.delta >= exact.delta)


def test_estimate_samples(pushed):
    """samples=None: every stored state; samples=S: S of them, the first and the last included."""
    sol, _ = _run(pushed.reduced(0.05, order=1), Y0, (0, 10), t_eval=np.linspace(0, 10, 41))
    assert validity.estimate(sol, Y0).t.size == 41  # y0 is the first stored state: counted once
    est = validity.estimate(sol, Y0, samples=5)
    assert list(est.t) == [0.0, 2.5, 5.0, 7.5, 10.0]
    assert list(validity.sample_indices(41, 5)) == [0, 10, 20, 30, 40]
    assert list(validity.sample_indices(3, 5)) == [0, 1, 2]
    with pytest.raises(ValueError, match="samples"):
        validity.sample_indices(41, 1)


@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_one_pass_estimate_is_the_definition(order):
    """_core.reduced_validity (one pass in C++ over the samples) against the definitions evaluated
    point by point: V the model's velocity, J the friction model's Jacobian at (q, V), r the term
    eps^(K+1) h^(K+1) of the series of order K + 1 relative to the samples' largest |u|, |V|."""
    chain = nh.systems.knife_edge_chain(3)
    eps, n = 0.05, chain.n
    rng = np.random.default_rng(1)
    Q = rng.uniform(-0.5, 0.5, (4, n))
    QU = np.array([np.r_[q, chain.project(q, rng.uniform(-1, 1, n))] for q in Q])
    t = np.linspace(0.0, 1.0, 4)
    model = chain.reduced(eps, order=order)
    p = chain.param_vector()
    V, J, r, bound = nh._core.reduced_validity(chain.friction(eps).core, chain.core, order, eps, t, QU, p,
                                               nh.models.reduced.compiled_slip(chain, order + 1))
    assert np.all(bound >= validity._gap(J, chain.k))  # an upper bound of the gap (inf where it cannot tell)
    np.testing.assert_allclose(V, model.velocity(t, QU.T).T, rtol=1e-12, atol=1e-14)
    friction = chain.friction(eps)
    for i in range(len(t)):
        np.testing.assert_allclose(J[i], friction.core.jacobian(t[i], np.r_[QU[i, :n], V[i]],
                                                                  friction.param_vector()), rtol=1e-12, atol=1e-12)
    series = np.array([chain.slip(q, u, order=order + 1, t=ti)[order] for q, u, ti in zip(QU[:, :n], QU[:, n:], t)])
    scale = max(np.abs(QU[:, n:]).max(), np.abs(V).max())
    np.testing.assert_allclose(r, eps ** (order + 1) * np.abs(series).max(axis=1) / scale, rtol=1e-9)
    with pytest.raises(ValueError, match="qu"):
        nh._core.reduced_validity(friction.core, chain.core, order, eps, t, QU[:, :n], p)


def _samples(system, rng, count, speed):
    Q = rng.uniform(-1.0, 1.0, (count, system.n))
    return np.array([np.r_[q, system.project(q, rng.uniform(-speed, speed, system.n), 0.0)] for q in Q])


@pytest.mark.parametrize("seed, n, k, affine, force", [(3, 4, 2, False, False), (7, 6, 3, True, False),
                                                       (11, 8, 5, False, True), (13, 5, 1, False, True)])
def test_the_bound_never_says_valid_where_the_eigenvalues_do_not(seed, n, k, affine, force):
    """The gap's upper bound (no eigenvalues: a slow/fast similarity and the block Gershgorin theorem) is
    at least the ratio of the eigenvalues at random states of random systems, over eps from where it
    decides to where the time scales merge; it decides (bound <= THRESHOLD) at small eps."""
    system = nh.testing.random_system(seed, n=n, k=k, affine=affine, force=force)
    rng = np.random.default_rng(seed)
    QU = _samples(system, rng, 12, 2.0)
    t = rng.uniform(0.0, 3.0, len(QU))
    p = system.param_vector()
    for eps in (1e-5, 1e-3, 1e-2, 0.1, 1.0):
        for order in (0, 1):
            _, J, _, bound = nh._core.reduced_validity(system.friction(eps).core, system.core, order, eps, t, QU, p,
                                                       nh.models.reduced.compiled_slip(system, order + 1))
            gap = validity._gap(J, system.k)
            assert np.all(bound >= gap), (eps, order, bound, gap)
            assert not np.any((bound <= validity.THRESHOLD) & (gap > validity.THRESHOLD))
            if eps == 1e-5:
                assert np.all(bound <= validity.THRESHOLD)  # the cheap path decides where eps is small
    model = system.reduced(1e-5, order=1)
    y0 = QU[0]
    sol = nh.simulate(model, (0, 1), y0)
    assert sol.validity.valid and sol.validity.bounded.all()


def test_the_default_check_gives_the_verdict_of_the_eigenvalues():
    """simulate's check (the bound, eigenvalues only where it cannot decide) and the check by the
    eigenvalues everywhere give the same verdict and the same values above the threshold, on runs inside
    and outside the range; inside, on the chain of 8 links at eps 1e-4, it solves no eigenvalue problem."""
    chain = nh.systems.knife_edge_chain(8)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(8))]
    y0 = np.r_[q0, chain.project(q0, np.r_[1.0, 0.0, 0.5, np.zeros(7)])]
    for eps, valid in ((1e-4, True), (1e-3, True), (0.05, False)):
        sol, caught = _run(chain.reduced(eps, order=1), y0, (0, 5), t_eval=np.linspace(0, 5, 41))
        exact = validity.estimate(sol, y0, samples=validity.RUN_SAMPLES, exact=True)
        assert sol.validity.valid == exact.valid == valid and bool(caught) == (not valid)
        same = np.isin(exact.t, sol.validity.t)  # the states the check evaluated (margin: not all)
        assert same.sum() == sol.validity.t.size == exact.t.size - sol.validity.skipped
        assert np.all(sol.validity.delta >= exact.delta[same])
        assert np.array_equal(sol.validity.delta[~sol.validity.bounded], exact.delta[same][~sol.validity.bounded])
        assert np.all(sol.validity.delta[sol.validity.bounded] <= validity.THRESHOLD)
        if eps == 1e-4:
            assert sol.validity.bounded.all()


def test_the_check_skips_states_only_between_ends_with_the_margin():
    """simulate's check (margin=MARGIN) evaluates the first and last sampled states and bisects: on the chain
    of 8 links at eps 1e-4, far inside both thresholds at both ends, it evaluates those two only, and the
    states it skipped are indeed inside (every sample by the eigenvalues); at eps 0.05, outside, it
    evaluates every sampled state and gives the verdict and values of the full check. Without a margin
    (the default of estimate) every sampled state is evaluated."""
    chain = nh.systems.knife_edge_chain(8)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(8))]
    y0 = np.r_[q0, chain.project(q0, np.r_[1.0, 0.0, 0.5, np.zeros(7)])]
    t_eval = np.linspace(0, 5, 41)
    sol, caught = _run(chain.reduced(1e-4, order=1), y0, (0, 5), t_eval=t_eval)
    assert caught == [] and list(sol.validity.t) == [0.0, 5.0] and sol.validity.skipped == 14
    full = validity.estimate(sol, y0, samples=validity.RUN_SAMPLES)
    assert full.t.size == 16 and full.skipped == 0 and full.valid
    exact = validity.estimate(sol, y0, samples=validity.RUN_SAMPLES, exact=True)
    assert np.max(exact.delta) < validity.THRESHOLD / validity.MARGIN
    assert np.max(exact.next_term) < validity.NEXT_TERM_THRESHOLD / validity.MARGIN
    np.testing.assert_allclose(sol.validity.next_term, full.next_term[[0, -1]], rtol=1e-12)  # same scale
    sol, caught = _run(chain.reduced(0.05, order=1), y0, (0, 5), t_eval=t_eval)
    full = validity.estimate(sol, y0, samples=validity.RUN_SAMPLES)
    assert len(caught) == 1 and sol.validity.skipped == 0 and np.array_equal(sol.validity.t, full.t)
    np.testing.assert_array_equal(sol.validity.delta, full.delta)
    np.testing.assert_allclose(sol.validity.next_term, full.next_term, rtol=1e-12)
    with pytest.raises(ValueError, match="margin"):
        validity.estimate(sol, y0, samples=4, margin=1.0)


def test_the_check_bisects_where_the_run_speeds_up_between_its_ends():
    """A knife edge pushed along its heading by 10 sin(2 pi t / 10) and turning at a constant rate: it speeds
    up from 1 to about 33 and back to 1 over t in [0, 10], so both ends are slow and far inside the range at
    eps 1e-4, but the middle of the run is much faster. The speed test makes the check bisect there instead
    of skipping the whole run, and its verdict is the full check's."""
    x, y, phi, t = sp.symbols("x y phi t")
    s, c = sp.sin(phi), sp.cos(phi)
    push = 10 * sp.sin(2 * sp.pi * t / 10)
    system = nh.System([x, y, phi], sp.eye(3), constraints=sp.Matrix([[-s, c, 0]]), friction=sp.Matrix([[1]]),
                       force=sp.Matrix([push * c, push * s, 0]), time=t, name="pushed knife edge")
    sol, caught = _run(system.reduced(1e-4, order=1), Y0, (0, 10), t_eval=np.linspace(0, 10, 41))
    speed = np.abs(sol.v).max(axis=0)
    assert speed.max() > 10 * max(speed[0], speed[-1])
    exact = validity.estimate(sol, Y0, samples=validity.RUN_SAMPLES, exact=True)
    assert caught == [] and exact.valid and sol.validity.valid
    assert 2 < sol.validity.t.size < exact.t.size
    checked = np.abs(sol.v[:, np.isin(sol.t, sol.validity.t)]).max(axis=0)
    assert checked.max() >= speed.max() / validity.SPEED_GROWTH  # a fast state was evaluated


def test_y0_is_checked_at_t0_when_t_eval_starts_later():
    """The initial state is evaluated at the run's start t0, not at the first output time (a bug: with a
    t_eval that starts after t0 the check evaluated y0 at t_eval[0]). A sleigh whose turning is damped by
    the torque -10 t phi': the slow rate, hence the friction model's Jacobian and the gap's bound at y0,
    grows with t."""
    x, y, phi, t, w = sp.symbols("x y phi t w")
    s, c, a = sp.sin(phi), sp.cos(phi), sp.Rational(1, 5)
    G = sp.Matrix([[1, 0, -a * s], [0, 1, a * c], [-a * s, a * c, 1 + a**2]])
    system = nh.System([x, y, phi], G, constraints=sp.Matrix([[-s, c, 0]]), friction=sp.Matrix([[1]]),
                       force=sp.Matrix([0, 0, -10 * t * w]), velocities=sp.symbols("xd yd") + (w,), time=t,
                       name="sleigh damped by 10 t")
    eps, t_eval = 1e-3, np.linspace(1.0, 2.0, 5)
    sol, caught = _run(system.reduced(eps, order=1), Y0, (0, 2), t_eval=t_eval)
    assert sol.success and caught == []
    p = system.param_vector()
    friction, slip = system.friction(eps).core, nh.models.reduced.compiled_slip(system, 2)

    def bound_at(time):
        return nh._core.reduced_validity(friction, system.core, 1, eps, [time], Y0[None], p, slip)[3][0]

    assert abs(bound_at(1.0) - bound_at(0.0)) > 0.1 * bound_at(0.0)  # the time matters at y0
    for est in (sol.validity, validity.estimate(sol, Y0, t0=0.0)):
        # after y0 the stored states, and the step ends the run kept before t_eval's first time (a gap of
        # half the run: validity._run_states)
        assert est.t[0] == 0.0 and np.all(np.isin(est.t[1:], np.r_[sol.t, sol._trail[0]]))
        assert est.bounded[0] and est.delta[0] == bound_at(0.0)
    exact = validity.estimate(sol, Y0, exact=True, t0=0.0)
    V0 = system.reduced(eps, order=1).velocity(0.0, Y0[:, None])[:, 0]
    np.testing.assert_allclose(exact.delta[0], validity.scale_separation(system, eps, [0.0], [np.r_[Y0[:3], V0]])[0],
                               rtol=1e-12)
    # without t0 the first stored time is taken for y0's: right when t_eval starts at t0
    sol0, _ = _run(system.reduced(eps, order=1), Y0, (0, 2), t_eval=np.linspace(0.0, 2.0, 5))
    assert validity.estimate(sol0, Y0).t[0] == 0.0 == sol0.validity.t[0]


def _python_check(sol, y0, margin):
    """The check as it was written in Python before it moved to C++ (reduced_run_check): the reference
    that the C++ bisection must reproduce (the states it evaluates, delta bit for bit, r to rounding)."""
    model, system = sol.model, sol.model.system
    n = system.n
    idx = validity.sample_indices(sol.t.size, validity.RUN_SAMPLES)
    assert sol.t[0] == 0.0 and np.array_equal(sol.y[:, 0], y0)  # the stored initial state is y0 at t0
    t, Y = sol.t[idx], sol.y[:, idx].T
    p = model.param_vector()[: len(system.parameters)]
    QU = np.ascontiguousarray(Y[:, : 2 * n])
    speed = np.abs(QU[:, n:]).max(axis=1).tolist()
    count = len(t)
    delta, r_abs, bounded = [0.0] * count, [0.0] * count, [False] * count
    scale = max(speed)
    done, intervals, todo = [], [(0, count - 1)], [0, count - 1]
    while todo:
        V, d, r, b = validity._evaluate(system, model.eps, model.order, t[todo], QU[todo], p)
        v_max = float(np.abs(V).max())
        batch_scale = max(v_max, *(speed[i] for i in todo))
        for i, di, ri, bi in zip(todo, d.tolist(), r.tolist(), b.tolist()):
            delta[i], r_abs[i], bounded[i] = di, ri * batch_scale, bi
        scale = max(scale, v_max)
        done += todo
        quiet_delta, quiet_r = validity.THRESHOLD / margin, validity.NEXT_TERM_THRESHOLD / margin * scale
        todo, split = [], []
        for i, j in intervals:
            if j - i >= 2 and not (max(delta[i], delta[j]) <= quiet_delta and max(r_abs[i], r_abs[j]) <= quiet_r
                                   and max(speed[i + 1:j]) <= validity.SPEED_GROWTH * max(speed[i], speed[j])):
                todo.append((i + j) // 2)
                split += [(i, (i + j) // 2), ((i + j) // 2, j)]
        intervals = split
    done.sort()
    return t[done], np.array([delta[i] for i in done]), np.array([r_abs[i] for i in done]) / scale, \
        np.array([bounded[i] for i in done]), count - len(done)


@pytest.mark.parametrize("seed, n, k, force", [(3, 4, 2, False), (7, 6, 3, True), (11, 8, 5, True), (13, 5, 1, False)])
def test_the_check_in_cpp_is_the_python_check(seed, n, k, force):
    """simulate's check (one call into C++ that evaluates and bisects) against the Python check it replaced,
    on random systems from inside the range to outside it (eps where the bound decides, where the
    eigenvalues must, and where the bisection goes down to every sample), at several margins."""
    system = nh.testing.random_system(seed, n=n, k=k, force=force)
    rng = np.random.default_rng(seed)
    y0 = _samples(system, rng, 1, 1.0)[0]
    t_eval = np.linspace(0.0, 2.0, 33)
    kinds = set()
    for eps in (1e-5, 1e-2, 0.3, 3.0):
        for order in (0, 1):
            sol, _ = _run(system.reduced(eps, order=order), y0, (0, 2), t_eval=t_eval, rtol=1e-6, atol=1e-8,
                          max_steps=20000)
            if sol.t.size < 2:
                continue
            for margin in (validity.MARGIN, 3.0, 1e3):
                t, delta, r, bounded, skipped = _python_check(sol, y0, margin)
                est = validity.estimate(sol, y0, samples=validity.RUN_SAMPLES, margin=margin, t0=0.0)
                assert np.array_equal(est.t, t) and np.array_equal(est.bounded, bounded)
                assert np.array_equal(est.delta, delta)
                np.testing.assert_allclose(est.next_term, r, rtol=1e-13, atol=0.0)
                assert est.skipped == skipped and est.valid == bool(
                    np.all(delta <= validity.THRESHOLD) and np.all(r <= validity.NEXT_TERM_THRESHOLD))
                kinds.add((est.skipped > 0, bool(bounded.all()), est.valid))
    assert {(True, True, True), (False, False, False)} <= kinds  # skipped inside, eigenvalues outside


@pytest.mark.parametrize("K", [10, 30])
def test_the_bound_does_not_grow_with_the_size_of_the_system(K):
    """A platoon of K robots (3K coordinates, K no-slip rows) at eps 1e-3: the gap is about 0.0128 for every K.
    The bound stays within a factor 2 of it, so the check decides without eigenvalues at any size. Built on
    Frobenius norms (sqrt(m) for an orthonormal block of m columns), it was 0.118 at K = 30, above the threshold,
    and every check solved the eigenvalue problem of size 6K (seconds per state from K = 60)."""
    platoon = nh.systems.platoon(K)
    y0 = platoon.initial_state()
    _, J, _, bound = nh._core.reduced_validity(platoon.friction(1e-3).core, platoon.core, 1, 1e-3, np.zeros(1),
                                               np.ascontiguousarray(y0[None, :]), platoon.param_vector(), None)
    gap = validity._gap(J, platoon.k)
    assert 0.012 < gap[0] < 0.014
    assert gap[0] <= bound[0] <= 2 * gap[0]
    sol, caught = _run(platoon.reduced(1e-3, order=1), y0, (0, 1))
    assert sol.success and caught == [] and sol.validity.valid and sol.validity.bounded.all()


def test_an_eps_beyond_double_precision_warns_and_keeps_the_run():
    """eps = 1e200 (and a subnormal 5e-324) gave the validity check Jacobians with inf entries, and
    numpy's LinAlgError after the integration (the run lost); now the check says the run left the
    range, and simulate returns its result."""
    sleigh = nh.systems.chaplygin_sleigh()
    for eps in (1e200, 5e-324):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run = nh.simulate(sleigh.reduced(eps, order=2), (0, 1), [0, 0, 0, -1.5, 0, 1.0])
        assert run.t.size >= 1
        assert any("left the range where its expansion in eps is valid: the ratio of the friction model's slow to "
                   "fast rates is delta = inf" in str(w.message) for w in caught)
