// How a system's tapes are evaluated: their C translation and the attachment of compiled
// kernels (nonholo.compile drives the C compiler and caches the shared objects). Tapes are named
// by strings here, and by TapeName (tape/tape_name.hpp) everywhere in C++.
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
}

}  // namespace

void expose_evaluation(py::module_& m) {
  m.def("tape_names", []() { return tape_name_strings(MechanicalSystem::tape_names()); },
        "The tapes of a MechanicalSystem that can be compiled.");
  expose_tape_access<MechanicalSystem>(m, "system");
  expose_tape_access<Model>(m, "model");
}
