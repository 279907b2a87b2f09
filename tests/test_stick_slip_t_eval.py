"""simulate(stick_slip_model, t_span, y0, t_eval=...) checks t_eval as every other model does: times
outside t_span, or out of order, raise "t_eval must lie within t_span" / "must be sorted" (they were
dropped silently: t_eval=[0.5, 2.0] over (0, 1) returned t = [0.5]); times inside it are the run's
output times, across the switch, against the bowling ball's closed form."""

import numpy as np
import pytest

import nonholo as nh

M, R, G = 1.0, 0.1, 9.81
V0, MU = 3.0, 0.2
Y0 = np.r_[0, 0, 1, 0, 0, 0, V0, np.zeros(5)]  # launched sliding at 3 m/s without spin


def model():
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2), nh.contact.Sphere(R))
    return ball.stick_slip(MU, normal=M * G)


@pytest.mark.parametrize("t_eval", [[0.5, 2.0], [-0.5, 0.5], [1.0 + 1e-9]])
def test_t_eval_outside_t_span_is_refused(t_eval):
    with pytest.raises(ValueError, match=r"t_eval must lie within t_span = \(0.0, 1.0\)"):
        nh.simulate(model(), (0, 1), Y0, t_eval=t_eval)


def test_t_eval_out_of_order_is_refused():
    with pytest.raises(ValueError, match="t_eval must be sorted"):
        nh.simulate(model(), (0, 1), Y0, t_eval=[0.5, 0.25])
    with pytest.raises(ValueError, match="NaN or inf"):
        nh.simulate(model(), (0, 1), Y0, t_eval=[0.5, np.nan])


@pytest.mark.parametrize("kwargs, tol", [({}, 1e-6), (dict(rtol=1e-10, atol=1e-12), 1e-8)])
def test_t_eval_inside_t_span_gives_those_times_across_the_switch(kwargs, tol):
    t_switch = 2 * V0 / (7 * MU * G)  # 0.4369: slides at x'' = -mu g, then rolls at 5/7 v0
    t = np.array([0.0, 0.2, 0.4, t_switch + 1e-3, 0.8, 1.0])
    run = nh.simulate(model(), (0, 1), Y0, t_eval=t, **kwargs)
    np.testing.assert_array_equal(run.t, t)
    np.testing.assert_allclose(run["x_dot"], np.where(t < t_switch, V0 - MU * G * t, 5 / 7 * V0), rtol=0, atol=tol)



def test_backward_t_span_is_refused():
    """A stick-slip run has no unique past: the ball rolling at 5/7 v0 at t = 1 may have rolled all
    along, or been launched sliding at v0 without spin (this file's run, stuck from t = 0.437 on),
    or at any speed in between. Run backward it returned the first with status 0, as if it were
    the answer; a backward t_span is now refused by name."""
    forward = nh.simulate(model(), (0, 1), Y0)  # the default direction still runs
    assert forward.status == 0 and np.isclose(forward["x_dot"][-1], 5 / 7 * V0, atol=1e-6)
    with pytest.raises(ValueError, match=r"t_span = \(1, 0\) runs backward"):
        nh.simulate(model(), (1, 0), forward.y[:, -1])
