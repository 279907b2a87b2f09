#include <memory>

#include "bindings.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/explicit_rk.hpp"
#include "nonholo/models.hpp"

using namespace nonholo;

namespace {

std::vector<double> params_of(const Model& model, py::handle p) { return as_vector(p, model.n_params(), "params"); }

// The Jacobian at (t, y) as an (n, n) array, by jacobian() or, if `dual`, by jacobian_dual().
enum class JacobianPath { Default, Dual, Implicit };

py::object jacobian_array(const Model& model, double t, py::handle y, py::handle p, JacobianPath path) {
  auto yv = as_vector(y, model.n_states(), "y");
  auto pv = params_of(model, p);
  const int n = model.n_states();
  std::vector<double> J(n * n);
  auto ws = model.workspace();
  const JacobianPaths* paths = model.jacobian_paths();  // none: jacobian() is the only way
  if (path == JacobianPath::Dual && paths != nullptr)
    paths->jacobian_dual(t, yv.data(), pv.data(), J.data(), *ws);
  else if (path == JacobianPath::Implicit) {
    if (paths == nullptr || !paths->implicit_jacobian(t, yv.data(), pv.data(), J.data(), *ws)) return py::none();
  } else
    model.jacobian(t, yv.data(), pv.data(), J.data(), *ws);
  py::array_t<double> out({n, n});
  auto o = out.mutable_unchecked<2>();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) o(i, j) = J[i + j * n];
  return out;
}

}  // namespace

void expose_models(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "Model", "A vector field y' = f(t, y; p) with its exact Jacobian.")
      .def_property_readonly("kind", &Model::kind)
      .def_property_readonly("n_states", &Model::n_states)
      .def_property_readonly("n_params", &Model::n_params)
      .def_property_readonly("stiff", &Model::stiff)
      .def_property_readonly("sparse", [](const Model& model) { return model.sparse_jacobian() != nullptr; },
                             "True for the sparse models (sparse L D L^T of G or [G, A^T; A, 0], sparse Jacobian)")
      .def_property_readonly("jacobian_colors", [](const Model& model) {
        const SparseJacobian* s = model.sparse_jacobian();
        return s ? s->jacobian_structure().n_colors : -1;
      }, "Directional derivatives per Jacobian of a sparse model (-1 for a dense one)")
      .def_property_readonly("jacobian_nonzeros", [](const Model& model) {
        const SparseJacobian* s = model.sparse_jacobian();
        return s ? s->jacobian_structure().nnz() : -1;
      }, "Stored entries of a sparse model's Newton matrix (-1 for a dense one)")
      .def_property_readonly("constrained", [](const Model& model) { return model.constraints() != nullptr; },
                             "True when the velocities must satisfy A(q) v = b(q, t) (the model has a constraint set)")
      .def_property_readonly("system", &Model::system_ptr)
      .def_property_readonly("rhs_tapes", [](const Model& model) { return tape_name_strings(model.compiled_tapes()); },
                             "The tapes one right-hand side evaluates in doubles (with the drift control's and, where "
                             "compiling it pays, the implicit Jacobian's), and the fused right-hand side 'rhs' once "
                             "fuse() has built it: what model.compile() builds by default.")
      .def_property_readonly("fusable", [](const Model& model) {
        const TapeSet* tapes = model.tapes();
        return tapes != nullptr && tapes->fusable();
      },
                             "True when the whole right-hand side can be traced into one tape (fuse()).")
      .def("fuse", [](const Model& model, py::handle p) {
        auto pv = params_of(model, p);
        bool fused;
        {
          py::gil_scoped_release release;
          fused = model.fuse(pv.data());
        }
        if (!fused) return py::object(py::none());
        const FusedRhs& f = *model.fused();
        py::dict out;
        out["graph_nodes"] = f.n_graph_nodes();
        out["instructions"] = f.tape().n_instructions();
        out["factorizations"] = f.n_guards();
        out["build_seconds"] = f.build_seconds();
        out["form"] = f.form();
        return py::object(out);
      }, py::arg("params"),
         "Trace the whole right-hand side (the system's tapes, factorizations and solves) into one tape, 'rhs', "
         "which rhs() evaluates once it is compiled (model.compile()); returns its size and build time, or None "
         "(nothing fused) when the graph exceeds the size where fusing pays.")
      .def("fused_applies", [](const Model& model, double t, py::handle y, py::handle p) {
        if (model.fused() == nullptr) throw nonholo::InputError("the model has no fused right-hand side (fuse() first)");
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        std::vector<double> f(model.n_states()), in, out, work;
        return model.fused()->eval(t, yv.data(), pv.data(), f.data(), in, out, work);
      }, py::arg("t"), py::arg("y"), py::arg("params"),
         "True when the fused right-hand side's tests pass at (t, y) (rhs() evaluates it there once compiled); "
         "False where the model's own evaluation runs instead.")
      .def_property_readonly("tape_names", [](const Model& model) { return tape_name_strings(model.tape_names()); },
                             "Every tape of the model by name: the system's, then the model's own ('slip', 'frame', "
                             "'frame_values').")
      .def("rhs", [](const Model& model, double t, py::handle y, py::handle p) {
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        std::vector<double> f(model.n_states());
        auto ws = model.workspace();
        model.rhs(t, yv.data(), pv.data(), f.data(), *ws);
        return to_numpy(f.data(), {model.n_states()});
      }, py::arg("t"), py::arg("y"), py::arg("params"))
      .def("project", [](const Model& model, double t, py::handle y, py::handle p) {
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        std::vector<double> corr(model.n_states());
        const ConstraintSet* constraints = model.constraints();
        if (constraints == nullptr) return to_numpy(corr.data(), {model.n_states()});
        auto ws = model.borrow_workspace();
        constraints->project(t, yv.data(), pv.data(), corr.data(), nullptr, nullptr, *ws);
        return to_numpy(corr.data(), {model.n_states()});
      }, py::arg("t"), py::arg("y"), py::arg("params"),
         "The correction onto the constraint set, G-orthogonal in the velocities (what DOP853's drift "
         "control adds); zero for unconstrained models.")
      .def("jacobian", [](const Model& model, double t, py::handle y, py::handle p) {
        return jacobian_array(model, t, y, p, JacobianPath::Default);
      }, py::arg("t"), py::arg("y"), py::arg("params"))
      .def("jacobian_dual", [](const Model& model, double t, py::handle y, py::handle p) {
        return jacobian_array(model, t, y, p, JacobianPath::Dual);
      }, py::arg("t"), py::arg("y"), py::arg("params"),
         "The Jacobian by dual numbers through the whole vector field (reference for jacobian).")
      .def("jacobian_implicit", [](const Model& model, double t, py::handle y, py::handle p) {
        return jacobian_array(model, t, y, p, JacobianPath::Implicit);
      }, py::arg("t"), py::arg("y"), py::arg("params"),
         "The Jacobian by implicit differentiation of the model's solves (friction and nonholonomic "
         "models; None for the others), whichever of the two jacobian uses.")
      .def_property_readonly("jacobian_cost", [](const Model& model) { return model.cost().jacobian_cost(); },
                             "Estimated cost of one Jacobian in right-hand sides (the refresh policy's input).")
      .def_property_readonly("measured_jacobian_cost",
                             [](const Model& model) { return model.measured_jacobian_cost(); },
                             "Measured cost of one Jacobian in right-hand sides, the refresh policy's input by default "
                             "(timed on the model's first BDF run and kept; NaN before).")
      .def("measure_jacobian_cost", [](const Model& model, double t, py::handle y, py::handle p) {
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        py::gil_scoped_release release;
        return model.measured_jacobian_cost(t, yv.data(), pv.data());
      }, py::arg("t"), py::arg("y"), py::arg("params"),
         "measured_jacobian_cost, timed at (t, y; params) unless a measurement is kept.")
      .def("keep_measured_jacobian_cost", &Model::keep_measured_jacobian_cost, py::arg("cost"),
           "Keeps cost as measured_jacobian_cost unless one is kept already (how an unpickled model takes its "
           "original's measurement, so that its BDF runs take the same steps). ValueError unless finite and positive.")
      .def_property_readonly("rhs_cost_ns", [](const Model& model) { return model.cost().rhs_cost_ns(); },
                             "Estimated cost of one right-hand side in nanoseconds of the machine the cost model "
                             "was fitted on (only ratios matter).")
      .def_property_readonly("explicit_rk_pays", &explicit_rk_pays,
                             "True when the explicit Runge-Kutta pair (method 'dop853') is expected to be faster "
                             "than Adams on this non-stiff model: a right-hand side costs at most "
                             "kExplicitRkStepRatio Adams steps' overhead (explicit_rk.hpp).")
      .def_property_readonly("dual_jacobian_cost", [](const Model& model) { return model.cost().dual_jacobian_cost(); },
                             "The same for jacobian_dual; jacobian uses implicit differentiation where that is estimated cheaper.")
      .def_property_readonly("implicit_jacobian_cost",
                             [](const Model& model) { return model.cost().implicit_jacobian_cost(); },
                             "The same for jacobian_implicit (NaN for models without one).")
      .def("constraint_residual", [](const Model& model, double t, py::handle y, py::handle p) -> std::pair<double, double> {
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        const ConstraintSet* constraints = model.constraints();
        if (constraints == nullptr) return {0.0, 1.0};  // nothing to drift from
        auto ws = model.borrow_workspace();
        double r, s;
        constraints->constraint_residual(t, yv.data(), pv.data(), *ws, &r, &s);
        return {r, s};
      }, py::arg("t"), py::arg("y"), py::arg("params"))
      .def("check_state", [](const Model& model, double t, py::handle y, py::handle p) {
        auto yv = as_vector(y, model.n_states(), "y");
        auto pv = params_of(model, p);
        auto ws = model.borrow_workspace();
        model.check_state(t, yv.data(), pv.data(), *ws);
      }, py::arg("t"), py::arg("y"), py::arg("params"));

  m.def("nonholonomic_model", &make_nonholonomic_model, py::arg("system"));
  m.def("vakonomic_model", &make_vakonomic_model, py::arg("system"));
  m.def("friction_model", &make_friction_model, py::arg("system"));
  m.def("sparse_model", &make_sparse_model, py::arg("system"), py::arg("friction"),
        "The nonholonomic (friction=False) or friction model over the sparse backend (models/sparse_backend.hpp).");
}
