"""Progress bars: simulate(progress=True) and simulate_many(progress=True) change nothing in the
results (the bar of a single run is a root function without zeros, the batch goes to C++ in parts)."""

import numpy as np

import nonholo as nh

Y0 = [0, 0, 0, -1.5, 0, 1.0]


def test_single_run_with_progress_is_the_same_run():
    model = nh.systems.chaplygin_sleigh().friction(1e-4)
    t = np.linspace(0, 10, 11)
    event = nh.Event(sum(model.system.coordinates[:1]) + 1.0)  # x = -1: the sleigh backs through it
    plain = nh.simulate(model, (0, 10), Y0, t_eval=t, events=event)
    shown = nh.simulate(model, (0, 10), Y0, t_eval=t, events=event, progress=True, max_wall_time=60)
    assert np.array_equal(plain.y, shown.y) and plain.stats["n_steps"] == shown.stats["n_steps"]
    assert len(shown.t_events) == 1 and np.array_equal(plain.t_events[0], shown.t_events[0])
    assert shown.t_events[0].size >= 1


def test_batch_with_progress_is_the_same_batch():
    model = nh.systems.chaplygin_sleigh().friction(1e-4)
    Y0s = np.tile(Y0, (9, 1))
    Y0s[:, 5] = np.linspace(-1, 1, 9)
    plain = nh.simulate_many(model, (0, 3), Y0s, t_eval=[0, 1, 3], threads=2)
    shown = nh.simulate_many(model, (0, 3), Y0s, t_eval=[0, 1, 3], threads=2, progress=True)
    assert len(shown) == 9 and all(np.array_equal(a.y, b.y) for a, b in zip(plain, shown))
    assert [r.params for r in plain] == [r.params for r in shown]


def test_progress_keeps_the_default_method_of_a_non_stiff_run(capsys):
    """The bar is watched, not an event: method="auto" stays with DOP853 (it ran Adams, six times
    less accurate, when the bar counted as an event), on the nonholonomic and a reduced model."""
    sleigh = nh.systems.chaplygin_sleigh()
    for model in (sleigh.nonholonomic(), sleigh.reduced(1e-3, order=1)):
        plain = nh.simulate(model, (0, 10), Y0)
        shown = nh.simulate(model, (0, 10), Y0, progress=True)
        assert plain.method == shown.method == "dop853" and shown.method_reason == plain.method_reason
        assert np.array_equal(plain.t, shown.t) and np.array_equal(plain.y, shown.y)
    # the bar reached the end of the run (tqdm writes to stderr)
    assert "10/10" in capsys.readouterr().err
