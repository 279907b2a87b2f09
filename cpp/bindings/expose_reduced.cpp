// Reduced models on the slow manifold and the compiled slow-manifold coefficients.
#include <dlfcn.h>

#include <chrono>
#include <memory>

#include <pybind11/eigen.h>

#include "bindings.hpp"
#include "nonholo/models.hpp"
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
  m.def("reduced_model", &make_reduced_model, py::arg("system"), py::arg("order"), py::arg("compiled") = nullptr);
  m.def("reduced_frame_model", &make_reduced_frame_model, py::arg("frame"), py::arg("order"),
        py::arg("compiled") = nullptr);
  m.def("invariance_residual", [](std::shared_ptr<const MechanicalSystem> sys, int order, double t, py::handle q,
                                  py::handle u, py::handle p, std::shared_ptr<const CompiledSlip> compiled) {
    auto qv = as_vector(q, sys->n(), "q");
    auto uv = as_vector(u, sys->n(), "u");
    auto pv = as_vector(p, sys->n_params() + 1, "params (the system's, then eps)");
    return invariance_residual(*sys, compiled.get(), order, t, qv.data(), uv.data(), pv.data());
  }, py::arg("system"), py::arg("order"), py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"),
     py::arg("compiled") = nullptr,
     "s - eps Qmat (f - u' - s') for s = sum_{k<=order} eps^k h^(k) at (t, q, u), shape (n,).");

  // Timing helpers for benchmarks/slow_manifold_cost.py (no Python call overhead in the loop).
  m.def("seconds_per_rhs", [](const Model& model, double t, py::handle y, py::handle p, int repeats) {
    auto yv = as_vector(y, model.n_states(), "y");
    auto pv = as_vector(p, model.n_params(), "params");
    std::vector<double> f(model.n_states());
    auto ws = model.workspace();
    model.rhs(t, yv.data(), pv.data(), f.data(), *ws);  // sizes the workspace
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) model.rhs(t, yv.data(), pv.data(), f.data(), *ws);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
  }, py::arg("model"), py::arg("t"), py::arg("y"), py::arg("params"), py::arg("repeats"),
     "Mean wall time of one right-hand-side evaluation, over `repeats` calls with one workspace.");
  m.def("seconds_per_slip", [](std::shared_ptr<const MechanicalSystem> sys, int order, double t, py::handle q,
                               py::handle u, py::handle p, int repeats, std::shared_ptr<const CompiledSlip> compiled) {
    auto qv = as_vector(q, sys->n(), "q");
    auto uv = as_vector(u, sys->n(), "u");
    auto pv = as_vector(p, sys->n_params(), "params");
    SlowManifoldWork<double> w;
    MatX<double> coeffs;
    std::vector<double> in, out, work;
    auto once = [&] {
      if (compiled) compiled->evaluate(t, qv.data(), uv.data(), pv.data(), in, out, work);
      else slip_coefficients(*sys, t, qv.data(), uv.data(), pv.data(), order, w, coeffs);
    };
    once();
    const auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) once();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
  }, py::arg("system"), py::arg("order"), py::arg("t"), py::arg("q"), py::arg("u"), py::arg("params"),
     py::arg("repeats"), py::arg("compiled") = nullptr,
     "Mean wall time of h^(1..order) at a point: compiled tape when given, else Taylor mode.");

  // Heap allocations in `repeats` right-hand sides after a warm-up call, counted by a preloaded
  // allocator that exports `long nonholo_allocation_count()` (tests/test_reduced_allocations.py).
  m.def("allocations_in_rhs", [](const Model& model, double t, py::handle y, py::handle p, int repeats) {
    using Counter = long (*)();
    auto counter = reinterpret_cast<Counter>(dlsym(RTLD_DEFAULT, "nonholo_allocation_count"));
    if (counter == nullptr)
      throw py::value_error("no allocation counter loaded: preload a library exporting nonholo_allocation_count");
    auto yv = as_vector(y, model.n_states(), "y");
    auto pv = as_vector(p, model.n_params(), "params");
    std::vector<double> f(model.n_states());
    auto ws = model.workspace();
    model.rhs(t, yv.data(), pv.data(), f.data(), *ws);
    const long before = counter();
    for (int r = 0; r < repeats; ++r) model.rhs(t, yv.data(), pv.data(), f.data(), *ws);
    return counter() - before;
  }, py::arg("model"), py::arg("t"), py::arg("y"), py::arg("params"), py::arg("repeats"));
}
