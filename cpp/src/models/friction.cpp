// The friction model (nonholo/models/friction.hpp), compiled once.
#include "nonholo/models/friction.hpp"

#include <cmath>

#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<FrictionModel, MechanicsWork>;

void FrictionModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = system().n();
  const double eps = p[system().n_params()];
  if (!(eps > 0.0) || !std::isfinite(eps))
    throw InputError("eps must be a positive finite number (got " + std::to_string(eps) + ")");
  auto& w = work(ws);
  system().evaluate_dynamics(t, y, y + n, p, w.geo);  // G and mu
  factor_metric(w);
  Ldlt<double> chol_mu;
  if (system().k() > 0 && !chol_mu.compute(w.geo.mu()))
    throw ModelError("the friction coefficients mu are not symmetric positive definite at " + describe_point(w.geo));
  if (system().k() > 0 && (w.geo.mu() - w.geo.mu().transpose()).norm() > 1e-12 * (1.0 + w.geo.mu().norm()))
    throw ModelError("the friction coefficients mu are not symmetric at " + describe_point(w.geo));
}

std::shared_ptr<Model> make_friction_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<FrictionModel>(std::move(system));
}

}  // namespace nonholo
