// Reduced models on the slow manifold and the compiled slow-manifold coefficients.
#include <memory>
#include <string>

#include <pybind11/eigen.h>

#include "bindings.hpp"
#include "nonholo/models.hpp"
#include "nonholo/law_slow_manifold.hpp"
#include "nonholo/models/reduced.hpp"

using namespace nonholo;

void expose_reduced(py::module_& m) {
  py::class_<CompiledSlip, std::shared_ptr<CompiledSlip>>(
      m, "CompiledSlip", "h^(1..K) of a system compiled into one tape of (q, u, t, params).")
      .def(py::init([](std::shared_ptr<const MechanicalSystem> sys, int order, double t, py::handle q, py::handle u,
                       py::handle p, std::size_t max_nodes) {
             auto qv = as_vector(q, sys->n(), "q");
             auto uv = as_vector(u, sys->n(), "u");
             auto pv = as_vector(p, sys->n_params(), "params");
             return std::make_shared<CompiledSlip>(std::move(sys), order, t, qv.data(), uv.data(), pv.data(),
                                                   max_nodes);
           }),
           py::arg("system"), py::arg("order"), py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"),
           py::arg("max_nodes") = kMaxCompiledSlipNodes,
           "Traces the expansion at (t, q, u) (where G, M and mu are regular) and compiles it; ValueError when "
           "the graph would exceed max_nodes nodes.")
      .def_property_readonly("order", &CompiledSlip::order)
      .def_property_readonly("build_seconds", &CompiledSlip::build_seconds)
      .def_property_readonly("graph_nodes", &CompiledSlip::n_graph_nodes)
      .def_property_readonly("tape_instructions", [](const CompiledSlip& c) { return c.tape().n_instructions(); })
      .def("evaluate", [](const CompiledSlip& c, double t, py::handle q, py::handle u, py::handle p) {
        const int n = c.system().n();
        auto qv = as_vector(q, n, "q");
        auto uv = as_vector(u, n, "u");
        auto pv = as_vector(p, c.system().n_params(), "params");
        std::vector<double> in, out, work;
        c.evaluate(t, qv.data(), uv.data(), pv.data(), in, out, work);
        return to_numpy(out.data(), {c.order(), n});
      }, py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"),
         "h^(1..order) at (t, q, u), shape (order, n), from the compiled tape.");

  m.attr("max_slow_manifold_order") = kMaxSeriesDegree;
  m.attr("max_compiled_slip_order") = kMaxCompiledSlipOrder;
  m.attr("frame_resplit_growth") = FrameWatch::kResplitGrowth;
  m.attr("frame_singular_condition") = FrameWatch::kSingularCondition;
  m.attr("max_compiled_slip_nodes") = kMaxCompiledSlipNodes;
  m.def("reduced_model",
        [](std::shared_ptr<const MechanicalSystem> system, int order, std::shared_ptr<const CompiledSlip> compiled,
           std::shared_ptr<const LawExpansion> law) {
          return make_reduced_model(std::move(system), order, std::move(compiled), std::move(law));
        },
        py::arg("system"), py::arg("order"), py::arg("compiled") = nullptr, py::arg("law") = nullptr,
        "The reduced model of order K on the slow manifold of the viscous law (law None: parameters the "
        "system's, then eps) or of a friction law given by tapes (a LawExpansion: parameters the system's, the "
        "law carries its scale; compiled must be None).");
  m.def("reduced_frame_model",
        [](std::shared_ptr<const Frame> frame, int order, std::shared_ptr<const CompiledSlip> compiled) {
          return make_reduced_frame_model(std::move(frame), order, std::move(compiled));
        },
        py::arg("frame"), py::arg("order"), py::arg("compiled") = nullptr,
        "The viscous law's reduced model in the frame's quasi-velocities.");
  m.def("invariance_residual", [](std::shared_ptr<const MechanicalSystem> sys, int order, double t, py::handle q,
                                  py::handle u, py::handle p, std::shared_ptr<const CompiledSlip> compiled) {
    auto qv = as_vector(q, sys->n(), "q");
    auto uv = as_vector(u, sys->n(), "u");
    auto pv = as_vector(p, sys->n_params() + 1, "params (the system's, then eps)");
    return invariance_residual(*sys, compiled.get(), order, t, qv.data(), uv.data(), pv.data());
  }, py::arg("system"), py::arg("order"), py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"),
     py::arg("compiled") = nullptr,
     "s - eps Qmat (f - u' - s') for s = sum_{k<=order} eps^k h^(k) at (t, q, u), shape (n,).");
}
