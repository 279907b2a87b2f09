"""The frame watch of the Hamel and frame-vakonomic models (models/frame_watch.hpp, shared with the
frame form of the reduced model): a Voronets frame is re-split during the run where max|B_aj|
exceeds 10, the quasi-velocities (and the vakonomic multipliers mu, a point of the annihilator
D^0 of D) mapped to the new split; a frame given by its vectors stops the run where it turns
singular. Checked against the coordinate nonholonomic and vakonomic models."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system.frames import AnholonomicFrame

TIGHT = dict(rtol=1e-10, atol=1e-12)


def _sleigh_crossing():
    """The sleigh heading at phi = 1.2 and turning: phi passes pi/2, where its default Voronets
    frame y' = tan(phi) x' (y solved for) is singular."""
    sleigh = nh.systems.chaplygin_sleigh()
    q0 = np.array([0.0, 0.0, 1.2])
    return sleigh, q0, sleigh.project(q0, np.array([1.0, 0.5, 1.0]))


def _solved_block(system, q, names):
    """A_s(q): the columns of the constraint matrix of the coordinates `names`."""
    A = system.constraint_matrix(q)[0]
    return A[:, [system.coordinate_names.index(name) for name in names]]


def _free_velocities(result, coords_v, system, j, t):
    """The coordinate velocities of the coordinates free in result's split at time t."""
    free = [i for i, name in enumerate(system.coordinate_names) if name not in result.split_at(t)]
    return coords_v[free, j]


def test_hamel_sleigh_through_cos_phi_zero_matches_the_coordinate_model():
    """Without the watch the Hamel model lost 1.3e-6 in q against Lagrange-d'Alembert here (rtol
    1e-10); with it (2 re-splits), 6e-10: x is solved for near phi = pi/2, and y again later."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    assert [sleigh.coordinate_names[i] for i in frame.solved] == ["y"]
    t = np.linspace(0, 6, 61)
    coords = nh.simulate(sleigh.nonholonomic(), (0, 6), np.r_[q0, u0], t_eval=t, raise_on_failure=True, **TIGHT)
    hamel = nh.simulate(frame.hamel(), (0, 6), frame.state(q0, u0), t_eval=t, raise_on_failure=True, **TIGHT)
    assert coords.q[2].min() < np.pi / 2 < coords.q[2].max()
    assert hamel.stats["n_frame_switches"] >= 1 and hamel.frame_switches[0][1] == ["x"]
    assert abs(np.cos(np.interp(hamel.frame_switches[0][0], coords.t, coords.q[2]))) < 0.2
    scale = 1 + np.abs(coords.v).max()
    assert np.abs(hamel.q - coords.q).max() < 1e-8 * scale
    assert np.abs(hamel.velocity - coords.v).max() < 1e-8 * scale
    assert np.allclose(hamel["y_dot"], coords["y_dot"], rtol=0, atol=1e-8 * scale)
    for j, tj in enumerate(t):  # v^alpha: the velocity of the free coordinate of each sample's split
        assert np.allclose(hamel.v[:, j], _free_velocities(hamel, coords.v, sleigh, j, tj), atol=1e-8 * scale)
    assert np.abs(hamel.energy() - hamel.energy()[0]).max() < 1e-8


def test_frame_vakonomic_sleigh_through_cos_phi_zero_matches_the_coordinate_model():
    """mu_a theta^a = lambda^T A (theta_C = A_s^-1 A, the constraint rows of X^-1), so
    mu = A_s^T lambda in every split: the multiplier state maps with the split and the run follows
    the coordinate vakonomic model (Lewis-Murray, corrected) through cos(phi) = 0. Without the
    watch the frame run lost 1.1e-6 in q here; with it, 2.3e-9."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    lam0 = np.array([0.3])
    mu0 = _solved_block(sleigh, q0, ["y"]).T @ lam0
    t = np.linspace(0, 6, 61)
    # the coordinate vakonomic model is itself 4e-8 off at rtol 1e-10 here: the reference is tighter
    coords = nh.simulate(sleigh.vakonomic(), (0, 6), np.r_[q0, u0, lam0], t_eval=t, raise_on_failure=True,
                         rtol=1e-12, atol=1e-14)
    vak = nh.simulate(frame.vakonomic(), (0, 6), np.r_[frame.state(q0, u0), mu0], t_eval=t, raise_on_failure=True,
                      **TIGHT)
    assert coords.q[2].min() < np.pi / 2 < coords.q[2].max()
    assert vak.stats["n_frame_switches"] >= 1 and vak.frame_switches[0][1] == ["x"]
    n = sleigh.n
    scale = 1 + np.abs(coords.v).max()
    assert np.abs(vak.q - coords.q).max() < 1e-8 * scale
    assert np.abs(vak.velocity - coords.v).max() < 1e-8 * scale
    lam = coords.y[2 * n:]
    for j, tj in enumerate(t):
        assert np.allclose(vak.y[n:n + 2, j], _free_velocities(vak, coords.v, sleigh, j, tj), atol=1e-8 * scale)
        mu = _solved_block(sleigh, coords.q[:, j], vak.split_at(tj)).T @ lam[:, j]
        assert np.allclose(vak.y[n + 2:, j], mu, atol=1e-8 * (1 + np.abs(lam).max()))


def _sleigh_vector_frame(sleigh):
    """The symbolic Voronets frame of the sleigh given as vectors: v = (x', phi'), y' = tan(phi) x'."""
    phi = sleigh.coordinates[2]
    return AnholonomicFrame(sleigh, sp.Matrix([[1, 0, 0], [sp.tan(phi), 0, 1], [0, 1, 0]]))


@pytest.mark.parametrize("kind", ["hamel", "vakonomic"])
def test_a_vector_frame_stops_the_run_where_it_becomes_singular(kind):
    """A frame given by vectors cannot be re-split: the run stops near phi = pi/2 with
    FRAME_SINGULAR, the message naming the model, the time and the condition number."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = _sleigh_vector_frame(sleigh)
    model = frame.hamel() if kind == "hamel" else frame.vakonomic()
    y0 = frame.state(q0, u0) if kind == "hamel" else np.r_[frame.state(q0, u0), 0.2]
    with pytest.warns(nh.SimulationWarning, match="nearly singular"):
        result = nh.simulate(model, (0, 6), y0, **TIGHT)
    assert result.status == -1 and result.flag_name == "FRAME_SINGULAR"
    name = "Hamel model" if kind == "hamel" else "frame-vakonomic model"
    assert f"t = {result.t_last:g}" in result.message and "condition number" in result.message
    assert name in result.message
    assert abs(np.cos(result.q[2, -1])) < 1e-2 and result.frame_switches == []
    with pytest.raises(nh.IntegrationError, match="FRAME_SINGULAR|nearly singular"):
        nh.simulate(model, (0, 6), y0, raise_on_failure=True, **TIGHT)


def test_a_regular_vector_frame_runs_through():
    """The sleigh's body frame is global: the same run does not stop, and matches the coordinate model."""
    sleigh, q0, u0 = _sleigh_crossing()
    phi = sleigh.coordinates[2]
    body = AnholonomicFrame(sleigh, sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)],
                                               [0, 1, 0]]))
    t = np.linspace(0, 6, 7)
    result = nh.simulate(body.hamel(), (0, 6), body.state(q0, u0), t_eval=t, raise_on_failure=True, **TIGHT)
    coords = nh.simulate(sleigh.nonholonomic(), (0, 6), np.r_[q0, u0], t_eval=t, **TIGHT)
    assert result.frame_switches == [] and result.stats["n_frame_switches"] == 0
    assert np.abs(result.q - coords.q).max() < 1e-8


def test_random_system_in_its_worst_split_re_splits_and_follows_the_coordinate_models():
    """A random system (n = 5, k = 3) in the Voronets frame of its worst split at q0 (max|B_aj| of
    some hundreds): both frame models re-split at t0 to a split with all |B_aj| <= 1.01 and follow
    the coordinate nonholonomic and vakonomic models (mu = A_s^T lambda in the split of each time)."""
    from nonholo.testing import random_system

    system = random_system(20, n=5, k=3)
    rng = np.random.default_rng(20)
    q0 = rng.uniform(-0.5, 0.5, 5)
    u0 = system.project(q0, rng.normal(size=5))
    from test_frame_resplit import _worst_split  # the split a re-split must leave

    growth, worst = _worst_split(system, q0)
    assert growth > 100
    frame = AnholonomicFrame(system, solved=[system.coordinate_names[i] for i in worst])
    t = np.linspace(0, 1, 11)
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)
    hamel = nh.simulate(frame.hamel(), (0, 1), frame.state(q0, u0), **kw)
    coords = nh.simulate(system.nonholonomic(), (0, 1), np.r_[q0, u0], **kw)
    t_switch, solved = hamel.frame_switches[0]
    assert t_switch == 0.0 and hamel.split_at(0.5) == solved
    s = [system.coordinate_names.index(name) for name in solved]
    A = system.constraint_matrix(q0)[0]
    assert np.abs(np.linalg.solve(A[:, s], A[:, [i for i in range(5) if i not in s]])).max() <= 1.01
    scale = 1 + np.abs(coords.v).max()
    assert np.abs(hamel.q - coords.q).max() < 1e-8 * scale
    assert np.abs(hamel.velocity - coords.v).max() < 1e-8 * scale

    lam0 = rng.normal(size=3) * 0.3
    mu0 = _solved_block(system, q0, [system.coordinate_names[i] for i in worst]).T @ lam0
    vak = nh.simulate(frame.vakonomic(), (0, 1), np.r_[frame.state(q0, u0), mu0], **kw)
    cvak = nh.simulate(system.vakonomic(), (0, 1), np.r_[q0, u0, lam0], **kw)
    assert vak.frame_switches[0] == (0.0, solved)
    scale = 1 + np.abs(cvak.v).max()
    assert np.abs(vak.q - cvak.q).max() < 1e-8 * scale
    assert np.abs(vak.velocity - cvak.v).max() < 1e-8 * scale
    lam = cvak.y[10:]
    for j, tj in enumerate(t[1:], start=1):
        mu = _solved_block(system, cvak.q[:, j], vak.split_at(tj)).T @ lam[:, j]
        assert np.allclose(vak.y[7:, j], mu, atol=1e-8 * (1 + np.abs(lam).max()))


@pytest.mark.parametrize("kind", ["hamel", "vakonomic"])
def test_events_dense_output_across_a_switch(kind):
    """Symbolic events (which see the physical velocity X_D v in the split of the run) and the
    dense solution across the re-splits agree with the coordinate model."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    events = [nh.Event(sleigh.coordinates[2] - 1.5), nh.Event(sleigh.velocities[1] - 0.3)]  # a heading, y' = 0.3
    t = np.linspace(0, 6, 37)
    kw = dict(t_eval=t, events=events, dense_output=True, raise_on_failure=True, **TIGHT)
    if kind == "hamel":
        coords = nh.simulate(sleigh.nonholonomic(), (0, 6), np.r_[q0, u0], **kw)
        result = nh.simulate(frame.hamel(), (0, 6), frame.state(q0, u0), **kw)
    else:
        coords = nh.simulate(sleigh.vakonomic(), (0, 6), np.r_[q0, u0, 0.3], **kw)
        result = nh.simulate(frame.vakonomic(), (0, 6), np.r_[frame.state(q0, u0), 0.3 * np.cos(q0[2])], **kw)
    from test_frame_resplit import assert_events_and_dense_output_agree

    assert_events_and_dense_output_agree(sleigh, coords, result, t)


def test_a_re_split_does_not_leak_into_the_next_run_and_batches_match():
    """The split lives in the run's workspace: model.rhs and the next run start in the frame's own
    split, and a threaded batch equals the single runs."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    model = frame.vakonomic()
    y = np.r_[frame.state(q0, u0), 0.3 * np.cos(q0[2])]
    before = model.rhs(0.0, y)
    kw = dict(t_eval=np.linspace(0, 1.5, 4), **TIGHT)
    first = nh.simulate(model, (0, 1.5), y, **kw)
    assert [s for _, s in first.frame_switches] == [["x"]]  # the run ends in a split not the model's
    assert np.array_equal(model.rhs(0.0, y), before)
    starts = np.array([y, y * np.r_[1, 1, 1, 1.1, 1.1, 1.0]])
    batch = nh.simulate_many(model, (0, 1.5), starts, threads=2, **kw)
    assert np.array_equal(batch[0].y, first.y) and batch[0].frame_switches == first.frame_switches
    single = nh.simulate(model, (0, 1.5), starts[1], **kw)
    assert np.array_equal(single.y, batch[1].y) and single.frame_switches == batch[1].frame_switches


def test_sensitivities_stop_at_a_re_split():
    """Forward sensitivities cannot follow the state map of a re-split: the run stops there, saying so."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    with pytest.warns(nh.SimulationWarning, match="sensitivities cannot follow"):
        stopped = nh.simulate(frame.hamel(), (0, 6), frame.state(q0, u0), sensitivities=["m"])
    assert stopped.flag_name == "FRAME_SINGULAR" and 0 < stopped.t_last < 1


@pytest.mark.parametrize("method", ["adams", "bdf", "dop853"])
def test_every_method_re_splits_the_hamel_model(method):
    """CVODE (Adams, BDF: a restart at each re-split, the Jacobian's workspace re-split too) and
    DOP853 (the state mapped, its first stage re-evaluated) follow a tight coordinate reference."""
    sleigh, q0, u0 = _sleigh_crossing()
    frame = AnholonomicFrame(sleigh)
    t = np.linspace(0, 6, 13)
    ref = nh.simulate(sleigh.nonholonomic(), (0, 6), np.r_[q0, u0], t_eval=t, rtol=1e-12, atol=1e-14)
    result = nh.simulate(frame.hamel(), (0, 6), frame.state(q0, u0), t_eval=t, method=method,
                         raise_on_failure=True, **TIGHT)
    assert result.method == method and [s for _, s in result.frame_switches] == [["x"], ["y"]]
    assert np.abs(result.q - ref.q).max() < 1e-7 and np.abs(result.velocity - ref.v).max() < 1e-7


def test_knife_edge_chain_re_splits_mid_run_with_three_multipliers():
    """Knife-edge chain N = 3 (k = 3) with its front link turning through the heading where the
    default split (y solved for) is singular: the 3 x 3 map mu' = A_s'^T A_s^-T mu at each of the
    re-splits keeps mu = A_s^T lambda of the coordinate vakonomic model, and the Hamel model follows
    Lagrange-d'Alembert."""
    chain = nh.systems.knife_edge_chain(3)
    frame = AnholonomicFrame(chain)
    assert "y" in [chain.coordinate_names[i] for i in frame.solved]
    q0 = np.r_[0.0, 0.0, 1.2, 1.0, 0.8]
    u0 = chain.project(q0, np.r_[1.0, 1.0, 2.0, 0.0, 0.0])
    lam0 = np.array([0.2, -0.1, 0.3])
    mu0 = _solved_block(chain, q0, [chain.coordinate_names[i] for i in frame.solved]).T @ lam0
    t = np.linspace(0, 3, 31)
    tight = dict(t_eval=t, rtol=1e-12, atol=1e-14)
    ref = nh.simulate(chain.vakonomic(), (0, 3), np.r_[q0, u0, lam0], **tight)
    # rtol 1e-11: at 1e-10 both the frame and the coordinate vakonomic runs are 5e-8 to 1e-7 off in
    # the velocity here (integration error, it falls 10x per decade of rtol), at 1e-11 about 1e-8
    kw = dict(t_eval=t, rtol=1e-11, atol=1e-13, raise_on_failure=True)
    vak = nh.simulate(frame.vakonomic(), (0, 3), np.r_[frame.state(q0, u0), mu0], **kw)
    assert len(vak.frame_switches) >= 2 and np.abs(np.cos(ref.q[2])).min() < 0.05
    scale = 1 + np.abs(ref.v).max()
    assert np.abs(vak.q - ref.q).max() < 1e-8 * scale
    assert np.abs(vak.velocity - ref.v).max() < 1e-8 * scale
    lam = ref.y[2 * chain.n:]
    for j, tj in enumerate(t):
        mu = _solved_block(chain, ref.q[:, j], vak.split_at(tj)).T @ lam[:, j]
        assert np.allclose(vak.y[chain.n + 2:, j], mu, rtol=0, atol=1e-8 * (1 + np.abs(lam).max()))
    nref = nh.simulate(chain.nonholonomic(), (0, 3), np.r_[q0, u0], **tight)
    hamel = nh.simulate(frame.hamel(), (0, 3), frame.state(q0, u0), **kw)
    assert len(hamel.frame_switches) >= 1
    assert np.abs(hamel.q - nref.q).max() < 1e-8 * (1 + np.abs(nref.v).max())
