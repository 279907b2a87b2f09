#include "nonholo/measured_costs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "nonholo/model.hpp"
#include "nonholo/sparse_structure.hpp"

namespace nonholo {

double SteadyStopwatch::nanoseconds(const std::function<void()>& batch) {
  const auto start = std::chrono::steady_clock::now();
  batch();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
}

long batch_calls(double one) {
  if (!(one > 0.0)) return kMaxBatchCalls;
  return static_cast<long>(std::clamp(std::ceil(kBatchNanoseconds / one), 1.0, static_cast<double>(kMaxBatchCalls)));
}

namespace {

double least(const std::vector<double>& times, const char* what) {
  double best = INFINITY;
  for (double t : times)
    if (t > 0.0 && t < best) best = t;
  if (!std::isfinite(best)) throw std::invalid_argument(std::string("no positive time of the ") + what);
  return best;
}

}  // namespace

MeasuredCosts least_disturbed(const std::vector<double>& rhs_ns, const std::vector<double>& jacobian_ns) {
  return {least(rhs_ns, "right-hand side"), least(jacobian_ns, "Jacobian")};
}

MeasuredCosts measure_costs(const Model& model, double t, const double* y, const double* p, Stopwatch& watch) {
  const int n = model.n_states();
  const SparseJacobian* sparse = model.sparse_jacobian();
  std::vector<double> f(n),
      J(sparse ? static_cast<std::size_t>(sparse->jacobian_structure().nnz()) : static_cast<std::size_t>(n) * n);
  WorkspaceLease ws = model.borrow_workspace();
  const auto rhs = [&] { model.rhs(t, y, p, f.data(), *ws); };
  const auto jacobian = [&] {
    if (sparse) sparse->sparse_jacobian(t, y, p, J.data(), *ws);
    else model.jacobian(t, y, p, J.data(), *ws);
  };
  // one call each (it also sizes the workspace's buffers), then the batches in turns
  const long rhs_calls = batch_calls(watch.nanoseconds(rhs));
  const long jacobian_calls = batch_calls(watch.nanoseconds(jacobian));
  std::vector<double> rhs_ns, jacobian_ns;
  for (int b = 0; b < kBatches; ++b) {
    rhs_ns.push_back(watch.nanoseconds([&] {
      for (long i = 0; i < rhs_calls; ++i) rhs();
    }) / static_cast<double>(rhs_calls));
    jacobian_ns.push_back(watch.nanoseconds([&] {
      for (long i = 0; i < jacobian_calls; ++i) jacobian();
    }) / static_cast<double>(jacobian_calls));
  }
  return least_disturbed(rhs_ns, jacobian_ns);
}

}  // namespace nonholo
