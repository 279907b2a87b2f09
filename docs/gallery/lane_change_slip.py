r"""A lane change planned with the kinematic car, driven through a car on linear tires.

The plan: the kinematic car (rear axle, no slip) moves 3.5 m to the left in 3 s at 10 m/s with
the least integral of the squared steering rate. ``sol.track`` drives it open loop through the
single-track car on linear tires (``nh.systems.single_track_car``, cornering stiffness C per
axle), the friction realization of the kinematic car with $\varepsilon = U / C$: the steering angle is
$\delta = \arctan(L \kappa)$, and the drive force is the feedforward that makes the nonholonomic car
follow the plan exactly, so what is left is the tires' slip. It is what the plan leaves out: the
tires slip sideways at slip angles up to about 1.3 degrees (middle), the car's heading lags, and
it ends the manoeuvre about 20 cm short of the target lane (left; the axes are not to scale). On
a wet road (Magic Formula tires of the same cornering stiffness, peak friction 0.3) the tires
saturate and the car strays further (ends 26 cm short). The slip and the tracking error both
scale like $\varepsilon$ (right: softer and stiffer tires, against a slope-1 line).
"""

import time

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import nonholo as nh
from nonholo.systems.single_track_car import tire_eps

m, l_f, l_r, C, U0 = 1500.0, 1.2, 1.4, 8.0e4, 10.0
L = l_f + l_r
kinematic = nh.systems.kinematic_car(turning_radius=6.0).rate_limited({"kappa": 0.1})
problem = nh.OptimalControlProblem(kinematic, cost=sp.Symbol("kappa_dot") ** 2, t_final=3.0,
                                   initial=[0, 0, 0, 0], final=[None, 3.5, 0, 0], control_bounds={"v": (U0, U0)})
plan = problem.solve(nodes=31)
print(plan)

car = nh.systems.single_track_car(m=m, l_f=l_f, l_r=l_r, C_f=C, C_r=C, U=U0)
x, y, th, kappa = sp.symbols("x y theta kappa")
centre_of_mass = {"x": x + l_r * sp.cos(th), "y": y + l_r * sp.sin(th), "psi": th}
eps0 = tire_eps(U0, C, C)
start = time.perf_counter()
runs = {k: plan.track(car, k * eps0, centre_of_mass, inputs={"delta": sp.atan(L * kappa)}, feedforward=["U"])
        for k in (1 / 8, 1 / 4, 1 / 2, 1.0)}
print(f"4 tracks in {time.perf_counter() - start:.1f} s")
real = runs[1.0]
# the same tires by Pacejka's Magic Formula (same cornering stiffness B C D N = C) on a wet road,
# peak friction D = 0.3: they saturate
loads = [m * 9.81 * l_f / L, m * 9.81 * l_r / L]  # rear, front
wet = plan.track(car, coordinates=centre_of_mass, inputs={"delta": sp.atan(L * kappa)}, feedforward=["U"],
                 law=[nh.laws.MagicFormula(B=C / (1.3 * 0.3 * N), C=1.3, D=0.3) for N in loads], normal=loads,
                 speed=U0)
print(f"Magic Formula, D = 0.3: max error {wet.max_error:.3f} m, final y {wet['y'][-1]:.3f} m")
print(f"C = {C:.0f} N/rad (eps = {eps0:.3g}): max error {real.max_error:.3f} m, max slip {real.max_slip:.3f} m/s, "
      f"final y {real['y'][-1]:.3f} m (planned {real.plan[1, -1]:.3f}), max slip angle "
      f"{np.degrees(np.max(np.abs(real.slip)) / U0):.2f} deg")

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), gridspec_kw={"width_ratios": [2.2, 1.4, 1.2]})
ax = axes[0]
ax.plot(real.plan[0], real.plan[1], "k--", lw=1.2, label="plan (kinematic car)")
ax.plot(real["x"], real["y"], lw=1.6, label=f"tracked on linear tires, C = {C / 1e3:.0f} kN/rad")
ax.plot(wet["x"], wet["y"], lw=1.2, label="Magic Formula tires, wet road (D = 0.3)")
ax.axhline(3.5, color="0.7", lw=0.8)
ax.set(xlabel="x [m]", ylabel="y [m] (centre of mass)", title="Path")
ax.legend(fontsize=8, loc="lower right")
ax = axes[1]
for row, name in enumerate(["rear", "front"]):
    ax.plot(real.t, np.degrees(real.slip[row] / U0), label=f"{name} axle")
ax.set(xlabel="t [s]", ylabel="slip angle ~ slip / U [deg]", title="Slip the plan leaves out")
ax.legend(fontsize=8)
ax = axes[2]
eps = np.array(list(runs)) * eps0
errors = [r.max_error for r in runs.values()]
slips = [r.max_slip for r in runs.values()]
ax.loglog(eps, errors, "o-", label="max |q - q_plan|")
ax.loglog(eps, slips, "s-", label="max |slip| [m/s]")
ax.loglog(eps, errors[-1] * eps / eps[-1], "k:", lw=1, label="slope 1")
ax.set(xlabel="eps = U / C", title="Both scale like eps")
ax.xaxis.set_minor_formatter(plt.NullFormatter())
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig("lane_change_slip.png", dpi=100)
