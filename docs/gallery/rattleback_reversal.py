"""The rattleback: a spin in one direction turns into rocking, then into a spin the other way.

The rattleback of Kane and Levinson (1982), a half-ellipsoid whose principal axes of inertia are
turned against its geometric axes, rolling without slip on a horizontal plane.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh
from nonholo.systems.rattleback import kane_levinson_state, vertical_spin

rb = nh.systems.rattleback()
t = np.linspace(0, 5, 2001)
run = nh.simulate(rb.nonholonomic(), (0, 5), kane_levinson_state(rb), t_eval=t, rtol=1e-10, atol=1e-12)

fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True)
ax1.plot(t, vertical_spin(run))
ax1.axhline(0, color="gray", lw=0.5)
ax1.set(ylabel="spin about the vertical [rad/s]", title="Rattleback: reversal of the spin")
ax2.plot(t, np.degrees(run["roll"]), label="roll")
ax2.plot(t, np.degrees(run["pitch"]), label="pitch")
ax2.set(xlabel="time [s]", ylabel="angle [deg]")
ax2.legend(fontsize=8)
fig.tight_layout()
fig.savefig("rattleback_reversal.png", dpi=100)
