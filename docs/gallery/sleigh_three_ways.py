r"""The Chaplygin sleigh three ways: nonholonomic, with sideways friction, and reduced.

The ideal knife edge (nonholonomic model), a strong sideways friction
$-\frac{1}{\varepsilon} A^\top \mu A v$ that realizes it (friction model, $\varepsilon = 0.05$) and the
reduced model of order 2, which follows the friction model on its slow manifold without its
stiffness. The friction model is started on its slow manifold, so the reduced model follows it to
$O(\varepsilon^3)$.
"""

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh

sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
q0, u0, eps = [0, 0, 0], [-1.5, 0, 1.0], 0.05
t = np.linspace(0, 10, 401)

ideal = nh.simulate(sleigh.nonholonomic(), (0, 10), [*q0, *u0], t_eval=t)
v0 = sleigh.on_slow_manifold(q0, u0, eps, order=4)
slipping = nh.simulate(sleigh.friction(eps), (0, 10), [*q0, *v0], t_eval=t, rtol=1e-10, atol=1e-12)
reduced = nh.simulate(sleigh.reduced(eps, order=2), (0, 10), [*q0, *u0], t_eval=t, rtol=1e-10, atol=1e-12)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.plot(ideal["x"], ideal["y"], label="nonholonomic (no slip)")
ax1.plot(slipping["x"], slipping["y"], label=f"friction, eps = {eps}")
ax1.plot(reduced["x"], reduced["y"], "--", label="reduced, order 2")
ax1.set(xlabel="x", ylabel="y", title="path of the contact point", aspect="equal")
ax1.legend(fontsize=8)
ax2.semilogy(t[1:], np.abs(slipping.q - ideal.q).max(axis=0)[1:], label="friction vs nonholonomic")
ax2.semilogy(t[1:], np.abs(slipping.q - reduced.q).max(axis=0)[1:], label="friction vs reduced (order 2)")
ax2.set(xlabel="time t", ylabel="largest difference in (x, y, phi)", title="distance between the models")
ax2.legend(fontsize=8)
fig.tight_layout()
fig.savefig("sleigh_three_ways.png", dpi=100)
