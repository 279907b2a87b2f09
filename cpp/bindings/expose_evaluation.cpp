// How a system's tapes are evaluated: their C translation and the attachment of compiled
// kernels (nonholo.compile drives the C compiler and caches the shared objects), and timings of
// a model's evaluations in C++ (for benchmarks/peers.py, free of Python call overhead). Tapes are
// named by strings here, and by TapeName (tape/tape_name.hpp) everywhere in C++.
#include <chrono>
#include <limits>
#include <memory>

#include "bindings.hpp"
#include "nonholo/errors.hpp"
#include "nonholo/mechanical_system.hpp"
#include "nonholo/model.hpp"
#include "nonholo/tape/compiled.hpp"

using namespace nonholo;

TapeName tape_name_arg(const std::string& which) {
  if (auto name = tape_name_from_string(which)) return *name;
  throw py::value_error("which must be one of the tape names " + quoted_tape_names(all_tape_names()) + ", got '" +
                        which + "'");
}

std::vector<std::string> tape_name_strings(const std::vector<TapeName>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (TapeName name : names) out.emplace_back(to_string(name));
  return out;
}

const Tape& tape_named(const MechanicalSystem& sys, const std::string& which) {
  return sys.tape_named(tape_name_arg(which));
}
const Tape& tape_named(const Model& model, const std::string& which) { return model.named_tape(tape_name_arg(which)); }

namespace {

// The tape functions for an owner of tapes: a MechanicalSystem (its tapes) or a Model (the
// system's and the model's own: a CompiledSlip's, a frame's).
template <class Owner>
void expose_tape_access(py::module_& m, const char* owner_name) {
  m.def("tape_c_source", [](const Owner& owner, const std::string& which, const std::string& name) {
    return tape_c_source(tape_named(owner, which), name);
  }, py::arg(owner_name), py::arg("which"), py::arg("name"),
     "C source of the tape `which` of a system or a model as `void name(const double* in, double* out)`.");
  m.def("attach_compiled", [](const Owner& owner, const std::string& which, const std::string& path,
                              const std::string& symbol) {
    const Tape& tape = tape_named(owner, which);
    tape.attach(path.empty() ? nullptr : std::make_shared<const CompiledKernel>(path, symbol));
  }, py::arg(owner_name), py::arg("which"), py::arg("path"), py::arg("symbol"),
     "Evaluate the tape `which` in doubles with `symbol` from the shared object `path` ('' detaches).");
  m.def("tape_compiled", [](const Owner& owner, const std::string& which) {
    return tape_named(owner, which).compiled();
  }, py::arg(owner_name), py::arg("which"));
  m.def("tape_size", [](const Owner& owner, const std::string& which) {
    const Tape& t = tape_named(owner, which);
    return py::make_tuple(t.n_instructions(), t.n_outputs());
  }, py::arg(owner_name), py::arg("which"), "(instructions, outputs) of the tape `which`.");
}

}  // namespace

void expose_evaluation(py::module_& m) {
  m.def("tape_names", []() { return tape_name_strings(MechanicalSystem::tape_names()); },
        "The tapes of a MechanicalSystem that can be compiled.");
  expose_tape_access<MechanicalSystem>(m, "system");
  expose_tape_access<Model>(m, "model");
  m.def("tape_program", [](const MechanicalSystem& sys, const std::string& which) {
    const Tape& t = tape_named(sys, which);
    return py::make_tuple(t.n_interpreted(), t.n_runs(), t.n_work());
  }, py::arg("system"), py::arg("which"),
     "(operations after fusion, runs of one kind, work slots) of the interpreter's program for the tape `which`.");
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
    double dual = seconds_per_call([&] { model.jacobian_dual(t, yv.data(), pv.data(), J.data(), *ws); });
    double implicit = std::numeric_limits<double>::quiet_NaN();
    if (model.implicit_jacobian(t, yv.data(), pv.data(), J.data(), *ws))
      implicit = seconds_per_call([&] { model.implicit_jacobian(t, yv.data(), pv.data(), J.data(), *ws); });
    return py::make_tuple(rhs, jac, dual, implicit);
  }, py::arg("model"), py::arg("t"), py::arg("y"), py::arg("params"), py::arg("calls"),
     "Seconds per call of rhs, jacobian, jacobian_dual and implicit_jacobian (NaN for models without "
     "one), measured in C++ over `calls` calls.");
}
