// One mapping table from C++ exception classes to Python classes (nonholo.errors re-exports).
#include "bindings.hpp"
#include "nonholo/errors.hpp"

void expose_errors(py::module_& m) {
  static py::exception<nonholo::ModelError> model_error(m, "ModelError", PyExc_ValueError);
  static py::exception<nonholo::SolverError> solver_error(m, "SolverError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const nonholo::ModelError& e) {
      py::set_error(model_error, e.what());
    } catch (const nonholo::SolverError& e) {
      py::set_error(solver_error, e.what());
    } catch (const nonholo::InputError& e) {
      py::set_error(PyExc_ValueError, e.what());
    }
  });
}
