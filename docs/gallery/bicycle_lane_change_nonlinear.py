"""The lane change of the nonlinear Whipple bicycle, planned on its own equations of motion.

SymPy's Whipple bicycle (``nh.systems.whipple_bicycle_kane(steer_torque=True)``, the benchmark
bicycle in Kane's speeds, its pitch a dependent coordinate through the front contact's height)
moves 1 m to the right in 3 s at 5 m/s and ends upright and straight, with the least integral of
the squared steer torque. The optimal control problem is posed on the bicycle's own dynamics: the
independent speeds are states, the dependent speeds, the speeds' rates and the contact forces'
multipliers are variables at every collocation point, the holonomic contact holds at position
level, and the rear contact's position is integrated from the speeds (``with_states``). Nothing is
solved symbolically; the Jacobian and Hessian of each point come from automatic differentiation of
the lowered expressions. Beside it, dashed, the plan of the bicycle linearized about upright
running (``nh.systems.whipple_bicycle_linear``): the same counter-steer, lean and turn; the
nonlinear plan needs a few percent more effort, the cubic terms the linear model leaves out (its
planned torque, driven through the nonlinear bicycle, ends 4 cm beyond the metre). Kane's axes
have z up and y to the left, so the lateral position and the heading change sign against the
linear model's (y to the right, z down); roll, steer and torque keep theirs.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import nonholo as nh

speed, duration, aside, nodes = 5.0, 3.0, 1.0, 41
start = time.perf_counter()
km, values = nh.systems.whipple_bicycle_kane(steer_torque=True)
bicycle = nh.System.from_kanes_method(km, values)
T = bicycle.symbol("T_delta")
# the dynamics in Kane's speeds with T_delta as the control, and the rear contact's position
dynamics = nh.OptimalControlProblem(bicycle, controls=[T], cost=T**2, t_final=duration).dynamics
x_rate, y_rate = (e.subs(values) for e in km.rear_contact_velocity)
lane = dynamics.with_states({"x": x_rate, "y": y_rate})
names = lane.state_names
initial = [0.0] * len(names)
initial[names.index("u3")] = speed / values[sp.Symbol("WRrad")]  # rolling straight at 5 m/s
final = [None] * len(names)  # the wheel angles, the pitch, the wheel's speed and x are free
for name, value in (("q1", 0.0), ("q2", 0.0), ("q5", 0.0), ("u2", 0.0), ("u5", 0.0), ("y", -aside)):
    final[names.index(name)] = value
plan = nh.OptimalControlProblem(lane, cost=T**2, t_final=duration, initial=initial, final=final).solve(nodes=nodes)
print(plan)
print(f"nonlinear bicycle: effort {plan.objective:.4f} N^2 m^2 s, {plan.stats['iterations']} IPOPT iterations, "
      f"{time.perf_counter() - start:.1f} s with the set-up")
check = plan.simulate()
print(f"the planned torque through the model: ends {np.abs(check.y[:, -1] - plan.y[:, -1]).max():.1e} from the "
      f"plan (collocation defect {plan.defect:.1e})")

linear = nh.OptimalControlProblem(nh.systems.whipple_bicycle_linear(speed=speed), cost=T**2, t_final=duration,
                                  initial=[0] * 6, final=[0, 0, 0, 0, 0, aside]).solve(nodes=nodes)
print(f"linear bicycle: effort {linear.objective:.4f} N^2 m^2 s "
      f"({100 * (plan.objective / linear.objective - 1):.1f}% less than the nonlinear plan's)")

ts = np.linspace(0.0, duration, 301)
Y, L = plan.states_at(ts), linear.states_at(ts)
fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
ax = axes[0]
ax.plot(ts, -Y[names.index("y")], label="nonlinear bicycle")
ax.plot(ts, L[5], "--", label="linear bicycle")
ax.set(xlabel="t [s]", ylabel="lateral position [m] (to the right)", title="Lane change at 5 m/s")
ax.legend(fontsize=8)
ax = axes[1]
for i, (name, state, row, sign) in enumerate([("roll", "q2", 0, 1), ("steer", "q5", 1, 1), ("heading", "q1", 4, -1)]):
    ax.plot(ts, np.degrees(sign * Y[names.index(state)]), color=f"C{i}", label=name)
    ax.plot(ts, np.degrees(L[row]), "--", color=f"C{i}")
ax.axhline(0, color="0.7", lw=0.5)
ax.set(xlabel="t [s]", ylabel="angle [deg] (right positive)", title="Counter-steer, lean, turn")
ax.legend(fontsize=8)
ax = axes[2]
ax.plot(ts, plan.controls_at(ts)[0], label=f"nonlinear, effort {plan.objective:.4f}")
ax.plot(ts, linear.controls_at(ts)[0], "--", label=f"linear, effort {linear.objective:.4f}")
ax.axhline(0, color="0.7", lw=0.5)
ax.set(xlabel="t [s]", ylabel="steer torque T_delta [N m]", title="The planned steer torque")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig("bicycle_lane_change_nonlinear.png", dpi=100)
