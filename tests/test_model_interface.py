"""The C++ Model interface stays small (issue 42): what every model is (sizes, right-hand side,
Jacobian, workspace, the check of a state) in at most 12 virtual methods of cpp/include/nonholo/model.hpp;
every other role is a part (model_parts.hpp) that a model has or lacks, asked for through
Model::parts(), never a flag paired with a method.

Checked: the count of virtual methods in the class body of Model (parsed from the header, the
destructor counted too), that no paired flag of the old interface is declared there again, and
through the binding that each model kind reports the parts it has."""

import re
from pathlib import Path

import numpy as np
import pytest

import nonholo as nh

ROOT = Path(__file__).resolve().parents[1]
MAX_VIRTUAL_METHODS = 12


def class_body(source: str, name: str) -> str:
    """The text between the braces of `class name {` (nested braces balanced)."""
    match = re.search(rf"\bclass\s+{name}\s*(?::[^{{;]*)?\{{", source)
    assert match, f"class {name} not found"
    depth, i = 1, match.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[match.end(): i - 1]


def strip_comments(source: str) -> str:
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)


def virtual_methods(name: str) -> list[str]:
    body = strip_comments(class_body((ROOT / "cpp/include/nonholo/model.hpp").read_text(), name))
    return re.findall(r"\bvirtual\b[^;{(]*?([~\w]+)\s*\(", body)


def test_model_has_at_most_twelve_virtual_methods():
    methods = virtual_methods("Model")
    assert len(methods) == len(set(methods)), methods
    assert "~Model" in methods  # the parser sees the whole class (its destructor is virtual)
    assert 5 <= len(methods) <= MAX_VIRTUAL_METHODS, methods


def test_paired_flags_are_gone():
    methods = set(virtual_methods("Model"))
    for flag in ("constrained", "sparse", "watches_frame", "fusable", "jacobian_structure", "frame_check",
                 "project", "constraint_residual", "rhs_tapes", "jacobian_cost", "rhs_cost_ns"):
        assert flag not in methods


def test_class_body_parser_counts_what_it_reads():
    # the parser on a class written here: comments, defaults, pure and non-virtual members
    source = """class Model : public Base {
     public:
      virtual ~Model() = default;
      // virtual int commented_out() const;
      virtual int a() const = 0;
      virtual std::vector<int> b(int x) const { if (x) { return {}; } return {1}; }
      int c() const { return 1; }
    };"""
    body = strip_comments(class_body(source, "Model"))
    assert re.findall(r"\bvirtual\b[^;{(]*?([~\w]+)\s*\(", body) == ["~Model", "a", "b"]


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh()


def test_parts_reported_by_each_kind(sleigh):
    nonholonomic, friction = sleigh.nonholonomic(), sleigh.friction(1e-3)
    assert nonholonomic.core.constrained and not friction.core.constrained
    assert not nonholonomic.core.sparse and not friction.core.sparse
    assert nonholonomic.core.fusable and friction.core.fusable
    assert nonholonomic.core.jacobian_colors == -1
    # a model without a constraint set measures no drift and corrects nothing
    y = np.array([0.1, 0.2, 0.3, 1.0, 0.5, 0.2])
    p = friction.param_vector()
    assert friction.core.constraint_residual(0.0, y, p) == (0.0, 1.0)
    assert np.array_equal(friction.core.project(0.0, y, p), np.zeros(6))
    # one with it measures A v - b and projects onto the set
    r, scale = nonholonomic.core.constraint_residual(0.0, y, nonholonomic.param_vector())
    assert r > 1e-3 and scale > 0
    corrected = y + nonholonomic.core.project(0.0, y, nonholonomic.param_vector())
    assert nonholonomic.core.constraint_residual(0.0, corrected, nonholonomic.param_vector())[0] < 1e-12
    # every model prices itself; the implicit Jacobian is priced where the model has one
    assert friction.core.jacobian_cost > 0 and np.isfinite(friction.core.implicit_jacobian_cost)
    assert np.isnan(sleigh.vakonomic().core.implicit_jacobian_cost)
    assert sleigh.vakonomic().core.jacobian_implicit(0.0, np.r_[y, 0.0], sleigh.vakonomic().param_vector()) is None


# Each model kind's equations are written once (issue 42, item 2): FrictionEquations and
# NonholonomicEquations (cpp/include/nonholo/models/<kind>.hpp), which the dense models and the
# sparse backend both solve. A backend holds products, factorizations and the Jacobian's
# structure only: no friction force, no law, no eps, no branch on the kind.
BACKEND_FILES = ["cpp/include/nonholo/models/algebra.hpp", "cpp/include/nonholo/models/sparse_backend.hpp",
                 "cpp/src/models/sparse_backend.cpp", "cpp/include/nonholo/sparse_symmetric.hpp",
                 "cpp/src/sparse_symmetric.cpp", "cpp/include/nonholo/sparse_structure.hpp",
                 "cpp/src/sparse_structure.cpp"]
KIND_WORDS = r"\w*(?:[Ff]riction|[Nn]onholonomic|[Ll]aw|eps|lambda|[Vv]akonomic|[Hh]amel|[Rr]educed)\w*"
# what a backend may say of the kinds: their Equations types (instantiated for the kinds with a sparse
# path, in the factory make_sparse_model(system, friction)), the headers that define them, the law they
# are compiled with, and the coefficients type a law reads (SparseRows for the sparse storage).
BACKEND_MAY_NAME = {"FrictionEquations", "NonholonomicEquations", "friction", "nonholonomic", "ViscousLaw",
                    "friction_law"}


def cpp_sources() -> dict:
    return {str(p.relative_to(ROOT)): strip_comments(p.read_text())
            for p in sorted((ROOT / "cpp").rglob("*.[ch]pp")) if "tests" not in p.parts}


def test_backends_hold_no_model_equations():
    for name in BACKEND_FILES:
        source = strip_comments((ROOT / name).read_text())
        assert not re.search(r"\.force\(|::force\(|LawInputs|law_scale|\blaw\.|\w*Law::", source), name
        assert set(re.findall(KIND_WORDS, source)) <= BACKEND_MAY_NAME, (name, re.findall(KIND_WORDS, source))
    # the factory is the one place the sparse backend meets a kind by name
    factory = strip_comments((ROOT / "cpp/src/models/sparse_backend.cpp").read_text())
    assert len(re.findall(r"\bfriction\b(?!\.hpp)", factory)) == 2  # its argument, and the branch on it


def test_the_friction_force_is_evaluated_in_one_place():
    # a law's force is called only by the friction model's equations (the law itself defines it)
    calls = {name: len(re.findall(r"\blaw_?\.force\(|\w+Law::force\(|\bLaw::force\(", source))
             for name, source in cpp_sources().items()}
    callers = {name: count for name, count in calls.items() if count}
    assert callers == {"cpp/include/nonholo/models/friction.hpp": 1}, callers
    for kind in ("FrictionEquations", "NonholonomicEquations"):
        defined = [name for name, source in cpp_sources().items() if re.search(rf"\bstruct\s+{kind}\b", source)]
        assert len(defined) == 1, (kind, defined)


def test_backend_models_report_their_kind_as_the_dense_ones():
    # the same Equations type gives the kind's name, own parameters and stiffness to both backends
    system = nh.testing.random_system(3, n=4, k=2)
    for dense, sparse in [(system.friction(1e-3, sparse=False), system.friction(1e-3, sparse=True)),
                          (system.nonholonomic(sparse=False), system.nonholonomic(sparse=True))]:
        assert sparse.sparse and not dense.sparse
        assert sparse.core.kind == dense.core.kind
        assert sparse.core.n_params == dense.core.n_params
        assert sparse.core.stiff == dense.core.stiff
        assert sparse.core.constrained == dense.core.constrained
        y = np.r_[np.linspace(0.1, 0.4, 4), system.project(np.linspace(0.1, 0.4, 4), np.array([1.0, -0.5, 0.3, 0.2]))]
        p = dense.param_vector()
        np.testing.assert_allclose(sparse.core.rhs(0.0, y, p), dense.core.rhs(0.0, y, p), rtol=1e-12, atol=1e-12)


def test_the_law_scale_is_read_by_name():
    # eps sits after the system's parameters; only law_scale.hpp indexes the parameter vector there
    # (p[sys.n_params()], p[n_system_params]); every other unit calls law_scale(p, n).
    positional = re.compile(r"\[\s*(?:\w+(?:\.|->))?n_params\(\)\s*\]|\[\s*n_system_params\s*\]")
    readers = {name for name, source in cpp_sources().items() if positional.search(strip_comments(source))}
    assert readers == {"cpp/include/nonholo/models/law_scale.hpp"}, readers
    # and the accessor reads what Python's param_vector appends: the friction model's eps
    system = nh.testing.random_system(2, n=4, k=2)
    y = np.r_[np.linspace(0.1, 0.4, 4), system.project(np.linspace(0.1, 0.4, 4), np.array([1.0, -0.5, 0.3, 0.2]))]
    overridden, own = system.friction(1e-3), system.friction(2e-3)
    np.testing.assert_array_equal(overridden.core.rhs(0.0, y, overridden.param_vector({"eps": 2e-3})),
                                  own.core.rhs(0.0, y, own.param_vector()))
    assert not np.array_equal(overridden.core.rhs(0.0, y, overridden.param_vector()),
                              own.core.rhs(0.0, y, own.param_vector()))
