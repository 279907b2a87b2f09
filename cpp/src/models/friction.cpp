// The friction model (nonholo/models/friction.hpp), compiled once.
#include "nonholo/models/friction.hpp"

#include <cmath>

#include "nonholo/models.hpp"

namespace nonholo {

// The law's inputs at y (the metric factored on the way).
template <class Law>
void FrictionModel<Law>::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = system().n();
  equations_.check_scale(p, system().n_params());
  auto& w = this->work(ws);
  system().evaluate_dynamics(t, y, y + n, p, w.geo);  // G and mu
  factor_metric(w);
  equations_.template check_point<DenseAlgebra>(w.geo, p, system().n_params(), [&] { return describe_point(w.geo); });
}

template class ModelImpl<FrictionModel<ViscousLaw>, MechanicsWork>;
template class FrictionModel<ViscousLaw>;

std::shared_ptr<Model> make_friction_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<FrictionModel<ViscousLaw>>(std::move(system));
}

}  // namespace nonholo
