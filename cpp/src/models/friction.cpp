// The friction model (nonholo/models/friction.hpp), compiled once.
#include "nonholo/models/friction.hpp"

#include <cmath>

#include "nonholo/models.hpp"

namespace nonholo {

// The law's inputs at y (the metric factored on the way).
template <class Law>
void FrictionModel<Law>::check_state(double t, const double* y, const double* p, Workspace& ws) const {
  const int n = system().n();
  const double eps = law_scale(p, system().n_params());
  law_.check_scale(eps);
  auto& w = this->work(ws);
  system().evaluate_dynamics(t, y, y + n, p, w.geo);  // G and mu
  factor_metric(w);
  law_.check(LawInputs{MatX<double>(w.geo.mu()), eps}, describe_point(w.geo));
}

template class ModelImpl<FrictionModel<ViscousLaw>, MechanicsWork>;
template class FrictionModel<ViscousLaw>;

std::shared_ptr<Model> make_friction_model(std::shared_ptr<const MechanicalSystem> system) {
  return std::make_shared<FrictionModel<ViscousLaw>>(std::move(system));
}

}  // namespace nonholo
