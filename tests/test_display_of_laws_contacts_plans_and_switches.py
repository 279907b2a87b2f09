"""What results, models, plans and systems show: the plots, animations, titles, labels, summaries and
LaTeX of runs of friction-law models, per-contact outputs, failed and empty runs, optimal-control
plans, rolling bodies, frame re-splits and stick-slip runs (each a case a tester found wrong)."""

import re
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import sympy as sp  # noqa: E402

import nonholo as nh  # noqa: E402
from nonholo.viz.animation import Animation  # noqa: E402

Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _sleigh(name="user sleigh"):
    x, y, phi, m, I, a = sp.symbols("x y phi m I a")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                     parameters={m: 1.0, I: 1.0, a: 0.2}, name=name)


@pytest.fixture(scope="module")
def sleigh():
    return _sleigh()


def _cart():
    from nonholo.bodies import RigidBody
    from nonholo.contact import Disc
    from nonholo.multibody import Mechanism, Revolute

    mech = Mechanism(RigidBody(5.0, (0.2, 0.1, 0.25), (0.0, 0.08, -0.1)), "chassis")
    for side, s in (("left", 1), ("right", -1)):
        mech.add(side, RigidBody(0.5, (0.005, 0.01, 0.005)), "chassis",
                 Revolute("y", (0, s * 0.3, 0), f"theta_{side[0]}"))
        mech.roll_on_plane(side, Disc(0.2, axis=(0, 1, 0)))
    return mech.system(gravity=9.81)


@pytest.fixture(scope="module")
def cart():
    return _cart()


# ------------------------------------------------------------------ friction-law models
def test_a_law_reduced_run_has_its_velocities_and_plots(sleigh):
    """Before: result.v and result.plot() raised AttributeError (no n_velocities) for every
    system.reduced(law=...) run."""
    model = sleigh.reduced(law=nh.laws.Coulomb(0.5, v_s=0.01), normal=9.81, order=1)
    assert model.n_velocities == 3
    r = nh.simulate(model, (0, 1), Y0, t_eval=np.linspace(0, 1, 11))
    assert r.v.shape == (3, 11) and np.array_equal(r.v, r.y[3:6])
    axes = r.plot()
    assert [[line.get_label() for line in ax.lines] for ax in axes] == [["x", "y", "phi"], ["u_x", "u_y", "u_phi"]]
    assert np.array_equal(axes[1].lines[2].get_ydata(), r["u_phi"])
    assert axes[0].get_title() == "user sleigh: reduced (coulomb law) of order 1"  # as the notebook display
    assert "reduced (coulomb law) of order 1" in r._repr_html_()
    assert "law (C++)" not in repr(model) and "coulomb law, scale" in repr(model)


def test_a_law_friction_model_is_labelled_for_what_it_is(sleigh):
    """Before: system.friction(law=...) was labelled 'nonholonomic' in its repr, the result's HTML,
    its plot's title and its exports."""
    model = sleigh.friction(law=nh.laws.Coulomb(0.5, v_s=0.01), normal=9.81)
    assert model.kind == "nonholonomic"  # the behaviour: the nonholonomic model of the realized system
    assert model.label == "friction (coulomb law)" and "Model friction (coulomb law) of" in repr(model)
    assert sleigh.friction(0.01).label == "friction" and sleigh.nonholonomic().label == "nonholonomic"
    r = nh.simulate(model, (0, 0.5), Y0, t_eval=np.linspace(0, 0.5, 6))
    assert "friction (coulomb law)" in r._repr_html_() and "nonholonomic" not in r._repr_html_()
    assert r.plot()[0].get_title().endswith(": friction (coulomb law)")
    assert r._metadata()["model"] == "friction (coulomb law)"
    assert nh.simulate(sleigh.nonholonomic(), (0, 0.5), Y0)._metadata()["model"] == "nonholonomic"


# ------------------------------------------------------------------ per-contact outputs
def test_a_per_contact_output_plots_one_labelled_line_per_contact(cart):
    """Before: result.plot(["normal_force"]) of a two-wheel cart (shape (2, n_t)) raised matplotlib's
    ValueError."""
    from nonholo.multibody import assemble

    y0 = assemble(cart, np.zeros(7), np.r_[0, 0, 0, 0, 0, 3.0, -2.0], dependent=["roll"],
                  free=["pitch_dot", "theta_l_dot", "theta_r_dot"])
    r = nh.simulate(cart.nonholonomic(), (0, 0.5), y0, t_eval=np.linspace(0, 0.5, 11))
    N = r["normal_force"]
    assert N.shape == (2, 11)
    ax = r.plot(["normal_force", "x"])
    assert [line.get_label() for line in ax.lines] == ["normal_force[left]", "normal_force[right]", "x"]
    assert np.array_equal(ax.lines[0].get_ydata(), N[0]) and np.array_equal(ax.lines[1].get_ydata(), N[1])
    assert np.array_equal(ax.lines[0].get_xdata(), r.t)


def test_the_latex_of_a_mechanism_shows_its_holonomic_constraint(cart):
    """Before: h(q) = 0 (the cart's roll, -0.6 sin(roll) = 0) never appeared in the LaTeX."""
    tex = cart._repr_latex_()
    (h,) = cart.holonomic
    # roll, a word, reads as one (\mathrm), not as the product r o l l
    words = {s: rf"\mathrm{{{s.name}}}" for s in h.free_symbols}
    assert r"\text{holonomic 1:}\quad " + sp.latex(h, symbol_names=words) + " &= 0" in tex


# ------------------------------------------------------------------ animations
def test_frames_are_spread_over_time_not_over_output_indices(sleigh):
    """Before: with t_eval=None a 10 s friction run put 4 of 10 frames in its first 0.034 s."""
    r = nh.simulate(sleigh.friction(1e-3), (0, 10), [0, 0, 0, -1.5, 1.0, 1.0])
    assert r.t.size > 100 and np.sum(r.t < 0.05) > 10  # most outputs early: the fast transient
    draw = nh.drawing.Drawing(lambda q, t, p: [nh.drawing.dot(q[:2])], trace=lambda q, t, p: [q[:2]])
    anim = r.animate(draw, frames=10)
    target = np.linspace(0, 10, 10)
    assert anim.n_frames == 10 and set(anim.t) <= set(r.t)
    gaps = np.diff(r.t)
    assert np.all(np.abs(anim.t - target) <= gaps.max())  # the nearest output of each evenly spaced time
    assert np.abs(anim.t - target).max() < 0.7


def test_frames_of_a_dense_run_are_interpolated_at_evenly_spaced_times(sleigh):
    r = nh.simulate(sleigh.nonholonomic(), (0, 2), Y0, t_eval=[0.0, 0.7, 2.0], dense_output=True)
    anim = r.animate(lambda q, t, p: [nh.drawing.dot(q[:2])], frames=5)
    assert np.allclose(anim.t, np.linspace(0, 2, 5)) and anim.n_frames == 5
    ax = anim._fig.axes[0]
    anim._func(3)
    dot = ax.lines[0]
    assert np.allclose([dot.get_xdata()[0], dot.get_ydata()[0]], r.sol(1.5)[:2], atol=1e-12)


def test_a_failed_run_says_so_in_its_animation(sleigh):
    """Before: a failed run's animation showed only 't = 6.4'."""
    with pytest.warns(nh.SimulationWarning):
        r = nh.simulate(sleigh.nonholonomic(), (0, 10), Y0, t_eval=np.linspace(0, 10, 101), max_steps=30)
    assert not r.success
    anim = r.animate(lambda q, t, p: [nh.drawing.dot(q[:2])], frames=5)
    anim._func(4)
    title = anim._fig.axes[0].get_title()
    assert title.startswith(f"t = {anim.t[-1]:.3g}") and "failed" in title and r.flag_name in title
    assert f"{r.t_last:g}" in title


def test_a_run_without_samples_says_where_its_final_state_is(sleigh):
    """Before: a t_eval=[] run's plot showed empty axes under a success title."""
    r = nh.simulate(sleigh.nonholonomic(), (0, 2), Y0, t_eval=[])
    axes = r.plot()
    assert "no samples stored" in axes[0].get_title() and "y_final" in axes[0].get_title()
    x = axes[0].lines[0]
    assert x.get_label() == "x" and list(x.get_xdata()) == [2.0] and list(x.get_ydata()) == [r.y_final[0]]


def test_a_rolling_body_is_drawn_at_its_own_size():
    """Before: the body axes of every roll_on_plane body were 1.0 long (a 0.1 m ball in a 1 m frame)."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.004), nh.contact.Sphere(0.1))
    egg = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.diag([0.002, 0.003, 0.004])),
                                   nh.contact.Ellipsoid(0.1, 0.08, 0.05))
    for body, size in ((ball, 0.1), (egg, 0.1)):
        y0 = nh.contact.rolling_state(body, [1, 0.1, 0.05, 0], [0.5, 0.2, 3.0])
        r = nh.simulate(body.nonholonomic(), (0, 0.2), y0, t_eval=np.linspace(0, 0.2, 3))
        anim = r.animate(frames=3)
        for line in anim._fig.axes[0].lines[:3]:  # the three body axes
            xs, ys, zs = line.get_data_3d()
            assert np.linalg.norm([xs[1] - xs[0], ys[1] - ys[0], zs[1] - zs[0]]) == pytest.approx(size)
    r_sym = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.004), nh.contact.Sphere(sp.Symbol("r")),
                                     parameters={"r": 0.2})
    assert nh.drawing.drawing_of(r_sym).radius == "r"  # the parameter: a run's params= resizes it


# ------------------------------------------------------------------ optimal-control plans
@pytest.fixture(scope="module")
def car_plan():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    return nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.0, 1.0, 0.5]).solve(nodes=20)


def test_a_plan_animates_as_results_do(car_plan):
    """Before: a bare FuncAnimation on a pyplot figure, which does not play inline in Jupyter."""
    anim = car_plan.animate(frames=4)
    assert isinstance(anim, Animation) and anim.n_frames == 4
    assert np.allclose(anim.t, np.linspace(0, car_plan.t_final, 4))
    assert anim._fig.axes[0].get_title() == "t = 0"
    assert "<script" in anim._repr_html_()  # plays inline in Jupyter (draws every frame)
    assert anim._fig.axes[0].get_title() == f"t = {car_plan.t_final:.3g}"


def test_a_plan_is_drawn_from_its_positions_by_name():
    """Before: a one-state plan raised IndexError and one with states ['theta', 'y'] was drawn as
    the positions (theta, y)."""
    s, u = sp.symbols("s u")
    one = nh.OptimalControlProblem(nh.KinematicSystem([s], [u], [u]), cost="energy", t_final=1.0, initial=[0.0],
                                   final=[1.0]).solve(nodes=8)
    with pytest.raises(ValueError, match=r"named 'x' and 'y'.*\['s'\].*pass x= and y="):
        one.animate(frames=3)
    y, th, v, w = sp.symbols("y theta v w")
    plan = nh.OptimalControlProblem(nh.KinematicSystem([th, y], [v, w], [w, v]), cost="energy", t_final=1.0,
                                    initial=[0.0, 0.0], final=[1.0, 1.0]).solve(nodes=8)
    with pytest.raises(ValueError, match=r"\['theta', 'y'\]"):
        plan.animate(frames=3)
    with pytest.raises(ValueError, match="x='z' is not a state"):
        plan.animate(frames=3, x="z", y="y")
    anim = plan.animate(frames=3, x="theta", y="y", heading=None)  # asked for: theta as the abscissa
    ax = anim._fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("theta", "y")
    assert len(ax.lines[2].get_xdata()) == 0  # no heading: theta is the position here


def test_a_failed_plan_says_so_in_its_animation():
    """Before: a failed plan animated under an empty title."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    bad = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.0, 1.0, 0.5]).solve(
        nodes=20, max_iter=2)
    assert not bad.success
    anim = bad.animate(frames=3)
    anim._func(1)
    title = anim._fig.axes[0].get_title()
    assert "the plan failed" in title and bad.message[:20] in title


# ------------------------------------------------------------------ the system's LaTeX
def test_the_latex_shows_unit_norm_groups_and_omits_a_float_identity_friction():
    """Before: unit-norm groups were not shown and mu = 1.0 I (every roll_on_plane body) was shown
    as diag(1.0, 1.0)."""
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.004), nh.contact.Sphere(0.1))
    tex = ball._repr_latex_()
    assert r"\text{unit norm:}\quad \left\lVert \left(q_{0}, q_{1}, q_{2}, q_{3}\right) \right\rVert &= 1" in tex
    assert r"\mu(q)" not in tex
    x, y = sp.symbols("x y")
    one, two = (nh.System([x, y], sp.eye(2), constraints=sp.Matrix([[1, 0]]), friction=sp.Matrix([[mu]]))
                for mu in (1.0, 2.0))
    assert r"\mu(q)" not in one._repr_latex_() and r"\mu(q) &= \left[\begin{matrix}2.0" in two._repr_latex_()


def test_the_latex_keeps_every_character_of_the_name():
    """Before: 'my_sleigh<&>' showed as 'my sleigh   '."""
    tex = _sleigh("my_sleigh<&>")._repr_latex_()
    first = tex.splitlines()[1]
    assert first.startswith(r"&\textbf{my}\_\textbf{sleigh}<\&>\quad q = ")


def test_the_latex_measures_a_large_expression_before_typesetting_it(monkeypatch):
    """Before: the egg's LaTeX typeset its 250 000-character metric and Lagrangian (3.7 s) only to
    replace them by 'see system.metric'."""
    egg = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.diag([0.002, 0.003, 0.004])),
                                   nh.contact.Ellipsoid(0.1, 0.08, 0.05), name="egg")
    sizes = []
    latex = sp.latex

    def measured(expr, **kwargs):
        out = latex(expr, **kwargs)
        sizes.append(len(out))
        return out

    monkeypatch.setattr(sp, "latex", measured)
    start = time.perf_counter()
    tex = egg._repr_latex_()
    assert max(sizes) < 60000, "a large expression was typeset before it was measured"
    assert re.search(r"L = .* &= \\text\{\(too large to show: see system\.metric\)\}", tex)
    assert r"G(q) &= \text{(too large to show: see system.metric)}" in tex
    assert time.perf_counter() - start < 30  # (3.7 s before, 0.25 s after; generous under load)


# ------------------------------------------------------------------ frame re-splits and stick-slip
def test_a_frame_plot_marks_its_re_splits(sleigh):
    """Before: the Hamel sleigh's v1 was drawn as one line through the re-split's jump, unmarked."""
    r = nh.simulate(nh.frames.AnholonomicFrame(sleigh).hamel(), (0, 3), Y0, t_eval=np.linspace(0, 3, 31))
    assert r.frame_switches
    axes = r.plot()
    for ax in axes:
        marks = [line for line in ax.lines if np.ptp(line.get_xdata()) == 0]
        assert [float(m.get_xdata()[0]) for m in marks] == [t for t, _ in r.frame_switches]
        assert "frame re-split: quasi-velocities change meaning" in ax.get_legend_handles_labels()[1]
    assert "quasi-velocities change meaning" in axes[0].get_title()


@pytest.fixture(scope="module")
def stick_slip_run():
    ball = nh.contact.roll_on_plane(nh.bodies.RigidBody(1.0, np.eye(3) * 0.4 * 0.1**2), nh.contact.Sphere(0.1))
    y0 = np.r_[0, 0, 1, 0, 0, 0, 3.0, 0, 0, 0, 0, 0]
    return nh.simulate(ball.stick_slip(0.2, normal=9.81), (0, 1), y0, t_eval=np.linspace(0, 1, 11), rtol=1e-10,
                       atol=1e-12)


def test_a_stick_slip_run_has_a_short_summary(stick_slip_run):
    """Before: a 3 374-character dataclass dump in Jupyter, no _repr_html_."""
    run = stick_slip_run
    text = repr(run)
    assert len(text) < 800 and text.startswith("StickSlipResult(")
    t_switch = run.switches[0][0]
    assert "modes: slip -> stick (2 phases)" in text and f"slip -> stick at t = {t_switch:.6g}" in text
    page = run._repr_html_()
    assert len(page) < 2000 and "success" in page and "switches" in page and "slip -&gt; stick" in page


def test_a_stick_slip_run_plots_its_states_with_the_switches_marked(stick_slip_run):
    run = stick_slip_run
    axes = run.plot()
    t_switch = run.switches[0][0]
    assert [line.get_label() for line in axes[1].lines][:2] == ["x_dot", "y_dot"]
    assert np.array_equal(axes[1].lines[0].get_ydata(), run["x_dot"])
    for ax in axes:
        (mark,) = [line for line in ax.lines if line.get_label() == "switch slip -> stick"]
        assert list(mark.get_xdata()) == [t_switch, t_switch]
    assert "stick-slip" in axes[0].get_title() and "1 switch" in axes[0].get_title()


def test_a_problem_says_what_it_is():
    """An OptimalControlProblem's repr names its cost, duration, states, controls and ends (it was the
    default <... object at 0x...>); a free end shows as None."""
    car = nh.systems.kinematic_car(turning_radius=1.0)
    problem = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[4.0, 1.0, None])
    assert repr(problem) == ("OptimalControlProblem(cost='time', t_final in (1e-08, inf), states ['x', 'y', 'theta'], "
                             "controls ['v', 'kappa'], initial=[0.0, 0.0, 0.0], final=[4.0, 1.0, None])")
    v = car.controls[0]
    fixed = nh.OptimalControlProblem(car, cost=v**2, t_final=2.0, initial=[0, 0, 0], final=[1, 0, 0])
    assert repr(fixed).startswith("OptimalControlProblem(cost='v**2', t_final=2, ")
    long = nh.OptimalControlProblem(car, cost=sum((v + i) ** 2 for i in range(20)), t_final=2.0, initial=[0, 0, 0],
                                    final=[1, 0, 0])
    shown = repr(long).split("cost=")[1].split(", t_final")[0]  # cut whole, with its closing quote (it was cut
    assert shown.endswith(" ...'") and len(shown) <= 82, shown  # at 80 characters of the repr, quote and all)


@pytest.mark.parametrize("name", ["price $5 and $6", r"budget $\frac$ sled", "sleigh"])
def test_a_system_name_with_dollars_is_drawn_as_text(tmp_path, name):
    """result.plot()'s title read a name's dollars as matplotlib's math: "price $5 and $6" lost them,
    and r"$\\frac$" made savefig raise (no figure in a notebook). The name is drawn as written."""
    x, y, th = sp.symbols("x y theta")
    system = nh.System([x, y, th], sp.eye(3), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]), name=name)
    run = nh.simulate(system.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0.5])
    ax = run.plot()
    fig = ax[0].figure if hasattr(ax, "__len__") else ax.figure
    fig.savefig(tmp_path / "run.png")
    title = (ax[0] if hasattr(ax, "__len__") else ax).get_title()
    assert title.replace("\\$", "$").startswith(f"{name}: "), title
    plt.close(fig)


def test_a_runs_display_names_its_method_and_sensitivities(sleigh):
    """The notebook display showed neither the method that ran (auto's choice) nor the parameters of
    the sensitivities computed; both are rows now (the default run: DOP853, no sensitivities)."""
    default = nh.simulate(sleigh.nonholonomic(), (0, 1), Y0)._repr_html_()
    assert "<td style='text-align:left'>method</td><td style='text-align:left'>dop853 (auto:" in default
    assert ">sensitivities<" not in default
    run = nh.simulate(sleigh.nonholonomic(), (0, 1), Y0, sensitivities=["a"])
    assert "<td style='text-align:left'>sensitivities</td><td style='text-align:left'>a</td>" in run._repr_html_()
    assert f">{run.method} (" in run._repr_html_()


def test_an_eigenvalue_path_reads_short():
    """The dataclass's repr printed every eigenvalue of the path (23 kB for 199 values); it summarises
    the path (the sleigh moving straight: stable where the contact is behind the centre, a >= 0)."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    path = nh.eigenvalue_path(model, "a", np.linspace(-0.2, 0.2, 199), [0, 0, 0, 1.0, 0, 0])
    assert repr(path) == ("EigenvaluePath(parameter='a', 199 values in [-0.2, 0.2], 5 modes (1 physical), "
                          "stable at 100 of 199)")


def test_a_linearization_names_its_cyclic_coordinates():
    """The repr listed "cyclic x1; cyclic x1" without the coordinates; each cyclic mode names its own."""
    lin = nh.linearize(nh.systems.chaplygin_sleigh().nonholonomic(), [0, 0, 0, 1.5, 0, 0])
    assert "zero modes: cyclic x1 (x); cyclic x1 (y); conserved x1; family x1;" in repr(lin)
    assert [z.coordinate for z in lin.zero_modes] == ["x", "y", None, None]


def test_a_symbol_name_with_an_ampersand_stays_in_its_column_of_the_latex():
    """SymPy's LaTeX keeps a name's '&', the aligned block's column separator: G = diag(1, 1, k&1) showed
    a fourth column. Escaped in every place the name appears; a plain name (the default) is unchanged."""
    x, y, th = sp.symbols("x y theta")
    k = sp.Symbol("k&1")
    system = nh.System([x, y, th], sp.diag(1, 1, k), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                       parameters={k: 2.0})
    tex = system._repr_latex_()
    assert r"0 & 0 & k\&1\end{matrix}" in tex and r"k\&1 = 2" in tex and "k&1" not in tex
    plain = nh.System([x, y, th], sp.diag(1, 1, sp.Symbol("k")), constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                      parameters={sp.Symbol("k"): 2.0})
    assert r"0 & 0 & k\end{matrix}" in plain._repr_latex_()


def test_a_shown_parameter_is_never_rounded():
    """A parameter with more than six significant digits was shown as :g rounds it (I=0.123457 for
    0.1234567, a=1.23457e+07): every display shows the text that reads back as the value, and keeps the
    short form where that one does (m=1, a=0.2)."""
    from nonholo.numerics import number_text

    for value in (1.0, 0.2, 9.81, 1e-5, 1200.0, 0.1234567, 12345678.0, 1 / 3, -2.5e-12, 1e300):
        assert float(number_text(value)) == value
    assert number_text(1.0) == "1" and number_text(0.2) == "0.2" and number_text(12345678.0) == "12345678"
    x, y, phi, m, I, a = sp.symbols("x y phi m I a")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    system = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                       parameters={m: 1.0, I: 0.1234567, a: 0.2}, name="precise sleigh")
    assert "I=0.1234567," in repr(system) and "m=1," in repr(system)
    assert "I = 0.1234567" in system._repr_latex_()
    run = nh.simulate(system.nonholonomic(), (0, 1), Y0, params={"a": 0.2000001})
    assert "a=0.2000001" in repr(run) + run._repr_html_()
    assert "eps=1.2345678e-05" in repr(system.friction(1.2345678e-5))
