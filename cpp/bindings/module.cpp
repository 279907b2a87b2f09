// nonholo._core: the compiled core. The public API lives in the Python package.
#include "bindings.hpp"

// A friction law given by tapes and the queries of its slow manifold (expose_law_expansion.cpp).
void expose_law_expansion(py::module_& m);

std::vector<double> as_vector(const py::handle& obj, py::ssize_t size, const char* what) {
  // a list of numbers (e.g. a parameter vector) without a NumPy array in between; anything
  // else (or a failed conversion) through NumPy, which gives the same doubles
  if (PyList_CheckExact(obj.ptr()) && (size < 0 || PyList_GET_SIZE(obj.ptr()) == size)) {
    const py::ssize_t n = PyList_GET_SIZE(obj.ptr());
    std::vector<double> out(static_cast<std::size_t>(n));
    py::ssize_t i = 0;
    for (; i < n; ++i) {
      PyObject* item = PyList_GET_ITEM(obj.ptr(), i);
      if (!PyFloat_CheckExact(item)) break;
      out[static_cast<std::size_t>(i)] = PyFloat_AS_DOUBLE(item);
    }
    if (i == n) return out;
  }
  auto arr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(obj);
  if (!arr) throw py::value_error(std::string(what) + " must be an array of floats");
  if (size >= 0 && arr.size() != size)
    throw py::value_error(std::string(what) + " has " + std::to_string(arr.size()) + " entries, expected " +
                          std::to_string(size));
  return std::vector<double>(arr.data(), arr.data() + arr.size());
}

PYBIND11_MODULE(_core, m) {
  m.doc() = "nonholo C++ core: expression tapes, mechanical systems, models, CVODE integration";
#ifdef NONHOLO_VERSION
  m.attr("__version__") = NONHOLO_VERSION;
#endif
  expose_errors(m);
  expose_tape(m);
  expose_system(m);
  expose_models(m);
  expose_integrate(m);
  expose_discrete(m);
  expose_frames(m);
  expose_reduced(m);
  expose_law_expansion(m);
  expose_trajectory(m);
  expose_evaluation(m);
  expose_ocp(m);
  expose_cost_constants(m);
  expose_diagnostics(m);
}
