"""The kinematic car (Reeds-Shepp / Dubins) and the car with on-axle trailers, as kinematic
control systems (Laumond, *Robot Motion Planning and Control*, 1998, chapters 1 and 3)."""

from __future__ import annotations

import sympy as sp

from ..control.kinematic import KinematicSystem
from .arguments import integer, real

__all__ = ["kinematic_car", "kinematic_car_trailers"]


#: The most trailers a car pulls here: each adds a state and a term to the next trailer's speed, so
#: the expressions grow quadratically (200 trailers take 3 s to build); beyond 100, refused at once.
MAX_TRAILERS = 100


def _positive(value, name: str) -> float:
    """A positive finite real number (not a string or a bool), naming ``name``."""
    return real(value, name, positive=True)


def kinematic_car(turning_radius: float = 1.0) -> KinematicSystem:
    """The car of Reeds and Shepp: x' = v cos(theta), y' = v sin(theta), theta' = v kappa.

    States ``x, y, theta`` (the rear axle's midpoint and the heading); controls the speed ``v``
    in [-1, 1] and the curvature ``kappa`` in [-1/R, 1/R], R = ``turning_radius``. Its minimum
    time between two states is the Reeds-Shepp length (Dubins' with v >= 0). ``cost="energy"``
    is the integral of v^2 / 2 (a unit mass).
    """
    R = _positive(turning_radius, "turning_radius")
    x, y, th, v, kappa = sp.symbols("x y theta v kappa")
    rhs = [v * sp.cos(th), v * sp.sin(th), v * kappa]
    return KinematicSystem([x, y, th], [v, kappa], rhs, control_bounds={"v": (-1.0, 1.0), "kappa": (-1 / R, 1 / R)},
                           metric=sp.diag(1, 0), name=f"kinematic car (R = {R:g})")


def kinematic_car_trailers(n_trailers: int = 1, turning_radius: float = 1.0, hitch: float = 1.0) -> KinematicSystem:
    """The kinematic car pulling ``n_trailers`` trailers, each hitched on the axle of the one
    before at distance ``hitch`` from its own axle (standard on-axle hitching).

    States ``x, y, theta0, theta1 .. theta_n`` (the car's rear axle, the headings of car and
    trailers); controls ``v`` in [-1, 1] and ``kappa`` in [-1/R, 1/R] as for
    :func:`kinematic_car`, with theta_i' = v_{i-1} / d sin(theta_{i-1} - theta_i) and
    v_i = v_{i-1} cos(theta_{i-1} - theta_i), v_0 = v.
    """
    n_trailers = integer(n_trailers, "n_trailers", minimum=0)
    if n_trailers > MAX_TRAILERS:
        raise ValueError(f"n_trailers = {n_trailers} is more than the {MAX_TRAILERS} trailers this builder holds")
    n_trailers = int(n_trailers)
    R = _positive(turning_radius, "turning_radius")
    d = _positive(hitch, "hitch")
    x, y, v, kappa = sp.symbols("x y v kappa")
    th = sp.symbols(f"theta0:{n_trailers + 1}")
    rhs = [v * sp.cos(th[0]), v * sp.sin(th[0]), v * kappa]
    speed = v
    for i in range(1, n_trailers + 1):
        rhs.append(speed / d * sp.sin(th[i - 1] - th[i]))
        speed = speed * sp.cos(th[i - 1] - th[i])
    return KinematicSystem([x, y, *th], [v, kappa], rhs,
                           control_bounds={"v": (-1.0, 1.0), "kappa": (-1 / R, 1 / R)}, metric=sp.diag(1, 0),
                           name=f"kinematic car with {n_trailers} trailer{'s' if n_trailers != 1 else ''}")
