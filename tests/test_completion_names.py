"""What Tab offers in IPython and Jupyter (an outside probe, reading only the docs): result["<Tab> offered
183 magics and file names and no state name, and nh.plot.<Tab> offered np, annotations and panels,
nh.studies.<Tab> a simulate that is not the documented one."""

import pytest

import nonholo as nh

NAMESPACES = ["plot", "studies", "laws", "frames", "contact", "multibody", "systems", "bodies", "surfaces"]


def test_a_result_completes_its_states_outputs_and_contact_quantities():
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    run = nh.simulate(model, (0, 1), [0, 0, 0, 1.0, 0, 0.5])
    names = run._ipython_key_completions_()
    assert names[:6] == model.state_names and {"slip", "friction_force"} <= set(names)
    assert "normal_force" not in names  # no load given: result["normal_force"] raises KeyError
    for name in names:  # each is a key the result takes
        assert run[name].shape[-1] == run.t.size


def test_a_plan_completes_its_states_and_controls():
    car = nh.systems.kinematic_car(turning_radius=1.0)
    plan = nh.OptimalControlProblem(car, cost="time", initial=[0, 0, 0], final=[2.0, 0.5, 0.0]).solve(nodes=21)
    assert plan._ipython_key_completions_() == ["x", "y", "theta", "v", "kappa"]
    assert all(plan[name].size == plan.t.size for name in plan._ipython_key_completions_())


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_a_namespace_lists_its_public_names_only(namespace):
    module = getattr(nh, namespace)
    listed = [name for name in dir(module) if not name.startswith("_")]
    assert listed == sorted(module.__all__) and all(hasattr(module, name) for name in listed)
    assert "np" not in listed and "annotations" not in listed


def test_a_rigid_body_shows_its_numbers_as_numbers():
    """An outside probe: RigidBody(mass=1.0, ...) printed mass=1.00000000000000 and 0.400000000000000 (SymPy's
    floats); a symbolic parameter stays an expression."""
    import sympy as sp

    assert repr(nh.bodies.RigidBody(mass=1.0, inertia=(0.4, 0.4, 0.4))) == \
        "RigidBody(mass=1, inertia=[[0.4, 0, 0], [0, 0.4, 0], [0, 0, 0.4]], com_offset=[0, 0, 0])"
    m = sp.Symbol("m")
    assert repr(nh.bodies.RigidBody(mass=m, inertia=(m / 2, m / 2, m), com_offset=(0, 0, 0.1))) == \
        "RigidBody(mass=m, inertia=[[m/2, 0, 0], [0, m/2, 0], [0, 0, m]], com_offset=[0, 0, 0.1])"


def test_a_name_of_several_letters_reads_as_one_in_latex():
    """An outside probe: the Heisenberg particle's parameter 'mass' rendered as the product m a s s."""
    import sympy as sp

    latex = nh.systems.heisenberg()._repr_latex_()
    assert r"\mathrm{mass}" in latex and "mass x" not in latex
    yaw, roll, k = sp.symbols("yaw roll k")
    latex = nh.System([yaw, roll], sp.diag(k, 1), parameters={k: 2.0})._repr_latex_()
    assert r"\dot{\mathrm{yaw}}" in latex and r"\mathrm{roll}" in latex and r"\mathrm{k}" not in latex
