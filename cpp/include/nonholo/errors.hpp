// Exception classes of the core; the bindings map each to a Python class in nonholo.errors.
#pragma once

#include <stdexcept>
#include <string>

namespace nonholo {

// Bad arguments: wrong sizes, non-finite values, non-positive tolerances (Python ValueError).
struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// The mechanical data is unusable at a point: metric not positive definite, dependent
// constraint rows, friction matrix not positive definite (Python ModelError, a ValueError).
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A solver failed after integration started (Python IntegrationError, a RuntimeError).
struct SolverError : std::runtime_error {
  SolverError(const std::string& what, double t) : std::runtime_error(what), t(t) {}
  double t;
};

}  // namespace nonholo
