#pragma once

#include <functional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "nonholo/tape/tape_name.hpp"

namespace py = pybind11;

namespace nonholo {
class MechanicalSystem;
class Model;
class Tape;
}  // namespace nonholo

void expose_errors(py::module_& m);
void expose_tape(py::module_& m);
void expose_system(py::module_& m);
void expose_models(py::module_& m);
void expose_integrate(py::module_& m);
void expose_discrete(py::module_& m);
void expose_frames(py::module_& m);
void expose_reduced(py::module_& m);
void expose_trajectory(py::module_& m);
void expose_evaluation(py::module_& m);
void expose_ocp(py::module_& m);
// nonholo._core.cost_constants(): the fitted constants of cost_constants.hpp.
void expose_cost_constants(py::module_& m);
// nonholo._core.diagnostics, a submodule of m: what only the benchmarks and tests use.
void expose_diagnostics(py::module_& m);

// A NumPy array that owns a copy of `data` with the given shape (C order).
template <class T>
py::array_t<double> to_numpy(const T* data, std::vector<py::ssize_t> shape) {
  py::array_t<double> arr(shape);
  std::copy(data, data + arr.size(), arr.mutable_data());
  return arr;
}

// Tape names at the boundary: Python passes strings, C++ takes TapeName. tape_name_arg raises
// ValueError naming the argument `which` for an unknown name; a known name that the system or
// model has no tape of raises there (InputError, also a ValueError), naming its choices.
nonholo::TapeName tape_name_arg(const std::string& which);
std::vector<std::string> tape_name_strings(const std::vector<nonholo::TapeName>& names);
const nonholo::Tape& tape_named(const nonholo::MechanicalSystem& sys, const std::string& which);
const nonholo::Tape& tape_named(const nonholo::Model& model, const std::string& which);

// The interrupt check of a run in C++ (called every 64 steps, with the GIL released around the
// run): Ctrl-C (PyErr_CheckSignals, which acts on the main thread only), then `cancel` when it is
// not None, a Python callable that raises (e.g. KeyboardInterrupt) to stop a run in another thread
// (nonholo.analysis.sweeps' workers). Either way the Python error is left set for the caller.
inline std::function<bool()> interrupt_check(const py::object& cancel) {
  return [&cancel] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) return true;
    if (cancel.is_none()) return false;
    try {
      cancel();
    } catch (py::error_already_set& err) {
      err.restore();
      return true;
    }
    return false;
  };
}

// Rethrow the pending Python error (KeyboardInterrupt) with `make_partial()` attached as its
// attribute `_nonholo_partial`: the output up to the interrupt, which Python turns into
// `exc.partial`. The error is fetched (cleared) while the partial output is built.
template <class MakePartial>
[[noreturn]] void raise_with_partial(MakePartial make_partial) {
  py::error_already_set err;
  py::object partial = make_partial();
  if (PyObject_SetAttrString(err.value().ptr(), "_nonholo_partial", partial.ptr()) != 0) PyErr_Clear();
  throw err;
}

// A contiguous float64 copy of `obj` with exactly `size` entries; the error names `what`.
std::vector<double> as_vector(const py::handle& obj, py::ssize_t size, const char* what);
