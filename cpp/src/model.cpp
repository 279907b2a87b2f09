#include "nonholo/model.hpp"

#include <algorithm>

#include "nonholo/models/friction.hpp"

namespace nonholo {

void Model::constraint_residual(double, const double*, const double*, Workspace&, double* residual,
                                double* scale) const {
  *residual = 0.0;
  *scale = 1.0;
}

void Model::project(double, const double*, const double*, double* corr, double*, const double*, Workspace&) const {
  std::fill(corr, corr + n_states(), 0.0);
}

void Model::check_state(double, const double*, const double*, Workspace&) const {}

void Model::project_sensitivities(double, const double*, const double*, int, double* const*, const int*,
                                  const double*, Workspace&) const {}

void FrictionModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = system().n();
  const double eps = p[system().n_params()];
  if (!(eps > 0.0) || !std::isfinite(eps))
    throw InputError("eps must be a positive finite number (got " + std::to_string(eps) + ")");
  auto& w = work(ws);
  system().evaluate(t, y, y + n, p, w.geo);
  factor_metric(w);
  Ldlt<double> chol_mu;
  if (system().k() > 0 && !chol_mu.compute(w.geo.mu()))
    throw ModelError("the friction coefficients mu are not symmetric positive definite at " + describe_point(w.geo));
  if (system().k() > 0 && (w.geo.mu() - w.geo.mu().transpose()).norm() > 1e-12 * (1.0 + w.geo.mu().norm()))
    throw ModelError("the friction coefficients mu are not symmetric at " + describe_point(w.geo));
}

}  // namespace nonholo
