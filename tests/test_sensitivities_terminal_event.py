"""After a terminal event, ``sensitivities_final`` is the derivative of the state where the run stopped,
whose time moves with the parameter: s(t*) + y'(t*) dt*/dp, checked against central differences of
``y_final``; the samples' sensitivities stay those at fixed times. A run to the end of its interval
keeps the last sample's (the default)."""

import numpy as np
import pytest

import nonholo as nh

Y0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 1.0])
TIGHT = dict(rtol=1e-12, atol=1e-14)


def stop_at(x):
    return nh.Event(nh.systems.chaplygin_sleigh().coordinates[0] - x, terminal=True)


@pytest.mark.parametrize("form", ["nonholonomic", "friction"])
def test_final_sensitivities_follow_the_stop(form):
    sleigh = nh.systems.chaplygin_sleigh()
    model = sleigh.nonholonomic() if form == "nonholonomic" else sleigh.friction(1e-2)
    a = model.params["a"]
    run = nh.simulate(model, (0, 5), Y0, events=[stop_at(0.5)], sensitivities=["a"], **TIGHT)
    assert run.status == 1 and run.t_last < 5
    h = 1e-6
    ends = [nh.simulate(model, (0, 5), Y0, events=[stop_at(0.5)], params={"a": a + d}, **TIGHT).y_final
            for d in (h, -h)]
    total = (ends[0] - ends[1]) / (2 * h)
    np.testing.assert_allclose(run.sensitivities_final[:, 0], total, atol=2e-6)
    assert abs(run.sensitivities_final[0, 0]) < 1e-9  # the event pins x = 0.5 at the stop
    np.testing.assert_array_equal(run.sensitivities_final, run.y_events_sensitivities[0][-1])
    # the last sample's column: at the fixed time t*, which differs (dx/da 0.11 for the sleigh)
    fixed = [nh.simulate(model, (0, run.t_last), Y0, params={"a": a + d}, t_eval=[run.t_last], **TIGHT).y[:, -1]
             for d in (h, -h)]
    np.testing.assert_allclose(run.sensitivities[:, 0, -1], (fixed[0] - fixed[1]) / (2 * h), atol=2e-6)
    assert np.abs(run.sensitivities[:, 0, -1] - total).max() > 1e-2


def test_final_sensitivities_of_a_run_to_its_end_are_the_last_sample_s():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    run = nh.simulate(model, (0, 0.4), Y0, events=[stop_at(0.5)], sensitivities=["a"], **TIGHT)
    assert run.status == 0
    np.testing.assert_array_equal(run.sensitivities_final, run.sensitivities[..., -1])
    empty = nh.simulate(model, (0, 5), Y0, events=[stop_at(0.5)], sensitivities=["a"], t_eval=[], **TIGHT)
    np.testing.assert_allclose(empty.sensitivities_final, nh.simulate(
        model, (0, 5), Y0, events=[stop_at(0.5)], sensitivities=["a"], **TIGHT).sensitivities_final, atol=1e-10)
