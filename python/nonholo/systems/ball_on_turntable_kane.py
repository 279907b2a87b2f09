r"""The ball on a rotating table built with SymPy's KanesMethod, for ``System.from_kanes_method``.

Independent of :func:`nonholo.systems.ball_on_turntable` (quaternion attitude, q'-form): the
attitude is given by body-fixed ZXZ Euler angles (q1, q2, q3), singular where sin(q2) = 0; the
speeds are the spatial angular velocity (u1, u2, u3), independent, and the centre's velocity
(u4, u5) = (x', y'), dependent through the affine rolling constraint

    v_centre + omega x (-r e_z) = Omega e_z x (x, y)      (the contact point moves with the table),

so that ``from_kanes_method`` integrates it in (u1, u2, u3) with q' = X_D(q) u + w0(q).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["ball_on_turntable_kane"]


def ball_on_turntable_kane(time_dependent_table: bool = False) -> tuple:
    """(KanesMethod, parameter values {m, r, I, Omega}) of a ball (mass m, radius r, moment of
    inertia I about its centre) rolling on a table turning at the rate Omega about the origin
    (Omega (1 + t) with ``time_dependent_table``: a table spun up, whose velocity constraint
    depends on time)."""
    import sympy.physics.mechanics as me

    x, y, q1, q2, q3 = me.dynamicsymbols("x y q1 q2 q3")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    m, r, I, Om = sp.symbols("m r I Omega")
    N, B = me.ReferenceFrame("N"), me.ReferenceFrame("B")
    B.orient_body_fixed(N, (q1, q2, q3), "ZXZ")
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y + r * N.z)
    # q' from the spatial angular velocity, solved by hand: SymPy's solve of the ZXZ rates is right
    # but long, and KanesMethod differentiates it (the importer checks the result against B's orientation)
    s1, c1, s2, c2 = sp.sin(q1), sp.cos(q1), sp.sin(q2), sp.cos(q2)
    kd = [q1.diff() - (u3 - (u1 * s1 - u2 * c1) * c2 / s2), q2.diff() - (u1 * c1 + u2 * s1),
          q3.diff() - (u1 * s1 - u2 * c1) / s2, x.diff() - u4, y.diff() - u5]
    B.set_ang_vel(N, u1 * N.x + u2 * N.y + u3 * N.z)
    C.set_vel(N, u4 * N.x + u5 * N.y)
    rate = Om * (1 + me.dynamicsymbols._t) if time_dependent_table else Om
    slip = C.vel(N) + B.ang_vel_in(N).cross(-r * N.z) - rate * N.z.cross(x * N.x + y * N.y)
    km = me.KanesMethod(N, [x, y, q1, q2, q3], [u1, u2, u3], kd_eqs=kd, u_dependent=[u4, u5],
                        velocity_constraints=[slip.dot(N.x), slip.dot(N.y)])
    km.kanes_equations([me.RigidBody("ball", C, B, m, (me.inertia(N, I, I, I), C))], [])
    return km, {"m": 1.0, "r": 0.5, "I": 0.1, "Omega": 2.0}
