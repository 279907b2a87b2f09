"""The frame form of the reduced model through points where its frame is singular: the Voronets
frame is re-split during the run (maxvol at the current q, a restart of the solver), a frame given
by its vectors stops the run there with a message, and a frame-form model accepts the coordinate
form's initial state (q, u)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo import _core


def _sleigh_crossing():
    """The sleigh heading at phi = 1.2 and turning: phi passes pi/2, where its default Voronets
    frame y' = tan(phi) x' (y solved for) is singular."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0 = np.array([0.0, 0.0, 1.2])
    return sleigh, q0, sleigh.project(q0, np.array([1.0, 0.5, 1.0]))


def _coordinates_and_frame(system, q0, u0, T, eps=1e-3, order=2, **kw):
    opts = dict(rtol=1e-10, atol=1e-12, raise_on_failure=True, **kw)
    coords = nh.simulate(system.reduced(eps, order=order), (0, T), np.r_[q0, u0], **opts)
    frame = nh.simulate(system.reduced(eps, order=order, velocities="frame"), (0, T), np.r_[q0, u0], **opts)
    return coords, frame


def test_sleigh_default_frame_through_cos_phi_zero_matches_the_coordinate_form():
    """Before the re-split the frame form lost 9e-4 here (rtol 1e-10) without stopping; now it
    switches to x solved for near phi = pi/2 and agrees with the coordinate form to the tolerance."""
    sleigh, q0, u0 = _sleigh_crossing()
    t = np.linspace(0, 6, 61)
    coords, frame = _coordinates_and_frame(sleigh, q0, u0, 6.0, t_eval=t)
    assert coords.q[2].min() < np.pi / 2 < coords.q[2].max()  # the run crosses cos(phi) = 0
    assert frame.stats["n_frame_switches"] >= 1
    assert frame.frame_switches[0][1] == ["x"]  # y' = tan(phi) x' -> x' = cot(phi) y'
    t_switch = frame.frame_switches[0][0]
    assert abs(np.cos(np.interp(t_switch, coords.t, coords.q[2]))) < 0.2  # |B| = |tan(phi)| > 10 there
    scale = 1 + np.abs(coords.velocity).max()
    assert np.abs(frame.q - coords.q).max() < 1e-8 * scale
    assert np.abs(frame.v - coords.v).max() < 1e-8 * scale
    assert np.abs(frame.velocity - coords.velocity).max() < 1e-8 * scale
    assert np.allclose(frame["y_dot"], coords["y_dot"], atol=1e-8 * scale)
    # the w row is the velocity of the free coordinate of each sample's split
    for j, tj in enumerate(t):
        free = [i for i, name in enumerate(sleigh.coordinate_names) if name not in frame.split_at(tj)]
        assert np.allclose(frame.y[3:, j], coords.v[free, j], atol=1e-8 * scale)


def test_chain_crossing_a_singular_split_matches_the_coordinate_form():
    """Knife-edge chain N = 3 with its front link turning through the heading where the default
    split (y solved for from its row) is singular."""
    chain = nh.systems.knife_edge_chain(3)
    model = chain.reduced(1e-3, order=1, velocities="frame")
    assert "y" in [chain.coordinate_names[i] for i in model.frame.solved]
    q0 = np.r_[0.0, 0.0, 1.2, 1.0, 0.8]
    u0 = chain.project(q0, np.r_[1.0, 1.0, 2.0, 0.0, 0.0])
    coords, frame = _coordinates_and_frame(chain, q0, u0, 3.0, order=1, t_eval=np.linspace(0, 3, 31))
    assert np.abs(np.cos(coords.q[2])).min() < 0.05  # the front heading passes pi/2
    assert frame.stats["n_frame_switches"] >= 1
    scale = 1 + np.abs(coords.velocity).max()
    assert np.abs(frame.q - coords.q).max() < 1e-8 * scale
    assert np.abs(frame.velocity - coords.velocity).max() < 1e-8 * scale


def test_a_user_frame_stops_the_run_where_it_becomes_singular():
    """The symbolic Voronets frame of the sleigh, given as vectors, cannot be re-split: the run
    stops near phi = pi/2 with FRAME_SINGULAR, naming the time and the condition number."""
    sleigh, q0, u0 = _sleigh_crossing()
    phi = sleigh.coordinates[2]
    X = sp.Matrix([[1, 0, 0], [sp.tan(phi), 0, 1], [0, 1, 0]])  # w = (x', phi'), y' = tan(phi) x'
    model = sleigh.reduced(1e-3, order=1, velocities="frame", frame=X)
    with pytest.warns(nh.SimulationWarning, match="nearly singular"):
        result = nh.simulate(model, (0, 6), np.r_[q0, u0], rtol=1e-10, atol=1e-12)
    assert result.status == -1 and result.flag_name == "FRAME_SINGULAR"
    assert f"t = {result.t_last:g}" in result.message and "condition number" in result.message
    assert abs(np.cos(result.q[2, -1])) < 1e-2  # stopped close to the singular heading
    assert result.frame_switches == []
    with pytest.raises(nh.IntegrationError, match="FRAME_SINGULAR|nearly singular"):
        nh.simulate(model, (0, 6), np.r_[q0, u0], rtol=1e-10, atol=1e-12, raise_on_failure=True)
    # the sleigh's body frame is global: no stop
    body = sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])
    assert nh.simulate(sleigh.reduced(1e-3, order=1, velocities="frame", frame=body), (0, 6),
                       np.r_[q0, u0]).success


def test_t_eval_dense_output_and_events_across_a_switch():
    """Outputs at t_eval, the dense solution and symbolic events (which see u = X_D w) across
    the re-splits agree with the coordinate form."""
    sleigh, q0, u0 = _sleigh_crossing()
    x, y, phi = sleigh.coordinates
    events = [nh.Event(phi - 1.5), nh.Event(sleigh.velocities[1] - 0.3)]  # a heading, y' = 0.3
    t = np.linspace(0, 6, 37)
    coords, frame = _coordinates_and_frame(sleigh, q0, u0, 6.0, t_eval=t, events=events, dense_output=True)
    assert_events_and_dense_output_agree(sleigh, coords, frame, t)


def assert_events_and_dense_output_agree(system, coords, frame, t):
    """A frame run with at least one re-split against the coordinate run: the same event times,
    the same q from the dense output, quasi-velocities equal to the free coordinates' velocities
    in the split of each time, and sol equal to y at the outputs t, switches included."""
    assert frame.stats["n_frame_switches"] >= 1
    for te_c, te_f in zip(coords.t_events, frame.t_events):
        assert len(te_c) == len(te_f) >= 1
        assert np.abs(te_c - te_f).max() < 1e-7
    n, m = system.n, system.n - system.k
    t_dense = np.linspace(0.05, 5.95, 41)
    Yc, Yf = coords.sol(t_dense), frame.sol(t_dense)
    assert np.abs(Yf[:n] - Yc[:n]).max() < 1e-7
    for j, tj in enumerate(t_dense):  # w is the free coordinate's velocity in the split at tj
        free = [i for i, name in enumerate(system.coordinate_names) if name not in frame.split_at(tj)]
        assert np.allclose(Yf[n:n + m, j], Yc[n:2 * n][free, j], atol=1e-7)
    assert np.abs(frame.sol(t) - frame.y).max() < 1e-12


def test_every_step_output_records_the_old_split_at_the_switch():
    """Without t_eval every step is an output; the sample at a switch time is in the old split
    and the velocity u is continuous across it."""
    sleigh, q0, u0 = _sleigh_crossing()
    coords, frame = _coordinates_and_frame(sleigh, q0, u0, 6.0)
    t_switch = frame.frame_switches[0][0]
    at = int(np.flatnonzero(frame.t == t_switch)[0])
    assert frame.split_at(frame.t[at]) == ["y"] and frame.split_at(frame.t[at + 1]) == ["x"]
    u = frame.v
    assert np.abs(u[:, at + 1] - u[:, at]).max() < 0.1 * np.abs(u[:, at]).max()  # continuous, w jumps
    assert abs(frame.y[3, at + 1] - frame.y[3, at]) > 0.5 * np.abs(u[:, at]).max()


def test_a_physical_initial_state_equals_the_quasi_velocity_one():
    """y0 = (q, u) of length 2n (u on the constraint set) gives the run of y0 = (q, w)."""
    chain = nh.systems.knife_edge_chain(8)
    model = chain.reduced(1e-4, order=1, velocities="frame")
    q0 = np.r_[0.1, -0.2, 0.2 * np.cos(np.arange(8))]
    u0 = chain.project(q0, np.r_[1.0, 0.3, np.zeros(8)])
    w0 = model.frame.state(q0, u0)[chain.n:]
    kw = dict(t_eval=np.linspace(0, 1, 5), rtol=1e-10, atol=1e-12)
    by_w = nh.simulate(model, (0, 1), np.r_[q0, w0], **kw)
    by_u = nh.simulate(model, (0, 1), np.r_[q0, u0], **kw)
    assert by_u.y.shape == (2 * chain.n - chain.k, 5)
    assert np.allclose(by_u.y, by_w.y, rtol=0, atol=1e-12)
    batch = nh.simulate_many(model, (0, 1), np.array([np.r_[q0, u0]] * 2), **kw)
    assert np.allclose(batch[1].y, by_w.y, atol=1e-12)
    off = u0 + 0.1 * np.eye(chain.n)[3]  # leaves the constraint set
    with pytest.raises(ValueError, match="violates the constraints"):
        nh.simulate(model, (0, 1), np.r_[q0, off])
    projected = nh.simulate(model, (0, 1), np.r_[q0, off], project_y0=True, **kw)
    assert np.allclose(projected.y[:, 0], np.r_[q0, model.frame.state(q0, chain.project(q0, off))[chain.n:]],
                       atol=1e-12)
    with pytest.raises(ValueError, match=r"shape \(12,\).*shape \(20,\).*got \(7,\)"):
        nh.simulate(model, (0, 1), np.zeros(7))


def test_a_resplit_stops_a_run_with_sensitivities_and_works_under_bdf():
    """Sensitivities cannot follow the state map of a re-split: the run stops there, saying so;
    under BDF (the Jacobian's workspace re-split too) the run matches the coordinate form."""
    sleigh, q0, u0 = _sleigh_crossing()
    model = sleigh.reduced(1e-3, order=1, velocities="frame")
    with pytest.warns(nh.SimulationWarning, match="sensitivities cannot follow"):
        stopped = nh.simulate(model, (0, 6), np.r_[q0, u0], sensitivities=["m"], method="bdf")
    assert stopped.flag_name == "FRAME_SINGULAR" and 0 < stopped.t_last < 1
    coords, frame = _coordinates_and_frame(sleigh, q0, u0, 6.0, order=1, method="bdf", t_eval=np.linspace(0, 6, 13))
    assert frame.stats["n_frame_switches"] >= 1 and "re-split" in repr(frame)
    assert np.abs(frame.q - coords.q).max() < 1e-7


def test_resplit_constants_are_documented_values():
    assert _core.frame_resplit_growth == 10.0 and _core.frame_singular_condition == 1e6


def _worst_split(system, q):
    """The regular split of largest max|B_aj| at q (the frame a re-split must leave), and B."""
    import itertools

    A, n, k = system.constraint_matrix(q)[0], system.n, system.k
    best = (0.0, None)
    for s in itertools.combinations(range(n), k):
        if abs(np.linalg.det(A[:, s])) > 1e-6 * np.abs(A).max() ** k:
            g = np.abs(np.linalg.solve(A[:, s], A[:, [i for i in range(n) if i not in s]])).max()
            best = max(best, (g, list(s)), key=lambda b: b[0])
    return best


@pytest.mark.parametrize("seed", [20, 22])
def test_a_badly_conditioned_split_is_replaced_by_one_of_maximal_volume_at_the_start(seed):
    """Random systems (n = 5, k = 3) in the Voronets frame of their worst split at q0
    (max|B_aj| of 200-800): the run re-splits at t0 to a split whose |B_aj| are all <= 1.01
    there (numpy), and follows the coordinate form."""
    from nonholo.system.frames import AnholonomicFrame
    from nonholo.testing import random_system

    system = random_system(seed, n=5, k=3)
    rng = np.random.default_rng(seed)
    q0 = rng.uniform(-0.5, 0.5, 5)
    u0 = system.project(q0, rng.normal(size=5))
    growth, worst = _worst_split(system, q0)
    assert growth > 100
    frame = AnholonomicFrame(system, solved=[system.coordinate_names[i] for i in worst])
    model = system.reduced(1e-2, order=1, velocities="frame", frame=frame)
    kw = dict(t_eval=np.linspace(0, 1, 11), rtol=1e-11, atol=1e-13, raise_on_failure=True)
    result = nh.simulate(model, (0, 1), np.r_[q0, u0], **kw)
    coords = nh.simulate(system.reduced(1e-2, order=1), (0, 1), np.r_[q0, u0], **kw)
    t_switch, solved = result.frame_switches[0]
    assert t_switch == 0.0 and result.split_at(0.5) == solved != [system.coordinate_names[i] for i in worst]
    A = system.constraint_matrix(q0)[0]
    s = [system.coordinate_names.index(name) for name in solved]
    B = np.linalg.solve(A[:, s], A[:, [i for i in range(5) if i not in s]])
    assert np.abs(B).max() <= 1.01
    scale = 1 + np.abs(coords.velocity).max()
    assert np.abs(result.q - coords.q).max() < 1e-8 * scale
    assert np.abs(result.velocity - coords.velocity).max() < 1e-8 * scale


def test_simulate_many_re_splits_each_run_like_simulate():
    """Threads keep their own split (it lives in the run's workspace): a batch through the
    singular heading equals the single runs, re-splits included."""
    sleigh, q0, u0 = _sleigh_crossing()
    model = sleigh.reduced(1e-3, order=2, velocities="frame")
    starts = np.array([np.r_[q0, u0], np.r_[q0, 1.1 * u0], np.r_[q0, 0.9 * u0]])
    kw = dict(t_eval=np.linspace(0, 6, 13), rtol=1e-10, atol=1e-12)
    batch = nh.simulate_many(model, (0, 6), starts, threads=2, **kw)
    for y0, result in zip(starts, batch):
        single = nh.simulate(model, (0, 6), y0, **kw)
        assert single.frame_switches == result.frame_switches and len(single.frame_switches) >= 1
        assert np.array_equal(single.y, result.y) and np.array_equal(single.velocity, result.velocity)


@pytest.mark.parametrize("method", ["adams", "dop853"])
def test_both_explicit_methods_re_split(method):
    """CVODE's Adams (a restart at each re-split) and DOP853 (a one-step method: the state is
    mapped and its first stage re-evaluated) both follow the coordinate form through the
    singular heading; DOP853 reports the switches the same way."""
    sleigh, q0, u0 = _sleigh_crossing()
    coords, frame = _coordinates_and_frame(sleigh, q0, u0, 6.0, t_eval=np.linspace(0, 6, 13), method=method)
    assert frame.method == coords.method == method
    assert [s for _, s in frame.frame_switches][:2] == [["x"], ["y"]]
    scale = 1 + np.abs(coords.velocity).max()
    assert np.abs(frame.q - coords.q).max() < 1e-8 * scale
    assert np.abs(frame.velocity - coords.velocity).max() < 1e-8 * scale


def test_a_re_split_does_not_leak_into_the_next_run_or_evaluation():
    """The split lives in the run's workspace, which goes back to the model's pool: the next
    run and model.rhs start again in the model's own frame."""
    sleigh, q0, u0 = _sleigh_crossing()
    model = sleigh.reduced(1e-3, order=1, velocities="frame")
    y = np.r_[q0, model.frame.state(q0, u0)[sleigh.n:]]
    before = model.rhs(0.0, y)
    kw = dict(t_eval=np.linspace(0, 2, 5), rtol=1e-10, atol=1e-12, method="adams")
    first = nh.simulate(model, (0, 2), y, **kw)
    assert [s for _, s in first.frame_switches] == [["x"]]  # the run ends in a split not the model's
    assert np.array_equal(model.rhs(0.0, y), before)
    second = nh.simulate(model, (0, 2), y, **kw)
    assert np.array_equal(second.y, first.y) and second.frame_switches == first.frame_switches


@pytest.mark.parametrize("heading", [np.pi / 2, np.pi / 2 + 1e-12])
def test_a_start_where_the_split_is_singular_is_refused_naming_it(heading):
    """A sleigh's default Voronets frame solves for y (y' = tan(phi) x'). At a heading of pi/2 a
    velocity on the constraint set (x' = 0, y' = 1.5) was refused by simulate, linearize and
    frame.state as violating the constraints ("its constraint quasi-velocities are 1.5, not 0"),
    and a state in the frame's speeds by linearize as a singular frame metric: no state in the
    split's speeds stands for it. Each now names the split and a regular one; a frame with that split,
    and the coordinate model, run it and linearize it (-m a u / (I + m a^2))."""
    from nonholo.system.frames import AnholonomicFrame

    sleigh = nh.systems.chaplygin_sleigh()
    frame = AnholonomicFrame(sleigh)
    assert frame.solved == [1]
    q = np.array([0.0, 0.0, heading])
    qdot = np.array([1.5 * np.cos(heading), 1.5 * np.sin(heading), 0.0])
    y0 = np.r_[q, qdot]
    message = r"split, which solves the constraints for \['y'\], is singular at q.*solved=\['x'\]"
    for call in (lambda: nh.simulate(frame.hamel(), (0, 1), y0), lambda: nh.linearize(frame.hamel(), y0),
                 lambda: frame.state(q, qdot), lambda: nh.linearize(frame.hamel(), np.r_[q, qdot[0], 0.0]),
                 lambda: nh.simulate(sleigh.reduced(1e-2, velocities="frame", frame=frame), (0, 1), y0)):
        with pytest.raises(nh.ModelError, match=message):
            call()
    regular = AnholonomicFrame(sleigh, solved=["x"])
    run = nh.simulate(regular.hamel(), (0, 1), y0, rtol=1e-10, atol=1e-12)
    coords = nh.simulate(sleigh.nonholonomic(), (0, 1), y0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(run.q[:, -1], coords.q[:, -1], rtol=0, atol=1e-8)
    m, I, a = sleigh.param_vector({})[:3]  # the defaults
    rate = -m * a * 1.5 / (I + m * a**2)
    for model, state in ((regular.hamel(), y0), (sleigh.nonholonomic(), y0)):
        eigenvalues = nh.linearize(model, state).eigenvalues
        assert np.min(np.abs(eigenvalues - rate)) < 1e-8


def test_every_frame_model_refuses_a_singular_split_and_runs_a_near_singular_start():
    """An outside probe's sleigh (default Voronets split solving y): the frame-vakonomic model started
    at heading pi/2 from its own state [q, x', phi', mu] ran with status 0, taking y' = 0, which that
    state does not fix (the coordinate vakonomic model from y' = 1 ends 1.8 away); and 1e-7 from the
    singular set (max |A_s^-1 A_r| = 1e7) the Hamel model refused a start the vakonomic frame re-split
    at t = 0 and ran to 2.6e-11 of the coordinate model. Every model of the frame now refuses a split
    above 1e8 (ModelError naming A_s) and runs below it, re-split at its start."""
    from nonholo.system.frames import AnholonomicFrame

    sleigh = nh.systems.chaplygin_sleigh()
    frame = AnholonomicFrame(sleigh)
    # each model names its own coordinate form (the frame-vakonomic model was offered system.nonholonomic())
    for model, coordinates in ((frame.vakonomic(), r"system\.vakonomic\(\)"), (frame.hamel(), r"system\.nonholonomic"),
                               (sleigh.reduced(1e-3, velocities="frame", frame=frame), "velocities='coordinates'")):
        y0 = [0.0, 0.0, np.pi / 2, 0.0, 0.5] + ([0.0] if model.kind == "frame_vakonomic" else [])
        with pytest.raises(nh.ModelError, match=r"split, which solves the constraints for \['y'\].*solved=\['x'\]"
                                                rf".*coordinate model \({coordinates}"):
            nh.simulate(model, (0, 1), y0)
    with pytest.raises(nh.ModelError, match=r"max \|A_s\^-1 A_r\| = 1e\+09"):
        nh.simulate(frame.hamel(), (0, 1), [0.0, 0.0, np.pi / 2 - 1e-9, 1e-9, 0.5])
    phi = np.pi / 2 - 1e-7
    q0 = np.array([0.0, 0.0, phi])
    qdot = np.array([np.cos(phi), np.sin(phi), 0.5])  # along the blade
    kw = dict(rtol=1e-10, atol=1e-12)
    hamel = nh.simulate(frame.hamel(), (0, 3), np.r_[q0, qdot[0], qdot[2]], **kw)
    coords = nh.simulate(sleigh.nonholonomic(), (0, 3), np.r_[q0, qdot], **kw)
    assert hamel.status == 0 and hamel.frame_switches[0] == (0.0, ["x"])
    np.testing.assert_allclose(hamel.q[:, -1], coords.q[:, -1], rtol=0, atol=1e-8)
    # the frame's mu = A_s^T lambda, A_s = cos(phi) the y column of the row [-sin(phi), cos(phi), 0]
    vakonomic = nh.simulate(frame.vakonomic(), (0, 3), np.r_[q0, qdot[0], qdot[2], np.cos(phi) * 0.3], **kw)
    reference = nh.simulate(sleigh.vakonomic(), (0, 3), np.r_[q0, qdot, 0.3], **kw)
    assert vakonomic.status == 0 and vakonomic.frame_switches[0] == (0.0, ["x"])
    np.testing.assert_allclose(vakonomic.q[:, -1], reference.q[:, -1], rtol=0, atol=1e-8)
    # the frame form of a reduced model too (its start check factored X, whose pivots fall like 1 / B^2:
    # "the frame is singular" from B = 3e6 on)
    for order in (0, 1):
        framed = nh.simulate(sleigh.reduced(1e-3, order=order, velocities="frame", frame=frame), (0, 3),
                             np.r_[q0, qdot], **kw)
        coordinates = nh.simulate(sleigh.reduced(1e-3, order=order), (0, 3), np.r_[q0, qdot], **kw)
        assert framed.status == 0
        np.testing.assert_allclose(framed.q[:, -1], coordinates.q[:, -1], rtol=0, atol=1e-7)


@pytest.mark.parametrize("bad", ["q", "v_alpha"])
def test_frame_multipliers_refuse_a_state_that_is_not_finite(bad):
    """An outside probe's frame.multipliers at a NaN state returned [nan]; the frame's other maps refuse it
    naming the argument, as the multipliers now do (a finite state still gives finite ones)."""
    from nonholo.system.frames import AnholonomicFrame

    sleigh = nh.systems.chaplygin_sleigh()
    frame = AnholonomicFrame(sleigh)
    q, v = np.array([0.0, 0.0, 0.3]), np.array([1.0, 0.5])
    assert np.all(np.isfinite(frame.multipliers(q, v)))
    with pytest.raises(ValueError, match=f"{bad} contains NaN or inf"):
        frame.multipliers(np.r_[q[:2], np.nan] if bad == "q" else q, np.r_[v[0], np.nan] if bad == "v_alpha" else v)
