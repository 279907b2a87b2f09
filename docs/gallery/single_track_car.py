r"""Vehicle dynamics: the yaw-rate gain of a car on linear tires, and the slow-manifold orders.

A single-track (bicycle-model) car whose tires push sideways in proportion to their slip angle
(cornering stiffness $C$) is the friction realization of the kinematic car, with
$\varepsilon = U / C$. Its steady yaw rate per steering angle is $(U / L) / (1 + x)$,
$x = K_\text{us} U^2 / L$, with $K_\text{us}$ the understeer gradient. The reduced model of order $k$
gives the first $k + 1$ terms of the geometric series $1 - x + x^2 - \dots$, which converges below
the characteristic speed $\sqrt{L / K_\text{us}}$, where $x = 1$, and diverges above it. Each curve
is the steady state of a simulation (speed held by a gentle drive force); the thin line is the
classical formula.
"""

import importlib
import warnings

import matplotlib.pyplot as plt
import numpy as np

import nonholo as nh

car_module = importlib.import_module("nonholo.systems.single_track_car")
m, l_f, l_r, C = 1500.0, 1.2, 1.4, 8.0e4  # kg, m, m, N/rad (front and rear alike: understeer)
L, delta = l_f + l_r, 0.01
car = nh.systems.single_track_car(m=m, l_f=l_f, l_r=l_r, C_f=C, C_r=C, delta=delta)
v_ch = car_module.characteristic_speed(m, l_f, l_r, C, C)
speeds = np.linspace(2.0, 62.0, 31)


def steady_gain(model, U):
    """Yaw rate per steering angle after 40 s (the drive force's time constant is 1 s)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nh.SimulationWarning)  # near and above v_ch the series is invalid
        run = nh.simulate(model, (0, 40), [0, 0, 0, U, 0, 0], params={"U": U}, t_eval=[40.0], rtol=1e-10,
                          atol=1e-12, project_y0=True)
    return run["psi_dot"][-1] / delta if run.success else np.nan


friction = [steady_gain(car.friction(car_module.tire_eps(U, C, C)), U) for U in speeds]
reduced = {k: [steady_gain(car.reduced(car_module.tire_eps(U, C, C), order=k), U) for U in speeds]
           for k in range(5)}

fig, ax = plt.subplots(figsize=(8, 5))
fine = np.linspace(0, 62, 300)
ax.plot(fine, car_module.yaw_rate_gain(fine, m, l_f, l_r, C, C), color="0.6", lw=0.8,
        label="(U/L) / (1 + K_us U²/L)")
ax.plot(speeds, friction, "ko", ms=4, label="linear tires (friction model)")
for k, gains in reduced.items():
    ax.plot(speeds, gains, "-", lw=1.2, label=f"reduced, order {k}")
ax.axvline(v_ch, color="r", ls="--", lw=1)
ax.annotate(f"characteristic speed\nsqrt(L / K_us) = {v_ch:.1f} m/s", (v_ch, 1.0), xytext=(4, 0),
            textcoords="offset points", color="r", fontsize=8)
ax.set(xlabel="speed U [m/s]", ylabel="yaw rate / steering angle [1/s]", ylim=(0, 16), xlim=(0, 62),
       title="Steady-state yaw-rate gain of an understeering car")
ax.legend(fontsize=8, loc="upper left")
fig.tight_layout()
fig.savefig("single_track_car.png", dpi=100)
