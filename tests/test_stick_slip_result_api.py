"""A stick-slip run's result has the outcome and export API of a SimulationResult (the cheat sheet's
rows): flag, flag_name, t_last, stats (the phases' counters summed), messages, to_dataframe and
to_xarray. It had none of them."""

import numpy as np
import pytest
from test_event_step_bound import block_closed_form, pushed_block

import nonholo as nh
from nonholo.integrate.stick_slip import run_stick_slip


def test_a_run_to_the_end():
    switches, x_end = block_closed_form()  # 7 switches in [0, 6]
    run = nh.simulate(pushed_block(), (0, 6), [0, 0, 0, 0], t_eval=np.linspace(0, 6, 61))
    assert run.status == 0 and run.flag == 0 and run.flag_name == ""
    assert run.t_last == 6.0
    assert len(run.phases) == len(switches) + 1
    stats = run.stats
    assert stats["n_phases"] == 8
    for key in ("n_steps", "n_rhs", "n_err_test_fails", "n_root_evals"):
        assert stats[key] == sum(phase.stats[key] for phase in run.phases)
    assert stats["cpu_time"] == pytest.approx(sum(phase.stats["cpu_time"] for phase in run.phases), rel=1e-12)
    assert stats["last_order"] == run.phases[-1].stats["last_order"]
    assert run.messages == [m for phase in run.phases for m in phase.messages]

    df = run.to_dataframe()
    assert df.shape == (61, 4) and list(df.columns) == ["x", "y", "x_dot", "y_dot"]
    np.testing.assert_array_equal(df.index.to_numpy(), np.linspace(0, 6, 61))
    np.testing.assert_allclose(df["x"].iloc[-1], x_end, rtol=0, atol=1e-5)  # the closed form
    assert df.attrs["status"] == 0 and df.attrs["n_switches"] == 7 and df.attrs["t_last"] == 6.0
    da = run.to_xarray()
    assert da.dims == ("t", "state") and da.shape == (61, 4)
    np.testing.assert_array_equal(da.sel(state="x").values, run["x"])
    assert da.attrs["flag_name"] == "" and da.attrs["n_switches"] == 7


def test_a_run_that_runs_out_of_switches():
    switches, _ = block_closed_form()
    with pytest.warns(nh.SimulationWarning, match="max_switches = 5 switches"):
        run = run_stick_slip(pushed_block(), (0, 6), [0, 0, 0, 0], max_switches=5)
    assert run.status == -1 and run.flag_name == "MAX_SWITCHES"
    np.testing.assert_allclose(run.t_last, switches[5], rtol=0, atol=1e-6)  # where the sixth switch was due
    assert run.to_dataframe().attrs["flag_name"] == "MAX_SWITCHES"


def test_a_run_stopped_where_a_load_vanishes():
    """The sleigh on a load 1 - x stops where x = 1 (status 1); t_last is that time. Its flag_name is
    that of a friction law's run stopped there (it was "", which code testing the flag missed)."""
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.warns(nh.SimulationWarning, match="normal load"):
        run = nh.simulate(sleigh.stick_slip(0.5, normal="1 - x"), (0, 10), [0, 0, 0, 1.0, 0, 0.4])
    assert run.status == 1 and run.flag_name == "NORMAL_LOAD_NEGATIVE"
    with pytest.warns(nh.SimulationWarning, match="normal load"):
        law = nh.simulate(sleigh.friction(law=nh.laws.Coulomb(0.5, v_s=1e-3), normal="1 - x"), (0, 10),
                          [0, 0, 0, 1.0, 0, 0.4])
    assert law.status == 1 and law.flag_name == run.flag_name
    assert 0 < run.t_last < 10 and run.t[-1] == run.t_last
    np.testing.assert_allclose(run["x"][-1], 1.0, rtol=0, atol=1e-8)
    assert run.stats["n_phases"] == len(run.phases)
    assert run.to_xarray().attrs["status"] == 1


def test_a_failed_phase_gives_its_flag():
    with pytest.warns(nh.SimulationWarning, match="max_steps"):
        run = nh.simulate(pushed_block(), (0, 6), [0, 0, 0, 0], max_steps=3)
    assert run.status == -1 and run.flag_name == "CV_TOO_MUCH_WORK" == run.phases[-1].flag_name
    assert run.flag == run.phases[-1].flag != 0
    assert run.t_last == run.phases[-1].t_last < 6


def test_constraint_residual_is_the_slip_and_animate_draws_the_run():
    """The bowling ball slides until t = 2 v0 / (7 mu g): the residual of the rolling rows is the
    relative slip s(t) / |q'| with s = v0 - (7/2) mu g t (a constant factor, the rows' norm), zero
    once it rolls; each phase's own residual is not (a sliding phase releases the rows). animate()
    draws the run as a SimulationResult's does."""
    m, r, g, mu, v0 = 1.0, 0.1, 9.81, 0.2, 3.0
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(m, np.eye(3) * 0.4 * m * r**2), nh.contact.Sphere(r))
    y0 = np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0]
    for options in ({}, {"rtol": 1e-10, "atol": 1e-12}):  # the default and tight
        run = nh.simulate(ball.stick_slip(mu, normal=m * g), (0, 1), y0, t_eval=np.linspace(0, 1, 21), **options)
        residual = run.constraint_residual()
        t_roll = 2 * v0 / (7 * mu * g)
        assert residual.shape == run.t.shape and run.switches[0][0] == pytest.approx(t_roll, rel=1e-6)
        sliding = run.t < t_roll
        assert sliding.sum() == 9 and np.all(residual[sliding] > 1e-3)
        assert np.all(residual[~sliding] < 1e-14)
        factor = residual[sliding] * np.linalg.norm(run.v[:, sliding], axis=0) / (v0 - 3.5 * mu * g * run.t[sliding])
        np.testing.assert_allclose(factor, factor[0], rtol=1e-5 if not options else 1e-7)  # error / s(t) at the switch
        assert run.phases[0].constraint_residual()[0] == 0.0
    animation = run.animate(frames=5)
    assert animation.n_frames == 5
    np.testing.assert_allclose(animation.t, np.linspace(0, 1, 5))


def test_a_frictionless_contact_is_refused_with_the_model_that_holds():
    """mu_s = 0 (the textbook frictionless limit) was refused as "must be positive and finite", with no
    word of what to run instead; a positive mu_s (the default path) builds."""
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(ValueError, match="frictionless contact exerts no force along its rows"):
        sleigh.stick_slip(0.0, normal=9.81)
    with pytest.raises(ValueError, match="mu_s must be positive and finite, got -0.5"):
        sleigh.stick_slip(-0.5, normal=9.81)
    assert sleigh.stick_slip(0.5, normal=9.81).mu_s == 0.5
