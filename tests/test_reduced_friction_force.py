"""A reduced model's friction force is (1/eps) mu s of its own slip s, the friction model's force to
O(eps^K) at order K: it was the no-slip multiplier at every order, O(eps) whatever K (order 3 on a
sleigh under a torque sin 1.3t: 6.8e-5 off at eps 1.6e-2 with a slope of 1.00; now slope 2.94). The
order-0 model, which has no slip, keeps the multiplier."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th, t = sp.symbols("x y theta t")
EPS = np.array([4e-3, 8e-3, 1.6e-2])


def sleigh():
    s, c, a = sp.sin(th), sp.cos(th), 0.3
    G = sp.Matrix([[1, 0, -a * s], [0, 1, a * c], [-a * s, a * c, 0.5 + a ** 2]])
    return nh.System([x, y, th], G, constraints=sp.Matrix([[-s, c, 0]]), force=sp.Matrix([0, 0, sp.sin(1.3 * t)]),
                     time=t)


def force_errors(order):
    system, q0, u0 = sleigh(), np.zeros(3), np.array([1.0, 0, 0.5])
    t_eval, errors = np.linspace(0, 8, 41), []
    for eps in EPS:
        start = np.r_[q0, system.on_slow_manifold(q0, u0, eps, order=6, t=0.0)]
        exact = nh.simulate(system.friction(eps), (0, 8), start, t_eval=t_eval, rtol=1e-12, atol=1e-14)
        model = system.reduced(eps) if order is None else system.reduced(eps, order=order)
        run = nh.simulate(model, (0, 8), np.r_[q0, u0], t_eval=t_eval, rtol=1e-12, atol=1e-14)
        errors.append(np.abs(run["friction_force"] - exact["friction_force"]).max())
    return np.polyfit(np.log(EPS), np.log(errors), 1)[0], errors


@pytest.mark.parametrize("order, slope", [(None, 1), (0, 1), (2, 2), (3, 3)])
def test_the_friction_force_of_a_reduced_model_has_its_order(order, slope):
    fitted, errors = force_errors(order)
    assert abs(fitted - slope) < 0.2, (fitted, errors)
    assert max(errors) < 100 * EPS[-1] ** slope
