"""The Whipple bicycle: eigenvalues of straight upright running against the forward speed.

The benchmark bicycle of Meijaard, Papadopoulos, Ruina and Schwab (2007), built from rigid bodies
and rolling contacts. Its weave and capsize modes change stability at the weave and capsize
speeds (4.29 and 6.02 m/s): between them the bicycle is self-stable.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh
from nonholo.systems.whipple_bicycle import upright_state

bike = nh.systems.whipple_bicycle()
speeds = np.linspace(0.0, 10.0, 81)
path = nh.eigenvalue_path(bike.nonholonomic(), "speed", speeds, lambda v: upright_state(bike, v))
critical = nh.critical_values(path)

fig, ax = plt.subplots(figsize=(8, 4.5))
lam = path.physical
ax.plot(path.values, lam.real, "k.", ms=3)
ax.plot(path.values, np.abs(lam.imag), "c.", ms=3)
ax.plot([], [], "k.", label="real part")
ax.plot([], [], "c.", label="|imaginary part|")
for c in critical:
    ax.axvline(c.value, color="r", lw=0.8)
    ax.annotate(f"{c.value:.2f} m/s", (c.value, -8), rotation=90, fontsize=8, ha="right")
ax.axvspan(critical[0].value, critical[-1].value, color="g", alpha=0.1, label="self-stable")
ax.axhline(0, color="gray", lw=0.5)
ax.set(xlabel="forward speed [m/s]", ylabel="eigenvalue [1/s]", ylim=(-10, 10),
       title="Whipple bicycle: eigenvalues against speed")
ax.legend(fontsize=8, loc="upper right")
fig.tight_layout()
fig.savefig("bicycle_eigenvalues.png", dpi=100)
