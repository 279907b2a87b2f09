r"""The tippe top turns upside down.

A sphere of radius $R$ with its centre of mass a distance $\alpha R$ below the centre, spun fast
about its symmetry axis with the stem up, slides on the table; the sliding friction turns it
over onto its stem when $1 - \alpha < I_1/I_3 < 1 + \alpha$ (here 0.7 to 1.3). Shown: the vertical
component of the symmetry axis (+1 stem up, -1 stem down) for three ratios of the moments of
inertia: inside that range (0.95) the top turns over fully; at 1.4 it settles tilted; at 0.6 it
stays upright.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh
from nonholo.bodies import quaternion_from_euler, rotation_matrices
from nonholo.contact import rolling_state

m, R, alpha = 0.015, 0.02, 0.3
I3 = 0.4 * m * R**2
t = np.linspace(0, 2.5, 251)

fig, ax = plt.subplots(figsize=(8, 4))
for ratio in (0.6, 0.95, 1.4):
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=I3, I1=ratio * I3)
    y0 = rolling_state(top, quaternion_from_euler(0, 0.1, 0), [0, 0, 150.0], velocity=(0, 0))
    run = nh.simulate(top.friction(1.0), (0, 2.5), y0, t_eval=t, rtol=1e-9, atol=1e-11)
    axis_height = rotation_matrices(run.q[2:6])[:, 2, 2]
    ax.plot(t, axis_height, label=f"I1/I3 = {ratio}")
ax.axhline(0, color="gray", lw=0.5)
ax.set(xlabel="time [s]", ylabel="vertical component of the symmetry axis",
       title="Tippe top: turning over onto its stem")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig("tippe_top_inversion.png", dpi=100)
