"""Parallel parking of a car with one and with two trailers, in minimum time.

The kinematic car with on-axle trailers (``nh.systems.kinematic_car_trailers``, wheelbase and
hitch lengths 1, turning radius 1) pulls alongside a gap between two parked vehicles (grey discs)
and backs into it, ending 2 m to the side, straight, at rest. Its speed and curvature are states
(``rate_limited``: acceleration at most 2, steering rate at most 4), so that they change
continuously at the cusps. Path constraints hold at every collocation point: the angle between
neighbours stays within 60 degrees (no jackknife), and every axle (and the car's front axle)
stays off the parked vehicles and above the curb. The thin lines are snapshots of the axles.

Backing a trailer is unstable, so an error of the plan grows when its controls are driven
open loop: ``sol.final_error`` carries each interval's error to the end along the linearized
motion, and predicts the gap of ``sol.simulate()`` (printed) while it stays small, where the plain
sum of the local errors, ``sol.defect``, is too small by the factor the unstable motion amplifies;
``sol.error_bound`` bounds it. The rates of a minimum-time manoeuvre switch between their bounds;
between the collocation points the controls are Hermite-Simpson's quadratics clipped to the
bounds, whose local errors at the switches fall only like the interval: a gap grown past the
linearization (two trailers) says the plan needs more nodes before it is driven open loop.
"""

import math
import time

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import nonholo as nh


def parking(n_trailers, r=0.5, curb=-2.5):
    """The problem, the axle points' expressions and the parked vehicles."""
    car = nh.systems.kinematic_car_trailers(n_trailers, turning_radius=1.0, hitch=1.0)
    car = car.rate_limited({"v": 2.0, "kappa": 4.0})
    x, y = sp.symbols("x y")
    th = sp.symbols(f"theta0:{n_trailers + 1}")
    axles = [(x + sp.cos(th[0]), y + sp.sin(th[0])), (x, y)]  # front and rear axle of the car
    for i in range(1, n_trailers + 1):
        axles.append((axles[-1][0] - sp.cos(th[i]), axles[-1][1] - sp.sin(th[i])))
    parked = [(2.25 + r, -2.0), (0.25 - n_trailers - r, -2.0)]  # the gap: 0.25 clear at both ends
    constraints = [c for i in range(1, n_trailers + 1)
                   for c in (th[i - 1] - th[i] <= math.pi / 3, th[i - 1] - th[i] >= -math.pi / 3)]
    for ax_, ay_ in axles:
        constraints.append(ay_ >= curb)
        constraints += [(ax_ - cx) ** 2 + (ay_ - cy) ** 2 >= r**2 for cx, cy in parked]
    rest = [0.0] * (n_trailers + 1) + [0.0, 0.0]  # headings, speed, curvature
    problem = nh.OptimalControlProblem(car, cost="time", initial=[2.0, 0.0, *rest], final=[0.5, -2.0, *rest],
                                       path_constraints=constraints)
    return problem, sp.lambdify([car.states], axles), parked


fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), gridspec_kw={"height_ratios": [3, 2]})
for col, (n, nodes) in enumerate([(1, 80), (2, 80)]):
    problem, axles_of, parked = parking(n)
    start = time.perf_counter()
    sol = problem.solve(nodes=nodes)
    seconds = time.perf_counter() - start
    gap = sol.simulate().y_final - sol.y[:, -1]
    print(f"{n} trailer(s), {nodes} nodes: t_final = {sol.t_final:.4f}, {sol.message} ({seconds:.1f} s, "
          f"{sol.stats['iterations']} iterations); defect {sol.defect:.1e}, re-run gap "
          f"{np.abs(gap).max():.1e}, predicted {np.abs(sol.final_error).max():.1e}")
    ax = axes[0, col]
    P = np.array(axles_of(list(sol.y)))  # (axle, x/y, node)
    for k in range(0, sol.t.size, 4):
        ax.plot(P[:, 0, k], P[:, 1, k], "-", color="0.55", lw=0.6)
    labels = ["car, front axle", "car, rear axle"] + [f"trailer {i}" for i in range(1, n + 1)]
    for j, label in enumerate(labels):
        ax.plot(P[j, 0], P[j, 1], lw=1.6, label=label)
    ax.plot(P[:, 0, -1], P[:, 1, -1], "k.-", lw=1.5)
    for cx, cy in parked:
        ax.add_patch(plt.Circle((cx, cy), 0.5, color="0.8"))
    ax.axhline(-2.5, color="k", lw=1)
    ax.set(aspect="equal", xlabel="x [m]", ylabel="y [m]",
           title=f"{n} trailer{'s' if n > 1 else ''}: {sol.t_final:.3f} s ({nodes} nodes)")
    ax.legend(fontsize=7, loc="upper left")
    ax = axes[1, col]
    ax.plot(sol.t, sol["v"], label="speed v")
    ax.plot(sol.t, sol["kappa"], label="curvature kappa")
    for i in range(1, n + 1):
        ax.plot(sol.t, np.degrees(sol[f"theta{i - 1}"] - sol[f"theta{i}"]) / 60, "--", lw=1,
                label=f"hitch angle {i} / 60 deg")
    ax.axhline(1, color="0.7", lw=0.5)
    ax.axhline(-1, color="0.7", lw=0.5)
    ax.set(xlabel="t [s]")
    ax.legend(fontsize=7, ncol=2)
fig.tight_layout()
fig.savefig("trailer_parking.png", dpi=100)
