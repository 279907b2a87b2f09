"""Stick-slip at the edge of the friction cone, for contacts whose slip does not answer a force along
the force: a leaning disc (its slip rows see different inertias) and a two-wheel cart turning while
its load falls. At the cone's edge the slide starts from zero slip, and its consistent direction is
the one opposite to the force the contact needed; the slip grows from zero like (t - t*)^2.

Before: the stuck phase's leftover slip (1e-9, in any direction) started the slide, the slip turned
and stopped at once, and the run chattered: the disc stalled at t* with 999 switches within 1e-8 s
("more than max_switches"), the cart switched 410 times. With the slide seeded by a slip the
integration resolves along that direction, both switch once. The cart's slide then met a second
fault: "auto" handed over to BDF where the slip was 1e-6, and the Jacobian taken there (stiffness
~ 1 / |s|) was kept while |s| grew 1e4-fold: the wheel spins ended 2.6e-3 off. A BDF run now takes a
new Jacobian once its step has grown tenfold past the kept one's.

The reference is the regularized Coulomb law, friction(law=Coulomb(mu, v_s)), which converges to the
stick-slip motion as v_s -> 0 (by about a factor 10 per decade of v_s here)."""

import numpy as np
import pytest

import nonholo as nh

G = 9.81


def leaning_disc():
    m, r = 1.0, 0.1
    disc = nh.contact.roll_on_plane(nh.bodies.RigidBody(m, np.diag([m * r**2 / 4, m * r**2 / 2, m * r**2 / 4])),
                                    nh.contact.Disc(r))
    return disc, nh.contact.rolling_state(disc, nh.bodies.quaternion_from_euler(0, 0, 0.1), [0, 5.0, 0])


def turning_cart():
    mc, mw, r, b = 2.0, 1.0, 0.3, 0.4
    mech = nh.multibody.Mechanism(nh.bodies.RigidBody(mc, np.diag([0.1, 0.1, 0.1])), name="axle")
    for side, sign in (("left", 1), ("right", -1)):
        mech.add(side, nh.bodies.RigidBody(mw, np.diag([mw * r**2 / 4, mw * r**2 / 2, mw * r**2 / 4])), "axle",
                 nh.multibody.Revolute("y", (0, sign * b, 0), f"theta_{side[0]}"))
        mech.roll_on_plane(side, nh.contact.Disc(r, axis=(0, 1, 0)))
    cart = mech.system(gravity=G)
    v, turn = 2.0, 1.0
    y0 = np.r_[np.zeros(7), v, 0, turn, 0, 0, (v - turn * b) / r, (v + turn * b) / r]
    load = f"{(mc + 2 * mw) * G / 2}*(1 - 0.5*t)"  # each wheel's, falling: the cart breaks away at 0.6408
    return cart, y0, [load, load]


def test_a_leaning_disc_breaks_away_once_and_slides_as_the_regularized_law():
    disc, y0 = leaning_disc()
    t = np.linspace(0, 0.6, 61)
    run = nh.simulate(disc.stick_slip(0.3, normal=G), (0, 0.6), y0, t_eval=t)
    assert run.status == 0 and len(run.switches) == 1
    (when, before, after), = run.switches
    assert (before, after) == ("stick", "slip") and abs(when - 0.29986478) < 1e-6
    law = nh.simulate(disc.friction(law=nh.laws.Coulomb(0.3, v_s=1e-6), normal=G), (0, 0.6), y0, t_eval=t,
                      rtol=1e-10, atol=1e-12)
    assert np.abs(law.y - run.y).max() < 1e-3  # 1.8e-4 (3.6e-3 at v_s = 1e-5)
    assert run["slip"][40] > 0.19  # sliding: 0.193 at t = 0.4


def test_a_turning_cart_whose_load_falls_breaks_away_once_and_slides_as_the_regularized_law():
    cart, y0, loads = turning_cart()
    t = np.linspace(0.6, 1.2, 7)
    run = nh.simulate(cart.stick_slip(0.3, normal=loads), (0, 1.2), y0, t_eval=t)
    assert run.status == 0 and [s[1:] for s in run.switches] == [("stick,stick", "slip,slip")]
    assert abs(run.switches[0][0] - 0.64084268) < 1e-6
    law = nh.simulate(cart.friction(law=nh.laws.Coulomb(0.3, v_s=1e-6), normal=loads), (0, 1.2), y0, t_eval=t,
                      rtol=1e-10, atol=1e-12)
    assert np.abs(law.y - run.y).max() < 2e-4  # 4e-5 (the wheel spins were 2.6e-3 off, 0.1 by t = 1.2)


def test_jacobian_step_growth_is_checked_and_off_by_default():
    """The slide phases set solver_options["jacobian_step_growth"] = 10; a user may too (> 1). By
    default a run asks for no Jacobian by step growth: the friction chain N = 16 keeps its Jacobian
    for the policy's reuse steps, bit for bit the fixed frequency's run (tests/test_jacobian_policy.py)."""
    sleigh = nh.systems.chaplygin_sleigh()
    for bad, error in ((1.0, ValueError), (0.5, ValueError), ("10", TypeError)):
        with pytest.raises(error, match="jacobian_step_growth"):
            nh.simulate(sleigh.friction(1e-3), (0, 1), [0, 0, 0, 1, 0, 0], solver_options={"jacobian_step_growth": bad})
    chain = nh.systems.knife_edge_chain(4)
    y0 = np.r_[np.zeros(chain.n), chain.project(np.zeros(chain.n), np.r_[1.0, np.zeros(chain.n - 1)])]
    default = nh.simulate(chain.friction(1e-4), (0, 2), y0, method="bdf")
    grown = nh.simulate(chain.friction(1e-4), (0, 2), y0, method="bdf", solver_options={"jacobian_step_growth": 10})
    assert grown.stats["n_jac"] >= default.stats["n_jac"]
    np.testing.assert_allclose(grown.y[:, -1], default.y[:, -1], atol=1e-6)
