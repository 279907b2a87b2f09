r"""Loads of a KanesMethod that have a potential: a force of constant components in the inertial frame
(gravity, -m g N.z) at a point located from a fixed point.

Such a force f at a point P does the work f . dr_P, so its generalized force is F_j = f . dr_P/dq_j
= -dV/dq_j with V = -f . r_P, r_P the position of P from a point fixed in the inertial frame. Given as
a load, it enters ``from_kanes_method``'s system as this V (``system.potential``) rather than as a
generalized force: the equations are the same, and ``result.energy()`` is then the conserved energy,
not the kinetic energy alone.

A load is taken as such only when its power f . v_P (with the point's velocity as the KanesMethod sets
it, linear in q') equals -dV/dt = -grad V . q' at random points (relative 1e-9), so that the generalized
force f . dv_P/dq'_j it gives is -dV/dq_j. A force at a material point whose velocity is not the
derivative of its position (the contact point of a rolling body), a force that depends on the state or
the time, or a torque stays a generalized force.

Where no fixed point locates P, the points that do (through ``locatenew``/``set_pos``) are tried as
the base of r_P instead: V = -f . r_P from a base B is the potential where B moves across f (f . v_B
= 0, so f . r_B is constant), which the same check of the power confirms. SymPy's rolling disc gives
its contact point a velocity only (``P.set_vel(N, u4 N.x + u5 N.y)``) and locates the centre from it:
gravity at the centre was a generalized force, and ``result.energy()`` the kinetic energy alone (it
varied by 0.9 % over a run that conserved T + m g r cos(lean) to 5e-11).

A constant vector that has no potential as a whole is taken apart along the inertial frame's axes, each
component tried on its own: gravity and a push along the plane in one load (an outside probe's
``-m g N.z + 1.5 N.x`` at the disc's centre) give gravity's potential, the push a generalized force.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .kinematics import mechanics_module, numeric_zero

__all__ = ["load_potentials"]


def load_potentials(pairs, frame, velocity_map: dict, to_plain, q_syms, qd_syms, t) -> tuple:
    """(V, rest): the potential of the loads of ``pairs`` that have one (module docstring), in the plain
    coordinates ``q_syms``, and the other pairs (kind, object, vector) as given."""
    V, rest = sp.S.Zero, []
    rng = np.random.default_rng(11)
    for pair in pairs:
        kind, point, vector = pair
        found = _potential(point, vector, frame, velocity_map, to_plain, q_syms, qd_syms, t, rng) \
            if kind == "point" else None
        if found is not None:
            V += found
            continue
        components = vector.to_matrix(frame) if kind == "point" else None
        if components is None or not _constant(components, t):  # no part of it has a potential
            rest.append(pair)
            continue
        # gravity and a push in one vector: each component along the frame's axes on its own
        left = 0 * frame.x
        for axis, component in zip((frame.x, frame.y, frame.z), components):
            part = component * axis
            found = None if component == 0 else \
                _potential(point, part, frame, velocity_map, to_plain, q_syms, qd_syms, t, rng)
            if found is None:
                left += part
            else:
                V += found
        if left != 0:
            rest.append((kind, point, left))
    return V, rest


def _constant(components, t) -> bool:
    """Whether no component depends on the motion (a dynamicsymbol) or on the time ``t``."""
    me = mechanics_module()
    return not any(me.find_dynamicsymbols(c) or t in sp.sympify(c).free_symbols for c in components)


def _potential(point, vector, frame, velocity_map, to_plain, q_syms, qd_syms, t, rng):
    """-f . r_P of a constant force f at ``point``, or None where it is not the load's potential."""
    f = vector.to_matrix(frame)
    if not _constant(f, t):
        return None
    for origin in _bases(point, frame, velocity_map):
        V = _from(origin, point, vector, f, frame, velocity_map, to_plain, q_syms, qd_syms, t, rng)
        if V is not None:
            return V
    return None


def _from(origin, point, vector, f, frame, velocity_map, to_plain, q_syms, qd_syms, t, rng):
    """-f . r_P with r_P from ``origin``, or None where that is not the load's potential."""
    me = mechanics_module()
    try:
        r = point.pos_from(origin).to_matrix(frame).applyfunc(to_plain)
    except ValueError:  # not connected after all
        return None
    if any(me.find_dynamicsymbols(c) or t in c.free_symbols for c in r):
        return None  # a moving base: a potential that depends on time
    V = -(f.T * r)[0]
    # the force's power f . v_P (v_P as the KanesMethod sets it, in q') must be -dV/dt = -grad V . q' for
    # every q': then its generalized force f . dv_P/dq'_j is -dV/dq_j
    velocity = me.msubs(point.vel(frame), velocity_map) if velocity_map else point.vel(frame)
    power = to_plain(vector.dot(velocity))
    rate = sum((sp.diff(V, qi) * qdi for qi, qdi in zip(q_syms, qd_syms)), sp.S.Zero)
    symbols = sorted({s for e in (power, rate) for s in sp.sympify(e).free_symbols}, key=str)
    if t in symbols:
        return None
    scale = max(1.0, numeric_zero([power], symbols, rng))
    if numeric_zero([power + rate], symbols, rng) > 1e-9 * scale:
        return None
    return V


def _bases(point, frame, velocity_map: dict) -> list:
    """The points located (through ``set_pos``/``locatenew``) from ``point``, directly or through others:
    those whose velocity in ``frame`` is set to zero first, once the auxiliary speeds are (``velocity_map``:
    SymPy's u_auxiliary of a contact point's constraint force are zero in the motion), then the others in
    the order they were reached (module docstring), ``point`` itself last."""
    me = mechanics_module()
    seen, todo, reached = {point}, [point], []
    while todo:
        here = todo.pop(0)
        for other in here._pos_dict:
            if other not in seen:
                seen.add(other)
                todo.append(other)
                reached.append(other)

    def fixed(p) -> bool:
        velocity = p._vel_dict.get(frame)
        if velocity is not None and velocity != 0 and velocity_map:
            velocity = me.msubs(velocity, velocity_map)
        return velocity is not None and velocity == 0

    return sorted(reached, key=lambda p: not fixed(p)) + [point]
