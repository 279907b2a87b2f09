r"""Where rolling without slipping breaks: a bowling ball, and a ball on an incline.

Left: a ball launched sliding at $v_0 = 3$ m/s without spin (the stick-slip model,
``system.stick_slip(mu, normal=m g)``, $\mu = 0.2$). Kinetic friction slows the centre,
$v = v_0 - \mu g t$, and spins the ball up, $r\omega = \frac52 \mu g t$, until the slip $v - r\omega$
stops at $t = 2 v_0 / (7 \mu g)$; from then on it rolls at $\frac57 v_0$ (lines: the closed forms;
dots: the run). Right: a ball released on an incline of angle $\alpha = 0.3$ rolls without
slipping, with acceleration $\frac57 g \sin\alpha$, exactly when $\mu \ge \frac27 \tan\alpha$; below, it
slides with acceleration $g (\sin\alpha - \mu \cos\alpha)$. Dots: the stick-slip runs' accelerations;
crosses: the friction-cone margin $\mu N - \lvert\lambda\rvert$ of the no-slip motion
(``system.friction_margin(mu)``), negative where rolling would need more friction than there is.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh

m, r, g = 1.0, 0.1, 9.81
body = nh.bodies.RigidBody(m, np.eye(3) * 0.4 * m * r**2)  # a uniform solid sphere
fig, (ax_ball, ax_incline) = plt.subplots(1, 2, figsize=(11, 4.5))

# the bowling ball
v0, mu = 3.0, 0.2
ball = nh.contact.roll_on_plane(body, nh.contact.Sphere(r), gravity=g)
t = np.linspace(0, 1, 41)
run = nh.simulate(ball.stick_slip(mu, normal=m * g), (0, 1), np.r_[0, 0, 1, 0, 0, 0, v0, 0, 0, 0, 0, 0], t_eval=t,
                  rtol=1e-10, atol=1e-12)
t_switch = run.switches[0][0]
r_omega = run["x_dot"] - run["slip"]  # the slip is v - r omega >= 0 along x
fine = np.linspace(0, 1, 400)
t_roll = 2 * v0 / (7 * mu * g)
ax_ball.plot(fine, np.where(fine < t_roll, v0 - mu * g * fine, 5 / 7 * v0), "C0", lw=1, label="v, closed form")
ax_ball.plot(fine, np.where(fine < t_roll, 2.5 * mu * g * fine, 5 / 7 * v0), "C1", lw=1, label="r omega, closed form")
ax_ball.plot(run.t, run["x_dot"], "C0o", ms=3, label="v, stick-slip run")
ax_ball.plot(run.t, r_omega, "C1o", ms=3, label="r omega, stick-slip run")
ax_ball.axvline(t_switch, color="gray", ls="--", lw=0.8)
ax_ball.annotate(f"slip -> stick at t = {t_switch:.6f} s\n2 v0 / (7 mu g) = {t_roll:.6f} s", (t_switch, 0.3),
                 xytext=(6, 0), textcoords="offset points", fontsize=8)
ax_ball.set(xlabel="time [s]", ylabel="speed [m/s]", title="A bowling ball launched without spin")
ax_ball.legend(fontsize=8, loc="center right")

# the incline
alpha = 0.3
incline = nh.contact.roll_on_plane(body, nh.contact.Sphere(r), gravity=(g * np.sin(alpha), 0, -g * np.cos(alpha)))
at_rest = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]
mu_c = 2 / 7 * np.tan(alpha)
N = m * g * np.cos(alpha)
ratios = np.linspace(0.3, 1.7, 15)
accelerations, margins = [], []
rolling = nh.simulate(incline.nonholonomic(), (0, 0.5), at_rest, t_eval=[0.5], rtol=1e-10, atol=1e-12)
for ratio in ratios:
    run = nh.simulate(incline.stick_slip(ratio * mu_c, normal=N), (0, 0.5), at_rest, rtol=1e-10, atol=1e-12)
    accelerations.append(run["x_dot"][-1] / 0.5)
    margins.append(incline.friction_margin(ratio * mu_c).of(rolling)[0])
fine = np.linspace(0.3, 1.7, 300)
ax_incline.plot(fine, np.where(fine < 1, g * (np.sin(alpha) - fine * mu_c * np.cos(alpha)), 5 / 7 * g * np.sin(alpha)),
                "C0", lw=1, label="acceleration, closed form")
ax_incline.plot(ratios, accelerations, "C0o", ms=4, label="acceleration, stick-slip run")
ax_incline.axvline(1, color="gray", ls="--", lw=0.8)
ax_incline.set(xlabel="mu / ((2/7) tan(alpha))", ylabel="acceleration [m/s²]",
               title=f"A ball released on an incline, alpha = {alpha}")
margin_axis = ax_incline.twinx()
margin_axis.plot(ratios, margins, "C3x", ms=5, label="margin mu N - |lambda| [N]")
margin_axis.axhline(0, color="C3", lw=0.5)
margin_axis.set_ylabel("friction-cone margin of rolling [N]", color="C3")
handles = ax_incline.get_legend_handles_labels()[0] + margin_axis.get_legend_handles_labels()[0]
ax_incline.legend(handles, [h.get_label() for h in handles], fontsize=8, loc="upper right")
fig.tight_layout()
fig.savefig("bowling_ball_and_incline.png", dpi=100)
