"""Rolling bodies, round 17: where a rolling body's surface leaves its domain (a disc falling flat) every
model stops, and the heading says when its samples are too sparse to count the turns.

- ``nh.simulate_discrete`` of a leaning disc falling flat ran through lying flat (status 0, no warning)
  where every continuous model stops with SURFACE_DOMAIN at t = 0.4774; the discrete disc passes flat
  between two nodes (d = cos(lean)^2 stays above the tolerance at both), so the check interpolates d.
- A stick-slip run whose last phase stopped there reported status 0 and "The end of the interval was
  reached.".
- The Hamel model of a Disc or a Paraboloid body (``body_frame(body).hamel()``, state [q, w], shorter than
  [q, q']) raised "inputs has 11 entries, expected 13" at the start.
- ``result["heading"]`` sampled every 0.25 s came out a turn off with no word; a stick-slip run's heading
  restarted in (-pi, pi] at every phase.
"""

import warnings

import numpy as np
import pytest

import nonholo as nh
from nonholo.errors import SimulationWarning

M, R, G = 1.0, 0.5, 9.81


@pytest.fixture(scope="module")
def disc():
    body = nh.bodies.RigidBody(M, (M * R * R / 4, M * R * R / 2, M * R * R / 4))
    return nh.contact.roll_on_plane(body, nh.contact.Disc(R), gravity=G)


def falling(disc):
    """Leaning 0.5 rad at rest: it falls flat at t = 0.4774."""
    return nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0, 0, 0.5), [0, 0, 0])


def rolling(disc):
    """Leaning 0.6 rad, rolling and spinning: its heading's rate swings between about 7 and 50 rad/s."""
    return nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0, 0, 0.6), [0.5, 3.0, 6.0])


def flat_message(t: float) -> str:
    return (f"the run stopped at t = {t:.6g}: the disc lies flat, where the contact with the plane is no longer "
            "defined by the body's surface (the rolling model ends there)")


def test_the_discrete_disc_stops_at_the_last_node_before_it_lies_flat(disc):
    h = 1e-3
    with pytest.warns(SimulationWarning, match="the disc lies flat"):
        cont = nh.simulate(disc.nonholonomic(), (0, 0.6), falling(disc), rtol=1e-10, atol=1e-12)
    assert (cont.status, cont.flag_name) == (1, "SURFACE_DOMAIN")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = nh.simulate_discrete(disc.discrete(h), (0, 0.6), falling(disc))
    assert [str(w.message) for w in caught if issubclass(w.category, SimulationWarning)] == [run.message]
    assert (run.status, run.flag_name, run.success) == (1, "SURFACE_DOMAIN", True)
    # the last node before the continuous stop at 0.477449: the next step passes through lying flat
    assert run.t[-1] == pytest.approx(0.477, abs=1e-12) and run.t_last == run.t[-1]
    assert cont.t_last - h < run.t[-1] <= cont.t_last
    assert run.message == flat_message(run.t[-1]) and run.warnings == [run.message]
    n, k = disc.n, disc.k
    assert run.y.shape == (2 * n, 478) and run.p.shape == (n, 478) and run.lam.shape == (k, 477)
    assert run.stats["n_steps"] == 477
    np.testing.assert_array_equal(run.y_final, run.y[:, -1])
    assert np.all(np.abs(run["lean"]) < np.pi / 2 - 1e-3)  # inside the domain: d = cos(lean)^2 > 1e-6
    # a disc rolling upright stays in the domain: the run ends at the end, without a warning
    upright = nh.contact.rolling_state(disc, [1, 0, 0, 0], [0, 4.0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = nh.simulate_discrete(disc.discrete(h), (0, 0.2), upright)
    assert (run.status, run.flag_name, run.t[-1]) == (0, "", pytest.approx(0.2))
    # a start outside the domain is refused, as by nh.simulate
    flat = np.zeros(2 * n)
    flat[2:6] = nh.bodies.quaternion_from_euler(0, 0, np.pi / 2)
    with pytest.raises(ValueError, match="outside its surface's domain at the start"):
        nh.simulate_discrete(disc.discrete(h), (0, 0.2), flat)


def test_a_stick_slip_run_that_stops_at_the_domain_says_so(disc):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = nh.simulate(disc.stick_slip(0.5, normal=M * G), (0, 0.6), falling(disc), rtol=1e-10, atol=1e-12)
    last = run.phases[-1]
    assert (last.status, last.flag_name) == (1, "SURFACE_DOMAIN")
    assert (run.status, run.flag_name, run.flag, run.success) == (1, "SURFACE_DOMAIN", 0, True)
    assert run.t_last == last.t_last == pytest.approx(0.47796, abs=1e-4)
    assert run.message == last.message == flat_message(run.t_last)
    assert run.warnings == [run.message]
    assert [str(w.message) for w in caught if issubclass(w.category, SimulationWarning)] == [run.message]


def test_the_hamel_disc_stops_where_the_nonholonomic_disc_lies_flat(disc):
    n = disc.n
    frame = nh.contact.body_frame(disc)
    y0 = falling(disc)
    with pytest.warns(SimulationWarning, match="the disc lies flat"):
        plain = nh.simulate(disc.nonholonomic(), (0, 0.6), y0, rtol=1e-10, atol=1e-12)
    with pytest.warns(SimulationWarning, match="the disc lies flat"):
        hamel = nh.simulate(frame.hamel(), (0, 0.6), frame.state(y0[:n], y0[n:]), rtol=1e-10, atol=1e-12)
    assert (hamel.status, hamel.flag_name) == (plain.status, plain.flag_name) == (1, "SURFACE_DOMAIN")
    assert hamel.t_last == pytest.approx(plain.t_last, abs=1e-8)
    assert hamel.message == flat_message(hamel.t_last) and hamel.warnings == [hamel.message]
    # a start outside the domain is refused with the domain's message (its state [q, w] mapped to q')
    flat = np.zeros(hamel.y.shape[0])
    flat[2:6] = nh.bodies.quaternion_from_euler(0, 0, np.pi / 2)
    with pytest.raises(ValueError, match="outside its surface's domain at the start"):
        nh.simulate(frame.hamel(), (0, 0.2), flat)


def test_the_hamel_model_of_a_paraboloid_runs_as_the_nonholonomic_one():
    body = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, (0.0625, 0.125, 0.0625)), nh.contact.Paraboloid(0.5, 0.7))
    frame = nh.contact.body_frame(body)
    y0 = nh.contact.rolling_state(body, [1, 0, 0, 0], [0, 8.0, 0])  # upright, spinning about the body y axis
    n = body.n
    plain = nh.simulate(body.nonholonomic(), (0, 0.5), y0, rtol=1e-10, atol=1e-12)
    hamel = nh.simulate(frame.hamel(), (0, 0.5), frame.state(y0[:n], y0[n:]), rtol=1e-10, atol=1e-12)
    assert hamel.status == plain.status == 0
    np.testing.assert_allclose(hamel.q[:, -1], plain.q[:, -1], atol=1e-7)


def test_a_heading_sampled_too_sparsely_warns(disc):
    kw = dict(rtol=1e-10, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the solver's steps (the default) resolve the turns: no warning
        steps = nh.simulate(disc.nonholonomic(), (0, 3), rolling(disc), **kw)
        truth = steps["heading"][-1]
    sparse = nh.simulate(disc.nonholonomic(), (0, 3), rolling(disc), t_eval=np.linspace(0, 3, 13), **kw)
    with pytest.warns(SimulationWarning, match=r"the heading may be off by whole turns \(2 pi k\).* > pi / 4"):
        heading = sparse["heading"]
    # the warning is due: these samples, 0.25 s apart, miss a turn
    assert (heading[-1] - truth) / (2 * np.pi) == pytest.approx(1.0, abs=1e-6)
    # dense samples need no warning and count the turns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dense = nh.simulate(disc.nonholonomic(), (0, 3), rolling(disc), t_eval=np.linspace(0, 3, 601), **kw)
        assert dense["heading"][-1] == pytest.approx(truth, abs=1e-6)


def test_a_stick_slip_heading_is_continuous_across_its_phases(disc):
    run = nh.simulate(disc.stick_slip(0.2, normal=M * G), (0, 1.5), rolling(disc))
    assert len(run.switches) >= 2
    heading = run["heading"]
    assert np.abs(np.diff(heading)).max() < 1.0  # no jumps of 2 pi k at the switches (DOP853 steps turn it 0.5)
    # the same directions as the phases' own headings, phase by phase
    each = np.concatenate([phase["heading"] for phase in run.phases])
    np.testing.assert_allclose(np.angle(np.exp(1j * (heading - each))), 0.0, atol=1e-12)
    assert heading[-1] > 15.0  # it turns about 18 rad in 1.5 s
