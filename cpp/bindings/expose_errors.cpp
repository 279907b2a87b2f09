// One mapping from C++ exception classes to the Python hierarchy of nonholo.errors: the
// classes are defined in Python (NonholoError > ModelError, IntegrationError) and looked up
// when an exception crosses the boundary, so Python and the core raise the same types.
#include "bindings.hpp"
#include "nonholo/errors.hpp"

namespace {

py::object python_error(const char* name) { return py::module_::import("nonholo.errors").attr(name); }

}  // namespace

void expose_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nonholo::ModelError& e) {
      py::set_error(python_error("ModelError"), e.what());
    } catch (const nonholo::SolverError& e) {
      py::object cls = python_error("IntegrationError");
      py::object err = cls(e.what(), py::none(), e.t);
      PyErr_SetObject(cls.ptr(), err.ptr());
    } catch (const nonholo::InputError& e) {
      py::set_error(PyExc_ValueError, e.what());
    }
  });
}
