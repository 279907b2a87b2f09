"""SymPy's Whipple bicycle (built as sympy/physics/mechanics/tests/test_kane3.py builds it) through
System.from_kanes_method with the default check_kinematics.

The model builds the rear wheel's rolling into its kinematics (the rear contact point has zero
velocity, the wheel centre gets its velocity from v2pt_theory with the wheel's frame), the front
contact point's velocity is the one of the front wheel's material point there, and the wheel spins
u3, u6 have no coordinates. Oracle: the eigenvalues of the upright, straight motion at 5 m/s of
the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463, 2007, table 2).
"""

import numpy as np
import pytest
import sympy as sp
from sympy.physics import mechanics as me

import nonholo as nh
from nonholo.symbolic.mechanics import kane_qdot

# Meijaard et al. 2007, table 2 (v = 5 m/s): weave pair, capsize, castor.
BENCHMARK_EIGENVALUES_5MS = np.array([-14.07838969279822, -0.77534188219585 + 4.46486771378823j,
                                      -0.77534188219585 - 4.46486771378823j, -0.32286642900409])


def whipple_bicycle():
    """Frames, points, bodies, speeds and constraints as in SymPy's bicycle test (yaw q1, roll q2,
    pitch q4, steer q5; speeds u1..u6 with the wheel spins u3, u6; dependent u1, u4, u6 from the
    front contact's velocity)."""
    q1, q2, q4, q5 = me.dynamicsymbols("q1 q2 q4 q5")
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    names = ("WFrad WRrad htangle forkoffset forklength framelength forkcg1 forkcg3 framecg1 framecg3 Iwr11 Iwr22 "
             "Iwf11 Iwf22 Iframe11 Iframe22 Iframe33 Iframe31 Ifork11 Ifork22 Ifork33 Ifork31 g mframe mfork mwf mwr")
    p = dict(zip(names.split(), sp.symbols(names)))
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + p["htangle"], R.y])
    WR = me.ReferenceFrame("WR")
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-p["htangle"], Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-p["htangle"], Fork.y])
    WF = me.ReferenceFrame("WF")

    WR_cont = me.Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", p["WRrad"] * R.z)
    Steer = WR_mc.locatenew("Steer", p["framelength"] * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -p["framecg1"] * Frame.x + p["framecg3"] * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -p["forkcg1"] * Fork.x + p["forkcg3"] * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", p["forklength"] * Fork.x + p["forkoffset"] * Fork.z)
    WF_cont = WF_mc.locatenew("WF_cont", p["WFrad"] * (me.dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())

    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)

    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)

    bodies = [
        me.RigidBody("BodyFrame", Frame_mc, Frame, p["mframe"],
                     (me.inertia(TempFrame, p["Iframe11"], p["Iframe22"], p["Iframe33"], 0, 0, p["Iframe31"]), Frame_mc)),
        me.RigidBody("BodyFork", Fork_mc, Fork, p["mfork"],
                     (me.inertia(TempFork, p["Ifork11"], p["Ifork22"], p["Ifork33"], 0, 0, p["Ifork31"]), Fork_mc)),
        me.RigidBody("BodyWR", WR_mc, WR, p["mwr"], (me.inertia(Frame, p["Iwr11"], p["Iwr22"], p["Iwr11"]), WR_mc)),
        me.RigidBody("BodyWF", WF_mc, WF, p["mwf"], (me.inertia(Fork, p["Iwf11"], p["Iwf22"], p["Iwf11"]), WF_mc)),
    ]
    loads = [(Frame_mc, -p["mframe"] * p["g"] * Y.z), (Fork_mc, -p["mfork"] * p["g"] * Y.z),
             (WF_mc, -p["mwf"] * p["g"] * Y.z), (WR_mc, -p["mwr"] * p["g"] * Y.z)]
    km = me.KanesMethod(
        N, q_ind=[q1, q2, q5], q_dependent=[q4], configuration_constraints=[WF_cont.pos_from(WR_cont) & Y.z],
        u_ind=[u2, u3, u5], u_dependent=[u1, u4, u6],
        velocity_constraints=[WF_cont.vel(N) & Y.x, WF_cont.vel(N) & Y.y, WF_cont.vel(N) & Y.z],
        kd_eqs=[q1.diff() - u1, q2.diff() - u2, q4.diff() - u4, q5.diff() - u5], constraint_solver="CRAMER")
    km.kanes_equations(bodies, loads)
    return km, p


def benchmark_parameters(p):
    """The benchmark bicycle (Meijaard et al. 2007, table 1) in the model's geometry: the frame's x
    axis is the steer axis (tilted lambda from the vertical), z is normal to it in the plane of
    the bicycle; lengths are measured from the rear wheel centre along and across that axis."""
    w, c, lam, rR, rF = 1.02, 0.08, np.pi / 10, 0.3, 0.35
    along, across = np.array([np.sin(lam), -np.cos(lam)]), np.array([np.cos(lam), np.sin(lam)])  # (forward, up)
    rear = np.array([0.0, rR])
    framelength = (np.array([w + c, 0.0]) - rear) @ across  # rear wheel centre to the steer axis
    steer = rear + framelength * across
    front = np.array([w, rF]) - steer
    frame_cg, fork_cg = np.array([0.3, 0.9]) - rear, np.array([0.9, 0.7]) - steer
    return {
        p["WFrad"]: rF, p["WRrad"]: rR, p["htangle"]: np.pi / 2 - lam,
        p["forkoffset"]: front @ across, p["forklength"]: front @ along, p["framelength"]: framelength,
        p["forkcg1"]: -fork_cg @ along, p["forkcg3"]: fork_cg @ across,
        p["framecg1"]: -frame_cg @ along, p["framecg3"]: frame_cg @ across,
        p["Iwr11"]: 0.0603, p["Iwr22"]: 0.12, p["Iwf11"]: 0.1405, p["Iwf22"]: 0.28,
        # table 1 has z down; the model's products of inertia change sign
        p["Ifork11"]: 0.05892, p["Ifork22"]: 0.06, p["Ifork33"]: 0.00708, p["Ifork31"]: 0.00756,
        p["Iframe11"]: 9.2, p["Iframe22"]: 11.0, p["Iframe33"]: 2.8, p["Iframe31"]: -2.4,
        p["mfork"]: 4.0, p["mframe"]: 85.0, p["mwf"]: 3.0, p["mwr"]: 2.0, p["g"]: 9.81,
    }


@pytest.fixture(scope="module")
def bicycle():
    km, p = whipple_bicycle()
    values = benchmark_parameters(p)
    return km, values, nh.System.from_kanes_method(km, values, name="Whipple bicycle")


def test_bicycle_is_accepted_with_wheel_angles_as_auxiliary_coordinates(bicycle):
    km, values, system = bicycle
    assert system.coordinate_names == ["q1", "q2", "q5", "q4", "u3_integral", "u6_integral"]
    assert system.k == 3  # the front contact: two no-slip conditions and the normal velocity


def test_bicycle_upright_eigenvalues_match_the_benchmark(bicycle):
    """Linearized about upright straight running at 5 m/s, the nonholonomic model has the
    benchmark's four eigenvalues (weave, capsize, castor) to 1e-9 relative (the table's 14 digits); the other eight
    (yaw, the wheel angles, the pitch fixed by the contact, the directions off the constraints)
    are zero."""
    km, values, system = bicycle
    speed, rR, rF = 5.0, 0.3, 0.35
    q0 = np.zeros(6)
    u0 = np.array([0.0, speed / rR, 0.0, 0.0, 0.0, speed / rF])  # u_ind + u_dep = u2, u3, u5, u1, u4, u6
    y0 = np.r_[q0, kane_qdot(km, q0, u0, values)]
    model = system.nonholonomic()
    A, b = system.constraint_matrix(q0)
    assert np.abs(A @ y0[6:] - b).max() < 1e-14
    eig = np.linalg.eigvals(model.jacobian(0.0, y0))
    # zero eigenvalues in Jordan blocks of size 2 come out as +-sqrt(round-off), about 1e-8
    physical = np.sort_complex(eig[np.abs(eig) > 1e-3])
    assert physical.size == 4 and np.abs(eig[np.abs(eig) <= 1e-3]).max() < 1e-6
    expected = np.sort_complex(BENCHMARK_EIGENVALUES_5MS)
    assert np.abs(physical - expected).max() < 1e-9 * np.abs(expected).max()
