// The friction model (nonholo/models/friction.hpp), compiled once.
#include "nonholo/models/friction.hpp"

#include <cmath>

#include "nonholo/models.hpp"

namespace nonholo {

template class ModelImpl<FrictionModel, MechanicsWork>;

// The law's inputs at y (the metric factored on the way).
void FrictionModel::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = system().n();
  const double eps = law_scale(p, system().n_params());
  Law::check_scale(eps);
  auto& w = work(ws);
  system().evaluate_dynamics(t, y, y + n, p, w.geo);  // G and mu
  factor_metric(w);
  Law::check(LawInputs{MatX<double>(w.geo.mu()), eps}, describe_point(w.geo));
}

std::shared_ptr<Model> make_friction_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<FrictionModel>(std::move(system));
}

}  // namespace nonholo
