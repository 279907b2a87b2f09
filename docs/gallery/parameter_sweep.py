r"""A parameter sweep: how far the sleigh drifts against the offset of its centre of mass and the friction.

``nh.sweep`` runs a function over a grid of parameters (here on threads) and gathers the results
into arrays. For each offset $a$ and friction parameter $\varepsilon$, the friction sleigh runs for 10 time
units; the colour is the distance between its final position and the ideal (nonholonomic) one.
"""

from concurrent.futures import ThreadPoolExecutor

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh

sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
y0 = [0, 0, 0, -1.5, 0, 1.0]
friction, ideal = sleigh.friction(1e-2), sleigh.nonholonomic()


def drift(a, eps):
    ref = nh.simulate(ideal, (0, 10), y0, params={"a": a}, t_eval=[10.0])
    run = nh.simulate(friction, (0, 10), y0, params={"a": a, "eps": eps}, t_eval=[10.0])
    return {"drift": np.hypot(*(run.q[:2, -1] - ref.q[:2, -1]))}


grid = {"a": np.linspace(0.05, 0.5, 10), "eps": np.geomspace(1e-4, 1e-1, 10)}
with ThreadPoolExecutor(2) as pool:
    study = nh.sweep(drift, grid, executor=pool, progress=False)

fig, ax = plt.subplots(figsize=(6.5, 4.5))
mesh = ax.pcolormesh(grid["eps"], grid["a"], np.log10(study["drift"]), shading="nearest")
ax.set(xscale="log", xlabel="friction parameter eps", ylabel="offset a of the centre of mass",
       title="log10 of the final distance to the ideal sleigh")
fig.colorbar(mesh, ax=ax)
fig.tight_layout()
fig.savefig("parameter_sweep.png", dpi=100)
