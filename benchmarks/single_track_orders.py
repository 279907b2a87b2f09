"""The single-track car: relative error of the reduced models' steady yaw rate, gentle and stiff speed hold.

For the car of ``nh.systems.single_track_car`` (m = 1500 kg, l_f = 1.2 m, l_r = 1.4 m, C_f = C_r)
at U = 10 m/s, with the cornering stiffness chosen for x = K_us U^2 / L = 0.03, 0.06, 0.12: the
relative error of the steady yaw rate of the reduced models of orders 0-4 against the friction
model (linear tires), with a gentle drive force (k_d / m = 1 1/s) and a stiff one (30 1/s).
Prints a Markdown table (--markdown PATH, --json PATH as in cli.py). Accuracy, not timing: the numbers
do not depend on the machine.
"""

import importlib
import warnings

import nonholo as nh
from cli import emit, repeats_and_output

car_module = importlib.import_module("nonholo.systems.single_track_car")
M, LF, LR = 1500.0, 1.2, 1.4
L, U, T = LF + LR, 10.0, 40.0


def steady_yaw_rate(model, params):
    run = nh.simulate(model, (0, T), [0, 0, 0, U, 0, 0], params=params, t_eval=[T], rtol=1e-12, atol=1e-12,
                      project_y0=True)
    return run["psi_dot"][-1]


def main(argv=None):
    _, output = repeats_and_output(__doc__, 1, argv)
    lines = ["| k_d / m [1/s] | x | order 0 | order 1 | order 2 | order 3 | order 4 |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for rate in (1.0, 30.0):
        car = nh.systems.single_track_car(m=M, l_f=LF, l_r=LR, k_d=rate * M)
        for x in (0.03, 0.06, 0.12):
            C = M / L * (LR - LF) * U**2 / (L * x)
            eps, params = car_module.tire_eps(U, C, C), {"C_f": C, "C_r": C}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", nh.SimulationWarning)  # validity warnings of the larger x
                exact = steady_yaw_rate(car.friction(eps), params)
                errors = [abs(steady_yaw_rate(car.reduced(eps, order=k), params) - exact) / abs(exact)
                          for k in range(5)]
            lines.append(f"| {rate:g} | {x:g} | " + " | ".join(f"{e:.2e}" for e in errors) + " |")
    emit("\n".join(lines) + "\n", output)


if __name__ == "__main__":
    main()
