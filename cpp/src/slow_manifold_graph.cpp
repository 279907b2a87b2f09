#include "nonholo/slow_manifold_graph.hpp"

#include <chrono>

#include "nonholo/scalar/traced.hpp"
#include "nonholo/slow_manifold.hpp"

namespace nonholo {

CompiledSlip::CompiledSlip(std::shared_ptr<const MechanicalSystem> system, int order, double t, const double* q,
                           const double* u, const double* p, std::size_t max_nodes)
    : system_(std::move(system)), order_(order) {
  if (order < 1 || order > kMaxSeriesDegree)
    throw InputError("the compiled slow-manifold order must be between 1 and " + std::to_string(kMaxSeriesDegree) +
                     " (got " + std::to_string(order) + ")");
  const auto start = std::chrono::steady_clock::now();
  const MechanicalSystem& sys = *system_;
  const int n = sys.n();
  GraphBuilder builder(sys.n_inputs());
  std::vector<int> outputs;
  try {
    TraceScope scope(builder);
    TraceBudget budget(max_nodes);
    std::vector<Traced> qt(n), ut(n), pt(sys.n_params());
    for (int i = 0; i < n; ++i) {
      qt[i] = Traced::input(i, q[i]);
      ut[i] = Traced::input(n + i, u[i]);
    }
    Traced tt = Traced::input(sys.time_input(), t);
    for (int i = 0; i < sys.n_params(); ++i) pt[i] = Traced::input(2 * n + 1 + i, p[i]);
    SlowManifoldWork<Traced> work;
    MatX<Traced> coeffs;
    slip_coefficients(sys, tt, qt.data(), ut.data(), pt.data(), order, work, coeffs);
    outputs.reserve(n * order);
    for (int k = 0; k < order; ++k)
      for (int i = 0; i < n; ++i) outputs.push_back(coeffs(i, k).node());
  } catch (const Traced::TooLarge&) {
    throw InputError("the compiled slow manifold is too large: h^(1.." + std::to_string(order) + ") needs more than " +
                     std::to_string(max_nodes) + " graph nodes (the Taylor-mode path applies)");
  }
  n_graph_nodes_ = static_cast<int>(builder.nodes().size());
  tape_ = Tape(builder.finish(std::move(outputs)));
  build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace nonholo
