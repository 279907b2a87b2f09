r"""The tippe top inverts under sliding Coulomb friction, Jellett's integral kept.

The tippe top of ``nh.systems.tippe_top`` ($I_1/I_3 = 0.95$, $\alpha = 0.3$), spun at 150 rad/s about
its symmetry axis tilted 0.1 rad from the vertical, its contact realized by regularized Coulomb
friction ``nh.laws.Coulomb(0.3, v_s)`` with the load $N = m g$. Top: the tilt $\theta$ of the symmetry
axis goes from near 0 to near 180 degrees (178 at 6 s for $v_s = 0.01$ m/s); the smaller $v_s$, the
closer the contact comes to rolling (which cannot invert the top), and the later it turns over
($v_s = 0.001$ m/s: 160 degrees at 6 s, still rising). Middle: Jellett's integral
$L_G \cdot (\alpha e_3 - e_z) R$, conserved by any force at the contact point, drifts only by the
integration error (rtol 1e-10). Bottom: the normal force the motion implies,
$N = m (\ddot z_G + g)$, against the $m g$ the law was given: the top's centre of mass accelerates
vertically while it turns over, and the load $m g$ is an approximation there.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh
from nonholo.bodies import quaternion_from_euler, rotation_matrices
from nonholo.contact import rolling_state
from nonholo.systems.tippe_top import jellett

m, R, alpha, g = 0.015, 0.02, 0.3, 9.81
I3 = 0.4 * m * R**2
top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=0.95 * I3, g=g)
y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
t = np.linspace(0, 6, 1201)

fig, (ax_theta, ax_jellett, ax_load) = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
for v_s in (1e-2, 1e-3):
    model = top.friction(law=nh.laws.Coulomb(0.3, v_s=v_s), normal=m * g)
    run = nh.simulate(model, (0, t[-1]), y0, t_eval=t, rtol=1e-10, atol=1e-12)
    theta = np.degrees(np.arccos(np.clip(rotation_matrices(run.q[2:6])[:, 2, 2], -1, 1)))
    J = jellett(run)
    ax_theta.plot(run.t, theta, label=f"v_s = {v_s:g} m/s")
    ax_jellett.semilogy(run.t[1:], np.abs(J[1:] / J[0] - 1) + 1e-17, lw=0.8, label=f"v_s = {v_s:g} m/s")
    ax_load.plot(run.t, run["normal_force"] / (m * g), lw=0.8, label=f"v_s = {v_s:g} m/s")
ax_theta.axhline(180, color="gray", lw=0.5)
ax_theta.set(ylabel="tilt theta [degrees]", ylim=(0, 190),
             title="Tippe top under regularized Coulomb friction (mu = 0.3)")
ax_jellett.set(ylabel="|J / J(0) - 1|", ylim=(1e-16, 1e-8))
ax_load.axhline(1, color="gray", lw=0.5)
ax_load.set(xlabel="time [s]", ylabel="N / (m g) of the motion")
for ax in (ax_theta, ax_jellett, ax_load):
    ax.legend(fontsize=8, loc="best")
fig.tight_layout()
fig.savefig("tippe_top_coulomb.png", dpi=100)
