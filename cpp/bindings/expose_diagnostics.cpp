// nonholo._core.diagnostics: the bindings only the benchmarks and the tests use, not part of the
// package's API: timings of a model's evaluations in C++ (free of Python's call overhead), heap
// allocations in a right-hand side, the sizes of a tape's programs, and the explicit Runge-Kutta
// pair on its own.
#include <dlfcn.h>

#include <chrono>
#include <limits>
#include <memory>

#include "bindings.hpp"
#include "nonholo/explicit_rk.hpp"
#include "nonholo/integrator.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/model.hpp"
#include "nonholo/models.hpp"
#include "nonholo/models/reduced.hpp"

using namespace nonholo;

void expose_diagnostics(py::module_& core) {
  py::module_ m = core.def_submodule(
      "diagnostics", "Timings, allocation counts and tape sizes for the benchmarks and tests (not a public API).");
  m.def("time_evaluations", [](const Model& model, double t, py::handle y, py::handle p, int calls) {
    if (calls < 1) throw py::value_error("calls must be positive");
    auto yv = as_vector(y, model.n_states(), "y");
    auto pv = as_vector(p, model.n_params(), "params");
    const int n = model.n_states();
    std::vector<double> f(n), J(static_cast<std::size_t>(n) * n);
    auto ws = model.workspace();
    using clock = std::chrono::steady_clock;
    auto seconds_per_call = [&](auto&& call) {
      call();  // warm-up: sizes the workspace
      auto t0 = clock::now();
      for (int i = 0; i < calls; ++i) call();
      return std::chrono::duration<double>(clock::now() - t0).count() / calls;
    };
    double rhs = seconds_per_call([&] { model.rhs(t, yv.data(), pv.data(), f.data(), *ws); });
    double jac = seconds_per_call([&] { model.jacobian(t, yv.data(), pv.data(), J.data(), *ws); });
    // a model without other Jacobian paths (the sparse ones): jacobian() is its dual Jacobian
    const JacobianPaths* paths = model.jacobian_paths();
    double dual = paths ? seconds_per_call([&] { paths->jacobian_dual(t, yv.data(), pv.data(), J.data(), *ws); })
                        : seconds_per_call([&] { model.jacobian(t, yv.data(), pv.data(), J.data(), *ws); });
    double implicit = std::numeric_limits<double>::quiet_NaN();
    if (paths && paths->implicit_jacobian(t, yv.data(), pv.data(), J.data(), *ws))
      implicit = seconds_per_call([&] { paths->implicit_jacobian(t, yv.data(), pv.data(), J.data(), *ws); });
    return py::make_tuple(rhs, jac, dual, implicit);
  }, py::arg("model"), py::arg("t"), py::arg("y"), py::arg("params"), py::arg("calls"),
     "Seconds per call of rhs, jacobian, jacobian_dual and implicit_jacobian (NaN for models without "
     "one), measured in C++ over `calls` calls.");

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

  m.def("tape_size", [](const MechanicalSystem& owner, const std::string& which) {
    const Tape& t = tape_named(owner, which);
    return py::make_tuple(t.n_instructions(), t.n_outputs());
  }, py::arg("system"), py::arg("which"), "(instructions, outputs) of the tape `which`.");
  m.def("tape_size", [](const Model& owner, const std::string& which) {
    const Tape& t = tape_named(owner, which);
    return py::make_tuple(t.n_instructions(), t.n_outputs());
  }, py::arg("model"), py::arg("which"), "(instructions, outputs) of the tape `which`.");
  m.def("tape_program", [](const MechanicalSystem& sys, const std::string& which) {
    const Tape& t = tape_named(sys, which);
    return py::make_tuple(t.n_interpreted(), t.n_runs(), t.n_work());
  }, py::arg("system"), py::arg("which"),
     "(operations after fusion, runs of one kind, work slots) of the interpreter's program for the tape `which`.");

  // The explicit Runge-Kutta pair alone (explicit_rk.hpp): integrate() with method "dop853", no drift
  // control, y0 unchecked; for benchmarks/reduced_rk.py.
  m.def("integrate_dop853",
        [](const Model& model, py::handle params, double t0, double tf, py::handle y0, py::handle t_eval, double rtol,
           double atol, long max_steps) {
          IntegrationOptions opts;
          opts.method = Method::Dop853;
          opts.rtol = rtol;
          opts.atol = {atol};
          opts.max_steps = max_steps;
          opts.project = false;
          opts.check_initial_state = false;
          auto p = as_vector(params, model.n_params(), "params");
          auto y = as_vector(y0, model.n_states(), "y0");
          auto te = t_eval.is_none() ? std::vector<double>{} : as_vector(t_eval, -1, "t_eval");
          SimulationOutput out;
          {
            py::gil_scoped_release release;
            out = integrate(model, p, t0, tf, y, te, {}, opts);
          }
          const auto nt = static_cast<py::ssize_t>(out.t.size());
          py::array_t<double> ys({nt, static_cast<py::ssize_t>(model.n_states())});
          std::copy(out.y.begin(), out.y.end(), ys.mutable_data());
          py::dict d;
          d["t"] = py::array_t<double>(nt, out.t.data());
          d["y"] = ys.attr("T");
          d["status"] = out.status;
          d["message"] = out.message;
          d["n_steps"] = out.stats.n_steps;
          d["n_rhs"] = out.stats.n_rhs;
          d["n_rejected"] = out.stats.n_err_test_fails;
          return d;
        },
        py::arg("model"), py::arg("params"), py::arg("t0"), py::arg("tf"), py::arg("y0"), py::arg("t_eval"),
        py::arg("rtol"), py::arg("atol"), py::arg("max_steps") = 500000,
        "The Dormand-Prince 8(5,3) explicit Runge-Kutta pair on a non-stiff model (no events, no drift control): "
        "dict(t, y (n_states, n_t), status, message, n_steps, n_rhs, n_rejected).");
}
