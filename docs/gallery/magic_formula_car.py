r"""A car on Magic Formula tires: the yaw-rate gain, linear at small slip, and where the tires saturate.

The single-track car of ``nh.systems.single_track_car``, its two lateral no-slip rows realized by
Pacejka's Magic Formula (``nh.laws.MagicFormula``, a stiffer rear tire than the front one) under
the static axle loads, with the slip angle taken against each wheel's rolling speed. At small slip
angles the tire force is linear, with cornering stiffness $N B C D$, and the steady yaw rate per
steering angle is the linear bicycle model's $(U / L) / (1 + K_\text{us} U^2 / L)$ (thin line, at the
run's speed). At larger steering angles the lateral acceleration approaches the friction limit $D g$: the
front tire saturates first (the car understeers), the gain falls below the linear one, and beyond
a speed no steady turn is left (crosses: the car spins out). Each point is the steady state of a
simulation with the speed held by a gentle drive force.
"""

import importlib

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh

car_module = importlib.import_module("nonholo.systems.single_track_car")
m, I_z, l_f, l_r, g = 1500.0, 2500.0, 1.2, 1.4, 9.81
L = l_f + l_r
N_f, N_r = m * g * l_r / L, m * g * l_f / L  # static axle loads
front, rear = nh.laws.MagicFormula(B=10.0, C=1.3, D=0.9), nh.laws.MagicFormula(B=12.0, C=1.3, D=0.9)
C_f, C_r = (N * float(law.B * law.C * law.D) for N, law in ((N_f, front), (N_r, rear)))  # cornering stiffnesses N B C D


def steady_turn(U, delta, T=30.0):
    """(yaw rate / delta, forward speed, steady?) after T seconds on Magic Formula tires."""
    car = nh.systems.single_track_car(m=m, I_z=I_z, l_f=l_f, l_r=l_r, C_f=C_f, C_r=C_r, delta=delta, U=U)
    model = car.friction(law=[rear, front], normal=[N_r, N_f])  # slip angles against car.rolling_speeds
    run = nh.simulate(model, (0, T), [0, 0, 0, U, 0, 0], t_eval=[T - 1, T], rtol=1e-9, atol=1e-11)
    u = np.cos(run["psi"]) * run["x_dot"] + np.sin(run["psi"]) * run["y_dot"]
    steady = abs(run["psi_dot"][1] - run["psi_dot"][0]) < 1e-6 and abs(u[1] - U) < 0.1 * U
    return run["psi_dot"][-1] / delta, u[-1], steady


speeds = np.arange(4.0, 46.0, 2.0)
fig, ax = plt.subplots(figsize=(8, 5))
fine = np.linspace(0, 46, 300)
ax.plot(fine, car_module.yaw_rate_gain(fine, m, l_f, l_r, C_f, C_r), color="0.4", lw=0.8,
        label="linear bicycle model (U/L) / (1 + K_us U²/L), C = N B C D")
for delta, colour in ((0.002, "C0"), (0.02, "C1"), (0.03, "C2"), (0.04, "C3")):
    points = [steady_turn(U, delta) for U in speeds]
    ok = np.array([p[2] for p in points])
    gains, u = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    ax.plot(u[ok], gains[ok], "o-", color=colour, ms=3.5, lw=1, label=f"Magic Formula tires, delta = {delta}")
    if (~ok).any():
        ax.plot(speeds[~ok], np.full((~ok).sum(), 0.3), "x", color=colour, ms=6)
ax.set(xlabel="speed [m/s]", ylabel="yaw rate / steering angle [1/s]", xlim=(0, 46), ylim=(0, 10),
       title="Steady-state yaw-rate gain on Magic Formula tires\n(crosses: spun out, no steady turn)")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig("magic_formula_car.png", dpi=100)
